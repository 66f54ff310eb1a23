//! A generated tree of any model and arbitrary state bytes: what a crafted snapshot or
//! `Batch::state_mut` can put in an agent's block. The vm and native code must never panic or
//! run away on it, and must agree on every status and every byte of state afterwards
//! (`Program::check_state` may accept or refuse it; the engines are safe either way). The
//! first byte picks the model.
#![no_main]

use btvm::{EngineKind, Limits};
use btvm_testkit::gen::{self, RlConfig, Unstructured};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut u = Unstructured::new(rest);
    let cfg = RlConfig::default();
    let tree = match mode % 5 {
        0 => gen::running_list_tree(&mut u, &cfg),
        1 => gen::cursor_tree(&mut u, &cfg),
        2 => gen::decider_tree(&mut u, &cfg),
        3 => gen::lifecycle_tree(&mut u, &cfg),
        _ => gen::selection_tree(&mut u, &cfg),
    };
    let Ok(tree) = tree else {
        return;
    };
    let Ok(program) = btvm_compiler::lower::lower(&tree, &Limits::default()) else {
        return;
    };
    let mut garbage = program.new_state();
    for b in garbage.iter_mut() {
        *b = u.arbitrary().unwrap_or(0);
    }
    let _ = program.check_state(&garbage);
    let mut runs = Vec::new();
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut engine = btvm::Engine::new(&program, kind);
        if engine.fallback().is_some() {
            continue;
        }
        let mut host = btvm_testkit::hosts::Permissive::new(5);
        if program.bind(&mut host).is_err() {
            return;
        }
        let mut state = garbage.clone();
        let statuses: Vec<_> = (0..6)
            .map(|k| {
                engine
                    .tick(&mut state, btvm::AgentId(3), &mut host, k * 70 - 100)
                    .ok()
            })
            .collect();
        runs.push((statuses, state));
    }
    if let [vm, native] = &runs[..] {
        assert_eq!(
            vm, native,
            "the vm and native code disagree on a garbage state"
        );
    }
});
