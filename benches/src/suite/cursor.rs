//! A large generated Drag\[en\]gine (`.debt`) tree: the cursor model.
//!
//! A looping root `<choice>` over guarded branches, as `spec/examples/wanderer/` is built:
//! each branch a `<sequence>` entered under conditions (every `<conditionMode>`), holding
//! actions with a parameter (the synthetic host keeps some running for several ticks, or
//! fails them), actions abandoned when a condition turns, nested choices and sequences,
//! `<running>` waits under a condition, optional parts (`<choice>` with a fallback
//! `<success>`), and a `<yield>` ending every sequence so a looping tree hands the frame back.
//! Every rule has an id, so the cursor can stand on any of them. Pure: a function of
//! `(nodes, seed)`.

use super::text::{share, Writer};

/// Conditions on rules without parameters (each a function import of no argument).
const CONDITIONS: [&str; 6] = [
    "enemy.near",
    "health.low",
    "ammo.low",
    "noise.heard",
    "ally.near",
    "cover.near",
];

/// Conditions on actions (each called with the action's one parameter: two arguments).
const ACTION_CONDITIONS: [&str; 3] = ["path.clear", "target.valid", "enemy.near.target"];

/// Actions, each called with one `target` parameter.
const ACTIONS: [&str; 10] = [
    "move.to",
    "look.turn",
    "weapon.fire",
    "weapon.reload",
    "pose.crouch",
    "pose.stand",
    "timer.wait",
    "destination.choose",
    "ally.signal",
    "item.use",
];

/// Parameter values.
const TARGETS: [&str; 5] = ["enemy", "cover", "away", "ally", "destination"];

/// Condition modes.
const MODES: [&str; 4] = ["allTrue", "anyTrue", "anyFalse", "allFalse"];

/// A `.debt` tree of about `nodes` IR nodes (an action is two: its guard and the call).
pub(super) fn tree(nodes: usize, seed: u64) -> String {
    let mut w = Writer::new(seed, 0xC0_5502);
    w.line(0, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    w.line(
        0,
        "<!-- generated for btvm bench's suite (cursor model) -->",
    );
    w.line(0, "<behaviorTree>");
    w.line(1, "<choice id=\"root\" loop=\"true\">");
    // Conditions and ids add IR nodes the budget does not count: scaled to land near `nodes`.
    let budget = (nodes * 9 / 8).max(40) - 1;
    let branches = (budget / 50).clamp(2, 20);
    for k in 0..branches {
        branch(&mut w, 2, share(budget, branches, k));
    }
    w.line(1, "</choice>");
    w.line(0, "</behaviorTree>");
    w.out
}

/// Conditions of a rule without parameters, and their mode.
fn conditions(w: &mut Writer, depth: usize) {
    let n = 1 + w.below(2);
    for _ in 0..n {
        let c = w.pick(&CONDITIONS);
        w.line(depth, &format!("<condition>{c}</condition>"));
    }
    let mode = w.pick(&MODES);
    w.line(depth, &format!("<conditionMode>{mode}</conditionMode>"));
}

/// A top-level branch of `budget` nodes: a guarded sequence ending in a yield.
fn branch(w: &mut Writer, depth: usize, budget: usize) {
    let id = w.fresh();
    w.line(depth, &format!("<sequence id=\".b{id}\">"));
    conditions(w, depth + 1);
    body(w, depth + 1, budget.saturating_sub(2));
    let y = w.fresh();
    w.line(depth + 1, &format!("<yield id=\".y{y}\"/>"));
    w.line(depth, "</sequence>");
}

/// The children of a sequence or choice, `budget` nodes in all.
fn body(w: &mut Writer, depth: usize, budget: usize) {
    let children = if budget > 12 {
        3 + w.below(3)
    } else {
        1 + budget / 3
    };
    for k in 0..children {
        rule(w, depth, share(budget, children, k));
    }
}

/// One rule of about `budget` nodes.
fn rule(w: &mut Writer, depth: usize, budget: usize) {
    if budget <= 3 {
        match w.below(10) {
            0 => {
                let id = w.fresh();
                w.line(depth, &format!("<running id=\".r{id}\">"));
                conditions(w, depth + 1);
                w.line(depth, "</running>");
            }
            1 => {
                let id = w.fresh();
                w.line(depth, &format!("<yield id=\".y{id}\"/>"));
            }
            _ => action(w, depth),
        }
        return;
    }
    let id = w.fresh();
    match w.below(3) {
        0 => {
            // An optional part: the choice succeeds anyway.
            w.line(depth, &format!("<choice id=\".o{id}\">"));
            sequence(w, depth + 1, budget - 2);
            let s = w.fresh();
            w.line(depth + 1, &format!("<success id=\".s{s}\"/>"));
            w.line(depth, "</choice>");
        }
        1 => {
            w.line(depth, &format!("<choice id=\".c{id}\">"));
            if w.chance(50) {
                conditions(w, depth + 1);
            }
            body(w, depth + 1, budget - 1);
            w.line(depth, "</choice>");
        }
        _ => {
            w.line(depth, &format!("<sequence id=\".q{id}\">"));
            body(w, depth + 1, budget - 2);
            let y = w.fresh();
            w.line(depth + 1, &format!("<yield id=\".y{y}\"/>"));
            w.line(depth, "</sequence>");
        }
    }
}

/// A sequence of `budget` nodes ending in a yield.
fn sequence(w: &mut Writer, depth: usize, budget: usize) {
    let id = w.fresh();
    w.line(depth, &format!("<sequence id=\".q{id}\">"));
    if w.chance(50) {
        conditions(w, depth + 1);
    }
    body(w, depth + 1, budget.saturating_sub(2));
    let y = w.fresh();
    w.line(depth + 1, &format!("<yield id=\".y{y}\"/>"));
    w.line(depth, "</sequence>");
}

/// An action with one parameter, sometimes abandoned when a condition turns.
fn action(w: &mut Writer, depth: usize) {
    let id = w.fresh();
    let name = w.pick(&ACTIONS);
    let target = w.pick(&TARGETS);
    w.line(depth, &format!("<action id=\".a{id}\" name=\"{name}\">"));
    w.line(
        depth + 1,
        &format!("<parameter name=\"target\">{target}</parameter>"),
    );
    if w.chance(30) {
        let c = w.pick(&ACTION_CONDITIONS);
        let mode = w.pick(&MODES);
        w.line(depth + 1, &format!("<condition>{c}</condition>"));
        w.line(depth + 1, &format!("<conditionMode>{mode}</conditionMode>"));
    }
    w.line(depth, "</action>");
}
