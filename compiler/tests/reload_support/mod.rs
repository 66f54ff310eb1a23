//! What the hot-reload tests share (`reload.rs`, `reload_branches.rs`): the examples and their
//! scenarios, loading a tree of `spec/`, and a run reloaded from one tree into another at a
//! tick. Each test binary compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::path::Path;

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
            old_tree: old.clone(),
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
