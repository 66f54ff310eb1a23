//! What the decider (Spore) model runs: decider trees, one entry, groups of deciders
//! (`spec/spore.md`).
//!
//! Only [`super::check`] calls this; the reference and the lowering assume a checked tree.

use btvm::decider::MAX_GROUP_CHILDREN;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{NodeId, NodeKind, Tree};

/// Rejects trees that are not decider trees: the root must be a decider, a decider's child a
/// group or a behavior, a group's children deciders (each possibly through `include`s of shared
/// subtrees), and a group has at most [`MAX_GROUP_CHILDREN`] children.
pub(super) fn supported(tree: &Tree) -> super::kinds::Found {
    super::kinds::check(tree, "decider (Spore)", |kind| {
        matches!(
            kind,
            NodeKind::Decider(_)
                | NodeKind::Group(_)
                | NodeKind::Behavior(_)
                | NodeKind::Include(_)
        )
    })?;
    let bad = |id: NodeId, msg: String| {
        Err(vec![Diagnostic::new(
            ErrorKind::Unsupported,
            tree.node(id).span,
            msg,
        )])
    };
    if let [_, second, ..] = &tree.roots[..] {
        return bad(
            second.node,
            "a decider tree has one entry, its root decider".into(),
        );
    }
    for entry in &tree.roots {
        if !matches!(
            tree.node(tree.through_includes(entry.node)).kind,
            NodeKind::Decider(_)
        ) {
            return bad(
                entry.node,
                format!(
                    "the entry `{}` of a decider tree must be a `decider`",
                    entry.name
                ),
            );
        }
    }
    for (i, n) in tree.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        match &n.kind {
            NodeKind::Decider(_) => {
                let t = n.children.first().map(|&c| tree.through_includes(c));
                if !t.is_some_and(|t| {
                    matches!(
                        tree.node(t).kind,
                        NodeKind::Group(_) | NodeKind::Behavior(_)
                    )
                }) {
                    return bad(id, "a `decider` must run a `group` or a `behavior`".into());
                }
            }
            NodeKind::Group(_) => {
                if n.children.len() > MAX_GROUP_CHILDREN {
                    return bad(
                        id,
                        format!(
                            "a group has {} children; at most {MAX_GROUP_CHILDREN} are allowed",
                            n.children.len()
                        ),
                    );
                }
                for &c in &n.children {
                    if !matches!(
                        tree.node(tree.through_includes(c)).kind,
                        NodeKind::Decider(_)
                    ) {
                        return bad(c, "a group's children must be deciders".into());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
