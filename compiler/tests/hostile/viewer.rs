//! The viewer's model (`btvm_compiler::view`, `spec/viewer.md`) on hostile trees and
//! scenarios: names that try to break out of DOT strings, deep trees, trees without source
//! positions, agents and tick counts past what the scenario or the viewer allows. Every case
//! ends in data that keeps the text exactly, quoted DOT, or an error of the right kind.

use btvm::Limits;
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{FileId, SourceMap};
use btvm_compiler::view::{display, dot, timeline, MAX_VIEW_TICKS};

use super::{try_load, BTN_HEADER};

/// Checks DOT text the way Graphviz reads strings: every string ends on its line, and braces
/// outside strings balance.
fn assert_dot_well_formed(text: &str) {
    let mut depth = 0i64;
    for line in text.lines() {
        let (mut in_str, mut esc) = (false, false);
        for c in line.chars() {
            match (in_str, esc, c) {
                (true, true, _) => esc = false,
                (true, false, '\\') => esc = true,
                (_, false, '"') => in_str = !in_str,
                (false, _, '{') => depth += 1,
                (false, _, '}') => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0, "{line}");
        }
        assert!(!in_str, "a string runs past its line: {line}");
    }
    assert_eq!(depth, 0);
}

#[test]
fn hostile_names_are_kept_in_the_data_and_quoted_in_dot() {
    let names = [
        "\\\"} digraph x { a -> b",
        "line\\nbreak\\r\\t",
        "</script><script>alert(1)</script>",
        "\\u{1b}[2Jterm\\u{7}",
        "\\\\\\\\\\\"",
    ];
    for name in names {
        let text =
            format!("{BTN_HEADER}root main = sequence @\"{name}\" running-list {{ action a() }}\n");
        let (tree, sources) = try_load(&[("x.btn", text.as_bytes())]);
        let tree = tree.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let view = display(&tree, &sources, name);
        let kept = tree.nodes[0].name.clone().unwrap();
        assert_eq!(view.nodes[0].name, kept, "the data keeps the name exactly");
        let text = dot(&view, None);
        assert_dot_well_formed(&text);
        let edges = text
            .lines()
            .filter(|l| l.starts_with("  n") && !l.contains('['));
        assert_eq!(edges.collect::<Vec<_>>(), ["  n0 -> n1;"], "{text}");
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    }
}

#[test]
fn deep_trees_and_trees_without_positions_view_without_recursing() {
    let depth = 240;
    let mut text = BTN_HEADER.to_string() + "root main = ";
    text += &"invert { ".repeat(depth);
    text += "action a()";
    text += &" }".repeat(depth);
    text += "\n";
    let (tree, sources) = try_load(&[("deep.btn", text.as_bytes())]);
    let tree = tree.unwrap();
    let view = display(&tree, &sources, "deep");
    assert_eq!(view.nodes.len(), depth + 1);
    assert_eq!(view.nodes[depth].line, 5);
    assert_dot_well_formed(&dot(&view, None));
    // The same tree with an empty source map: positions unknown, nothing else changes.
    let bare = display(&tree, &SourceMap::new(), "deep");
    assert!(bare.nodes.iter().all(|n| n.file.is_empty() && n.line == 0));
    assert_eq!(bare.nodes.len(), view.nodes.len());
}

#[test]
fn agents_and_ticks_past_the_scenario_or_the_viewer_are_errors() {
    let text = format!("{BTN_HEADER}root main = action a()\n");
    let (tree, _) = try_load(&[("x.btn", text.as_bytes())]);
    let tree = tree.unwrap();
    let limits = Limits::default();
    let scn = parse_scenario(FileId(1), "agents 2\nticks 3\n").unwrap();
    for agent in [2, u32::MAX] {
        let err = timeline(&tree, &scn, agent, &limits).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidValue);
        assert!(err.message.contains("runs 2 agents"), "{}", err.message);
    }
    let t = timeline(&tree, &scn, 1, &limits).unwrap();
    assert_eq!((t.agent, t.ticks.len(), t.traced), (1, 3, true));
    let long = format!("ticks {}\n", MAX_VIEW_TICKS + 1);
    let scn = parse_scenario(FileId(1), &long).unwrap();
    let err = timeline(&tree, &scn, 0, &limits).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ScenarioTooLarge);
}
