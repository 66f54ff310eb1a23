//! Hostile program files against the node table's tree names (`spec/bytecode.md` §5.3: the
//! decision-flag, stimulus and argument names a program file carries for scripted runs): every
//! byte of the section flipped (with the header's checksum made to match, so the damage reaches
//! the decoder and the verifier), every prefix, a byte appended, and names the verifier must
//! refuse. Each ends in an error or a verified program whose scenario run through the program
//! path ends normally, never a panic.

use btvm::program::{ArgNames, ProgramParts};
use btvm::{Limits, Program, ProgramErrorKind};
use btvm_compiler::scenario::{parse_scenario, run_program, EngineKind, Outline, Session};
use btvm_compiler::source::FileId;

use super::load_ok;

/// Magic (8 bytes), version (2), checksum (8).
const HEADER: usize = 18;

/// A Spore program (flags and stimuli) and an MBT one with named arguments.
fn programs() -> Vec<(&'static str, Program, &'static str)> {
    let spore = load_ok(&[(
        "a.spore",
        include_bytes!("../../../spec/examples/figure1.spore"),
    )]);
    let mbt = load_ok(&[(
        "a.btn",
        b"btvm 1;\ndialect mbt;\nmodel lifecycle;\nimport action Move 0..2 long;\n\
          root main = sequence remember { action Move(to = \"cover\", speed = 2) action Move(1) }\n",
    )]);
    let lower = |t| btvm_compiler::lower::lower(t, &Limits::default()).unwrap();
    vec![
        (
            "spore",
            lower(&spore),
            "ticks 3\nat 0 flags carnivore, hungry\nat 1 stimulus hit for 150\n",
        ),
        ("mbt", lower(&mbt), "ticks 3\n"),
    ]
}

/// `bytes` with the header's checksum recomputed.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let sum = btvm::program::fingerprint(&bytes[HEADER..]);
    bytes[10..HEADER].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// How many bytes at the end of `program`'s file are its tree names.
fn names_len(program: &Program) -> usize {
    let mut parts = program.parts().clone();
    parts.nodes.names = Default::default();
    let bare = Program::new(parts, &Limits::default()).unwrap().encode();
    program.encode().len() - bare.len() + 12
}

#[test]
fn the_programs_carry_names() {
    let p = programs();
    assert_eq!(p[0].1.nodes().names.flags.len(), 4);
    assert_eq!(p[0].1.nodes().names.stimuli.len(), 3);
    assert_eq!(p[1].1.nodes().names.args.len(), 1);
}

#[test]
fn every_byte_of_the_names_flipped_is_an_error_or_a_verified_program() {
    for (name, program, scenario) in programs() {
        let bytes = program.encode();
        let scn = parse_scenario(FileId(0), scenario).unwrap();
        let from = bytes.len() - names_len(&program);
        for at in from..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= flip;
                let Ok(p) = Program::decode(&resealed(bad), &Limits::default()) else {
                    continue;
                };
                // Verified: its names are the verifier's to vouch for; a run with them ends.
                let outline = Outline::of_program(&p).expect("a known model");
                assert!(outline.flags.len() <= 32, "{name} byte {at}");
                let _ = run_program(&p, &scn, EngineKind::Vm, &Session::default());
            }
        }
    }
}

#[test]
fn every_prefix_of_the_names_and_a_longer_file_are_errors() {
    for (name, program, _) in programs() {
        let bytes = program.encode();
        let from = bytes.len() - names_len(&program);
        for len in from..bytes.len() {
            // The section's own length then overruns the file, or the names end early.
            let e = Program::decode(&resealed(bytes[..len].to_vec()), &Limits::default())
                .expect_err(name);
            assert_eq!(e.kind(), ProgramErrorKind::Truncated, "{name} {len}: {e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Program::decode(&resealed(longer), &Limits::default()).is_err());
    }
}

/// `program` with its names changed by `edit`, through the verifier.
fn with_names(program: &Program, edit: impl FnOnce(&mut ProgramParts)) -> Result<Program, String> {
    let mut parts = program.parts().clone();
    edit(&mut parts);
    Program::new(parts, &Limits::default()).map_err(|e| e.to_string())
}

#[test]
fn names_the_verifier_refuses() {
    let p = programs();
    let (spore, mbt) = (&p[0].1, &p[1].1);
    let refusals: Vec<(&str, Result<Program, String>)> = vec![
        (
            "same flag twice",
            with_names(spore, |q| {
                q.nodes.names.flags[1] = q.nodes.names.flags[0].clone()
            }),
        ),
        (
            "33 flags",
            with_names(spore, |q| {
                q.nodes.names.flags = (0..33).map(|i| format!("f{i}")).collect()
            }),
        ),
        (
            "a stimulus short",
            with_names(spore, |q| {
                q.nodes.names.stimuli.pop();
            }),
        ),
        (
            "a huge flag name",
            with_names(spore, |q| {
                q.nodes.names.flags[0] = "x".repeat(btvm::program::MAX_NODE_TEXT + 1)
            }),
        ),
        (
            "flags outside the decider model",
            with_names(mbt, |q| q.nodes.names.flags = vec!["a".into()]),
        ),
        (
            "names of no import",
            with_names(mbt, |q| q.nodes.names.args[0].import = 7),
        ),
        (
            "more names than arguments",
            with_names(mbt, |q| q.nodes.names.args[0].names = vec![None; 3]),
        ),
        (
            "two lists for one import and count",
            with_names(mbt, |q| {
                let again = q.nodes.names.args[0].clone();
                q.nodes.names.args.push(again);
            }),
        ),
        (
            "a huge argument name",
            with_names(mbt, |q| {
                q.nodes.names.args.push(ArgNames {
                    import: 0,
                    names: vec![Some("y".repeat(btvm::program::MAX_NODE_TEXT + 1))],
                })
            }),
        ),
    ];
    for (what, r) in refusals {
        let e = r.err().unwrap_or_else(|| panic!("{what}: verified"));
        assert!(e.contains("node table"), "{what}: {e}");
    }
    // What the lowering wrote verifies.
    assert!(with_names(spore, |_| ()).is_ok());
}
