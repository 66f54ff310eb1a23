//! `Batch::par_tick_with`: a server's per-agent work around a tick (events before it, restarts
//! of finished trees after it) done by each shard on its own thread gives exactly what doing
//! it on the calling thread around `Batch::tick` gives: the same host calls per agent, the
//! same statuses, state blocks, sleepers and group-scope users. MBT agents in squads with
//! group scopes, some sleeping until an event or a time, on both engines.

use std::collections::BTreeMap;

use btvm::{
    AgentId, Batch, Call, EngineKind, Host, Limits, ParTick, Phase, Program, ShardTick, Status,
    Value, VmError,
};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::COMPILED;
use btvm_testkit::fixtures::{HEADER_MBT, MBT_ALL};

const EVENTS: [&str; 6] = ["EnemySeen", "Hurt", "EnemyLost", "Alarm", "Go", "Calm"];
const AGENTS: u32 = 96;
const SQUAD: u32 = 8;

fn program() -> Program {
    let text = format!("{HEADER_MBT}{MBT_ALL}");
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", text.clone());
    let tree = canonical::parse(file, &text, &limits).expect("parses");
    btvm_compiler::lower::lower(&tree, &limits).expect("lowers")
}

/// One host call: (agent, now, import, phase); `before_tick` is import `u32::MAX`.
type Seen = (u32, i64, u32, Phase);

/// Answers from the call alone (never from the order of calls), and records every call.
#[derive(Default)]
struct Rec {
    log: Vec<Seen>,
}

impl Rec {
    fn answer(&mut self, call: &Call<'_>) -> u64 {
        self.log
            .push((call.agent.0, call.now, call.import.0, call.phase));
        let x = u64::from(call.agent.0) << 40 ^ (call.now as u64) << 12 ^ u64::from(call.import.0);
        x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40
    }

    fn drain(&mut self, into: &mut BTreeMap<u32, Vec<Seen>>) {
        for s in self.log.drain(..) {
            into.entry(s.0).or_default().push(s);
        }
    }
}

impl Host for Rec {
    fn action(&mut self, call: &Call<'_>) -> Status {
        match self.answer(call) % 5 {
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        }
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        Value::Bool(!self.answer(call).is_multiple_of(3))
    }
    fn before_tick(&mut self, agent: AgentId) {
        self.log.push((agent.0, 0, u32::MAX, Phase::Enter));
    }
}

/// The event agent `a` gets before tick `t`, if any (about a third of the agents).
fn event(a: u32, t: i64) -> Option<usize> {
    let h = (u64::from(a) * 31 + t as u64 * 17).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50;
    h.is_multiple_of(3)
        .then_some((h / 3 % EVENTS.len() as u64) as usize)
}

/// A batch of squads, every 5th agent asleep until an event, every 7th until time 40, every
/// 11th for the whole run.
fn batch(p: &Program, kind: EngineKind) -> Batch {
    let mut b = Batch::with_engine(p, AGENTS, kind).expect("main entry");
    for a in 0..AGENTS {
        b.set_group(AgentId(a), a / SQUAD).expect("alive");
        if a % 5 == 0 {
            b.sleep_until_event(AgentId(a)).expect("alive");
        } else if a % 7 == 0 {
            b.sleep_until(AgentId(a), 40).expect("alive");
        } else if a % 11 == 0 {
            b.sleep_until(AgentId(a), 10_000).expect("alive");
        }
    }
    b
}

type Outcome = (
    BTreeMap<u32, Vec<Seen>>,
    Vec<(AgentId, Status, Vec<u8>, bool)>,
    Vec<u32>,
);

fn outcome(b: &Batch, calls: BTreeMap<u32, Vec<Seen>>) -> Outcome {
    let agents = b
        .iter()
        .map(|(a, s, st)| (a, s, st.to_vec(), b.is_asleep(a)))
        .collect();
    let users = (0..AGENTS / SQUAD)
        .map(|g| b.scope_users(g, "squad"))
        .collect();
    (calls, agents, users)
}

/// Events, then the tick, then restarts, all on the calling thread.
fn serial(p: &Program, kind: EngineKind) -> Outcome {
    let mut b = batch(p, kind);
    let (mut host, mut calls) = (Rec::default(), BTreeMap::new());
    for t in 0..12i64 {
        let now = t * 10;
        for a in 0..AGENTS {
            if let Some(e) = event(a, t) {
                b.event(AgentId(a), &mut host, EVENTS[e], now)
                    .expect("alive");
            }
        }
        b.tick(&mut host, now);
        for a in 0..AGENTS {
            let halted = b.state(AgentId(a)).is_some_and(|s| p.halt(s).is_some());
            if halted {
                b.restart_agent(AgentId(a), &mut host, now).expect("alive");
            }
        }
        host.drain(&mut calls);
    }
    outcome(&b, calls)
}

/// The same work, each shard's on its thread.
fn parallel(p: &Program, kind: EngineKind, threads: usize, per: usize) -> Outcome {
    let mut b = batch(p, kind);
    let ids: Vec<_> = EVENTS
        .iter()
        .map(|e| p.event_id(e).expect("used"))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let how = ParTick::new().pool(&pool).shards_per_thread(per);
    let mut calls = BTreeMap::new();
    for t in 0..12i64 {
        let now = t * 10;
        let work = |shard: &mut ShardTick<'_, Rec>| {
            for k in 0..shard.len() {
                if let Some(e) = event(shard.ids()[k].0, t) {
                    shard.event_by_id(k, ids[e], now).expect("in the shard");
                }
            }
            shard.tick();
            for k in 0..shard.len() {
                let halted = shard.state(k).is_some_and(|s| p.halt(s).is_some());
                if halted {
                    shard.restart(k, now).expect("in the shard");
                }
            }
        };
        for mut h in b.par_tick_with(&how, now, |_| Rec::default(), work) {
            h.drain(&mut calls);
        }
    }
    outcome(&b, calls)
}

#[test]
fn shard_work_in_parallel_equals_the_same_work_around_tick() {
    let p = program();
    for &kind in COMPILED {
        let want = serial(&p, kind);
        let restarts = want.0.values().flatten().filter(|c| c.3 == Phase::Exit);
        assert!(restarts.count() > 0, "{kind}: no tree was terminated");
        assert!(
            want.1.iter().any(|a| a.3),
            "{kind}: nobody sleeps at the end"
        );
        assert!(want.2.iter().any(|&u| u > 0), "{kind}: no scope is held");
        for (threads, per) in [(1, 1), (2, 3), (3, 2)] {
            let got = parallel(&p, kind, threads, per);
            assert!(got == want, "{kind} on {threads} threads x {per} shards");
        }
    }
}

#[test]
fn a_shard_that_work_does_not_tick_is_ticked_once() {
    let p = program();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    let how = ParTick::new().pool(&pool);
    let mut a = Batch::new(&p, 20).expect("main entry");
    let mut b = Batch::new(&p, 20).expect("main entry");
    for t in 0..4 {
        let mut ticked = 0;
        for mut h in a.par_tick_with(&how, t, |_| Rec::default(), |_| {}) {
            ticked += h.log.iter().filter(|c| c.2 == u32::MAX).count();
            h.log.clear();
        }
        assert_eq!(ticked, 20);
        let twice = |s: &mut ShardTick<'_, Rec>| {
            assert!(!s.ticked());
            s.tick();
            s.tick();
            assert!(s.ticked());
        };
        let hosts = b.par_tick_with(&how, t, |_| Rec::default(), twice);
        let told: usize = hosts
            .iter()
            .map(|h| h.log.iter().filter(|c| c.2 == u32::MAX).count())
            .sum();
        assert_eq!(told, 20);
        assert_eq!(a.statuses(), b.statuses());
    }
}

#[test]
fn a_place_outside_the_shard_or_a_foreign_event_is_an_error() {
    let p = program();
    let other = {
        let text = format!("{HEADER_MBT}root main = waitevent \"Elsewhere\" -> success\n");
        let mut sources = SourceMap::new();
        let file = sources.add("o.btn", text.clone());
        let tree = canonical::parse(file, &text, &Limits::default()).expect("parses");
        btvm_compiler::lower::lower(&tree, &Limits::default()).expect("lowers")
    };
    let foreign = other.event_id("Elsewhere").expect("used");
    let go = p.event_id("Go").expect("used");
    let mut b = Batch::new(&p, 10).expect("main entry");
    let check = |s: &mut ShardTick<'_, Rec>| {
        let n = s.len();
        assert_eq!(s.event_by_id(n, go, 0), Err(VmError::NoAgent(n)));
        assert_eq!(s.reset(n), Err(VmError::NoAgent(n)));
        assert_eq!(s.restart(n, 0), Err(VmError::NoAgent(n)));
        assert_eq!(s.event_by_id(0, foreign, 0), Err(VmError::ForeignEvent));
        assert!(s.state(n).is_none() && s.state_mut(n).is_none());
    };
    b.par_tick_with(&ParTick::new(), 0, |_| Rec::default(), check);
}
