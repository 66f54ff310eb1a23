//! `Host::before_tick`: every engine's tick tells the host once per agent, before any other call
//! of that agent's tick — the reference interpreter, `Engine::tick` on the vm and on native
//! code, `Batch::tick` and `Batch::par_tick` — and nothing tells it for an event or another
//! entry.

use btvm_testkit::fixtures;

use btvm::{AgentId, Batch, Call, Engine, EngineKind, Host, Limits, Program, Status, Value};
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
    }
    action act()
}
root other = action act()
"#;

fn tree(text: &str) -> Tree {
    let mut sources = SourceMap::new();
    let file = sources.add("before.btn", text.to_string());
    canonical::parse(file, text, &Limits::default())
        .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)))
}

fn program(t: &Tree) -> Program {
    btvm_compiler::lower::lower(t, &Limits::default())
        .unwrap_or_else(|d| panic!("{}", d[0].message))
}

/// Logs `(agent, what)`: `'b'` for `before_tick`, `'c'` for any other call. Its answers depend
/// on how many times it was told about the agent, so a missing or extra `before_tick` changes
/// the tree's path too.
#[derive(Clone, Default)]
struct Log {
    first: u32,
    told: Vec<u32>,
    log: Vec<(u32, char)>,
}

impl Log {
    fn new(first: u32, agents: u32) -> Log {
        Log {
            first,
            told: vec![0; agents as usize],
            log: Vec::new(),
        }
    }

    fn told(&self, agent: AgentId) -> u32 {
        self.told[(agent.0 - self.first) as usize]
    }
}

impl Host for Log {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.log.push((call.agent.0, 'c'));
        match (self.told(call.agent) + call.agent.0) % 3 {
            0 => Status::Running,
            1 => Status::Success,
            _ => Status::Failure,
        }
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        self.log.push((call.agent.0, 'c'));
        Value::Bool(self.told(call.agent).is_multiple_of(2))
    }

    fn before_tick(&mut self, agent: AgentId) {
        self.log.push((agent.0, 'b'));
        self.told[(agent.0 - self.first) as usize] += 1;
    }
}

const AGENTS: u32 = 6;
const TICKS: i64 = 5;

/// Checks that each tick's calls of each agent start with exactly one `before_tick`.
fn check(log: &[(u32, char)], who: &str) {
    let mut seen = vec![0; AGENTS as usize];
    let mut last: Option<u32> = None;
    for &(agent, what) in log {
        if what == 'b' {
            seen[agent as usize] += 1;
        } else {
            assert_eq!(
                last,
                Some(agent),
                "{who}: a call of agent {agent} before it was told"
            );
        }
        last = Some(agent);
    }
    assert!(
        seen.iter().all(|&n| n == TICKS),
        "{who}: told {seen:?} times"
    );
}

#[test]
fn every_engine_tells_the_host_before_each_agents_tick() {
    let t = tree(TREE);
    let p = program(&t);
    let interp = Interpreter::new(&t).unwrap();
    let mut host = Log::new(0, AGENTS);
    let mut states: Vec<_> = (0..AGENTS).map(|a| interp.new_agent(AgentId(a))).collect();
    for now in 0..TICKS {
        for st in &mut states {
            interp.tick(st, &mut host, now * 100);
        }
    }
    check(&host.log, "reference");
    let expected = host.log;
    assert!(expected.iter().any(|&(_, w)| w == 'c'));

    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut host = Log::new(0, AGENTS);
        p.bind(&mut host).unwrap();
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

        let mut host = Log::new(0, AGENTS);
        let mut batch = Batch::with_engine(&p, AGENTS, kind).unwrap();
        for now in 0..TICKS {
            batch.tick(&mut host, now * 100);
        }
        assert_eq!(host.log, expected, "Batch::tick on {kind}");

        // Two threads, one shard each: shards of `ceil(AGENTS / 2)` agents.
        let half = AGENTS.div_ceil(2);
        let mut hosts = [Log::new(0, half), Log::new(half, AGENTS - half)];
        let mut batch = Batch::with_engine(&p, AGENTS, kind).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let how = btvm::ParTick::new().pool(&pool).shards_per_thread(1);
        for now in 0..TICKS {
            let mut lent = hosts.iter_mut();
            let used = batch.par_tick(&how, now * 100, |shard| {
                let h = lent.next().unwrap();
                assert_eq!(shard.ids().first().map(|a| a.0), Some(h.first));
                h
            });
            assert_eq!(used.len(), 2);
        }
        let mut merged = Vec::new();
        for now in 0..TICKS as usize {
            // Each host's log, tick by tick: its agents' calls in agent order.
            for h in &hosts {
                merged.extend_from_slice(split_ticks(&h.log, h.first)[now]);
            }
        }
        assert_eq!(merged, expected, "Batch::par_tick on {kind}");
    }
}

/// Splits a host's log into its ticks: a tick starts where its first agent is told again.
fn split_ticks(log: &[(u32, char)], first: u32) -> Vec<&[(u32, char)]> {
    let starts: Vec<usize> = log
        .iter()
        .enumerate()
        .filter(|&(_, &e)| e == (first, 'b'))
        .map(|(i, _)| i)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| &log[s..starts.get(k + 1).copied().unwrap_or(log.len())])
        .collect()
}

#[test]
fn entries_and_events_do_not_tell_the_host() {
    let p = program(&tree(TREE));
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut host = Log::new(0, 1);
        let mut engine = Engine::new(&p, kind);
        let mut state = p.new_state();
        engine
            .run_entry("other", &mut state, AgentId(0), &mut host, 0)
            .unwrap();
        assert_eq!(host.log, vec![(0, 'c')], "run_entry on {kind}");
    }
    let mbt = format!("{}{}", fixtures::HEADER_MBT, fixtures::MBT_ALL);
    let p = program(&tree(&mbt));
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut host = Log::new(0, 1);
        let mut engine = Engine::new(&p, kind);
        let mut state = p.new_state();
        engine.tick(&mut state, AgentId(0), &mut host, 0).unwrap();
        let told = host.told[0];
        for event in ["EnemySeen", "Hurt", "EnemyLost"] {
            engine
                .event(&mut state, AgentId(0), &mut host, event, 100)
                .unwrap();
        }
        assert_eq!(host.told[0], told, "an event on {kind} told the host");
        assert_eq!(told, 1, "one tick on {kind}");
    }
}
