//! A [`View`] as Graphviz DOT text (`btvm dot`, `spec/viewer.md` §6): one DOT node `nID` per
//! tree node, one edge per parent-child pair, labels and tooltips quoted so no name can end a
//! string or the graph. Deterministic: node order, then child order. Writes text only.

use std::fmt::Write as _;

use btvm::Status;

use super::{TickView, View};

/// The fill colour of a status.
fn fill(s: Status) -> &'static str {
    match s {
        Status::Success => "#9be29b",
        Status::Failure => "#f3a0a0",
        Status::Running => "#ffd27a",
    }
}

/// `view` as a DOT `digraph`; with `tick`, the nodes that finished in it filled by the status
/// they finished with last and the nodes of its active path bold.
pub fn dot(view: &View, tick: Option<&TickView>) -> String {
    let mut status: Vec<Option<Status>> = vec![None; view.nodes.len()];
    let mut active = vec![false; view.nodes.len()];
    if let Some(t) = tick {
        for (n, s) in t.last_statuses() {
            if let Some(slot) = status.get_mut(n as usize) {
                *slot = Some(s);
            }
        }
        for &n in &t.active {
            if let Some(a) = active.get_mut(n as usize) {
                *a = true;
            }
        }
    }
    let mut out = String::from("digraph btvm {\n");
    out.push_str("  graph [label=");
    quote(&view.title, &mut out);
    out.push_str(", labelloc=t];\n");
    out.push_str("  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
    for n in &view.nodes {
        // An action's knobs start with its name: `moveTo(16, 300)` says it once.
        let name = if n.args.starts_with(n.name.as_str()) {
            ""
        } else {
            &n.name
        };
        let label: Vec<&str> = [n.kind.as_str(), name, n.args.as_str()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        let _ = write!(out, "  n{} [label=", n.id);
        quote_lines(&label, &mut out);
        out.push_str(", tooltip=");
        quote(&format!("{}:{}", n.file, n.line), &mut out);
        let i = n.id as usize;
        let mut style = Vec::new();
        if let Some(s) = status.get(i).copied().flatten() {
            style.push("filled");
            let _ = write!(out, ", fillcolor=\"{}\"", fill(s));
        }
        if active.get(i).copied().unwrap_or(false) {
            style.push("bold");
            out.push_str(", penwidth=3");
        }
        if !style.is_empty() {
            let _ = write!(out, ", style=\"{}\"", style.join(","));
        }
        out.push_str("];\n");
    }
    for n in &view.nodes {
        for c in &n.children {
            let _ = writeln!(out, "  n{} -> n{c};", n.id);
        }
    }
    out.push_str("}\n");
    out
}

/// `s` as a DOT double-quoted string: `"` and `\` escaped, every control character (newline
/// included) as the visible text `\u{HEX}`.
fn quote(s: &str, out: &mut String) {
    quote_lines(&[s], out);
}

/// `lines` as one DOT double-quoted string, one label line each (joined by DOT's `\n`
/// break), each line escaped as [`quote`] says.
fn quote_lines(lines: &[&str], out: &mut String) {
    out.push('"');
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("\\n");
        }
        escape(line, out);
    }
    out.push('"');
}

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(s: &str) -> String {
        let mut out = String::new();
        quote(s, &mut out);
        out
    }

    #[test]
    fn quoting_keeps_hostile_text_inside_the_string() {
        for (text, want) in [
            ("plain", "\"plain\""),
            ("a\"b", "\"a\\\"b\""),
            ("a\\", "\"a\\\\\""),
            ("a\\\"", "\"a\\\\\\\"\""),
            ("x\ny", "\"x\\\\u{a}y\""),
            ("}\u{1b}", "\"}\\\\u{1b}\""),
        ] {
            assert_eq!(quoted(text), want, "{text:?}");
        }
    }
}
