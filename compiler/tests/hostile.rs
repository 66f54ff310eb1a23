//! Hostile input through the whole loading pipeline (`load` = front-end + `check`): every case
//! ends in a positioned error of the right kind, never a panic or a stack overflow. Runs on the
//! default test-thread stack on purpose.

use std::path::Path;

use btvm_compiler::diag::ErrorKind;
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::source::{MemFs, SourceMap};

fn load_err(files: &[(&str, &[u8])]) -> (ErrorKind, String) {
    let mut fs = MemFs::new();
    for (name, bytes) in files {
        fs.insert(Path::new("/t").join(name), bytes.to_vec());
    }
    let mut sources = SourceMap::new();
    let main = Path::new("/t").join(files[0].0);
    match load(&main, &fs, &LoadOptions::default(), &mut sources) {
        Ok(_) => panic!("{} loaded but should not have", files[0].0),
        Err(diags) => {
            let d = &diags[0];
            (d.kind, sources.locate(d.span))
        }
    }
}

#[test]
fn deep_nesting_is_rejected_before_recursing() {
    let deep_bt = "selector {\n".repeat(100_000);
    assert_eq!(
        load_err(&[("a.bt", deep_bt.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );
    let deep_expr = format!("condition {}1", "(".repeat(100_000));
    assert_eq!(
        load_err(&[("a.bt", deep_expr.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );
    let nots = format!("condition {}1", "!".repeat(100_000));
    assert_eq!(
        load_err(&[("a.bt", nots.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );
    let chain = format!("condition 1{}", " && 1".repeat(10_000));
    assert_eq!(
        load_err(&[("a.bt", chain.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );
    let deep_btn = format!(
        "btvm 1;\ndialect unvanquished;\nroot main = {}",
        "invert {\n".repeat(100_000)
    );
    assert_eq!(
        load_err(&[("a.btn", deep_btn.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );
}

#[test]
fn include_cycles_are_errors() {
    let (kind, _) = load_err(&[
        ("a.bt", b"behavior b"),
        ("b.bt", b"selector { behavior a }"),
    ]);
    assert_eq!(kind, ErrorKind::IncludeCycle);
    let (kind, _) = load_err(&[("a.bt", b"behavior a")]);
    assert_eq!(kind, ErrorKind::IncludeCycle);
    let btn = b"btvm 1;\ndialect unvanquished;\nroot main = include \"s\"\nsubtree \"s\" shared = include \"s\"\n";
    assert_eq!(load_err(&[("a.btn", btn)]).0, ErrorKind::IncludeCycle);
}

#[test]
fn invalid_utf8_is_positioned() {
    let (kind, at) = load_err(&[("a.bt", b"selector {\n  action roam \xff\n}")]);
    assert_eq!(kind, ErrorKind::InvalidUtf8);
    assert!(at.ends_with(":2:15"), "{at}");
    assert_eq!(
        load_err(&[("a.btn", b"btvm 1; \xc3")]).0,
        ErrorKind::InvalidUtf8
    );
}

#[test]
fn names_arity_and_literals() {
    assert_eq!(
        load_err(&[("a.bt", b"action teleprot(1, 2, 3)")]).0,
        ErrorKind::UnknownName
    );
    assert_eq!(
        load_err(&[("a.bt", b"action teleport(1, 2)")]).0,
        ErrorKind::Arity
    );
    assert_eq!(
        load_err(&[("a.bt", b"condition nosuchfn > 1")]).0,
        ErrorKind::UnknownName
    );
    assert_eq!(
        load_err(&[("a.bt", b"action moveTo(99999999999999999999999)")]).0,
        ErrorKind::LiteralOverflow
    );
    assert_eq!(
        load_err(&[("a.bt", b"action say(\"abc")]).0,
        ErrorKind::UnterminatedString
    );
    assert_eq!(
        load_err(&[("a.bt", b"action say(\"a\\qb\")")]).0,
        ErrorKind::BadEscape
    );
    assert_eq!(
        load_err(&[("a.bt", b"/* never closed\naction roam")]).0,
        ErrorKind::UnterminatedComment
    );
    assert_eq!(load_err(&[("a.bt", b"behavior missing")]).0, ErrorKind::Io);
}

#[test]
fn huge_source_is_rejected_up_front() {
    let big = vec![b' '; 17 << 20];
    assert_eq!(load_err(&[("a.bt", &big)]).0, ErrorKind::SourceTooLarge);
}
