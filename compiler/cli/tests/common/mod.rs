//! What every test of the `btvm` command shares: running the binary (optionally under a
//! deadline), paths into `spec/`, scratch files, and reading output as text.
//!
//! Each test binary compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `btvm` with `--color=never` (arguments follow).
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_btvm"));
    c.arg("--color=never");
    c
}

/// Runs `btvm ARGS` to completion.
pub fn btvm(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs `btvm ARGS`, which must succeed; its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = btvm(args);
    assert!(
        out.status.success(),
        "btvm {}: {}",
        args.join(" "),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The compiled engines this build has: native code only with feature `jit` (without it,
/// `--engine native` is refused).
pub fn compiled_engines() -> &'static [&'static str] {
    match cfg!(feature = "jit") {
        true => &["vm", "native"],
        false => &["vm"],
    }
}

/// Runs `btvm ARGS` with `input` on its standard input.
pub fn btvm_fed(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The command may exit without reading (a usage error): a broken pipe is no failure.
    if let Err(e) = stdin.write_all(input) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Runs `btvm ARGS` with no standard input, killing it (and failing) after `limit`, so a
/// read that blocks fails the test instead of hanging it.
pub fn btvm_within(limit: Duration, args: &[&str]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`btvm {}` still running after {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The path of `p` under the repository's `spec/`.
pub fn spec(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../spec")
        .join(p)
        .to_string_lossy()
        .into_owned()
}

/// Writes `bytes` to `name` in this test binary's scratch directory (one per binary and
/// process, under the system's temporary directory) and returns its path.
pub fn temp(name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "btvm-cli-{}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Output bytes as text (lossy).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
