//! The key a node has in the running-list (Unvanquished) model's list of running nodes.
//!
//! The reference interpreter keys its list by it and the lowering allocates the list's bits
//! by it, so both see the same list. It only reads the tree: it must never depend on an engine.

use crate::ir::{NodeId, NodeKind, Sharing, Tree};

/// The identity a node has in the running list: its id, except that every `include` of a
/// shared subtree is one node, as in the game, where the behavior node *is* the included tree
/// object (`spec/semantics.md`, 4.1).
pub(crate) fn identity(tree: &Tree, id: NodeId) -> NodeId {
    match tree.node(id).kind {
        NodeKind::Include(sub)
            if tree
                .subtrees
                .get(sub.0 as usize)
                .is_some_and(|s| s.sharing == Sharing::Shared) =>
        {
            NodeId(u32::try_from(tree.nodes.len() + sub.0 as usize).unwrap_or(u32::MAX))
        }
        _ => id,
    }
}
