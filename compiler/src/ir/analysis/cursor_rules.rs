//! The rules of a cursor-model (Drag\[en\]gine) tree: which nodes are rules, their numbers and
//! their parents (`spec/semantics.md` §4.2).
//!
//! The reference interpreter and the lowering both number rules from here, so the bytecode's
//! rule table is exactly the rules the interpreter runs. It only reads a checked tree: it must
//! never depend on an engine or reject a tree (that is `check`'s alone).

use crate::ir::{NodeId, NodeKind, Tree};

/// The rules of a cursor tree: the main root and every child of a `cursor` list, numbered in
/// arena order (so the root is rule 0).
#[derive(Clone, Debug)]
pub(crate) struct Rules {
    /// The top node of each rule.
    pub tops: Vec<NodeId>,
    /// The parent rule of each rule (`None` for the root).
    pub parent: Vec<Option<u32>>,
    /// The rule number of each node that is a rule's top.
    pub index: Vec<Option<u32>>,
}

impl Rules {
    /// Finds the rules of `tree` (which passed [`crate::check::check`]).
    pub fn new(tree: &Tree) -> Rules {
        let mut found: Vec<(NodeId, Option<NodeId>)> = Vec::new();
        let mut stack: Vec<(NodeId, Option<NodeId>)> =
            tree.main_root().map(|r| (r, None)).into_iter().collect();
        while let Some((top, parent)) = stack.pop() {
            found.push((top, parent));
            let end = chain_end(tree, top);
            if matches!(
                tree.node(end).kind,
                NodeKind::Sequence(_) | NodeKind::Selector(_)
            ) {
                stack.extend(tree.node(end).children.iter().map(|&c| (c, Some(top))));
            }
        }
        found.sort_by_key(|&(top, _)| top);
        let mut index = vec![None; tree.nodes.len()];
        for (i, &(top, _)) in found.iter().enumerate() {
            index[top.index()] = Some(i as u32);
        }
        let parent = found
            .iter()
            .map(|&(_, p)| p.and_then(|p| index[p.index()]))
            .collect();
        Rules {
            tops: found.into_iter().map(|(t, _)| t).collect(),
            parent,
            index,
        }
    }

    /// The rule number of a rule's top node.
    pub fn of(&self, top: NodeId) -> u32 {
        self.index.get(top.index()).copied().flatten().unwrap_or(0)
    }

    /// The rule whose id is `name`.
    pub fn named(&self, tree: &Tree, name: &str) -> Option<u32> {
        self.tops
            .iter()
            .position(|&t| tree.node(t).name.as_deref() == Some(name))
            .map(|i| i as u32)
    }
}

/// The last node of a rule's decorator chain: a leaf or a list.
fn chain_end(tree: &Tree, mut id: NodeId) -> NodeId {
    while let NodeKind::Guard(_) | NodeKind::MapStatus(_) | NodeKind::Invert = tree.node(id).kind {
        match tree.node(id).children.first() {
            Some(&c) => id = c,
            None => break,
        }
    }
    id
}
