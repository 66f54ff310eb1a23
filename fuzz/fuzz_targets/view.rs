//! The viewer's model (`btvm_compiler::view`, `spec/viewer.md`) on any runnable tree and
//! scenario from `btvm_testkit::gen` (running-list, cursor or decider model, chosen by the first
//! byte): the display tree has one node per IR node, ids in arena order, and draws every node
//! from its roots; its DOT text keeps every string on its line and its braces balanced; the
//! timeline of agent 0 is refused or has one entry per tick, node events only for nodes of
//! the tree, each finish after an enter of the same node in the same tick (where the model's
//! events nest per tick: not the cursor model's), and active paths of tree nodes.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use btvm::{Limits, NodeEvent};
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{FileId, SourceMap};
use btvm_compiler::view::{display, dot, timeline};
use btvm_testkit::gen::{CursorCase, DeciderCase, RunningListCase};
use btvm_testkit::nodes::Nesting;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(model) = u.arbitrary::<u8>() else {
        return;
    };
    let case = match model % 3 {
        0 => RunningListCase::arbitrary_take_rest(u).map(|c| (c.tree, c.scenario)),
        1 => CursorCase::arbitrary_take_rest(u).map(|c| (c.tree, c.scenario)),
        _ => DeciderCase::arbitrary_take_rest(u).map(|c| (c.tree, c.scenario)),
    };
    let Ok((tree, text)) = case else {
        return;
    };
    let view = display(&tree, &SourceMap::new(), "fuzz");
    let n = view.nodes.len();
    assert_eq!(n, tree.nodes.len());
    assert!(view
        .nodes
        .iter()
        .enumerate()
        .all(|(i, v)| v.id as usize == i));
    let mut seen = vec![false; n];
    let mut stack: Vec<u32> = view.roots.clone();
    while let Some(id) = stack.pop() {
        if !std::mem::replace(&mut seen[id as usize], true) {
            stack.extend(&view.nodes[id as usize].children);
        }
    }
    assert!(seen.iter().all(|&s| s), "a node is not drawn");
    well_formed(&dot(&view, None));
    let Ok(scenario) = parse_scenario(FileId(0), &text) else {
        panic!("the generated scenario does not parse:\n{text}");
    };
    let Ok(t) = timeline(&tree, &scenario, 0, &Limits::default()) else {
        return;
    };
    assert_eq!(t.ticks.len(), scenario.ticks as usize);
    let per_tick = matches!(Nesting::of(&tree), Nesting::PerTick);
    for tick in &t.ticks {
        let mut open = vec![0u32; n];
        for step in &tick.events {
            let at = &mut open[step.node as usize];
            match step.event {
                NodeEvent::Enter => *at += 1,
                NodeEvent::Finish(_) if per_tick => {
                    *at = at.checked_sub(1).expect("finish before enter")
                }
                NodeEvent::Finish(_) => {}
            }
        }
        assert!(tick.active.iter().all(|&a| (a as usize) < n));
        well_formed(&dot(&view, Some(tick)));
    }
});

/// Every DOT string ends on its line; braces outside strings balance.
fn well_formed(text: &str) {
    let mut depth = 0i64;
    for line in text.lines() {
        let (mut in_str, mut esc) = (false, false);
        for c in line.chars() {
            match (in_str, esc, c) {
                (true, true, _) => esc = false,
                (true, false, '\\') => esc = true,
                (_, false, '"') => in_str = !in_str,
                (false, _, '{') => depth += 1,
                (false, _, '}') => depth -= 1,
                _ => {}
            }
        }
        assert!(!in_str && depth >= 0, "{line}");
    }
    assert_eq!(depth, 0);
}
