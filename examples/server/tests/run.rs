//! Runs the example server at a small size, as CI does, and checks what it must show: the
//! program loaded against the server's own profile, a population that changes, a snapshot
//! replayed identically, active paths with source positions, and the same final world on one
//! thread and on three (the parallel tick is deterministic).

use std::process::Command;

fn run(threads: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_btvm-example-server"))
        .args(["--agents", "300", "--ticks", "60", "--threads", threads])
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn line<'a>(out: &'a str, start: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting `{start}` in\n{out}"))
}

#[test]
fn the_example_server_runs_and_replays_its_snapshot() {
    let out = run("3");
    assert!(
        line(&out, "loaded sheep.bt:").contains("300 sheep"),
        "{out}"
    );
    assert!(
        line(&out, "restored and replayed").contains("identical"),
        "{out}"
    );
    // Sheep are eaten (despawned) and born (spawned) along the way.
    let summary = line(&out, "done: 60 ticks");
    let eaten: u32 = summary
        .split(", ")
        .find_map(|part| part.strip_suffix(" eaten")?.parse().ok())
        .expect("an eaten count");
    assert!(eaten > 0, "the wolves ate nobody: {out}");
    // Active paths name the tree's nodes with their positions in the tree now running,
    // sheep_v2.bt.
    let path = line(&out, "sheep ");
    assert!(path.contains("sheep_v2.bt:"), "{path}");
    assert!(
        ["flee", "graze", "wander"].iter().any(|a| path.contains(a)),
        "{path}"
    );
    // Version 2 of the tree is loaded mid-run (tick 45 of 60); the sheep that were fleeing,
    // grazing or wandering keep their running nodes: nothing is reset (sheep_v2.bt only adds
    // a branch, which changes no existing node's identity).
    let reload = line(&out, "reloaded sheep_v2.bt at tick 45:");
    assert!(reload.ends_with(", 0 reset"), "{reload}");
    assert!(!reload.contains(" 0 running nodes kept"), "{reload}");
    // The parallel tick gives the same world on any number of threads.
    assert_eq!(summary, line(&run("1"), "done: 60 ticks"));
}

#[test]
fn bad_arguments_are_usage_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_btvm-example-server"))
        .args(["--agents", "many"])
        .output()
        .expect("the example runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes a number"));
}
