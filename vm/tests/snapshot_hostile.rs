//! Hostile snapshots and state blocks: btvm's snapshot format (`btvm::Snapshot`) refuses every
//! truncated, extended, damaged, foreign or crafted byte string with the right
//! `SnapshotError` (never a panic, never garbage accepted), and arbitrary state bytes, which a
//! crafted snapshot or `Batch::state_mut` can hold, never make the vm or native code panic or
//! run away: both engines agree on them byte for byte.

use btvm::{
    AgentId, Call, Engine, EngineKind, Host, Limits, Prng, Program, Snapshot, SnapshotError,
    Status, Value,
};
use btvm_compiler::source::FileId;
use btvm_compiler::syntax::canonical;
use btvm_testkit::gen::{self, RlConfig, Unstructured};
use btvm_testkit::hosts::Permissive;

/// One small tree per model (canonical syntax).
const TREES: [&str; 5] = [
    "btvm 1;\ndialect unvanquished;\nimport action a 0..1 long;\nroot main = selector running-list { action a(1) action a(2) }\n",
    r#"btvm 1;
dialect dragengine;
model cursor 6;
import action go 0..0;
root main = sequence @"s" cursor loop { action go() yield }
"#,
    r#"btvm 1;
dialect mbt;
import action Move 0..1 long;
root main = loop forever until failure { groupscope "cover" 1 { action Move(1) } }
"#,
    r#"btvm 1;
dialect bst;
root main = select "x"
"#,
    "btvm 1;\ndialect spore;\nimport action walk 0..0;\nroot main = decider { group prioritized { decider { behavior walk tick } } }\n",
];

fn program(src: &str) -> Program {
    let tree = canonical::parse(FileId(0), src, &Limits::default())
        .unwrap_or_else(|d| panic!("{src}: {}", d[0].message));
    btvm_compiler::lower::lower(&tree, &Limits::default())
        .unwrap_or_else(|d| panic!("{src}: {}", d[0].message))
}

/// A snapshot of two agents of `p` after a few ticks on the vm.
fn saved(p: &Program) -> Vec<u8> {
    let mut engine = Engine::new(p, EngineKind::Vm);
    let mut host = Permissive::new(7);
    p.bind(&mut host).unwrap();
    let mut snap = Snapshot::new(p);
    for id in 0..2 {
        let mut state = p.new_state();
        let mut s = Status::Running;
        for now in 0..3 {
            s = engine
                .tick(&mut state, AgentId(id), &mut host, now * 100)
                .unwrap();
        }
        snap.push(AgentId(id), s, &state);
    }
    snap.encode()
}

#[test]
fn snapshots_round_trip_for_every_model() {
    for src in TREES {
        let p = program(src);
        let bytes = saved(&p);
        let snap = Snapshot::decode(&bytes, &p, &Limits::default()).expect(src);
        assert_eq!(snap.agents.len(), 2);
        assert_eq!(snap.encode(), bytes, "{src}");
        // One agent through the Program helpers.
        let one = p
            .save_agent(AgentId(9), Status::Success, &snap.agents[1].state)
            .unwrap();
        let mut state = p.new_state();
        let r = p
            .restore_agent(&one, &Limits::default(), &mut state)
            .unwrap();
        assert_eq!((r.id, r.status), (AgentId(9), Status::Success));
        assert_eq!(state, snap.agents[1].state);
        assert!(matches!(
            p.restore_agent(&bytes, &Limits::default(), &mut state),
            Err(SnapshotError::AgentCount { found: 2 })
        ));
    }
}

/// Caught by the `snapshot_format` fuzz target: a snapshot with no agents was written with a
/// state size of 0 (taken from the first record), so an empty batch's snapshot could not be
/// read back (`StateSize`) and decoding then encoding an empty snapshot changed its bytes. The
/// header now carries the program's state size whatever the records.
#[test]
fn an_empty_snapshot_round_trips() {
    for src in TREES {
        let p = program(src);
        let bytes = Snapshot::new(&p).encode();
        let snap = Snapshot::decode(&bytes, &p, &Limits::default()).expect(src);
        assert!(snap.agents.is_empty());
        assert_eq!(snap.state_size as usize, p.state_size(), "{src}");
        assert_eq!(snap.encode(), bytes, "{src}");
        let batch = btvm::Batch::new(&p, 0).expect("main entry");
        let bytes = batch.snapshot().encode();
        let snap = Snapshot::decode(&bytes, &p, &Limits::default()).expect(src);
        let back = btvm::Batch::from_snapshot(&p, EngineKind::Vm, &snap).expect(src);
        assert!(back.is_empty());
    }
}

#[test]
fn every_cut_and_every_flipped_byte_is_refused() {
    for src in TREES {
        let p = program(src);
        let bytes = saved(&p);
        let limits = Limits::default();
        for n in 0..bytes.len() {
            let e = Snapshot::decode(&bytes[..n], &p, &limits).unwrap_err();
            assert!(
                matches!(
                    e,
                    SnapshotError::NotASnapshot | SnapshotError::Truncated { .. }
                ),
                "{src} cut at {n}: {e}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Snapshot::decode(&longer, &p, &limits),
            Err(SnapshotError::TrailingBytes { extra: 1 })
        );
        for i in 0..bytes.len() {
            for bit in [0x01, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                let e = Snapshot::decode(&b, &p, &limits).unwrap_err();
                // A flip in the magic or version is seen first; one in the size or count
                // changes the length the header implies; any other is damage.
                assert!(
                    matches!(
                        e,
                        SnapshotError::NotASnapshot
                            | SnapshotError::Version { .. }
                            | SnapshotError::Truncated { .. }
                            | SnapshotError::TrailingBytes { .. }
                            | SnapshotError::Damaged { .. }
                    ),
                    "{src}: byte {i} bit {bit:#x}: {e}"
                );
            }
        }
    }
}

/// Rewrites the check at the end so crafted contents get past it.
fn reseal(b: &mut [u8]) {
    let n = b.len() - 8;
    let check = btvm::program::fingerprint(&b[..n]);
    b[n..].copy_from_slice(&check.to_le_bytes());
}

#[test]
fn crafted_snapshots_are_refused_with_the_reason() {
    let p = program(TREES[0]);
    let other = program(TREES[1]);
    let bytes = saved(&p);
    let limits = Limits::default();
    let e = Snapshot::decode(&bytes, &other, &limits).unwrap_err();
    assert_eq!(
        e,
        SnapshotError::OtherProgram {
            snapshot: p.fingerprint(),
            program: other.fingerprint()
        }
    );
    let text = e.to_string();
    assert!(
        text.contains(&format!("{:016x}", p.fingerprint())) && text.contains("another program"),
        "{text}"
    );
    // Version 2.
    let mut b = bytes.clone();
    b[8] = 2;
    assert_eq!(
        Snapshot::decode(&b, &p, &limits),
        Err(SnapshotError::Version { found: 2 })
    );
    // A status byte of 3.
    let mut b = bytes.clone();
    b[26 + 4] = 3;
    reseal(&mut b);
    assert_eq!(
        Snapshot::decode(&b, &p, &limits),
        Err(SnapshotError::BadStatus(3))
    );
    // The same agent twice.
    let mut b = bytes.clone();
    let second = 26 + 5 + p.state_size();
    b[second..second + 4].copy_from_slice(&0u32.to_le_bytes());
    reseal(&mut b);
    assert_eq!(
        Snapshot::decode(&b, &p, &limits),
        Err(SnapshotError::DuplicateAgent(AgentId(0)))
    );
    // More agents than the limits allow.
    let few = Limits {
        max_agents: 1,
        ..Limits::default()
    };
    assert_eq!(
        Snapshot::decode(&bytes, &p, &few),
        Err(SnapshotError::TooManyAgents { count: 2, limit: 1 })
    );
    // A header claiming four billion agents in a few bytes: refused before any allocation.
    let mut b = bytes[..26].to_vec();
    b[22..26].copy_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    assert!(matches!(
        Snapshot::decode(&b, &p, &limits),
        Err(SnapshotError::Truncated { .. })
    ));
    // A running-list count past the list's capacity, sealed: invalid state.
    let mut b = bytes.clone();
    let count = p.layout().count;
    assert!(count.width > 0);
    b[26 + 5 + count.offset as usize] = 0xff;
    reseal(&mut b);
    assert!(matches!(
        Snapshot::decode(&b, &p, &limits),
        Err(SnapshotError::InvalidState(_))
    ));
}

#[test]
fn a_cursor_past_the_rule_table_is_invalid_state() {
    let p = program(TREES[1]);
    let mut state = p.new_state();
    assert_eq!(p.check_state(&state), Ok(()));
    let c = p.layout().cursor;
    assert!(c.width > 0);
    state[c.offset as usize] = p.rules().len() as u8;
    assert!(matches!(
        p.check_state(&state),
        Err(SnapshotError::InvalidState(_))
    ));
    assert!(matches!(
        p.check_state(&state[1..]),
        Err(SnapshotError::StateSize { .. })
    ));
}

/// Every action runs forever.
struct Busy;

impl Host for Busy {
    fn action(&mut self, _: &Call<'_>) -> Status {
        Status::Running
    }

    fn function(&mut self, _: &Call<'_>) -> Value {
        Value::Bool(false)
    }
}

#[test]
fn restoring_a_group_scope_member_counts_it() {
    let p = program(TREES[2]);
    let mut host = Busy;
    p.bind(&mut host).unwrap();
    let mut a = Engine::new(&p, EngineKind::Vm);
    let mut state = p.new_state();
    a.tick(&mut state, AgentId(0), &mut host, 0).unwrap();
    assert_eq!(a.scope_users(0, "cover"), 1);
    let mut b = Engine::new(&p, EngineKind::Vm);
    let mut fresh = p.new_state();
    b.restore_agent(&mut fresh, &state).unwrap();
    assert_eq!(b.scope_users(0, "cover"), 1);
    // Restoring a fresh block over it leaves the scope.
    b.restore_agent(&mut fresh, &p.new_state()).unwrap();
    assert_eq!(b.scope_users(0, "cover"), 0);
}

/// Ticks `state` 6 times on `kind`; the statuses and the final block.
fn run(p: &Program, kind: EngineKind, mut state: Vec<u8>) -> (Vec<Option<Status>>, Vec<u8>) {
    let mut engine = Engine::new(p, kind);
    let mut host = Permissive::new(3);
    p.bind(&mut host).unwrap();
    let statuses = (0..6)
        .map(|k| engine.tick(&mut state, AgentId(1), &mut host, k * 50).ok())
        .collect();
    (statuses, state)
}

/// A runnable tree of model `k % 5` drawn from `u`.
fn model_tree(k: u32, u: &mut Unstructured<'_>) -> gen::arbitrary::Result<btvm_compiler::ir::Tree> {
    let cfg = RlConfig::default();
    match k % 5 {
        0 => gen::running_list_tree(u, &cfg),
        1 => gen::cursor_tree(u, &cfg),
        2 => gen::decider_tree(u, &cfg),
        3 => gen::lifecycle_tree(u, &cfg),
        _ => gen::selection_tree(u, &cfg),
    }
}

#[test]
fn arbitrary_state_bytes_never_panic_and_engines_agree() {
    let mut rng = Prng::for_agent(42);
    let mut checked = 0;
    for round in 0..100u32 {
        let seed: Vec<u8> = (0..512).map(|_| rng.next_u64() as u8).collect();
        let Ok(tree) = model_tree(round, &mut Unstructured::new(&seed)) else {
            continue;
        };
        let Ok(p) = btvm_compiler::lower::lower(&tree, &Limits::default()) else {
            continue;
        };
        for _ in 0..8 {
            let state: Vec<u8> = (0..p.state_size()).map(|_| rng.next_u64() as u8).collect();
            let _ = p.check_state(&state);
            let vm = run(&p, EngineKind::Vm, state.clone());
            if cfg!(feature = "jit") {
                let native = run(&p, EngineKind::Native, state.clone());
                assert_eq!(vm, native, "round {round}: {:?}", p.model());
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} states ticked");
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trips_a_snapshot() {
    let p = program(TREES[3]);
    let snap = Snapshot::decode(&saved(&p), &p, &Limits::default()).unwrap();
    let json = serde_json::to_string(&snap).unwrap();
    assert_eq!(serde_json::from_str::<Snapshot>(&json).unwrap(), snap);
}
