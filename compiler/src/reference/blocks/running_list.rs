//! The running-list (Unvanquished) model's state as a block: the running list (the reference
//! keeps identities in the order they were listed, the block one bit per identity and a
//! count), the current-action slot (a node, an action ordinal plus one in the block) and the
//! cooldown timers (per node, per timer slot in the block).
//!
//! The list's order never matters (the model only asks whether an identity is listed and how
//! many are), so an imported list is in bit order. It never panics on a block.

use btvm::program::Probe;
use btvm::{Program, SnapshotError};

use super::{invalid, read, write, Cells};
use crate::ir::analysis::identity;
use crate::ir::NodeId;
use crate::reference::{AgentState, Interpreter};

/// The action node each current-slot ordinal names, from the node table's probes.
fn action_nodes(program: &Program) -> impl Iterator<Item = (u32, u32)> + '_ {
    super::probed(program, |p| match p {
        Probe::Current(k) => Some(k),
        _ => None,
    })
}

/// Writes `state`'s running list, current action and timers into `block`.
pub(super) fn export(
    interp: &Interpreter<'_>,
    program: &Program,
    cells: &Cells<'_>,
    state: &AgentState,
    block: &mut [u8],
) {
    let tree = interp.tree;
    for (i, _) in tree.nodes.iter().enumerate() {
        if let Some(c) = cells.get(Some(i), "listed") {
            let listed = state.running.contains(&identity(tree, NodeId(i as u32)));
            write(block, Some(c), u64::from(listed));
        }
        if let Some(c) = cells.get(Some(i), "timer") {
            let t = state.cooldowns.get(i).copied().unwrap_or(0);
            write(block, Some(c), t as u64);
        }
    }
    write(block, cells.get(None, "count"), state.running.len() as u64);
    let current = state.current.and_then(|id| {
        action_nodes(program)
            .find(|&(node, _)| node == id.0)
            .map(|(_, k)| u64::from(k) + 1)
    });
    write(block, cells.get(None, "current"), current.unwrap_or(0));
}

/// Reads the running list, current action and timers of `block` into `state`.
pub(super) fn import(
    interp: &Interpreter<'_>,
    program: &Program,
    cells: &Cells<'_>,
    block: &[u8],
    state: &mut AgentState,
) -> Result<(), SnapshotError> {
    let tree = interp.tree;
    let mut listed: Vec<(u32, NodeId)> = Vec::new();
    for i in 0..tree.nodes.len() {
        let id = NodeId(i as u32);
        if let Some(c) = cells.get(Some(i), "listed") {
            if read(block, Some(c)) != 0 {
                listed.push((c.bit, identity(tree, id)));
            }
        }
        if let (Some(c), Some(t)) = (cells.get(Some(i), "timer"), state.cooldowns.get_mut(i)) {
            *t = read(block, Some(c)) as i64;
        }
    }
    listed.sort_unstable();
    let count = read(block, cells.get(None, "count"));
    if count != listed.len() as u64 {
        return Err(invalid(format!(
            "the running list's count is {count}, but {} identities are listed",
            listed.len()
        )));
    }
    state.running = listed.into_iter().map(|(_, id)| id).collect();
    let current = cells.get(None, "current");
    state.current = match read(block, current) {
        0 => None,
        k => {
            let k = u32::try_from(k - 1).unwrap_or(u32::MAX);
            let node = action_nodes(program)
                .find(|&(_, ordinal)| ordinal == k)
                .map(|(node, _)| node)
                .ok_or_else(|| invalid(format!("no action has ordinal {k}")))?;
            Some(NodeId(node))
        }
    };
    Ok(())
}
