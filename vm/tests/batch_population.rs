//! A batch whose population changes and whose agents sleep is still exactly "every agent its
//! own engine": a scripted run spawns, despawns, sleeps, wakes, sets intervals and delivers
//! events between ticks (with `tick`, and with `par_tick` on pools of several shards per
//! thread), and a model — one `Vm` and one state per agent lifetime, ticked exactly on the
//! ticks the documented schedule says — must see the same statuses, the same host calls per
//! agent (`before_tick` included) and the same state blocks. Plus: a dead id is `NoAgent`
//! everywhere; despawning a running MBT agent makes the exit calls `Engine::restart_agent`
//! makes; group-scope programs sorted by group tick in parallel exactly as `tick` does.

use std::collections::BTreeMap;

use btvm::{
    AgentId, Batch, Call, Engine, EngineKind, Host, Limits, ParTick, Phase, Program, Status, Value,
    Vm, VmError,
};
use btvm_testkit::compare::COMPILED;
use btvm_testkit::fixtures::HEADER_MBT;

/// Actions, functions, a cooldown and `@random` (seeded per agent id).
const TREE_ALL: &str = include_str!("fixtures/vm_all.btn");

const MBT_SCOPE: &str = r#"
import action Hold 0..0 long;
import action Wait 0..0 long;
root main = selector remember {
    groupscope "gate" 2 { action Hold() }
    action Wait()
}
"#;

fn program(text: &str) -> Program {
    btvm_testkit::front::compile(text)
}

/// One host call as seen: (agent, now, import, phase); `before_tick` is import `u32::MAX`.
type Seen = (u32, i64, u32, Phase);

/// Answers from (agent, now, import, calls of this agent so far this tick) only, never from
/// the order agents tick in, and records every call.
#[derive(Clone, Default)]
struct Rec {
    log: Vec<Seen>,
    last: Option<(u32, i64, u32)>,
    /// Every action runs (for the MBT gate: holders keep holding).
    running: bool,
}

/// A host whose actions always run.
fn runner() -> Rec {
    Rec {
        running: true,
        ..Rec::default()
    }
}

impl Rec {
    fn hash(&mut self, call: &Call<'_>) -> u64 {
        let a = call.agent.0;
        let nth = match self.last {
            Some((x, t, n)) if x == a && t == call.now => n + 1,
            _ => 0,
        };
        self.last = Some((a, call.now, nth));
        self.log.push((a, call.now, call.import.0, call.phase));
        let x = u64::from(a) << 40 ^ (call.now as u64) << 12 ^ u64::from(call.import.0) << 4;
        (x ^ u64::from(nth)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20
    }

    /// Moves the log into per-agent logs.
    fn drain(&mut self, into: &mut BTreeMap<u32, Vec<Seen>>) {
        for s in self.log.drain(..) {
            into.entry(s.0).or_default().push(s);
        }
        self.last = None;
    }
}

impl Host for Rec {
    fn action(&mut self, call: &Call<'_>) -> Status {
        match self.hash(call) % 4 {
            _ if self.running => Status::Running,
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        }
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        Value::Bool(!self.hash(call).is_multiple_of(3))
    }
    fn before_tick(&mut self, agent: AgentId) {
        self.log.push((agent.0, 0, u32::MAX, Phase::Enter));
        self.last = None;
    }
}

/// The model of one live agent: its own state, its schedule, its last status.
struct Model {
    state: Vec<u8>,
    status: Status,
    /// `None` awake; `Some(None)` until an event; `Some(Some(t))` until time `t`.
    sleep: Option<Option<i64>>,
    every: u32,
}

/// A tiny deterministic generator for the script.
struct Dice(u64);

impl Dice {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// How a scripted run ticks.
#[derive(Clone, Copy, Debug)]
enum Ticker {
    Tick,
    /// `par_tick` on a pool of this many threads, this many shards per thread.
    Par(usize, usize),
}

/// Runs the script on a batch and on the model, comparing after every tick.
fn scripted(p: &Program, kind: EngineKind, ticker: Ticker, seed: u64) {
    let what = format!("{kind} {ticker:?} seed {seed}");
    let mut batch = Batch::with_engine(p, 6, kind).expect("main entry");
    let mut vm = Vm::new(p);
    let mut models: BTreeMap<u32, Model> = (0..6).map(|i| (i, fresh(p))).collect();
    let (mut got, mut want) = (BTreeMap::new(), BTreeMap::new());
    let mut host = Rec::default();
    let mut dice = Dice(seed | 1);
    let pool = match ticker {
        Ticker::Par(threads, _) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool"),
        ),
        Ticker::Tick => None,
    };
    for (turn, t) in (0..60i64).enumerate() {
        let now = 10 + t * 50;
        for _ in 0..dice.next(4) {
            let ids: Vec<u32> = models.keys().copied().collect();
            let pick = ids.get(dice.next(ids.len() as u64) as usize).copied();
            match (dice.next(8), pick) {
                (0 | 1, _) => {
                    let id = batch.spawn().expect("spawn");
                    assert!(
                        models.insert(id.0, fresh(p)).is_none(),
                        "{what}: {id} reused alive"
                    );
                }
                (2, Some(id)) => {
                    batch.despawn(AgentId(id), &mut host, now).expect("alive");
                    assert!(
                        host.log.is_empty(),
                        "{what}: unvanquished despawn makes no call"
                    );
                    models.remove(&id);
                    // The lifetime is over: compare it and start afresh if the id comes back.
                    assert_eq!(got.remove(&id), want.remove(&id), "{what}: agent {id}");
                }
                (3, Some(id)) => {
                    let until = now + 50 * dice.next(5) as i64;
                    batch.sleep_until(AgentId(id), until).expect("alive");
                    models.get_mut(&id).expect("alive").sleep = Some(Some(until));
                }
                (4, Some(id)) => {
                    batch.sleep_until_event(AgentId(id)).expect("alive");
                    models.get_mut(&id).expect("alive").sleep = Some(None);
                }
                (5, Some(id)) => {
                    // An Unvanquished tree has no events: delivering one only wakes.
                    batch
                        .event(AgentId(id), &mut host, "ping", now)
                        .expect("alive");
                    let m = models.get_mut(&id).expect("alive");
                    if m.sleep == Some(None) {
                        m.sleep = None;
                    }
                }
                (6, Some(id)) => {
                    batch.wake(AgentId(id)).expect("alive");
                    models.get_mut(&id).expect("alive").sleep = None;
                }
                (7, Some(id)) => {
                    let every = dice.next(4) as u32;
                    batch.set_interval(AgentId(id), every).expect("alive");
                    models.get_mut(&id).expect("alive").every = every.max(1);
                }
                _ => {}
            }
        }
        // The model: every agent its own vm, ticked when its schedule says.
        let mut one = Rec::default();
        for (&id, m) in models.iter_mut() {
            match m.sleep {
                Some(Some(until)) if now >= until => m.sleep = None,
                _ => {}
            }
            let due =
                m.sleep.is_none() && turn as u64 % u64::from(m.every) == u64::from(id % m.every);
            if due {
                // `Vm::tick` tells the host `before_tick` itself.
                m.status = vm
                    .tick(&mut m.state, AgentId(id), &mut one, now)
                    .expect("tick");
                one.drain(&mut want);
            }
        }
        match (ticker, &pool) {
            (Ticker::Par(_, per), Some(pool)) => {
                let how = ParTick::new().pool(pool).shards_per_thread(per);
                let mut shards = Vec::new();
                let hosts = batch.par_tick(&how, now, |s| {
                    shards.push(s.ids().to_vec());
                    Rec::default()
                });
                for (k, mut h) in hosts.into_iter().enumerate() {
                    assert!(
                        h.log.iter().all(|c| shards[k].contains(&AgentId(c.0))),
                        "{what}: host {k} called for an agent of another shard"
                    );
                    h.drain(&mut got);
                }
            }
            _ => {
                batch.tick(&mut host, now);
                host.drain(&mut got);
            }
        }
        assert_eq!(batch.len(), models.len(), "{what}");
        for (&id, m) in &models {
            let a = AgentId(id);
            assert_eq!(
                batch.status(a),
                Some(m.status),
                "{what}: agent {id} at tick {t}"
            );
            assert_eq!(
                batch.state(a),
                Some(&m.state[..]),
                "{what}: agent {id} at tick {t}"
            );
            let asleep = m.sleep.is_some();
            assert_eq!(batch.is_asleep(a), asleep, "{what}: agent {id} at tick {t}");
        }
        let listed: Vec<u32> = batch.ids().iter().map(|a| a.0).collect();
        let mut sorted = listed.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, models.keys().copied().collect::<Vec<_>>(), "{what}");
    }
    assert_eq!(got, want, "{what}: the live agents' calls");
}

fn fresh(p: &Program) -> Model {
    Model {
        state: p.new_state(),
        status: Status::Failure,
        sleep: None,
        every: 1,
    }
}

#[test]
fn spawn_despawn_sleep_and_intervals_equal_one_engine_per_agent() {
    let p = program(TREE_ALL);
    for &kind in COMPILED {
        for seed in 1..6 {
            for ticker in [Ticker::Tick, Ticker::Par(2, 3), Ticker::Par(3, 1)] {
                scripted(&p, kind, ticker, seed * 7919);
            }
        }
    }
}

#[test]
fn a_dead_id_is_no_agent_everywhere() {
    let p = program(TREE_ALL);
    let mut batch = Batch::new(&p, 3).expect("main entry");
    let mut host = Rec::default();
    batch.despawn(AgentId(1), &mut host, 0).expect("alive");
    assert_eq!(
        batch.ids(),
        [AgentId(0), AgentId(2)],
        "the last slot moved into the hole"
    );
    for dead in [AgentId(1), AgentId(3), AgentId(u32::MAX)] {
        let no = Err(VmError::NoAgent(dead.0 as usize));
        assert_eq!(batch.despawn(dead, &mut host, 0), no);
        assert_eq!(batch.event(dead, &mut host, "e", 0), no);
        assert_eq!(batch.restart_agent(dead, &mut host, 0), no);
        assert_eq!(batch.reset_agent(dead), no);
        assert_eq!(batch.set_group(dead, 1), no);
        assert_eq!(batch.sleep_until(dead, 5), no);
        assert_eq!(batch.sleep_until_event(dead), no);
        assert_eq!(batch.wake(dead), no);
        assert_eq!(batch.set_interval(dead, 2), no);
        assert!(batch.state(dead).is_none() && batch.state_mut(dead).is_none());
        assert!(batch.status(dead).is_none() && !batch.contains(dead));
        assert!(!batch.is_asleep(dead));
    }
    assert!(host.log.is_empty());
    // The freed id comes back, fresh.
    assert_eq!(batch.spawn(), Ok(AgentId(1)));
    assert_eq!(batch.state(AgentId(1)), Some(&p.new_state()[..]));
    assert_eq!(batch.spawn(), Ok(AgentId(3)));
}

#[test]
fn despawning_a_running_mbt_agent_makes_the_exit_calls() {
    let p = program(&format!("{HEADER_MBT}{MBT_SCOPE}"));
    for &kind in COMPILED {
        let mut batch = Batch::with_engine(&p, 3, kind).expect("main entry");
        let mut host = runner();
        for t in 0..3 {
            batch.tick(&mut host, t * 10);
        }
        let before = batch.scope_users(0, "gate");
        // What restarting the same state on an engine calls.
        let mut state = batch.state(AgentId(0)).expect("alive").to_vec();
        let mut want = runner();
        let mut engine = Engine::new(&p, kind);
        engine
            .restart_agent(&mut state, AgentId(0), &mut want, 40)
            .expect("restart");
        host.log.clear();
        batch.despawn(AgentId(0), &mut host, 40).expect("alive");
        assert!(!want.log.is_empty(), "{kind}: agent 0 runs an action");
        assert!(want.log.iter().all(|c| c.3 == Phase::Exit));
        assert_eq!(host.log, want.log, "{kind}");
        assert_eq!(before, 2, "{kind}: agents 0 and 1 hold the gate");
        assert_eq!(
            batch.scope_users(0, "gate"),
            1,
            "{kind}: agent 0 left the scope"
        );
    }
}

/// Agents of many groups, in an order where groups interleave until sorted: `par_tick` after
/// `sort_by_group` ticks groups on different threads with exactly `tick`'s result.
#[test]
fn group_scope_programs_sorted_by_group_tick_in_parallel_like_tick() {
    let p = program(&format!("{HEADER_MBT}{MBT_SCOPE}"));
    for &kind in COMPILED {
        let run = |par: bool| {
            let mut batch = Batch::with_engine(&p, 40, kind).expect("main entry");
            for i in 0..40u32 {
                batch.set_group(AgentId(i), (i * 7) % 5).expect("alive");
            }
            batch.sort_by_group();
            let groups: Vec<u32> = batch.ids().iter().map(|&a| batch.group(a)).collect();
            assert!(groups.windows(2).all(|w| w[0] <= w[1]), "sorted by group");
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .expect("pool");
            let how = ParTick::new().pool(&pool).shards_per_thread(4);
            let mut calls = BTreeMap::new();
            let mut statuses = Vec::new();
            let mut host = runner();
            for t in 0..6i64 {
                if t == 3 {
                    batch.despawn(AgentId(7), &mut host, t * 10).expect("alive");
                    host.drain(&mut calls);
                    batch.sort_by_group();
                }
                if par {
                    let hosts = batch.par_tick(&how, t * 10, |_| runner());
                    // Shards are cut at group boundaries: one per group here.
                    assert_eq!(hosts.len(), 5, "{kind}");
                    for mut h in hosts {
                        h.drain(&mut calls);
                    }
                } else {
                    batch.tick(&mut host, t * 10);
                    host.drain(&mut calls);
                }
                statuses.push(batch.iter().map(|(a, s, _)| (a, s)).collect::<Vec<_>>());
            }
            let users: Vec<u32> = (0..5).map(|g| batch.scope_users(g, "gate")).collect();
            (statuses, calls, users)
        };
        let seq = run(false);
        // Two agents of each group hold the gate; agent 7 (group 4) held it when despawned.
        assert_eq!(seq.2, vec![2, 2, 2, 2, 1], "{kind}");
        assert_eq!(run(true), seq, "{kind}");
    }
}

#[test]
fn from_records_rebuilds_a_batch_with_its_ids() {
    let p = program(TREE_ALL);
    let mut batch = Batch::new(&p, 5).expect("main entry");
    let mut host = Rec::default();
    for t in 0..4 {
        batch.tick(&mut host, t * 100);
    }
    batch.despawn(AgentId(1), &mut host, 400).expect("alive");
    let records: Vec<(AgentId, Status, Vec<u8>)> =
        batch.iter().map(|(a, s, st)| (a, s, st.to_vec())).collect();
    let view = || records.iter().map(|(a, s, st)| (*a, *s, &st[..]));
    let mut copy = Batch::from_records(&p, EngineKind::Vm, view()).expect("records");
    assert_eq!(copy.ids(), batch.ids());
    assert_eq!(copy.statuses(), batch.statuses());
    let (mut h1, mut h2) = (Rec::default(), Rec::default());
    batch.tick(&mut h1, 500);
    copy.tick(&mut h2, 500);
    assert_eq!(h1.log, h2.log);
    assert_eq!(copy.spawn(), Ok(AgentId(1)), "the missing id is free");
    // Hostile records: a wrong size, a duplicate id.
    let short = [(AgentId(0), Status::Running, &[0u8][..])];
    let err = Batch::from_records(&p, EngineKind::Vm, short).map(|_| ());
    assert!(matches!(err, Err(VmError::StateSize { .. })) || p.state_size() == 1);
    let twice = view().take(1).chain(view().take(1));
    let err = Batch::from_records(&p, EngineKind::Vm, twice).map(|_| ());
    assert_eq!(err, Err(VmError::DuplicateAgent(records[0].0)));
}

/// A batch saved in btvm's snapshot format and restored (through the bytes) on either engine
/// continues exactly as the original: the same calls, statuses and states, and the MBT group
/// scopes' counters rebuilt from the states (a holder keeps its place; no other agent of its
/// group gets in past the scope's limit).
#[test]
fn a_batch_restored_from_its_snapshot_continues_as_the_original() {
    let p = program(&format!("{HEADER_MBT}{MBT_SCOPE}"));
    for &from in COMPILED {
        for &to in COMPILED {
            let mut batch = Batch::with_engine(&p, 12, from).expect("main entry");
            for i in 0..12u32 {
                batch.set_group(AgentId(i), i % 3).expect("alive");
            }
            let mut host = runner();
            for t in 0..3i64 {
                batch.tick(&mut host, t * 10);
            }
            batch.despawn(AgentId(4), &mut host, 30).expect("alive");
            let bytes = batch.snapshot().encode();
            let snapshot = btvm::Snapshot::decode(&bytes, &p, &Limits::default()).expect("own");
            let mut copy = Batch::from_snapshot(&p, to, &snapshot).expect("fits");
            assert_eq!(copy.ids(), batch.ids());
            assert_eq!(copy.statuses(), batch.statuses());
            for g in 0..3 {
                assert_eq!(copy.scope_users(g, "gate"), batch.scope_users(g, "gate"));
            }
            let (mut h1, mut h2) = (runner(), runner());
            for t in 4..8i64 {
                batch.tick(&mut h1, t * 10);
                copy.tick(&mut h2, t * 10);
            }
            assert_eq!(h1.log, h2.log, "{from} -> {to}");
            let states = |b: &Batch| b.iter().map(|(_, _, s)| s.to_vec()).collect::<Vec<_>>();
            assert_eq!(states(&copy), states(&batch), "{from} -> {to}");
        }
    }
}

/// A snapshot of another program, or a hand-built one whose state the model refuses, is an
/// error, never a batch.
#[test]
fn a_snapshot_that_does_not_fit_is_refused() {
    let p = program(&format!("{HEADER_MBT}{MBT_SCOPE}"));
    let other = program(TREE_ALL);
    let batch = Batch::new(&other, 2).expect("main entry");
    let foreign = batch.snapshot();
    let err = Batch::from_snapshot(&p, EngineKind::Vm, &foreign).map(|_| ());
    assert!(
        matches!(
            err,
            Err(VmError::Snapshot(btvm::SnapshotError::OtherProgram { .. }))
        ),
        "{err:?}"
    );
    let mut short = Batch::new(&p, 1).expect("main entry").snapshot();
    short.agents[0].state.pop();
    let err = Batch::from_snapshot(&p, EngineKind::Vm, &short).map(|_| ());
    assert!(matches!(err, Err(VmError::StateSize { .. })), "{err:?}");
}
