//! Program files run scenarios as their trees do: every conformance case with a trace and
//! every example with its scenario is lowered, written as program bytes, read back
//! (`Program::decode`, which verifies) and run through the program path
//! (`scenario::run_program`, names from the program's `Outline`) on the vm and native code. A
//! case's trace must be its expected trace; an example's must be its tree's on the same engine.
//! The scenario's lints from the program's names must be the tree's. `BTVM_CASE=substr`
//! filters the cases.

mod reload_support;

use std::path::{Path, PathBuf};

use btvm_compiler::scenario::{
    lint, lint_outline, parse_scenario, run_program, run_session, EngineKind, Outline, Scenario,
    Session, Trace,
};
use btvm_compiler::source::SourceMap;
use btvm_testkit::case::{Case, CaseExpectation};

/// The engines that run programs in this build.
fn engines() -> Vec<EngineKind> {
    match cfg!(feature = "jit") {
        true => vec![EngineKind::Vm, EngineKind::Native],
        false => vec![EngineKind::Vm],
    }
}

/// `tree` lowered (traced when the scenario traces nodes), written and read back.
fn through_file(tree: &btvm_compiler::ir::Tree, scn: &Scenario) -> btvm::Program {
    let limits = btvm::Limits::default();
    let program = match scn.trace_nodes {
        true => btvm_compiler::lower::lower_traced(tree, &limits, None),
        false => btvm_compiler::lower::lower(tree, &limits),
    }
    .unwrap_or_else(|d| panic!("lowering: {}", d[0].message));
    let bytes = program.encode();
    let back = btvm::Program::decode(&bytes, &limits).expect("a program decodes as written");
    assert_eq!(back.fingerprint(), program.fingerprint());
    assert_eq!(
        back.nodes(),
        program.nodes(),
        "the node table and names travel"
    );
    back
}

/// Every `.case` file below `dir`, sorted.
fn case_paths(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "case") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The lint messages, in order.
fn messages(d: &[btvm_compiler::diag::Diagnostic]) -> Vec<String> {
    d.iter().map(|d| d.message.clone()).collect()
}

#[test]
fn every_case_runs_from_its_program_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let filter = std::env::var("BTVM_CASE").ok();
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in case_paths(&root.join("cases")) {
        if filter
            .as_ref()
            .is_some_and(|f| !path.to_string_lossy().contains(f.as_str()))
        {
            continue;
        }
        let case = Case::read(&path).expect("a case");
        let CaseExpectation::Trace { scenario, trace } = &case.file.expect else {
            continue;
        };
        let mut sources = SourceMap::new();
        let Ok(loaded) = case.file.load(&mut sources) else {
            failures.push(format!("{}: the tree does not load", path.display()));
            continue;
        };
        let file = sources.add("/case/scenario", scenario.clone());
        let scn = parse_scenario(file, scenario).expect("a case's scenario parses");
        let program = through_file(&loaded.tree, &scn);
        let outline = Outline::of_program(&program).expect("an outline");
        if messages(&lint_outline(&scn, &outline)) != messages(&lint(&scn, &loaded.tree)) {
            failures.push(format!("{}: the program lints otherwise", path.display()));
        }
        for engine in engines() {
            ran += 1;
            let run = run_program(&program, &scn, engine, &Session::default());
            match run.map(|o| o.trace) {
                Ok(actual) => {
                    if let Some(d) = trace.diff(&actual) {
                        failures.push(format!("{} [{}]: {d}", path.display(), engine.name()));
                    }
                }
                Err(d) => failures.push(format!(
                    "{} [{}]: {}",
                    path.display(),
                    engine.name(),
                    d.message
                )),
            }
        }
    }
    for f in &failures {
        eprintln!("FAILED {f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} runs failed",
        failures.len()
    );
    assert!(filter.is_some() || ran > 200, "only {ran} runs");
}

#[test]
fn every_example_runs_from_its_program_file_as_from_its_tree() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    for (tree_path, scenario_path, profile) in reload_support::examples() {
        let tree = reload_support::load_tree(tree_path, profile);
        let text = std::fs::read_to_string(spec.join(scenario_path)).expect("a scenario");
        let mut sources = SourceMap::new();
        let file = sources.add(scenario_path, text.clone());
        for traced in [false, true] {
            let mut scn = parse_scenario(file, &text).expect("an example's scenario parses");
            scn.trace_nodes |= traced;
            let program = through_file(&tree, &scn);
            for engine in engines() {
                let session = Session::default();
                let want: Trace = run_session(&tree, &scn, engine, &session)
                    .expect("the tree runs")
                    .trace;
                let got = run_program(&program, &scn, engine, &session)
                    .expect("the program runs")
                    .trace;
                assert!(!want.lines().is_empty());
                assert_eq!(
                    want.diff(&got),
                    None,
                    "{tree_path} [{}, traced {traced}]",
                    engine.name()
                );
            }
        }
    }
}

#[test]
fn the_reference_and_untraced_programs_are_refused_by_name() {
    let (tree, mut scn) =
        reload_support::load_spec("examples/guard.bt", "examples/guard.scn", None);
    let program = through_file(&tree, &scn);
    let err = run_program(&program, &scn, EngineKind::Reference, &Session::default())
        .expect_err("the reference interprets trees");
    assert!(err.message.contains("reference"), "{}", err.message);
    scn.trace_nodes = true;
    let err = run_program(&program, &scn, EngineKind::Vm, &Session::default())
        .expect_err("tracing nodes needs a traced program");
    assert!(err.message.contains("node tracing"), "{}", err.message);
}
