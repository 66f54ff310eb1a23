//! Any runnable tree and scenario (from `btvm_testkit::gen`: running-list trees, cursor trees
//! with resets and missing imports, or decider trees with decision flags and stimuli, chosen by
//! the first input byte): the reference, the
//! vm, native code, the two taking turns and chunked native code produce identical traces, or
//! all reject the tree with the same kind of error. The first byte's high bit runs the case
//! with node-level tracing on (`trace nodes`): the traces then hold node events, which must
//! agree too and nest (decider trees included).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use btvm_compiler::scenario::{parse_scenario, run, EngineKind};
use btvm_compiler::source::FileId;
use btvm_testkit::compare::{compare, Contenders};
use btvm_testkit::gen::{CursorCase, DeciderCase, RunningListCase};
use btvm_testkit::nodes::{check_nesting, Nesting};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(model) = u.arbitrary::<u8>() else {
        return;
    };
    let case = match (model & 0x7f) % 3 {
        0 => RunningListCase::arbitrary_take_rest(u).map(|c| (c.tree, c.scenario)),
        1 => CursorCase::arbitrary_take_rest(u).map(|c| (c.tree, c.scenario)),
        _ => DeciderCase::arbitrary_take_rest(u).map(|c| (c.tree, c.scenario)),
    };
    let Ok((tree, text)) = case else {
        return;
    };
    let mut scenario = match parse_scenario(FileId(0), &text) {
        Ok(s) => s,
        Err(d) => panic!("the generated scenario does not parse: {d:?}\n{text}"),
    };
    scenario.trace_nodes = model & 0x80 != 0;
    if let Err(m) = compare(&tree, &scenario, Contenders::ALL) {
        panic!(
            "{m}\n--- tree ---\n{}\n--- scenario ---\n{text}",
            btvm_compiler::syntax::canonical::print(&tree)
        );
    }
    if scenario.trace_nodes {
        if let Ok(t) = run(&tree, &scenario, EngineKind::Reference) {
            if let Err(e) = check_nesting(&t, Nesting::of(&tree)) {
                panic!("{e}\n--- trace ---\n{t}");
            }
        }
    }
});
