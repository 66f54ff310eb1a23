//! The lifecycle (MBT) and selection (BST) models on the compiled engines: the vm, native
//! code, the two taking turns on one engine, and native code in tiny chunks all give the
//! reference interpreter's trace on scripted scenarios (events, variables, timestamps, group
//! scopes across agents, a stopped tree, resets); and the public API — `Engine::event`,
//! `Program::var_index`/`var`/`set_var`, `Engine::reset_agent`, `Engine::scope_users`,
//! `Program::halt`, `Batch::par_tick` — behaves as documented on both engines.
#![cfg(feature = "jit")]

use btvm::{AgentId, Batch, Call, Engine, EngineKind, Halt, Host, Limits, Program, Status, Value};
use btvm_compiler::ir::Tree;
use btvm_compiler::scenario::{self, parse_scenario};
use btvm_compiler::source::{FileId, SourceMap};
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::{compare, Contenders};

use btvm_testkit::fixtures;

use fixtures::{BST_ALL, HEADER_BST, HEADER_MBT, MBT_ALL};

/// The scenario for [`fixtures::MBT_ALL`].
const MBT_ALL_SCENARIO: &str = r#"
agents 3
ticks 24
answer Move("cover") = running
answer Move("patrol") = cycle running, running, running, failure
answer Move("home") = cycle running, running, success
answer Shoot = cycle running, success
answer lua_0 = 1
at 1 agent 0 event Alarm
at 2 agent 1 event EnemySeen
at 2 agent 2 event EnemySeen
at 3 agent 1 event Go
at 4 event Hurt
at 5 agent 2 set seen = false
at 6 event EnemyLost
at 6 agent 0 event Calm
at 7 agent 2 event Go
at 8 event EnemySeen
at 9 agent 1 event Go
at 10 agent 0 event EnemySeen
at 12 reset
at 13 agent 1 event Alarm
at 14 event EnemySeen
at 15 event Go
at 16 event Hurt
at 17 agent 0 event Alarm
at 18 event EnemyLost
at 20 event Alarm
"#;

/// Loops restarting at once (a child that had been running), the loop counts, a loop around a
/// state machine whose state sends the transition event (a pending transition taken at the next
/// update), a parallel that fails while children run (their exit calls), priorities switching
/// on a set variable, a group scope of one across agents.
const MBT_LOOPS: &str = r#"
import action Work 0..1 long;
import action Hold 0..0 long;
var calm: bool = false;

root main = parallel success=all failure=any remember {
    loop 4 until failure {
        sequence remember {
            action Work(1)
            action Work(2)
        }
    }
    loop 2 until success {
        statemachine {
            state on "Next" -> 1 { send "Next" -> running }
            state on "Next" -> 0 { action Work(3) }
        }
    }
    priority on-change {
        case ($calm) { groupscope "one" 1 { action Hold() } }
        case (!$calm) { map running running running { action Work(4) } }
    }
}
"#;

const MBT_LOOPS_SCENARIO: &str = r#"
agents 3
ticks 16
answer Work(1) = cycle running, success
answer Work(2) = cycle success, running, success
answer Work(3) = running
answer Work(4) = cycle running, success, failure
answer Hold = running
at 2 agent 0 set calm = true
at 5 agent 1 set calm = true
at 6 event Next
at 7 agent 0 set calm = false
at 8 event Next
at 9 agent 2 set calm = true
at 11 reset
at 12 set calm = true
at 13 event Next
"#;

/// The scenario for [`fixtures::BST_ALL`].
const BST_ALL_SCENARIO: &str = r#"
agents 2
ticks 20
at 1 event A
at 2 event C
at 3 agent 0 event B
at 4 event C
at 5 set a = false
at 6 event B
at 7 event C
at 8 agent 1 event A
at 9 set c = true
at 10 set c = false
at 11 event A
at 12 event B
at 13 event C
at 14 reset
at 15 event A
at 16 set b = false
at 17 event C
at 18 event A
"#;

fn parse(header: &str, body: &str) -> Tree {
    let src = format!("{header}{body}");
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", src.clone());
    match canonical::parse(file, &src, &Limits::default()) {
        Ok(t) => t,
        Err(d) => panic!("the tree does not parse: {}", d[0].display(&sources)),
    }
}

fn lower(tree: &Tree) -> Program {
    match btvm_compiler::lower::lower(tree, &Limits::default()) {
        Ok(p) => p,
        Err(d) => panic!("the tree does not lower: {:?} {}", d[0].kind, d[0].message),
    }
}

/// The reference's trace of `scn` on `tree`, after checking every compiled engine gives it.
fn agree(tree: &Tree, scn: &str) -> String {
    let scn = parse_scenario(FileId(1), scn).expect("the scenario parses");
    if let Err(m) = compare(tree, &scn, Contenders::ALL) {
        panic!("{m}");
    }
    scenario::run(tree, &scn, scenario::EngineKind::Reference)
        .expect("the reference runs the tree")
        .to_string()
}

#[test]
fn every_lifecycle_node_agrees_with_the_reference() {
    let trace = agree(&parse(HEADER_MBT, MBT_ALL), MBT_ALL_SCENARIO);
    // The scenario reaches what it is about.
    for needle in [
        "log \"fight\"",
        "log \"alert\"",
        "log \"stuck\"",
        "lua_0() = 1",
        "Aim(1) exit",
        "Move(to=\"cover\") exit",
        "Shoot() exit",
        "stopped",
        "reset",
        "root running",
    ] {
        assert!(
            trace.contains(needle),
            "the trace lacks `{needle}`:\n{trace}"
        );
    }
}

#[test]
fn loops_state_machines_and_scopes_agree_with_the_reference() {
    let trace = agree(&parse(HEADER_MBT, MBT_LOOPS), MBT_LOOPS_SCENARIO);
    for needle in [
        "Work(3) enter",
        "Hold() enter",
        "Hold() exit",
        "Work(4) exit",
        "stopped",
    ] {
        assert!(
            trace.contains(needle),
            "the trace lacks `{needle}`:\n{trace}"
        );
    }
}

#[test]
fn every_selection_node_agrees_with_the_reference() {
    let trace = agree(&parse(HEADER_BST, BST_ALL), BST_ALL_SCENARIO);
    for needle in [
        "select \"Both\"",
        "select \"Inner0\"",
        "select \"NotB\"",
        "select \"C0\"",
        "select \"\"",
        "select \"Deep\"",
        "root failure",
        "root success",
    ] {
        assert!(
            trace.contains(needle),
            "the trace lacks `{needle}`:\n{trace}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The API, directly

/// Records every call as a line; actions answer `hold`.
struct Log {
    lines: Vec<String>,
    hold: Status,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            lines: Vec::new(),
            hold: Status::Success,
        }
    }
}

impl Host for Log {
    fn action(&mut self, call: &Call<'_>) -> Status {
        let name = call.import.0;
        self.lines
            .push(format!("a{} {name} {}", call.agent.0, call.phase.name()));
        self.hold
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        self.lines
            .push(format!("a{} f{}", call.agent.0, call.import.0));
        Value::Bool(true)
    }

    fn log(&mut self, agent: AgentId, message: &str) {
        self.lines.push(format!("a{} log {message}", agent.0));
    }

    fn select(&mut self, agent: AgentId, behavior: &str) {
        self.lines.push(format!("a{} select {behavior:?}", agent.0));
    }
}

const MBT_SMALL: &str = r#"
import action Hold 0..0 long;
var Alive: bool = true;
var alive_too: bool = false;
signal "Hurt" Alive = false;
root main = groupscope "post" 2 {
    statemachine {
        state on "Go" -> 1 { sequence remember { waitevent "Ping" -> success log "pinged" action Hold() } }
        state { condition (!$Alive) }
    }
}
"#;

/// The engines a test runs: the vm, native code, and one engine switching every tick.
const KINDS: [(EngineKind, bool); 3] = [
    (EngineKind::Vm, false),
    (EngineKind::Native, false),
    (EngineKind::Vm, true),
];

#[test]
fn events_variables_stop_and_reset_through_the_api() {
    let p = lower(&parse(HEADER_MBT, MBT_SMALL));
    assert_eq!(p.var_index("Alive"), Some(0));
    assert_eq!(p.var_index("ALIVE"), Some(0), "any case");
    assert_eq!(p.var_index("alive_too"), Some(1));
    assert_eq!(p.var_index("dead"), None);
    let mut outcomes = Vec::new();
    for (kind, switching) in KINDS {
        let mut e = Engine::new(&p, kind);
        assert_eq!(e.kind(), kind, "{:?}", e.fallback());
        let mut host = Log {
            hold: Status::Running,
            ..Log::default()
        };
        let mut st = p.new_state();
        let tick = |e: &mut Engine, st: &mut Vec<u8>, host: &mut Log, k: i64| {
            if switching {
                e.switch(if k % 2 == 0 {
                    EngineKind::Native
                } else {
                    EngineKind::Vm
                });
            }
            e.tick(st, AgentId(0), host, k * 100).expect("tick")
        };
        assert_eq!(p.var(&st, 0), Some(true), "the default");
        assert_eq!(p.var(&st, 2), None);
        assert_eq!(tick(&mut e, &mut st, &mut host, 0), Status::Running);
        // An event that arrives while the waiter is live counts.
        e.event(&mut st, AgentId(0), &mut host, "Ping", 50)
            .expect("event");
        e.event(&mut st, AgentId(0), &mut host, "nobody", 50)
            .expect("unknown events are fine");
        assert_eq!(tick(&mut e, &mut st, &mut host, 1), Status::Running);
        assert_eq!(host.lines.last().map(String::as_str), Some("a0 0 enter"));
        // A transition: pending now, taken at the next update, which aborts Hold.
        e.event(&mut st, AgentId(0), &mut host, "Go", 150)
            .expect("event");
        p.set_var(&mut st, 0, false).expect("set");
        assert_eq!(p.var(&st, 0), Some(false));
        assert_eq!(tick(&mut e, &mut st, &mut host, 2), Status::Success);
        assert!(host.lines.contains(&"a0 0 exit".to_string()));
        assert_eq!(p.halt(&st), Some(Halt::Stopped));
        // A stopped tree runs nothing and ignores events.
        let before = host.lines.len();
        assert_eq!(tick(&mut e, &mut st, &mut host, 3), Status::Failure);
        e.event(&mut st, AgentId(0), &mut host, "Hurt", 350)
            .expect("event");
        assert_eq!(host.lines.len(), before);
        assert_eq!(p.var(&st, 0), Some(false));
        // A reset makes the agent fresh: the scope is free again.
        assert_eq!(
            e.scope_users(0, "post"),
            0,
            "the finished root left the scope"
        );
        e.reset_agent(&mut st);
        assert_eq!(p.halt(&st), None);
        assert_eq!(p.var(&st, 0), Some(true));
        assert_eq!(tick(&mut e, &mut st, &mut host, 4), Status::Running);
        assert_eq!(e.scope_users(0, "post"), 1);
        e.event(&mut st, AgentId(0), &mut host, "Hurt", 450)
            .expect("event");
        assert_eq!(p.var(&st, 0), Some(false));
        // Errors: a block of the wrong size, an unknown variable.
        let mut short = vec![0u8; p.state_size() - 1];
        assert!(e
            .event(&mut short, AgentId(0), &mut host, "Hurt", 0)
            .is_err());
        assert!(p.set_var(&mut st, 9, true).is_err());
        assert!(p.set_var(&mut short, 0, true).is_err());
        outcomes.push((host.lines, st));
    }
    assert!(
        outcomes.windows(2).all(|w| w[0] == w[1]),
        "the engines disagree: {outcomes:#?}"
    );
}

const MBT_SCOPE: &str = r#"
import action Hold 0..0 long;
import action Wait 0..0 long;
root main = selector remember {
    groupscope "gate" 2 { action Hold() }
    action Wait()
}
"#;

#[test]
fn group_scopes_are_shared_by_the_agents_of_an_engine() {
    let p = lower(&parse(HEADER_MBT, MBT_SCOPE));
    assert!(p.uses_scopes());
    for (kind, switching) in KINDS {
        let mut e = Engine::new(&p, kind);
        let mut host = Log {
            hold: Status::Running,
            ..Log::default()
        };
        let mut states: Vec<Vec<u8>> = (0..3).map(|_| p.new_state()).collect();
        for round in 0..3i64 {
            for (i, st) in states.iter_mut().enumerate() {
                if switching {
                    e.switch(if (round + i as i64) % 2 == 0 {
                        EngineKind::Native
                    } else {
                        EngineKind::Vm
                    });
                }
                e.tick(st, AgentId(i as u32), &mut host, round * 10)
                    .expect("tick");
            }
        }
        assert_eq!(e.scope_users(0, "gate"), 2, "two of three agents got in");
        let holds = |host: &Log, agent: u32| {
            host.lines
                .iter()
                .filter(|l| l.starts_with(&format!("a{agent} 0 ")))
                .count()
        };
        assert_eq!(
            (holds(&host, 0), holds(&host, 1), holds(&host, 2)),
            (3, 3, 0)
        );
        // Agent 0 is reset: it leaves the scope without an exit call; agent 2 now gets in.
        let before = host.lines.len();
        e.reset_agent(&mut states[0]);
        assert_eq!(host.lines.len(), before, "no terminate calls on reset");
        assert_eq!(e.scope_users(0, "gate"), 1);
        states[2].fill(0);
        e.tick(&mut states[2], AgentId(2), &mut host, 100)
            .expect("tick");
        assert_eq!(holds(&host, 2), 1);
        assert_eq!(e.scope_users(0, "gate"), 2);
        // The scope lives in the engine: another engine starts empty.
        assert_eq!(Engine::new(&p, kind).scope_users(0, "gate"), 0);
        assert_eq!(e.scope_users(0, "no such scope"), 0);
    }
}

#[test]
fn restart_terminates_the_live_tree_through_engine_and_batch() {
    // CRYENGINE's reset stops the tree (rootNode->Terminate) before starting it again
    // (spec/mbt.md 2.7): a running action gets its exit call and the scope is left.
    let p = lower(&parse(HEADER_MBT, MBT_SCOPE));
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut e = Engine::new(&p, kind);
        let mut host = Log {
            hold: Status::Running,
            ..Log::default()
        };
        let mut st = p.new_state();
        e.tick(&mut st, AgentId(0), &mut host, 0).expect("tick");
        assert_eq!(e.scope_users(0, "gate"), 1);
        host.lines.clear();
        e.restart_agent(&mut st, AgentId(0), &mut host, 10)
            .expect("restart");
        assert_eq!(host.lines, ["a0 0 exit"], "{kind:?}");
        assert_eq!(e.scope_users(0, "gate"), 0);
        assert_eq!(st, p.new_state(), "fresh after the restart");
        // A fresh (or stopped) tree has nothing live: no call.
        host.lines.clear();
        e.restart_agent(&mut st, AgentId(0), &mut host, 20)
            .expect("restart");
        assert!(host.lines.is_empty());

        let mut batch = Batch::with_engine(&p, 2, kind).expect("main");
        batch.tick(&mut host, 0);
        host.lines.clear();
        batch
            .restart_agent(AgentId(1), &mut host, 10)
            .expect("restart");
        assert_eq!(host.lines, ["a1 0 exit"], "{kind:?}");
        let no = batch.restart_agent(AgentId(2), &mut host, 10);
        assert_eq!(no, Err(btvm::VmError::NoAgent(2)));
    }
}

#[test]
fn a_batch_shares_scopes_and_par_tick_equals_tick() {
    let p = lower(&parse(HEADER_MBT, MBT_SCOPE));
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let run = |par: bool| {
            let mut batch = Batch::with_engine(&p, 7, kind).expect("main");
            let mut hosts: Vec<Log> = (0..3)
                .map(|_| Log {
                    hold: Status::Running,
                    ..Log::default()
                })
                .collect();
            let mut statuses = Vec::new();
            for k in 0..4i64 {
                if k == 2 {
                    batch.reset_agent(AgentId(1)).expect("alive");
                }
                let s = if par {
                    let (s, shards) = par_tick_lent(&mut batch, &mut hosts, k * 10);
                    // Every agent is in group 0: one group is one shard.
                    assert_eq!(shards, 1);
                    s
                } else {
                    // The one shard's host ticks every agent.
                    let mut out = Vec::new();
                    let chunk = batch.len();
                    let all = batch.tick(
                        &mut Chunked {
                            hosts: &mut hosts,
                            chunk,
                        },
                        k * 10,
                    );
                    out.extend_from_slice(all);
                    out
                };
                statuses.push(s);
            }
            let lines: Vec<Vec<String>> = hosts.into_iter().map(|h| h.lines).collect();
            (statuses, lines)
        };
        let (seq, seq_lines) = run(false);
        let (par, par_lines) = run(true);
        assert_eq!(seq, par);
        assert_eq!(seq_lines, par_lines);
        // Two agents hold the gate; the others wait (running) — nobody failed.
        assert!(seq[0].iter().all(|&s| s == Status::Running));
        let holding = seq_lines
            .iter()
            .flatten()
            .filter(|l| l.ends_with(" 0 enter"))
            .count();
        assert_eq!(
            holding,
            2 + 1,
            "two at first, one more after agent 1's reset"
        );
    }
}

#[test]
fn scopes_are_per_ai_group_and_par_tick_splits_a_batch_by_group() {
    let p = lower(&parse(HEADER_MBT, MBT_SCOPE));
    // 7 agents, 3 hosts (chunks of 3): by chunk (par_tick splits) and interleaved (it does not).
    let by_chunk = [10, 10, 10, 20, 20, 20, 30];
    let interleaved = [10, 20, 10, 20, 10, 20, 10];
    for groups in [by_chunk, interleaved] {
        for kind in [EngineKind::Vm, EngineKind::Native] {
            let run = |par: bool| {
                let mut batch = Batch::with_engine(&p, 7, kind).expect("main");
                for (i, &g) in groups.iter().enumerate() {
                    batch.set_group(AgentId(i as u32), g).expect("agent");
                }
                assert!(batch.set_group(AgentId(7), 1).is_err());
                let mut hosts: Vec<Log> = (0..3)
                    .map(|_| Log {
                        hold: Status::Running,
                        ..Log::default()
                    })
                    .collect();
                let mut statuses = Vec::new();
                for k in 0..4i64 {
                    if k == 2 {
                        batch.reset_agent(AgentId(1)).expect("alive");
                        let g = batch.group(AgentId(1));
                        assert_eq!(g, groups[1], "a reset keeps the group");
                    }
                    let s = if par {
                        // Three threads, one shard each: cut at agents 3 and 6 (group
                        // boundaries in both orders), run in parallel only by chunk.
                        let (s, shards) = par_tick_lent(&mut batch, &mut hosts, k * 10);
                        assert_eq!(shards, 3);
                        s
                    } else {
                        let chunk = batch.len().div_ceil(hosts.len());
                        batch
                            .tick(
                                &mut Chunked {
                                    hosts: &mut hosts,
                                    chunk,
                                },
                                k * 10,
                            )
                            .to_vec()
                    };
                    statuses.push(s);
                }
                let users: Vec<u32> = [10, 20, 30]
                    .iter()
                    .map(|&g| batch.scope_users(g, "GATE"))
                    .collect();
                let lines: Vec<Vec<String>> = hosts.into_iter().map(|h| h.lines).collect();
                (statuses, lines, users)
            };
            let seq = run(false);
            let par = run(true);
            assert_eq!(seq, par);
            // Each group admits two of its agents (the gate allows two).
            let expect = if groups == by_chunk {
                vec![2, 2, 1]
            } else {
                vec![2, 2, 0]
            };
            assert_eq!(seq.2, expect);
        }
    }
}

/// `Batch::par_tick` on a pool of one thread per host, one shard per thread, shard `k`
/// ticked by `hosts[k]`: the statuses and the number of shards.
fn par_tick_lent(batch: &mut Batch, hosts: &mut [Log], now: i64) -> (Vec<Status>, usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(hosts.len())
        .build()
        .expect("pool");
    let how = btvm::ParTick::new().pool(&pool).shards_per_thread(1);
    let mut lent = hosts.iter_mut();
    let shards = batch
        .par_tick(&how, now, |_| lent.next().expect("a host per shard"))
        .len();
    (batch.statuses().to_vec(), shards)
}

/// Hands each agent's calls to the host its chunk of a `par_tick` would use.
struct Chunked<'h> {
    hosts: &'h mut [Log],
    chunk: usize,
}

impl Chunked<'_> {
    fn host(&mut self, agent: AgentId) -> &mut Log {
        let k = (agent.0 as usize / self.chunk).min(self.hosts.len() - 1);
        &mut self.hosts[k]
    }
}

impl Host for Chunked<'_> {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.host(call.agent).action(call)
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        self.host(call.agent).function(call)
    }
    fn log(&mut self, agent: AgentId, message: &str) {
        self.host(agent).log(agent, message);
    }
    fn select(&mut self, agent: AgentId, behavior: &str) {
        self.host(agent).select(agent, behavior);
    }
}

#[test]
fn selection_through_the_api() {
    let p = lower(&parse(HEADER_BST, BST_ALL));
    let mut outcomes = Vec::new();
    for (kind, switching) in KINDS {
        let mut e = Engine::new(&p, kind);
        let mut host = Log::default();
        let mut st = p.new_state();
        let mut statuses = Vec::new();
        for k in 0..12i64 {
            if switching {
                e.switch(if k % 2 == 0 {
                    EngineKind::Native
                } else {
                    EngineKind::Vm
                });
            }
            match k % 4 {
                1 => e
                    .event(&mut st, AgentId(0), &mut host, "A", k)
                    .expect("event"),
                2 => e
                    .event(&mut st, AgentId(0), &mut host, "C", k)
                    .expect("event"),
                3 => {
                    let b = p.var_index("B").expect("b");
                    let v = p.var(&st, b).expect("b");
                    p.set_var(&mut st, b, !v).expect("set");
                }
                _ => {}
            }
            statuses.push(e.tick(&mut st, AgentId(0), &mut host, k).expect("tick"));
        }
        assert!(host.lines.iter().any(|l| l.contains("select")));
        assert_eq!(p.halt(&st), None, "selection trees never stop");
        outcomes.push((host.lines, statuses, st));
    }
    assert!(
        outcomes.windows(2).all(|w| w[0] == w[1]),
        "the engines disagree: {outcomes:#?}"
    );
}

#[test]
fn other_models_ignore_events_and_have_no_state_variables() {
    let src = "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\nvar v: bool = true;\nroot main = action a()\n";
    let mut sources = SourceMap::new();
    let file = sources.add("u.btn", src.to_string());
    let tree = canonical::parse(file, src, &Limits::default()).expect("parses");
    let p = lower(&tree);
    let mut e = Engine::new(&p, EngineKind::Vm);
    let mut st = p.new_state();
    let mut host = Log::default();
    e.event(&mut st, AgentId(0), &mut host, "anything", 0)
        .expect("events are ignored");
    assert!(host.lines.is_empty());
    assert_eq!(p.var_index("v"), Some(0), "names are known in every model");
    assert_eq!(p.var(&st, 0), None);
    assert!(p.set_var(&mut st, 0, false).is_err());
    assert!(!p.uses_scopes());
}

#[test]
fn programs_survive_the_file_format_and_disassemble() {
    for (header, body) in [
        (HEADER_MBT, MBT_ALL),
        (HEADER_BST, BST_ALL),
        (HEADER_MBT, MBT_LOOPS),
    ] {
        let p = lower(&parse(header, body));
        let back = Program::decode(&p.encode(), &Limits::default()).expect("decodes");
        assert_eq!(back.parts(), p.parts());
        let text = p.to_string();
        assert!(text.contains("event"), "{text}");
        assert!(
            text.contains("; flags @0:1, vars @1"),
            "the listing shows the layout:\n{text}"
        );
    }
}
