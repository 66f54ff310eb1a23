//! Errors, each with its position.

use super::*;

#[test]
fn lexical_errors() {
    // A character that starts no token ends the file (a warning): `roam` is then the last
    // token, without its `()`.
    assert_err("selector {\n  action roam @\n}", ErrorKind::Syntax, "2:10");
    assert_err("selector {\n  action roam é }", ErrorKind::Syntax, "2:10");
    assert_err("action moveTo(1.2.3)", ErrorKind::BadToken, "1:15");
    assert_warns(
        "action say(\"hello)\n",
        ErrorKind::UnterminatedString,
        "1:12",
    );
    assert_warns("action say(\n\"abc", ErrorKind::UnterminatedString, "2:1");
    assert_warns(
        "action roam\n  /* this comment never ends",
        ErrorKind::UnterminatedComment,
        "2:3",
    );
    assert_warns("action say(\"a\\qb\")", ErrorKind::BadEscape, "1:14");
}

#[test]
fn encoding_and_size_errors() {
    let fs = {
        let mut fs = MemFs::new();
        fs.insert("/t/main.bt", b"selector {\n  action roam \xff\n}".to_vec());
        fs
    };
    let mut sources = SourceMap::new();
    let d = load(
        Path::new("/t/main.bt"),
        &fs,
        &Limits::default(),
        &mut sources,
    )
    .unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d[0].span), "/t/main.bt:2:15");
    let mut limits = Limits::new();
    limits.max_source_bytes = 15;
    let (d, at) = err_with(&[("main.bt", "selector { action roam }")], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::SourceTooLarge, "/t/main.bt:1:1")
    );
    let (d, at) = err_with(
        &[
            ("main.bt", "behavior big"),
            ("big.bt", "selector { action roam }"),
        ],
        &limits,
    );
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::SourceTooLarge, "/t/big.bt:1:1")
    );
    // The main file missing entirely.
    let mut sources = SourceMap::new();
    let d = load(
        Path::new("/t/none.bt"),
        &MemFs::new(),
        &Limits::default(),
        &mut sources,
    )
    .unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Io);
}

#[test]
fn preprocessor_errors() {
    // A directive the game's precompiler fails on stops it (a warning); what was read before
    // is parsed: here nothing, then a bare `roam` at the end.
    assert_warns(
        "#error stop here\naction roam()",
        ErrorKind::Preprocessor,
        "1:1",
    );
    assert_err("action roam\n  #frobnicate", ErrorKind::Syntax, "1:8");
    assert_warns("action roam\n  #frobnicate", ErrorKind::Preprocessor, "2:4");
    assert_err("#line 5\naction roam", ErrorKind::Unsupported, "1:1");
    assert_err("#eval 1\naction roam", ErrorKind::Unsupported, "1:1");
    // `$evalint` is one number token; `$evalfloat` and negative results are refused.
    assert_eq!(
        show_main(&load_src("action moveTo($evalint(6 * 7))")),
        "moveTo(42)"
    );
    assert_err(
        "action moveTo($evalint(1 - 2))",
        ErrorKind::Unsupported,
        "1:15",
    );
    assert_err(
        "action moveTo($evalfloat(1))",
        ErrorKind::Unsupported,
        "1:15",
    );
    assert_warns("#if 1 / 0\n#endif", ErrorKind::Preprocessor, "1:7");
    assert_warns("#if UNKNOWN\n#endif", ErrorKind::Preprocessor, "1:5");
    assert_warns("#if 1\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns("#endif\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns(
        "#if 1\n#else\n#else\n#endif",
        ErrorKind::Preprocessor,
        "3:1",
    );
    assert_warns(
        "#if 1\n#else\n#elif 1\n#endif",
        ErrorKind::Preprocessor,
        "3:1",
    );
    assert_warns("#define\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns("#define 3 x", ErrorKind::Preprocessor, "1:9");
    assert_warns("#define F(a, a) a", ErrorKind::Preprocessor, "1:14");
    assert_warns("#undef\n", ErrorKind::Preprocessor, "1:1");
    assert_warns("#\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns("#if 1\n#endif junk", ErrorKind::Preprocessor, "2:8");
    // A misplaced `#endif` fails before its line is read, as in the game.
    assert_warns("#endif junk", ErrorKind::Preprocessor, "1:1");
    assert_warns("#include nothing", ErrorKind::Preprocessor, "1:1");
    // A file included from inside a behavior counts towards the include depth too.
    let mut limits = Limits::new();
    limits.max_include_depth = 1;
    let (d, at) = err_with(
        &[
            ("main.bt", "behavior b"),
            ("b.bt", "#include \"c.h\"\naction roam"),
            ("c.h", ""),
        ],
        &limits,
    );
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeTooDeep, "/t/b.bt:1:1")
    );
}

#[test]
fn grammar_errors() {
    assert_err("action roam\naction fight", ErrorKind::Syntax, "2:1");
    assert_err(
        "condition alertedToEnemy\n{\n    action fight\n    action roam\n}",
        ErrorKind::Syntax,
        "4:5",
    );
    assert_err("selector { action roam()", ErrorKind::Syntax, "1:25");
    // A bare zero-parameter action cannot end a file (the game looks for its `(`).
    assert_err("selector { action roam", ErrorKind::Syntax, "1:19");
    assert_err("selector action roam", ErrorKind::Syntax, "1:10");
    assert_err("selector { roam }", ErrorKind::Syntax, "1:12");
    assert_err("", ErrorKind::Syntax, "1:1");
    assert_err(
        "selector { selectClass { action roam } }",
        ErrorKind::Syntax,
        "1:12",
    );
    assert_err("selectClass action roam", ErrorKind::Syntax, "1:13");
    assert_err("action 5", ErrorKind::Syntax, "1:8");
    assert_err("action moveTo(E_GOAL, x)", ErrorKind::Syntax, "1:23");
    assert_err("action moveTo(E_GOAL, (1))", ErrorKind::Syntax, "1:23");
    assert_err("action moveTo(E_GOAL", ErrorKind::Syntax, "1:14");
    assert_err("spawnAs PCL_NOPE", ErrorKind::Syntax, "1:9");
    assert_err("spawnAs 1.5", ErrorKind::InvalidValue, "1:9");
    // `behavior` takes any token's text: `behavior 5` reads `5.bt`.
    assert_err("behavior 5", ErrorKind::Io, "1:1");
    assert_err(
        "decorator timer(100) action roam",
        ErrorKind::Syntax,
        "1:22",
    );
}

#[test]
fn names_and_arity() {
    let d = assert_err(
        "selector {\n  action roam\n  action dance\n}",
        ErrorKind::UnknownName,
        "3:10",
    );
    // Nothing close: only the profile the name was checked against.
    assert_eq!(
        d.notes,
        ["checked against the actions of the `unvanquished` profile"]
    );
    let d = assert_err("action teleprot(1, 2, 3)", ErrorKind::UnknownName, "1:8");
    assert_eq!(
        d.notes,
        [
            "checked against the actions of the `unvanquished` profile",
            "did you mean `teleport`?"
        ]
    );
    let d = assert_err("action distanceTo(1)", ErrorKind::UnknownName, "1:8");
    assert!(d.notes.iter().any(|n| n.contains("condition function")));
    let d = assert_err(
        "condition isHappy\n{\n    action roam\n}",
        ErrorKind::UnknownName,
        "1:11",
    );
    assert!(d.message.contains("isHappy"));
    assert_eq!(
        d.notes,
        ["checked against the condition functions of the `unvanquished` profile"]
    );
    let d = assert_err("condition roam", ErrorKind::UnknownName, "1:11");
    assert!(d.notes.iter().any(|n| n.contains("is an action")));
    let d = assert_err("condition E_SLEF == 1", ErrorKind::UnknownName, "1:11");
    assert!(
        d.notes.iter().any(|n| n.contains("E_SELF")),
        "{:?}",
        d.notes
    );
    assert_err(
        "decorator repeat(3) { action roam }",
        ErrorKind::UnknownName,
        "1:11",
    );
    let d = assert_err("action roamInRadius(E_GOAL)", ErrorKind::Arity, "1:8");
    assert!(d.message.contains("2 parameters"), "{}", d.message);
    let d = assert_err("action buy(1, 2, 3, 4, 5)", ErrorKind::Arity, "1:8");
    assert!(d.message.contains("1 to 4 parameters"), "{}", d.message);
    // Too many parameters for an action that takes none: logged, and dropped.
    assert_warns("action roam(1)", ErrorKind::Arity, "1:8");
    assert_err(
        "condition percentHealth(E_SELF, 1) > 0.5",
        ErrorKind::Arity,
        "1:11",
    );
    assert_warns(
        "condition team(1) { action roam() }",
        ErrorKind::Arity,
        "1:11",
    );
    assert_err(
        "decorator timer() { action roam }",
        ErrorKind::Arity,
        "1:11",
    );
    assert_err("decorator timer { action roam }", ErrorKind::Arity, "1:11");
    assert_err(
        "decorator mapStatus(0, 1) { action roam }",
        ErrorKind::Arity,
        "1:11",
    );
    // `invert` takes none: its extra parameter is logged and dropped.
    assert_warns(
        "decorator invert(1) { action roam }",
        ErrorKind::Arity,
        "1:11",
    );
}

#[test]
fn invalid_values() {
    assert_err(
        "decorator return(5)\n{\n    action roam\n}",
        ErrorKind::InvalidValue,
        "1:18",
    );
    assert_err(
        "decorator return(1.5) { action roam }",
        ErrorKind::InvalidValue,
        "1:18",
    );
    assert_err(
        "decorator return(\"1\") { action roam }",
        ErrorKind::InvalidValue,
        "1:18",
    );
    assert_err(
        "decorator mapStatus(0, 1, -1) { action roam }",
        ErrorKind::InvalidValue,
        "1:27",
    );
    assert_err(
        "decorator timer(-1) { action roam }",
        ErrorKind::InvalidValue,
        "1:17",
    );
    assert_err(
        "decorator timer(0.5) { action roam }",
        ErrorKind::InvalidValue,
        "1:17",
    );
    let t = load_src(
        "decorator timer(2147483647) { decorator return(STATUS_FAILURE) { action jump } }",
    );
    assert_eq!(
        show_main(&t),
        "timer(2147483647) { map(failure,failure,failure) { jump() } }"
    );
}

#[test]
fn too_many_nodes() {
    let body: String = (1..=21)
        .map(|i| format!("    action say(\"{i}\")\n"))
        .collect();
    let d = assert_err(
        &format!("sequence\n{{\n{body}}}"),
        ErrorKind::TooManyNodes,
        "23:5",
    );
    assert!(d.notes[0].contains("MAX_NODE_LIST"));
    let mut limits = Limits::new();
    limits.max_nodes = 3;
    let (d, at) = err_with(
        &[(
            "main.bt",
            "sequence { action roam action jump action flee }",
        )],
        &limits,
    );
    // Nodes are counted as they are completed: the fourth is the sequence.
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::TooManyNodes, "/t/main.bt:1:1")
    );
}
