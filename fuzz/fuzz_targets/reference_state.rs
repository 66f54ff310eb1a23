//! A generated tree of any model and arbitrary state bytes given to the reference interpreter
//! as a state block (`Interpreter::restore_block`: what a crafted btvm snapshot restored with
//! `btvm run --engine reference --restore` holds). The reference must refuse it with a
//! `SnapshotError` and leave the agent as it was, or take it; a taken block exports to a
//! block that imports and exports to the same bytes, and the agent then ticks without
//! panicking. The first byte picks the model.
#![no_main]

use btvm::{AgentId, Limits};
use btvm_compiler::reference::{Interpreter, Scopes};
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
    let Ok(interp) = Interpreter::new(&tree) else {
        return;
    };
    let mut garbage = program.new_state();
    for b in garbage.iter_mut() {
        *b = u.arbitrary().unwrap_or(0);
    }
    let mut scopes = Scopes::new();
    let mut state = interp.new_agent(AgentId(3));
    // Compared as text: a variable's default may be NaN, which equals nothing.
    let fresh = format!("{state:?}");
    if interp
        .restore_block(&program, &mut state, &garbage, &mut scopes)
        .is_err()
    {
        assert_eq!(
            format!("{state:?}"),
            fresh,
            "a refused block changed the agent"
        );
        return;
    }
    let once = interp
        .export_block(&program, &state, &scopes)
        .expect("a taken block exports");
    let mut again = interp.new_agent(AgentId(3));
    let mut scopes2 = Scopes::new();
    interp
        .restore_block(&program, &mut again, &once, &mut scopes2)
        .expect("an exported block is taken");
    let twice = interp
        .export_block(&program, &again, &scopes2)
        .expect("a taken block exports");
    assert_eq!(once, twice, "export and import disagree");
    let mut host = btvm_testkit::hosts::Permissive::new(5);
    for k in 0..6 {
        interp.tick_with_scopes(&mut state, &mut host, k * 70 - 100, &mut scopes);
    }
});
