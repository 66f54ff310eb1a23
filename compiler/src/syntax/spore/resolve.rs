//! The second pass: every decider's options and target, in source order. Flag and stimulus
//! names become masks, durations milliseconds, Decide expressions IR expressions (each function
//! declared as an import by its first use, with that use's argument count), behavior and array
//! names their declarations, and decider references are counted. Repeated options, unknown
//! names, arity mismatches, bad durations and groups of more than 64 children are reported
//! here.

use std::collections::HashMap;

use btvm::{Import, ImportId, ImportKind};
use chumsky::span::SimpleSpan;

use super::ast::{Children, Def, Entry, Name, Opt, SExpr, Table, Target, Test};
use super::duration::{to_ms, DurationError};
use super::index::Index;
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{
    Arg, BehaviorRef, CallExpr, Decider, Expr, FlagTest, Group, Lit, Precondition, TreeBuilder,
};

/// Most children a group may have (spec/spore.md §1.2).
pub(super) const MAX_CHILDREN: usize = 64;

/// A decider's knobs and the knobs of its target node.
pub(super) struct Resolved {
    /// The decider node's knobs.
    pub decider: Decider,
    /// The behavior of a behavior decider, or the group of a group decider.
    pub target: Result<BehaviorRef, Group>,
}

/// What the second pass found.
pub(super) struct Resolution {
    /// Each definition's knobs, by the start of its span (unique per definition).
    pub defs: HashMap<usize, Resolved>,
    /// How often each decider is referenced by name.
    pub refs: HashMap<String, usize>,
    /// How often each `children` array is used by a group.
    pub array_uses: HashMap<String, usize>,
}

struct Resolver<'i, 'a> {
    ix: &'i mut Index<'a>,
    b: &'i mut TreeBuilder,
    /// Functions: import, argument count and span of the first use.
    funcs: HashMap<String, (ImportId, usize, SimpleSpan)>,
    out: Resolution,
}

/// Resolves every definition of the indexed file; function imports are added to `b`.
pub(super) fn resolve(ix: &mut Index<'_>, b: &mut TreeBuilder) -> Resolution {
    let order = ix.order.clone();
    let mut r = Resolver {
        ix,
        b,
        funcs: HashMap::new(),
        out: Resolution {
            defs: HashMap::new(),
            refs: HashMap::new(),
            array_uses: HashMap::new(),
        },
    };
    // `order` is every definition in source order (pre-order), so functions are declared in
    // the order of their first use.
    for def in order {
        r.def(def);
    }
    for entries in r.ix.all_arrays.clone() {
        r.entries(entries);
    }
    r.out
}

impl Resolver<'_, '_> {
    fn error(&mut self, kind: ErrorKind, s: SimpleSpan, message: impl Into<String>) {
        self.ix.error(kind, s, message);
    }

    fn repeated(&mut self, s: SimpleSpan, what: &str) {
        self.error(
            ErrorKind::InvalidValue,
            s,
            format!("{what} is given twice: each option appears at most once per decider"),
        );
    }

    fn def(&mut self, def: &Def) {
        let mut pre = Precondition::default();
        let mut decide = None;
        let mut redecide = false;
        let (mut every_seen, mut dec_seen, mut stim_seen, mut decide_seen) =
            (false, false, false, false);
        for (opt, s) in &def.options {
            match opt {
                Opt::Every(digits, ns, unit) => {
                    if every_seen {
                        self.repeated(*s, "`every`");
                        continue;
                    }
                    every_seen = true;
                    match to_ms(digits, *unit) {
                        Ok(ms) => pre.every_ms = Some(ms),
                        Err(DurationError::Overflow) => self.error(
                            ErrorKind::LiteralOverflow,
                            *ns,
                            "duration is out of range: expected at most 4294967295 ms",
                        ),
                        Err(DurationError::Fraction) => self.error(
                            ErrorKind::InvalidValue,
                            *ns,
                            "duration is not a whole number of milliseconds",
                        ),
                    }
                }
                Opt::When(table, test, names) => {
                    let seen = match table {
                        Table::Decision => &mut dec_seen,
                        Table::Stimuli => &mut stim_seen,
                    };
                    if *seen {
                        let what = match table {
                            Table::Decision => "`when decision`",
                            Table::Stimuli => "`when stimuli`",
                        };
                        self.repeated(*s, what);
                        continue;
                    }
                    *seen = true;
                    let mask = self.mask(*table, names);
                    let (all, set) = match test {
                        Test::All => (true, true),
                        Test::Any => (false, true),
                        Test::None => (true, false),
                        Test::NotAll => (false, false),
                    };
                    let t = Some(FlagTest { mask, all, set });
                    match table {
                        Table::Decision => pre.decision = t,
                        Table::Stimuli => pre.stimuli = t,
                    }
                }
                Opt::Decide(e) => {
                    if decide_seen {
                        self.repeated(*s, "`decide`");
                        continue;
                    }
                    decide_seen = true;
                    decide = Some(self.expr(e));
                }
                Opt::Redecide => {
                    if redecide {
                        self.repeated(*s, "`redecide`");
                    }
                    redecide = true;
                }
            }
        }
        let target = match &def.target {
            Target::Behavior(n) => Ok(self.behavior(n)),
            Target::Group {
                policy,
                with,
                children,
                ..
            } => {
                let behavior = with.as_ref().map(|n| self.behavior(n));
                match children {
                    Children::Inline(entries) => self.entries(entries),
                    Children::Named((name, s)) => {
                        if self.ix.arrays.contains_key(name.as_str()) {
                            *self.out.array_uses.entry(name.clone()).or_default() += 1;
                        } else {
                            self.error(
                                ErrorKind::UnknownName,
                                *s,
                                format!(
                                    "unknown children array `{name}`: expected a name declared with `children`"
                                ),
                            );
                        }
                    }
                }
                Err(Group {
                    policy: *policy,
                    behavior,
                })
            }
        };
        let decider = Decider {
            pre,
            decide,
            decide_on_redecide: redecide,
        };
        self.out
            .defs
            .insert(def.span.start, Resolved { decider, target });
    }

    /// Counts the references among `entries` and checks the group size. (The definitions among
    /// them are resolved on their own, in source order.)
    fn entries(&mut self, entries: &[Entry]) {
        if let Some(e) = entries.get(MAX_CHILDREN) {
            self.error(
                ErrorKind::TooManyNodes,
                e.span(),
                format!(
                    "a group has at most {MAX_CHILDREN} children: this is child {}",
                    MAX_CHILDREN + 1
                ),
            );
        }
        for e in entries {
            let Entry::Ref((name, s)) = e else { continue };
            let root = self.ix.root.map(|r| r.name.0.as_str());
            if root == Some(name.as_str()) {
                self.error(
                    ErrorKind::IncludeCycle,
                    *s,
                    format!("`{name}` is the root decider: using it in a group makes the tree contain itself"),
                );
            } else if self.ix.deciders.contains_key(name.as_str()) {
                *self.out.refs.entry(name.clone()).or_default() += 1;
            } else {
                let hint = if self.ix.arrays.contains_key(name.as_str()) {
                    format!(" (`{name}` is a children array: name it after a policy, `=> prioritized {name}`)")
                } else {
                    String::new()
                };
                self.error(
                    ErrorKind::UnknownName,
                    *s,
                    format!(
                        "unknown decider `{name}`: expected a decider defined in this file{hint}"
                    ),
                );
            }
        }
    }

    fn behavior(&mut self, (name, s): &Name) -> BehaviorRef {
        if let Some(r) = self.ix.behaviors.get(name) {
            return *r;
        }
        let hint = if self.ix.deciders.contains_key(name.as_str()) {
            format!(" (`{name}` is a decider: list it in a group as `{name};`)")
        } else {
            String::new()
        };
        self.error(
            ErrorKind::UnknownName,
            *s,
            format!("unknown behavior `{name}`: expected a name declared with `behavior`{hint}"),
        );
        BehaviorRef {
            import: ImportId(0),
            activate: false,
            tick: false,
            deactivate: false,
        }
    }

    fn mask(&mut self, table: Table, names: &[Name]) -> u32 {
        let mut mask = 0u32;
        for (name, s) in names {
            let (bits, what, decl) = match table {
                Table::Decision => (&self.ix.flags, "decision flag", "decision flags"),
                Table::Stimuli => (&self.ix.stimuli, "stimulus", "stimuli"),
            };
            match bits.get(name) {
                Some(&bit) => mask |= 1u32.checked_shl(bit).unwrap_or(0),
                None => self.error(
                    ErrorKind::UnknownName,
                    *s,
                    format!("unknown {what} `{name}`: expected a name declared with `{decl}`"),
                ),
            }
        }
        mask
    }

    /// The IR expression of `e` (its depth was bounded by the grammar).
    fn expr(&mut self, e: &SExpr) -> Expr {
        match e {
            SExpr::Lit(l) => Expr::Lit(l.clone()),
            SExpr::Random => Expr::Random,
            SExpr::Not(a) => Expr::Not(Box::new(self.expr(a))),
            SExpr::Neg(a) => Expr::Neg(Box::new(self.expr(a))),
            SExpr::Binary(op, a, b) => Expr::binary(*op, self.expr(a), self.expr(b)),
            SExpr::Call((name, s), args) => {
                let args: Vec<Arg> = args
                    .iter()
                    .map(|(n, a)| Arg {
                        name: n.clone(),
                        value: self.expr(a),
                    })
                    .collect();
                match self.function(name, *s, args.len()) {
                    Some(import) => Expr::Call(CallExpr { import, args }),
                    None => Expr::Lit(Lit::Bool(false)),
                }
            }
        }
    }

    /// The import of function `name` called with `argc` arguments at `s`: declared by its first
    /// use, and every other use must pass as many.
    fn function(&mut self, name: &str, s: SimpleSpan, argc: usize) -> Option<ImportId> {
        if let Some(&(id, n, first)) = self.funcs.get(name) {
            if n != argc {
                let first_span = self.ix.span(first);
                let d = Diagnostic::new(
                    ErrorKind::Arity,
                    self.ix.span(s),
                    format!(
                        "function `{name}` is called with {argc} argument{} here, but with {n} at its first use",
                        if argc == 1 { "" } else { "s" }
                    ),
                )
                .with_label(first_span, format!("first used here with {n}"));
                self.ix.errors.push(d);
            }
            return Some(id);
        }
        let Ok(n) = u8::try_from(argc) else {
            self.error(
                ErrorKind::Arity,
                s,
                format!(
                    "function `{name}` is called with {argc} arguments: a call takes at most 255"
                ),
            );
            return None;
        };
        let id = self.b.import(Import {
            name: name.to_string(),
            kind: ImportKind::Function,
            min_args: n,
            max_args: n,
            long_running: false,
            claims: btvm::SlotClaims::default(),
            script: None,
        });
        self.funcs.insert(name.to_string(), (id, argc, s));
        Some(id)
    }
}
