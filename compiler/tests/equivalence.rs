//! Equivalence of the reference interpreter, the bytecode VM and native code on the
//! running-list (Unvanquished), cursor (Drag[en]gine), decider (Spore), lifecycle (MBT) and
//! selection (BST) models: for generated trees and generated scenarios, every engine
//! must accept or reject the tree alike (same `ErrorKind`) and, when they run it, produce
//! identical traces (`spec/semantics.md`, 1: "Two engines are equivalent when their traces are
//! identical"). Besides the vm and native code, each case also runs on the two taking turns on
//! the same state blocks (`vm+native`, a different engine at every call) and on native code
//! compiled as for large programs with tiny chunks (`native/chunked`: every function split into
//! many native functions, so chunk drivers and entry dispatch are exercised, and the
//! running-list bookkeeping called out of line).
//!
//! - Cases come from the library's `btvm_testkit::gen::running_list_case`, which proptest
//!   draws through `btvm_testkit::strategies::running_list_case` (and `gen::cursor_case` and
//!   `gen::decider_case` likewise; `decider_generator_reaches_every_feature` lists what the
//!   decider cases cover).
//! - Trees (`gen::running_list_tree`): every node kind and knob the model supports
//!   (sequence/selector with `restart` and `running-list` resume, parallel with every quorum pair
//!   and `stop-on-failure` on and off, every-tick guard, condition, invert, map, cooldown from 0 ms
//!   up, include, action with 0–3 arguments, const), shared and per-site subtrees included from
//!   several sites and from each other, several entries, bodies up to ~15 deep and composites up to
//!   ~330 wide, every expression form (all operators, `!`, `-`, literals of every type with
//!   NaN/infinite floats and `i64` extremes, variables, calls with arguments, `@random`, `@bound`),
//!   capacities from 0 to `u32::MAX` (1–3 most often, so the list fills up), single and double
//!   precision.
//! - Scenarios (`gen::scenario_spec`, written out by `gen::ScenarioSpec::render` and parsed with
//!   `parse_scenario`): 20–40 ticks, times advancing by random steps (sometimes by 0, rarely
//!   backwards or by a huge jump), 1–3 agents, every answer form (constant, sequence, `cycle`, `@K`
//!   schedule; per agent and per argument list), function answers of every value type (strings
//!   mostly the tree's own), default answers, and `at K entry NAME` lines (the running-list model
//!   has no events).
//! - `generators_reach_every_feature` checks that the generators keep reaching all of that.
//! - Lifecycle (MBT) and selection (BST) cases (`gen::lifecycle_case`, `gen::selection_case`):
//!   every node kind and knob of `spec/mbt.md` / `spec/bst.md` section 3, boolean variables,
//!   signal bindings, timestamps, and scenarios with events, variable sets and resets;
//!   `lifecycle_generator_reaches_every_feature` and `selection_generator_reaches_every_feature`
//!   list what they cover.
//! - Node-level traces (`spec/semantics.md` 4.7): every model is also run
//!   with `trace nodes` on a quarter as many cases; the node events must agree on every engine
//!   and nest (`btvm_testkit::nodes`), and without them the trace must be the untraced one.
//!   `generated_trees_run_traced` and `generated_decider_trees_run_traced` check that most
//!   generated trees do run traced.
//! - `default_bot_runs_alike` runs the game's real `default.bt` (if the external corpus is
//!   present) for 300 ticks × 3 agents.
//!
//! [`DEFAULT_CASES`] cases keep a debug run around 25 s on two cores. For a long run (about
//! 100,000 cases in two minutes):
//!
//! ```text
//! BTVM_EQUIV_CASES=100000 cargo test --release -p btvm-compiler --test equivalence
//! ```
//!
//! A failure prints the shrunk tree in canonical syntax, the scenario and both traces. Failing
//! cases are saved next to this file, in `equivalence.proptest-regressions`, and replayed first
//! on every later run.

use std::collections::BTreeSet;
use std::path::Path;

use btvm::AgentId;
use btvm_compiler::ir::{Expr, Lit, Model, NodeKind, Tree};
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::reference::Interpreter;
use btvm_compiler::scenario::{parse_scenario, run, EngineKind, Scenario, ScriptedHost};
use btvm_compiler::source::{FileId, RealFs, SourceMap};
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::{Contender, Contenders};
use btvm_testkit::nodes::{check_nesting, without_node_lines, Nesting};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence, TestRunner};

use btvm_testkit::strategies::{self as gen, RlConfig};

/// Cases per run unless `BTVM_EQUIV_CASES` (or else `PROPTEST_CASES`) says otherwise.
const DEFAULT_CASES: u32 = 2048;

fn config() -> ProptestConfig {
    let mut c = ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    };
    match std::env::var("BTVM_EQUIV_CASES") {
        Ok(n) => c.cases = n.trim().parse().expect("BTVM_EQUIV_CASES must be a number"),
        Err(_) if std::env::var_os("PROPTEST_CASES").is_none() => c.cases = DEFAULT_CASES,
        Err(_) => {}
    }
    // Shrinking a failure in a 300-child composite takes minutes in a debug build; stop after
    // five (the best case so far is reported) unless `PROPTEST_MAX_SHRINK_TIME` says otherwise.
    if std::env::var_os("PROPTEST_MAX_SHRINK_TIME").is_none() {
        c.max_shrink_time = 300_000;
    }
    c
}

/// A running-list tree and a scenario for it (as text).
fn case() -> impl Strategy<Value = (Tree, String)> {
    gen::running_list_case(RlConfig::default())
}

// ---- comparing the engines ---------------------------------------------------------------

/// Runs every engine (the vm, native code, the two taking turns, chunked native code) against
/// the reference with the test kit's differential check; `Err` describes the first difference,
/// with the tree in canonical syntax and the scenario.
fn compare(tree: &Tree, scn: &Scenario, text: &str) -> Result<(), String> {
    btvm_testkit::compare::compare(tree, scn, Contenders::ALL).map_err(|m| {
        format!(
            "{m}\n--- tree (canonical syntax) ---\n{}\n--- scenario ---\n{text}",
            canonical::print(tree)
        )
    })
}

/// A decider-model (Spore) tree and a scenario for it, with decision flags and stimuli.
fn decider_case() -> impl Strategy<Value = (Tree, String)> {
    gen::decider_case(RlConfig::default())
}

/// A cursor-model (Drag[en]gine) tree and a scenario for it, with resets and imports the host
/// lacks (`missing`).
fn cursor_case() -> impl Strategy<Value = (Tree, String)> {
    gen::cursor_case(RlConfig::default())
}

/// A lifecycle-model (MBT) tree and a scenario for it, with events, variable sets and resets.
fn lifecycle_case() -> impl Strategy<Value = (Tree, String)> {
    gen::from_bytes(gen::MAX_BYTES, |u| {
        btvm_testkit::gen::lifecycle_case(u, &RlConfig::default()).map(|c| (c.tree, c.scenario))
    })
}

/// A selection-model (BST) tree and a scenario for it, with events, variable sets and resets.
fn selection_case() -> impl Strategy<Value = (Tree, String)> {
    gen::from_bytes(gen::MAX_BYTES, |u| {
        btvm_testkit::gen::selection_case(u, &RlConfig::default()).map(|c| (c.tree, c.scenario))
    })
}

proptest! {
    #![proptest_config(config())]

    /// The same for the lifecycle (MBT) model: every node kind and knob, events between ticks
    /// and sent during them, variable sets, group scopes contended by several agents, resets.
    #[test]
    fn every_engine_gives_the_reference_trace_on_lifecycle_trees((tree, text) in lifecycle_case()) {
        let scn = parse_scenario(FileId(0), &text).map_err(|d| {
            TestCaseError::fail(format!("generated scenario does not parse: {d:?}\n{text}"))
        })?;
        compare(&tree, &scn, &text).map_err(TestCaseError::fail)?;
    }

    /// The same for the selection (BST) model: priorities, forward-only sequences, state
    /// machines, signals and variable sets.
    #[test]
    fn every_engine_gives_the_reference_trace_on_selection_trees((tree, text) in selection_case()) {
        let scn = parse_scenario(FileId(0), &text).map_err(|d| {
            TestCaseError::fail(format!("generated scenario does not parse: {d:?}\n{text}"))
        })?;
        compare(&tree, &scn, &text).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn every_engine_gives_the_reference_trace((tree, text) in case()) {
        let scn = parse_scenario(FileId(0), &text).map_err(|d| {
            TestCaseError::fail(format!("generated scenario does not parse: {d:?}\n{text}"))
        })?;
        compare(&tree, &scn, &text).map_err(TestCaseError::fail)?;
    }

    /// The same for the decider (Spore) model: every policy, precondition and flag, shared
    /// deciders, behaviors lacking functions, decision flags and stimuli given between ticks,
    /// redecide limits low enough that the loop guard trips.
    #[test]
    fn every_engine_gives_the_reference_trace_on_decider_trees((tree, text) in decider_case()) {
        let scn = parse_scenario(FileId(0), &text).map_err(|d| {
            TestCaseError::fail(format!("generated scenario does not parse: {d:?}\n{text}"))
        })?;
        compare(&tree, &scn, &text).map_err(TestCaseError::fail)?;
    }

    /// The same for the cursor model: reference, vm, native, the two taking turns and chunked
    /// native code (whose chunk drivers loop, since moves go back to earlier rules).
    #[test]
    fn every_engine_gives_the_reference_trace_on_cursor_trees((tree, text) in cursor_case()) {
        let scn = parse_scenario(FileId(0), &text).map_err(|d| {
            TestCaseError::fail(format!("generated scenario does not parse: {d:?}\n{text}"))
        })?;
        compare(&tree, &scn, &text).map_err(TestCaseError::fail)?;
    }
}

/// A quarter of [`config`]'s cases: the traced runs repeat the running-list property's work.
fn traced_config() -> ProptestConfig {
    let c = config();
    ProptestConfig {
        cases: (c.cases / 4).max(1),
        ..c
    }
}

proptest! {
    #![proptest_config(traced_config())]

    /// Node-level traces (`spec/semantics.md` 4.7) of running-list trees: every engine gives
    /// the reference's trace with every node entered and finished; the events nest, and
    /// without them the trace is the untraced run's (tracing changes nothing else).
    #[test]
    fn every_engine_gives_the_reference_node_trace((tree, text) in case()) {
        traced(&tree, &text)?;
    }

    /// The same for cursor-model (Drag[en]gine) trees, whose list rules stay open across steps.
    #[test]
    fn every_engine_gives_the_reference_node_trace_on_cursor_trees((tree, text) in cursor_case()) {
        traced(&tree, &text)?;
    }

    /// The same for lifecycle-model (MBT) trees: events, variable sets, group scopes, resets.
    #[test]
    fn every_engine_gives_the_reference_node_trace_on_lifecycle_trees((tree, text) in lifecycle_case()) {
        traced(&tree, &text)?;
    }

    /// The same for selection-model (BST) trees: priorities, sequences, state machines.
    #[test]
    fn every_engine_gives_the_reference_node_trace_on_selection_trees((tree, text) in selection_case()) {
        traced(&tree, &text)?;
    }

    /// The same for decider-model (Spore) trees: Decides, activations, visits, switches,
    /// redecides, root failures and the loop guard's exits.
    #[test]
    fn every_engine_gives_the_reference_node_trace_on_decider_trees((tree, text) in decider_case()) {
        traced(&tree, &text)?;
    }
}

/// The traced properties' check for one generated case.
fn traced(tree: &Tree, text: &str) -> Result<(), TestCaseError> {
    let mut scn = parse_scenario(FileId(0), text).map_err(|d| {
        TestCaseError::fail(format!("generated scenario does not parse: {d:?}\n{text}"))
    })?;
    let plain = run(tree, &scn, EngineKind::Reference);
    scn.trace_nodes = true;
    compare(tree, &scn, text).map_err(TestCaseError::fail)?;
    if let (Ok(plain), Ok(traced)) = (plain, run(tree, &scn, EngineKind::Reference)) {
        check_nesting(&traced, Nesting::of(tree)).map_err(TestCaseError::fail)?;
        prop_assert_eq!(without_node_lines(&traced), plain);
    }
    Ok(())
}

/// The traced properties are not vacuous: most generated running-list and cursor trees run
/// traced (a traced program is larger, so a few may be refused for a size limit on every engine alike), and
/// their traces hold node events of every status.
#[test]
fn generated_trees_run_traced() {
    let mut runner = TestRunner::deterministic();
    let (running_list, cursor) = (case(), cursor_case());
    let (mut ran, mut statuses) = (0, BTreeSet::new());
    for i in 0..100 {
        let (tree, text) = if i % 2 == 0 {
            running_list.new_tree(&mut runner).unwrap().current()
        } else {
            cursor.new_tree(&mut runner).unwrap().current()
        };
        let mut scn = parse_scenario(FileId(0), &text).unwrap();
        scn.trace_nodes = true;
        if let Ok(t) = run(&tree, &scn, EngineKind::Reference) {
            ran += 1;
            for l in t.lines().iter().filter(|l| l.starts_with("node ")) {
                statuses.insert(l.rsplit(' ').next().unwrap_or_default().to_string());
            }
        }
    }
    assert!(ran >= 80, "only {ran} of 100 generated trees ran traced");
    let want = ["enter", "success", "failure", "running"];
    assert!(
        want.iter().all(|w| statuses.contains(*w)),
        "node events seen: {statuses:?}"
    );
}

/// The decider model's traced property is not vacuous: generated decider trees run traced, with
/// node events of every status, and some of them trip the loop guard (whose exits finish the
/// open deciders: the events still nest).
#[test]
fn generated_decider_trees_run_traced() {
    let mut runner = TestRunner::deterministic();
    let strategy = decider_case();
    let (mut ran, mut guarded, mut statuses) = (0, 0, BTreeSet::new());
    for _ in 0..100 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        let mut scn = parse_scenario(FileId(0), &text).unwrap();
        scn.trace_nodes = true;
        if let Ok(t) = run(&tree, &scn, EngineKind::Reference) {
            ran += 1;
            check_nesting(&t, Nesting::of(&tree)).unwrap();
            let lines = t.lines();
            guarded += usize::from(lines.iter().any(|l| l.starts_with("error redecide")));
            for l in lines.iter().filter(|l| l.starts_with("node ")) {
                statuses.insert(l.rsplit(' ').next().unwrap_or_default().to_string());
            }
        }
    }
    assert!(
        ran >= 80,
        "only {ran} of 100 generated decider trees ran traced"
    );
    assert!(
        guarded > 0,
        "no generated decider tree tripped the loop guard"
    );
    let want = ["enter", "success", "failure", "running"];
    assert!(
        want.iter().all(|w| statuses.contains(*w)),
        "node events seen: {statuses:?}"
    );
}

/// The generators reach what the property is meant to cover (so a change that narrows them
/// does not silently weaken it).
#[test]
fn generators_reach_every_feature() {
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    let mut seen = BTreeSet::new();
    for _ in 0..400 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        seen.extend(btvm_testkit::features::features(&tree));
        seen.extend(extra_features(&tree, &text));
        seen.extend(run_features(&tree, &text));
    }
    let mut want: Vec<String> = [
        "node:sequence",
        "node:selector",
        "node:parallel",
        "node:guard",
        "node:condition",
        "node:invert",
        "node:map",
        "node:cooldown",
        "node:include",
        "node:action",
        "resume:restart",
        "resume:running-list",
        "parallel:stop:true",
        "parallel:stop:false",
        "guard:every-tick",
        "subtree:shared",
        "subtree:per-site",
        "roots:several",
        "precision:Single",
        "precision:Double",
        "var:Bool",
        "var:Int",
        "var:Float",
        "expr:var",
        "expr:call",
        "expr:bound:action",
        "expr:bound:function",
        "expr:random",
        "expr:not",
        "expr:neg",
        "arg:named",
        "lit:bool:true",
        "lit:bool:false",
        "lit:int:negative",
        "lit:int:min",
        "lit:int:max",
        "lit:float:nan",
        "lit:float:inf",
        "lit:float:-inf",
        "lit:str",
        "import:long",
        "x:var-string-default",
        "x:nested-include",
        "x:include-sites>=2",
        "x:call-args:1",
        "x:call-args:2",
        "x:call-args:3",
        "x:action-args:0",
        "x:action-args:1",
        "x:action-args:2",
        "x:action-args:3",
        "x:cooldown:0",
        "x:cooldown:long",
        "x:capacity:0",
        "x:capacity:1",
        "x:capacity:2",
        "x:capacity:3",
        "x:capacity:20",
        "x:depth>=8",
        "x:children>=8",
        "x:children>=256",
        "x:actions>=256",
        "x:scn:agents:3",
        "x:scn:cycle",
        "x:scn:schedule",
        "x:scn:sequence",
        "x:scn:agent-rule",
        "x:scn:args-rule",
        "x:scn:entry",
        "x:scn:string-answer",
        "x:scn:float-answer",
        "x:scn:bool-answer",
        "x:scn:inf-answer",
        "x:run:list-full",
        "x:run:continue",
        "x:run:entry",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for s in ["success", "failure", "running"] {
        want.push(format!("const:{s}"));
        for k in ["failure", "success", "running"] {
            want.push(format!("map:{k}:{s}"));
        }
    }
    for q in ["all", "any"] {
        want.push(format!("parallel:success:{q}"));
        want.push(format!("parallel:failure:{q}"));
    }
    for op in btvm::BinOp::ALL {
        want.push(format!("binop:{}", op.symbol()));
    }
    let missing: Vec<&String> = want.iter().filter(|w| !seen.contains(*w)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// Features `btvm_testkit::features::features` does not name: shapes of includes, sizes, capacities and
/// scenario forms.
fn extra_features(tree: &Tree, text: &str) -> BTreeSet<String> {
    let mut f = BTreeSet::new();
    if let Model::RunningList { capacity } = tree.config.model {
        f.insert(format!("x:capacity:{capacity}"));
    }
    if tree.vars.iter().any(|v| matches!(v.default, Lit::Str(_))) {
        f.insert("x:var-string-default".into());
    }
    let mut sites = vec![0usize; tree.subtrees.len()];
    let sub_start = tree.subtrees.first().map_or(usize::MAX, |s| s.node.index());
    for (i, n) in tree.nodes.iter().enumerate() {
        match &n.kind {
            NodeKind::Include(s) => {
                sites[s.0 as usize] += 1;
                if i >= sub_start {
                    f.insert("x:nested-include".into());
                }
            }
            NodeKind::Action(c) => {
                f.insert(format!("x:action-args:{}", c.args.len()));
            }
            NodeKind::Cooldown(c) if c.ms == 0 => {
                f.insert("x:cooldown:0".into());
            }
            NodeKind::Cooldown(c) if c.ms >= 600 => {
                f.insert("x:cooldown:long".into());
            }
            _ => {}
        }
        if n.children.len() >= 8 {
            f.insert("x:children>=8".into());
        }
        if n.children.len() >= 256 {
            f.insert("x:children>=256".into());
        }
        for e in n.kind.exprs() {
            e.walk(|x| {
                if let Expr::Call(c) = x {
                    f.insert(format!("x:call-args:{}", c.args.len()));
                }
            });
        }
    }
    if tree
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Action(_)))
        .count()
        >= 256
    {
        f.insert("x:actions>=256".into());
    }
    if sites.iter().any(|&n| n >= 2) {
        f.insert("x:include-sites>=2".into());
    }
    // Depth of each body (not following includes).
    let mut stack: Vec<(usize, usize)> = tree
        .roots
        .iter()
        .map(|e| e.node)
        .chain(tree.subtrees.iter().map(|s| s.node))
        .map(|n| (n.index(), 1))
        .collect();
    while let Some((n, d)) = stack.pop() {
        if d >= 8 {
            f.insert("x:depth>=8".into());
        }
        stack.extend(tree.nodes[n].children.iter().map(|c| (c.index(), d + 1)));
    }
    for l in text.lines() {
        let checks = [
            ("agents 3", "x:scn:agents:3"),
            ("= cycle", "x:scn:cycle"),
            ("= @", "x:scn:schedule"),
            (" agent ", "x:scn:agent-rule"),
            (") ", "x:scn:args-rule"),
            (" entry ", "x:scn:entry"),
            ("1e400", "x:scn:inf-answer"),
        ];
        for (needle, feature) in checks {
            if l.contains(needle) {
                f.insert(feature.into());
            }
        }
        if let Some(rhs) = l.strip_prefix("answer ").and_then(|r| r.rsplit_once(" = ")) {
            let rhs = rhs.1;
            if !rhs.starts_with('@') && !rhs.starts_with("cycle") && rhs.contains(", ") {
                f.insert("x:scn:sequence".into());
            }
            if rhs.contains('"') {
                f.insert("x:scn:string-answer".into());
            }
            if rhs.contains("true") || rhs.contains("false") {
                f.insert("x:scn:bool-answer".into());
            }
            if rhs
                .split([',', ' '])
                .any(|v| v.contains('.') && v.parse::<f64>().is_ok())
            {
                f.insert("x:scn:float-answer".into());
            }
        }
    }
    f
}

/// What happens when the reference interpreter runs the case: the running list fills up,
/// actions continue, entries run.
fn run_features(tree: &Tree, text: &str) -> BTreeSet<String> {
    let mut f = BTreeSet::new();
    let scn = parse_scenario(FileId(0), text).expect("generated scenarios parse");
    let Model::RunningList { capacity } = tree.config.model else {
        return f;
    };
    let interp = Interpreter::new(tree).expect("generated trees run");
    let mut host = ScriptedHost::new(&scn, &tree.imports);
    let mut agents: Vec<_> = (0..scn.agents)
        .map(|a| interp.new_agent(AgentId(a)))
        .collect();
    for k in 0..scn.ticks {
        host.set_tick(k);
        for state in &mut agents {
            for entry in scn.entries.get(&k).into_iter().flatten() {
                interp.run_entry(entry, state, &mut host, scn.now(k));
                f.insert("x:run:entry".into());
            }
            interp.tick(state, &mut host, scn.now(k));
            if capacity > 0 && state.running_nodes().len() as u64 >= u64::from(capacity) {
                f.insert("x:run:list-full".into());
            }
        }
    }
    if host
        .trace()
        .lines()
        .iter()
        .any(|l| l.contains(" continue -> "))
    {
        f.insert("x:run:continue".into());
    }
    f
}

// ---- the real default bot ----------------------------------------------------------------

/// The game's `default.bt` (external corpus) under `spec/scenarios/default-bot.scn`, cut to 300
/// ticks and 3 agents: both engines give the same trace.
#[test]
fn default_bot_runs_alike() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/unvanquished/default.bt");
    if !path.is_file() {
        eprintln!("skipped: external corpus not found at {}", path.display());
        return;
    }
    let mut sources = SourceMap::new();
    let tree = load(&path, &RealFs, &LoadOptions::default(), &mut sources)
        .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    let scn_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/scenarios/default-bot.scn");
    let text = std::fs::read_to_string(&scn_path).unwrap();
    let file = sources.add(scn_path, text.clone());
    let mut scn = parse_scenario(file, &text).unwrap();
    scn.ticks = 300;
    scn.agents = 3;
    let reference = run(&tree, &scn, EngineKind::Reference).unwrap();
    let roots = reference
        .lines()
        .iter()
        .filter(|l| l.starts_with("root "))
        .count();
    assert_eq!(roots, 900, "one root status per agent per tick");
    assert!(
        reference.lines().iter().any(|l| l.contains(" enter -> ")),
        "the bots call actions"
    );
    for engine in &Contender::ALL[1..] {
        let trace = engine.run(&tree, &scn).unwrap();
        if let Some(diff) = reference.diff(&trace) {
            panic!(
                "engines disagree on default.bt (reference vs {}):\n{diff}",
                engine.name()
            );
        }
        assert_eq!(reference.to_string(), trace.to_string());
    }
    if let Err(m) = btvm_testkit::compare::compare(&tree, &scn, Contenders::ALL) {
        panic!("engines disagree on default.bt: {}", m.what);
    }
}

/// The cursor generator reaches what its property is meant to cover: every rule kind, loops
/// and `when` conditions, and traces with run-aways, stopped trees, resets, missing imports
/// and continuing actions.
#[test]
fn cursor_generator_reaches_every_feature() {
    let mut runner = TestRunner::deterministic();
    let strategy = cursor_case();
    let mut seen = BTreeSet::new();
    for _ in 0..300 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        seen.extend(btvm_testkit::features::features(&tree));
        for n in &tree.nodes {
            if let NodeKind::Sequence(c) | NodeKind::Selector(c) = &n.kind {
                if c.looping {
                    seen.insert("x:loop".to_string());
                }
                if c.cond.is_some() {
                    seen.insert("x:when".to_string());
                }
            }
            if n.name.is_some() {
                seen.insert("x:rule-id".to_string());
            }
        }
        let scn = parse_scenario(FileId(0), &text).expect("generated scenarios parse");
        let trace = run(&tree, &scn, EngineKind::Reference).expect("cursor trees run");
        for l in trace.lines() {
            for (key, pat) in [
                ("t:run-away", "error run-away"),
                ("t:stopped", "stopped"),
                ("t:reset", "reset"),
                ("t:continue", " continue -> "),
                ("t:enter", " enter -> "),
                ("t:running", "root running"),
                ("t:success", "root success"),
            ] {
                if l.contains(pat) {
                    seen.insert(key.to_string());
                }
            }
        }
        if text.contains("\nmissing ") {
            seen.insert("x:missing".to_string());
        }
    }
    for want in [
        "node:sequence",
        "node:selector",
        "node:guard",
        "node:condition",
        "node:invert",
        "node:map",
        "node:action",
        "node:const",
        "node:yield",
        "resume:cursor",
        "expr:bound:action",
        "x:loop",
        "x:when",
        "x:rule-id",
        "x:missing",
        "t:run-away",
        "t:stopped",
        "t:reset",
        "t:continue",
        "t:enter",
        "t:running",
        "t:success",
    ] {
        assert!(
            seen.contains(want),
            "the cursor generator never produced {want}"
        );
    }
}

/// The decider generator reaches what its property is meant to cover: every policy, every
/// precondition, Decide expressions, the `redecide` flag, group behaviors, behaviors lacking
/// functions, shared deciders, flags and stimuli in scenarios, and traces with activations,
/// ticks, deactivations, root failures and the loop guard.
#[test]
fn decider_generator_reaches_every_feature() {
    use btvm_compiler::ir::Policy;
    let mut runner = TestRunner::deterministic();
    let strategy = decider_case();
    let mut seen = BTreeSet::new();
    for _ in 0..300 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        for n in &tree.nodes {
            match &n.kind {
                NodeKind::Group(g) => {
                    seen.insert(format!("policy:{:?}", g.policy));
                    if g.behavior.is_some() {
                        seen.insert("x:group-behavior".into());
                    }
                    if g.policy == Policy::Prioritized && n.children.len() > 2 {
                        seen.insert("x:wide-prioritized".into());
                    }
                }
                NodeKind::Decider(d) => {
                    for (key, on) in [
                        ("pre:every", d.pre.every_ms.is_some()),
                        ("pre:decision", d.pre.decision.is_some()),
                        ("pre:stimuli", d.pre.stimuli.is_some()),
                        ("x:decide", d.decide.is_some()),
                        ("x:redecide", d.decide_on_redecide),
                    ] {
                        if on {
                            seen.insert(key.into());
                        }
                    }
                }
                NodeKind::Behavior(b) if !(b.activate && b.tick && b.deactivate) => {
                    seen.insert("x:partial-behavior".into());
                }
                NodeKind::Include(_) => {
                    seen.insert("x:shared".into());
                }
                _ => {}
            }
        }
        for (key, pat) in [("s:flags", " flags "), ("s:stimulus", " stimulus ")] {
            if text.contains(pat) {
                seen.insert(key.into());
            }
        }
        let scn = parse_scenario(FileId(0), &text).expect("generated scenarios parse");
        let trace = run(&tree, &scn, EngineKind::Reference).expect("decider trees run");
        for l in trace.lines() {
            for (key, pat) in [
                ("t:guard", "error redecide limit"),
                ("t:enter", " enter -> "),
                ("t:continue", " continue -> "),
                ("t:exit", " exit -> "),
                ("t:running", "root running"),
                ("t:failure", "root failure"),
                ("t:decide", ") = "),
            ] {
                if l.contains(pat) {
                    seen.insert(key.to_string());
                }
            }
        }
    }
    for want in [
        "policy:Prioritized",
        "policy:Sequential",
        "policy:Random",
        "policy:Scored",
        "x:group-behavior",
        "x:wide-prioritized",
        "pre:every",
        "pre:decision",
        "pre:stimuli",
        "x:decide",
        "x:redecide",
        "x:partial-behavior",
        "x:shared",
        "s:flags",
        "s:stimulus",
        "t:guard",
        "t:enter",
        "t:continue",
        "t:exit",
        "t:running",
        "t:failure",
        "t:decide",
    ] {
        assert!(
            seen.contains(want),
            "the decider generator never produced {want}"
        );
    }
}

/// Trace-line features of a reference run, by substring.
fn trace_features(tree: &Tree, text: &str, pats: &[(&str, &str)], seen: &mut BTreeSet<String>) {
    let scn = parse_scenario(FileId(0), text).expect("generated scenarios parse");
    let trace = run(tree, &scn, EngineKind::Reference).expect("generated trees run");
    for l in trace.lines() {
        for (key, pat) in pats {
            if l.contains(pat) {
                seen.insert(key.to_string());
            }
        }
    }
}

/// The lifecycle generator reaches what its property is meant to cover: every node kind and
/// knob of `spec/mbt.md` section 3, timestamps and signals, events and sets in scenarios, and
/// traces with enter/continue/exit calls, logs, stopped trees and resets.
#[test]
fn lifecycle_generator_reaches_every_feature() {
    use btvm_compiler::ir::{Expr, GuardEval};
    let mut runner = TestRunner::deterministic();
    let strategy = lifecycle_case();
    let mut seen = BTreeSet::new();
    for _ in 0..400 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        seen.extend(btvm_testkit::features::features(&tree));
        for n in &tree.nodes {
            match &n.kind {
                NodeKind::Loop(l) => {
                    seen.insert(format!(
                        "loop:{:?}:{}",
                        l.count.map(|c| c.min(1)),
                        l.exit_on
                    ));
                }
                NodeKind::Wait(w) if w.time < 0 => {
                    seen.insert("x:wait-negative".into());
                }
                NodeKind::Wait(w) if w.variation > 0 => {
                    seen.insert("x:wait-variation".into());
                }
                NodeKind::Hooks(h) => {
                    for c in [&h.enter, &h.exit].into_iter().flatten() {
                        let kind = tree.imports[c.import.index()].kind;
                        seen.insert(format!("hooks:{}", kind.name()));
                    }
                }
                NodeKind::SendEvent(e) => {
                    seen.insert(format!("send:{}", e.then));
                }
                NodeKind::State(s) if s.transitions.len() > 1 => {
                    seen.insert("x:transitions>1".into());
                }
                NodeKind::Guard(g) if g.eval == GuardEval::OnEntry => {
                    if matches!(&g.cond, Expr::Binary(_, a, _) if matches!(**a, Expr::Random)) {
                        seen.insert("x:random-gate".into());
                    }
                }
                _ => {}
            }
            for e in n.kind.exprs() {
                e.walk(|x| {
                    if let Expr::Timestamp(_, q) = x {
                        seen.insert(format!("ts:{q:?}"));
                    }
                });
            }
        }
        if tree.timestamps.iter().any(|t| t.exclusive_to.is_some()) {
            seen.insert("x:exclusive".into());
        }
        if !tree.signals.is_empty() {
            seen.insert("x:signal".into());
        }
        for (key, pat) in [
            ("s:event", " event "),
            ("s:set", " set "),
            ("s:reset", " reset"),
        ] {
            if text.contains(pat) {
                seen.insert(key.into());
            }
        }
        trace_features(
            &tree,
            &text,
            &[
                ("t:enter", " enter -> "),
                ("t:continue", " continue -> "),
                ("t:exit", " exit -> "),
                ("t:log", "log \""),
                ("t:stopped", "stopped"),
                ("t:running", "root running"),
                ("t:success", "root success"),
                ("t:failure", "root failure"),
            ],
            &mut seen,
        );
    }
    let mut want: Vec<String> = [
        "node:sequence",
        "node:selector",
        "node:parallel",
        "node:loop",
        "node:priority",
        "node:case",
        "node:statemachine",
        "node:state",
        "node:guard",
        "node:map",
        "node:groupscope",
        "node:hooks",
        "node:logstatus",
        "node:action",
        "node:condition",
        "node:const",
        "node:wait",
        "node:waituntil",
        "node:send",
        "node:waitevent",
        "node:log",
        "resume:remember",
        "guard:on-entry",
        "arg:named",
        "expr:var",
        "expr:call",
        "expr:random",
        "ts:EverSet",
        "ts:Valid",
        "ts:Elapsed",
        "hooks:action",
        "hooks:function",
        "send:success",
        "send:running",
        "x:wait-negative",
        "x:wait-variation",
        "x:transitions>1",
        "x:random-gate",
        "x:exclusive",
        "x:signal",
        "s:event",
        "s:set",
        "s:reset",
        "t:enter",
        "t:continue",
        "t:exit",
        "t:log",
        "t:stopped",
        "t:running",
        "t:success",
        "t:failure",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for c in ["None", "Some(0)", "Some(1)"] {
        for x in ["failure", "success"] {
            want.push(format!("loop:{c}:{x}"));
        }
    }
    for q in ["all", "any"] {
        want.push(format!("parallel:success:{q}"));
        want.push(format!("parallel:failure:{q}"));
    }
    let missing: Vec<&String> = want.iter().filter(|w| !seen.contains(*w)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// The selection generator reaches what its property is meant to cover: every node kind of
/// `spec/bst.md` section 3, signals, events and sets in scenarios, and traces with selections,
/// the empty selection and both root statuses.
#[test]
fn selection_generator_reaches_every_feature() {
    let mut runner = TestRunner::deterministic();
    let strategy = selection_case();
    let mut seen = BTreeSet::new();
    for _ in 0..300 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        seen.extend(btvm_testkit::features::features(&tree));
        if !tree.signals.is_empty() {
            seen.insert("x:signal".into());
        }
        if tree.roots.len() > 1 {
            seen.insert("x:roots".into());
        }
        for (key, pat) in [
            ("s:event", " event "),
            ("s:set", " set "),
            ("s:reset", " reset"),
        ] {
            if text.contains(pat) {
                seen.insert(key.into());
            }
        }
        trace_features(
            &tree,
            &text,
            &[
                ("t:select", "select \""),
                ("t:select-none", "select \"\""),
                ("t:success", "root success"),
                ("t:failure", "root failure"),
            ],
            &mut seen,
        );
    }
    for want in [
        "node:select",
        "node:priority",
        "node:case",
        "node:sequence",
        "node:statemachine",
        "node:state",
        "expr:var",
        "x:signal",
        "x:roots",
        "s:event",
        "s:set",
        "s:reset",
        "t:select",
        "t:select-none",
        "t:success",
        "t:failure",
    ] {
        assert!(
            seen.contains(want),
            "the selection generator never produced {want}"
        );
    }
}
