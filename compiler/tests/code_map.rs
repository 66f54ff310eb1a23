//! The program's code map (`NodeTable::code`): which IR node each instruction was emitted for,
//! on every example and conformance tree, and for hand-picked action calls the node the source
//! writes them as.

use std::path::{Path, PathBuf};

use btvm::Limits;
use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, LoadOptions, Profile};
use btvm_compiler::lower::lower_with_sources;
use btvm_compiler::source::{RealFs, SourceMap};
use btvm_testkit::case::{Case, CaseExpectation};

fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// Every example tree and every conformance case's tree that loads, with its sources.
fn trees() -> Vec<(String, Tree, SourceMap)> {
    let mut out = Vec::new();
    let examples: [(&str, Option<Profile>); 5] = [
        ("examples/figure1.spore", None),
        ("examples/guard.bt", None),
        ("examples/wanderer/wanderer.debt", None),
        ("examples/squad_soldier.xml", Profile::builtin("gamesdk")),
        ("examples/grunt/grunt.xml", None),
    ];
    for (tree, profile) in examples {
        let (t, sources) = load_example(tree, profile);
        out.push((tree.to_string(), t, sources));
    }
    let mut paths = Vec::new();
    for dir in std::fs::read_dir(spec().join("cases")).expect("spec/cases") {
        let dir = dir.expect("an entry").path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).expect("a case folder") {
                paths.push(f.expect("an entry").path());
            }
        }
    }
    paths.sort();
    for path in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
    {
        let case = Case::read(path).expect("a case file");
        if !matches!(case.file.expect, CaseExpectation::Trace { .. }) {
            continue;
        }
        let mut sources = SourceMap::new();
        let t = case
            .file
            .load(&mut sources)
            .unwrap_or_else(|d| panic!("{}: {}", path.display(), d[0].display(&sources)))
            .tree;
        let name = path
            .strip_prefix(spec())
            .unwrap_or(path)
            .display()
            .to_string();
        out.push((name, t, sources));
    }
    out
}

/// The instructions that belong to no node: a function's entry and exits, the per-tick
/// bookkeeping of a model, and what an event does for the tree as a whole (signal bindings,
/// timestamps). Everything else is emitted for a node.
const GLUE: &[&str] = &[
    "finish",
    "return",
    "jump",
    "cursor.dispatch",
    "cursor.step",
    "cursor.stop",
    "dec.begin",
    "dec.jump.root",
    "dec.root",
    "dec.guard",
    "lc.begin",
    "lc.stop",
    "sel.begin",
    "sel.none",
    "sel.jump.leaf",
];

/// The node table entry instruction `pc` maps to, if any.
fn node_of(p: &btvm::Program, pc: usize) -> Option<&btvm::program::NodeInfo> {
    let n = *p.nodes().code.get(pc)?;
    p.nodes().nodes.get(n as usize)
}

/// Every example and case tree: the code map has one entry per instruction, each naming a
/// node of the table or none; in the entry function only glue has no node; every call of an
/// action or behavior maps to a node of that kind named after the import it calls (an exit
/// call in a terminate walk to the action, a hook to the `hooks` node that declares it, a
/// Spore group behavior's call to its `group`).
#[test]
fn every_instruction_maps_to_a_node_of_the_table() {
    use btvm::program::{FunctionKind, Instr};
    let trees = trees();
    assert!(trees.len() > 100, "only {} trees", trees.len());
    for (name, tree, sources) in trees {
        let p = match lower_with_sources(&tree, &Limits::default(), &sources) {
            Ok(p) => p,
            Err(d) if d[0].kind == btvm_compiler::diag::ErrorKind::ProgramTooLarge => continue,
            Err(d) => panic!("{name}: {}", d[0].display(&sources)),
        };
        let (code, map) = (&p.parts().code, &p.nodes().code);
        assert_eq!(map.len(), code.len(), "{name}");
        let nodes = p.nodes().nodes.len();
        assert!(
            map.iter().all(|&n| n == u32::MAX || (n as usize) < nodes),
            "{name}"
        );
        for f in &p.parts().functions {
            let (start, end) = (f.start as usize, f.end as usize);
            for (pc, ins) in code.iter().enumerate().take(end).skip(start) {
                let asm = ins.asm();
                let op = asm.split_whitespace().next().unwrap_or("");
                if f.kind == FunctionKind::Entry && !GLUE.contains(&op) {
                    assert!(
                        node_of(&p, pc).is_some(),
                        "{name}: {pc} `{asm}` has no node"
                    );
                }
                let call = match *ins {
                    Instr::Act { import, .. }
                    | Instr::ActCursor { import, .. }
                    | Instr::LcAct { import, .. } => Some((import, &["action"][..])),
                    Instr::Behave { import, .. } => Some((import, &["behavior", "group"][..])),
                    Instr::LcCall { import, .. } => Some((import, &["action", "hooks"][..])),
                    _ => None,
                };
                let Some((import, kinds)) = call else {
                    continue;
                };
                let called = &p.parts().imports[import.0 as usize].name;
                let node = node_of(&p, pc)
                    .unwrap_or_else(|| panic!("{name}: {pc} `{asm}` calls {called} for no node"));
                assert!(
                    kinds.contains(&node.kind.as_str()),
                    "{name}: {pc} `{asm}` in {node:?}"
                );
                if node.kind == "action" || node.kind == "behavior" {
                    assert_eq!(node.name.as_ref(), Some(called), "{name}: {pc} `{asm}`");
                }
            }
        }
    }
}

/// The example `rel` (under `spec/`) loaded from its folder with `profile`.
fn load_example(rel: &str, profile: Option<Profile>) -> (Tree, SourceMap) {
    let path = spec().join(rel);
    let options = LoadOptions {
        root: Some(path.parent().expect("a folder").to_path_buf()),
        profile,
        ..LoadOptions::default()
    };
    let mut sources = SourceMap::new();
    let tree = load(&path, &RealFs, &options, &mut sources)
        .unwrap_or_else(|d| panic!("{rel}: {}", d[0].display(&sources)));
    (tree, sources)
}

/// The program of the example `rel` (under `spec/`), lowered with its sources.
fn example(rel: &str, profile: Option<Profile>) -> btvm::Program {
    let (tree, sources) = load_example(rel, profile);
    lower_with_sources(&tree, &Limits::default(), &sources).expect("the example compiles")
}

/// The nodes (kind, name, file name, line) of the instructions that call action or behavior
/// `called`, with their parents' kinds and names, each once.
fn call_sites(p: &btvm::Program, called: &str) -> Vec<(String, String, String, u32, String)> {
    use btvm::program::Instr;
    let t = p.nodes();
    let mut out = Vec::new();
    for (pc, ins) in p.parts().code.iter().enumerate() {
        let import = match *ins {
            Instr::Act { import, .. }
            | Instr::ActCursor { import, .. }
            | Instr::LcAct { import, .. }
            | Instr::Behave { import, .. } => import,
            _ => continue,
        };
        if p.parts().imports[import.0 as usize].name != called {
            continue;
        }
        let n = node_of(p, pc).expect("a call has a node");
        let file = n.file.map_or(String::new(), |f| {
            let path = Path::new(&t.files[f as usize]);
            path.file_name()
                .map_or(String::new(), |s| s.to_string_lossy().into())
        });
        let parent = n.parent.map_or(String::new(), |q| {
            let q = &t.nodes[q as usize];
            format!("{} {}", q.kind, q.name.as_deref().unwrap_or(""))
                .trim()
                .to_string()
        });
        let site = (
            n.kind.clone(),
            n.name.clone().unwrap_or_default(),
            file,
            n.line,
            parent,
        );
        if !out.contains(&site) {
            out.push(site);
        }
    }
    out
}

/// Hand-picked trees: the instructions calling a named action map to that action's node, at
/// the line the source writes it, under the parent the source nests it in (each expectation
/// read off the example file, see the comments).
#[test]
fn action_calls_map_to_their_nodes() {
    let s = |x: &str| x.to_string();
    let guard = example("examples/guard.bt", None);
    // guard.bt: `action moveTo( E_H_REACTOR, 300 )` on line 24, the body of the `condition
    // distanceTo(...) > 500 { }` on line 22 (a guard); `action heal` on line 16 inside the
    // condition on line 14; `action fight` on line 19, the second child of the selector on
    // line 10.
    assert_eq!(
        call_sites(&guard, "moveTo"),
        [(s("action"), s("moveTo"), s("guard.bt"), 24, s("guard"))]
    );
    assert_eq!(
        call_sites(&guard, "heal"),
        [(s("action"), s("heal"), s("guard.bt"), 16, s("guard"))]
    );
    assert_eq!(
        call_sites(&guard, "fight"),
        [(s("action"), s("fight"), s("guard.bt"), 19, s("selector"))]
    );
    // wanderer.debt: `<action id=".run" name="move.to">` on line 24, its conditions wrapping
    // it in a guard with the rule id `wanderer.flee.run`; and the included
    // subtrees/patrol.debt's `<action id="walk" name="move.to">` on line 16 (rule
    // `wanderer.patrol.walk`, its `allFalse` condition a guard too), in arena order.
    let wanderer = example("examples/wanderer/wanderer.debt", None);
    assert_eq!(
        call_sites(&wanderer, "move.to"),
        [
            (
                s("action"),
                s("move.to"),
                s("wanderer.debt"),
                24,
                s("guard wanderer.flee.run")
            ),
            (
                s("action"),
                s("move.to"),
                s("patrol.debt"),
                16,
                s("guard wanderer.patrol.walk")
            )
        ]
    );
    // figure1.spore: `FLEE ... => flee;` on line 27 runs behavior `flee` (activate, tick,
    // deactivate: every call of it maps to the one behavior node under decider FLEE).
    let figure1 = example("examples/figure1.spore", None);
    let flee = call_sites(&figure1, "flee");
    assert_eq!(flee.len(), 1, "{flee:?}");
    assert_eq!(
        (flee[0].0.as_str(), flee[0].1.as_str(), flee[0].4.as_str()),
        ("behavior", "flee", "decider FLEE")
    );
    assert_eq!((flee[0].2.as_str(), flee[0].3), ("figure1.spore", 27));
    // squad_soldier.xml (MBT, GameSDK nodes): the one `<Shoot at="Target" .../>`, line 134,
    // second child of the `<Sequence>` on line 132 (the `lc.act` that runs it; its exit call
    // in the terminate walks is an `lc.call`, not listed here).
    let squad = example("examples/squad_soldier.xml", Profile::builtin("gamesdk"));
    assert_eq!(
        call_sites(&squad, "Shoot"),
        [(
            s("action"),
            s("Shoot"),
            s("squad_soldier.xml"),
            134,
            s("sequence")
        )]
    );
}
