//! Any bytes as a btvm snapshot (`btvm::Snapshot`, `spec/bytecode.md` §9) of fixed programs of
//! every model: decoding refuses it with a `SnapshotError` or accepts it, never panics; an
//! accepted snapshot encodes to the same bytes and its agents tick alike on the vm and native
//! code (a state block that passed `Program::check_state` is still only bytes).
//!
//! The first byte is a mode: bits 0-2 pick the program, bit 3 rewrites the magic, the version
//! and the fingerprint to the program's and reseals the integrity check, so mutated contents
//! get past the header and the check and reach the record checks.
#![no_main]

use std::sync::OnceLock;

use btvm::{EngineKind, Limits, Program, Snapshot};
use btvm_compiler::source::FileId;
use btvm_compiler::syntax::canonical;
use libfuzzer_sys::fuzz_target;

const TREES: [&str; 5] = [
    "btvm 1;\ndialect unvanquished;\nimport action a 0..1 long;\nroot main = selector running-list { action a(1) action a(2) }\n",
    "btvm 1;\ndialect dragengine;\nmodel cursor 6;\nimport action go 0..0;\nroot main = sequence @\"s\" cursor loop { action go() yield }\n",
    "btvm 1;\ndialect mbt;\nimport action Move 0..1 long;\nroot main = loop forever until failure { groupscope \"cover\" 1 { action Move(1) } }\n",
    "btvm 1;\ndialect bst;\nroot main = select \"x\"\n",
    "btvm 1;\ndialect spore;\nimport action walk 0..0;\nroot main = decider { group prioritized { decider { behavior walk tick } } }\n",
];

fn programs() -> &'static Vec<Program> {
    static CELL: OnceLock<Vec<Program>> = OnceLock::new();
    CELL.get_or_init(|| {
        TREES
            .iter()
            .map(|src| {
                let tree = canonical::parse(FileId(0), src, &Limits::default()).expect("parses");
                btvm_compiler::lower::lower(&tree, &Limits::default()).expect("lowers")
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let program = &programs()[usize::from(mode & 7) % TREES.len()];
    let mut bytes = rest.to_vec();
    if mode & 8 != 0 && bytes.len() >= 34 {
        bytes[..8].copy_from_slice(Snapshot::MAGIC);
        bytes[8..10].copy_from_slice(&Snapshot::VERSION.to_le_bytes());
        bytes[10..18].copy_from_slice(&program.fingerprint().to_le_bytes());
        let n = bytes.len() - 8;
        let check = btvm::program::fingerprint(&bytes[..n]);
        bytes[n..].copy_from_slice(&check.to_le_bytes());
    }
    let limits = Limits {
        max_agents: 64,
        ..Limits::default()
    };
    let snap = match Snapshot::decode(&bytes, program, &limits) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    assert_eq!(snap.encode(), bytes, "encode(decode(b)) != b");
    for record in &snap.agents {
        let mut states = Vec::new();
        for kind in [EngineKind::Vm, EngineKind::Native] {
            let mut engine = btvm::Engine::new(program, kind);
            if engine.fallback().is_some() {
                continue;
            }
            let mut host = btvm_testkit::hosts::Permissive::new(1);
            if program.bind(&mut host).is_err() {
                return;
            }
            let mut state = program.new_state();
            engine
                .restore_agent(&mut state, &record.state)
                .expect("a decoded record restores");
            let statuses: Vec<_> = (0..4)
                .map(|k| engine.tick(&mut state, record.id, &mut host, k * 40).ok())
                .collect();
            states.push((statuses, state));
        }
        if let [vm, native] = &states[..] {
            assert_eq!(
                vm, native,
                "the vm and native code disagree on a restored agent"
            );
        }
    }
});
