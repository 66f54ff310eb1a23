//! The suite generators' common tools: a seeded random source and an indented text writer.
//!
//! Pure: the same seed always gives the same choices. Never reads or prints anything.

use btvm::Prng;

/// Source text under construction, with the random source that shapes it.
pub(super) struct Writer {
    rng: Prng,
    /// The text so far.
    pub out: String,
    /// A counter for unique names.
    next: usize,
}

impl Writer {
    /// An empty text drawing from `seed` (mixed with `salt`, one per generator).
    pub fn new(seed: u64, salt: u64) -> Writer {
        Writer {
            rng: Prng::from_state(seed ^ salt),
            out: String::new(),
            next: 0,
        }
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    /// True with `percent` chance.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `xs` (which must not be empty).
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    /// A fresh number, for unique names.
    pub fn fresh(&mut self) -> usize {
        self.next += 1;
        self.next
    }

    /// CryXML's `<SignalVariables>` block (MBT and BST alike) at `depth`: each of `signals`
    /// signals `{prefix}{k}` sets one or two of the variables `V0`..`V{variables-1}` to `true`,
    /// `false` or another variable's negation.
    pub fn signal_variables(
        &mut self,
        depth: usize,
        prefix: &str,
        signals: usize,
        variables: usize,
    ) {
        self.line(depth, "<SignalVariables>");
        for s in 0..signals {
            for _ in 0..1 + self.below(2) {
                let v = self.below(variables);
                let value = match self.below(3) {
                    0 => "true".to_string(),
                    1 => "false".to_string(),
                    _ => format!("!V{}", self.below(variables)),
                };
                self.line(
                    depth + 1,
                    &format!("<Signal name=\"{prefix}{s}\" variable=\"V{v}\" value=\"{value}\"/>"),
                );
            }
        }
        self.line(depth, "</SignalVariables>");
    }

    /// One line at `depth` (indented by four spaces per level).
    pub fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }
}

/// How a composite of `budget` nodes splits them between `children` children: the share of
/// child `k` (every share at least 1).
pub(super) fn share(budget: usize, children: usize, k: usize) -> usize {
    let children = children.max(1);
    let base = budget / children;
    let extra = usize::from(k < budget % children);
    (base + extra).max(1)
}
