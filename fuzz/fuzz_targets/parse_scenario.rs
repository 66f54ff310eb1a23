//! Any bytes as scenario text: a scenario or a positioned error, never a panic. An accepted
//! scenario then drives a small fixed tree on the reference and the vm, which must agree
//! (scenarios are hostile input too: `btvm run --scenario` reads them from users).
#![no_main]

use std::sync::OnceLock;

use btvm::Limits;
use btvm_compiler::ir::Tree;
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{FileId, SourceMap};
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::{compare, Contenders};
use libfuzzer_sys::fuzz_target;

/// A tree using every kind of import a scenario can answer: actions with and without
/// arguments, functions of every value type, and two entries.
const TREE: &str = r#"btvm 1;
dialect unvanquished;
model running-list 20;
root-finish rerun;
abort abandon;
precision single;

import function hp 0..1;
import function name 0..0;
import action walk 0..2 long;
import action rest 0..0 long;

root main = selector restart {
    sequence running-list {
        condition (hp() > 2 && name() == "a")
        action walk(1)
    }
    guard every-tick (hp(3) < 0.5) {
        action walk("far", 2)
    }
    action rest()
}
root other = action rest()
"#;

fn tree() -> &'static Tree {
    static TREE_CELL: OnceLock<Tree> = OnceLock::new();
    TREE_CELL.get_or_init(|| {
        canonical::parse(FileId(0), TREE, &Limits::default()).expect("the fixed tree parses")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_scenario(FileId(0), text) {
        Ok(scn) => {
            // Bound the work: the scenario format allows 2^32 agents and ticks.
            if u64::from(scn.agents) * u64::from(scn.ticks) > 20_000 {
                return;
            }
            if let Err(m) = compare(tree(), &scn, Contenders::VM) {
                panic!("{m}\n--- scenario ---\n{text}");
            }
        }
        Err(d) => {
            let mut sources = SourceMap::new();
            sources.add("fuzz.scn", text.to_string());
            btvm_fuzz::check_diagnostics(&d, &sources);
        }
    }
});
