//! Hostile input against what `btvm` shows the operator (issue 25, findings 7, 10 and 11): no
//! control character from a tree or a scenario reaches the terminal raw, in messages or in the
//! source lines of a snippet; a huge name gives a few lines, quickly; a program too large for
//! native code runs on the vm with a one-line note.

mod common;
use common::*;

use std::time::{Duration, Instant};

/// ESC (clear screen), BEL, CR, NUL and a C1 CSI.
const NASTY: &str = "X\u{1b}[2J\u{7}\r\0\u{9b}31mY";

/// Panics if `text` holds a control character other than a newline.
fn assert_no_controls(text: &str, what: &str) {
    if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\n') {
        panic!("{what}: raw control character {c:?} in {text:?}");
    }
}

/// Finding 10: a name with control characters, echoed in the message and shown in the
/// snippet's source line, in `.bt` and `.btn`; and in a scenario.
#[test]
fn control_characters_never_reach_the_terminal() {
    let bt = temp(
        "nasty.bt",
        format!("selector {{\n  action {NASTY}\n}}\n").as_bytes(),
    );
    let btn = temp(
        "nasty.btn",
        format!(
            "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\n\
             root main = include \"{NASTY}\"\n"
        )
        .as_bytes(),
    );
    for file in [&bt, &btn] {
        let out = btvm(&["check", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_no_controls(&err, &file.display().to_string());
        assert!(
            err.contains("\\u{1b}"),
            "the escape is shown escaped: {err}"
        );
    }
    let tree = temp(
        "ok.btn",
        b"btvm 1;\ndialect unvanquished;\nimport action a 0..0;\nroot main = action a()\n",
    );
    let scn = temp("nasty.scn", format!("ticks 1\n{NASTY}\n").as_bytes());
    let out = btvm(&[
        "run",
        tree.to_str().unwrap(),
        "--scenario",
        scn.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert_no_controls(&String::from_utf8_lossy(&out.stderr), "scenario");
}

/// Finding 11: a 15 MB unknown name gave a 15 MB diagnostic after 7 s; now a few lines.
#[test]
fn a_15_mb_unknown_name_is_reported_in_a_few_lines() {
    let name = "q".repeat(15 << 20);
    let file = temp("huge.bt", format!("action {name}\n").as_bytes());
    let started = Instant::now();
    let out = btvm(&["check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.len() < 4096,
        "{} bytes of diagnostic",
        out.stderr.len()
    );
    // A debug build on 2 shared cores.
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// Finding 7: `btvm run --engine native` on a program over the native size threshold runs on
/// the vm, with a one-line note saying why, and the same trace as `--engine vm`.
#[cfg(feature = "jit")]
#[test]
fn native_run_over_the_size_threshold_notes_the_fallback() {
    fn nest(depth: u32, out: &mut String) {
        if depth == 0 {
            out.push_str("action a()\n");
            return;
        }
        out.push_str("sequence running-list {\n");
        for _ in 0..16 {
            nest(depth - 1, out);
        }
        out.push_str("}\n");
    }
    let mut src =
        String::from("btvm 1;\ndialect unvanquished;\nimport action a 0..0;\nroot main = ");
    nest(4, &mut src);
    let tree = temp("large.btn", src.as_bytes());
    let scn = temp("large.scn", b"ticks 1\nanswer a = success\n");
    let run = |engine: &str| {
        btvm(&[
            "run",
            tree.to_str().unwrap(),
            "--scenario",
            scn.to_str().unwrap(),
            "--engine",
            engine,
        ])
    };
    let native = run("native");
    let err = String::from_utf8_lossy(&native.stderr);
    assert!(native.status.success(), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("max_instructions"), "{err}");
    let vm = run("vm");
    assert!(vm.status.success());
    assert!(vm.stderr.is_empty());
    assert_eq!(native.stdout, vm.stdout);
}
