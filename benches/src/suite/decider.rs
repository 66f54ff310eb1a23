//! A large generated Spore (`.spore`) tree: the decider model.
//!
//! A prioritized root over groups of every policy (prioritized, sequential, random, scored),
//! some with a group behavior, nesting down to behavior deciders, as
//! `spec/examples/figure1.spore` is built: deciders gated by decision flags and stimuli (every
//! test), rate-limited (`every`), scored by host functions and `@random` (`decide`), some
//! redeciding, and a shared child array used by several groups. Behaviors have every mix of
//! phases; the synthetic host keeps some running for several ticks and fails some, so the
//! active path moves. Pure: a function of `(nodes, seed)`.

use super::text::{share, Writer};

/// Decision flags (bits 0..7).
const FLAGS: [&str; 8] = [
    "hungry",
    "wounded",
    "night",
    "carnivore",
    "leader",
    "tired",
    "cold",
    "armed",
];

/// Stimuli (bits 0..5).
const STIMULI: [&str; 6] = ["hit", "enemy_seen", "noise", "food_seen", "call", "fire"];

/// Host functions of no argument (each answers 0 to 100 on the synthetic host).
const FUNCTIONS: [&str; 8] = [
    "fear()",
    "threat()",
    "hunger()",
    "fatigue()",
    "health()",
    "allies_near()",
    "food_distance()",
    "energy()",
];

/// Phases a behavior may declare.
const PHASES: [&str; 4] = [
    "activate tick deactivate",
    "activate tick",
    "tick",
    "tick deactivate",
];

/// Number of behaviors.
const BEHAVIORS: usize = 16;

/// Group policies.
const POLICIES: [&str; 4] = ["prioritized", "sequential", "random", "scored"];

/// Flag and stimulus tests.
const TESTS: [&str; 4] = ["any", "all", "none", "notall"];

/// A `.spore` tree of about `nodes` IR nodes.
pub(super) fn tree(nodes: usize, seed: u64) -> String {
    let mut w = Writer::new(seed, 0x5_907E);
    w.line(0, "// generated for btvm bench's suite (decider model)");
    w.line(0, "spore 1;");
    for b in 0..BEHAVIORS {
        let phases = w.pick(&PHASES);
        w.line(0, &format!("behavior act{b} {phases};"));
    }
    w.line(0, &format!("decision flags {};", FLAGS.join(", ")));
    w.line(0, &format!("stimuli {};", STIMULI.join(", ")));
    // The shared array: four behavior deciders, used by several groups below.
    w.line(0, "children COMMON {");
    for k in 0..4 {
        let opts = options(&mut w);
        let b = w.below(BEHAVIORS);
        w.line(1, &format!("COMMON_{k}{opts} => act{b};"));
    }
    w.line(0, "}");
    // A decider with options is several IR nodes (its gates): scaled to land near `nodes`.
    let budget = (nodes * 5 / 8).max(40);
    let children = (budget / 60).clamp(2, 24);
    w.line(0, "root ROOT => prioritized {");
    for k in 0..children {
        decider(&mut w, 1, share(budget, children, k));
    }
    w.line(0, "}");
    w.out
}

/// The options of a decider: some of `when decision`, `when stimuli`, `every`, `decide`.
fn options(w: &mut Writer) -> String {
    let mut s = String::new();
    if w.chance(35) {
        let test = w.pick(&TESTS);
        let a = w.pick(&FLAGS);
        let b = w.pick(&FLAGS);
        let names = if a == b {
            a.to_string()
        } else {
            format!("{a}, {b}")
        };
        s.push_str(&format!(" when decision {test}({names})"));
    }
    if w.chance(20) {
        let test = if w.chance(70) { "any" } else { "none" };
        let a = w.pick(&STIMULI);
        s.push_str(&format!(" when stimuli {test}({a})"));
    }
    if w.chance(15) {
        let ms = 250 * (1 + w.below(8));
        s.push_str(&format!(" every {ms} ms"));
    }
    match w.below(10) {
        0..=4 => {
            let f = w.pick(&FUNCTIONS);
            let t = 10 * (1 + w.below(8));
            s.push_str(&format!(" decide {f} > {t}"));
        }
        5 => {
            let f = w.pick(&FUNCTIONS);
            let g = w.pick(&FUNCTIONS);
            s.push_str(&format!(" decide {f} - {g} + 20"));
        }
        6 => s.push_str(" decide @random < 0.5"),
        _ => {}
    }
    s
}

/// A decider of about `budget` nodes: a behavior decider, or a group over children.
fn decider(w: &mut Writer, depth: usize, budget: usize) {
    let id = w.fresh();
    let mut opts = options(w);
    if budget <= 2 {
        let b = w.below(BEHAVIORS);
        w.line(depth, &format!("D{id}{opts} => act{b};"));
        return;
    }
    let policy = w.pick(&POLICIES);
    if policy == "sequential" && w.chance(50) {
        opts.push_str(" redecide");
    }
    let with = if w.chance(30) {
        format!(" with act{}", w.below(BEHAVIORS))
    } else {
        String::new()
    };
    if budget <= 8 && w.chance(25) {
        w.line(depth, &format!("D{id}{opts} => {policy}{with} COMMON;"));
        return;
    }
    w.line(depth, &format!("D{id}{opts} => {policy}{with} {{"));
    let inner = budget - 1;
    let children = if inner > 40 {
        3 + w.below(4)
    } else {
        2 + w.below(3)
    }
    .min(inner);
    for k in 0..children {
        decider(w, depth + 1, share(inner, children, k));
    }
    w.line(depth, "}");
}
