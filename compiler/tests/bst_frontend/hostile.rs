//! Hostile input: malformed XML, unknown roots, invalid UTF-8, deep nesting, node limits.

use super::*;

#[test]
fn malformed_xml_is_a_positioned_syntax_error() {
    let f = assert_err(
        "<SelectionTrees>\n  <SelectionTree></Oops>\n",
        ErrorKind::Syntax,
        "<",
    );
    assert!(f.at.starts_with("/t/main.xml:2:"), "{}", f.at);
    assert_err("", ErrorKind::Syntax, "");
    assert_err("<SelectionTrees>", ErrorKind::Syntax, "");
    assert_err("<SelectionTrees a='1' a='2'/>", ErrorKind::Syntax, "a");
    assert_err(
        "<?xml version='1.0'?><!DOCTYPE x [<!ENTITY e 'lol'>]><SelectionTrees/>",
        ErrorKind::Syntax,
        "<!DOCTYPE",
    );
    // Unknown entities.
    let f = fail_files(&[("main.xml", &tree("<Leaf name='&bogus;'/>"))]);
    assert_eq!(f.diag.kind, ErrorKind::Syntax);
}

#[test]
fn an_unknown_root_element_is_an_error_with_dialect_bst() {
    let fs = front::memfs(&[("main.xml", b"<BehaviorTree/>")]);
    let mut sources = SourceMap::new();
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        ..LoadOptions::default()
    };
    let d = load(Path::new("/t/main.xml"), &fs, &options, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Syntax);
    assert_eq!(sources.locate(d[0].span), "/t/main.xml:1:1");
}

#[test]
fn invalid_utf8_and_oversized_files() {
    let mut bytes = tree("<Leaf name='X'/>").into_bytes();
    bytes.splice(40..40, [0xC3u8, 0x28]);
    let f = fail_bytes(&[("main.xml", &bytes)], &Limits::default());
    assert_eq!(f.diag.kind, ErrorKind::InvalidUtf8);
    assert_eq!(f.at, "/t/main.xml:1:41");
    let limits = Limits {
        max_source_bytes: 100,
        ..Limits::default()
    };
    let big = tree(&"<Leaf name='X'/>".repeat(10));
    let f = fail_bytes(&[("main.xml", big.as_bytes())], &limits);
    assert_eq!(f.diag.kind, ErrorKind::SourceTooLarge);
    // A missing main file (with an explicit format, so the sniffer does not decide).
    let fs = front::memfs(&[]);
    let mut sources = SourceMap::new();
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        ..LoadOptions::default()
    };
    let d = load(Path::new("/t/none.xml"), &fs, &options, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Io);
}

#[test]
fn hundred_thousand_deep_nesting_is_a_positioned_error() {
    let n = 100_000;
    let open = "<Priority name='P'>".repeat(n);
    let close = "</Priority>".repeat(n);
    let src = tree(&format!("{open}<Leaf name='L'/>{close}"));
    let f = fail_files(&[("main.xml", &src)]);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
    assert_eq!(f.text, "<Priority name='P'>");
    // Each Priority is two IR levels (the node and its case): under 127 the leaf is at
    // depth 255, under 128 at 257.
    let nest = |n: usize| {
        tree(&format!(
            "{}<Leaf name='L'/>{}",
            "<Priority name='P'>".repeat(n),
            "</Priority>".repeat(n)
        ))
    };
    ok(&nest(127));
    assert_eq!(
        fail_files(&[("main.xml", &nest(128))]).diag.kind,
        ErrorKind::NestTooDeep
    );
    // State machines nest the same way.
    let sm = format!(
        "{}<Leaf name='L'/>{}",
        "<StateMachine name='M'><State name='S'>".repeat(n),
        "</State></StateMachine>".repeat(n)
    );
    let f = fail_files(&[("main.xml", &tree(&sm))]);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
    // Tight limits are honoured.
    let limits = Limits {
        max_depth: 5,
        ..Limits::default()
    };
    let f = fail_bytes(&[("main.xml", nest(3).as_bytes())], &limits);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
}

#[test]
fn too_many_nodes() {
    let limits = Limits {
        max_nodes: 50,
        ..Limits::default()
    };
    let src = tree(&format!(
        "<Priority name='R'>{}</Priority>",
        "<Leaf name='L'/>".repeat(30)
    ));
    let f = fail_bytes(&[("main.xml", src.as_bytes())], &limits);
    assert_eq!(f.diag.kind, ErrorKind::TooManyNodes);
    let src = tree(&format!(
        "<Priority name='R'>{}</Priority>",
        "<Leaf name='L'/>".repeat(20)
    ));
    front::try_load_bytes(load_any, &[("main.xml", src.as_bytes())], &limits)
        .0
        .unwrap();
}
