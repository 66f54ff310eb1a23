//! The page's data (`spec/viewer.md` §2) as JSON, written with serde_json and made safe to sit
//! inside a `<script>` element: every `<`, `>` and `&` (which JSON has only inside strings) is
//! written as a `\u` escape, so no name can close the element.

use btvm::NodeEvent;
use btvm_compiler::view::{NodeStep, TickView, View, ViewNode};
use serde_json::{json, Value};

/// The JSON text of `view`'s data.
pub fn data(view: &View) -> String {
    let value = json!({
        "version": 1,
        "title": view.title,
        "dialect": view.dialect,
        "nodes": view.nodes.iter().map(node).collect::<Vec<_>>(),
        "roots": view.roots,
        "timeline": view.timeline.as_ref().map(|t| json!({
            "agent": t.agent,
            "traced": t.traced,
            "ticks": t.ticks.iter().map(tick).collect::<Vec<_>>(),
        })),
    });
    script_safe(&value.to_string())
}

fn node(n: &ViewNode) -> Value {
    json!({
        "id": n.id,
        "kind": n.kind,
        "name": n.name,
        "args": n.args,
        "file": n.file,
        "line": n.line,
        "children": n.children,
    })
}

fn tick(t: &TickView) -> Value {
    json!({
        "tick": t.tick,
        "now": t.now,
        "events": t.events.iter().map(event).collect::<Vec<_>>(),
        "active": t.active,
        "calls": t.calls,
    })
}

fn event(e: &NodeStep) -> Value {
    match e.event {
        NodeEvent::Enter => json!({"node": e.node, "event": "enter"}),
        NodeEvent::Finish(s) => json!({"node": e.node, "event": "finish", "status": s.name()}),
    }
}

/// `json` with `<`, `>` and `&` escaped (they occur only inside JSON strings, where `\u003c`
/// means the same character).
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_end_tags_cannot_survive() {
        let s = script_safe(r#"{"name":"</script><b>&"}"#);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["name"], "</script><b>&");
    }
}
