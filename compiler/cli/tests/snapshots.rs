//! `btvm run --save-at N --save F` / `--restore F --from N` with btvm snapshots, every dialect:
//! the two halves equal the uninterrupted trace on the reference, the vm, native code and
//! across them; the reference writes the vm's very bytes; a snapshot of another program, a
//! truncated one and one with a flipped byte exit 1 with a clear message and no panic.

mod common;
use common::*;

/// Each dialect's example: tree, scenario, extra arguments. The MBT scenario's counted
/// answers are replaced by constants (the scripted host's counters are not the agents').
fn examples() -> Vec<(String, String, Vec<&'static str>)> {
    let squad = temp(
        "squad.scn",
        "agents 3\nticks 12\ntime 0 250\nanswer Move = running\nanswer Shoot = success\n\
         at 3 event OnEnemySeen\nat 7 event OnBulletRain\n",
    );
    vec![
        (
            spec("examples/figure1.spore"),
            spec("examples/figure1.scn"),
            vec![],
        ),
        (
            spec("examples/guard.bt"),
            spec("examples/guard.scn"),
            vec![],
        ),
        (
            spec("examples/wanderer/wanderer.debt"),
            spec("examples/wanderer/wanderer.scn"),
            vec![],
        ),
        (
            spec("examples/squad_soldier.xml"),
            squad.to_string_lossy().into_owned(),
            vec!["--profile", "gamesdk"],
        ),
    ]
}

fn engines() -> Vec<&'static str> {
    if cfg!(feature = "jit") {
        vec!["reference", "vm", "native"]
    } else {
        vec!["reference", "vm"]
    }
}

/// An Unvanquished tree saved on the reference and on the vm: the same snapshot, byte for
/// byte (the reference exports the blocks the vm holds, `spec/bytecode.md` §9), and each
/// resumes on the other.
#[test]
fn the_reference_saves_the_vms_snapshot() {
    let (tree, scn) = (spec("examples/guard.bt"), spec("examples/guard.scn"));
    let save = |engine: &str, name: &str| {
        let path = temp(name, b"");
        let p = path.to_str().unwrap();
        let args = [
            "run",
            &tree,
            "-s",
            &scn,
            "--engine",
            engine,
            "--save-at",
            "4",
            "--save",
            p,
        ];
        let out = btvm(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        (text(&out.stdout), std::fs::read(&path).unwrap())
    };
    let (first, on_reference) = save("reference", "ref.snap");
    let (_, on_vm) = save("vm", "vm.snap");
    assert_eq!(&on_reference[..8], b"BTVMSNAP");
    assert_eq!(on_reference, on_vm);
    let whole = btvm(&["run", &tree, "-s", &scn]);
    let path = temp("ref.snap", &on_reference);
    for engine in ["vm", "reference"] {
        let args = ["run", &tree, "-s", &scn, "--engine", engine, "--restore"];
        let mut args = args.to_vec();
        args.extend([path.to_str().unwrap(), "--from", "4"]);
        let rest = btvm(&args);
        assert!(rest.status.success(), "{args:?}: {}", text(&rest.stderr));
        assert_eq!(
            first.clone() + &text(&rest.stdout),
            text(&whole.stdout),
            "{engine}"
        );
    }
}

#[test]
fn every_dialect_resumes_from_a_btvm_snapshot_on_every_engine() {
    let saved = temp("run.snap", b"");
    let saved = saved.to_str().unwrap();
    for (tree, scn, extra) in examples() {
        let run = |more: &[&str]| {
            let mut args = vec!["run", &tree, "-s", &scn];
            args.extend(&extra);
            args.extend(more);
            let out = btvm(&args);
            assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
            text(&out.stdout)
        };
        let whole = run(&["--engine", "vm"]);
        assert!(whole.lines().count() > 10, "{tree}: {whole}");
        for first in engines() {
            for second in engines() {
                // Drag[en]gine saves cursor records unless told: ask for a btvm snapshot.
                let a = run(&[
                    "--engine",
                    first,
                    "--save-at",
                    "5",
                    "--save",
                    saved,
                    "--snapshot-format",
                    "btvm",
                ]);
                let bytes = std::fs::read(saved).unwrap();
                assert_eq!(&bytes[..8], b"BTVMSNAP", "{tree}");
                let b = run(&["--engine", second, "--restore", saved, "--from", "5"]);
                assert_eq!(
                    a + &b,
                    whole,
                    "{tree}: saved on {first}, resumed on {second}"
                );
            }
        }
    }
}

/// Runs and expects exit 1 with `says` in the error and no panic.
fn refused(args: &[&str], says: &str) {
    let out = btvm(args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: expected `{says}` in: {err}");
}

#[test]
fn foreign_truncated_and_damaged_snapshots_are_refused() {
    let (tree, scn) = (spec("examples/guard.bt"), spec("examples/guard.scn"));
    let saved = temp("guard.snap", b"");
    let saved = saved.to_str().unwrap();
    let a = btvm(&[
        "run",
        &tree,
        "-s",
        &scn,
        "--engine",
        "vm",
        "--save-at",
        "4",
        "--save",
        saved,
    ]);
    assert!(a.status.success(), "{}", text(&a.stderr));
    let bytes = std::fs::read(saved).unwrap();
    let resume = |path: &str, tree: &str, scn: &str, says: &str| {
        refused(
            &[
                "run",
                tree,
                "-s",
                scn,
                "--engine",
                "vm",
                "--restore",
                path,
                "--from",
                "4",
            ],
            says,
        )
    };
    // Another program: the Spore example.
    resume(
        saved,
        &spec("examples/figure1.spore"),
        &spec("examples/figure1.scn"),
        "a snapshot of another program",
    );
    let cut = temp("cut.snap", &bytes[..bytes.len() - 3]);
    resume(cut.to_str().unwrap(), &tree, &scn, "cut short");
    // A byte of the fingerprint, of the state block and of the check.
    for at in [12, bytes.len() - 9, bytes.len() - 1] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        let f = temp("flip.snap", &flipped);
        resume(f.to_str().unwrap(), &tree, &scn, "damaged");
    }
    // The reference reads the same snapshots and refuses the same damage.
    let mut flipped = bytes.clone();
    flipped[bytes.len() - 9] ^= 0x10;
    let f = temp("flip-ref.snap", &flipped);
    let f = f.to_str().unwrap();
    refused(
        &["run", &tree, "-s", &scn, "--restore", f, "--from", "4"],
        "damaged",
    );
    // Cursor records asked of a tree of another model.
    refused(
        &[
            "run",
            &tree,
            "-s",
            &scn,
            "--engine",
            "vm",
            "--save-at",
            "4",
            "--save",
            saved,
            "--snapshot-format",
            "cursor",
        ],
        "only cursor-model",
    );
}
