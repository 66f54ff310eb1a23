//! Errors.

use super::*;

#[test]
fn unknown_and_misplaced_elements_are_errors() {
    assert_err(
        "<behaviorTree>\n<sequence>\n   <parallel/></sequence></behaviorTree>",
        ErrorKind::UnknownName,
        "3:4",
    );
    // Tags are case-sensitive.
    assert_err(
        "<behaviorTree>\n  <Sequence/></behaviorTree>",
        ErrorKind::UnknownName,
        "2:3",
    );
    assert_err(
        "<behaviorTree><action name='a'>\n <parameter name='p'/> <sequence/></action></behaviorTree>",
        ErrorKind::Syntax,
        "2:24",
    );
    assert_err(
        "<behaviorTree><success>\n<foo/></success></behaviorTree>",
        ErrorKind::UnknownName,
        "2:1",
    );
    assert_err(
        "<behaviorTree>\n<condition>x</condition></behaviorTree>",
        ErrorKind::Syntax,
        "2:1",
    );
    let d = assert_err(
        "<?xml version='1.0'?>\n<tree><success/></tree>",
        ErrorKind::Syntax,
        "2:1",
    );
    assert!(d.message.contains("behaviorTree"), "{}", d.message);
}

#[test]
fn a_second_top_level_rule_is_an_error() {
    let d = assert_err(
        "<behaviorTree>\n  <success/>\n  <failure/>\n</behaviorTree>",
        ErrorKind::Syntax,
        "3:3",
    );
    assert_eq!(d.labels.len(), 1);
    // Subtree files may have any number.
    load_files(&[
        ("main.debt", &tree("<subtree>s.debt</subtree>")),
        ("s.debt", &tree("<success/><failure/><yield/>")),
    ]);
}

#[test]
fn a_bad_condition_mode_is_an_error_at_its_text() {
    assert_err(
        "<behaviorTree><success>\n<conditionMode>AllTrue</conditionMode></success></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:16",
    );
    assert_err(
        "<behaviorTree><success>\n<conditionMode/></success></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:1",
    );
}

#[test]
fn missing_or_empty_names_are_errors() {
    assert_err(
        "<behaviorTree>\n  <action id='x'/></behaviorTree>",
        ErrorKind::Syntax,
        "2:3",
    );
    assert_err(
        "<behaviorTree>\n  <action name=''/></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:11",
    );
    assert_err(
        "<behaviorTree><success>\n  <condition></condition></success></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:3",
    );
    assert_err(
        "<behaviorTree><success>\n  <parameter>v</parameter></success></behaviorTree>",
        ErrorKind::Syntax,
        "2:3",
    );
    // Spaces only, and the last node: cleaned to nothing.
    assert_err(
        "<behaviorTree>\n <subtree id='s'>  </subtree></behaviorTree>",
        ErrorKind::Syntax,
        "2:2",
    );
    assert_err(
        "<behaviorTree>\n <subtree id='s'/></behaviorTree>",
        ErrorKind::Syntax,
        "2:2",
    );
}

#[test]
fn child_elements_of_text_elements_are_ignored() {
    // LoadBehaviorTree.ds readRuleSubTree and readRuleCommon never visit them; they only
    // split the text.
    for inner in [
        "<condition>c</condition>",
        "<parameter name='p'>v</parameter>",
        "<conditionMode>anyTrue</conditionMode>",
        "<success/>",
        "<anything/>",
    ] {
        let main = format!("<behaviorTree><subtree>{inner}s.debt</subtree></behaviorTree>");
        let t = load_files(&[("main.debt", &main), ("s.debt", "<behaviorTree/>")]);
        assert!(!show_main(&t).contains("@bound(c)"), "{}", show_main(&t));
    }
    let t = load_tree("<success><condition>a<b/>c</condition></success>");
    assert!(show_main(&t).contains("@bound(a)"), "{}", show_main(&t));
    // Text ending before a child element keeps its trailing space (it is not the last node).
    let main =
        "<behaviorTree><subtree>s.debt\n    <condition>c</condition></subtree></behaviorTree>";
    let (d, _) = err_with(
        &[("main.debt", main), ("s.debt", "<behaviorTree/>")],
        &Limits::default(),
    );
    assert_eq!(d.kind, ErrorKind::Io);
}

#[test]
fn malformed_xml_is_a_positioned_syntax_error() {
    assert_err(
        "<behaviorTree>\n  <sequence>\n  </choice>\n</behaviorTree>",
        ErrorKind::Syntax,
        "3:3",
    );
    // What Drag[en]gine's decXmlParser refuses and roxmltree accepts.
    assert_err(
        "<behaviorTree>\n  <success id  ='b'/>\n</behaviorTree>",
        ErrorKind::Syntax,
        "2:12",
    );
    assert_err("\u{feff}<behaviorTree/>", ErrorKind::Syntax, "1:1");
    let d = assert_err("", ErrorKind::Syntax, "1:1");
    assert!(d.message.contains("root element"), "{}", d.message);
    assert_err("<behaviorTree>\n<success/>\n", ErrorKind::Syntax, "3:1");
    // An unknown entity is no error (decXmlParser makes it a node of its own).
    load_files(&[("main.debt", "<behaviorTree>&nope;</behaviorTree>")]);
    assert_err(
        "<?xml version='1.0'?>\n<!DOCTYPE x [<!ENTITY e 'x'>]>\n<behaviorTree/>",
        ErrorKind::Syntax,
        "2:1",
    );
}

#[test]
fn invalid_utf8_is_an_error_in_the_main_file_and_in_subtrees() {
    let mut main = b"<behaviorTree>\n<success id='".to_vec();
    main.extend_from_slice(&[0xff, b'\'', b'/', b'>']);
    main.extend_from_slice(b"</behaviorTree>");
    let (r, sources) = try_load_bytes(&[("main.debt", &main)], &Limits::default());
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d.span), "/t/main.debt:2:14");

    let sub = [b'<', 0xc3, b'>'];
    let (r, sources) = try_load_bytes(
        &[
            (
                "main.debt",
                b"<behaviorTree><subtree>s.debt</subtree></behaviorTree>",
            ),
            ("s.debt", &sub),
        ],
        &Limits::default(),
    );
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d.span), "/t/s.debt:1:2");
    assert_eq!(sources.locate(d.labels[0].span), "/t/main.debt:1:15");
}

#[test]
fn size_and_node_limits_are_errors() {
    let limits = Limits {
        max_source_bytes: 20,
        ..Limits::default()
    };
    let (d, _) = err_with(&[("main.debt", &tree("<success/>"))], &limits);
    assert_eq!(d.kind, ErrorKind::SourceTooLarge);

    let limits = Limits {
        max_nodes: 4,
        ..Limits::default()
    };
    // sequence 1, success 2, action guard+action 4, the second success is the fifth node.
    let src = "<behaviorTree><sequence><success/><action name='a'/>\n<success/></sequence></behaviorTree>";
    let (d, at) = err_with(&[("main.debt", src)], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::TooManyNodes, "/t/main.debt:2:1")
    );
}

#[test]
fn an_exponential_subtree_fan_out_stops_at_the_node_limit() {
    // Each level includes the next twice: 2^30 copies without the limit.
    let mut files: Vec<(String, String)> =
        vec![("main.debt".into(), tree("<subtree>l0.debt</subtree>"))];
    for i in 0..30 {
        let next = format!("<subtree>l{}.debt</subtree>", i + 1);
        files.push((format!("l{i}.debt"), tree(&format!("{next}{next}"))));
    }
    files.push(("l30.debt".into(), tree("<success/>")));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let limits = Limits {
        max_nodes: 10_000,
        ..Limits::default()
    };
    let (d, _) = err_with(&files, &limits);
    assert_eq!(d.kind, ErrorKind::TooManyNodes);
}
