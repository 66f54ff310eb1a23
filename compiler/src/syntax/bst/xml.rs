//! The XML layer of the BST front-end: one parsed file and its elements and attributes with
//! their spans, over the shared XML layer ([`crate::syntax::xml`]: parsing with `roxmltree`
//! (no DTDs), positioned errors, names and start tags taken from the source).
//!
//! Tag names are read from the source as written and compared case-insensitively by the
//! callers (`stricmp` in the original); attribute names are compared exactly. This file
//! knows nothing about BST's elements beyond the helpers' messages; it never recurses.

use btvm::Limits;
use roxmltree::{Document, Node};

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};
use crate::syntax::xml;

/// One parsed file.
pub(super) struct XmlFile<'t> {
    /// Its id in the source map.
    pub id: FileId,
    /// Its text.
    pub text: &'t str,
    /// The document.
    pub doc: Document<'t>,
}

/// Parses `text` (file `id`); malformed XML is a [`ErrorKind::Syntax`] error at the position
/// `roxmltree` reports.
pub(super) fn parse<'t>(
    id: FileId,
    text: &'t str,
    limits: &Limits,
) -> Result<XmlFile<'t>, Diagnostic> {
    let doc = xml::parse(text, id, "the file has no root element", limits)?;
    Ok(XmlFile { id, text, doc })
}

/// An element, with the file it is in.
#[derive(Clone, Copy)]
pub(super) struct El<'a, 't> {
    /// The element.
    pub node: Node<'a, 't>,
    /// Its file.
    pub file: &'a XmlFile<'t>,
}

/// An attribute's value and where it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attr<'a> {
    /// The value, with entities resolved.
    pub value: &'a str,
    /// The span of the value's text (inside the quotes).
    pub span: Span,
}

impl<'a, 't> El<'a, 't> {
    /// The root element of `file`.
    pub fn root(file: &'a XmlFile<'t>) -> Self {
        El {
            node: file.doc.root_element(),
            file,
        }
    }

    fn span(&self, r: std::ops::Range<usize>) -> Span {
        Span::new(self.file.id, r.start, r.end)
    }

    /// The element's name as written (with any namespace prefix).
    pub fn tag(&self) -> &'t str {
        xml::tag(self.file.text, self.node)
    }

    /// Whether the element's name is `name`, compared case-insensitively.
    pub fn is(&self, name: &str) -> bool {
        self.tag().eq_ignore_ascii_case(name)
    }

    /// The span of the element's start tag, `<` to `>`.
    pub fn start_tag(&self) -> Span {
        xml::start_tag(self.file.text, self.file.id, self.node)
    }

    /// The element children, in document order.
    pub fn elements(&self) -> impl Iterator<Item = El<'a, 't>> + 'a {
        let file = self.file;
        xml::elements(self.node).map(move |node| El { node, file })
    }

    /// The attribute `name`, compared case-insensitively (ASCII), the first match winning, as
    /// CryXML's `GetValue` finds it (`Code/CryEngine/CrySystem/XML/xml.h`,
    /// `XmlAttribute::operator==` with `ascii_stricmp`, commit 8b63f61c).
    pub fn attr(&self, name: &str) -> Option<Attr<'a>> {
        self.node
            .attributes()
            .find(|a| self.qname(a).eq_ignore_ascii_case(name))
            .map(|a| Attr {
                value: a.value(),
                span: self.span(a.range_value()),
            })
    }

    /// The attribute `name`, required: missing is an [`ErrorKind::InvalidValue`] error at the
    /// start tag, naming the attribute.
    pub fn required(&self, name: &str) -> Result<Attr<'a>, Diagnostic> {
        self.attr(name).ok_or_else(|| {
            Diagnostic::new(
                ErrorKind::InvalidValue,
                self.start_tag(),
                format!("`<{}>` needs a `{name}` attribute", self.tag()),
            )
        })
    }

    /// Fails with [`ErrorKind::InvalidValue`] at the first attribute whose name is not in
    /// `known` (names compared exactly).
    pub fn only_attributes(&self, known: &[&str]) -> Result<(), Diagnostic> {
        for a in self.node.attributes() {
            let name = self.qname(&a);
            if !known.iter().any(|k| k.eq_ignore_ascii_case(name)) {
                let list = known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let d = Diagnostic::new(
                    ErrorKind::InvalidValue,
                    self.span(a.range()),
                    format!("`<{}>` has no attribute `{name}`", self.tag()),
                );
                return Err(if known.is_empty() {
                    d.with_note(format!("`<{}>` takes no attributes", self.tag()))
                } else {
                    d.with_note(format!(
                        "`<{}>` takes {list} (attribute names are case-sensitive)",
                        self.tag()
                    ))
                });
            }
        }
        Ok(())
    }

    /// Fails with [`ErrorKind::Arity`] at the first element child: for elements that hold
    /// none.
    pub fn no_elements(&self) -> Result<(), Diagnostic> {
        match self.elements().next() {
            None => Ok(()),
            Some(c) => Err(Diagnostic::new(
                ErrorKind::Arity,
                c.start_tag(),
                format!("`<{}>` cannot contain `<{}>`", self.tag(), c.tag()),
            )
            .with_label(self.start_tag(), "in this element")),
        }
    }

    /// The attribute's name as written (`prefix:name` with a prefix).
    fn qname(&self, a: &roxmltree::Attribute) -> &'t str {
        self.file.text.get(a.range_qname()).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_and_attributes_carry_their_spans() {
        let text = "<SelectionTree name='a&amp;b' x:y='1'><Leaf name=\"L\"/></SelectionTree>";
        let f = parse(FileId(0), text, &btvm::Limits::default());
        // `x:` is an undeclared namespace prefix: malformed XML, positioned.
        let e = f.err().unwrap();
        assert_eq!(e.kind, ErrorKind::Syntax);
        let text = "<SelectionTree name='a&amp;b' type='t' >\n <leaf name=\"L\"/></SelectionTree>";
        let f = parse(FileId(0), text, &btvm::Limits::default()).unwrap();
        let root = El::root(&f);
        assert!(root.is("selectiontree"));
        assert_eq!(root.start_tag(), Span::new(FileId(0), 0, 40));
        let name = root.attr("name").unwrap();
        assert_eq!(name.value, "a&b");
        assert_eq!(name.span, Span::new(FileId(0), 21, 28));
        assert_eq!(root.attr("Name").map(|a| a.value), Some("a&b"));
        let leaf = root.elements().next().unwrap();
        assert_eq!(leaf.tag(), "leaf");
        assert!(root.only_attributes(&["name"]).is_err());
        assert!(root.only_attributes(&["name", "type"]).is_ok());
        let d = root.no_elements().unwrap_err();
        assert_eq!((d.kind, d.span.start), (ErrorKind::Arity, 42));
        let d = leaf.required("type").unwrap_err();
        assert_eq!(d.kind, ErrorKind::InvalidValue);
    }

    #[test]
    fn xml_errors_are_positioned() {
        let e = parse(FileId(0), "<a>\n  <b></c>\n</a>", &btvm::Limits::default())
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert_eq!(e.span.start, 9);
        let e = parse(FileId(0), "", &btvm::Limits::default())
            .err()
            .unwrap();
        assert_eq!((e.kind, e.span.start), (ErrorKind::Syntax, 0));
        let e = parse(FileId(0), "<a>", &btvm::Limits::default())
            .err()
            .unwrap();
        assert_eq!(e.span.start, 3);
        let e = parse(
            FileId(0),
            "<?xml version='1.0'?>\n<!DOCTYPE x []><a/>",
            &btvm::Limits::default(),
        )
        .err()
        .unwrap();
        assert_eq!(e.span.start, 22);
    }
}
