//! `Program::active_path` on every model: a tree and a scenario, run for a chosen number of
//! ticks, and the path the tree must be running then (derived by reading the tree and the
//! scenario; each case says why). The path is the same whichever engine made the state bytes
//! (the vm, native code), and for Spore it names the deciders the decider view names.

use std::path::{Path, PathBuf};

use btvm::Limits;
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::lower::lower_with_sources;
use btvm_compiler::scenario::{load_scenario, run_session, EngineKind, Scenario, Session};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};

fn spec(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// Where a case's tree and scenario come from.
enum Src {
    /// Files under the repository (`spec/examples/...`).
    Files(&'static str, &'static str),
    /// A tree written here (file name gives the format) and its scenario.
    Text(&'static str, &'static str, &'static str),
}

struct Case {
    name: &'static str,
    src: Src,
    /// After how many ticks, and the path then: `*` marks a node the state names itself,
    /// each entry `kind` or `kind name`.
    checks: &'static [(u32, &'static [&'static str])],
}

/// The MBT case `spec/cases/mbt/01-sequence-memory.case`'s tree (GameSDK nodes as `btvm fmt
/// --profile gamesdk` prints them).
const MBT_TREE: &str = r#"btvm 1;
dialect mbt;
model lifecycle;
root-finish stop;
abort terminate;
precision double;
clock 100;

import action Stance 0..255 long;
import action Move 0..255 long;
import action Shoot 0..255 long;

root main = sequence remember {
    action Stance(stance = "Crouch")
    action Move(to = "Cover", speed = "Run")
    action Shoot(target = "Enemy")
}
"#;
const MBT_SCN: &str =
    "ticks 5\nanswer Move = running, running, success\nanswer Shoot = running, success\n";

/// The BST case `spec/cases/bst/05-statemachine-memory.case`'s tree.
const BST_TREE: &str = r#"<SelectionTrees>
    <SelectionTree name="Guard" type="BehaviorSelectionTree">
        <Variables>
            <Variable name="Noise"/>
            <Variable name="Calm"/>
        </Variables>
        <StateMachine name="Watch">
            <State name="Patrol">
                <Transition state="Alert" condition="Noise"/>
                <Leaf name="Patrolling"/>
            </State>
            <State name="Alert">
                <Transition state="Patrol" condition="Calm"/>
                <Leaf name="Searching"/>
            </State>
        </StateMachine>
    </SelectionTree>
</SelectionTrees>
"#;
const BST_SCN: &str =
    "ticks 7\nat 1 set Noise = true\nat 2 set Noise = false\nat 3 set Calm = true\n";

const CASES: &[Case] = &[
    Case {
        // guard.bt: ticks 0-1 no enemy, distanceTo 800 > 500: the guarded moveTo runs (the
        // root selector, the guard and the action returned running: all listed). From tick 2
        // the distance is 450: roamInRadius runs. An enemy from tick 3 at full health: the
        // cooldown's health check fails, fight runs under sequence > selector. At tick 9
        // heal runs below the cooldown and its guard (the trace's `heal() enter`).
        name: "unvanquished guard",
        src: Src::Files("spec/examples/guard.bt", "spec/examples/guard.scn"),
        checks: &[
            (2, &["*selector", "*guard", "*action moveTo"]),
            (3, &["*selector", "*action roamInRadius"]),
            (5, &["*selector", "*sequence", "*selector", "*action fight"]),
            (
                10,
                &[
                    "*selector",
                    "*sequence",
                    "*selector",
                    "*cooldown",
                    "*guard",
                    "*action heal",
                ],
            ),
        ],
    },
    Case {
        // wanderer.debt: the enemy is near from tick 12, so the flee sequence's conditions
        // hold and the cursor rests on `.run` (move.to away runs until tick 14); then on the
        // running rule `.hide` while the enemy is near (until tick 17).
        name: "dragengine wanderer",
        src: Src::Files(
            "spec/examples/wanderer/wanderer.debt",
            "spec/examples/wanderer/wanderer.scn",
        ),
        checks: &[
            (
                13,
                &[
                    "selector wanderer",
                    "sequence wanderer.flee",
                    "*guard wanderer.flee.run",
                    "*action move.to",
                ],
            ),
            (
                16,
                &[
                    "selector wanderer",
                    "sequence wanderer.flee",
                    "*guard wanderer.flee.hide",
                ],
            ),
        ],
    },
    Case {
        // The Sequence remembers its running child: after tick 1 Move runs (entered at tick 0,
        // continued at 1); after tick 3 Shoot ran to success, the root finished, nothing is
        // live. The Sequence's record keeps only its index (no live flag), so it is on the
        // path as Move's parent, not named by the state itself.
        name: "mbt sequence memory",
        src: Src::Text("t.btn", MBT_TREE, MBT_SCN),
        checks: &[(2, &["sequence", "*action Move"]), (4, &[])],
    },
    Case {
        // The state machine starts in Patrol (leaf Patrolling); Noise at tick 1 moves it to
        // Alert (Searching); it stays there at tick 2; Calm at tick 3 takes it back.
        name: "bst state machine",
        src: Src::Text("t.xml", BST_TREE, BST_SCN),
        checks: &[
            (
                1,
                &["statemachine Watch", "state Patrol", "*select Patrolling"],
            ),
            (
                3,
                &["statemachine Watch", "state Alert", "*select Searching"],
            ),
            (
                4,
                &["statemachine Watch", "state Patrol", "*select Patrolling"],
            ),
        ],
    },
];

fn load_case(src: &Src) -> (btvm_compiler::ir::Tree, Scenario, SourceMap) {
    let mut sources = SourceMap::new();
    let limits = Limits::default();
    let (tree, scn) = match src {
        Src::Files(tree, scn) => {
            let t = load(&spec(tree), &RealFs, &LoadOptions::default(), &mut sources)
                .unwrap_or_else(|d| panic!("{tree}: {}", d[0].message));
            let bytes = std::fs::read(spec(scn)).expect("the scenario is readable");
            (t, load_scenario(&spec(scn), bytes, &mut sources, &limits))
        }
        Src::Text(name, tree, scn) => {
            let mut fs = MemFs::new();
            fs.insert(*name, tree.as_bytes());
            let t = load(Path::new(name), &fs, &LoadOptions::default(), &mut sources)
                .unwrap_or_else(|d| panic!("{name}: {}", d[0].message));
            let s = load_scenario(
                Path::new("t.scn"),
                scn.as_bytes().to_vec(),
                &mut sources,
                &limits,
            );
            (t, s)
        }
    };
    let scn = scn.unwrap_or_else(|d| panic!("scenario: {}", d[0].message));
    (tree, scn, sources)
}

/// The path as the cases write it.
fn written(program: &btvm::Program, state: &[u8]) -> Vec<String> {
    program
        .active_path(state)
        .iter()
        .map(|n| {
            let mark = if n.direct { "*" } else { "" };
            match &n.info.name {
                Some(name) => format!("{mark}{} {name}", n.info.kind),
                None => format!("{mark}{}", n.info.kind),
            }
        })
        .collect()
}

/// Each agent's state after `ticks` ticks on `engine`.
fn states_after(
    tree: &btvm_compiler::ir::Tree,
    scn: &Scenario,
    ticks: u32,
    engine: EngineKind,
) -> Vec<Vec<u8>> {
    let mut s = scn.clone();
    s.ticks = ticks;
    run_session(tree, &s, engine, &Session::default())
        .unwrap_or_else(|d| panic!("run: {}", d.message))
        .states
}

fn engines() -> Vec<EngineKind> {
    let mut e = vec![EngineKind::Vm];
    if cfg!(feature = "jit") {
        e.push(EngineKind::Native);
    }
    e
}

#[test]
fn the_active_path_is_what_the_tree_is_running() {
    for case in CASES {
        let (tree, scn, sources) = load_case(&case.src);
        let program = lower_with_sources(&tree, &Limits::default(), &sources)
            .unwrap_or_else(|d| panic!("{}: {}", case.name, d[0].message));
        for &(ticks, want) in case.checks {
            for engine in engines() {
                let states = states_after(&tree, &scn, ticks, engine);
                let got = written(&program, &states[0]);
                assert_eq!(got, want, "{} after {ticks} ticks on {engine:?}", case.name);
            }
        }
    }
}

#[test]
fn every_node_has_a_position_and_a_distinct_key() {
    for case in CASES {
        let (tree, _, sources) = load_case(&case.src);
        let program = lower_with_sources(&tree, &Limits::default(), &sources).unwrap();
        let t = program.nodes();
        assert_eq!(t.nodes.len(), tree.nodes.len(), "{}", case.name);
        for n in &t.nodes {
            assert!(
                n.file.is_some() && n.line > 0 && n.column > 0,
                "{}: {n:?}",
                case.name
            );
        }
        let mut keys: Vec<_> = t.nodes.iter().map(|n| &n.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), t.nodes.len(), "{}", case.name);
    }
}

/// Spore: the deciders on the active path are the ones the decider view names (root first),
/// on the reference as on the compiled engines, after every tick of figure 1's scenario.
#[test]
fn spore_active_path_matches_the_decider_view() {
    let (tree, scn, sources) = load_case(&Src::Files(
        "spec/examples/figure1.spore",
        "spec/examples/figure1.scn",
    ));
    let program = lower_with_sources(&tree, &Limits::default(), &sources).unwrap();
    let mut seen_nested = false;
    for ticks in 1..=scn.ticks {
        let mut s = scn.clone();
        s.ticks = ticks;
        let reference = run_session(&tree, &s, EngineKind::Reference, &Session::default()).unwrap();
        for engine in engines() {
            let out = run_session(&tree, &s, engine, &Session::default()).unwrap();
            let state = &out.states[0];
            // The view the reference keeps and the one the compiled state gives agree.
            assert_eq!(out.deciders, reference.deciders, "after {ticks} ticks");
            let from_view: Vec<String> =
                btvm_compiler::debug::dump_state(&tree, &reference.deciders[0], 0)
                    .lines()
                    .filter_map(|l| l.trim_start().strip_prefix('*'))
                    .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
                    .collect();
            let mut from_path: Vec<String> = Vec::new();
            for n in program.active_path(state) {
                let name = n.info.name.clone().unwrap_or_default();
                if n.direct && n.info.kind == "decider" && from_path.last() != Some(&name) {
                    from_path.push(name);
                }
            }
            seen_nested |= from_path.len() > 2;
            assert_eq!(from_path, from_view, "after {ticks} ticks on {engine:?}");
        }
    }
    assert!(seen_nested, "the scenario reaches a nested decider");
}

#[test]
fn program_files_round_trip_the_node_table() {
    for case in CASES {
        let (tree, _, sources) = load_case(&case.src);
        let limits = Limits::default();
        let with = lower_with_sources(&tree, &limits, &sources).unwrap();
        let back = btvm::Program::decode(&with.encode(), &limits).unwrap();
        assert_eq!(back.nodes(), with.nodes(), "{}", case.name);
        assert!(!back.nodes().is_empty());
        // Positions are not part of the program's identity.
        let without = btvm_compiler::lower::lower(&tree, &limits).unwrap();
        assert_eq!(without.fingerprint(), with.fingerprint(), "{}", case.name);
        assert_ne!(without.nodes(), with.nodes(), "{}", case.name);
    }
}
