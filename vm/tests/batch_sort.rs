//! `Batch::sort_by_awake`: awake agents first, sleepers after, each side in its old order;
//! ids, states and what every agent does are unchanged (a program without group scopes ticks
//! each agent alone, so only the order of the host's calls between agents moves).
//! `Batch::sort_awake_first`: every awake agent before every sleeper, by group; with group
//! scopes, every agent does what it does unsorted while the sleepers sleep.

use std::collections::BTreeMap;

use btvm::{AgentId, Batch, Call, Host, Limits, Phase, Program, Status, Value};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::COMPILED;

/// Actions, functions, a cooldown and `@random` (seeded per agent id).
const TREE_ALL: &str = include_str!("fixtures/vm_all.btn");

fn program(text: &str) -> Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", text.to_string());
    let tree = canonical::parse(file, text, &limits).expect("parses");
    btvm_compiler::lower::lower(&tree, &limits).expect("lowers")
}

/// Each agent's calls, answered from the agent and the time only.
#[derive(Default)]
struct PerAgent(BTreeMap<u32, Vec<(i64, u32, Phase)>>);

impl Host for PerAgent {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.0
            .entry(call.agent.0)
            .or_default()
            .push((call.now, call.import.0, call.phase));
        match (call.agent.0 + call.now as u32 / 10) % 3 {
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        }
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        self.0
            .entry(call.agent.0)
            .or_default()
            .push((call.now, call.import.0, call.phase));
        Value::Bool((call.agent.0 * 7 + call.now as u32 / 10).is_multiple_of(2))
    }
}

#[test]
fn sorting_by_awake_puts_awake_agents_first_and_changes_no_agent() {
    let p = program(TREE_ALL);
    for &kind in COMPILED {
        let run = |sort: bool| {
            let mut batch = Batch::with_engine(&p, 20, kind).expect("main entry");
            let mut host = PerAgent::default();
            batch.tick(&mut host, 0);
            for a in (0..20).filter(|a| a % 3 != 0) {
                batch.sleep_until(AgentId(a), 35).expect("alive");
            }
            if sort {
                batch.sort_by_awake();
                let awake: Vec<u32> = (0..20).filter(|a| a % 3 == 0).collect();
                let asleep: Vec<u32> = (0..20).filter(|a| a % 3 != 0).collect();
                let ids: Vec<u32> = batch.ids().iter().map(|a| a.0).collect();
                assert_eq!(ids, [awake, asleep].concat(), "{kind}");
            }
            for t in 1..8 {
                batch.tick(&mut host, t * 10);
            }
            let mut states: Vec<(AgentId, Status, Vec<u8>)> =
                batch.iter().map(|(a, s, b)| (a, s, b.to_vec())).collect();
            states.sort_by_key(|s| s.0);
            (host.0, states)
        };
        assert_eq!(run(false), run(true), "{kind}");
    }
}

/// Group scopes: one of each group's agents may hold the gate at a time, so the order a
/// group's agents tick in decides who holds it.
const MBT_SCOPE: &str = r#"
import action Hold 0..0 long;
import action Wait 0..0 long;
root main = selector remember {
    groupscope "gate" 1 { action Hold() }
    action Wait()
}
"#;

#[test]
fn sorting_awake_first_keeps_group_scopes_deciding_as_unsorted() {
    let p = btvm_testkit::front::compile(&format!(
        "{}{MBT_SCOPE}",
        btvm_testkit::fixtures::HEADER_MBT
    ));
    // 24 agents in groups of 6; a third awake, scattered over every group.
    let awake = |a: u32| a % 3 == 1;
    for &kind in COMPILED {
        let run = |sort: bool| {
            let mut batch = Batch::with_engine(&p, 24, kind).expect("main entry");
            for a in 0..24 {
                batch.set_group(AgentId(a), a / 6).expect("alive");
            }
            for a in (0..24).filter(|&a| !awake(a)) {
                batch.sleep_until(AgentId(a), i64::MAX).expect("alive");
            }
            if sort {
                batch.sort_awake_first();
                let ids: Vec<u32> = batch.ids().iter().map(|a| a.0).collect();
                let (first, rest) = ids.split_at(8);
                assert!(first.iter().all(|&a| awake(a)), "{kind}: {ids:?}");
                assert!(rest.iter().all(|&a| !awake(a)), "{kind}: {ids:?}");
                assert!(
                    first.windows(2).all(|w| w[0] < w[1]),
                    "{kind}: by group, in order"
                );
            }
            let mut host = PerAgent::default();
            for t in 0..6 {
                batch.tick(&mut host, t * 10);
            }
            let mut states: Vec<(AgentId, Status, Vec<u8>)> =
                batch.iter().map(|(a, s, b)| (a, s, b.to_vec())).collect();
            states.sort_by_key(|s| s.0);
            (host.0, states)
        };
        let (calls, states) = run(false);
        assert!(!calls.is_empty());
        assert_eq!((calls, states), run(true), "{kind}");
    }
}
