//! Node-level traces on the compiled engines (`spec/semantics.md` 4.7, `spec/bytecode.md`
//! `node.enter`/`node.exit`): a traced program tells `Host::node` the same events, in the same
//! order among the host calls, on the vm, native code, `Engine`, `Batch` and `par_tick` as the
//! reference does; an untraced program holds no trace instruction; traced programs survive
//! their file format, and damaged trace instructions are refused, never run.

use btvm::program::Instr;
use btvm::{
    AgentId, Batch, Call, Engine, EngineKind, Host, Limits, NodeEvent, Program, ProgramErrorKind,
    Status, Value,
};
use btvm_compiler::ir::Tree;
use btvm_compiler::reference::Interpreter;
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;

const TREE: &str = r#"btvm 1;
dialect unvanquished;
import action act 0..0 long;
import function seen 0..0;
root main = selector restart {
    sequence running-list {
        condition (seen())
        action act()
        include "shared"
    }
    cooldown 150 { action act() }
}
root other = action act()
subtree "shared" shared = sequence running-list { action act() action act() }
"#;

/// A cursor-model tree: list rules stay open across steps.
const CURSOR_TREE: &str = r#"btvm 1;
dialect dragengine;
model cursor 100;
import action act 0..0 long;
import function seen 0..0;
root main = sequence cursor when (seen()) {
    action act()
    selector cursor { action act() action act() }
}
"#;

/// A decider-model (Spore) tree with a loop-guard limit of 2: Decides, every timers, a shared
/// decider in two groups, group behaviors, sequential and scored groups, the `redecide` flag;
/// failing behaviors make its groups redecide and trip the guard.
const DECIDER_TREE: &str = r#"btvm 1;
dialect spore;
model decider 2;
import action act 0..0 long;
import function seen 0..0;
root main = decider {
    group prioritized {
        decider every 150 decide (seen()) { behavior act activate tick deactivate }
        include "shared"
        decider { group sequential behavior act tick { decider decide (seen()) { behavior act activate tick deactivate } include "shared" } }
        decider decide (seen()) redecide { group scored { decider decide (seen()) { behavior act tick } decider { behavior act activate tick deactivate } } }
        decider { behavior act activate tick deactivate }
        decider { behavior act activate tick deactivate }
        decider { behavior act activate tick deactivate }
    }
}
subtree "shared" shared = decider decide (seen()) { behavior act activate tick deactivate }
"#;

fn tree(text: &str) -> Tree {
    let mut sources = SourceMap::new();
    let file = sources.add("trace.btn", text.to_string());
    canonical::parse(file, text, &Limits::default())
        .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)))
}

fn traced(t: &Tree) -> Program {
    btvm_compiler::lower::lower_traced(t, &Limits::default(), None)
        .unwrap_or_else(|d| panic!("{}", d[0].message))
}

/// What a host saw, in order: calls (`c`), node entries (`e`) and finishes, with the agent.
#[derive(Default)]
struct Log {
    calls: u32,
    log: Vec<(u32, String)>,
}

impl Host for Log {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.calls += 1;
        self.log.push((call.agent.0, "act".into()));
        match (self.calls + call.agent.0) % 3 {
            0 => Status::Running,
            1 => Status::Success,
            _ => Status::Failure,
        }
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        self.calls += 1;
        self.log.push((call.agent.0, "seen".into()));
        Value::Bool(self.calls.is_multiple_of(2))
    }

    fn node(&mut self, agent: AgentId, node: u32, event: NodeEvent) {
        self.log.push((agent.0, format!("{node} {event:?}")));
    }
}

const AGENTS: u32 = 3;
const TICKS: i64 = 6;

#[test]
fn every_compiled_engine_tells_the_reference_node_events() {
    for text in [TREE, CURSOR_TREE, DECIDER_TREE] {
        engines_agree(&tree(text));
    }
}

/// The decider tree's run is not vacuous: its loop guard trips (the traced program's guard
/// exits are taken) and its deciders finish with every status a decider has.
#[test]
fn the_decider_tree_trips_its_loop_guard_traced() {
    let p = traced(&tree(DECIDER_TREE));
    let mut host = Log::default();
    let mut engine = Engine::new(&p, EngineKind::Vm);
    let mut guards = 0;
    for a in 0..AGENTS {
        let mut state = p.new_state();
        for now in 0..TICKS {
            engine
                .tick(&mut state, AgentId(a), &mut host, now * 100)
                .unwrap();
            guards += usize::from(p.loop_guard(&state));
        }
    }
    assert!(guards > 0, "the loop guard never tripped: {:?}", host.log);
    for status in ["Success", "Failure", "Running"] {
        assert!(
            host.log.iter().any(|(_, w)| w.contains(status)),
            "no decider finished with {status}"
        );
    }
}

fn engines_agree(t: &Tree) {
    let p = traced(t);
    let interp = Interpreter::new(t)
        .unwrap()
        .with_node_trace(&Limits::default())
        .unwrap();
    let mut host = Log::default();
    let mut states: Vec<_> = (0..AGENTS).map(|a| interp.new_agent(AgentId(a))).collect();
    for now in 0..TICKS {
        for st in &mut states {
            interp.tick(st, &mut host, now * 100);
        }
    }
    let expected = host.log;
    let events = expected.iter().filter(|(_, w)| w.contains("Enter")).count();
    assert!(events >= 2 * TICKS as usize, "too few events: {expected:?}");
    assert!(expected.iter().any(|(_, w)| w.contains("Running")));

    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut host = Log::default();
        let mut engine = Engine::new(&p, kind);
        let mut states: Vec<_> = (0..AGENTS).map(|_| p.new_state()).collect();
        for now in 0..TICKS {
            for (a, st) in states.iter_mut().enumerate() {
                engine
                    .tick(st, AgentId(a as u32), &mut host, now * 100)
                    .unwrap();
            }
        }
        assert_eq!(host.log, expected, "Engine::tick on {kind}");

        let mut host = Log::default();
        let mut batch = Batch::with_engine(&p, AGENTS, kind).unwrap();
        for now in 0..TICKS {
            batch.tick(&mut host, now * 100);
        }
        assert_eq!(host.log, expected, "Batch::tick on {kind}");
    }
}

/// The decider lowering: untraced, no trace instruction; traced, every decider and nothing
/// else is entered (targets and includes have no events: `spec/semantics.md` 4.7), and the
/// program survives its file format.
#[test]
fn the_untraced_decider_program_has_no_trace_instruction() {
    let t = tree(DECIDER_TREE);
    let plain = btvm_compiler::lower::lower(&t, &Limits::default()).unwrap();
    assert!(!plain.code().iter().any(Instr::is_trace));
    let p = traced(&t);
    let deciders: std::collections::BTreeSet<u32> = p
        .code()
        .iter()
        .filter_map(|i| match i {
            Instr::NodeEnter { node } => Some(*node),
            _ => None,
        })
        .collect();
    let want: std::collections::BTreeSet<u32> = t
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.kind, btvm_compiler::ir::NodeKind::Decider(_)))
        .map(|(i, _)| i as u32)
        .collect();
    assert_eq!(deciders, want, "only deciders, all of them, are entered");
    assert!(p.tick_budget() > plain.tick_budget());
    let back = Program::decode(&p.encode(), &Limits::default()).unwrap();
    assert_eq!(back.code(), p.code());
}

#[test]
fn the_untraced_program_has_no_trace_instruction_and_the_traced_one_round_trips() {
    let t = tree(TREE);
    let plain = btvm_compiler::lower::lower(&t, &Limits::default()).unwrap();
    assert!(!plain.code().iter().any(Instr::is_trace));
    let p = traced(&t);
    let n = p.code().iter().filter(|i| i.is_trace()).count();
    // One `node.enter` and three `node.exit`s per node the code holds (the include's subtree
    // root once, in its function).
    assert_eq!(n, 4 * t.nodes.len(), "{n} trace instructions");
    assert!(p.tick_budget() > plain.tick_budget());
    assert_ne!(p.fingerprint(), plain.fingerprint());
    let back = Program::decode(&p.encode(), &Limits::default()).unwrap();
    assert_eq!(back.code(), p.code());
    assert_eq!(back.fingerprint(), p.fingerprint());
}

/// A program file whose `node.exit` carries a status byte no status has is refused by the
/// decoder (`BadOperand`); every cut of a traced program file is refused, never run.
#[test]
fn damaged_trace_instructions_are_refused() {
    let p = traced(&tree(TREE));
    let bytes = p.encode();
    let mut exit = Vec::new();
    let i = first(&p, |i| matches!(i, Instr::NodeExit { .. }));
    p.code()[i].encode(&mut exit);
    let at = code_at(&p, &bytes)
        + encoded(&p.code()[..first(&p, |i| matches!(i, Instr::NodeExit { .. }))]).len();
    assert_eq!(&bytes[at..at + exit.len() - 1], &exit[..exit.len() - 1]);
    let mut bad = bytes.clone();
    bad[at + exit.len() - 1] = 7;
    let e = Program::decode(&bad, &Limits::default()).unwrap_err();
    assert_eq!(e.kind(), ProgramErrorKind::BadOperand, "{e}");
    for cut in (0..bytes.len()).step_by(7) {
        assert!(Program::decode(&bytes[..cut], &Limits::default()).is_err());
    }
}

/// A node index beyond the node table (the verifier does not range-check it: the table may be
/// empty) reaches the host as it is, on every compiled engine; nothing indexes with it.
#[test]
fn a_node_index_beyond_the_table_reaches_the_host_unchanged() {
    let p = traced(&tree(TREE));
    let mut bytes = p.encode();
    let mut enter = Vec::new();
    Instr::NodeEnter { node: 0 }.encode(&mut enter);
    // Function 0 (the main tree) starts with its root's `node.enter 0`.
    assert_eq!(p.code()[0], Instr::NodeEnter { node: 0 });
    let at = code_at(&p, &bytes);
    assert_eq!(&bytes[at..at + enter.len()], enter.as_slice());
    bytes[at + 1..at + enter.len()].copy_from_slice(&u32::MAX.to_le_bytes());
    // The header: magic (8 bytes), version (2), then the checksum over the rest.
    let sum = btvm::program::fingerprint(&bytes[18..]);
    bytes[10..18].copy_from_slice(&sum.to_le_bytes());
    let p = Program::decode(&bytes, &Limits::default()).unwrap();
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut host = Log::default();
        let mut engine = Engine::new(&p, kind);
        let mut state = p.new_state();
        engine.tick(&mut state, AgentId(0), &mut host, 0).unwrap();
        assert_eq!(
            host.log.first().map(|(_, w)| w.as_str()),
            Some("4294967295 Enter"),
            "{kind}: {:?}",
            host.log
        );
    }
}

/// The instructions' bytes, in order.
fn encoded(code: &[Instr]) -> Vec<u8> {
    let mut out = Vec::new();
    for i in code {
        i.encode(&mut out);
    }
    out
}

/// Where the program's code starts in its file.
fn code_at(p: &Program, bytes: &[u8]) -> usize {
    let code = encoded(p.code());
    bytes
        .windows(code.len())
        .position(|w| w == code.as_slice())
        .expect("the file holds the code")
}

/// The index of the first instruction `f` accepts.
fn first(p: &Program, f: impl Fn(&Instr) -> bool) -> usize {
    p.code().iter().position(f).expect("the program has one")
}
