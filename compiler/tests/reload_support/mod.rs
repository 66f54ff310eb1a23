//! What the hot-reload and snapshot tests share (`reload.rs`, `reload_branches.rs`,
//! `snapshot_resume.rs`): every case tree, the examples and their scenarios, loading a tree of
//! `spec/`, and a run reloaded from one tree into another at a tick. Each test binary compiles
//! this module on its own and uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use btvm_testkit::case::{Case, CaseExpectation};

use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, LoadOptions, Profile};
use btvm_compiler::scenario::TraceSink;
use btvm_compiler::scenario::{
    parse_scenario, run_session, Answer, EngineKind, Reloaded, SaveFormat, Scenario, Session,
};
use btvm_compiler::source::{RealFs, SourceMap};

/// `scn` without answers that count calls (the scripted host's counters are the game's, not
/// the agent's: a run resumed from a snapshot would start them afresh).
pub fn without_counting(mut scn: Scenario) -> Scenario {
    scn.answers
        .retain(|a| !matches!(a.answer, Answer::Seq(_) | Answer::Cycle(_)));
    scn
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// Runs `check` on every case tree with a scenario (`case_trees`) and fails, listing each
/// failing case, if any fails; `check` returns `Ok(false)` for a case it does not apply to.
/// Unless `BTVM_CASE` picks cases, at least 100 must have run (`what`: "resumed", ...).
pub fn every_case(what: &str, mut check: impl FnMut(&Tree, &Scenario) -> Result<bool, String>) {
    let (mut ran, mut failures) = (0, Vec::new());
    for (path, tree, scn) in case_trees() {
        let Some(scn) = scn else { continue };
        match check(&tree, &scn) {
            Ok(true) => ran += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    for f in &failures {
        eprintln!("FAILED {f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed",
        failures.len(),
        ran + failures.len()
    );
    if std::env::var("BTVM_CASE").is_err() {
        assert!(ran >= 100, "only {ran} cases {what}");
    }
}

/// Every case of `spec/cases/` whose tree loads, in path order (only those whose path holds
/// `BTVM_CASE`, when set): its path, its tree and, for a trace case, its scenario without
/// counted answers.
pub fn case_trees() -> Vec<(PathBuf, Tree, Option<Scenario>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/cases");
    let mut paths = Vec::new();
    files(&root, "case", &mut paths);
    paths.sort();
    let filter = std::env::var("BTVM_CASE").ok();
    let mut out = Vec::new();
    for path in paths {
        if filter
            .as_ref()
            .is_some_and(|f| !path.to_string_lossy().contains(f.as_str()))
        {
            continue;
        }
        let case = Case::read(&path).expect("a case file");
        let mut sources = SourceMap::new();
        let Ok(loaded) = case.file.load(&mut sources) else {
            continue;
        };
        let scn = match &case.file.expect {
            CaseExpectation::Trace { scenario, .. } => {
                let file = sources.add("/case/scenario", scenario.clone());
                Some(without_counting(
                    parse_scenario(file, scenario).expect("a case's scenario"),
                ))
            }
            _ => None,
        };
        out.push((path, loaded.tree, scn));
    }
    out
}

/// `tree`'s program with the default limits.
pub fn program(tree: &Tree) -> Option<btvm::Program> {
    btvm_compiler::lower::lower(tree, &btvm::Limits::default()).ok()
}

/// `old` runs to tick `at`, its agents are carried into `new`'s program, and `new` runs on:
/// the joined trace and what the agents kept.
pub fn reload_run(
    old: &Tree,
    new: &Tree,
    scn: &Scenario,
    at: u32,
    (before, after): (EngineKind, EngineKind),
    cell_by_cell: bool,
) -> Result<(btvm_compiler::scenario::Trace, Vec<btvm::Carried>), String> {
    let save = Session {
        save_at: Some(at),
        save_format: Some(SaveFormat::Btvm),
        ..Session::default()
    };
    let first = run_session(old, scn, before, &save).map_err(|d| d.message.clone())?;
    let reload = Session {
        from: at,
        reload: Some(Reloaded {
            old: program(old).ok_or("the old tree does not lower")?,
            old_tree: Some(old.clone()),
            saved: first.saved.clone().ok_or("nothing saved")?,
            cell_by_cell,
        }),
        ..Session::default()
    };
    let second = run_session(new, scn, after, &reload).map_err(|d| d.message.clone())?;
    let mut joined = first.trace.clone();
    for line in second.trace.lines() {
        joined.line(line).map_err(|e| e.to_string())?;
    }
    Ok((joined, second.carried))
}

/// The examples and their scenarios, as `snapshot_resume.rs` pairs them.
pub fn examples() -> Vec<(&'static str, &'static str, Option<Profile>)> {
    vec![
        ("examples/figure1.spore", "examples/figure1.scn", None),
        ("examples/guard.bt", "examples/guard.scn", None),
        (
            "examples/wanderer/wanderer.debt",
            "examples/wanderer/wanderer.scn",
            None,
        ),
        (
            "examples/squad_soldier.xml",
            "scenarios/squad_soldier.scn",
            Profile::builtin("gamesdk"),
        ),
        ("examples/grunt/grunt.xml", "scenarios/grunt.scn", None),
        (
            "examples/human_soldier.xml",
            "scenarios/human_soldier.scn",
            Profile::builtin("gamesdk"),
        ),
    ]
}

/// Loads a tree of `spec/`.
pub fn load_tree(tree: &str, profile: Option<Profile>) -> Tree {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let path = spec.join(tree);
    let options = LoadOptions {
        root: Some(spec.clone()),
        profile,
        ..LoadOptions::default()
    };
    let mut sources = SourceMap::new();
    load(&path, &RealFs, &options, &mut sources)
        .unwrap_or_else(|d| panic!("{tree}: {}", d[0].display(&sources)))
}

/// Parses a scenario of `spec/` (or any text, named `name`), without counting answers.
pub fn scenario_text(name: &str, text: &str) -> Scenario {
    let mut sources = SourceMap::new();
    let file = sources.add(name, text.to_string());
    without_counting(parse_scenario(file, text).expect("a scenario"))
}

/// Loads a tree of `spec/` and a scenario.
pub fn load_spec(tree: &str, scenario: &str, profile: Option<Profile>) -> (Tree, Scenario) {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let text = std::fs::read_to_string(spec.join(scenario)).expect("a scenario");
    (load_tree(tree, profile), scenario_text(scenario, &text))
}
