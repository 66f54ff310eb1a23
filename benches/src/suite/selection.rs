//! A large generated BST (CryEngine 3 Behavior Selection Tree) tree: the selection model.
//!
//! Built as `spec/examples/grunt/` is: variables the host's signals set, and a root
//! `Priority` over guarded children — nested priorities, sequences, state machines whose
//! states move on variable conditions, and leaves (what the tree selects) under conditions
//! combining the variables with `and`, `or` and `!`. Events (signals) between ticks change
//! the variables, so the selection moves. Pure: a function of `(nodes, seed)`.

use super::text::{share, Writer};

/// Number of variables and signals.
const VARIABLES: usize = 16;
const SIGNALS: usize = 16;

/// A BST file of about `nodes` IR nodes.
pub(super) fn tree(nodes: usize, seed: u64) -> String {
    let mut w = Writer::new(seed, 0xB57_0002);
    w.line(
        0,
        "<!-- generated for btvm bench's suite (selection model) -->",
    );
    w.line(0, "<SelectionTrees>");
    w.line(
        1,
        "<SelectionTree name=\"Generated\" type=\"BehaviorSelectionTree\">",
    );
    w.line(2, "<Variables>");
    for v in 0..VARIABLES {
        let default = if v % 4 == 0 { " default=\"true\"" } else { "" };
        w.line(3, &format!("<Variable name=\"V{v}\"{default}/>"));
    }
    w.line(2, "</Variables>");
    w.signal_variables(2, "OnS", SIGNALS, VARIABLES);
    // A guarded child is two IR nodes (the guard and the node): scaled to land near `nodes`.
    let budget = (nodes * 13 / 25).max(40);
    priority(&mut w, 2, budget, "", true);
    w.line(1, "</SelectionTree>");
    w.line(0, "</SelectionTrees>");
    w.out
}

/// A condition over the variables.
fn condition(w: &mut Writer) -> String {
    let a = w.below(VARIABLES);
    let not = if w.chance(30) { "!" } else { "" };
    match w.below(4) {
        0 | 1 => format!("{not}V{a}"),
        2 => format!("{not}V{a} and V{}", w.below(VARIABLES)),
        _ => format!("{not}V{a} or !V{}", w.below(VARIABLES)),
    }
}

/// ` condition="…"` for a child of a Priority or Sequence (absent now and then, and always
/// for the last child of a root priority, so something is always selected).
fn guard(w: &mut Writer, always: bool) -> String {
    if always || w.chance(20) {
        String::new()
    } else {
        format!(" condition=\"{}\"", condition(w))
    }
}

/// A node of about `budget` nodes; `attrs` is its condition attribute (or empty).
fn node(w: &mut Writer, depth: usize, budget: usize, attrs: &str) {
    if budget <= 1 {
        let id = w.fresh();
        w.line(depth, &format!("<Leaf name=\"L{id}\"{attrs}/>"));
        return;
    }
    match w.below(6) {
        0 if budget > 10 => state_machine(w, depth, budget, attrs),
        1 => sequence(w, depth, budget, attrs),
        _ => priority(w, depth, budget, attrs, false),
    }
}

/// A priority of `budget` nodes; a root one ends with an unconditional child.
fn priority(w: &mut Writer, depth: usize, budget: usize, attrs: &str, root: bool) {
    let id = w.fresh();
    w.line(depth, &format!("<Priority name=\"P{id}\"{attrs}>"));
    let inner = budget - 1;
    let children = if inner > 60 {
        6 + w.below(6)
    } else {
        2 + w.below(3)
    }
    .min(inner);
    for k in 0..children {
        let g = guard(w, root && k + 1 == children);
        node(w, depth + 1, share(inner, children, k), &g);
    }
    w.line(depth, "</Priority>");
}

/// A sequence of `budget` nodes.
fn sequence(w: &mut Writer, depth: usize, budget: usize, attrs: &str) {
    let id = w.fresh();
    w.line(depth, &format!("<Sequence name=\"Q{id}\"{attrs}>"));
    let inner = budget - 1;
    let children = (2 + w.below(3)).min(inner);
    for k in 0..children {
        let g = guard(w, false);
        node(w, depth + 1, share(inner, children, k), &g);
    }
    w.line(depth, "</Sequence>");
}

/// A state machine of `budget` nodes: states with transitions on conditions, each over one
/// node (which takes no condition).
fn state_machine(w: &mut Writer, depth: usize, budget: usize, attrs: &str) {
    let id = w.fresh();
    w.line(depth, &format!("<StateMachine name=\"M{id}\"{attrs}>"));
    let inner = budget - 1;
    let states = (2 + w.below(3)).min(inner / 2).max(1);
    for s in 0..states {
        w.line(depth + 1, &format!("<State name=\"M{id}S{s}\">"));
        for _ in 0..1 + w.below(2) {
            let to = w.below(states);
            let c = condition(w);
            w.line(
                depth + 2,
                &format!("<Transition state=\"M{id}S{to}\" condition=\"{c}\"/>"),
            );
        }
        node(
            w,
            depth + 2,
            share(inner, states, s).saturating_sub(1).max(1),
            "",
        );
        w.line(depth + 1, "</State>");
    }
    w.line(depth, "</StateMachine>");
}
