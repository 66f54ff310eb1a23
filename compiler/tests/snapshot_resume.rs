//! Save and resume, every dialect: each case tree of `spec/cases/` and each example of
//! `spec/examples/` runs to half its ticks, is saved as a btvm snapshot, and is resumed in a
//! fresh run from the snapshot; the two halves must equal the uninterrupted run, on the
//! reference, the vm, native code and across them (saved on one, resumed on another: every
//! pair). `BTVM_CASE=substr` filters.
//!
//! Answers that count calls (`seq`, `cycle`) are dropped from the scenarios first (the tree
//! then gets the default answers there): the scripted host's counters are the game's, not the
//! agent's, and a snapshot holds only agents.

mod reload_support;
use reload_support::{every_case, examples, load_spec};

use btvm_compiler::ir::Tree;
use btvm_compiler::scenario::{run_session, EngineKind, SaveFormat, Scenario, Session, TraceSink};

/// The engines a run is saved on and resumed on: every pair of the reference, the vm and
/// (with `jit`) native code.
fn pairs() -> Vec<(EngineKind, EngineKind)> {
    let mut kinds = vec![EngineKind::Reference, EngineKind::Vm];
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

#[test]
fn every_case_tree_resumes_from_a_snapshot() {
    every_case("resumed", |tree, scn| match scn.ticks >= 2 {
        true => check(tree, scn),
        false => Ok(false),
    });
}

#[test]
fn every_example_resumes_from_a_snapshot() {
    for (tree, scenario, profile) in examples() {
        let (loaded, scn) = load_spec(tree, scenario, profile);
        assert_eq!(check(&loaded, &scn), Ok(true), "{tree}");
    }
}
