//! The selection (BST) model's own state as the reference keeps it: each StateMachine's and
//! Sequence's `current` index (by node id; the block's `state` and `index` cells) and the
//! current leaf (a `select` node; in the block its leaf ordinal plus one, 0 none, numbered by
//! the node table's [`Probe::Leaf`] probes). It never panics on a block.

use btvm::program::Probe;
use btvm::{Program, SnapshotError};

use super::{invalid, read, write, Cells};
use crate::ir::NodeId;
use crate::reference::{AgentState, Interpreter};

/// The cell of node `i` that holds its `current` index.
fn index_cell<'p>(cells: &Cells<'p>, i: usize) -> Option<&'p btvm::program::Cell> {
    cells
        .get(Some(i), "index")
        .or_else(|| cells.get(Some(i), "state"))
}

/// The `select` node of each leaf ordinal, from the node table's probes.
fn leaves(program: &Program) -> impl Iterator<Item = (u32, u32)> + '_ {
    super::probed(program, |p| match p {
        Probe::Leaf(k) => Some(k),
        _ => None,
    })
}

/// Writes the indices and the current leaf of `state` into `block`.
pub(super) fn export(
    interp: &Interpreter<'_>,
    program: &Program,
    cells: &Cells<'_>,
    state: &AgentState,
    block: &mut [u8],
) {
    for i in 0..interp.tree.nodes.len() {
        let v = state.index.get(i).copied().unwrap_or(0);
        write(block, index_cell(cells, i), u64::from(v));
    }
    let leaf = state
        .leaf
        .and_then(|id| leaves(program).find(|&(node, _)| node == id.0))
        .map_or(0, |(_, k)| u64::from(k) + 1);
    write(block, cells.get(None, "leaf"), leaf);
}

/// Reads the indices and the current leaf of `block` into `state`; an index the node's
/// children cannot have is an error.
pub(super) fn import(
    interp: &Interpreter<'_>,
    program: &Program,
    cells: &Cells<'_>,
    block: &[u8],
    state: &mut AgentState,
) -> Result<(), SnapshotError> {
    for (i, node) in interp.tree.nodes.iter().enumerate() {
        let v = read(block, index_cell(cells, i));
        if v > 0 && v >= node.children.len() as u64 {
            return Err(invalid(format!(
                "node {i} has {} children; its index is {v}",
                node.children.len()
            )));
        }
        if let Some(slot) = state.index.get_mut(i) {
            *slot = v as u32;
        }
    }
    state.leaf = match read(block, cells.get(None, "leaf")) {
        0 => None,
        k => {
            let k = u32::try_from(k - 1).unwrap_or(u32::MAX);
            let node = leaves(program)
                .find(|&(_, ordinal)| ordinal == k)
                .map(|(node, _)| node)
                .ok_or_else(|| invalid(format!("no leaf has ordinal {k}")))?;
            Some(NodeId(node))
        }
    };
    Ok(())
}
