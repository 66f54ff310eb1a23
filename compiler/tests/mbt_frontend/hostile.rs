//! Hostile input: malformed XML, invalid UTF-8, deep nesting, size limits.

use super::*;

#[test]
fn malformed_xml_is_a_positioned_syntax_error() {
    for (xml, needle) in [
        (
            "<BehaviorTree>\n  <Root><Halt/></Rot>\n</BehaviorTree>",
            "Rot>",
        ),
        (
            "<BehaviorTree><Root><Halt a='1' a='2'/></Root></BehaviorTree>",
            "a='2'",
        ),
        (
            "<BehaviorTree><Root><Halt/></Root></BehaviorTree>trailing",
            "trailing",
        ),
        (
            "<BehaviorTree><Root><Log message=\"&unknown;\"/></Root></BehaviorTree>",
            "&unknown;",
        ),
    ] {
        let (d, where_) = err_with(xml, false);
        assert_eq!(d.kind, ErrorKind::Syntax, "{xml}: {}", d.message);
        let line = at(xml, needle);
        // The parser points at or inside the bad construct on its line.
        assert_eq!(
            where_.rsplit_once(':').unwrap().0,
            line.rsplit_once(':').unwrap().0,
            "{xml}: {} at {where_}",
            d.message
        );
    }
    for xml in ["", "   ", "<BehaviorTree>", "<?xml version='1.0'?>"] {
        assert_eq!(err_with(xml, false).0.kind, ErrorKind::Syntax, "{xml:?}");
    }
    let dtd = "<!DOCTYPE x [<!ENTITY a 'aaaa'>]><BehaviorTree><Root><Log message='&a;'/></Root></BehaviorTree>";
    assert_err(dtd, ErrorKind::Syntax, "<!DOCTYPE", "DOCTYPE");
}

#[test]
fn invalid_utf8_is_refused() {
    let mut bytes = doc("", "<Log message=\"x\"/>").into_bytes();
    let at = bytes.iter().position(|&b| b == b'x').unwrap();
    bytes[at] = 0xff;
    let (r, sources) = try_load_with(
        &bytes,
        false,
        Limits::default(),
        Some(Format::Dialect(Dialect::Mbt)),
    );
    let d = r.unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::InvalidUtf8);
    assert_eq!(d[0].span.start as usize, at);
    assert!(sources.locate(d[0].span).starts_with(PATH));
}

#[test]
fn deep_nesting_is_nest_too_deep_not_a_crash() {
    let n = 100_000;
    let xml = format!(
        "<BehaviorTree><Root>{}<Halt/>{}</Root></BehaviorTree>",
        "<Loop>".repeat(n),
        "</Loop>".repeat(n)
    );
    // On a small stack: the front-end does not recurse at all.
    let (d, where_) = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || err_with(&xml, false))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(d.kind, ErrorKind::NestTooDeep);
    // The first node past the limit (256 levels) is the 257th `<Loop>`.
    assert_eq!(where_, format!("{PATH}:1:{}", 21 + 256 * 6));

    // Exactly at the limit loads; one deeper does not, wrappers counted.
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let load = |body: &str| {
        try_load_with(
            doc("", body).as_bytes(),
            false,
            limits,
            Some(Format::Dialect(Dialect::Mbt)),
        )
        .0
    };
    assert!(load("<Loop><Loop><Loop><Halt/></Loop></Loop></Loop>").is_ok());
    let e = load("<Loop><Loop><Loop><Loop><Halt/></Loop></Loop></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    // A log wrapper is a level: depth 5.
    let e = load("<Loop><Loop><Loop _startLog=\"x\"><Halt/></Loop></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    // So are ExecuteLua's condition, Case and State.
    assert!(load("<Loop><Loop><ExecuteLua code=\"x\"/></Loop></Loop>").is_ok());
    let e = load("<Loop><Loop><Loop><ExecuteLua code=\"x\"/></Loop></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    let e =
        load("<Loop><Loop><Priority><Case><Halt/></Case></Priority></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    let e = load(
        "<Loop><Loop><StateMachine><State name=\"s\"><BehaviorTree><Halt/></BehaviorTree></State></StateMachine></Loop></Loop>",
    )
    .unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
}

#[test]
fn size_limits() {
    let fmt = Some(Format::Dialect(Dialect::Mbt));
    // A file over the source limit.
    let limits = Limits {
        max_source_bytes: 1000,
        ..Limits::default()
    };
    let big = doc("", &format!("<Log message=\"{}\"/>", "x".repeat(2000)));
    let (r, _) = try_load_with(big.as_bytes(), false, limits, fmt);
    assert_eq!(r.unwrap_err()[0].kind, ErrorKind::SourceTooLarge);
    // Too many nodes: counted while building, with the wrappers.
    let limits = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    let wide: String = (0..10).map(|_| "<Halt/>").collect();
    let (r, _) = try_load_with(
        doc("", &format!("<Parallel>{wide}</Parallel>")).as_bytes(),
        false,
        limits,
        fmt,
    );
    assert_eq!(r.unwrap_err()[0].kind, ErrorKind::TooManyNodes);
    let nine: String = (0..9).map(|_| "<Halt/>").collect();
    let (r, _) = try_load_with(
        doc("", &format!("<Parallel>{nine}</Parallel>")).as_bytes(),
        false,
        limits,
        fmt,
    );
    assert!(r.is_ok());
    // A big, valid file loads: 20,000 leaves under nested composites.
    let inner: String = (0..200)
        .map(|i| format!("<Log message=\"{i}\"/>"))
        .collect();
    let outer: String = (0..100)
        .map(|_| format!("<Sequence>{inner}</Sequence>"))
        .collect();
    let chunks: String = (0..1)
        .map(|_| format!("<Selector>{outer}</Selector>"))
        .collect();
    let t = ok(&doc("", &chunks));
    assert_eq!(t.nodes.len(), 1 + 100 + 20_000);
}

#[test]
fn long_and_deep_expressions_are_refused() {
    let decls = r#"<Variables><Variable name="A"/></Variables>"#;
    let long = vec!["A"; 200].join(" and ");
    let (d, _) = err_with(
        &doc(decls, &format!("<AssertCondition condition=\"{long}\"/>")),
        false,
    );
    assert_eq!(d.kind, ErrorKind::LimitExceeded, "{}", d.message);
    let deep = format!("{}A{}", "(".repeat(100_000), ")".repeat(100_000));
    let xml = doc(decls, &format!("<AssertCondition condition=\"{deep}\"/>"));
    let (d, _) = err_with(&xml, false);
    assert!(
        matches!(d.kind, ErrorKind::NestTooDeep | ErrorKind::LimitExceeded),
        "{:?}",
        d.kind
    );
}

#[test]
fn many_attributes_on_a_profile_node() {
    let attrs: String = (0..256).map(|i| format!(" a{i}=\"v\"")).collect();
    let xml = doc("", &format!("<Move{attrs}/>"));
    assert_err_with(&xml, true, ErrorKind::Arity, "<Move", "255");
    let attrs: String = (0..255).map(|i| format!(" a{i}=\"v\"")).collect();
    ok_sdk(&doc("", &format!("<Move{attrs} _startLog=\"s\"/>")));
}
