//! Hot reload (`btvm::Reload`) between two generated trees of one model, from a state the old
//! program reached and from arbitrary state bytes: carrying must never panic, the carried
//! block must tick on the vm and native code alike, and a state the engines reached, carried
//! cell by cell into its own program, must come back byte for byte (the cells cover every
//! bit an engine writes). The first byte picks the model.
#![no_main]

use btvm::{AgentId, Engine, EngineKind, Limits, Reload};
use btvm_testkit::gen::{self, RlConfig, Unstructured};
use libfuzzer_sys::fuzz_target;

fn tree(mode: u8, u: &mut Unstructured<'_>) -> Option<btvm_compiler::ir::Tree> {
    let cfg = RlConfig::default();
    match mode % 5 {
        0 => gen::running_list_tree(u, &cfg),
        1 => gen::cursor_tree(u, &cfg),
        2 => gen::decider_tree(u, &cfg),
        3 => gen::lifecycle_tree(u, &cfg),
        _ => gen::selection_tree(u, &cfg),
    }
    .ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut u = Unstructured::new(rest);
    let (Some(a), Some(b)) = (tree(mode, &mut u), tree(mode, &mut u)) else {
        return;
    };
    let limits = Limits::default();
    let (Ok(old), Ok(new)) = (
        btvm_compiler::lower::lower(&a, &limits),
        btvm_compiler::lower::lower(&b, &limits),
    ) else {
        return;
    };
    let mut host = btvm_testkit::hosts::Permissive::new(7);
    if old.bind(&mut host).is_err() || new.bind(&mut host).is_err() {
        return;
    }
    // A state the old program reached.
    let mut state = old.new_state();
    let mut engine = Engine::new(&old, EngineKind::Vm);
    for k in 0..u.int_in_range(0..=6u8).unwrap_or(0) {
        let _ = engine.tick(&mut state, AgentId(2), &mut host, i64::from(k) * 50);
    }
    let mut same = old.new_state();
    let carried = Reload::new(&old, &old).cell_by_cell().carry(&state, &mut same);
    assert_eq!(state, same, "carrying a reached state into its own program changed it");
    assert!(carried.reset.is_empty() && carried.stop.is_none());
    // Then into the other program, from the reached state and from garbage.
    let mut garbage = old.new_state();
    for b in garbage.iter_mut() {
        *b = u.arbitrary().unwrap_or(0);
    }
    let plan = Reload::new(&old, &new);
    for from in [&state, &garbage] {
        let mut carried = new.new_state();
        let c = plan.carry(from, &mut carried);
        if let Some(mut stop) = c.stop {
            let _ = engine.stop_agent(&mut stop, AgentId(2), &mut host, 400);
            plan.finish(from, &stop, &mut carried);
        }
        let mut runs = Vec::new();
        for kind in [EngineKind::Vm, EngineKind::Native] {
            let mut e = Engine::new(&new, kind);
            if e.fallback().is_some() {
                continue;
            }
            // A fresh host per engine: the permissive host's answers depend on its own calls.
            let mut host = btvm_testkit::hosts::Permissive::new(7);
            if new.bind(&mut host).is_err() {
                return;
            }
            let mut s = carried.clone();
            let statuses: Vec<_> = (0..3)
                .map(|k| e.tick(&mut s, AgentId(2), &mut host, 400 + k * 50).ok())
                .collect();
            runs.push((statuses, s));
        }
        if let [vm, native] = &runs[..] {
            assert_eq!(vm, native, "the vm and native code disagree on a carried state");
        }
    }
});
