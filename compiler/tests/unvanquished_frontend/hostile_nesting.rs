//! Hostile nesting.

use super::*;

#[test]
fn deep_selectors() {
    let deep = "selector {\n".repeat(100_000);
    assert_err(&deep, ErrorKind::NestTooDeep, "257:1");
}

#[test]
fn deep_parens() {
    let parens = format!("condition {}1", "(".repeat(100_000));
    assert_err(&parens, ErrorKind::NestTooDeep, "1:267");
}

#[test]
fn deep_nots() {
    let nots = format!("condition {}1", "!".repeat(100_000));
    assert_err(&nots, ErrorKind::NestTooDeep, "1:267");
}

#[test]
fn deep_chain() {
    let chain = format!("condition 1{}", " && 1".repeat(10_000));
    assert_eq!(err(&chain).0.kind, ErrorKind::NestTooDeep);
}

#[test]
fn deep_pp() {
    let pp = format!("#if {}1\n#endif", "(".repeat(100_000));
    assert_eq!(err(&pp).0.kind, ErrorKind::NestTooDeep);
}

#[test]
fn deep_decorators() {
    let decorators = "decorator invert() {\n".repeat(100_000);
    assert_err(&decorators, ErrorKind::NestTooDeep, "257:1");
}

#[test]
fn deep_conditions() {
    let conditions = "condition 1 {\n".repeat(100_000);
    assert_err(&conditions, ErrorKind::NestTooDeep, "257:1");
}

#[test]
fn deep_macro_args() {
    // The first call's argument takes every nested level (the game drops each `(`); its
    // first token, `F` without `(`, ends the stream. Nothing recurses.
    let macro_args = format!(
        "#define F(x) x\ncondition {}1{}",
        "F(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(err(&macro_args).0.kind, ErrorKind::Syntax);
    // The game cannot nest calls: the inner `F` is read without `(` and ends the stream.
    assert_err(
        "#define F(x) x\ncondition F(F(F(1))) { action roam() }",
        ErrorKind::Syntax,
        "2:13",
    );
}
