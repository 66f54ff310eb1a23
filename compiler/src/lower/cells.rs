//! The state cells of each model (`btvm::program::Cell`, `spec/bytecode.md` §5.2): which
//! bits of an agent's state belong to which node, under which key, and how hot reload
//! carries them into another version of the tree. Each function here mirrors one model's
//! layout (`layout`, `records`, the cursor and decider lowerings) and must cover every byte
//! of it: `compiler/tests/reload.rs` checks that on every example and case.
//!
//! Whatever changes what a cell's bits mean is part of its key (a variable's default, the
//! names a flag word is indexed by), so a changed declaration starts fresh instead of being
//! misread. This module reads layouts and the tree only; it never emits code.

use btvm::program::{Cell, CellKind, Layout, Probe, GROUP_RECORD, STAMP_RECORD, STIMULUS_RECORD};

use super::layout::Slots;
use super::records::Records;
use crate::ir::{NodeId, NodeKind, Tree};

/// Collects cells.
#[derive(Default)]
struct Cells(Vec<Cell>);

impl Cells {
    /// A cell of `node` (or the agent's own) at byte `at`, `bits` long.
    fn at(
        &mut self,
        node: Option<usize>,
        key: impl Into<String>,
        at: u32,
        bits: u32,
        kind: CellKind,
    ) {
        if bits == 0 {
            return;
        }
        self.0.push(Cell {
            node: node.map(|n| n as u32),
            key: key.into(),
            bit: at.saturating_mul(8),
            bits,
            kind,
        });
    }

    /// A one-bit cell at bit `bit`.
    fn bit(&mut self, node: Option<usize>, key: impl Into<String>, bit: u32) {
        self.0.push(Cell {
            node: node.map(|n| n as u32),
            key: key.into(),
            bit,
            bits: 1,
            kind: CellKind::Data,
        });
    }

    /// The PRNG, if the layout has one.
    fn rng(&mut self, l: &Layout) {
        if let Some(at) = l.rng {
            self.at(None, "rng", at, 64, CellKind::Data);
        }
    }
}

/// The running-list model: the current-action slot (an action ordinal), the list's length
/// (recounted), each identity's list bit, each cooldown's timer, the PRNG.
pub(super) fn running_list(tree: &Tree, slots: &Slots) -> Vec<Cell> {
    let l = &slots.layout;
    let mut c = Cells::default();
    let named = |probe: Probe, bias| CellKind::Named {
        probe: probe.tag(),
        bias,
    };
    c.at(
        None,
        "current",
        l.current.offset,
        8 * u32::from(l.current.width),
        named(Probe::Current(0), 1),
    );
    c.at(
        None,
        "count",
        l.count.offset,
        8 * u32::from(l.count.width),
        CellKind::ListCount,
    );
    let mut owned = vec![false; l.bits as usize];
    for (i, node) in tree.nodes.iter().enumerate() {
        if let Some(bit) = slots.bit(tree, NodeId(i as u32)) {
            // A shared include's identity has one bit: its first include node carries it.
            if let Some(o) = owned.get_mut(bit as usize).filter(|o| !**o) {
                *o = true;
                c.bit(Some(i), "listed", l.list * 8 + bit);
            }
        }
        if matches!(node.kind, NodeKind::Cooldown(_)) {
            c.at(
                Some(i),
                "timer",
                l.timers + 8 * slots.timer[i],
                64,
                CellKind::Data,
            );
        }
    }
    c.rng(l);
    c.0
}

/// The cursor model: the flags byte, the cursor (a rule), the PRNG.
pub(super) fn cursor(l: &Layout) -> Vec<Cell> {
    let mut c = Cells::default();
    c.at(None, "flags", l.flags.offset, 8, CellKind::Data);
    c.at(
        None,
        "cursor",
        l.cursor.offset,
        8 * u32::from(l.cursor.width),
        CellKind::Named {
            probe: Probe::Rule(0).tag(),
            bias: 0,
        },
    );
    c.rng(l);
    c.0
}

/// The decider model: the flags byte; the header's DecisionFlags and stimuli words bit by
/// named bit, the root's `since`; each group's active child and `since`; each stimulus
/// record by name; each `every` timer; the PRNG. `group` and `timer` number the nodes' slots.
pub(super) fn decider(tree: &Tree, l: &Layout, group: &[u32], timer: &[u32]) -> Vec<Cell> {
    let mut c = Cells::default();
    c.at(None, "flags", l.flags.offset, 8, CellKind::Data);
    // The words are indexed by the declared names: a changed list starts them fresh.
    let (flags, stimuli) = (tree.flags.join(","), tree.stimuli.join(","));
    c.at(
        None,
        format!("decisions:{flags}"),
        l.decider,
        32,
        CellKind::Data,
    );
    c.at(
        None,
        format!("present:{stimuli}"),
        l.decider + 4,
        32,
        CellKind::Data,
    );
    c.at(
        None,
        format!("forever:{stimuli}"),
        l.decider + 8,
        32,
        CellKind::Data,
    );
    for (k, name) in tree.stimuli.iter().enumerate().take(32) {
        let at = l.stimuli + STIMULUS_RECORD * k as u32;
        c.at(None, format!("stimulus:{name}"), at, 128, CellKind::Data);
    }
    c.at(None, "since", l.decider + 12, 64, CellKind::Data);
    for (i, node) in tree.nodes.iter().enumerate() {
        match &node.kind {
            NodeKind::Group(_) => {
                let at = l.groups + GROUP_RECORD * group[i];
                c.at(Some(i), "active", at, 8, CellKind::Child { bias: 1 });
                c.at(Some(i), "since", at + 1, 64, CellKind::Data);
            }
            NodeKind::Decider(d) if d.pre.every_ms.is_some() => {
                c.at(
                    Some(i),
                    "every",
                    l.timers + 8 * timer[i],
                    64,
                    CellKind::Data,
                );
            }
            _ => {}
        }
    }
    c.rng(l);
    c.0
}

/// The lifecycle and selection models: the flags byte, the variables (by name and default),
/// the timestamps (by name), the current leaf (a `select` node), every node's record (flags
/// byte, fields `a` and `b` by what they hold), the group-scope block, the PRNG.
pub(super) fn stateful(tree: &Tree, recs: &Records, selection: bool) -> Vec<Cell> {
    let l = &recs.layout;
    let mut c = Cells::default();
    c.at(None, "flags", l.flags.offset, 8, CellKind::Data);
    for (k, v) in tree.vars.iter().enumerate().take(l.var_count as usize) {
        c.bit(
            None,
            format!("var:{}={:?}", v.name, v.default),
            l.vars * 8 + k as u32,
        );
    }
    for (k, s) in tree
        .timestamps
        .iter()
        .enumerate()
        .take(l.stamp_count as usize)
    {
        let at = l.stamps + STAMP_RECORD * k as u32;
        c.at(None, format!("stamp:{}", s.name), at, 72, CellKind::Data);
    }
    c.at(
        None,
        "leaf",
        l.leaf.offset,
        8 * u32::from(l.leaf.width),
        CellKind::Named {
            probe: Probe::Leaf(0).tag(),
            bias: 1,
        },
    );
    let base = l.records;
    for i in recs.root.index()..=recs.last.index().min(tree.nodes.len().saturating_sub(1)) {
        let node = &tree.nodes[i];
        let r = recs.of(NodeId(i as u32));
        if let Some(f) = r.flags {
            c.at(Some(i), "flags", base + f, 8, CellKind::Data);
        }
        let kids = node.children.len() as u32;
        let (a, b) = (8 * u32::from(r.a_width), 8 * u32::from(r.b_width));
        match &node.kind {
            NodeKind::Sequence(_) | NodeKind::Selector(_) => {
                c.at(Some(i), "index", base + r.a, a, CellKind::Child { bias: 0 });
            }
            NodeKind::Parallel(_) => {
                c.at(Some(i), "finished", base + r.a, kids, CellKind::Children);
                c.at(Some(i), "succeeded", base + r.b, kids, CellKind::Children);
            }
            NodeKind::Priority(_) if !selection => {
                c.at(Some(i), "case", base + r.a, a, CellKind::Child { bias: 1 });
                c.at(Some(i), "next", base + r.b, b, CellKind::Child { bias: 1 });
            }
            NodeKind::StateMachine => {
                c.at(Some(i), "state", base + r.a, a, CellKind::Child { bias: 0 });
                c.at(
                    Some(i),
                    "pending",
                    base + r.b,
                    b,
                    CellKind::Child { bias: 0 },
                );
            }
            NodeKind::Loop(_) => c.at(Some(i), "count", base + r.a, a, CellKind::Data),
            NodeKind::Wait(w) if w.time >= 0 => {
                c.at(Some(i), "until", base + r.a, 64, CellKind::Data);
            }
            _ => {}
        }
    }
    if !recs.scopes.is_empty() {
        c.at(None, "group", base + recs.group, 32, CellKind::Data);
        for (id, _, bit) in &recs.scopes {
            c.bit(None, format!("scope:{id:08x}"), base * 8 + bit.0);
        }
    }
    c.rng(l);
    c.0
}
