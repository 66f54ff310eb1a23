//! XML plumbing for the MBT front-end: attribute lookup with spans and the unknown-attribute
//! rule, over the shared XML layer ([`crate::syntax::xml`]: parsing the document, names and
//! spans taken from the source text).
//!
//! Names (tags and attributes) are read from the source exactly as written, so a namespace
//! prefix is part of the name. Attributes are found case-insensitively, first match first, as
//! CryXML finds them; node types (a registry lookup in the original) are matched exactly. Every
//! span points into the file: a start tag (`<` to `>`), a whole attribute (`name="value"`) or an
//! attribute's value (between the quotes). This file knows nothing about node types, sections
//! or the IR, and never recurses.

use std::ops::Range;

use btvm::Limits;
use roxmltree::{Attribute, Document, Node};

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};
use crate::syntax::xml;
pub(super) use crate::syntax::xml::elements;

/// Result of this front-end's steps: the first error found.
pub(super) type PResult<T> = Result<T, Diagnostic>;

/// Parses `text` (DTDs refused, so there are no custom entities); a UTF-8 BOM is skipped by
/// `roxmltree`, and positions stay offsets into `text`.
pub(super) fn parse_document<'t>(
    text: &'t str,
    file: FileId,
    limits: &Limits,
) -> PResult<Document<'t>> {
    xml::parse(
        text,
        file,
        "the file has no root element; an MBT file's root is `<BehaviorTree>`",
        limits,
    )
}

/// One attribute of an element: its value and where it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attr<'a> {
    /// The name as written.
    pub name: &'a str,
    /// The value, entities resolved.
    pub value: &'a str,
    /// The whole attribute, `name="value"`.
    pub span: Span,
    /// The value between the quotes.
    pub value_span: Span,
}

/// The source text of one file and how strictly its attributes are checked.
#[derive(Clone, Copy)]
pub(super) struct Src<'t> {
    /// The file's text.
    pub text: &'t str,
    /// Its id in the source map.
    pub file: FileId,
    /// Unknown attributes are ignored (the GameSDK profile) instead of being errors.
    pub lenient: bool,
}

impl<'t> Src<'t> {
    /// A span of this file.
    pub fn span(&self, r: Range<usize>) -> Span {
        Span::new(self.file, r.start, r.end)
    }

    /// The element's tag as written (with any namespace prefix).
    pub fn tag(&self, node: Node) -> &'t str {
        xml::tag(self.text, node)
    }

    /// Whether the element's tag is `name`, compared case-insensitively (ASCII) as CryXML's
    /// `CXmlNode::isTag` and `findChild` compare (`xml.cpp`, commit 8b63f61c).
    pub fn is_tag(&self, node: Node, name: &str) -> bool {
        self.tag(node).eq_ignore_ascii_case(name)
    }

    /// The span of the element's start tag, `<` to `>`.
    pub fn start_tag(&self, node: Node) -> Span {
        xml::start_tag(self.text, self.file, node)
    }

    /// The attribute `a` of some element.
    pub fn attr<'a>(&self, a: &Attribute<'a, 't>) -> Attr<'a>
    where
        't: 'a,
    {
        Attr {
            name: xml::name_at(self.text, a.range().start),
            value: a.value(),
            span: self.span(a.range()),
            value_span: self.span(a.range_value()),
        }
    }

    /// The element's attributes, in document order.
    pub fn attrs<'a>(&self, node: Node<'a, 't>) -> Vec<Attr<'a>>
    where
        't: 'a,
    {
        node.attributes().map(|a| self.attr(&a)).collect()
    }

    /// The attribute called `name`, if the element has it: names compare case-insensitively
    /// (ASCII) and the first match wins, as CryXML's `GetValue` finds attributes
    /// (`Code/CryEngine/CrySystem/XML/xml.h`, `XmlAttribute::operator==` with `ascii_stricmp`
    /// of `xml.cpp`, commit 8b63f61c).
    pub fn find<'a>(&self, node: Node<'a, 't>, name: &str) -> Option<Attr<'a>>
    where
        't: 'a,
    {
        node.attributes()
            .map(|a| self.attr(&a))
            .find(|a| a.name.eq_ignore_ascii_case(name))
    }

    /// The attribute `name`, which the element must have (`InvalidValue` naming it otherwise).
    pub fn required<'a>(&self, node: Node<'a, 't>, name: &str) -> PResult<Attr<'a>>
    where
        't: 'a,
    {
        self.find(node, name).ok_or_else(|| {
            Diagnostic::new(
                ErrorKind::InvalidValue,
                self.start_tag(node),
                format!("`<{}>` needs the attribute `{name}`", self.tag(node)),
            )
        })
    }

    /// Checks that every attribute of the element is one of `known`; an unknown one is an
    /// `InvalidValue` error unless the source is lenient.
    pub fn check_attrs(&self, node: Node, known: &[&str]) -> PResult<()> {
        if self.lenient {
            return Ok(());
        }
        for a in node.attributes() {
            let a = self.attr(&a);
            if !known.iter().any(|k| k.eq_ignore_ascii_case(a.name)) {
                let expected = if known.is_empty() {
                    "it takes no attributes".to_string()
                } else {
                    let list: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
                    format!("it takes {}", list.join(", "))
                };
                return Err(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    a.span,
                    format!("`<{}>` has no attribute `{}`", self.tag(node), a.name),
                )
                .with_note(format!("{expected} (names compare case-insensitively)"))
                .with_note("the gamesdk profile ignores unknown attributes, as CRYENGINE does"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str) -> Src<'_> {
        Src {
            text,
            file: FileId(0),
            lenient: false,
        }
    }

    #[test]
    fn names_and_spans_come_from_the_source() {
        let text = "\u{feff}<A xy='1' b=\"t&amp;u\" >text<B/></A>";
        let at = |needle: &str| text.find(needle).unwrap() as u32;
        let doc = parse_document(text, FileId(0), &Limits::default()).unwrap();
        let s = src(text);
        let root = doc.root_element();
        assert_eq!(s.tag(root), "A");
        let tag = s.start_tag(root);
        assert_eq!((tag.start, tag.end), (3, at(">text") + 1));
        let b = s.find(root, "b").unwrap();
        assert_eq!(b.value, "t&u");
        assert_eq!(
            (b.value_span.start, b.value_span.end),
            (at("t&"), at("u\"") + 1)
        );
        assert_eq!(s.attrs(root)[0].name, "xy");
        let e = s.check_attrs(root, &["b"]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidValue);
        assert_eq!((e.span.start, e.span.end), (at("xy"), at("xy") + 6));
        assert!(s.check_attrs(root, &["xy", "b"]).is_ok());
        let e = s.required(root, "c").unwrap_err();
        assert!(e.message.contains("`c`"), "{}", e.message);
        assert_eq!(elements(root).count(), 1);
    }

    #[test]
    fn xml_errors_are_positioned() {
        let e = parse_document("<A>\n  <B></C>\n</A>", FileId(0), &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert_eq!(e.span.start, 9);
        let e = parse_document("", FileId(0), &Limits::default()).unwrap_err();
        assert_eq!((e.kind, e.span.start), (ErrorKind::Syntax, 0));
        let e = parse_document("<A>", FileId(0), &Limits::default()).unwrap_err();
        assert_eq!(e.span.start, 3);
        let e = parse_document("<!DOCTYPE x []><A/>", FileId(0), &Limits::default()).unwrap_err();
        assert_eq!((e.span.start, e.span.end), (0, 9));
    }
}
