//! Issue 25, findings 1–2 on the `btvm` command: `--root`, and the files the command reads
//! itself (scenarios, program files, `--restore`) read only when regular and only up to a
//! limit checked before reading. Every run has a deadline, so a read that blocks fails the
//! test instead of hanging it.

mod common;
use common::*;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A fresh directory under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "btvm-cli-files-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, rel: &str, text: &str) -> String {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn scenario_dev_zero_and_fifo_are_refused_without_reading() {
    let tree = spec("examples/guard.bt");
    let dir = Scratch::new("scn");
    let fifo = dir.0.join("scenario.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    for scenario in ["/dev/zero", fifo.to_str().unwrap()] {
        let out = btvm_within(LIMIT, &["run", &tree, "--scenario", scenario]);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert!(err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn huge_scenario_program_and_restore_files_are_refused_unread() {
    let dir = Scratch::new("huge");
    let big = dir.0.join("big");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(3 << 30))
        .unwrap();
    let big = big.to_str().unwrap();
    let tree = spec("examples/guard.bt");
    let start = Instant::now();
    for args in [
        vec!["run", &tree, "--scenario", big],
        vec!["disasm", big],
        vec!["run", &tree, "--restore", big],
    ] {
        let out = btvm_within(LIMIT, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("3221225472 bytes, more than the limit"),
            "{err}"
        );
    }
    // Reading 3 GB three times takes many seconds; refusing it, none.
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn root_option_confines_subtrees() {
    let dir = Scratch::new("root");
    let leaf = "<behaviorTree><action name='a'/></behaviorTree>";
    dir.write("shared/leaf.debt", leaf);
    let main = dir.write(
        "mod/main.debt",
        "<behaviorTree><subtree>../shared/leaf.debt</subtree></behaviorTree>",
    );
    // By default the root is the tree's directory: `../shared` is outside it.
    let out = btvm_within(LIMIT, &["check", &main]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("leads out of the tree's root"), "{err}");
    // A wider root admits it.
    let root = dir.0.to_string_lossy().into_owned();
    let out = btvm_within(LIMIT, &["check", "--root", &root, &main]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A narrower root than the tree's own directory refuses the tree itself.
    let shared = dir.0.join("shared").to_string_lossy().into_owned();
    let out = btvm_within(LIMIT, &["check", "--root", &shared, &main]);
    assert_eq!(out.status.code(), Some(1));
}
