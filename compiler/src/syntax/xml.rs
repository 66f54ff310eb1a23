//! XML plumbing shared by the XML dialects (MBT, BST and DragEngine): parsing one file with
//! `roxmltree` (DTDs refused, so there are no custom entities), turning its errors into
//! positioned diagnostics, names read from the source exactly as written, and the span of an
//! element's start tag.
//!
//! Each dialect keeps its own rules on top of this: how names are compared, which attributes
//! an element takes and what its messages say (what a dialect's messages differ in, such as
//! the note for a file without a root element, is passed in). This module must never know a
//! dialect's elements or attributes, never recurse, and never panic on input: every slice of
//! the text is checked or clamped, so any text and any `roxmltree` error give a diagnostic.
//!
//! `roxmltree` compares each attribute of an element with every earlier one (its duplicate
//! check, RazrFalcon/roxmltree#153, open in 0.21.2 with no option to turn it off), so an
//! element with `n` attributes costs `n²` comparisons: 200,000 attributes took 35 s. Before
//! the text reaches `roxmltree`, [`check_attribute_counts`] counts each start tag's attributes
//! (namespace declarations included) in one linear pass and refuses an element with more than
//! `Limits::max_xml_attributes`; this bounds `roxmltree`'s work by the file's size times that
//! limit.

use btvm::Limits;
use roxmltree::{Document, Node, ParsingOptions, TextPos};

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};

/// Parses `text` (file `file`); a UTF-8 BOM is skipped by `roxmltree`, and positions stay
/// offsets into `text`. Malformed XML is an [`ErrorKind::Syntax`] error at the position
/// `roxmltree` reports (too many nodes, attributes or namespaces is
/// [`ErrorKind::TooManyNodes`]); a file without a root element is an error with the message
/// `no_root`. An element with more than `limits.max_xml_attributes` attributes is an
/// [`ErrorKind::TooManyNodes`] error at its first attribute past the limit.
pub(crate) fn parse<'t>(
    text: &'t str,
    file: FileId,
    no_root: &str,
    limits: &Limits,
) -> Result<Document<'t>, Diagnostic> {
    check_attribute_counts(text, file, limits.max_xml_attributes)?;
    let options = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, options).map_err(|e| xml_error(text, file, &e, no_root))
}

/// Refuses a start tag with more than `max` attributes, in one pass over `text` (see the
/// module documentation). It only counts: comments, CDATA sections, processing instructions,
/// declarations and end tags are skipped, quoted values are skipped whole, and anything
/// malformed is left for `roxmltree` to report.
fn check_attribute_counts(text: &str, file: FileId, max: usize) -> Result<(), Diagnostic> {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(lt) = b.get(i..).and_then(|r| r.iter().position(|&c| c == b'<')) {
        i += lt;
        let rest = &b[i..];
        let skip_to = |end: &[u8]| {
            rest.windows(end.len())
                .position(|w| w == end)
                .map_or(b.len(), |k| i + k + end.len())
        };
        i = if rest.starts_with(b"<!--") {
            skip_to(b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_to(b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_to(b"?>")
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") {
            skip_to(b">")
        } else {
            start_tag_end(b, i, file, max)?
        };
    }
    Ok(())
}

/// Counts the attributes of the start tag at `at` (its `<`); returns the index after it, or
/// where the count stopped at something malformed.
fn start_tag_end(b: &[u8], at: usize, file: FileId, max: usize) -> Result<usize, Diagnostic> {
    let space = |c: u8| c.is_ascii_whitespace();
    let mut i = at + 1;
    let mut count = 0usize;
    loop {
        // The tag's name or the previous attribute's value is behind; skip to a name.
        while b
            .get(i)
            .is_some_and(|&c| !space(c) && !matches!(c, b'>' | b'/' | b'<'))
        {
            i += 1;
        }
        while b.get(i).copied().is_some_and(space) {
            i += 1;
        }
        match b.get(i) {
            None | Some(b'<') => return Ok(i),
            Some(b'>' | b'/') => return Ok(i + 1),
            Some(_) => {}
        }
        count += 1;
        if count > max {
            let name = &b[i..];
            let len = name
                .iter()
                .position(|&c| space(c) || matches!(c, b'=' | b'>' | b'/'))
                .unwrap_or(name.len());
            return Err(Diagnostic::new(
                ErrorKind::TooManyNodes,
                Span::new(file, i, i + len),
                format!("an element with more than {max} attributes"),
            )
            .with_note("the limit is `Limits::max_xml_attributes`"));
        }
        // The name, `=` and the quoted value.
        while b
            .get(i)
            .is_some_and(|&c| !space(c) && !matches!(c, b'=' | b'>' | b'<'))
        {
            i += 1;
        }
        while b.get(i).is_some_and(|&c| space(c) || c == b'=') {
            i += 1;
        }
        match b.get(i) {
            Some(&q) if q == b'"' || q == b'\'' => match b[i + 1..].iter().position(|&c| c == q) {
                Some(k) => i += k + 2,
                None => return Ok(b.len()),
            },
            _ => return Ok(i),
        }
    }
}

/// A name as written at `start` in `text`: up to whitespace, `=`, `/` or `>` (empty past the
/// end of the text).
pub(crate) fn name_at(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or("");
    let len = rest
        .find(|c: char| c.is_ascii_whitespace() || matches!(c, '=' | '/' | '>'))
        .unwrap_or(rest.len());
    &rest[..len]
}

/// The element's tag as written in `text` (with any namespace prefix).
pub(crate) fn tag<'t>(text: &'t str, node: Node) -> &'t str {
    name_at(text, node.range().start + 1)
}

/// The span of the element's start tag, `<` to `>`.
pub(crate) fn start_tag(text: &str, file: FileId, node: Node) -> Span {
    let r = node.range();
    let mut from = r.start + 1 + tag(text, node).len();
    for a in node.attributes() {
        from = from.max(a.range().end);
    }
    let end = text
        .get(from..r.end)
        .and_then(|s| s.find('>'))
        .map_or(r.end, |i| from + i + 1);
    Span::new(file, r.start, end)
}

/// The element children of `node`, in document order (text and comments skipped).
pub(crate) fn elements<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(Node::is_element)
}

/// A `roxmltree` error as a diagnostic at the position it reports.
fn xml_error(text: &str, file: FileId, e: &roxmltree::Error, no_root: &str) -> Diagnostic {
    use roxmltree::Error as E;
    let at_end = Span::new(file, text.len(), text.len());
    let (kind, span, message) = match e {
        E::NoRootNode => (
            ErrorKind::Syntax,
            Span::new(file, 0, 0),
            no_root.to_string(),
        ),
        E::UnexpectedEndOfStream | E::UnclosedRootNode => {
            (ErrorKind::Syntax, at_end, format!("malformed XML: {e}"))
        }
        E::DtdDetected => {
            let at = text.find("<!DOCTYPE").unwrap_or(0);
            let len = "<!DOCTYPE".len().min(text.len().saturating_sub(at));
            (
                ErrorKind::Syntax,
                Span::new(file, at, at + len),
                "document type declarations (`<!DOCTYPE`) are not supported".to_string(),
            )
        }
        E::NodesLimitReached | E::AttributesLimitReached | E::NamespacesLimitReached => (
            ErrorKind::TooManyNodes,
            Span::new(file, 0, 0),
            format!("the XML is too large: {e}"),
        ),
        _ => {
            let pos = e.pos();
            let start = offset_of(text, pos);
            let len = text
                .get(start..)
                .and_then(|s| s.chars().next())
                .map_or(0, char::len_utf8);
            let message = e.to_string().replace(&format!(" at {pos}"), "");
            (
                ErrorKind::Syntax,
                Span::new(file, start, start + len),
                format!("malformed XML: {message}"),
            )
        }
    };
    Diagnostic::new(kind, span, message)
}

/// The byte offset of a 1-based row and column (in characters), clamped to the text.
fn offset_of(text: &str, pos: TextPos) -> usize {
    let mut line_start = 0;
    for _ in 1..pos.row {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[line_start..];
    let col = pos.col.saturating_sub(1) as usize;
    line_start + line.char_indices().nth(col).map_or(line.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse0(text: &str) -> Result<Document<'_>, Diagnostic> {
        parse(text, FileId(0), "no root", &Limits::default())
    }

    #[test]
    fn positions_map_back_to_offsets() {
        let text = "ab\nçd\n";
        assert_eq!(offset_of(text, TextPos::new(1, 1)), 0);
        assert_eq!(offset_of(text, TextPos::new(2, 2)), 5);
        assert_eq!(offset_of(text, TextPos::new(9, 1)), text.len());
    }

    #[test]
    fn names_and_start_tags_come_from_the_source() {
        let text = "\u{feff}<A xy='1' b=\"t&amp;u\" >text<B/></A>";
        let at = |needle: &str| text.find(needle).unwrap();
        let doc = parse0(text).unwrap();
        let root = doc.root_element();
        assert_eq!(tag(text, root), "A");
        let span = start_tag(text, FileId(0), root);
        assert_eq!((span.start, span.end), (3, at(">text") as u32 + 1));
        assert_eq!(name_at(text, at("xy")), "xy");
        assert_eq!(name_at(text, text.len() + 5), "");
        assert_eq!(elements(root).count(), 1);
    }

    #[test]
    fn attributes_past_the_limit_are_refused_at_the_first_one_too_many() {
        let limits = Limits {
            max_xml_attributes: 3,
            ..Limits::default()
        };
        let ok = "<!-- <x a='' b='' c='' d=''> --><?p a b c d e?><A a='>' b=\"/>\"\n c=''>\
                  <![CDATA[<x a='' b='' c='' d=''>]]><B/></A>";
        if let Err(e) = parse(ok, FileId(0), "", &limits) {
            panic!("{}", e.message);
        }
        let text = "<A a='' b='' c=''><B a='1' b='2' c='3' dd='4'/></A>";
        let e = parse(text, FileId(0), "", &limits).unwrap_err();
        assert_eq!(e.kind, ErrorKind::TooManyNodes);
        let at = text.find("dd").unwrap();
        assert_eq!((e.span.start as usize, e.span.end as usize), (at, at + 2));
        // Malformed tags are left to roxmltree, whatever the count.
        for bad in [
            "<A a b c d e>",
            "<A a='1'b='2'c='3'd='4'/>",
            "<A a='1' b='2",
        ] {
            let e = parse(bad, FileId(0), "", &limits).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Syntax, "{bad}");
        }
    }

    #[test]
    fn xml_errors_are_positioned() {
        let e = parse0("<A>\n  <B></C>\n</A>").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.message.starts_with("malformed XML"), "{}", e.message);
        assert!(!e.message.contains(" at 2:"), "{}", e.message);
        assert_eq!(e.span.start, 9);
        let e = parse0("").unwrap_err();
        assert_eq!((e.kind, e.span.start), (ErrorKind::Syntax, 0));
        assert_eq!(e.message, "no root");
        let e = parse0("<A>").unwrap_err();
        assert_eq!((e.kind, e.span.start), (ErrorKind::Syntax, 3));
        let e = parse0("<?xml version='1.0'?>\n<!DOCTYPE x []><A/>").unwrap_err();
        assert_eq!((e.span.start, e.span.end), (22, 31));
    }
}
