//! The conformance runner: every case in `spec/cases/` on every engine.
//!
//! One data-driven test, like regex's `testdata/` or Cranelift's filetests. A failing case
//! prints the first difference between the expected and the actual trace. Set `BTVM_CASE` to a
//! substring of a path to run only matching cases. Every trace case runs a second time with
//! node-level tracing on (`trace nodes`, in the models that have it): its host calls must be
//! the expected trace and its node events must nest.

use std::path::{Path, PathBuf};

use btvm_testkit::case::Case;
use btvm_testkit::compare::Contender;

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            case_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "case") {
            out.push(path);
        }
    }
}

#[test]
fn every_case_on_every_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/cases");
    let mut files = Vec::new();
    case_files(&root, &mut files);
    files.sort();
    let filter = std::env::var("BTVM_CASE").ok();
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in &files {
        if filter
            .as_ref()
            .is_some_and(|f| !path.to_string_lossy().contains(f.as_str()))
        {
            continue;
        }
        let case = match Case::read(path) {
            Ok(c) => c,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for &engine in Contender::ALL {
            ran += 1;
            if let Err(e) = case.file.run(engine) {
                failures.push(format!("{} [{}]: {e}", path.display(), engine.name()));
            }
            // Traced again: node events must change nothing else (spec/semantics.md 4.7).
            if let Err(e) = case.file.run_with_node_trace(engine) {
                failures.push(format!(
                    "{} [{}, trace nodes]: {e}",
                    path.display(),
                    engine.name()
                ));
            }
        }
    }
    for f in &failures {
        eprintln!("FAILED {f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} case runs failed",
        failures.len()
    );
    if filter.is_none() {
        for (dialect, least) in [
            ("unvanquished", 40),
            ("dragengine", 30),
            ("spore", 30),
            ("mbt", 40),
            ("bst", 40),
        ] {
            let n = files
                .iter()
                .filter(|p| p.to_string_lossy().contains(&format!("/{dialect}/")))
                .count();
            assert!(
                n >= least,
                "expected at least {least} {dialect} cases, found {n}"
            );
        }
    }
}
