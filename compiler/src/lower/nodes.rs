//! The program's node table ([`btvm::program::NodeTable`]): one entry per IR node in arena
//! order, with its canonical kind, name, source position, parent and stable identity key, plus
//! the probes each model's lowering hands in (where the state says a node is active).
//!
//! Identity keys (`spec/bytecode.md` §5.1) are what hot reload matches nodes by: `id:NAME` for a
//! node whose dialect names it (Drag\[en\]gine rule ids, MBT/BST node and state names, Spore
//! decider names) when no other node has that name; otherwise the parent's key, `/`, then
//! `kind` or `kind:NAME`; where siblings would collide, each gets `~` and a hash of its
//! *leftmost path* (its own canonical line, its first child's, and so on down), and `#k` (k-th
//! such sibling) only if those are the same too, so a branch added beside them changes no
//! existing key; an entry's or subtree's root is `entry:NAME` / `subtree:NAME`. This module reads the tree only;
//! it never emits code.

use std::collections::HashMap;

use btvm::program::{NodeInfo, NodeTable, Probe, MAX_NODE_TEXT};

use crate::ir::{NodeId, NodeKind, Tree};
use crate::source::SourceMap;

/// The node table of `tree` with `probes`; positions from `sources` when given.
pub(super) fn table(
    tree: &Tree,
    probes: Vec<(u32, Probe)>,
    sources: Option<&SourceMap>,
) -> NodeTable {
    let parent = parents(tree);
    let mut files: Vec<String> = Vec::new();
    let mut file_index: HashMap<u32, u32> = HashMap::new();
    let names: Vec<Option<String>> = (0..tree.nodes.len())
        .map(|i| name(tree, NodeId(i as u32)))
        .collect();
    let keys = keys(tree, &parent, &names);
    let nodes = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let pos = sources.and_then(|s| {
                let f = s.get(node.span.file).filter(|_| !node.span.is_dummy())?;
                let (line, col) = f.line_col(node.span.start);
                let at = *file_index.entry(node.span.file.0).or_insert_with(|| {
                    files.push(f.path.display().to_string());
                    files.len() as u32 - 1
                });
                Some((at, line, col))
            });
            NodeInfo {
                kind: node.kind.keyword().to_string(),
                name: names[i].clone(),
                key: keys[i].clone(),
                parent: parent[i].map(|p| p.0),
                file: pos.map(|p| p.0),
                line: pos.map_or(0, |p| u32::try_from(p.1).unwrap_or(u32::MAX)),
                column: pos.map_or(0, |p| u32::try_from(p.2).unwrap_or(u32::MAX)),
            }
        })
        .collect();
    NodeTable {
        files,
        nodes,
        probes,
        code: Vec::new(),
        cells: Vec::new(),
        overlays: Vec::new(),
        names: super::names::tree_names(tree),
    }
}

/// Makes `t` fit what the verifier accepts under `limits`, so the table never makes the
/// lowering refuse a tree `check` accepted: a tree of more than `Limits::max_nodes` nodes gets
/// no table; a name or file name past [`MAX_NODE_TEXT`] is cut (it is for display); a key past it
/// (a deep path) becomes `hash:` and the FNV-1a 64 of the full key.
pub(super) fn fit(t: &mut NodeTable, limits: &btvm::Limits) {
    super::names::fit(&mut t.names);
    if t.nodes.len() > limits.max_nodes || t.files.len() > limits.max_nodes {
        *t = NodeTable {
            names: std::mem::take(&mut t.names),
            ..NodeTable::default()
        };
        return;
    }
    for f in &mut t.files {
        cut(f);
    }
    for n in &mut t.nodes {
        if let Some(name) = &mut n.name {
            cut(name);
        }
        if n.key.len() > MAX_NODE_TEXT {
            n.key = format!("hash:{:016x}", btvm::program::fingerprint(n.key.as_bytes()));
        }
    }
}

/// Cuts `s` to at most [`MAX_NODE_TEXT`] bytes, on a character boundary.
fn cut(s: &mut String) {
    if s.len() > MAX_NODE_TEXT {
        let mut at = MAX_NODE_TEXT;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
}

/// Each node's parent (`None` for roots of entries and subtrees).
fn parents(tree: &Tree) -> Vec<Option<NodeId>> {
    let mut parent = vec![None; tree.nodes.len()];
    for (i, node) in tree.nodes.iter().enumerate() {
        for &c in &node.children {
            if let Some(p) = parent.get_mut(c.index()) {
                *p = Some(NodeId(i as u32));
            }
        }
    }
    parent
}

/// A node's name: its own (rule id, state or decider name), else what it calls or includes.
pub(crate) fn name(tree: &Tree, id: NodeId) -> Option<String> {
    let node = tree.node(id);
    if let Some(n) = &node.name {
        return Some(n.clone());
    }
    let import = |i: btvm::ImportId| tree.imports.get(i.0 as usize).map(|i| i.name.clone());
    match &node.kind {
        NodeKind::Action(call) => import(call.import),
        NodeKind::Behavior(b) => import(b.import),
        NodeKind::Include(s) => tree.subtrees.get(s.0 as usize).map(|s| s.name.clone()),
        NodeKind::Select(s) => Some(s.clone()),
        NodeKind::SendEvent(e) => Some(e.event.clone()),
        NodeKind::WaitForEvent(e) => Some(e.event.clone()),
        _ => None,
    }
}

/// Escapes the key separators in a name.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('/', "\\/")
        .replace('#', "\\#")
}

/// The identity key of every node (see the module docs); distinct by construction.
fn keys(tree: &Tree, parent: &[Option<NodeId>], names: &[Option<String>]) -> Vec<String> {
    let mut own: HashMap<&str, usize> = HashMap::new();
    for n in &tree.nodes {
        if let Some(name) = &n.name {
            *own.entry(name.as_str()).or_default() += 1;
        }
    }
    let mut roots: HashMap<u32, String> = HashMap::new();
    for e in &tree.roots {
        roots.insert(e.node.0, format!("entry:{}", escape(&e.name)));
    }
    for s in &tree.subtrees {
        roots.insert(s.node.0, format!("subtree:{}", escape(&s.name)));
    }
    let segs: Vec<String> = (0..tree.nodes.len())
        .map(|i| segment(tree, NodeId(i as u32), names))
        .collect();
    // Siblings with the same segment tell themselves apart by their leftmost paths, then by
    // their ordinal among those with the same path too.
    let mut ordinal: Vec<Option<String>> = vec![None; tree.nodes.len()];
    for node in &tree.nodes {
        let mut seen: HashMap<&str, Vec<usize>> = HashMap::new();
        for c in &node.children {
            if let Some(seg) = segs.get(c.index()) {
                seen.entry(seg.as_str()).or_default().push(c.index());
            }
        }
        for same in seen.values().filter(|v| v.len() > 1) {
            let paths: Vec<u64> = same.iter().map(|&c| leftmost(tree, c)).collect();
            for (k, &c) in same.iter().enumerate() {
                let twins: Vec<usize> = (0..same.len()).filter(|&j| paths[j] == paths[k]).collect();
                ordinal[c] = Some(match twins.iter().position(|&j| j == k) {
                    Some(n) if twins.len() > 1 => format!("~{:08x}#{n}", paths[k] as u32),
                    _ => format!("~{:08x}", paths[k] as u32),
                });
            }
        }
    }
    let mut keys = vec![String::new(); tree.nodes.len()];
    // Parents come before children (pre-order arena), so a parent's key is always ready.
    for i in 0..tree.nodes.len() {
        keys[i] = match (&tree.nodes[i].name, parent[i]) {
            (Some(n), _) if own.get(n.as_str()) == Some(&1) => format!("id:{}", escape(n)),
            (_, None) => roots
                .get(&(i as u32))
                .cloned()
                .unwrap_or_else(|| format!("node:{i}")),
            (_, Some(p)) => match &ordinal[i] {
                Some(k) => format!("{}/{}{k}", keys[p.index()], segs[i]),
                None => format!("{}/{}", keys[p.index()], segs[i]),
            },
        };
    }
    keys
}

/// The FNV-1a 64 of node `i`'s leftmost path: its canonical line, its first child's, and so
/// on down (at most 32 levels).
fn leftmost(tree: &Tree, i: usize) -> u64 {
    let mut text = String::new();
    let mut at = Some(NodeId(i as u32));
    for _ in 0..32 {
        let Some(id) = at else { break };
        text.push_str(&crate::syntax::canonical::node_text(tree, id));
        text.push('\n');
        at = tree
            .nodes
            .get(id.index())
            .and_then(|n| n.children.first().copied());
    }
    btvm::program::fingerprint(text.as_bytes())
}

/// One path segment: `kind` or `kind:NAME`.
fn segment(tree: &Tree, id: NodeId, names: &[Option<String>]) -> String {
    let kind = tree.node(id).kind.keyword();
    match names.get(id.index()).and_then(Option::as_ref) {
        Some(n) => format!("{kind}:{}", escape(n)),
        None => kind.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn parse(src: &str) -> Tree {
        crate::syntax::canonical::parse(FileId(0), src, &btvm::Limits::default()).unwrap()
    }

    /// Keys: a unique own name is the key; repeated names and unnamed nodes get paths, with
    /// ordinals only between siblings that would collide; separators in names are escaped.
    #[test]
    fn keys_follow_ids_then_paths() {
        let t = parse(
            "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\nimport action \"b/c\" 0..0;\n\
             root main = sequence restart { action a() action a() condition (true) \
             action \"b/c\"() }\n",
        );
        let table = table(&t, Vec::new(), None);
        let keys: Vec<&str> = table.nodes.iter().map(|n| n.key.as_str()).collect();
        // The two `action a()` have the same leftmost path: its hash, then their ordinals.
        let twin = leftmost(&t, 1) as u32;
        assert_eq!(leftmost(&t, 1), leftmost(&t, 2));
        assert_eq!(
            keys,
            [
                "entry:main",
                &format!("entry:main/action:a~{twin:08x}#0"),
                &format!("entry:main/action:a~{twin:08x}#1"),
                "entry:main/condition",
                "entry:main/action:b\\/c",
            ]
        );
        assert_eq!(table.nodes[1].parent, Some(0));
        assert_eq!(table.nodes[1].name.as_deref(), Some("a"));
    }

    /// A branch added before siblings of the same kind changes none of their keys: they are
    /// told apart by what they hold (their leftmost paths), not by position.
    #[test]
    fn a_branch_added_before_keeps_every_key() {
        let head = "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\nimport action b 0..0;\n\
                    import function f 0..0;\nimport function g 0..0;\n";
        let old = parse(&format!(
            "{head}root main = selector restart {{ guard every-tick (f() > 1) {{ action a() }} \
             guard every-tick (g() > 1) {{ action b() }} }}\n"
        ));
        let new = parse(&format!(
            "{head}root main = selector restart {{ guard every-tick (g() > 9) {{ action a() }} \
             guard every-tick (f() > 1) {{ action a() }} guard every-tick (g() > 1) {{ action b() }} }}\n"
        ));
        let (old, new) = (table(&old, Vec::new(), None), table(&new, Vec::new(), None));
        let new_keys: Vec<&str> = new.nodes.iter().map(|n| n.key.as_str()).collect();
        for n in &old.nodes {
            assert!(new_keys.contains(&n.key.as_str()), "{} is gone", n.key);
        }
        assert_eq!(old.nodes.len() + 2, new.nodes.len());
    }

    /// A table that would break a limit never makes the lowering refuse the tree.
    #[test]
    fn tables_fit_the_limits() {
        let t = parse(
            "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\n\
             root main = sequence restart { action a() action a() }\n",
        );
        let mut big = table(&t, Vec::new(), None);
        big.nodes[2].key = "k".repeat(MAX_NODE_TEXT + 1);
        big.nodes[2].name = Some("é".repeat(MAX_NODE_TEXT));
        fit(&mut big, &btvm::Limits::default());
        assert!(big.nodes[2].key.starts_with("hash:"));
        assert!(big.nodes[2].name.as_ref().unwrap().len() <= MAX_NODE_TEXT);
        let few = btvm::Limits {
            max_nodes: 2,
            ..btvm::Limits::default()
        };
        let mut t3 = table(&t, Vec::new(), None);
        fit(&mut t3, &few);
        assert!(t3.is_empty());
    }
}
