//! A large generated MBT (CRYENGINE Modular Behavior Tree) tree under the GameSDK profile:
//! the lifecycle model.
//!
//! Built as `spec/examples/human_soldier.xml` is: variables set by signals, timestamps set
//! on events (one exclusive pair), and a root state machine whose states move on events;
//! each state's tree is a never-ending `Loop` over a `SuppressFailure` over a reactive
//! `Priority` of `Case`s (variable conditions, a default case last), holding sequences,
//! selectors, `Parallel`s of loops, group scopes rationing squad roles, `IfTime` gates on the
//! timestamps, `IfCondition`s, wrappers, timed `Wait`s and `Timeout`s, `SendEvent`s, and the
//! GameSDK's host leaves (the synthetic host keeps some running for several ticks). Every
//! loop's body starts with a `Wait`, so no loop spins within a tick. Pure: a function of
//! `(nodes, seed)`.

use super::text::{share, Writer};

/// Number of variables, events, timestamps, group scopes and states.
const VARIABLES: usize = 12;
const EVENTS: usize = 14;
const TIMESTAMPS: usize = 5;
const SCOPES: usize = 8;
const STATES: usize = 8;

/// GameSDK host leaves, each always with the same attributes (one import per leaf type).
const LEAVES: [&str; 10] = [
    "<Shoot at=\"Target\" duration=\"1.5\" fireMode=\"Single\"/>",
    "<Move to=\"Cover\" speed=\"Sprint\"/>",
    "<QueryTPS name=\"NearestCover\" register=\"Cover\"/>",
    "<Communicate name=\"Contact\" channel=\"Combat\"/>",
    "<Stance name=\"Crouch\"/>",
    "<Aim at=\"Target\"/>",
    "<Look at=\"RefPoint\"/>",
    "<ThrowGrenade timeout=\"3\"/>",
    "<AdjustCoverStance/>",
    "<Melee target=\"Target\"/>",
];

/// An MBT tree of about `nodes` IR nodes.
pub(super) fn tree(nodes: usize, seed: u64) -> String {
    let mut w = Writer::new(seed, 0x3B7_0001);
    w.line(0, "<?xml version=\"1.0\" encoding=\"utf-8\"?>");
    w.line(
        0,
        "<!-- generated for btvm bench's suite (lifecycle model, GameSDK profile) -->",
    );
    w.line(0, "<BehaviorTree>");
    declarations(&mut w);
    w.line(1, "<Root>");
    w.line(2, "<StateMachine>");
    let budget = nodes.max(80);
    for s in 0..STATES {
        state(&mut w, s, share(budget, STATES, s));
    }
    w.line(2, "</StateMachine>");
    w.line(1, "</Root>");
    w.line(0, "</BehaviorTree>");
    w.out
}

/// Variables, the signals that set them, and the timestamps.
fn declarations(w: &mut Writer) {
    w.line(1, "<Variables>");
    for v in 0..VARIABLES {
        let default = if v % 3 == 0 { "true" } else { "false" };
        w.line(
            2,
            &format!("<Variable name=\"V{v}\" default=\"{default}\"/>"),
        );
    }
    w.line(1, "</Variables>");
    w.signal_variables(1, "OnE", EVENTS, VARIABLES);
    w.line(1, "<Timestamps>");
    w.line(
        2,
        "<Timestamp name=\"T0\" setOnEvent=\"OnE0\" exclusiveTo=\"T1\"/>",
    );
    w.line(
        2,
        "<Timestamp name=\"T1\" setOnEvent=\"OnE1\" exclusiveTo=\"T0\"/>",
    );
    for t in 2..TIMESTAMPS {
        w.line(
            2,
            &format!("<Timestamp name=\"T{t}\" setOnEvent=\"OnE{}\"/>", t + 2),
        );
    }
    w.line(1, "</Timestamps>");
}

/// State `s` with its transitions and a never-ending tree of about `budget` nodes.
fn state(w: &mut Writer, s: usize, budget: usize) {
    w.line(3, &format!("<State name=\"S{s}\">"));
    w.line(4, "<Transitions>");
    for _ in 0..2 + w.below(3) {
        let e = w.below(EVENTS);
        let to = (s + 1 + w.below(STATES - 1)) % STATES;
        w.line(5, &format!("<Transition onEvent=\"OnE{e}\" to=\"S{to}\"/>"));
    }
    w.line(4, "</Transitions>");
    w.line(4, "<BehaviorTree>");
    w.line(5, "<Loop>");
    w.line(6, "<SuppressFailure>");
    priority(w, 7, budget.saturating_sub(4));
    w.line(6, "</SuppressFailure>");
    w.line(5, "</Loop>");
    w.line(4, "</BehaviorTree>");
    w.line(3, "</State>");
}

/// A condition over the variables.
fn condition(w: &mut Writer) -> String {
    let a = w.below(VARIABLES);
    let not = if w.chance(30) { "!" } else { "" };
    if w.chance(50) {
        let b = w.below(VARIABLES);
        let op = if w.chance(70) { "and" } else { "or" };
        format!("{not}V{a} {op} V{b}")
    } else {
        format!("{not}V{a}")
    }
}

/// A reactive priority of `budget` nodes: cases under conditions, a default case last. Every
/// case's tree waits first, so the loop around it never spins within a tick.
fn priority(w: &mut Writer, depth: usize, budget: usize) {
    w.line(depth, "<Priority>");
    let inner = budget.saturating_sub(1);
    let cases = if inner > 30 { 3 + w.below(3) } else { 2 };
    for k in 0..cases {
        let cond = if k + 1 == cases {
            String::new()
        } else {
            condition(w)
        };
        w.line(depth + 1, &format!("<Case condition=\"{cond}\">"));
        waiting_sequence(w, depth + 2, share(inner, cases, k).saturating_sub(1));
        w.line(depth + 1, "</Case>");
    }
    w.line(depth, "</Priority>");
}

/// A sequence of `budget` nodes that starts with a timed wait.
fn waiting_sequence(w: &mut Writer, depth: usize, budget: usize) {
    w.line(depth, "<Sequence>");
    wait(w, depth + 1);
    let inner = budget.saturating_sub(2);
    let children = if inner > 12 {
        2 + w.below(3)
    } else {
        1 + inner / 4
    };
    for k in 0..children {
        node(w, depth + 1, share(inner, children, k));
    }
    w.line(depth, "</Sequence>");
}

/// A `Wait` of 0.2 to 3 seconds, sometimes with a variation.
fn wait(w: &mut Writer, depth: usize) {
    let d = 0.2 * (1 + w.below(15)) as f64;
    if w.chance(40) {
        w.line(
            depth,
            &format!("<Wait duration=\"{d:.1}\" variation=\"0.3\"/>"),
        );
    } else {
        w.line(depth, &format!("<Wait duration=\"{d:.1}\"/>"));
    }
}

/// A leaf: a host leaf, a wait or an event sent.
fn leaf(w: &mut Writer, depth: usize) {
    match w.below(10) {
        0 => wait(w, depth),
        1 => {
            let e = w.below(EVENTS);
            w.line(depth, &format!("<SendEvent name=\"OnE{e}\"/>"));
        }
        2 => {
            let c = condition(w);
            w.line(depth, &format!("<AssertCondition condition=\"{c}\"/>"));
        }
        _ => {
            let l = w.pick(&LEAVES);
            w.line(depth, l);
        }
    }
}

/// A subtree of about `budget` nodes.
fn node(w: &mut Writer, depth: usize, budget: usize) {
    if budget <= 1 {
        leaf(w, depth);
        return;
    }
    if budget <= 4 || w.chance(30) {
        decorator(w, depth, budget);
        return;
    }
    match w.below(5) {
        0 => parallel(w, depth, budget),
        1 if budget > 12 => priority(w, depth, budget),
        2 => composite(w, depth, budget, "Selector"),
        _ => composite(w, depth, budget, "Sequence"),
    }
}

/// A decorator over a subtree of `budget - 1` nodes.
fn decorator(w: &mut Writer, depth: usize, budget: usize) {
    let (open, close) = match w.below(6) {
        0 | 1 => {
            let g = w.below(SCOPES);
            let users = if w.chance(50) {
                format!(" allowedConcurrentUsers=\"{}\"", 1 + w.below(3))
            } else {
                String::new()
            };
            (
                format!("<GroupScope name=\"G{g}\"{users}>"),
                "</GroupScope>",
            )
        }
        2 => {
            let t = w.below(TIMESTAMPS);
            let secs = 1 + w.below(10);
            let never = if w.chance(50) {
                " orNeverBeenSet=\"1\""
            } else {
                ""
            };
            (
                format!("<IfTime since=\"T{t}\" isMoreThan=\"{secs}\"{never}>"),
                "</IfTime>",
            )
        }
        3 => (
            format!("<IfCondition condition=\"{}\">", condition(w)),
            "</IfCondition>",
        ),
        4 => (
            "<AnimationTagWrapper name=\"Tagged\">".to_string(),
            "</AnimationTagWrapper>",
        ),
        _ => ("<SuppressFailure>".to_string(), "</SuppressFailure>"),
    };
    w.line(depth, &open);
    node(w, depth + 1, budget - 1);
    w.line(depth, close);
}

/// A sequence or selector of `budget` nodes.
fn composite(w: &mut Writer, depth: usize, budget: usize, kind: &str) {
    w.line(depth, &format!("<{kind}>"));
    let inner = budget - 1;
    let children = if inner > 20 {
        3 + w.below(3)
    } else {
        2 + w.below(2)
    }
    .min(inner);
    for k in 0..children {
        node(w, depth + 1, share(inner, children, k));
    }
    w.line(depth, &format!("</{kind}>"));
}

/// A parallel of loops (each waiting first) and a timeout, ending when any child succeeds.
fn parallel(w: &mut Writer, depth: usize, budget: usize) {
    w.line(depth, "<Parallel successMode=\"any\">");
    let inner = budget.saturating_sub(2);
    let loops = if inner > 20 { 2 + w.below(2) } else { 1 };
    for k in 0..loops {
        w.line(depth + 1, "<Loop>");
        w.line(depth + 2, "<SuppressFailure>");
        waiting_sequence(w, depth + 3, share(inner, loops, k).saturating_sub(2));
        w.line(depth + 2, "</SuppressFailure>");
        w.line(depth + 1, "</Loop>");
    }
    let t = 2 + w.below(6);
    w.line(depth + 1, &format!("<Timeout duration=\"{t}\"/>"));
    w.line(depth, "</Parallel>");
}
