//! What Drag\[en\]gine's own XML reader makes of the bytes that `roxmltree` reads differently.
//!
//! The original loads a `.debt` file with `decXmlParser` and then runs two passes over the
//! document before the loader reads it (LordOfDragons/dragengine b26e8b4b,
//! `src/modules/scripting/dragonscript/src/classes/utils/deClassEasyXML.cpp`
//! `nfNewFile::RunFunction`: `ParseXml`, `StripComments`, `CleanCharData`). `roxmltree` still
//! checks the document's structure, but element text and attribute values are read here from
//! the source text, as the original reads them (`src/dragengine/src/common/xmlparser/`):
//!
//! - [`prepare`] rewrites, in a copy of the same length (so every offset stays valid), what
//!   the original accepts and `roxmltree` refuses: every well-formed reference in text and in
//!   attribute values becomes spaces (they are decoded here instead, so an unknown entity is
//!   no error), a repeated attribute becomes spaces (`decXmlParser::ParseAttribute` keeps both
//!   and `getAttributeNamed` reads the first), and an attribute with a namespace prefix other
//!   than `xmlns` becomes spaces (the original has no namespace check, and the loader reads
//!   only unprefixed attributes). It refuses what the original refuses and `roxmltree`
//!   accepts: a byte-order mark (`ParseDocument`/`ParseXMLDecl` need `<` first), more than one
//!   whitespace character before or after an attribute's `=` (`ParseEquals`), and an
//!   attribute value whose last character comes from a reference (`ParseAttValue` skips the
//!   character after every decoded reference, here the closing quote).
//! - [`attribute`] decodes an attribute value as `decXmlParser::ParseAttValue` does: tab, CR
//!   and LF are kept; a character reference is truncated to one byte (`&#0;` adds none);
//!   `lt`, `gt`, `amp`, `quot` and `apos` are matched as prefixes of the name; another entity
//!   stays as written; the character after a decoded reference is taken as it is.
//! - [`first_text`] is `getFirstCData` after the two passes: the first character-data node
//!   of the element (plain text or CDATA), cleaned.
//!
//! Nothing here panics on input: every slice is checked, and text `roxmltree` accepted is
//! the only text [`first_text`] and [`attribute`] are given.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use roxmltree::Node;

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};

/// The source text with what the original accepts and `roxmltree` refuses blanked out (see
/// the module documentation), or the original's refusal.
pub(super) fn prepare(text: &str, file: FileId) -> Result<Cow<'_, str>, Diagnostic> {
    if text.starts_with('\u{feff}') {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            Span::new(file, 0, 3),
            "the file starts with a byte-order mark, which Drag[en]gine's XML parser refuses",
        )
        .with_note("save the file as UTF-8 without a BOM"));
    }
    let b = text.as_bytes();
    let mut blank: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            i = skip_past(b, i + 4, b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = skip_past(b, i + 9, b"]]>");
        } else if rest.starts_with(b"<?") {
            i = skip_past(b, i + 2, b"?>");
        } else if rest.starts_with(b"<!") {
            // A DTD: roxmltree refuses it (a documented divergence).
            break;
        } else if rest.starts_with(b"</") {
            i = skip_past(b, i + 2, b">");
        } else if b[i] == b'<' {
            i = tag(b, i, file, &mut blank)?;
        } else if b[i] == b'&' {
            match reference(b, i) {
                Some(end) => {
                    blank.push(i..end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    if blank.is_empty() {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = b.to_vec();
    for r in blank {
        if let Some(s) = out.get_mut(r) {
            s.fill(b' ');
        }
    }
    // Whole characters were replaced by ASCII spaces, so the text is still UTF-8; the
    // fallback keeps the function total.
    Ok(String::from_utf8(out).map_or(Cow::Borrowed(text), Cow::Owned))
}

/// The index just past the first `end` at or after `from` (the end of the text without one).
fn skip_past(b: &[u8], from: usize, end: &[u8]) -> usize {
    b.get(from..)
        .and_then(|r| r.windows(end.len()).position(|w| w == end))
        .map_or(b.len(), |p| from + p + end.len())
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'.' | b'-') || c >= 0x80
}

/// The end of a well-formed reference starting at `at` (`&name;`, `&#N;`, `&#xH;`).
fn reference(b: &[u8], at: usize) -> Option<usize> {
    let mut j = at + 1;
    if b.get(j) == Some(&b'#') {
        j += 1;
        let hex = b.get(j) == Some(&b'x');
        if hex {
            j += 1;
        }
        let start = j;
        while b.get(j).is_some_and(|&c| {
            if hex {
                c.is_ascii_hexdigit()
            } else {
                c.is_ascii_digit()
            }
        }) {
            j += 1;
        }
        if j == start {
            return None;
        }
    } else {
        let start = j;
        if !b
            .get(j)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80)
        {
            return None;
        }
        while b.get(j).copied().is_some_and(is_name_char) {
            j += 1;
        }
        if j == start {
            return None;
        }
    }
    (b.get(j) == Some(&b';')).then_some(j + 1)
}

/// One start tag at `at`: checks the spaces around each `=`, blanks repeated and prefixed
/// attributes and the references in values; returns the index after the tag (or where the
/// scan gave up, leaving the error to `roxmltree`).
fn tag(
    b: &[u8],
    at: usize,
    file: FileId,
    blank: &mut Vec<Range<usize>>,
) -> Result<usize, Diagnostic> {
    let mut i = at + 1;
    while b
        .get(i)
        .is_some_and(|&c| !is_space(c) && c != b'>' && c != b'/')
    {
        i += 1;
    }
    // A set, not a list: an element may have many attributes (the limit is checked later).
    let mut seen: HashSet<&[u8]> = HashSet::new();
    loop {
        while b.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        match b.get(i) {
            None => return Ok(i),
            Some(b'>') => return Ok(i + 1),
            Some(b'/') => return Ok(i + 1),
            Some(_) => {}
        }
        let name_at = i;
        while b
            .get(i)
            .is_some_and(|&c| !is_space(c) && !matches!(c, b'=' | b'>' | b'/' | b'<'))
        {
            i += 1;
        }
        if i == name_at {
            return Ok(i);
        }
        let name = &b[name_at..i];
        let spaces = |i: &mut usize| {
            let from = *i;
            while b.get(*i).copied().is_some_and(is_space) {
                *i += 1;
            }
            *i - from
        };
        let before = spaces(&mut i);
        if b.get(i) != Some(&b'=') {
            return Ok(i);
        }
        i += 1;
        let after = spaces(&mut i);
        if before > 1 || after > 1 {
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                Span::new(file, name_at, i),
                "more than one whitespace character around `=`, which Drag[en]gine's XML \
                 parser refuses",
            )
            .with_note("write `name=\"value\"`, with at most one space on each side of `=`"));
        }
        let Some(&quote) = b.get(i).filter(|&&q| q == b'"' || q == b'\'') else {
            return Ok(i);
        };
        let value_at = i + 1;
        let Some(len) = b[value_at..].iter().position(|&c| c == quote) else {
            return Ok(b.len());
        };
        let value_end = value_at + len;
        i = value_end + 1;
        let repeated = !seen.insert(name);
        let prefixed = name.contains(&b':') && !name.starts_with(b"xmlns");
        if repeated || prefixed {
            blank.push(name_at..i);
            continue;
        }
        let mut j = value_at;
        while j < value_end {
            if b[j] == b'&' {
                if let Some(end) = reference(b, j).filter(|&e| e <= value_end) {
                    blank.push(j..end);
                    if end == value_end && decodes(&b[j..end]) {
                        return Err(Diagnostic::new(
                            ErrorKind::Syntax,
                            Span::new(file, j, end),
                            "an attribute value ending in a reference, which Drag[en]gine's \
                             XML parser misreads (it skips the closing quote)",
                        )
                        .with_note("the original takes the character after every decoded reference as it is"));
                    }
                    j = end;
                    continue;
                }
            }
            j += 1;
        }
    }
}

/// Whether `ParseAttValue` decodes the reference `r` (`&…;`) and so skips the character after
/// it: character references, and entity names starting with `lt`, `gt`, `amp`, `quot` or
/// `apos`.
fn decodes(r: &[u8]) -> bool {
    let name = r.get(1..).unwrap_or(&[]);
    name.starts_with(b"#") || predefined_prefix(name).is_some()
}

/// The character of a name `ParseAttValue` matches by prefix (`strncmp(name, "lt", 2)` …).
fn predefined_prefix(name: &[u8]) -> Option<u8> {
    [
        (&b"lt"[..], b'<'),
        (b"gt", b'>'),
        (b"amp", b'&'),
        (b"quot", b'"'),
        (b"apos", b'\''),
    ]
    .into_iter()
    .find(|(p, _)| name.starts_with(p))
    .map(|(_, c)| c)
}

/// The value of a character reference body (`#N` or `#xH`), truncated to the byte the
/// original stores (`(char)character`).
fn char_ref(body: &[u8]) -> u8 {
    let (digits, radix) = match body.get(1) {
        Some(b'x') => (body.get(2..).unwrap_or(&[]), 16),
        _ => (body.get(1..).unwrap_or(&[]), 10),
    };
    let mut v: u32 = 0;
    for &c in digits {
        let d = (c as char).to_digit(radix).unwrap_or(0);
        v = v.wrapping_mul(radix).wrapping_add(d);
    }
    v as u8
}

/// An attribute's value decoded as `decXmlParser::ParseAttValue` does, from its raw text
/// (between the quotes) at `span`. A value that is not UTF-8 after decoding (a character
/// reference truncated to a byte of 0x80 or more) is an error.
pub(super) fn attribute(raw: &str, span: Span) -> Result<String, Diagnostic> {
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'&' {
            if let Some(end) = reference(b, i) {
                let body = &b[i + 1..end - 1];
                let decoded = if body.first() == Some(&b'#') {
                    Some(char_ref(body))
                } else {
                    predefined_prefix(body)
                };
                match decoded {
                    Some(c) => {
                        if c != 0 {
                            out.push(c);
                        }
                        // The next character is taken without a test.
                        if let Some(&next) = b.get(end) {
                            out.push(next);
                        }
                        i = end + 1;
                    }
                    None => {
                        out.extend_from_slice(&b[i..end]);
                        i = end;
                    }
                }
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    utf8(out, span)
}

fn utf8(bytes: Vec<u8>, span: Span) -> Result<String, Diagnostic> {
    String::from_utf8(bytes).map_err(|_| {
        Diagnostic::new(
            ErrorKind::InvalidValue,
            span,
            "a character reference here stands for a byte of 0x80 or more, which is not text \
             (Drag[en]gine's XML parser keeps only the low byte of a character reference)",
        )
        .with_note("write the character itself, in UTF-8")
    })
}

/// One node of an element's content as the original's parser makes it.
enum Piece {
    /// Character data: text runs and decoded references, merged.
    Text(Vec<u8>, Range<usize>),
    /// A CDATA section, with the text and references after it appended.
    CData(Vec<u8>, Range<usize>),
    /// Anything else: an unknown entity reference, an element, a processing instruction.
    Other,
}

/// The pieces of a run of content between two non-text nodes (`text[range]`: text,
/// references, CDATA sections), appended to `out` (`decXmlParser::ParseElementTag`,
/// `ParseReference`, `ParseCDSect`, `pAddCharacterData`).
fn pieces(text: &[u8], range: Range<usize>, out: &mut Vec<Piece>) {
    let append = |out: &mut Vec<Piece>, bytes: &[u8], r: Range<usize>| match out.last_mut() {
        Some(Piece::Text(t, at)) | Some(Piece::CData(t, at)) => {
            t.extend_from_slice(bytes);
            at.end = r.end;
        }
        _ => out.push(Piece::Text(bytes.to_vec(), r)),
    };
    // A new run always starts a new node: the node before it is not character data.
    out.push(Piece::Other);
    let mark = out.len() - 1;
    let mut i = range.start;
    let end = range.end.min(text.len());
    while i < end {
        let rest = &text[i..end];
        if rest.starts_with(b"<![CDATA[") {
            let close = skip_past(text, i + 9, b"]]>").min(end);
            let inner = text.get(i + 9..close.saturating_sub(3)).unwrap_or(&[]);
            out.push(Piece::CData(inner.to_vec(), i..close));
            i = close.max(i + 1);
        } else if text[i] == b'&' {
            match reference(text, i).filter(|&e| e <= end) {
                Some(r_end) => {
                    let body = &text[i + 1..r_end - 1];
                    if body.first() == Some(&b'#') {
                        let c = char_ref(body);
                        if c != 0 {
                            append(out, &[c], i..r_end);
                        }
                    } else {
                        match body {
                            b"lt" => append(out, b"<", i..r_end),
                            b"gt" => append(out, b">", i..r_end),
                            b"amp" => append(out, b"&", i..r_end),
                            b"quot" => append(out, b"\"", i..r_end),
                            b"apos" => append(out, b"'", i..r_end),
                            _ => out.push(Piece::Other),
                        }
                    }
                    i = r_end;
                }
                None => {
                    append(out, b"&", i..i + 1);
                    i += 1;
                }
            }
        } else {
            // In a run between nodes, `<` only starts a CDATA section.
            let len = rest
                .iter()
                .position(|&c| c == b'&' || c == b'<')
                .unwrap_or(rest.len())
                .max(1);
            append(out, &text[i..i + len], i..i + len);
            i += len;
        }
    }
    out.remove(mark);
}

/// `decXmlVisitorCleanCharData::VisitCharacterData`: runs of space, tab, CR and LF become one
/// space; a leading run is dropped if the node is its element's first node, a trailing run if
/// it is the last.
fn clean(data: &[u8], first: bool, last: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut space = false;
    for &c in data {
        if is_space(c) {
            space = true;
        } else {
            if space {
                space = false;
                if !first || !out.is_empty() {
                    out.push(b' ');
                }
            }
            out.push(c);
        }
    }
    if space && !last {
        out.push(b' ');
    }
    out
}

/// The number of attributes written in the start tag at `text[at..]` (every `=` outside
/// quotes; the original makes each one a node of the element) and the index after the tag's
/// `>` (or `/>`), with whether the tag closes itself.
pub(super) fn start_tag(text: &str, at: usize) -> (usize, usize, bool) {
    let b = text.as_bytes();
    let mut quote = None;
    let mut attrs = 0;
    let mut i = at + 1;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'=' => attrs += 1,
                b'>' => return (attrs, i + 1, b.get(i.wrapping_sub(1)) == Some(&b'/')),
                _ => {}
            },
        }
        i += 1;
    }
    (attrs, b.len(), true)
}

/// `getFirstCData` of element `node` after `StripComments` and `CleanCharData`: the first
/// character-data or CDATA node among the element's nodes (attributes first, then its content
/// with comments removed), cleaned if it is plain text, with the span of its source; `None`
/// if there is none (the original's `""`).
pub(super) fn first_text(
    text: &str,
    file: FileId,
    node: Node,
) -> Result<Option<(String, Span)>, Diagnostic> {
    let (attrs, content_start, closed) = start_tag(text, node.range().start);
    if closed {
        return Ok(None);
    }
    let end = node.range().end.min(text.len());
    let content_end = text
        .get(content_start..end)
        .and_then(|s| s.rfind("</"))
        .map_or(end, |p| content_start + p);
    let b = text.as_bytes();
    let mut nodes: Vec<Piece> = Vec::new();
    let mut pos = content_start;
    for child in node.children().filter(|c| !c.is_text()) {
        let r = child.range();
        pieces(b, pos..r.start.max(pos), &mut nodes);
        if !child.is_comment() {
            nodes.push(Piece::Other);
        }
        pos = r.end.max(pos);
    }
    pieces(b, pos..content_end.max(pos), &mut nodes);
    let total = attrs + nodes.len();
    let found = nodes
        .iter()
        .enumerate()
        .find(|(_, n)| !matches!(n, Piece::Other));
    let Some((k, piece)) = found else {
        return Ok(None);
    };
    let index = attrs + k;
    let (bytes, range) = match piece {
        Piece::Text(t, r) => (clean(t, index == 0, index + 1 == total), r.clone()),
        Piece::CData(t, r) => (t.clone(), r.clone()),
        Piece::Other => return Ok(None),
    };
    let span = Span::new(file, range.start, range.end);
    utf8(bytes, span).map(|s| Some((s, span)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(xml: &str) -> String {
        let prepared = prepare(xml, FileId(0)).unwrap();
        let doc = roxmltree::Document::parse(&prepared).unwrap();
        let e = doc.root_element().first_element_child().unwrap();
        first_text(xml, FileId(0), e)
            .unwrap()
            .map_or(String::new(), |(s, _)| s)
    }

    #[test]
    fn text_is_the_first_node_cleaned() {
        assert_eq!(first("<r><c>\n  near\n</c></r>"), "near");
        assert_eq!(first("<r><p n='x'>\n 5\n</p></r>"), " 5");
        assert_eq!(first("<r><p>a   b\tc\nd&#10;e</p></r>"), "a b c d e");
        assert_eq!(first("<r><p>x<![CDATA[y]]>z</p></r>"), "x");
        assert_eq!(first("<r><p><![CDATA[ y ]]> z </p></r>"), " y  z ");
        assert_eq!(first("<r><p n='1'>\n  <![CDATA[v]]>\n</p></r>"), " ");
        assert_eq!(first("<r><p>ab<!--x-->cd</p></r>"), "ab");
        assert_eq!(first("<r><p> a <!--c--> b </p></r>"), "a ");
        assert_eq!(first("<r><p>x&nbsp;y</p></r>"), "x");
        assert_eq!(first("<r><p>&nbsp;y</p></r>"), "y");
        assert_eq!(first("<r><p>a&#x263A;&#x141;</p></r>"), "a:A");
        assert_eq!(first("<r><p>a&amp;b&#0;c</p></r>"), "a&bc");
        assert_eq!(first("<r><p>a<x/>b</p></r>"), "a");
        assert_eq!(first("<r><p><x/> b</p></r>"), " b");
        assert_eq!(first("<r><p n='1'/></r>"), "");
        assert_eq!(first("<r><p>\n</p></r>"), "");
        assert_eq!(first("<r><p>\r\n a\r\n</p></r>"), "a");
        assert_eq!(first("<r><p><![CDATA[a\r\nb]]></p></r>"), "a\r\nb");
    }

    #[test]
    fn attributes_are_read_as_the_original_reads_them() {
        let at = |raw: &str| attribute(raw, Span::DUMMY).unwrap();
        assert_eq!(at("x\ty"), "x\ty");
        assert_eq!(at("a&amp;b"), "a&b");
        assert_eq!(at("&#65;&#66;"), "A&#66;");
        assert_eq!(at("&ltx;y"), "<y");
        assert_eq!(at("a&nbsp;b"), "a&nbsp;b");
        assert_eq!(at("&#x263A;b"), ":b");
        assert!(attribute("&#233;b", Span::DUMMY).is_err());
    }

    #[test]
    fn prepare_blanks_and_refuses_as_the_original() {
        let p = |t: &str| prepare(t, FileId(0)).map(|c| c.into_owned());
        assert_eq!(p("<a b='1' b='2'/>").unwrap(), "<a b='1'      />");
        assert_eq!(p("<a x:n='q'/>").unwrap(), "<a        />");
        assert_eq!(p("<a>x&nbsp;y</a>").unwrap(), "<a>x      y</a>");
        assert_eq!(
            p("<a><!-- &nbsp; --></a>").unwrap(),
            "<a><!-- &nbsp; --></a>"
        );
        assert!(p("\u{feff}<a/>").is_err());
        assert!(p("<a b  ='1'/>").is_err());
        assert!(p("<a b=  '1'/>").is_err());
        assert!(p("<a b = '1'/>").is_ok());
        assert!(p("<a b='x&amp;'/>").is_err());
        assert!(p("<a b='x&nbsp;'/>").is_ok());
        assert!(p("<a b='x&amp;y'/>").is_ok());
    }
}
