//! The display tree of a compiled program, from its node table (`btvm::program::NodeTable`):
//! each node's kind, name and file:line, its children from the table's parents, an
//! `include`'s child the root of the subtree it names (the subtree root keyed or named by the
//! include's name). A program keeps no knobs (conditions, calls' arguments): their labels are
//! empty. Reads the program only; never fails (a program without a node table shows no
//! nodes).

use btvm::program::ProgramModel;
use btvm::Program;

use super::{View, ViewNode};

/// The display tree of `program`, titled `title`, without a timeline.
pub fn display_program(program: &Program, title: &str) -> View {
    let t = program.nodes();
    let mut nodes: Vec<ViewNode> = t
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| ViewNode {
            id: i as u32,
            kind: n.kind.clone(),
            name: n.name.clone().unwrap_or_default(),
            args: String::new(),
            file: n
                .file
                .and_then(|f| t.files.get(f as usize))
                .cloned()
                .unwrap_or_default(),
            line: n.line,
            children: Vec::new(),
        })
        .collect();
    // Parents come before their children (the table is in pre-order), so children stay in
    // order.
    for (i, n) in t.nodes.iter().enumerate() {
        if let Some(p) = n.parent.and_then(|p| nodes.get_mut(p as usize)) {
            p.children.push(i as u32);
        }
    }
    // The roots in arena order: the entries' (as many as the program has entry functions),
    // then the subtrees', in declaration order.
    let tops: Vec<usize> = (0..t.nodes.len())
        .filter(|&i| t.nodes[i].parent.is_none())
        .collect();
    let entries = program
        .functions()
        .iter()
        .filter(|f| f.kind == btvm::program::FunctionKind::Entry)
        .count()
        .clamp(1, tops.len().max(1));
    let (entry_roots, subtree_roots) = tops.split_at(entries.min(tops.len()));
    // An include names its subtree; the subtree's root is keyed by that name, or bears it.
    let subtree = |name: &str| {
        subtree_roots.iter().copied().find(|&i| {
            let n = &t.nodes[i];
            n.key == format!("subtree:{name}") || n.name.as_deref() == Some(name)
        })
    };
    let mut included = vec![false; t.nodes.len()];
    for n in nodes.iter_mut().filter(|n| n.kind == "include") {
        if let Some(root) = subtree(&n.name) {
            n.children.push(root as u32);
            included[root] = true;
        }
    }
    let roots = entry_roots
        .iter()
        .chain(subtree_roots.iter().filter(|&&i| !included[i]))
        .map(|&i| i as u32)
        .collect();
    View {
        title: title.to_string(),
        dialect: dialect_of(program).to_string(),
        nodes,
        roots,
        timeline: None,
    }
}

/// The dialect whose model the program runs (each model is one dialect's).
fn dialect_of(program: &Program) -> &'static str {
    match program.model() {
        ProgramModel::RunningList => "unvanquished",
        ProgramModel::Cursor { .. } => "dragengine",
        ProgramModel::Decider { .. } => "spore",
        ProgramModel::Lifecycle => "mbt",
        ProgramModel::Selection { .. } => "bst",
        _ => "unknown",
    }
}
