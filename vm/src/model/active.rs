//! Introspection: which nodes of the node table an agent's state says are active
//! (`Program::active_path`). Each model module decides what its probes mean; this module only
//! asks them and closes the answer under "parent of". It reads the state, never writes it,
//! never runs on the tick's path, and never panics whatever the state bytes.

use super::{cursor, decider, lifecycle, running_list, selection};
use crate::program::{NodeInfo, Probe, ProgramModel};
use crate::Program;

/// One node of an agent's active path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActiveNode<'p> {
    /// The node's index in the program's node table.
    pub index: u32,
    /// The node.
    pub info: &'p NodeInfo,
    /// Its source file's name, if known.
    pub file: Option<&'p str>,
    /// Whether the state names this node itself (a running action, the cursor's rule, a
    /// live record, an active decider); `false` for a node listed only as an ancestor.
    pub direct: bool,
}

impl std::fmt::Display for ActiveNode<'_> {
    /// `kind name @ file:line:column` (name and position when known).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.info.kind)?;
        if let Some(name) = &self.info.name {
            write!(f, " {name:?}")?;
        }
        if let Some(file) = self.file {
            write!(f, " @ {file}:{}:{}", self.info.line, self.info.column)?;
        }
        Ok(())
    }
}

/// Whether `probe` is active in `state` under `program`'s model.
pub(crate) fn probe_active(program: &Program, state: &[u8], probe: Probe) -> bool {
    let l = program.layout();
    match program.model() {
        ProgramModel::RunningList => running_list::probe(state, l, probe),
        ProgramModel::Cursor { .. } => cursor::probe(state, l, program.rules().len(), probe),
        ProgramModel::Decider { .. } => decider::probe(state, l, probe),
        ProgramModel::Lifecycle => lifecycle::probe(state, l, probe),
        ProgramModel::Selection { .. } => selection::probe(state, l, probe),
    }
}

/// Per node of the table, whether an overlay on it or on an ancestor fails in `state`
/// ([`crate::program::Overlay`]): the node's probes and cells hold a sibling's data, and the
/// node is fresh. All `false` when the table has no overlays.
pub(crate) fn overlaid_out(program: &Program, state: &[u8]) -> Vec<bool> {
    let t = &program.parts().nodes;
    let mut out = vec![false; t.nodes.len()];
    for o in &t.overlays {
        if let Some(x) = out.get_mut(o.node as usize) {
            *x = crate::program::read(state, o.field) != o.value;
        }
    }
    // Parents come before their children (verified).
    for i in 0..t.nodes.len() {
        let p = t.nodes[i].parent.map(|p| p as usize);
        if p.is_some_and(|p| p < i && out[p]) {
            out[i] = true;
        }
    }
    out
}

/// The active nodes and all their ancestors, in table (pre-)order, so every node comes after
/// its parent and each path reads root first. Empty when the program has no node table or
/// `state` is not one of its agents' blocks (wrong size).
pub(crate) fn active_path<'p>(program: &'p Program, state: &[u8]) -> Vec<ActiveNode<'p>> {
    let t = &program.parts().nodes;
    if state.len() != program.state_size() {
        return Vec::new();
    }
    // 0: not on the path, 1: an ancestor, 2: named by the state.
    let mut mark = vec![0u8; t.nodes.len()];
    let out = overlaid_out(program, state);
    for &(node, probe) in &t.probes {
        if !out.get(node as usize).copied().unwrap_or(true) && probe_active(program, state, probe) {
            if let Some(m) = mark.get_mut(node as usize) {
                *m = 2;
            }
        }
    }
    // Parents come before their children (verified), so one backward pass closes the set.
    for i in (0..t.nodes.len()).rev() {
        if mark[i] != 0 {
            if let Some(p) = t.nodes[i].parent.and_then(|p| mark.get_mut(p as usize)) {
                *p = (*p).max(1);
            }
        }
    }
    t.nodes
        .iter()
        .zip(&mark)
        .enumerate()
        .filter(|(_, (_, &m))| m != 0)
        .map(|(i, (info, &m))| ActiveNode {
            index: i as u32,
            info,
            file: info
                .file
                .and_then(|f| t.files.get(f as usize))
                .map(String::as_str),
            direct: m == 2,
        })
        .collect()
}
