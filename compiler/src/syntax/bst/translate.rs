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

/// One `<Map>`.
struct Map {
    /// The qualifiers, outermost first (`["P1", "P2"]` for `P1:P2:LEAF`).
    qualifiers: Vec<String>,
    /// The behaviour name.
    target: String,
}

/// A tree's leaf translations.
#[derive(Default)]
pub(super) struct Translations {
    /// Maps by leaf name, in file order.
    by_leaf: HashMap<String, Vec<Map>>,
    /// Every `node` string seen, with where it was written (duplicates are errors).
    seen: HashMap<String, Span>,
}

impl Translations {
    /// Adds one `<Map>` element.
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
        if let Some(first) = self.seen.get(node.value) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                node.span,
                format!("leaf translation for `{}` is given twice", node.value),
            )
            .with_label(*first, "first given here"));
        }
        let mut parts: Vec<String> = node.value.split(':').map(str::to_string).collect();
        if parts.iter().any(String::is_empty) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                node.span,
                format!("`{}` has an empty node name", node.value),
            )
            .with_note("write `LEAF` or `PARENT:LEAF`, `GRANDPARENT:PARENT:LEAF`, …"));
        }
        let leaf = parts.pop().unwrap_or_default();
        self.seen.insert(node.value.to_string(), node.span);
        self.by_leaf.entry(leaf).or_default().push(Map {
            qualifiers: parts,
            target: target.value.to_string(),
        });
        Ok(())
    }

    /// The behaviour of a leaf named `leaf` whose ancestor nodes are `ancestors` (outermost
    /// first): a plain map's target, else the first matching qualified map's target (file
    /// order), else the leaf's own name.
    pub fn behavior<'s>(&'s self, leaf: &'s str, ancestors: &[&str]) -> &'s str {
        let maps = self.by_leaf.get(leaf).map_or(&[][..], Vec::as_slice);
        let plain = maps.iter().find(|m| m.qualifiers.is_empty());
        plain
            .or_else(|| {
                maps.iter().find(|m| {
                    m.qualifiers.len() <= ancestors.len()
                        && m.qualifiers
                            .iter()
                            .rev()
                            .zip(ancestors.iter().rev())
                            .all(|(q, a)| q == a)
                })
            })
            .map_or(leaf, |m| m.target.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;
    use crate::syntax::bst::xml::parse;

    fn table(xml: &str) -> Result<Translations, Diagnostic> {
        let f = parse(FileId(0), xml).unwrap();
        let mut t = Translations::default();
        for m in El::root(&f).elements() {
            t.add(m)?;
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
    }

    #[test]
    fn bad_maps_are_errors() {
        let e = |xml: &str| table(xml).err().map(|d| d.kind);
        assert_eq!(
            e("<T><Map node='a' target='x'/><Map node='a' target='y'/></T>"),
            Some(ErrorKind::InvalidValue)
        );
        assert_eq!(
            e("<T><Map node='a:' target='x'/></T>"),
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
        // Different strings with the same leaf are fine.
        assert_eq!(
            e("<T><Map node='a' target='x'/><Map node='b:a' target='y'/></T>"),
            None
        );
    }
}
