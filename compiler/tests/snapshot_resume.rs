//! Save and resume, every dialect: each case tree of `spec/cases/` and each example of
//! `spec/examples/` runs to half its ticks, is saved as a btvm snapshot, and is resumed in a
//! fresh run from the snapshot; the two halves must equal the uninterrupted run, on the vm, on
//! native code and across them (saved on one, resumed on the other). `BTVM_CASE=substr`
//! filters.
//!
//! Answers that count calls (`seq`, `cycle`) are dropped from the scenarios first (the tree
//! then gets the default answers there): the scripted host's counters are the game's, not the
//! agent's, and a snapshot holds only agents.

use std::path::{Path, PathBuf};

use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, load_reporting, LoadOptions, Profile};
use btvm_compiler::scenario::{
    parse_scenario, run_session, Answer, EngineKind, SaveFormat, Scenario, Session, TraceSink,
};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};
use btvm_testkit::case::{Case, CaseExpectation};

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

/// The engines a run is saved on and resumed on.
fn pairs() -> Vec<(EngineKind, EngineKind)> {
    let mut kinds = vec![EngineKind::Vm];
    if cfg!(feature = "jit") {
        kinds.push(EngineKind::Native);
    }
    let mut out = Vec::new();
    for &a in &kinds {
        for &b in &kinds {
            out.push((a, b));
        }
    }
    out
}

/// Drops the answers that count calls (a resumed run's host would start counting again).
fn without_counting(mut scn: Scenario) -> Scenario {
    scn.answers
        .retain(|a| !matches!(a.answer, Answer::Seq(_) | Answer::Cycle(_)));
    scn
}

/// Runs `tree` through `scn` whole and in two halves on every pair of engines; `Err` says
/// where they differ. `Ok(false)`: the tree does not run on the vm (nothing to compare).
fn check(tree: &Tree, scn: &Scenario) -> Result<bool, String> {
    let Ok(full) = run_session(tree, scn, EngineKind::Vm, &Session::default()) else {
        return Ok(false);
    };
    let at = scn.ticks / 2;
    for (a, b) in pairs() {
        let save = Session {
            save_at: Some(at),
            save_format: Some(SaveFormat::Btvm),
            ..Session::default()
        };
        let first = run_session(tree, scn, a, &save).map_err(|d| d.message.clone())?;
        let resume = Session {
            from: at,
            restore: first.saved.clone(),
            ..Session::default()
        };
        let second = run_session(tree, scn, b, &resume).map_err(|d| d.message.clone())?;
        let mut joined = first.trace.clone();
        for line in second.trace.lines() {
            joined.line(line).map_err(|e| e.to_string())?;
        }
        if let Some(d) = full.trace.diff(&joined) {
            return Err(format!(
                "saved on {} at tick {at}, resumed on {}: {d}",
                a.name(),
                b.name()
            ));
        }
    }
    Ok(true)
}

fn filtered(path: &Path) -> bool {
    std::env::var("BTVM_CASE").is_ok_and(|f| !path.to_string_lossy().contains(f.as_str()))
}

#[test]
fn every_case_tree_resumes_from_a_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/cases");
    let mut paths = Vec::new();
    files(&root, "case", &mut paths);
    paths.sort();
    let (mut ran, mut failures) = (0, Vec::new());
    for path in paths.iter().filter(|p| !filtered(p)) {
        let case = Case::read(path).expect("a case file");
        let CaseExpectation::Trace { scenario, .. } = &case.file.expect else {
            continue;
        };
        let mut fs = MemFs::new();
        fs.insert(case.file.main_path(), case.file.tree.as_bytes());
        for (name, text) in &case.file.files {
            fs.insert(case.file.dir().join(name), text.as_bytes());
        }
        let options = LoadOptions {
            format: Some(case.file.format),
            profile: case.file.profile.clone(),
            ..LoadOptions::default()
        };
        let mut sources = SourceMap::new();
        let Ok(loaded) = load_reporting(&case.file.main_path(), &fs, &options, &mut sources) else {
            continue;
        };
        let file = sources.add("/case/scenario", scenario.clone());
        let scn = without_counting(parse_scenario(file, scenario).expect("a case's scenario"));
        if scn.ticks < 2 {
            continue;
        }
        match check(&loaded.tree, &scn) {
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
        assert!(ran >= 100, "only {ran} cases resumed");
    }
}

#[test]
fn every_example_resumes_from_a_snapshot() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    // (tree, scenario, profile) as `spec/scenarios/README.md` and the examples pair them.
    let examples: [(&str, &str, Option<Profile>); 5] = [
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
    ];
    for (tree, scenario, profile) in examples {
        let path = spec.join(tree);
        let options = LoadOptions {
            root: Some(path.parent().expect("a folder").to_path_buf()),
            profile,
            ..LoadOptions::default()
        };
        let mut sources = SourceMap::new();
        let loaded = load(&path, &RealFs, &options, &mut sources)
            .unwrap_or_else(|d| panic!("{tree}: {}", d[0].display(&sources)));
        let text = std::fs::read_to_string(spec.join(scenario)).expect("a scenario");
        let file = sources.add(scenario, text.clone());
        let scn = without_counting(parse_scenario(file, &text).expect("a scenario"));
        assert_eq!(check(&loaded, &scn), Ok(true), "{tree}");
    }
}
