//! What the page must show, computed without the page: the node set and parents from the
//! library's node table, each tick's statuses and call lines from the text of
//! `btvm run --trace nodes`, each tick's active path from the library (`Program::active_path`
//! after a run of the scenario's first ticks). Never reads the page's embedded data.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::scenario::{load_scenario, run_session, EngineKind, Scenario, Session};
use btvm_compiler::source::{RealFs, SourceMap};
use btvm_compiler::syntax::profile::Profile;

use crate::common::{btvm, text};

/// One example the test opens: a tree, its scenario, its loading options.
#[derive(Clone, Debug)]
pub struct Case {
    /// A short name for messages and file names.
    pub name: &'static str,
    /// The tree file.
    pub tree: String,
    /// The scenario file.
    pub scenario: Option<String>,
    /// A built-in profile (`--profile`).
    pub profile: Option<&'static str>,
    /// The agent whose timeline the page shows (`--agent`).
    pub agent: u32,
}

impl Case {
    /// The loading options as `btvm` arguments.
    pub fn load_args(&self) -> Vec<String> {
        match self.profile {
            Some(p) => vec!["--profile".into(), p.into()],
            None => Vec::new(),
        }
    }
}

/// What one tick must show for the agent shown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tick {
    /// The tick number of the trace header.
    pub tick: u32,
    /// Node ids on the active path after the tick.
    pub active: BTreeSet<u32>,
    /// Each node that finished during the tick: the status of its last finish.
    pub status: BTreeMap<u32, String>,
    /// The tick's other lines, without their leading spaces.
    pub calls: Vec<String>,
}

/// What the page must show for a case.
#[derive(Clone, Debug)]
pub struct Expected {
    /// Each node's parent in the node table (its index is the node id).
    pub parents: Vec<Option<u32>>,
    /// Each node's kind.
    pub kinds: Vec<String>,
    /// Each node's `FILE:LINE` (the file's name only), where the table knows it.
    pub places: Vec<Option<String>>,
    /// One entry per tick of the scenario (empty without one).
    pub ticks: Vec<Tick>,
}

impl Expected {
    /// Every node id of the tree.
    pub fn nodes(&self) -> BTreeSet<u32> {
        (0..self.parents.len() as u32).collect()
    }

    /// The ids below `node` in the node table (not `node` itself).
    pub fn descendants(&self, node: u32) -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        for (i, _) in self.parents.iter().enumerate() {
            let mut p = self.parents[i];
            while let Some(up) = p {
                if up == node {
                    out.insert(i as u32);
                    break;
                }
                p = self.parents.get(up as usize).copied().flatten();
            }
        }
        out
    }
}

/// Computes what `case` must show, for its agent.
pub fn expected(case: &Case) -> Expected {
    expected_first(case, u32::MAX)
}

/// [`expected`] for the first `n` ticks only (the active path after tick `k` takes a run of
/// `k + 1` ticks).
pub fn expected_first(case: &Case, n: u32) -> Expected {
    let (tree, program, mut expected) = load_case(case);
    if let Some(scn) = &case.scenario {
        let mut ticks = trace_ticks(case, scn);
        let scenario = scenario(scn);
        assert_eq!(ticks.len(), scenario.ticks as usize, "{}", case.name);
        ticks.truncate(n as usize);
        for (k, t) in ticks.iter_mut().enumerate() {
            t.active = active_after(&tree, &program, &scenario, k as u32, case.agent);
        }
        expected.ticks = ticks;
    }
    expected
}

/// The tree part of [`expected`] only (no ticks: a long scenario's active paths take a run
/// per tick).
pub fn tree_only(case: &Case) -> Expected {
    load_case(case).2
}

/// Loads and lowers the case's tree; its node table's parents and kinds.
fn load_case(case: &Case) -> (btvm_compiler::ir::Tree, btvm::Program, Expected) {
    let options = LoadOptions {
        profile: case
            .profile
            .map(|p| Profile::builtin(p).expect("a built-in profile")),
        ..LoadOptions::default()
    };
    let mut sources = SourceMap::new();
    let tree =
        load(Path::new(&case.tree), &RealFs, &options, &mut sources).expect("the example loads");
    let limits = btvm::Limits::default();
    let program = btvm_compiler::lower::lower_with_sources(&tree, &limits, &sources)
        .expect("the example lowers");
    let table = program.nodes();
    let place = |n: &btvm::program::NodeInfo| {
        let file = table.files.get(n.file? as usize)?;
        let name = Path::new(file).file_name()?.to_string_lossy();
        (n.line > 0).then(|| format!("{name}:{}", n.line))
    };
    let expected = Expected {
        parents: table.nodes.iter().map(|n| n.parent).collect(),
        kinds: table.nodes.iter().map(|n| n.kind.clone()).collect(),
        places: table.nodes.iter().map(place).collect(),
        ticks: Vec::new(),
    };
    (tree, program, expected)
}

/// The scenario file at `path`.
pub fn scenario(path: &str) -> Scenario {
    let bytes = std::fs::read(path).expect("the scenario reads");
    let mut sources = SourceMap::new();
    load_scenario(
        Path::new(path),
        bytes,
        &mut sources,
        &btvm::Limits::default(),
    )
    .expect("the scenario parses")
}

/// `agent`'s active path after tick `k`: its state after a run of ticks `0..=k` on the vm.
fn active_after(
    tree: &btvm_compiler::ir::Tree,
    program: &btvm::Program,
    scenario: &Scenario,
    k: u32,
    agent: u32,
) -> BTreeSet<u32> {
    let mut prefix = scenario.clone();
    prefix.ticks = k + 1;
    prefix.trace_nodes = false;
    let outcome =
        run_session(tree, &prefix, EngineKind::Vm, &Session::default()).expect("the scenario runs");
    let state = outcome
        .states
        .get(agent as usize)
        .expect("the agent has a state");
    program.active_path(state).iter().map(|n| n.index).collect()
}

/// The ticks of `btvm run --trace nodes` (plain `btvm run` where the model has no node
/// traces yet: no statuses then), the case's agent's part of each.
fn trace_ticks(case: &Case, scn: &str) -> Vec<Tick> {
    let mut args = vec!["run", case.tree.as_str(), "--scenario", scn];
    let load = case.load_args();
    args.extend(load.iter().map(String::as_str));
    let mut traced = args.clone();
    traced.extend(["--trace", "nodes"]);
    let run = btvm(&traced);
    let out = if run.status.success() {
        run
    } else {
        let err = text(&run.stderr);
        assert!(err.contains("not implemented"), "{}: {err}", case.name);
        btvm(&args)
    };
    assert!(out.status.success(), "{}: {}", case.name, text(&out.stderr));
    parse_trace(&text(&out.stdout), case.agent)
}

/// Splits a trace into ticks and keeps `agent`'s part of each.
pub fn parse_trace(trace: &str, agent: u32) -> Vec<Tick> {
    let mut ticks = Vec::new();
    let mut mine = false;
    for line in trace.lines() {
        if let Some(header) = line.strip_prefix("tick ") {
            let mut words = header.split(' ');
            let tick: u32 = words.next().and_then(|w| w.parse().ok()).expect("tick K");
            let of = match header.split(" agent ").nth(1) {
                Some(a) => a.parse().expect("agent A"),
                None => 0,
            };
            mine = of == agent;
            if mine {
                ticks.push(Tick {
                    tick,
                    ..Tick::default()
                });
            }
            continue;
        }
        let Some(t) = ticks.last_mut().filter(|_| mine) else {
            continue;
        };
        let line = line.trim_start();
        match node_event(line) {
            Some((id, Some(status))) => {
                t.status.insert(id, status.to_string());
            }
            Some((_, None)) => {}
            None => t.calls.push(line.to_string()),
        }
    }
    ticks
}

/// `node N KIND enter` is `(N, None)`, `node N KIND -> STATUS` is `(N, Some(STATUS))`.
fn node_event(line: &str) -> Option<(u32, Option<&str>)> {
    let rest = line.strip_prefix("node ")?;
    let (id, rest) = rest.split_once(' ')?;
    let id = id.parse().ok()?;
    if rest.ends_with(" enter") {
        return Some((id, None));
    }
    let (_, status) = rest.rsplit_once(" -> ")?;
    Some((id, Some(status)))
}

#[test]
fn a_trace_splits_into_agent_ticks() {
    let trace =
        "tick 0 now 5 agent 0\n  node 0 sequence enter\n  f() = 1\n  node 1 action enter\n  \
                 a() enter -> running\n  node 1 action -> running\n  node 0 sequence -> running\n  \
                 node 0 sequence enter\n  node 0 sequence -> failure\n  root failure\n\
                 tick 0 now 5 agent 1\n  g() = 2\n  root success\n\
                 tick 1 now 6 agent 0\n  node(1) = 3\n  root success\n";
    let ticks = parse_trace(trace, 0);
    assert_eq!(ticks.len(), 2);
    assert_eq!(ticks[0].tick, 0);
    assert_eq!(
        ticks[0].status,
        BTreeMap::from([(0, "failure".into()), (1, "running".into())])
    );
    assert_eq!(
        ticks[0].calls,
        ["f() = 1", "a() enter -> running", "root failure"]
    );
    assert_eq!(ticks[1].calls, ["node(1) = 3", "root success"]);
    assert!(ticks[1].status.is_empty());
    assert_eq!(parse_trace(trace, 1)[0].calls, ["g() = 2", "root success"]);
}
