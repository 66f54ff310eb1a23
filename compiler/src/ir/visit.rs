//! Whole-tree helpers: span stripping and node-size computation.

use super::tree::{NodeId, Tree};
use crate::source::Span;

impl Tree {
    /// Replaces every span with [`Span::DUMMY`], so trees parsed from different texts can be
    /// compared structurally.
    pub fn strip_spans(&mut self) {
        for n in &mut self.nodes {
            n.span = Span::DUMMY;
        }
        for s in &mut self.subtrees {
            s.span = Span::DUMMY;
        }
    }

    /// The number of nodes in the subtree rooted at `id` (itself included), using the canonical
    /// layout: the subtree is `id .. id + size`.
    pub fn subtree_size(&self, id: NodeId) -> usize {
        let mut size = 0;
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            size += 1;
            if let Some(node) = self.nodes.get(n.index()) {
                stack.extend(node.children.iter().copied());
            }
        }
        size
    }
}
