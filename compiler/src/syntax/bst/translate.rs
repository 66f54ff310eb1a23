//! Leaf translations (`spec/bst.md` section 1.5): `<Map node="LEAF" target="B"/>` and
//! qualified `<Map node="P1:P2:LEAF" …/>`, resolved at load so each leaf's behaviour name is
//! fixed in the IR.
//!
//! As the original's translator: a plain map for the leaf's name wins; otherwise the qualified
//! maps for that name are tried in file order (after Ref expansion) and the first whose
//! qualifiers name the leaf's nearest ancestor nodes (States are not nodes), read right to
//! left from the parent, wins; otherwise the leaf keeps its own name. Names compare exactly.
//! This file reads only `<Map>` attributes and never builds IR.

use std::collections::HashMap;

use super::xml::El;
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

/// One qualified `<Map>`.
struct Map {
    /// The qualifiers, outermost first (`["P1", "P2"]` for `P1:P2:LEAF`).
    qualifiers: Vec<String>,
    /// The behaviour name.
    target: String,
}

/// A tree's leaf translations: one [`Section`] per `<LeafTranslations>` element, in file
/// order. Each section is read on its own (`SelectionTranslator::LoadFromXML` runs once per
/// element with fresh maps) and a leaf keeps the first translation a section gives it
/// (`m_translations.insert` does not overwrite).
#[derive(Default)]
pub(super) struct Translations {
    sections: Vec<Section>,
}

/// The maps of one `<LeafTranslations>` element.
#[derive(Default)]
struct Section {
    /// Every `node` string as written, with its target and where it was written: a leaf
    /// whose name is exactly that string takes that target (duplicates are errors).
    direct: HashMap<String, (String, Span)>,
    /// Maps whose `node` has a `:`, by the leaf name after the last `:`, in file order.
    by_leaf: HashMap<String, Vec<Map>>,
}

impl Translations {
    /// Starts the maps of a further `<LeafTranslations>` element.
    pub fn begin_section(&mut self) {
        self.sections.push(Section::default());
    }

    /// Adds one `<Map>` element to the current section (see [`Section::add`]).
    pub fn add(&mut self, map: El) -> Result<(), Diagnostic> {
        if self.sections.is_empty() {
            self.begin_section();
        }
        match self.sections.last_mut() {
            Some(s) => s.add(map),
            None => Ok(()),
        }
    }

    /// The behaviour of a leaf named `leaf` whose ancestor nodes are `ancestors` (outermost
    /// first): the first section's translation that has one (see [`Section::behavior`]),
    /// else the leaf's own name.
    pub fn behavior<'s>(&'s self, leaf: &'s str, ancestors: &[&str]) -> &'s str {
        self.sections
            .iter()
            .find_map(|s| s.behavior(leaf, ancestors))
            .unwrap_or(leaf)
    }
}

impl Section {
    /// Adds one `<Map>` element, as `SelectionTranslator::LoadFromXML` reads it
    /// (`SelectionTranslator.cpp`, 8b63f61c): the whole `node` string is a direct translation
    /// (duplicate strings are errors); if it holds a `:`, the text after the last `:` is the
    /// leaf name and the text before it is cut at `:` into qualifiers, empty pieces skipped
    /// (`CryStringT::Tokenize` skips leading delimiters), so `Root::Rest` has the one
    /// qualifier `Root`, `:Rest` none (it matches every leaf `Rest`), `Rest:` is the leaf `""`.
    pub fn add(&mut self, map: El) -> Result<(), Diagnostic> {
        if !map.is("Map") {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                map.start_tag(),
                format!("unknown element `<{}>` in `<LeafTranslations>`", map.tag()),
            )
            .with_note("`<LeafTranslations>` holds `<Map node=\"…\" target=\"…\"/>` and `<Ref>`"));
        }
        map.only_attributes(&["node", "target"])?;
        map.no_elements()?;
        let node = map.required("node")?;
        let target = map.required("target")?;
        if let Some((_, first)) = self.direct.get(node.value) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                node.span,
                format!("leaf translation for `{}` is given twice", node.value),
            )
            .with_label(*first, "first given here"));
        }
        self.direct.insert(
            node.value.to_string(),
            (target.value.to_string(), node.span),
        );
        if let Some((qualifiers, leaf)) = node.value.rsplit_once(':') {
            self.by_leaf.entry(leaf.to_string()).or_default().push(Map {
                qualifiers: qualifiers
                    .split(':')
                    .filter(|q| !q.is_empty())
                    .map(str::to_string)
                    .collect(),
                target: target.value.to_string(),
            });
        }
        Ok(())
    }

    /// The behaviour of a leaf named `leaf` whose ancestor nodes are `ancestors` (outermost
    /// first): the target of a map whose `node` is exactly `leaf`, else the first qualified map
    /// for `leaf` (file order) whose qualifiers, read from the last, name the parent, the
    /// grandparent, …; `None` if neither.
    fn behavior(&self, leaf: &str, ancestors: &[&str]) -> Option<&str> {
        if let Some((target, _)) = self.direct.get(leaf) {
            return Some(target);
        }
        let maps = self.by_leaf.get(leaf).map_or(&[][..], Vec::as_slice);
        maps.iter()
            .find(|m| {
                m.qualifiers.len() <= ancestors.len()
                    && m.qualifiers
                        .iter()
                        .rev()
                        .zip(ancestors.iter().rev())
                        .all(|(q, a)| q == a)
            })
            .map(|m| m.target.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;
    use crate::syntax::bst::xml::parse;

    fn table(xml: &str) -> Result<Translations, Diagnostic> {
        let f = parse(FileId(0), xml, &btvm::Limits::default()).unwrap();
        let mut t = Translations::default();
        for m in El::root(&f).elements() {
            if m.is("LeafTranslations") {
                t.begin_section();
                for m in m.elements() {
                    t.add(m)?;
                }
            } else {
                t.add(m)?;
            }
        }
        Ok(t)
    }

    #[test]
    fn plain_maps_win_then_qualified_maps_in_file_order() {
        let t = table(
            "<LeafTranslations><Map node='G:P:L' target='gp'/><Map node='P:L' target='p'/>\
             <map node='Q:L' target='q'/><Map node='L' target='plain'/>\
             <Map node='R:M' target='rm'/><Map node='G:P:M' target='gpm'/>\
             <Map node='A:B:C:M' target='deep'/></LeafTranslations>",
        )
        .unwrap();
        // A plain map wins wherever it stands.
        assert_eq!(t.behavior("L", &[]), "plain");
        assert_eq!(t.behavior("L", &["G", "P"]), "plain");
        // Qualified maps: the first match in file order, however many qualifiers.
        assert_eq!(t.behavior("M", &["G", "P"]), "gpm");
        assert_eq!(t.behavior("M", &["X", "R"]), "rm");
        assert_eq!(t.behavior("M", &["A", "B", "C"]), "deep");
        // More qualifiers than ancestors never match; names compare exactly.
        assert_eq!(t.behavior("M", &["B", "C"]), "M");
        assert_eq!(t.behavior("M", &["g", "P"]), "M");
        assert_eq!(t.behavior("l", &["G", "P"]), "l");
        let t = table(
            "<T><Map node='Melee:S' target='first'/><Map node='Combat:Melee:S' target='second'/></T>",
        )
        .unwrap();
        assert_eq!(t.behavior("S", &["Root", "Combat", "Melee"]), "first");
        assert_eq!(t.behavior("S", &["Combat"]), "S");
        // Empty pieces are skipped; a leaf named like a whole `node` string takes it.
        let t = table(
            "<T><Map node='Root::Rest' target='a'/><Map node=':Any' target='b'/>\
             <Map node='P:Q' target='pq'/><Map node='Tail:' target='t'/></T>",
        )
        .unwrap();
        assert_eq!(t.behavior("Rest", &["Root"]), "a");
        assert_eq!(t.behavior("Rest", &["X", "Root"]), "a");
        assert_eq!(t.behavior("Rest", &[]), "Rest");
        assert_eq!(t.behavior("Any", &[]), "b");
        assert_eq!(t.behavior("P:Q", &[]), "pq");
        assert_eq!(t.behavior("", &["Tail"]), "t");
    }

    #[test]
    fn each_section_is_read_alone_and_the_first_translation_stays() {
        let t = table(
            "<Tree><LeafTranslations><Map node='Q:L' target='first'/><Map node='M' target='m'/></LeafTranslations>\
             <LeafTranslations><Map node='L' target='second'/><Map node='M' target='again'/>\
             <Map node='N' target='n'/></LeafTranslations></Tree>",
        )
        .unwrap();
        assert_eq!(t.behavior("L", &["Q"]), "first");
        assert_eq!(t.behavior("L", &["R"]), "second");
        assert_eq!(t.behavior("M", &[]), "m");
        assert_eq!(t.behavior("N", &[]), "n");
    }

    #[test]
    fn bad_maps_are_errors() {
        let e = |xml: &str| table(xml).err().map(|d| d.kind);
        assert_eq!(
            e("<T><Map node='a' target='x'/><Map node='a' target='y'/></T>"),
            Some(ErrorKind::InvalidValue)
        );
        assert_eq!(e("<T><Map node='a'/></T>"), Some(ErrorKind::InvalidValue));
        assert_eq!(
            e("<T><Map node='a' target='x' y='1'/></T>"),
            Some(ErrorKind::InvalidValue)
        );
        assert_eq!(
            e("<T><Mop node='a' target='x'/></T>"),
            Some(ErrorKind::InvalidValue)
        );
        // Different strings with the same leaf are fine, and so are empty pieces.
        assert_eq!(
            e("<T><Map node='a:' target='x'/><Map node='a::b' target='y'/></T>"),
            None
        );
        assert_eq!(
            e("<T><Map node='a' target='x'/><Map node='b:a' target='y'/></T>"),
            None
        );
    }
}
