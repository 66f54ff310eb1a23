//! The hand-written demo bot (`bench::handwritten`) is the demo tree: run side by side with the
//! reference interpreter over thousands of agents and ticks, at two tick lengths, it makes the
//! same host calls (import, phase, arguments bit for bit, time, in the same order), returns the
//! same root status every tick for every agent and leaves the world in the same state; its
//! `run` reports the checksum `btvm bench` reports for the engines.

use btvm::{AgentId, Call, Host, Limits, Millis, Phase, Program, Status, Value};
use btvm_benches::handwritten::{self, DemoState, HandWritten, STATE_BYTES};
use btvm_benches::measure::{run_bench, BenchConfig, BenchEngine, HostKind};
use btvm_benches::world::World;
use btvm_benches::{demo_tree, load_demo};
use btvm_compiler::ir::{NodeId, NodeKind, Tree};
use btvm_compiler::lower::lower;
use btvm_compiler::reference::Interpreter;
use btvm_compiler::source::SourceMap;
use std::collections::BTreeSet;
use std::fmt;

const AGENTS: u32 = 2_000;
const TICKS: i64 = 120;

fn tree() -> Tree {
    let mut sources = SourceMap::new();
    match load_demo(&mut sources) {
        Ok(t) => t,
        Err(d) => panic!("the demo does not load: {}", d[0].display(&sources)),
    }
}

fn program(tree: &Tree) -> Program {
    lower(tree, &Limits::default()).expect("the demo lowers")
}

/// A value exactly as the host received or answered it (floats compared by their bits).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exact {
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(u32),
}

impl From<Value> for Exact {
    fn from(v: Value) -> Exact {
        match v {
            Value::Bool(b) => Exact::Bool(b),
            Value::Int(i) => Exact::Int(i),
            Value::Float(x) => Exact::Float(x.to_bits()),
            Value::Str(s) => Exact::Str(s.0),
        }
    }
}

impl fmt::Debug for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Exact::Bool(b) => write!(f, "{b}"),
            Exact::Int(i) => write!(f, "{i}"),
            Exact::Float(bits) => write!(f, "{:?}", f64::from_bits(bits)),
            Exact::Str(s) => write!(f, "str{s}"),
        }
    }
}

/// One host call and its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Event {
    agent: u32,
    import: u32,
    phase: Phase,
    args: Vec<Exact>,
    now: Millis,
    /// The action's status or the function's value.
    answer: Result<Status, Exact>,
}

/// Forwards every call to the world and records it. A lying recorder sometimes changes the
/// answer the tree gets (deterministically: from how many calls it has seen), so that paths
/// the honest world never takes (a long action that fails, a purchase that stays running, a
/// condition that flips) are compared too. It keeps the game's contract: only long-running
/// actions are ever answered running.
struct Recorder {
    world: World,
    events: Vec<Event>,
    /// Per import: whether the action may return running.
    long_running: Vec<bool>,
    lie: bool,
    calls: u64,
}

impl Recorder {
    fn new(tree: &Tree, lie: bool) -> Recorder {
        let mut world = World::new(AGENTS as usize);
        world.bind(&tree.imports).expect("the world binds the demo");
        Recorder {
            world,
            events: Vec::new(),
            long_running: tree.imports.iter().map(|i| i.long_running).collect(),
            lie,
            calls: 0,
        }
    }

    /// A hash of the number of calls seen so far: the same in two runs that made the same
    /// calls.
    fn dice(&mut self) -> u64 {
        self.calls += 1;
        let mut z = self.calls.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z ^ (z >> 31)
    }

    fn log(&mut self, call: &Call<'_>, answer: Result<Status, Exact>) {
        self.events.push(Event {
            agent: call.agent.0,
            import: call.import.0,
            phase: call.phase,
            args: call.args.iter().map(|&v| Exact::from(v)).collect(),
            now: call.now,
            answer,
        });
    }
}

impl Host for Recorder {
    fn action(&mut self, call: &Call<'_>) -> Status {
        let mut s = self.world.action(call);
        let d = self.dice();
        if self.lie && d.is_multiple_of(5) {
            s = if self.long_running[call.import.index()] {
                Status::ALL[((d >> 8) % 3) as usize]
            } else if s == Status::Success {
                Status::Failure
            } else {
                Status::Success
            };
        }
        self.log(call, Ok(s));
        s
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        let mut v = self.world.function(call);
        let d = self.dice();
        if let (true, 0, Value::Bool(b)) = (self.lie, d % 7, v) {
            v = Value::Bool(!b);
        }
        self.log(call, Err(Exact::from(v)));
        v
    }
}

/// Formats a tick's calls for a failure message.
fn listing(tree: &Tree, events: &[Event]) -> String {
    events
        .iter()
        .map(|e| {
            let name = &tree.imports[e.import as usize].name;
            let args: Vec<String> = e.args.iter().map(|a| format!("{a:?}")).collect();
            let answer = match e.answer {
                Ok(s) => format!("{} -> {s}", e.phase.name()),
                Err(v) => format!("= {v:?}"),
            };
            format!("    {name}({}) {answer}\n", args.join(", "))
        })
        .collect()
}

/// What a side-by-side run covered.
#[derive(Default)]
struct Coverage {
    /// Root statuses seen.
    roots: BTreeSet<Status>,
    /// Actions (by node) that were the listed, running action after some tick.
    listed: BTreeSet<NodeId>,
    /// Imports the hand-written bot called with `continue`.
    continued: BTreeSet<u32>,
}

/// Ticks `AGENTS` agents for `TICKS` ticks (`now = tick * step_ms`) on the reference
/// interpreter and on the hand-written bot, each against its own (possibly lying) world, and
/// fails at the first agent and tick where their calls, root statuses or worlds differ.
fn side_by_side(step_ms: Millis, lie: bool) -> Coverage {
    let tree = tree();
    let program = program(&tree);
    assert_eq!(program.imports(), &tree.imports[..]);
    let hw = HandWritten::from_program(&program).expect("the bot binds the demo program");
    let interp = Interpreter::new(&tree).expect("the reference interpreter accepts the demo");

    let mut oracle = Recorder::new(&tree, lie);
    let mut bot = Recorder::new(&tree, lie);
    let mut oracle_states: Vec<_> = (0..AGENTS).map(|a| interp.new_agent(AgentId(a))).collect();
    let mut bot_states = vec![DemoState::default(); AGENTS as usize];
    let mut cov = Coverage::default();

    for tick in 0..TICKS {
        let now = tick * step_ms;
        oracle.events.clear();
        bot.events.clear();
        for a in 0..AGENTS {
            let (o0, b0) = (oracle.events.len(), bot.events.len());
            let want = interp.tick(&mut oracle_states[a as usize], &mut oracle, now);
            let got = hw.tick(&mut bot_states[a as usize], AgentId(a), &mut bot, now);
            let (want_calls, got_calls) = (&oracle.events[o0..], &bot.events[b0..]);
            if want_calls != got_calls || want != got {
                panic!(
                    "step {step_ms} ms: agent {a} differs at tick {tick} (now = {now})\n  \
                     reference: root {want}, calls:\n{}  hand-written: root {got}, calls:\n{}",
                    listing(&tree, want_calls),
                    listing(&tree, got_calls),
                );
            }
            cov.roots.insert(got);
            if let Some(&listed) = oracle_states[a as usize].running_nodes().first() {
                cov.listed.insert(listed);
            }
            for e in got_calls {
                if e.phase == Phase::Continue {
                    cov.continued.insert(e.import);
                }
            }
        }
        assert_eq!(
            oracle.world.checksum(),
            bot.world.checksum(),
            "step {step_ms} ms: the worlds differ after tick {tick} (now = {now})"
        );
    }
    cov
}

/// The action nodes of the demo whose import may return running.
fn long_running_actions(tree: &Tree) -> BTreeSet<NodeId> {
    (0..tree.nodes.len())
        .map(|i| NodeId(i as u32))
        .filter(|&id| match &tree.node(id).kind {
            NodeKind::Action(call) => tree.imports[call.import.index()].long_running,
            _ => false,
        })
        .collect()
}

/// Fails unless the run went through every root status and every resume point of the tree.
fn assert_covered(tree: &Tree, cov: &Coverage, step_ms: Millis) {
    assert_eq!(
        cov.roots.len(),
        3,
        "step {step_ms} ms: roots {:?}",
        cov.roots
    );
    let long = long_running_actions(tree);
    let missed: Vec<String> = long
        .difference(&cov.listed)
        .map(|id| {
            let NodeKind::Action(call) = &tree.node(*id).kind else {
                unreachable!()
            };
            format!("{} (node {})", tree.imports[call.import.index()].name, id.0)
        })
        .collect();
    assert!(
        missed.is_empty(),
        "step {step_ms} ms: these long-running actions never ran across a tick: {missed:?}"
    );
    assert!(
        cov.listed.is_subset(&long),
        "step {step_ms} ms: a short action was left running"
    );
}

#[test]
fn the_hand_written_bot_matches_the_reference_at_100_ms_ticks() {
    let cov = side_by_side(100, false);
    assert_covered(&tree(), &cov, 100);
}

#[test]
fn the_hand_written_bot_matches_the_reference_at_37_ms_ticks() {
    // Ticks at odd times move the timers' deadlines off the tick grid.
    let cov = side_by_side(37, false);
    assert_covered(&tree(), &cov, 37);
}

#[test]
fn the_hand_written_bot_matches_the_reference_when_the_host_lies() {
    // Failing long actions, stale running lists and flipped conditions: the tree's semantics,
    // not just the paths the honest world takes.
    let cov = side_by_side(100, true);
    assert_covered(&tree(), &cov, 100);
}

#[test]
fn run_reports_the_checksum_the_bench_reports_for_the_engines() {
    let tree = demo_tree().expect("the demo loads");
    let program = program(&tree);
    let hw = HandWritten::from_program(&program).unwrap();
    for step_ms in [100, 37] {
        let cfg = BenchConfig {
            agents: 700,
            ticks: 90,
            step_ms,
            awake_percent: 100,
        };
        let mut world = World::new(cfg.agents as usize);
        program
            .bind(&mut world)
            .expect("the world binds the program");
        let ours = handwritten::run(&mut world, &hw, cfg.agents, cfg.ticks, cfg.step_ms);
        for engine in BenchEngine::ALL {
            let row = match run_bench(&tree, engine, 1, HostKind::World, &cfg) {
                Ok(row) => row,
                // Only the reference and the vm run everywhere; an engine this machine cannot
                // run has no row to agree with.
                Err(_) if !matches!(engine, BenchEngine::Reference | BenchEngine::Vm) => continue,
                Err(e) => panic!("the {} row failed: {}", engine.name(), e.message),
            };
            assert_eq!(
                ours,
                row.checksum,
                "step {step_ms} ms: the hand-written checksum differs from the {} row's",
                engine.name()
            );
        }
    }
}

// The bot keeps what a programmer would: three deadlines and two one-byte action slots.
const _: () = assert!(STATE_BYTES <= 32);

#[test]
fn binding_names_what_is_missing() {
    let tree = tree();
    let program = program(&tree);
    let mut imports = program.imports().to_vec();
    let fight = imports.iter().position(|i| i.name == "fight").unwrap();
    imports[fight].name = "fightHarder".to_string();
    let err = HandWritten::new(&imports, program.strings()).unwrap_err();
    assert!(err.contains("`fight`"), "{err}");

    let err = HandWritten::new(program.imports(), &btvm::Strings::new()).unwrap_err();
    assert!(err.contains("g_bot_buyWeapons"), "{err}");
}
