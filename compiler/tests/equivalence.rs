//! Equivalence of the reference interpreter, the bytecode VM and native code on the
//! running-list (Unvanquished) model: for generated trees and generated scenarios, every engine
//! must accept or reject the tree alike (same `ErrorKind`) and, when they run it, produce
//! identical traces (`spec/semantics.md`, 1: "Two engines are equivalent when their traces are
//! identical"). Besides the vm and native code, each case also runs on the two taking turns on
//! the same state blocks (`vm+native`, a different engine at every call) and on native code
//! compiled as for large programs with tiny chunks (`native/chunked`: every function split into
//! many native functions, so chunk drivers and entry dispatch are exercised, and the
//! running-list bookkeeping called out of line).
//!
//! - Trees come from `support::gen::running_list_tree`: every node kind and knob the model
//!   supports (sequence/selector with `restart` and `running-list` resume, parallel with every
//!   quorum pair and `stop-on-failure` on and off, every-tick guard, condition, invert, map,
//!   cooldown from 0 ms up, include, action with 0–3 arguments, const), shared and per-site
//!   subtrees included from several sites and from each other, several entries, bodies up to
//!   ~15 deep and composites up to ~330 wide, every expression form (all operators, `!`, `-`,
//!   literals of every type with NaN/infinite floats and `i64` extremes, variables, calls with
//!   arguments, `@random`, `@bound`), capacities from 0 to `u32::MAX` (1–3 most often, so the
//!   list fills up), single and double precision.
//! - Scenarios (`scenario_spec`, written out by `render` and parsed with `parse_scenario`): 20–40
//!   ticks, times advancing by random steps (sometimes by 0, rarely backwards or by a huge
//!   jump), 1–3 agents, every answer form (constant, sequence, `cycle`, `@K` schedule; per
//!   agent and per argument list), function answers of every value type (strings mostly the
//!   tree's own), default answers, and `at K entry NAME` lines. The scenario format has no
//!   events (and the running-list model none either), so there are none here.
//! - `generators_reach_every_feature` checks that the generators keep reaching all of that.
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
//! A failure prints the shrunk tree in native syntax, the scenario and both traces. Failing
//! cases are saved next to this file, in `equivalence.proptest-regressions`, and replayed first
//! on every later run.

mod support;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use btvm::native::{NativeCode, NativeConfig};
use btvm::{AgentId, ImportKind};
use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::{Expr, Lit, Model, NodeKind, Tree};
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::reference::Interpreter;
use btvm_compiler::scenario::{
    parse_scenario, run, run_engines, EngineKind, Scenario, ScriptedHost, Trace,
};
use btvm_compiler::source::{FileId, RealFs, SourceMap};
use btvm_compiler::syntax::native;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence, TestRunner};

use support::gen::{self, RlConfig};

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

// ---- scenarios ---------------------------------------------------------------------------
//
// A scenario is drawn as a `ScenarioSpec`, independently of the tree (so proptest shrinks the
// two independently), and written out as text against the tree by `render`: imports, entries
// and strings are referred to by index, modulo what the tree has.

/// Most ticks a generated scenario runs (schedules and entries refer to ticks below it).
const MAX_TICKS: u32 = 40;

/// Imports a generated tree has at most (rules beyond the tree's imports are dropped).
fn max_imports() -> usize {
    let c = RlConfig::default();
    c.max_actions + c.max_functions
}

/// `s` as a scenario string literal.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A literal as scenario text, or `None` if the format cannot write it (NaN).
fn lit_text(l: &Lit) -> Option<String> {
    Some(match l {
        Lit::Bool(b) => b.to_string(),
        Lit::Int(i) => i.to_string(),
        Lit::Float(x) if x.is_nan() => return None,
        // The scenario lexer reads an overflowing exponent as an infinity.
        Lit::Float(x) if x.is_infinite() => (if *x > 0.0 { "1e400" } else { "-1e400" }).into(),
        // `Debug` always writes a `.` or an exponent, so the lexer reads a float back.
        Lit::Float(x) => format!("{x:?}"),
        Lit::Str(s) => quote(s),
    })
}

/// A value for a function (or an argument list): text, or the tree's `k`-th string.
#[derive(Clone, Debug)]
enum FnVal {
    Text(String),
    TreeString(usize),
}

/// One value of an answer: what it is when the import is an action, and when a function.
#[derive(Clone, Debug)]
struct Val {
    action: String,
    function: FnVal,
}

#[derive(Clone, Debug)]
enum AnswerSpec {
    Const(Val),
    Seq(Vec<Val>),
    Cycle(Vec<Val>),
    /// (tick, with a `:` after it, value)
    Schedule(Vec<(u32, bool, Val)>),
}

#[derive(Clone, Debug)]
enum ArgsSpec {
    /// The `k`-th all-literal argument list the tree calls the import with.
    Seen(usize),
    Given(Vec<FnVal>),
}

#[derive(Clone, Debug)]
struct RuleSpec {
    args: Option<ArgsSpec>,
    agent: Option<u32>,
    answer: AnswerSpec,
}

#[derive(Clone, Debug)]
struct ScenarioSpec {
    agents: u32,
    ticks: u32,
    start: i64,
    step: i64,
    /// Time steps written as `at K now T` lines; `None`: the `time` rule alone.
    dts: Option<Vec<i64>>,
    default_action: Option<String>,
    default_function: Option<FnVal>,
    /// Rules per import index.
    rules: Vec<Vec<RuleSpec>>,
    /// (tick, entry index)
    entries: Vec<(u32, usize)>,
}

/// Integers as scenario text: decimal (extremes included) or hexadecimal.
fn int_text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => gen::int().prop_map(|i| i.to_string()),
        1 => (0i64..0x1000).prop_map(|i| format!("0x{i:x}")),
        1 => (1i64..0x100).prop_map(|i| format!("-0X{i:X}")),
    ]
    .boxed()
}

/// Floats as scenario text: ordinary and extreme values, `-0.0`, infinities.
fn float_text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => gen::float().prop_map(|x| lit_text(&Lit::Float(x)).unwrap_or_else(|| "0.5".into())),
        1 => select(&["1e400", "-1e400", "-0.0", "0.5", "1e-7", "3.4028235e38", "1e39"][..])
            .prop_map(str::to_string),
    ]
    .boxed()
}

fn status_text() -> BoxedStrategy<String> {
    gen::status().prop_map(|s| s.to_string()).boxed()
}

/// A literal of any type; strings mostly the tree's own.
fn literal_value() -> BoxedStrategy<FnVal> {
    prop_oneof![
        3 => int_text().prop_map(FnVal::Text),
        1 => (-3i64..4).prop_map(|i| FnVal::Text(i.to_string())),
        3 => float_text().prop_map(FnVal::Text),
        2 => any::<bool>().prop_map(|b| FnVal::Text(b.to_string())),
        2 => any::<usize>().prop_map(FnVal::TreeString),
        1 => gen::rl_string().prop_map(|s| FnVal::Text(quote(&s))),
    ]
    .boxed()
}

/// A function's answer: a literal, or now and then a status (answered as its number).
fn function_value() -> BoxedStrategy<FnVal> {
    prop_oneof![
        12 => literal_value(),
        1 => status_text().prop_map(FnVal::Text),
    ]
    .boxed()
}

/// An action's answer: mostly a status, sometimes a number (0–2 is a status, others failure).
fn action_value() -> BoxedStrategy<String> {
    prop_oneof![
        12 => status_text(),
        1 => (0i64..3).prop_map(|i| i.to_string()),
        1 => int_text(),
    ]
    .boxed()
}

fn val() -> BoxedStrategy<Val> {
    (action_value(), function_value())
        .prop_map(|(action, function)| Val { action, function })
        .boxed()
}

/// An answer in any of the four forms.
fn answer() -> BoxedStrategy<AnswerSpec> {
    prop_oneof![
        2 => val().prop_map(AnswerSpec::Const),
        2 => vec(val(), 2..6).prop_map(AnswerSpec::Seq),
        3 => vec(val(), 1..6).prop_map(AnswerSpec::Cycle),
        2 => vec((0..MAX_TICKS, any::<bool>(), val()), 1..5).prop_map(AnswerSpec::Schedule),
    ]
    .boxed()
}

/// A rule, now and then only for an argument list (one the tree uses, or any) or an agent.
fn rule() -> BoxedStrategy<RuleSpec> {
    let args = prop_oneof![
        3 => any::<usize>().prop_map(ArgsSpec::Seen),
        1 => vec(literal_value(), 0..3).prop_map(ArgsSpec::Given),
    ];
    (
        option::weighted(0.25, args),
        option::weighted(0.25, 0u32..4),
        answer(),
    )
        .prop_map(|(args, agent, answer)| RuleSpec {
            args,
            agent,
            answer,
        })
        .boxed()
}

/// Time steps between ticks: mostly forward by a few to a few hundred ms, sometimes not at
/// all, rarely backwards or by a huge jump.
fn dt() -> BoxedStrategy<i64> {
    prop_oneof![
        40 => Just(0i64),
        120 => 1i64..50,
        160 => 50i64..400,
        60 => 400i64..3000,
        5 => -100i64..0,
        1 => Just(i64::MAX / 4),
    ]
    .boxed()
}

fn scenario_spec() -> BoxedStrategy<ScenarioSpec> {
    let rules = vec(vec(rule(), 0..=3), max_imports());
    (
        (1u32..=3, 20u32..=MAX_TICKS),
        (
            -1000i64..1000,
            0i64..300,
            option::weighted(0.8, vec(dt(), MAX_TICKS as usize)),
        ),
        (
            option::weighted(0.7, status_text()),
            option::weighted(0.7, literal_value()),
        ),
        rules,
        vec((0..MAX_TICKS, any::<usize>()), 0..6),
    )
        .prop_map(
            |(
                (agents, ticks),
                (start, step, dts),
                (default_action, default_function),
                rules,
                entries,
            )| {
                ScenarioSpec {
                    agents,
                    ticks,
                    start,
                    step,
                    dts,
                    default_action,
                    default_function,
                    rules,
                    entries,
                }
            },
        )
        .boxed()
}

/// What a scenario needs to know about the tree.
struct TreeFacts {
    /// (name, kind, literal argument lists seen at its call sites).
    imports: Vec<(String, ImportKind, Vec<String>)>,
    /// Entry names.
    entries: Vec<String>,
    /// String literals and string variable defaults.
    strings: Vec<String>,
}

fn facts(tree: &Tree) -> TreeFacts {
    let mut args: Vec<BTreeSet<String>> = vec![BTreeSet::new(); tree.imports.len()];
    let mut record = |import: btvm::ImportId, a: &[btvm_compiler::ir::Arg]| {
        let lits: Option<Vec<String>> = a
            .iter()
            .map(|a| match &a.value {
                Expr::Lit(l) => lit_text(l),
                _ => None,
            })
            .collect();
        if let (Some(l), Some(set)) = (lits, args.get_mut(import.index())) {
            set.insert(l.join(", "));
        }
    };
    let mut strings = BTreeSet::new();
    for n in &tree.nodes {
        if let NodeKind::Action(c) = &n.kind {
            record(c.import, &c.args);
        }
        for e in n.kind.exprs() {
            e.walk(|x| match x {
                Expr::Call(c) => record(c.import, &c.args),
                Expr::Lit(Lit::Str(s)) => {
                    strings.insert(s.clone());
                }
                _ => {}
            });
        }
    }
    for v in &tree.vars {
        if let Lit::Str(s) = &v.default {
            strings.insert(s.clone());
        }
    }
    TreeFacts {
        imports: tree
            .imports
            .iter()
            .zip(args)
            .map(|(i, a)| (i.name.clone(), i.kind, a.into_iter().collect()))
            .collect(),
        entries: tree.roots.iter().map(|e| e.name.clone()).collect(),
        strings: strings.into_iter().collect(),
    }
}

/// Writes `spec` as scenario text for `tree`.
fn render(tree: &Tree, spec: &ScenarioSpec) -> String {
    let f = facts(tree);
    let fn_val = |v: &FnVal| match v {
        FnVal::Text(t) => t.clone(),
        FnVal::TreeString(k) if f.strings.is_empty() => {
            quote(gen::RL_STRINGS[k % gen::RL_STRINGS.len()])
        }
        FnVal::TreeString(k) => quote(&f.strings[k % f.strings.len()]),
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# generated\nagents {}\nticks {}",
        spec.agents, spec.ticks
    );
    let _ = writeln!(s, "time {} {}", spec.start, spec.step);
    if let Some(dts) = &spec.dts {
        let mut now = spec.start;
        for (k, d) in dts.iter().enumerate().take(spec.ticks as usize).skip(1) {
            now = now.saturating_add(*d);
            let _ = writeln!(s, "at {k} now {now}");
        }
    }
    if let Some(a) = &spec.default_action {
        let _ = writeln!(s, "default action {a}");
    }
    if let Some(v) = &spec.default_function {
        let _ = writeln!(s, "default function {}", fn_val(v));
    }
    for (rules, (name, kind, seen)) in spec.rules.iter().zip(&f.imports) {
        let value = |v: &Val| match kind {
            ImportKind::Action => v.action.clone(),
            ImportKind::Function => fn_val(&v.function),
        };
        for r in rules {
            let mut line = format!("answer {}", quote(name));
            match &r.args {
                Some(ArgsSpec::Seen(k)) if !seen.is_empty() => {
                    let _ = write!(line, "({})", seen[k % seen.len()]);
                }
                Some(ArgsSpec::Given(vs)) => {
                    let vs: Vec<String> = vs.iter().map(fn_val).collect();
                    let _ = write!(line, "({})", vs.join(", "));
                }
                _ => {}
            }
            if let Some(a) = r.agent {
                let _ = write!(line, " agent {a}");
            }
            let answer = match &r.answer {
                AnswerSpec::Const(v) => value(v),
                AnswerSpec::Seq(vs) => vs.iter().map(value).collect::<Vec<_>>().join(", "),
                AnswerSpec::Cycle(vs) => {
                    format!(
                        "cycle {}",
                        vs.iter().map(value).collect::<Vec<_>>().join(", ")
                    )
                }
                AnswerSpec::Schedule(es) => es
                    .iter()
                    .map(|(k, colon, v)| {
                        format!("@{k}{} {}", if *colon { ":" } else { "" }, value(v))
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let _ = writeln!(s, "{line} = {answer}");
        }
    }
    for (k, e) in &spec.entries {
        let _ = writeln!(s, "at {k} entry {}", quote(&f.entries[e % f.entries.len()]));
    }
    s
}

/// A tree and a scenario for it (as text).
fn case() -> impl Strategy<Value = (Tree, String)> {
    (gen::running_list_tree(RlConfig::default()), scenario_spec()).prop_map(|(tree, spec)| {
        let text = render(&tree, &spec);
        (tree, text)
    })
}

// ---- comparing the engines ---------------------------------------------------------------

fn report(tree: &Tree, scenario: &str, what: &str, reference: &str, vm: &str) -> String {
    format!(
        "{what}\n--- tree (native syntax) ---\n{}\n--- scenario ---\n{scenario}\n\
         --- reference ---\n{reference}\n--- other engine ---\n{vm}",
        native::print(tree)
    )
}

fn outcome(r: &Result<Trace, Diagnostic>) -> String {
    match r {
        Ok(t) => t.to_string(),
        Err(d) => format!("error {:?}: {}", d.kind, d.message),
    }
}

/// Native code compiled with chunks of at most three instructions and the running-list
/// bookkeeping out of line (as for large programs), run through `scn`.
fn run_chunked(tree: &Tree, scn: &Scenario) -> Result<Trace, Diagnostic> {
    let program = btvm_compiler::lower::lower(tree, &btvm::Limits::default())
        .map_err(|mut d| d.swap_remove(0))?;
    let config = NativeConfig {
        max_chunk: 3,
        inline_below: 0,
        ..NativeConfig::default()
    };
    let code = NativeCode::compile(&program, &config).expect("native code compiles");
    let engine = btvm::Engine::with_native(&program, &code).expect("compiled from this program");
    Ok(run_engines(tree, &program, scn, vec![engine]))
}

/// Runs every engine (the vm, native code, the two taking turns, chunked native code) against
/// the reference; `Err` describes the first difference.
fn compare(tree: &Tree, scn: &Scenario, text: &str) -> Result<(), String> {
    let r = run(tree, scn, EngineKind::Reference);
    let chunked = run_chunked(tree, scn);
    let r_ok = r.as_ref().map(Trace::to_string).ok();
    if let (Some(a), Ok(b)) = (&r_ok, &chunked) {
        if *a != b.to_string() {
            let what = format!(
                "reference vs native/chunked: {}",
                r.as_ref()
                    .map(|t| t.diff(b).unwrap_or_default())
                    .unwrap_or_default()
            );
            return Err(report(tree, text, &what, &outcome(&r), &outcome(&chunked)));
        }
    } else if r_ok.is_some() != chunked.is_ok() {
        return Err(report(
            tree,
            text,
            "the engines disagree on whether the tree runs (native/chunked)",
            &outcome(&r),
            &outcome(&chunked),
        ));
    }
    for engine in [EngineKind::Vm, EngineKind::Native, EngineKind::Switching] {
        let v = run(tree, scn, engine);
        let what = match (&r, &v) {
            (Ok(a), Ok(b)) if a.to_string() == b.to_string() => continue,
            (Ok(a), Ok(b)) => a.diff(b).unwrap_or_default(),
            (Err(a), Err(b)) if a.kind == b.kind => continue,
            _ => "the engines disagree on whether the tree runs".to_string(),
        };
        let what = format!("reference vs {}: {what}", engine.name());
        return Err(report(tree, text, &what, &outcome(&r), &outcome(&v)));
    }
    Ok(())
}

/// A cursor-model (Drag[en]gine) tree and a scenario for it, with resets and imports the host
/// lacks (`missing`).
fn cursor_case() -> impl Strategy<Value = (Tree, String)> {
    (
        gen::cursor_tree(RlConfig::default()),
        scenario_spec(),
        vec(0..MAX_TICKS, 0..3),
        vec(any::<usize>(), 0..3),
    )
        .prop_map(|(tree, spec, resets, missing)| {
            let mut text = render(&tree, &spec);
            for k in resets {
                let _ = writeln!(text, "at {k} reset");
            }
            for m in missing {
                let name = &tree.imports[m % tree.imports.len()].name;
                let _ = writeln!(text, "missing {}", quote(name));
            }
            (tree, text)
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_engine_gives_the_reference_trace((tree, text) in case()) {
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

/// The generators reach what the property is meant to cover (so a change that narrows them
/// does not silently weaken it).
#[test]
fn generators_reach_every_feature() {
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    let mut seen = BTreeSet::new();
    for _ in 0..400 {
        let (tree, text) = strategy.new_tree(&mut runner).unwrap().current();
        seen.extend(support::features(&tree));
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

/// Features `support::features` does not name: shapes of includes, sizes, capacities and
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
    for engine in [EngineKind::Vm, EngineKind::Native, EngineKind::Switching] {
        let trace = run(&tree, &scn, engine).unwrap();
        if let Some(diff) = reference.diff(&trace) {
            panic!(
                "engines disagree on default.bt (reference vs {}):\n{diff}",
                engine.name()
            );
        }
        assert_eq!(reference.to_string(), trace.to_string());
    }
    let chunked = run_chunked(&tree, &scn).unwrap();
    if let Some(diff) = reference.diff(&chunked) {
        panic!("engines disagree on default.bt (reference vs native/chunked):\n{diff}");
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
        seen.extend(support::features(&tree));
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
