//! `Batch::tick` and `Batch::par_tick`, on the vm and on native code, are exactly "tick every
//! agent once with `Vm::tick`": same statuses, same state blocks (byte for byte: the engines
//! share one layout) and the same host calls per agent, whatever the number of hosts the agents
//! are split over. Plus the load- and tick-time errors: a state block of the
//! wrong size, and a host that cannot bind an import.

use btvm::{
    AgentId, Batch, Call, EngineKind, Host, Import, ImportId, ImportKind, Limits, Phase, Program,
    Status, Value, Vm, VmError,
};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::native;

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
    let tree = match native::parse(file, text, &limits) {
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

/// One host call as the host saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rec {
    now: i64,
    import: u32,
    phase: Phase,
    args: Vec<Arg>,
}

/// Answers deterministically from (agent, time, import, how many calls this agent has made
/// this tick) — never from the order in which agents are ticked — and logs every call with
/// its agent.
#[derive(Default)]
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
}

/// What ticking produced: statuses per tick, per-agent call logs, final state blocks.
#[derive(Debug, PartialEq)]
struct Outcome {
    statuses: Vec<Vec<Status>>,
    calls: Vec<Vec<Rec>>,
    states: Vec<Vec<u8>>,
}

/// The reference: every agent its own state block and `Vm::tick`, agents in *reverse* id order
/// (agents share nothing, so the order must not matter).
fn one_by_one(p: &Program, agents: usize) -> Outcome {
    let mut host = Recorder::default();
    p.bind(&mut host).expect("bind");
    let mut vm = Vm::new(p);
    let mut states: Vec<Vec<u8>> = (0..agents).map(|_| p.new_state()).collect();
    let mut calls = vec![Vec::new(); agents];
    let mut statuses = Vec::new();
    for tick in 0..TICKS {
        let mut row = vec![Status::Failure; agents];
        for i in (0..agents).rev() {
            row[i] = vm
                .tick(&mut states[i], AgentId(i as u32), &mut host, now(tick))
                .expect("tick");
            host.drain_into(&mut calls);
        }
        statuses.push(row);
    }
    Outcome {
        statuses,
        calls,
        states,
    }
}

fn states_of(batch: &Batch<'_>) -> Vec<Vec<u8>> {
    (0..batch.len())
        .map(|i| batch.state(i).expect("in range").to_vec())
        .collect()
}

fn batched(p: &Program, agents: usize, kind: EngineKind) -> Outcome {
    let mut host = Recorder::default();
    p.bind(&mut host).expect("bind");
    let mut batch = Batch::with_engine(p, agents as u32, kind).expect("main entry");
    assert_eq!(batch.engine(), kind, "{:?}", batch.fallback());
    assert_eq!(batch.len(), agents);
    assert_eq!(batch.is_empty(), agents == 0);
    let mut calls = vec![Vec::new(); agents];
    let mut statuses = Vec::new();
    for tick in 0..TICKS {
        let row = batch.tick(&mut host, now(tick)).to_vec();
        assert_eq!(row, batch.statuses());
        host.drain_into(&mut calls);
        statuses.push(row);
    }
    Outcome {
        statuses,
        calls,
        states: states_of(&batch),
    }
}

fn par_batched(p: &Program, agents: usize, hosts: usize, kind: EngineKind) -> Outcome {
    let mut hs: Vec<Recorder> = (0..hosts).map(|_| Recorder::default()).collect();
    for h in &mut hs {
        p.bind(h).expect("bind");
    }
    let mut batch = Batch::with_engine(p, agents as u32, kind).expect("main entry");
    let mut calls = vec![Vec::new(); agents];
    let mut statuses = Vec::new();
    let chunk = agents.div_ceil(hosts).max(1);
    for tick in 0..TICKS {
        let row = batch.par_tick(&mut hs, now(tick)).to_vec();
        assert_eq!(row, batch.statuses());
        for (k, h) in hs.iter_mut().enumerate() {
            // Host k ticked exactly the agents of chunk k, in id order.
            let mine = (k * chunk).min(agents)..((k + 1) * chunk).min(agents);
            let mut last = None;
            for (agent, _) in &h.log {
                assert!(
                    mine.contains(&(*agent as usize)),
                    "host {k} of {hosts} called for agent {agent} (chunk {mine:?})"
                );
                assert!(last <= Some(*agent), "agents out of id order in host {k}");
                last = Some(*agent);
            }
            h.drain_into(&mut calls);
        }
        statuses.push(row);
    }
    Outcome {
        statuses,
        calls,
        states: states_of(&batch),
    }
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
            for kind in [EngineKind::Vm, EngineKind::Native] {
                let got = batched(&p, agents, kind);
                assert_same(
                    &format!("{name}, {agents} agents, Batch::tick on {kind}"),
                    &got,
                    &want,
                );
                for hosts in [1usize, 2, 3, 7] {
                    let got = par_batched(&p, agents, hosts, kind);
                    assert_same(
                        &format!("{name}, {agents} agents, par_tick with {hosts} hosts on {kind}"),
                        &got,
                        &want,
                    );
                }
            }
        }
    }
}

#[test]
fn par_tick_with_no_hosts_ticks_nothing() {
    let p = program("all.btn", TREE_ALL);
    let mut batch = Batch::new(&p, 4).expect("main entry");
    let before = states_of(&batch);
    let statuses = batch.par_tick::<Recorder>(&mut [], 0).to_vec();
    assert_eq!(statuses, vec![Status::Failure; 4]);
    assert_eq!(states_of(&batch), before);
}

#[test]
fn batch_state_accessors() {
    let p = program("all.btn", TREE_ALL);
    let mut batch = Batch::new(&p, 3).expect("main entry");
    assert_eq!(batch.state(2).map(<[u8]>::len), Some(p.state_size()));
    assert!(batch.state(3).is_none());
    assert!(batch.state_mut(3).is_none());
    // Restoring a snapshot into one agent changes only that agent.
    let mut host = Recorder::default();
    for t in 0..5 {
        batch.tick(&mut host, now(t));
    }
    let snapshot = batch.state(1).unwrap().to_vec();
    let others = (
        batch.state(0).unwrap().to_vec(),
        batch.state(2).unwrap().to_vec(),
    );
    batch.state_mut(1).unwrap().fill(0);
    assert_eq!(batch.state(1).unwrap(), &p.new_state()[..]);
    batch.state_mut(1).unwrap().copy_from_slice(&snapshot);
    assert_eq!(batch.state(1).unwrap(), &snapshot[..]);
    assert_eq!(
        (
            batch.state(0).unwrap().to_vec(),
            batch.state(2).unwrap().to_vec()
        ),
        others
    );
}

#[test]
fn a_state_block_of_the_wrong_size_is_an_error() {
    for (name, p) in programs() {
        let size = p.state_size();
        assert!(size > 0, "{name}");
        let mut host = Recorder::default();
        p.bind(&mut host).expect("bind");
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
