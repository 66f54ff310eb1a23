//! `btvm run OLD --scenario S --engine vm --reload-at N NEW` (hot reload, issue 26 item 5):
//! reloaded into a version with an unrelated branch added (`spec/examples/reload/`), a run
//! prints exactly the uninterrupted run's trace and reports on stderr, per agent, what it kept
//! and that nothing was reset; the reference engine, which keeps no state blocks, refuses
//! `--reload-at` with exit code 2 and a message.

mod common;
use common::*;

/// Multi-agent examples and their version 2: tree, scenario, version 2, extra arguments. The
/// MBT scenario has no counted answers (the scripted host's counters start afresh in the
/// reloaded half, as with `--restore`).
fn cases() -> Vec<(String, String, String, Vec<&'static str>)> {
    let squad = temp(
        "squad.scn",
        "agents 3\nticks 12\ntime 0 250\nanswer Move = running\nanswer Shoot = success\n\
         at 3 event OnEnemySeen\nat 7 event OnBulletRain\n",
    );
    vec![
        (
            spec("examples/squad_soldier.xml"),
            squad.to_string_lossy().into_owned(),
            spec("examples/reload/squad_soldier_v2.xml"),
            vec!["--profile", "gamesdk"],
        ),
        (
            spec("examples/grunt/grunt.xml"),
            spec("scenarios/grunt.scn"),
            spec("examples/grunt/grunt_v2.xml"),
            vec![],
        ),
    ]
}

#[test]
fn reload_into_an_unrelated_branch_prints_the_uninterrupted_trace() {
    for (tree, scn, v2, extra) in cases() {
        let run = |more: &[&str]| {
            let mut args = vec!["run", &tree, "--scenario", &scn, "--engine", "vm"];
            args.extend(&extra);
            args.extend(more);
            let out = btvm(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                text(&out.stderr)
            );
            (text(&out.stdout), text(&out.stderr))
        };
        let (whole, _) = run(&[]);
        let agents = if tree.ends_with("grunt.xml") { 2 } else { 3 };
        for at in ["5", "9"] {
            let (stdout, stderr) = run(&["--reload-at", at, &v2]);
            assert_eq!(stdout, whole, "{tree} reloaded at {at}");
            let reports: Vec<&str> = stderr.lines().filter(|l| l.starts_with("reload")).collect();
            assert_eq!(reports.len(), agents, "{tree}: {stderr}");
            for (k, line) in reports.iter().enumerate() {
                let head = format!("reload at tick {at}: agent {k} kept ");
                assert!(line.starts_with(&head), "{line}");
                assert!(line.contains("; reset 0"), "{line}");
            }
        }
    }
}

#[test]
fn reload_on_the_reference_engine_is_refused() {
    let (tree, scn, v2) = (
        spec("examples/guard.bt"),
        spec("examples/guard.scn"),
        spec("examples/reload/guard_v2.bt"),
    );
    let args = [
        "run",
        &tree,
        "--scenario",
        &scn,
        "--engine",
        "reference",
        "--reload-at",
        "4",
        &v2,
    ];
    let out = btvm(&args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("--reload-at") && err.contains("reference"),
        "{err}"
    );
}
