//! `Batch::reload` (hot reload of a whole batch, `btvm::Reload`): a reload into the same
//! program changes nothing a host or a state block can see, ids and statuses included; in an
//! MBT tree a running action whose node is gone gets its exit call from the old program, once,
//! for the right agent, and an action that is still there goes on with `continue`, not
//! `enter`. The tree-level proofs (every case tree and example carried cell by cell) are in
//! `compiler/tests/reload.rs`.

use btvm::{AgentId, Batch, Call, Host, Limits, Phase, Program, Status, Value};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::COMPILED;
use btvm_testkit::fixtures::HEADER_MBT;

/// Actions, functions, a cooldown and `@random` (seeded per agent id).
const TREE_ALL: &str = include_str!("fixtures/vm_all.btn");

fn program(text: &str) -> Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", text.to_string());
    let tree = match canonical::parse(file, text, &limits) {
        Ok(t) => t,
        Err(d) => panic!("does not parse: {}", d[0].display(&sources)),
    };
    btvm_compiler::lower::lower(&tree, &limits).expect("lowers")
}

/// Records every call as (agent, import, phase); answers from the agent and the time only.
#[derive(Default)]
struct Log {
    calls: Vec<(u32, u32, Phase)>,
    /// Every action runs.
    running: bool,
}

impl Host for Log {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.calls.push((call.agent.0, call.import.0, call.phase));
        let h = (u64::from(call.agent.0) * 31 + call.now as u64 / 10) % 3;
        match h {
            _ if self.running => Status::Running,
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        }
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        self.calls.push((call.agent.0, call.import.0, call.phase));
        Value::Bool((call.agent.0 + call.now as u32 / 10).is_multiple_of(2))
    }
}

#[test]
fn reloading_into_the_same_program_changes_nothing() {
    for text in [TREE_ALL.to_string(), format!("{HEADER_MBT}{MBT_GATE}")] {
        let (p, again) = (program(&text), program(&text));
        for &kind in COMPILED {
            let run = |reload: bool| {
                let mut batch = Batch::with_engine(&p, 12, kind).expect("main entry");
                let mut host = Log::default();
                for t in 0..10i64 {
                    if t == 3 {
                        batch.despawn(AgentId(4), &mut host, t * 10).expect("alive");
                    }
                    if t == 5 && reload {
                        let report = batch.reload(&again, &mut host, t * 10).expect("reloads");
                        assert_eq!(report.len(), 11);
                        assert!(report.iter().all(|(_, c)| c.reset.is_empty()));
                    }
                    batch.tick(&mut host, t * 10);
                }
                let states: Vec<(AgentId, Status, Vec<u8>)> =
                    batch.iter().map(|(a, s, b)| (a, s, b.to_vec())).collect();
                (host.calls, states)
            };
            assert_eq!(run(false), run(true), "{kind}: {text}");
        }
    }
}

/// Agents 0 and 1 hold the gate (at most 2) and run `Hold`; agent 2 waits.
const MBT_GATE: &str = r#"
import action Hold 0..0 long;
import action Wait 0..0 long;
root main = selector remember {
    groupscope "gate" 2 { action Hold() }
    action Wait()
}
"#;

/// The gate's branch is gone.
const MBT_NO_GATE: &str = r#"
import action Wait 0..0 long;
root main = selector remember {
    action Wait()
}
"#;

#[test]
fn a_running_mbt_action_that_is_gone_gets_its_exit_call_and_the_others_continue() {
    let old = program(&format!("{HEADER_MBT}{MBT_GATE}"));
    let new = program(&format!("{HEADER_MBT}{MBT_NO_GATE}"));
    let hold = 0;
    let wait_new = 0;
    for &kind in COMPILED {
        let mut batch = Batch::with_engine(&old, 3, kind).expect("main entry");
        let mut host = Log {
            running: true,
            ..Log::default()
        };
        for t in 0..3 {
            batch.tick(&mut host, t * 10);
        }
        assert_eq!(batch.scope_users(0, "gate"), 2, "{kind}");
        host.calls.clear();
        let report = batch.reload(&new, &mut host, 30).expect("reloads");
        // Agents 0 and 1 lose `Hold`: one exit call each, from the old program.
        assert_eq!(
            host.calls,
            [(0, hold, Phase::Exit), (1, hold, Phase::Exit)],
            "{kind}"
        );
        let names = |p: &Program, nodes: &[u32]| -> Vec<String> {
            nodes
                .iter()
                .map(|&i| p.nodes().nodes[i as usize].name.clone().unwrap_or_default())
                .collect()
        };
        for (id, carried) in &report[..2] {
            assert!(
                names(&old, &carried.reset).contains(&"Hold".to_string()),
                "{id:?}"
            );
            assert!(carried.kept.is_empty(), "{kind} {id:?}: {carried:?}");
        }
        let (_, waiting) = &report[2];
        assert_eq!(names(&new, &waiting.kept), ["Wait"], "{kind}");
        assert!(waiting.reset.is_empty(), "{kind}");
        assert_eq!(batch.program().fingerprint(), new.fingerprint());
        // Next tick: agent 2's `Wait` goes on (`continue`); agents 0 and 1 start it (`enter`).
        host.calls.clear();
        batch.tick(&mut host, 40);
        assert_eq!(
            host.calls,
            [
                (0, wait_new, Phase::Enter),
                (1, wait_new, Phase::Enter),
                (2, wait_new, Phase::Continue)
            ],
            "{kind}"
        );
    }
}
