//! Any runnable tree and scenario (from `btvm_compiler::gen`: running-list trees, or cursor
//! trees with resets and missing imports, chosen by the first input byte): the reference, the
//! vm, native code, the two taking turns and chunked native code produce identical traces, or
//! all reject the tree with the same kind of error.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use btvm_compiler::gen::{CursorCase, RunningListCase};
use btvm_compiler::scenario::{compare, parse_scenario, Contenders};
use btvm_compiler::source::FileId;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(cursor) = u.arbitrary::<bool>() else {
        return;
    };
    let (tree, text) = if cursor {
        match CursorCase::arbitrary_take_rest(u) {
            Ok(c) => (c.tree, c.scenario),
            Err(_) => return,
        }
    } else {
        match RunningListCase::arbitrary_take_rest(u) {
            Ok(c) => (c.tree, c.scenario),
            Err(_) => return,
        }
    };
    let scenario = match parse_scenario(FileId(0), &text) {
        Ok(s) => s,
        Err(d) => panic!("the generated scenario does not parse: {d:?}\n{text}"),
    };
    if let Err(m) = compare(&tree, &scenario, Contenders::ALL) {
        panic!(
            "{m}\n--- tree ---\n{}\n--- scenario ---\n{text}",
            btvm_compiler::syntax::native::print(&tree)
        );
    }
});
