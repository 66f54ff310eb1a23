//! What a decider-model (Spore) decider runs: its behavior or group, through includes.
//!
//! The reference interpreter and the lowering both follow deciders through here. It only
//! reads a checked tree: it must never depend on an engine or reject a tree.

use crate::ir::{NodeId, Tree};

/// What decider `d` runs: a behavior or a group, through includes (`d` itself if it has no
/// child, which `check` rules out).
pub(crate) fn decider_target(tree: &Tree, d: NodeId) -> NodeId {
    tree.node(d)
        .children
        .first()
        .map_or(d, |&c| tree.through_includes(c))
}
