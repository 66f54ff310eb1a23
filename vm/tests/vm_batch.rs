//! `Batch::tick` and `Batch::par_tick`, on the vm and on native code, are exactly "tick every
//! agent once with `Vm::tick`": same statuses, same state blocks (byte for byte: the engines
//! share one layout) and the same host calls per agent, whatever the number of hosts the agents
//! are split over. Events delivered with `Batch::event` (lifecycle and selection models) are
//! exactly `Engine::event` on one engine that ticks every agent. Plus the load- and tick-time
//! errors: a state block of the wrong size, an agent past the batch, and a host that cannot
//! bind an import.

use btvm::{
    AgentId, Batch, Call, Engine, EngineKind, Host, Import, ImportId, ImportKind, Limits, Phase,
    Program, Status, Value, Vm, VmError,
};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::COMPILED;

use btvm_testkit::fixtures;

use fixtures::{BST_ALL, HEADER_BST, HEADER_MBT, MBT_ALL};

/// Actions with arguments, host functions, `&&`/`||`/`!`, a cooldown, a parallel with
/// `@random` (seeded per agent id, so agent ids must be global in every chunk), a shared
/// subtree included twice and a second entry.
const TREE_ALL: &str = include_str!("fixtures/vm_all.btn");

/// Nested shared subtrees, a parallel that stops on failure, single precision, arguments
/// computed from host functions and `@random`.
const TREE_NESTED: &str = r#"btvm 1;
dialect unvanquished;
precision single;
import action say 1..2;
import action fight 0..0 long;
import action moveTo 1..2 long;
import function health 0..0;
import function near 1..1;

root main = sequence running-list {
    include "a"
    parallel success=any failure=all stop-on-failure {
        action moveTo(health() * 2 + @random, "x")
        action fight()
    }
    action fight()
}
subtree "a" shared = sequence running-list {
    action say("a", near(1) > 0.5 && health() != 0)
    include "b"
}
subtree "b" shared = selector running-list {
    action fight()
    action say("b")
    cooldown 250 { action moveTo(-1) }
}
"#;

fn program(name: &str, text: &str) -> Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add(name, text.to_string());
    let tree = match canonical::parse(file, text, &limits) {
        Ok(t) => t,
        Err(d) => panic!("{name} does not parse: {}", d[0].display(&sources)),
    };
    match btvm_compiler::lower::lower(&tree, &limits) {
        Ok(p) => p,
        Err(d) => panic!("{name} does not lower: {}", d[0].message),
    }
}

fn programs() -> Vec<(&'static str, Program)> {
    vec![
        ("all", program("all.btn", TREE_ALL)),
        ("nested", program("nested.btn", TREE_NESTED)),
    ]
}

const TICKS: i64 = 30;

fn now(tick: i64) -> i64 {
    13 + tick * 90
}

/// An argument as recorded: exact (floats by their bits; strings resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

/// One host call as the host saw it. `log` and `select` calls (which carry no time, import or
/// phase) are recorded with `import` [`LOG`] or [`SELECT`] and their text as the argument.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rec {
    now: i64,
    import: u32,
    phase: Phase,
    args: Vec<Arg>,
}

/// [`Rec::import`] of a `log` call.
const LOG: u32 = u32::MAX;
/// [`Rec::import`] of a `select` call.
const SELECT: u32 = u32::MAX - 1;

/// Answers deterministically from (agent, time, import, how many calls this agent has made
/// this tick) — never from the order in which agents are ticked — and logs every call with
/// its agent.
#[derive(Clone, Default)]
struct Recorder {
    log: Vec<(u32, Rec)>,
    /// (agent, now, calls so far in this tick) of the last call, to number calls per tick.
    last: Option<(u32, i64, u32)>,
    bound: Vec<(ImportId, String)>,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Recorder {
    /// A recorder bound to `p`'s imports.
    fn bound_to(p: &Program) -> Self {
        let mut host = Self::default();
        p.bind(&mut host).expect("bind");
        host
    }

    fn record(&mut self, call: &Call<'_>) -> u64 {
        let agent = call.agent.0;
        let nth = match self.last {
            Some((a, t, n)) if a == agent && t == call.now => n + 1,
            _ => 0,
        };
        self.last = Some((agent, call.now, nth));
        let args = call
            .args
            .iter()
            .map(|v| match *v {
                Value::Bool(b) => Arg::Bool(b),
                Value::Int(i) => Arg::Int(i),
                Value::Float(x) => Arg::Float(x.to_bits()),
                Value::Str(s) => Arg::Str(call.strings.get(s).to_string()),
            })
            .collect();
        self.log.push((
            agent,
            Rec {
                now: call.now,
                import: call.import.0,
                phase: call.phase,
                args,
            },
        ));
        mix(u64::from(agent) << 40
            ^ (call.now as u64) << 12
            ^ u64::from(call.import.0) << 4
            ^ u64::from(nth))
    }

    /// Records a `log` or `select` call.
    fn record_text(&mut self, agent: AgentId, import: u32, text: &str) {
        self.log.push((
            agent.0,
            Rec {
                now: 0,
                import,
                phase: Phase::Enter,
                args: vec![Arg::Str(text.to_string())],
            },
        ));
    }

    /// Moves this host's log into per-agent logs.
    fn drain_into(&mut self, per_agent: &mut [Vec<Rec>]) {
        for (agent, rec) in self.log.drain(..) {
            per_agent[agent as usize].push(rec);
        }
        self.last = None;
    }
}

impl Host for Recorder {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        self.bound.push((id, import.name.clone()));
        true
    }

    fn action(&mut self, call: &Call<'_>) -> Status {
        let h = self.record(call);
        // Mostly running, so resumes and `continue` phases happen.
        match h % 5 {
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        }
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        let h = self.record(call);
        match h % 4 {
            0 => Value::Bool(h & 16 != 0),
            1 => Value::Int((h >> 8) as i64 % 20 - 5),
            2 => Value::Float((h >> 8) as f64 / (1u64 << 56) as f64 * 20.0),
            _ => Value::Float(0.1),
        }
    }

    fn log(&mut self, agent: AgentId, message: &str) {
        self.record_text(agent, LOG, message);
    }

    fn select(&mut self, agent: AgentId, behavior: &str) {
        self.record_text(agent, SELECT, behavior);
    }
}

/// What ticking produced: statuses per tick, per-agent call logs, final state blocks.
#[derive(Debug, PartialEq)]
struct Outcome {
    statuses: Vec<Vec<Status>>,
    calls: Vec<Vec<Rec>>,
    states: Vec<Vec<u8>>,
}

impl Outcome {
    /// Calls `tick` for each of the `TICKS` ticks: it ticks every agent once, returns their
    /// statuses and moves the host calls made into the per-agent logs it is given. The caller
    /// fills in the final state blocks.
    fn record(agents: usize, mut tick: impl FnMut(i64, &mut [Vec<Rec>]) -> Vec<Status>) -> Self {
        let mut calls = vec![Vec::new(); agents];
        let statuses = (0..TICKS).map(|t| tick(t, &mut calls)).collect();
        Outcome {
            statuses,
            calls,
            states: Vec::new(),
        }
    }
}

/// The reference: every agent its own state block and `Vm::tick`, agents in *reverse* id order
/// (agents share nothing, so the order must not matter).
fn one_by_one(p: &Program, agents: usize) -> Outcome {
    let mut host = Recorder::bound_to(p);
    let mut vm = Vm::new(p);
    let mut states: Vec<Vec<u8>> = (0..agents).map(|_| p.new_state()).collect();
    let mut out = Outcome::record(agents, |tick, calls| {
        let mut row = vec![Status::Failure; agents];
        for i in (0..agents).rev() {
            row[i] = vm
                .tick(&mut states[i], AgentId(i as u32), &mut host, now(tick))
                .expect("tick");
            host.drain_into(calls);
        }
        row
    });
    out.states = states;
    out
}

/// The state blocks by agent id (ids `0..len`, in whatever slots they are).
fn states_of(batch: &Batch) -> Vec<Vec<u8>> {
    (0..batch.len())
        .map(|i| batch.state(AgentId(i as u32)).expect("alive").to_vec())
        .collect()
}

fn batched(p: &Program, agents: usize, kind: EngineKind) -> Outcome {
    let mut host = Recorder::bound_to(p);
    let mut batch = Batch::with_engine(p, agents as u32, kind).expect("main entry");
    assert_eq!(batch.engine(), kind, "{:?}", batch.fallback());
    assert_eq!(batch.len(), agents);
    assert_eq!(batch.is_empty(), agents == 0);
    let mut out = Outcome::record(agents, |tick, calls| {
        let row = batch.tick(&mut host, now(tick)).to_vec();
        assert_eq!(row, batch.statuses());
        host.drain_into(calls);
        row
    });
    out.states = states_of(&batch);
    out
}

/// `par_tick` on a pool of `threads` threads, `per` shards per thread, each shard's host a
/// clone of one bound prototype.
fn par_batched(
    p: &Program,
    agents: usize,
    threads: usize,
    per: usize,
    kind: EngineKind,
) -> Outcome {
    let proto = Recorder::bound_to(p);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let how = btvm::ParTick::new().pool(&pool).shards_per_thread(per);
    let mut batch = Batch::with_engine(p, agents as u32, kind).expect("main entry");
    let mut out = Outcome::record(agents, |tick, calls| {
        let mut shards = Vec::new();
        let hosts = batch.par_tick(&how, now(tick), |shard| {
            assert_eq!(shard.index(), shards.len());
            shards.push(shard.ids().to_vec());
            proto.clone()
        });
        assert_eq!(hosts.len(), shards.len());
        let all: Vec<AgentId> = shards.iter().flatten().copied().collect();
        assert_eq!(all, batch.ids(), "the shards cover the slots in order");
        if agents >= threads * per {
            assert_eq!(shards.len(), threads * per, "shards of {agents} agents");
        }
        let row = batch.statuses().to_vec();
        for (k, mut h) in hosts.into_iter().enumerate() {
            // Host k was called only for the agents of shard k, in slot order (an agent may
            // make no call in a tick): the agents it saw are a subsequence of the shard's.
            let mut seen: Vec<u32> = h.log.iter().map(|(a, _)| *a).collect();
            seen.dedup();
            let mut mine = shards[k].iter().map(|a| a.0);
            assert!(
                seen.iter().all(|a| mine.any(|m| m == *a)),
                "host {k} of {} on {threads} threads: {seen:?} not within {:?}",
                shards.len(),
                shards[k]
            );
            h.drain_into(calls);
        }
        row
    });
    out.states = states_of(&batch);
    out
}

#[track_caller]
fn assert_same(what: &str, got: &Outcome, want: &Outcome) {
    assert_eq!(got.statuses.len(), want.statuses.len(), "{what}");
    for (t, (g, w)) in got.statuses.iter().zip(&want.statuses).enumerate() {
        assert_eq!(g, w, "{what}: statuses differ at tick {t}");
    }
    assert_eq!(got.calls.len(), want.calls.len(), "{what}");
    for (a, (g, w)) in got.calls.iter().zip(&want.calls).enumerate() {
        if g != w {
            let at = g
                .iter()
                .zip(w)
                .position(|(x, y)| x != y)
                .unwrap_or(g.len().min(w.len()));
            panic!(
                "{what}: agent {a}'s host calls differ at call {at} (of {} / {}): got {:?}, want {:?}",
                g.len(),
                w.len(),
                g.get(at),
                w.get(at)
            );
        }
    }
    assert_eq!(got.states, want.states, "{what}: final state blocks differ");
}

#[test]
fn batch_and_par_tick_match_ticking_agents_one_by_one() {
    for (name, p) in programs() {
        for agents in [0usize, 1, 5, 1000] {
            let want = one_by_one(&p, agents);
            if agents == 1000 {
                // The scenario is not degenerate: all statuses happen, actions continue, and
                // agents behave differently.
                let all: Vec<Status> = want.statuses.iter().flatten().copied().collect();
                for s in [Status::Success, Status::Failure, Status::Running] {
                    assert!(all.contains(&s), "{name}: the root never returns {s:?}");
                }
                let phases = want.calls.iter().flatten().map(|r| r.phase);
                assert!(
                    phases.clone().any(|p| p == Phase::Continue)
                        && phases.clone().any(|p| p == Phase::Enter),
                    "{name}: no continue or no enter phase"
                );
                assert!(
                    want.calls.iter().any(|c| c != &want.calls[0]),
                    "{name}: every agent made the same calls"
                );
            }
            for &kind in COMPILED {
                let got = batched(&p, agents, kind);
                assert_same(
                    &format!("{name}, {agents} agents, Batch::tick on {kind}"),
                    &got,
                    &want,
                );
                for (threads, per) in [(1usize, 1usize), (2, 1), (3, 4), (2, 7)] {
                    let got = par_batched(&p, agents, threads, per, kind);
                    let how = format!("{threads} threads x {per} shards");
                    assert_same(
                        &format!("{name}, {agents} agents, par_tick on {how} on {kind}"),
                        &got,
                        &want,
                    );
                }
            }
        }
    }
}

#[test]
fn par_tick_of_no_agents_makes_no_shards() {
    let p = program("all.btn", TREE_ALL);
    let mut batch = Batch::new(&p, 0).expect("main entry");
    let hosts = batch.par_tick(&btvm::ParTick::new(), 0, |_| Recorder::default());
    assert!(hosts.is_empty());
    assert!(batch.statuses().is_empty());
}

/// A server keeps a batch in its own struct, with no lifetime tying it to the program: the
/// batch and the engine own (share) the program, which its maker may drop.
#[test]
fn batches_and_engines_own_their_program() {
    struct Server {
        batch: Batch,
        engine: btvm::Engine,
    }
    let want = batched(&program("all.btn", TREE_ALL), 3, EngineKind::Native);
    let mut server = {
        let p = program("all.btn", TREE_ALL);
        Server {
            batch: Batch::with_engine(&p, 3, EngineKind::Native).expect("main entry"),
            engine: btvm::Engine::new(&p, EngineKind::Native),
        }
        // `p` is dropped here; both keep running it.
    };
    let mut host = Recorder::bound_to(server.batch.program());
    let mut statuses = Vec::new();
    for t in 0..TICKS {
        statuses.push(server.batch.tick(&mut host, now(t)).to_vec());
    }
    assert_eq!(statuses, want.statuses);
    assert_eq!(states_of(&server.batch), want.states);
    assert_eq!(server.engine.kind(), server.batch.engine());
    // Clones share one program, so the native compilation is made once for all of them.
    #[cfg(feature = "jit")]
    assert!(std::ptr::eq(
        server.engine.program().native().expect("compiles"),
        server.batch.program().native().expect("compiles"),
    ));
}

#[test]
fn batch_state_accessors() {
    let p = program("all.btn", TREE_ALL);
    let mut batch = Batch::new(&p, 3).expect("main entry");
    assert_eq!(
        batch.state(AgentId(2)).map(<[u8]>::len),
        Some(p.state_size())
    );
    assert!(batch.state(AgentId(3)).is_none());
    assert!(batch.state_mut(AgentId(3)).is_none());
    // Restoring a snapshot into one agent changes only that agent.
    let mut host = Recorder::default();
    for t in 0..5 {
        batch.tick(&mut host, now(t));
    }
    let snapshot = batch.state(AgentId(1)).unwrap().to_vec();
    let others = (
        batch.state(AgentId(0)).unwrap().to_vec(),
        batch.state(AgentId(2)).unwrap().to_vec(),
    );
    batch.state_mut(AgentId(1)).unwrap().fill(0);
    assert_eq!(batch.state(AgentId(1)).unwrap(), &p.new_state()[..]);
    batch
        .state_mut(AgentId(1))
        .unwrap()
        .copy_from_slice(&snapshot);
    assert_eq!(batch.state(AgentId(1)).unwrap(), &snapshot[..]);
    assert_eq!(
        (
            batch.state(AgentId(0)).unwrap().to_vec(),
            batch.state(AgentId(2)).unwrap().to_vec()
        ),
        others
    );
}

#[test]
fn a_state_block_of_the_wrong_size_is_an_error() {
    for (name, p) in programs() {
        let size = p.state_size();
        assert!(size > 0, "{name}");
        let mut host = Recorder::bound_to(&p);
        let mut vm = Vm::new(&p);
        for len in [0, size - 1, size + 1, 2 * size] {
            let mut state = vec![0xa5u8; len];
            let want = VmError::StateSize {
                expected: size,
                found: len,
            };
            assert_eq!(
                vm.tick(&mut state, AgentId(0), &mut host, 0),
                Err(want.clone()),
                "{name}: tick with {len} bytes"
            );
            assert_eq!(
                vm.run_entry("main", &mut state, AgentId(0), &mut host, 0),
                Err(want.clone()),
                "{name}: run_entry with {len} bytes"
            );
            assert!(want.to_string().contains(&len.to_string()));
            assert!(
                state.iter().all(|&b| b == 0xa5),
                "{name}: the state was written"
            );
            assert!(host.log.is_empty(), "{name}: the host was called");
        }
        // The right size works, and an unknown entry is its own error.
        let mut state = p.new_state();
        assert!(vm.tick(&mut state, AgentId(0), &mut host, 0).is_ok());
        assert_eq!(
            vm.run_entry("nope", &mut state, AgentId(0), &mut host, 0),
            Err(VmError::NoEntry("nope".into()))
        );
    }
}

/// Binds every import except one name.
struct Refusing {
    refuse: String,
    seen: Vec<(ImportId, String, ImportKind)>,
}

impl Host for Refusing {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        self.seen.push((id, import.name.clone(), import.kind));
        import.name != self.refuse
    }

    fn action(&mut self, _: &Call<'_>) -> Status {
        Status::Success
    }

    fn function(&mut self, _: &Call<'_>) -> Value {
        Value::Bool(true)
    }
}

#[test]
fn bind_fails_on_the_first_import_the_host_rejects() {
    let p = program("all.btn", TREE_ALL);
    for imp in p.imports() {
        let mut host = Refusing {
            refuse: imp.name.clone(),
            seen: Vec::new(),
        };
        let err = p
            .bind(&mut host)
            .expect_err("a rejected import fails the bind");
        assert_eq!(
            err,
            VmError::UnknownImport {
                name: imp.name.clone(),
                kind: imp.kind.name(),
            }
        );
        let text = err.to_string();
        assert!(
            text.contains(&imp.name) && text.contains(imp.kind.name()),
            "{text}"
        );
        // Imports are offered in table order, up to the rejected one.
        let (last_id, last_name, _) = host.seen.last().unwrap().clone();
        assert_eq!(last_name, imp.name);
        assert_eq!(last_id, ImportId(host.seen.len() as u32 - 1));
    }
    // A host that accepts everything is offered every import once, with its id.
    let mut host = Refusing {
        refuse: String::new(),
        seen: Vec::new(),
    };
    p.bind(&mut host).expect("everything binds");
    let want: Vec<_> = p
        .imports()
        .iter()
        .enumerate()
        .map(|(i, imp)| (ImportId(i as u32), imp.name.clone(), imp.kind))
        .collect();
    assert_eq!(host.seen, want);
    // The recorder binds the same way.
    let mut rec = Recorder::default();
    p.bind(&mut rec).expect("bind");
    assert_eq!(rec.bound.len(), p.imports().len());
}

/// A lifecycle tree driven by events: [`fixtures::MBT_ALL`] (signal bindings, timestamps, a
/// state machine with event transitions, a WaitForEvent and a SendEvent, a group scope two
/// agents of the batch may hold at once, a root that can finish: the agent is then reset)
/// without its endless loop of drawn waits, and with a short action in place of its logged
/// never-ending wait.
fn mbt_events() -> String {
    let mut tree = MBT_ALL.to_string();
    for (from, to) in [
        (
            "                loop forever until success { wait 150 100 -> failure }\n",
            "",
        ),
        (
            r#"logstatus start "stuck" { wait -1 0 -> success }"#,
            "action Aim(2)",
        ),
    ] {
        assert_eq!(tree.matches(from).count(), 1, "MBT_ALL has `{from}` once");
        tree = tree.replace(from, to);
    }
    tree
}

/// Every event either tree uses, and one neither does.
const EVENTS: [&str; 10] = [
    "EnemySeen",
    "EnemyLost",
    "Hurt",
    "Alarm",
    "Calm",
    "Go",
    "A",
    "B",
    "C",
    "nobody",
];

/// The event agent `agent` gets before tick `tick`, if any (about a third of the time).
fn event_at(agent: usize, tick: i64) -> Option<&'static str> {
    let h = mix((agent as u64) << 32 ^ tick as u64 ^ 0x00e7_0000_0000_0000);
    h.is_multiple_of(3)
        .then(|| EVENTS[(h >> 8) as usize % EVENTS.len()])
}

fn event_programs() -> Vec<(&'static str, Program)> {
    vec![
        (
            "mbt",
            program("mbt.btn", &format!("{HEADER_MBT}{}", mbt_events())),
        ),
        ("bst", program("bst.btn", &format!("{HEADER_BST}{BST_ALL}"))),
    ]
}

/// How a test delivers events: by name (`event`), or resolved once with `Program::event_id`
/// (`event_by_id`; a name the program does not use resolves to nothing and is skipped, as
/// delivering it by name does nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deliver {
    ByName,
    ById,
}

/// The reference for events: one `Engine` of `kind` (so every agent shares its group scopes)
/// ticking the agents one at a time in id order, each agent's event (with `Engine::event`)
/// just before its tick; agents whose tree stopped are reset after the tick. Without
/// `events`, none is delivered.
fn engine_with_events(
    p: &Program,
    agents: usize,
    kind: EngineKind,
    events: Option<Deliver>,
) -> Outcome {
    let mut host = Recorder::bound_to(p);
    let mut engine = Engine::new(p, kind);
    assert_eq!(engine.kind(), kind, "{:?}", engine.fallback());
    let mut states: Vec<Vec<u8>> = (0..agents).map(|_| p.new_state()).collect();
    let mut out = Outcome::record(agents, |tick, calls| {
        let mut row = vec![Status::Failure; agents];
        for (i, state) in states.iter_mut().enumerate() {
            let (agent, at) = (AgentId(i as u32), now(tick) - 7);
            match (event_at(i, tick), events) {
                (Some(e), Some(Deliver::ByName)) => {
                    engine.event(state, agent, &mut host, e, at).expect("event");
                }
                (Some(e), Some(Deliver::ById)) => {
                    if let Some(id) = p.event_id(e) {
                        engine
                            .event_by_id(state, agent, &mut host, id, at)
                            .expect("event");
                    }
                }
                _ => {}
            }
            row[i] = engine
                .tick(state, AgentId(i as u32), &mut host, now(tick))
                .expect("tick");
            host.drain_into(calls);
        }
        for state in &mut states {
            if p.halt(state).is_some() {
                engine.reset_agent(state);
            }
        }
        row
    });
    out.states = states;
    out
}

/// A batch of `kind`: before each tick every agent's event with `Batch::event` (through the
/// host of its chunk), then `par_tick` over `hosts` hosts (`tick` with 0); agents whose tree
/// stopped are reset.
fn batch_with_events(
    p: &Program,
    agents: usize,
    kind: EngineKind,
    hosts: usize,
    deliver: Deliver,
) -> Outcome {
    // Two shards per thread: one host each, lent for every tick.
    let mut hs: Vec<Recorder> = (0..hosts.max(1) * 2)
        .map(|_| Recorder::bound_to(p))
        .collect();
    let mut batch = Batch::with_engine(p, agents as u32, kind).expect("main entry");
    assert_eq!(batch.engine(), kind, "{:?}", batch.fallback());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(hosts.max(1))
        .build()
        .expect("pool");
    let how = btvm::ParTick::new().pool(&pool).shards_per_thread(2);
    let mut out = Outcome::record(agents, |tick, calls| {
        for i in 0..agents {
            let Some(e) = event_at(i, tick) else {
                continue;
            };
            let k = i % hs.len();
            let (h, at, a) = (&mut hs[k], now(tick) - 7, AgentId(i as u32));
            match (deliver, p.event_id(e)) {
                (Deliver::ByName, _) => batch.event(a, h, e, at).expect("event"),
                (Deliver::ById, Some(id)) => batch.event_by_id(a, h, id, at).expect("event"),
                (Deliver::ById, None) => {}
            }
        }
        let row = if hosts == 0 {
            batch.tick(&mut hs[0], now(tick)).to_vec()
        } else {
            let mut lent = hs.iter_mut();
            let used = batch.par_tick(&how, now(tick), |_| lent.next().expect("a host per shard"));
            drop(used);
            batch.statuses().to_vec()
        };
        for i in 0..agents {
            let a = AgentId(i as u32);
            if batch.state(a).is_some_and(|st| p.halt(st).is_some()) {
                batch.reset_agent(a).expect("alive");
            }
        }
        for h in &mut hs {
            h.drain_into(calls);
        }
        row
    });
    out.states = states_of(&batch);
    out
}

#[test]
fn batch_events_match_engine_events_one_agent_at_a_time() {
    const AGENTS: usize = 9;
    for (name, p) in event_programs() {
        for &kind in COMPILED {
            let want = engine_with_events(&p, AGENTS, kind, Some(Deliver::ByName));
            // The events matter: without them the agents do something else.
            let idle = engine_with_events(&p, AGENTS, kind, None);
            assert_ne!(
                want.calls, idle.calls,
                "{name} on {kind}: the events changed no host call"
            );
            assert_ne!(want.states, idle.states, "{name} on {kind}");
            // Resolving the names once delivers the same events.
            assert_same(
                &format!("{name}, Engine::event_by_id on {kind}"),
                &engine_with_events(&p, AGENTS, kind, Some(Deliver::ById)),
                &want,
            );
            for hosts in [0usize, 1, 2, 4] {
                for deliver in [Deliver::ByName, Deliver::ById] {
                    let got = batch_with_events(&p, AGENTS, kind, hosts, deliver);
                    assert_same(
                        &format!("{name}, {deliver:?} then tick with {hosts} hosts on {kind}"),
                        &got,
                        &want,
                    );
                }
            }
        }
        // The two engines agree with each other too.
        #[cfg(feature = "jit")]
        assert_eq!(
            engine_with_events(&p, AGENTS, EngineKind::Vm, Some(Deliver::ByName)),
            engine_with_events(&p, AGENTS, EngineKind::Native, Some(Deliver::ByName)),
            "{name}: the vm and native code disagree"
        );
    }
}

#[test]
fn batch_events_to_an_agent_past_the_batch_fail_and_other_models_ignore_them() {
    for (name, p) in event_programs() {
        for &kind in COMPILED {
            let mut host = Recorder::default();
            let mut batch = Batch::with_engine(&p, 3, kind).expect("main entry");
            let before = states_of(&batch);
            for (i, e) in [(3, "A"), (3, "nobody"), (u32::MAX, "Hurt")] {
                assert_eq!(
                    batch.event(AgentId(i), &mut host, e, 0),
                    Err(VmError::NoAgent(i as usize)),
                    "{name} on {kind}: agent {i}"
                );
            }
            assert_eq!(batch.event(AgentId(2), &mut host, "nobody", 0), Ok(()));
            // By id: a name the program does not use resolves to nothing; an id is checked
            // against the agent count first, then against the batch's program.
            assert_eq!(p.event_id("nobody"), None, "{name}");
            let id = EVENTS.iter().find_map(|e| p.event_id(e)).expect("an event");
            assert_eq!(
                batch.event_by_id(AgentId(3), &mut host, id, 0),
                Err(VmError::NoAgent(3))
            );
            let (_, other) = event_programs()
                .into_iter()
                .find(|(n, _)| *n != name)
                .expect("two event programs");
            let foreign = EVENTS
                .iter()
                .find_map(|e| other.event_id(e))
                .expect("an event");
            assert_ne!(foreign, id, "{name}");
            assert_eq!(
                batch.event_by_id(AgentId(2), &mut host, foreign, 0),
                Err(VmError::ForeignEvent),
                "{name} on {kind}"
            );
            let mut engine = Engine::new(&p, kind);
            let mut state = p.new_state();
            assert_eq!(
                engine.event_by_id(&mut state, AgentId(0), &mut host, foreign, 0),
                Err(VmError::ForeignEvent),
                "{name} on {kind}"
            );
            assert_eq!(state, p.new_state());
            assert_eq!(states_of(&batch), before, "{name} on {kind}");
            assert!(host.log.is_empty());
        }
    }
    // A running-list program has no events: nothing happens.
    let p = program("all.btn", TREE_ALL);
    let mut host = Recorder::default();
    let mut batch = Batch::new(&p, 2).expect("main entry");
    batch.tick(&mut host, 0);
    let before = states_of(&batch);
    host.log.clear();
    assert_eq!(batch.event(AgentId(1), &mut host, "main", 10), Ok(()));
    assert_eq!(states_of(&batch), before);
    assert!(host.log.is_empty());
}
