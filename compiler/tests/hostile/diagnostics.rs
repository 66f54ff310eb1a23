//! Diagnostics an attacker cannot abuse (issue 25, findings 10, 11 and the XML half of 12):
//! control characters from a tree or a scenario never reach the terminal raw, a huge name
//! gives a short diagnostic quickly, and `.xml` files with a DOCTYPE or in UTF-16 get a clear
//! answer instead of "cannot tell the format".

use std::time::{Duration, Instant};

use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::load::Format;
use btvm_compiler::scenario::{self, parse_scenario};
use btvm_compiler::source::{FileId, SourceMap};

use super::{load_err, load_ok, try_load, BTN_HEADER};

/// The control characters of the attack: an escape sequence (clear screen), a bell, a carriage
/// return (overwrites the line) and a NUL, plus a C1 CSI (`U+009B`, an escape on some
/// terminals).
const NASTY: &str = "X\u{1b}[2J\u{7}\r\0\u{9b}31mY";

/// Everything a diagnostic shows: its one-line display and each label and note.
fn shown(d: &Diagnostic, sources: &SourceMap) -> String {
    let mut s = d.display(sources).to_string();
    for l in &d.labels {
        s.push('\n');
        s.push_str(&l.message);
    }
    for n in &d.notes {
        s.push('\n');
        s.push_str(n);
    }
    s
}

/// Panics if `text` holds a control character other than a newline.
fn assert_no_controls(text: &str, what: &str) {
    if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\n') {
        panic!("{what}: raw control character {c:?} in {text:?}");
    }
}

/// Loads `files` (the first one is the tree), expecting failure; returns what its first
/// diagnostic shows.
fn failure_text(files: &[(&str, &[u8])]) -> String {
    match try_load(files) {
        (Ok(_), _) => panic!("{} loaded but should not have", files[0].0),
        (Err(diags), sources) => diags
            .iter()
            .map(|d| shown(d, &sources))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Finding 10: names carrying ESC, BEL, CR, NUL and CSI, in every tree format, where the
/// diagnostic echoes them; the text shown has them escaped (`\u{1b}`, `\r`, `\0`).
#[test]
fn control_characters_in_names_are_escaped_in_every_format() {
    let btn = format!("{BTN_HEADER}root main = include \"{NASTY}\"\n");
    let bt = format!("action {NASTY}\n");
    let bt_behavior = format!("behavior {NASTY}\n");
    let debt = format!("<behaviorTree><subtree>{NASTY}.debt</subtree></behaviorTree>");
    let mbt = format!(
        "<BehaviorTree><Root><{0}/></Root></BehaviorTree>",
        "Nasty\u{9b}"
    );
    let mbt_attr = format!(
        "<BehaviorTree><Root><Sequence><Action name=\"{}\"/></Sequence></Root></BehaviorTree>",
        "A\u{9b}2J\u{85}"
    );
    let cases: [(&str, &str); 6] = [
        ("a.btn", &btn),
        ("a.bt", &bt),
        ("a.bt", &bt_behavior),
        ("a.debt", &debt),
        ("a.xml", &mbt),
        ("a.xml", &mbt_attr),
    ];
    for (name, src) in cases {
        let text = failure_text(&[(name, src.as_bytes())]);
        assert_no_controls(&text, name);
    }
    // Where the message echoes the name, the escapes are there to read.
    let text = failure_text(&[("a.btn", btn.as_bytes())]);
    assert!(
        text.contains("X\\u{1b}[2J\\u{7}\\r\\0\\u{9b}31mY"),
        "{text}"
    );
}

/// Finding 10 in a scenario: a scenario line naming an action with control characters.
#[test]
fn control_characters_in_a_scenario_are_escaped() {
    let tree = load_ok(&[(
        "a.btn",
        format!("{BTN_HEADER}root main = action a()\n").as_bytes(),
    )]);
    let sources = SourceMap::new();
    let bad = [
        format!("ticks 1\nanswer {NASTY} = success\n"),
        format!("ticks 1\nmissing {NASTY}\n"),
        format!("ticks 1\n{NASTY}\n"),
    ];
    for src in &bad {
        let d = match parse_scenario(FileId(0), src) {
            Err(d) => d,
            Ok(scn) => match scenario::run(&tree, &scn, scenario::EngineKind::Reference) {
                Err(d) => vec![d],
                Ok(trace) => {
                    // Accepted (an answer for a name the tree does not call): the trace is
                    // the tree's, with no name from the scenario in it.
                    assert_no_controls(&trace.to_string(), "trace");
                    continue;
                }
            },
        };
        for d in &d {
            assert_no_controls(&shown(d, &sources), "scenario");
        }
    }
}

/// Finding 11: a 15 MB unknown name was echoed whole (a 15 MB diagnostic) after 7 s in the
/// "did you mean" search (`.bt`). Now every format answers with a short diagnostic, quickly;
/// the name is cut with an ellipsis.
#[test]
fn a_15_mb_unknown_name_gives_a_short_diagnostic_quickly() {
    let name = "q".repeat(15 << 20);
    let cases: [(&str, String, ErrorKind); 3] = [
        ("a.bt", format!("action {name}\n"), ErrorKind::UnknownName),
        (
            "a.btn",
            format!("{BTN_HEADER}root main = action {name}()\n"),
            ErrorKind::UnknownName,
        ),
        (
            "a.bt",
            format!("condition {name}\n"),
            ErrorKind::UnknownName,
        ),
    ];
    for (file, src, kind) in &cases {
        let started = Instant::now();
        let (r, sources) = try_load(&[(file, src.as_bytes())]);
        let diags = r.expect_err("an unknown name");
        let elapsed = started.elapsed();
        assert_eq!(diags[0].kind, *kind, "{file}");
        let text = shown(&diags[0], &sources);
        assert!(
            text.len() < 2000,
            "{file}: a diagnostic of {} bytes",
            text.len()
        );
        assert!(text.contains('…'), "{file}: the name is cut: {text}");
        // Debug build on 2 shared cores: reading and lexing 15 MB takes a few seconds.
        assert!(elapsed < Duration::from_secs(30), "{file}: {elapsed:?}");
    }
}

/// Finding 12 (XML half): an `.xml` file with a DOCTYPE said "cannot tell the format" when
/// its internal subset held a `>`. The root element after the DOCTYPE now decides the
/// format, and the XML reader then refuses the DOCTYPE itself (no DTDs, so no entity bombs)
/// with a positioned error.
#[test]
fn xml_with_a_doctype_is_recognised() {
    let prolog = "<?xml version=\"1.0\"?>\n<!DOCTYPE x [\n  <!ENTITY a \"<b>\">\n  \
                  <!-- a > in a comment -->\n]>\n";
    for (root, format) in [
        (
            "<SelectionTrees/>",
            Format::Dialect(btvm_compiler::ir::Dialect::Bst),
        ),
        (
            "<BehaviorTree/>",
            Format::Dialect(btvm_compiler::ir::Dialect::Mbt),
        ),
    ] {
        let text = format!("{prolog}{root}");
        assert_eq!(Format::sniff_xml(text.as_bytes()), Some(format), "{root}");
        let (kind, at) = load_err(&[("a.xml", text.as_bytes())]);
        assert_eq!(
            (kind, at.as_str()),
            (ErrorKind::Syntax, "/t/a.xml:2:1"),
            "{root}"
        );
    }
    // A simple DOCTYPE, quoted `>` in its external id.
    let text = "<!DOCTYPE x SYSTEM \"a>b.dtd\"><SelectionTrees/>";
    assert_eq!(
        Format::sniff_xml(text.as_bytes()),
        Some(Format::Dialect(btvm_compiler::ir::Dialect::Bst))
    );
}

/// Finding 12 (XML half): an `.xml` file in UTF-16 said "cannot tell the format". CryEngine's
/// expat reads UTF-16; btvm reads UTF-8 only, and now says so with a positioned error naming
/// the encoding and how to convert it, in either byte order.
#[test]
fn utf16_xml_is_refused_with_a_clear_positioned_message() {
    let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<BehaviorTree><Root/></BehaviorTree>";
    let le: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(xml.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let be: Vec<u8> = [0xfe, 0xff]
        .into_iter()
        .chain(xml.encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    for (bytes, order) in [(le, "little-endian"), (be, "big-endian")] {
        assert_eq!(
            Format::sniff_xml(&bytes),
            Some(Format::Dialect(btvm_compiler::ir::Dialect::Mbt))
        );
        let (kind, at) = load_err(&[("a.xml", &bytes)]);
        assert_eq!(
            (kind, at.as_str()),
            (ErrorKind::InvalidUtf8, "/t/a.xml:1:1")
        );
        let text = failure_text(&[("a.xml", &bytes)]);
        assert!(text.contains("UTF-16") && text.contains(order), "{text}");
    }
}

/// Finding 12 (XML half), the same symptom: an `.xml` file with one invalid UTF-8 byte after its
/// root element's name said "cannot tell the format"; now the reader names the byte's position.
#[test]
fn xml_with_invalid_utf8_is_refused_at_the_bad_byte() {
    let bytes = b"<BehaviorTree>\n<!-- caf\xe9 -->\n</BehaviorTree>";
    assert_eq!(
        Format::sniff_xml(bytes),
        Some(Format::Dialect(btvm_compiler::ir::Dialect::Mbt))
    );
    let (kind, at) = load_err(&[("a.xml", bytes)]);
    assert_eq!(
        (kind, at.as_str()),
        (ErrorKind::InvalidUtf8, "/t/a.xml:2:9")
    );
}

/// Finding 10's relative in traces: a Drag[en]gine action named with an escape sequence and a
/// newline followed by a forged trace line. `btvm run` writes the trace the tree's names go
/// into; written, every control character is escaped, so the name can neither drive the
/// terminal nor add a line to the trace.
#[test]
fn control_characters_in_action_names_are_escaped_in_written_traces() {
    let debt = "<behaviorTree><action name=\"go&#27;[2J&#10;tick 99 now 0&#9;x\"/></behaviorTree>";
    let tree = load_ok(&[("a.debt", debt.as_bytes())]);
    let scn = parse_scenario(FileId(0), "ticks 2\n").expect("scenario");
    let trace = scenario::run(&tree, &scn, scenario::EngineKind::Reference).expect("runs");
    // The kept trace holds the name as the tree spells it (engines compare those)...
    assert!(trace.lines().iter().any(|l| l.contains('\u{1b}')));
    // ...and the written trace has one text line per trace line, none with a raw control.
    let written = trace.to_string();
    assert_no_controls(&written, "written trace");
    assert_eq!(written.lines().count(), trace.lines().len(), "{written}");
    assert!(
        written.contains("go\\u{1b}[2J\\u{a}tick 99 now 0\\u{9}x"),
        "{written}"
    );
}
