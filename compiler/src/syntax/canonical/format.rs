//! The formatter (`btvm fmt`): canonical-syntax text to its canonical layout, comments kept.
//!
//! The layout is the printer's ([`super::print`]); the parser drops comments, so they are put
//! back by *anchors*: each node (by its arena id, which printing preserves) and each top-level
//! statement (by its first words) is found both in the source and in the printed text. A
//! comment on its own line goes on its own lines before the next anchor, at that line's
//! indentation; a comment after code on a line goes at the end of the printed line of the
//! last anchor before it on that line. A comment with no anchor after it goes at the end.
//! Formatting formatted text changes nothing.
//!
//! This module never prints and never panics; text that does not parse is an error.

use std::collections::HashMap;
use std::ops::Range;

use super::lexer::{lex_with_comments, Tok};
use crate::ir::Tree;
use crate::source::FileId;

/// Formats canonical-syntax `text` (the file `file`): the printer's layout with the
/// comments kept. Fails with the parser's errors when the text does not parse.
pub fn format(file: FileId, text: &str, limits: &btvm::Limits) -> crate::diag::Result<String> {
    let tree = super::parse(file, text, limits)?;
    let (tokens, comments) = lex_with_comments(file, text).map_err(|d| vec![d])?;
    let printed = super::print(&tree);
    if comments.is_empty() {
        return Ok(printed);
    }
    // The printed text parses back with the same arena ids (`parse(print(t)) == t`).
    let again = super::parse(file, &printed, limits)?;
    let (printed_tokens, _) = lex_with_comments(file, &printed).map_err(|d| vec![d])?;
    let source = anchors(text, &tree, &statements(text, &tokens, &comments));
    let target = anchors(
        &printed,
        &again,
        &statements(&printed, &printed_tokens, &[]),
    );
    let at: HashMap<Anchor, usize> = target.into_iter().map(|(o, a)| (a, o)).collect();
    Ok(place(text, &printed, &comments, &source, &at))
}

/// What a comment can be placed by: a node, or a top-level statement (its key, and which
/// occurrence of that key it is).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Anchor {
    Node(usize),
    Statement(String, usize),
}

/// Every anchor of `text` with its byte offset, in offset order.
fn anchors(text: &str, tree: &Tree, statements: &[(usize, String)]) -> Vec<(usize, Anchor)> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut all: Vec<(usize, Anchor)> = statements
        .iter()
        .map(|(at, key)| {
            let k = seen.entry(key.as_str()).or_insert(0);
            *k += 1;
            (*at, Anchor::Statement(key.clone(), *k))
        })
        .collect();
    for (id, node) in tree.nodes.iter().enumerate() {
        let at = node.span.start as usize;
        if at < text.len() {
            all.push((at, Anchor::Node(id)));
        }
    }
    all.sort_by_key(|(at, _)| *at);
    all
}

/// The top-level statements of `text`: each token at brace depth 0 that starts a line (after
/// whitespace and `comments`) and is a declaration keyword, keyed by its first words (strings
/// unquoted, so a name written quoted or bare is the same statement).
fn statements(
    text: &str,
    tokens: &[super::lexer::Spanned<'_>],
    comments: &[Range<usize>],
) -> Vec<(usize, String)> {
    const WORDS: [&str; 14] = [
        "btvm",
        "dialect",
        "model",
        "root",
        "abort",
        "precision",
        "clock",
        "import",
        "var",
        "timestamp",
        "flag",
        "stimulus",
        "signal",
        "subtree",
    ];
    let mut depth = 0usize;
    let mut found = Vec::new();
    for (i, (tok, span)) in tokens.iter().enumerate() {
        match tok {
            Tok::LBrace => depth += 1,
            Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Ident(w)
                if depth == 0 && WORDS.contains(w) && starts_line(text, span.start, comments) =>
            {
                let key: Vec<String> = tokens[i..]
                    .iter()
                    .take(3)
                    .map(|(t, s)| word(t, &text[s.start..s.end]))
                    .collect();
                found.push((span.start, key.join(" ")));
            }
            _ => {}
        }
    }
    found
}

/// A token's text for a statement key: a string's contents, else the token as written.
fn word(tok: &Tok<'_>, written: &str) -> String {
    match tok {
        Tok::Str(raw) => (*raw).to_string(),
        _ => written.to_string(),
    }
}

/// Whether only whitespace and comments precede byte `at` on its line.
fn starts_line(text: &str, at: usize, comments: &[Range<usize>]) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut i = line_start;
    while i < at {
        if let Some(c) = comments.iter().find(|c| c.start == i) {
            i = c.end;
        } else if text.as_bytes()[i].is_ascii_whitespace() {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// Where a comment goes in the printed text.
enum Place {
    /// On its own lines before the printed line holding this byte.
    Before(usize),
    /// At the end of the printed line holding this byte.
    After(usize),
    /// After everything.
    End,
}

/// The printed text with every comment of `text` placed (see the module documentation).
fn place(
    text: &str,
    printed: &str,
    comments: &[Range<usize>],
    source: &[(usize, Anchor)],
    at: &HashMap<Anchor, usize>,
) -> String {
    let lines: Vec<&str> = printed.lines().collect();
    let line_of = |offset: usize| printed[..offset].matches('\n').count();
    let mut before: Vec<Vec<&str>> = vec![Vec::new(); lines.len()];
    let mut after: Vec<Vec<&str>> = vec![Vec::new(); lines.len()];
    let mut end: Vec<&str> = Vec::new();
    for c in comments {
        let body = &text[c.clone()];
        match where_to(text, c, source, at) {
            Place::Before(o) => before[line_of(o)].push(body),
            Place::After(o) => after[line_of(o)].push(body),
            Place::End => end.push(body),
        }
    }
    let mut out = String::with_capacity(printed.len() + text.len());
    for (i, line) in lines.iter().enumerate() {
        let indent = &line[..line.len() - line.trim_start().len()];
        for body in &before[i] {
            push_comment(&mut out, indent, body);
        }
        out.push_str(line);
        for body in &after[i] {
            out.push_str("  ");
            out.push_str(body);
        }
        out.push('\n');
    }
    for body in end {
        push_comment(&mut out, "", body);
    }
    out
}

/// Where the comment at `c` goes: after the last printed anchor before it on its line when
/// code precedes it there and it fits on one line, else before the next printed anchor.
fn where_to(
    text: &str,
    c: &Range<usize>,
    source: &[(usize, Anchor)],
    at: &HashMap<Anchor, usize>,
) -> Place {
    let line_start = text[..c.start].rfind('\n').map_or(0, |i| i + 1);
    let trailing = !text[line_start..c.start].trim().is_empty() && !text[c.clone()].contains('\n');
    if trailing {
        let owner = source
            .iter()
            .rev()
            .filter(|(o, _)| (line_start..c.start).contains(o))
            .find_map(|(_, a)| at.get(a));
        if let Some(&o) = owner {
            return Place::After(o);
        }
    }
    source
        .iter()
        .filter(|(o, _)| *o >= c.end)
        .find_map(|(_, a)| at.get(a))
        .map_or(Place::End, |&o| Place::Before(o))
}

/// A comment on lines of its own at `indent` (a block comment's later lines as written).
fn push_comment(out: &mut String, indent: &str, body: &str) {
    out.push_str(indent);
    out.push_str(body);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::format;
    use crate::source::FileId;

    const MESSY: &str = "// A tree.\nbtvm 1;   dialect mbt;\nmodel lifecycle;\n\
        import action fight 0..0 long; // swings\n/* roams */ import action roam 0..0 long;\n\
        root main = sequence restart { // the body\n  // first fight\n action fight()\n\
        action roam()   /* then roam */ }\n// the end\n";

    fn fmt(text: &str) -> String {
        format(FileId(0), text, &btvm::Limits::default()).expect("formats")
    }

    #[test]
    fn comments_are_kept_next_to_what_they_describe() {
        let out = fmt(MESSY);
        let expected = "// A tree.\nbtvm 1;\ndialect mbt;\nmodel lifecycle;\nroot-finish stop;\n\
            abort terminate;\nprecision double;\nclock 100;\n\n\
            import action fight 0..0 long;  // swings\n/* roams */\nimport action roam 0..0 long;\n\n\
            root main = sequence restart {  // the body\n    // first fight\n    action fight()\n\
            \x20   action roam()  /* then roam */\n}\n// the end\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn formatting_is_idempotent_and_keeps_the_tree() {
        let once = fmt(MESSY);
        assert_eq!(fmt(&once), once);
        let limits = btvm::Limits::default();
        let mut a = super::super::parse(FileId(0), MESSY, &limits).unwrap();
        let mut b = super::super::parse(FileId(0), &once, &limits).unwrap();
        a.strip_spans();
        b.strip_spans();
        assert_eq!(a, b);
    }

    #[test]
    fn text_that_does_not_parse_is_an_error() {
        assert!(format(FileId(0), "btvm 1;\nroot = ", &btvm::Limits::default()).is_err());
    }
}
