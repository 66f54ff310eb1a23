//! The display tree of a loaded tree: one [`ViewNode`] per IR node, with labels from the
//! canonical printer and positions from the source map. Reads the tree only; never fails.

use super::{View, ViewNode};
use crate::ir::{NodeId, NodeKind, Tree};
use crate::source::SourceMap;
use crate::syntax::canonical;

/// The display tree of `tree` (loaded with `sources`; unknown positions are left empty),
/// titled `title`, without a timeline.
pub fn display(tree: &Tree, sources: &SourceMap, title: &str) -> View {
    let nodes: Vec<ViewNode> = (0..tree.nodes.len())
        .map(|i| node(tree, sources, NodeId(i as u32)))
        .collect();
    View {
        title: title.to_string(),
        dialect: tree.dialect.name().to_string(),
        roots: roots(tree),
        nodes,
        timeline: None,
    }
}

fn node(tree: &Tree, sources: &SourceMap, id: NodeId) -> ViewNode {
    let n = tree.node(id);
    let (file, line) = sources
        .get(n.span.file)
        .filter(|_| !n.span.is_dummy())
        .map_or((String::new(), 0), |f| {
            let (line, _) = f.line_col(n.span.start);
            (
                f.path.display().to_string(),
                u32::try_from(line).unwrap_or(u32::MAX),
            )
        });
    let mut children: Vec<u32> = n.children.iter().map(|c| c.0).collect();
    if let NodeKind::Include(s) = &n.kind {
        if let Some(sub) = tree.subtrees.get(s.0 as usize) {
            children.push(sub.node.0);
        }
    }
    ViewNode {
        id: id.0,
        kind: n.kind.keyword().to_string(),
        name: crate::lower::node_name(tree, id).unwrap_or_default(),
        args: canonical::node_knobs(tree, id),
        file,
        line,
        children,
    }
}

/// Entry roots in order, then the roots of subtrees no `include` names.
fn roots(tree: &Tree) -> Vec<u32> {
    let mut included = vec![false; tree.subtrees.len()];
    for n in &tree.nodes {
        if let NodeKind::Include(s) = &n.kind {
            if let Some(f) = included.get_mut(s.0 as usize) {
                *f = true;
            }
        }
    }
    let entries = tree.roots.iter().map(|e| e.node.0);
    let orphans = tree
        .subtrees
        .iter()
        .zip(included)
        .filter(|(_, inc)| !inc)
        .map(|(s, _)| s.node.0);
    entries.chain(orphans).collect()
}
