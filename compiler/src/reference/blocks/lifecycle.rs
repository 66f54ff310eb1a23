//! The lifecycle (MBT) model's node records as the reference keeps them: each node's runtime
//! data ([`NodeData`], `Some` while the node is live) against the block's records (a flags
//! byte with the *live* bit 0 and an extra bit 1, fields `a` and `b`, read through the
//! node's cells), and the agent's AI group and group-scope memberships against the
//! reference's [`Scopes`].
//!
//! The block keeps a *live* bit only where a step reads it (`lower/lifecycle/nodes.rs`,
//! `tick_node`): for a node with an init step or a start message (set when it is made live)
//! and for actions and WaitForEvent (set when they return running, which is exactly when the
//! reference keeps them live between ticks). Every other node (one without a flags byte, or a
//! loop, whose flags byte holds only its extra bit) is live on import when its fields or its
//! extra bit are not zero or a node below it is live (every live node's parent is live). A
//! node that is live with zero data and nothing live below it imports as not live; the two
//! are the same to every step of the model (such a node has no init step and no terminate
//! step of its own, and its fresh data is zero), so the traces cannot tell them apart. What the block keeps that
//! the reference derives: a live guard's or group scope's gate is open (a closed one fails and
//! stops being live in the same update), a live action is running, a loop's `was_running` is
//! its extra bit. It never panics on a block.

use btvm::{AgentId, SnapshotError};

use super::{get_bits, invalid, read, write, Cells};
use crate::ir::{NodeKind, Tree};
use crate::reference::lifecycle::NodeData;
use crate::reference::{AgentState, Interpreter, Scopes};

/// Bit 0 of a flags byte: live.
const LIVE: u64 = 1;
/// Bit 1 of a flags byte: the node's extra bit.
const EXTRA: u64 = 2;
/// The keys of the cells that hold a node's fields `a` and `b`.
const FIELDS: [&str; 7] = [
    "index",
    "finished",
    "succeeded",
    "case",
    "state",
    "count",
    "until",
];

/// A set of children as a bit mask (bit `k`: child `k`).
fn mask(bits: impl Iterator<Item = bool>) -> u64 {
    bits.enumerate()
        .filter(|(k, b)| *b && *k < 64)
        .fold(0, |m, (k, _)| m | 1 << k)
}

/// Per node, whether the block keeps its *live* bit (see the module docs): the node has an
/// init step (the lowering's `init_step`) or a start message, or it is an action or a
/// WaitForEvent.
fn keeps_live(tree: &Tree) -> Vec<bool> {
    let mut keeps: Vec<bool> = tree
        .nodes
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Guard(_)
            | NodeKind::GroupScope(_)
            | NodeKind::StateMachine
            | NodeKind::SendEvent(_)
            | NodeKind::Action(_)
            | NodeKind::WaitForEvent(_) => true,
            NodeKind::Hooks(h) => h.enter.is_some() || h.exit.is_some(),
            NodeKind::Wait(w) => w.time >= 0,
            _ => false,
        })
        .collect();
    for node in &tree.nodes {
        if let (NodeKind::LogStatus(l), Some(c)) = (&node.kind, node.children.first()) {
            if l.start.is_some() {
                if let Some(k) = keeps.get_mut(c.index()) {
                    *k = true;
                }
            }
        }
    }
    keeps
}

/// Writes node `i`'s runtime data into its cells.
fn export_node(
    keeps: bool,
    cells: &Cells<'_>,
    i: usize,
    data: Option<&NodeData>,
    block: &mut [u8],
) {
    let cell = |key| cells.get(Some(i), key);
    // A node that is not live has a zero record: in a fresh block there is nothing to write,
    // and writing its zeros could overwrite an overlaid sibling's data.
    if data.is_none() {
        return;
    }
    let extra = match data {
        Some(NodeData::WaitForEvent { arrived: x }) | Some(NodeData::GroupScope { entered: x }) => {
            *x
        }
        Some(NodeData::StateMachine { pending, .. }) => pending.is_some(),
        Some(NodeData::Loop { was_running, .. }) => *was_running,
        _ => false,
    };
    let live = data.is_some() && keeps;
    let flags = if live { LIVE } else { 0 } | if extra { EXTRA } else { 0 };
    write(block, cell("flags"), flags);
    match data {
        Some(NodeData::Index(k)) => write(block, cell("index"), *k as u64),
        Some(NodeData::Parallel {
            running, succeeded, ..
        }) => {
            write(block, cell("finished"), mask(running.iter().map(|r| !r)));
            write(block, cell("succeeded"), mask(succeeded.iter().copied()));
        }
        Some(NodeData::Loop { runs, .. }) => write(block, cell("count"), u64::from(*runs)),
        Some(NodeData::Priority { current }) => {
            write(block, cell("case"), current.map_or(0, |k| k as u64 + 1));
        }
        Some(NodeData::StateMachine { current, pending }) => {
            write(block, cell("state"), *current as u64);
            // `b` is the state the machine is in or goes to: events match from it.
            write(block, cell("pending"), pending.unwrap_or(*current) as u64);
        }
        Some(NodeData::Wait { end: Some(end) }) => write(block, cell("until"), *end as u64),
        _ => {}
    }
}

/// The scope ids of the tree's GroupScope nodes, each once.
fn scope_ids(tree: &Tree) -> Vec<u32> {
    let mut ids = Vec::new();
    for node in &tree.nodes {
        if let NodeKind::GroupScope(g) = &node.kind {
            let id = btvm::scope_id(&g.scope);
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// Writes every node's record and the agent's group-scope block into `block`.
pub(super) fn export(
    interp: &Interpreter<'_>,
    cells: &Cells<'_>,
    state: &AgentState,
    scopes: &Scopes,
    block: &mut [u8],
) {
    for (i, keeps) in keeps_live(interp.tree).into_iter().enumerate() {
        let data = state.live.get(i).and_then(Option::as_ref);
        export_node(keeps, cells, i, data, block);
    }
    let agent = state.agent;
    write(
        block,
        cells.get(None, "group"),
        u64::from(scopes.group(agent)),
    );
    for id in scope_ids(interp.tree) {
        let member = scopes.is_member(agent, id);
        write(
            block,
            cells.agent("scope:", &format!("{id:08x}")),
            u64::from(member),
        );
    }
}

/// Node `i`'s data from its cells (the node is live); an index the node cannot have is an
/// error.
fn import_node(
    tree: &Tree,
    cells: &Cells<'_>,
    i: usize,
    block: &[u8],
) -> Result<NodeData, SnapshotError> {
    let node = &tree.nodes[i];
    let kids = node.children.len();
    let field = |key| read(block, cells.get(Some(i), key));
    let flags = field("flags");
    let extra = flags & EXTRA != 0;
    let child = |key, v: u64| -> Result<usize, SnapshotError> {
        usize::try_from(v)
            .ok()
            .filter(|&k| k < kids.max(1))
            .ok_or_else(|| invalid(format!("node {i} has {kids} children; its {key} is {v}")))
    };
    let bits = |m: u64| {
        (0..kids)
            .map(|k| k < 64 && m >> k & 1 != 0)
            .collect::<Vec<bool>>()
    };
    Ok(match &node.kind {
        NodeKind::Sequence(_) | NodeKind::Selector(_) => {
            NodeData::Index(child("index", field("index"))?)
        }
        NodeKind::Parallel(_) => {
            let finished = bits(field("finished"));
            let succeeded: Vec<bool> = bits(field("succeeded"))
                .iter()
                .zip(&finished)
                .map(|(s, f)| *s && *f)
                .collect();
            let successes = succeeded.iter().filter(|s| **s).count();
            let failures = finished.iter().filter(|f| **f).count() - successes;
            NodeData::Parallel {
                running: finished.iter().map(|f| !f).collect(),
                successes,
                failures,
                succeeded,
            }
        }
        NodeKind::Loop(_) => NodeData::Loop {
            runs: u32::try_from(field("count")).unwrap_or(u32::MAX),
            was_running: extra,
        },
        NodeKind::Priority(_) => NodeData::Priority {
            current: match field("case") {
                0 => None,
                v => Some(child("case", v - 1)?),
            },
        },
        NodeKind::StateMachine => {
            let current = child("state", field("state"))?;
            let to = child("pending", field("pending"))?;
            if !extra && to != current {
                return Err(invalid(format!(
                    "state machine {i} is in state {current} with no transition pending, but \
                     its events would match from state {to}"
                )));
            }
            NodeData::StateMachine {
                current,
                pending: extra.then_some(to),
            }
        }
        NodeKind::Guard(_) => NodeData::Gate { open: true },
        NodeKind::Wait(w) => NodeData::Wait {
            end: (w.time >= 0).then(|| field("until") as i64),
        },
        NodeKind::WaitForEvent(_) => NodeData::WaitForEvent { arrived: extra },
        NodeKind::GroupScope(_) => NodeData::GroupScope { entered: extra },
        NodeKind::Action(_) => NodeData::Action { running: true },
        _ => NodeData::Plain,
    })
}

/// Per node, whether it lies under an overlaid child its parent's field does not name: its
/// records hold a sibling's data, and it is not live.
fn overlaid_out(tree: &Tree, cells: &Cells<'_>, block: &[u8]) -> Vec<bool> {
    let n = tree.nodes.len();
    let mut out = vec![false; n];
    for o in cells.overlays {
        let v = get_bits(
            block,
            o.field.offset.saturating_mul(8),
            8 * u32::from(o.field.width),
        );
        if let Some(x) = out.get_mut(o.node as usize) {
            *x = v != u64::from(o.value);
        }
    }
    // Pre-order: a parent comes before its children.
    for i in 0..n {
        if out[i] {
            for c in &tree.nodes[i].children {
                if let Some(x) = out.get_mut(c.index()).filter(|_| c.index() > i) {
                    *x = true;
                }
            }
        }
    }
    out
}

/// Whether a node is transparent (never live itself: `case`, `state`, `logstatus`).
fn transparent(kind: &NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::LogStatus(_) | NodeKind::Case(_) | NodeKind::State(_)
    )
}

/// Reads every node's record of `block` into `state` (see the module docs for liveness).
pub(super) fn import(
    interp: &Interpreter<'_>,
    cells: &Cells<'_>,
    block: &[u8],
    state: &mut AgentState,
) -> Result<(), SnapshotError> {
    let tree = interp.tree;
    let n = tree.nodes.len();
    let mut live = vec![false; n];
    let keeps = keeps_live(tree);
    let out = overlaid_out(tree, cells, block);
    // Pre-order: every node comes after its parent, so a reverse walk sees children first.
    for i in (0..n).rev() {
        if out[i] {
            continue;
        }
        let flags = read(block, cells.get(Some(i), "flags"));
        let own = if keeps[i] {
            flags & LIVE != 0
        } else {
            flags & EXTRA != 0
                || FIELDS
                    .iter()
                    .any(|k| read(block, cells.get(Some(i), k)) != 0)
        };
        let below = tree.nodes[i]
            .children
            .iter()
            .any(|c| live.get(c.index()) == Some(&true));
        live[i] = own || below;
    }
    for (i, (&live, node)) in live.iter().zip(&tree.nodes).enumerate() {
        if live && !transparent(&node.kind) {
            let data = import_node(tree, cells, i, block)?;
            if let Some(slot) = state.live.get_mut(i) {
                *slot = Some(data);
            }
        }
    }
    Ok(())
}

/// Puts `agent` in the block's AI group and makes it a member of the scopes the block says it
/// is a member of.
pub(super) fn join_scopes(
    interp: &Interpreter<'_>,
    cells: &Cells<'_>,
    block: &[u8],
    agent: AgentId,
    scopes: &mut Scopes,
) {
    let Some(group) = cells.get(None, "group") else {
        return;
    };
    scopes.set_group(
        agent,
        u32::try_from(read(block, Some(group))).unwrap_or(u32::MAX),
    );
    for id in scope_ids(interp.tree) {
        if read(block, cells.agent("scope:", &format!("{id:08x}"))) != 0 {
            scopes.join(agent, id);
        }
    }
}
