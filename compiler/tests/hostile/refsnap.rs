//! Hostile state blocks given to the reference interpreter (`Interpreter::restore_block`,
//! `spec/bytecode.md` §9), on every case tree of `spec/cases/` (every model): a block of
//! another program, a truncated or extended one, and damaged ones (each byte overwritten)
//! end in a `SnapshotError` (the agent unchanged) or in a restored agent whose export imports
//! back to the same bytes and that then ticks without panicking; and
//! on the scenario path, a btvm snapshot of another tree or a damaged one is an error on the
//! reference engine as on the others.

use std::path::{Path, PathBuf};

use btvm::{AgentId, Limits, Program, SnapshotError};
use btvm_compiler::ir::Tree;
use btvm_compiler::reference::{Interpreter, Scopes};
use btvm_compiler::scenario::{run_session, EngineKind, SaveFormat, Saved, Scenario, Session};
use btvm_compiler::source::SourceMap;
use btvm_testkit::case::{Case, CaseExpectation};
use btvm_testkit::hosts::Permissive;

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            case_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "case") {
            out.push(path);
        }
    }
}

/// Every case tree that runs, with its scenario (answers that count calls kept: nothing
/// here compares traces) and its program.
fn cases() -> Vec<(PathBuf, Tree, Scenario, Program)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/cases");
    let mut paths = Vec::new();
    case_files(&root, &mut paths);
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let case = Case::read(&path).expect("a case file");
        let mut sources = SourceMap::new();
        let (Ok(loaded), CaseExpectation::Trace { scenario, .. }) =
            (case.file.load(&mut sources), &case.file.expect)
        else {
            continue;
        };
        let file = sources.add("/case/scenario", scenario.clone());
        let scn = btvm_compiler::scenario::parse_scenario(file, scenario).expect("a scenario");
        if scn.trace_nodes {
            continue;
        }
        if let Ok(program) = btvm_compiler::lower::lower(&loaded.tree, &Limits::default()) {
            out.push((path, loaded.tree, scn, program));
        }
    }
    out
}

/// Agent 0's block as the vm holds it before the scenario's middle tick.
fn middle_block(tree: &Tree, scn: &Scenario, program: &Program) -> Option<Vec<u8>> {
    let session = Session {
        save_at: Some(scn.ticks / 2),
        save_format: Some(SaveFormat::Btvm),
        ..Session::default()
    };
    let Some(Saved::Btvm(bytes)) = run_session(tree, scn, EngineKind::Vm, &session).ok()?.saved
    else {
        return None;
    };
    let snap = btvm::Snapshot::decode(&bytes, program, &Limits::default()).ok()?;
    snap.agents.into_iter().next().map(|a| a.state)
}

/// Restores `block` into a fresh reference agent; restored, its state exports and imports
/// back to the same bytes, and the agent ticks three times.
fn restore_and_tick(interp: &Interpreter<'_>, program: &Program, block: &[u8], seed: u64) {
    let mut scopes = Scopes::new();
    let mut state = interp.new_agent(AgentId(0));
    let before = state.clone();
    match interp.restore_block(program, &mut state, block, &mut scopes) {
        Ok(()) => {
            // A taken block exports to one that imports and exports to the same bytes.
            let once = interp
                .export_block(program, &state, &scopes)
                .expect("exports");
            let mut again = interp.new_agent(AgentId(0));
            let mut scopes2 = Scopes::new();
            interp
                .restore_block(program, &mut again, &once, &mut scopes2)
                .expect("an exported block is taken");
            let twice = interp
                .export_block(program, &again, &scopes2)
                .expect("exports");
            assert_eq!(once, twice, "export and import disagree");
            let mut host = Permissive::always(seed);
            for k in 0..3 {
                interp.tick_with_scopes(&mut state, &mut host, 100 * k, &mut scopes);
            }
        }
        Err(_) => assert_eq!(state, before, "a refused block changed the agent"),
    }
}

#[test]
fn damaged_blocks_are_refused_or_tick_safely() {
    let mut damaged = 0;
    for (path, tree, scn, program) in cases() {
        let Some(block) = middle_block(&tree, &scn, &program) else {
            continue;
        };
        let interp = Interpreter::new(&tree).expect("a tree that lowers runs on the reference");
        for at in 0..block.len() {
            for v in [0xff, 0x80, 0x01, 0x5a, 0x00] {
                let mut bad = block.clone();
                bad[at] = v;
                let seed = (at as u64) << 8 | u64::from(v);
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    restore_and_tick(&interp, &program, &bad, seed)
                }));
                assert!(
                    r.is_ok(),
                    "{}: byte {at} = {v:#04x} panicked",
                    path.display()
                );
                damaged += 1;
            }
        }
    }
    assert!(damaged > 1000, "only {damaged} damaged blocks tried");
}

#[test]
fn truncated_and_extended_blocks_are_refused() {
    for (path, tree, scn, program) in cases().into_iter().step_by(7) {
        let Some(block) = middle_block(&tree, &scn, &program) else {
            continue;
        };
        let interp = Interpreter::new(&tree).expect("a tree that lowers runs on the reference");
        let mut longer = block.clone();
        longer.push(0);
        for bad in (0..block.len()).map(|n| &block[..n]).chain([&longer[..]]) {
            let mut state = interp.new_agent(AgentId(0));
            let r = interp.restore_block(&program, &mut state, bad, &mut Scopes::new());
            assert!(
                matches!(r, Err(SnapshotError::StateSize { .. })),
                "{}: {} bytes of {}: {r:?}",
                path.display(),
                bad.len(),
                block.len()
            );
        }
    }
}

#[test]
fn a_block_of_another_program_is_refused() {
    let all = cases();
    let mut refused = 0;
    for pair in all.windows(2) {
        let ((_, tree_a, _, program_a), (path_b, _, _, program_b)) = (&pair[0], &pair[1]);
        if program_a.nodes().nodes.len() == program_b.nodes().nodes.len() {
            continue;
        }
        let interp = Interpreter::new(tree_a).expect("runs");
        let mut state = interp.new_agent(AgentId(0));
        let block = program_b.new_state();
        let r = interp.restore_block(program_b, &mut state, &block, &mut Scopes::new());
        assert!(
            r.is_err(),
            "{}: another program's block was taken",
            path_b.display()
        );
        let exported = interp.export_block(program_b, &state, &Scopes::new());
        assert!(
            exported.is_err(),
            "{}: exported for another program",
            path_b.display()
        );
        refused += 1;
    }
    assert!(refused > 50, "only {refused} pairs tried");
}

/// A btvm snapshot of another tree, and a damaged one, restored on the reference engine: an
/// error naming what is wrong, as on the vm.
#[test]
fn the_reference_engine_refuses_foreign_and_damaged_snapshots() {
    let all = cases();
    let mbt: Vec<_> = all
        .iter()
        .filter(|c| c.0.to_string_lossy().contains("/mbt/"))
        .take(2)
        .collect();
    let [(_, tree_a, scn_a, _), (_, tree_b, scn_b, _)] = mbt[..] else {
        panic!("two MBT cases");
    };
    let save = Session {
        save_at: Some(1),
        save_format: Some(SaveFormat::Btvm),
        ..Session::default()
    };
    let saved = run_session(tree_a, scn_a, EngineKind::Reference, &save)
        .expect("the reference saves")
        .saved
        .expect("saved");
    let foreign = Session {
        from: 1,
        restore: Some(saved.clone()),
        ..Session::default()
    };
    for engine in [EngineKind::Reference, EngineKind::Vm] {
        let e = run_session(tree_b, scn_b, engine, &foreign).expect_err("another tree's snapshot");
        assert!(
            e.message.contains("another program"),
            "{}: {}",
            engine.name(),
            e.message
        );
    }
    let Saved::Btvm(mut bytes) = saved else {
        panic!("a btvm snapshot");
    };
    let at = bytes.len() - 12;
    bytes[at] ^= 0x10;
    let damaged = Session {
        from: 1,
        restore: Some(Saved::Btvm(bytes)),
        ..Session::default()
    };
    let e = run_session(tree_a, scn_a, EngineKind::Reference, &damaged).expect_err("damaged");
    assert!(e.message.contains("damaged"), "{}", e.message);
}
