//! Hostile use of the `btvm` command (issue 25, findings 5, 8 and 9): a reader that closes
//! its pipe, a full disk, numeric options and scenario sizes that would exhaust memory or
//! time. The documented behaviour (README, "CLI tour"): a closed pipe ends the output quietly
//! and the command keeps its own exit status (0 when all went well); any other write error
//! is reported and exits 1; a numeric option out of range is a usage error (exit 2).

mod common;
use common::*;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// Generous: CI runs debug builds on two shared cores.
const QUICK: Duration = Duration::from_secs(20);

/// Runs `btvm ARGS` with stdout a pipe whose read end is closed before the program starts,
/// so its first write fails with a broken pipe; returns the result and how long it took.
fn closed_pipe(args: &[&str]) -> (Output, Duration) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let start = Instant::now();
    let out = bin()
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out, start.elapsed())
}

/// The program ended quietly with exit status `code`: no panic, nothing on stderr.
fn assert_quiet(args: &[&str], out: &Output, code: i32) {
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
}

fn guard() -> String {
    spec("examples/guard.bt")
}

#[test]
fn convert_into_a_closed_pipe() {
    let args = ["convert", &guard()];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
}

#[test]
fn check_into_a_closed_pipe() {
    let args = ["check", &guard()];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
    // A file that fails keeps its exit status and its diagnostic (on stderr, still open).
    let bad = temp("bad.bt", b"selector {\n  action figth\n}\n");
    let (out, _) = closed_pipe(&["check", &guard(), bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("bad.bt:2:10") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn disasm_and_compile_into_a_closed_pipe() {
    // Not in the list, but they write to stdout too.
    let args = ["disasm", &guard()];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
    let args = ["compile", &guard(), "-o", "-"];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
}

#[test]
fn run_summary_into_a_closed_pipe() {
    let args = [
        "run",
        &guard(),
        "-s",
        &spec("examples/guard.scn"),
        "--summary",
    ];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
}

#[test]
fn run_dump_state_into_a_closed_pipe() {
    let args = [
        "run",
        &spec("examples/figure1.spore"),
        "-s",
        &spec("examples/figure1.scn"),
        "--dump-state",
    ];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
}

#[test]
fn run_trace_into_a_closed_pipe_stops_the_run() {
    // 100 agents x a million ticks (the default limits): the whole run would take a debug
    // build many minutes, so passing the bound shows the run stopped at the first failed write.
    let scn = temp("million.scn", b"agents 100\nticks 1000000\n");
    let args = ["run", &guard(), "-s", scn.to_str().unwrap()];
    let (out, took) = closed_pipe(&args);
    assert_quiet(&args, &out, 0);
    assert!(took < QUICK, "{took:?}");
}

#[test]
fn bench_into_a_closed_pipe() {
    // The vm only: what is tested is the output, and builds without `jit` have no native code.
    let args = [
        "bench",
        "--agents",
        "3",
        "--ticks",
        "2",
        "--threads",
        "1",
        "--engines",
        "vm",
    ];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
}

#[test]
fn bench_json_into_a_closed_pipe() {
    let args = [
        "bench",
        "--agents",
        "3",
        "--ticks",
        "2",
        "--threads",
        "1",
        "--engines",
        "vm",
        "--json",
    ];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
    let args = [
        "bench",
        "--workload",
        "fight-or-flight",
        "--agents",
        "3",
        "--ticks",
        "2",
        "--threads",
        "1",
        "--engines",
        "vm",
        "--json",
    ];
    assert_quiet(&args, &closed_pipe(&args).0, 0);
}

#[cfg(target_os = "linux")]
#[test]
fn run_into_a_full_disk_is_an_error() {
    for extra in [&[][..], &["--summary"][..]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = bin()
            .args(["run", &guard(), "-s", &spec("examples/guard.scn")])
            .args(extra)
            .stdout(full)
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(
            err.contains("cannot write to standard output") && !err.contains("panicked"),
            "{extra:?}: {err}"
        );
    }
}

/// Runs `btvm ARGS` with stdout and stderr captured; returns the result and its duration.
fn timed(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = bin().args(args).output().unwrap();
    (out, start.elapsed())
}

#[test]
fn zero_agents() {
    // `bench` times per agent-tick: no agents is a usage error, never a panic.
    for workload in ["demo", "fight-or-flight"] {
        let (out, _) = timed(&["bench", "--workload", workload, "--agents", "0"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{workload}: {err}");
        assert!(
            err.contains("--agents") && !err.contains("panicked"),
            "{err}"
        );
    }
    // `run` with no agents runs an empty table: an empty trace.
    let (out, _) = timed(&["run", &guard(), "--agents", "0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn four_billion_agents_option() {
    for args in [
        &["run", &guard(), "--agents", "4000000000"][..],
        &["run", &guard(), "--engine", "vm", "--agents", "4000000000"][..],
        &["bench", "--agents", "4000000000"][..],
        &[
            "bench",
            "--workload",
            "fight-or-flight",
            "--agents",
            "4000000000",
        ][..],
        &["run", &guard(), "--ticks", "4294967295", "--summary"][..],
        &["bench", "--threads", "100000"][..],
    ] {
        let (out, took) = timed(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is not in") && !err.contains("panicked"),
            "{err}"
        );
        assert!(took < QUICK, "{args:?}: {took:?}");
    }
}

#[test]
fn scenario_with_a_billion_agents() {
    let scn = temp("agents.scn", b"agents 1000000000\n");
    let (out, took) = timed(&["run", &guard(), "-s", scn.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("agents.scn:1:8") && err.contains("limit"),
        "{err}"
    );
    assert!(took < QUICK, "{took:?}");
}

#[test]
fn scenario_with_four_billion_ticks_summary() {
    let scn = temp("ticks.scn", b"ticks 4294967295\n");
    let (out, took) = timed(&["run", &guard(), "-s", scn.to_str().unwrap(), "--summary"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("ticks.scn:1:7") && err.contains("limit"),
        "{err}"
    );
    assert!(took < QUICK, "{took:?}");
}

#[test]
fn scenario_with_invalid_utf8() {
    let scn = temp("bad.scn", b"ticks 2\nanswer fight = \xff running\n");
    let (out, _) = timed(&["run", &guard(), "-s", scn.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("bad.scn:2:16") && err.contains("UTF-8"),
        "{err}"
    );
}

/// The largest resident set `child` had, sampled every few milliseconds until it exits (the
/// kernel's own figure, `VmHWM`, goes with the process).
#[cfg(target_os = "linux")]
fn peak_rss_kib(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            peak = peak.max(hwm.unwrap_or(0));
        }
        if let Some(done) = child.try_wait().unwrap() {
            return (done, peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_long_summary_runs_in_bounded_memory() {
    // 300,000 ticks of the guard bot make well over a million trace lines: kept, about
    // 100 MiB; `--summary` keeps counters only, so its peak is that of a short run, whatever
    // the number of ticks.
    let long = temp(
        "long.scn",
        b"ticks 300000
",
    );
    let short = temp(
        "short.scn",
        b"ticks 10
",
    );
    let peak = |scn: &Path| {
        let child = bin()
            .args(["run", &guard(), "-s", scn.to_str().unwrap(), "--summary"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let (status, peak) = peak_rss_kib(child);
        assert!(status.success());
        peak
    };
    let (short, long) = (peak(&short), peak(&long));
    assert!(
        long < short + 16 * 1024,
        "{long} KiB, a short run {short} KiB"
    );
}
