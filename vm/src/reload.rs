//! Hot reload: carrying agents' states from one version of a program to another
//! (`spec/bytecode.md` §5.2).
//!
//! A [`Reload`] pairs an old and a new program once: nodes by their identity keys
//! ([`NodeInfo::key`](crate::program::NodeInfo::key)), kind and parent, and each node's state
//! cells ([`Cell`]) by their keys. Then [`Reload::carry`] moves one agent: walking the old
//! nodes parents first, a node is *kept* when it has a partner, its parent was kept and every
//! cell of it can be carried (a child index names a child the new version still has, ...);
//! a kept node's cells are written into the new state, everything else there stays fresh
//! (zero). The agent's own cells (variables, timestamps, the PRNG, flags) are carried by key.
//! An identical program (same fingerprint and table) keeps the state byte for byte.
//!
//! Running nodes that are not kept stop running. Where the dialect makes a call when a running
//! node stops (the lifecycle model's exit calls), [`Carried::stop`] is the old state with only
//! those nodes live: running the old program's restart function on it makes exactly their
//! calls, innermost first ([`Batch::reload`](crate::Batch::reload) does).
//!
//! This module reads and writes state blocks only; it never calls the host, never ticks and
//! never panics whatever the tables or the bytes say.

use std::collections::HashMap;

use crate::model::{cursor, running_list};
use crate::program::{Cell, CellKind, NodeTable, ProgramModel};
use crate::Program;

/// Two versions of a program, paired for carrying agents from the old to the new one.
#[derive(Clone, Debug)]
pub struct Reload {
    old: Program,
    new: Program,
    /// The programs are the same: states are carried byte for byte.
    identical: bool,
    /// Old node → new node (same key, kind and parent), when the node's cells pair too.
    node: Vec<Option<u32>>,
    /// Old node → its parent.
    parent: Vec<Option<u32>>,
    /// Old node → its cells (indices into the old table's cells).
    cells_of: Vec<Vec<usize>>,
    /// The old agent's own cells.
    own: Vec<usize>,
    /// Old cell → the new cell it is carried into.
    pair: Vec<Option<usize>>,
    /// Each node's children in order, old and new.
    kids_old: Vec<Vec<u32>>,
    kids_new: Vec<Vec<u32>>,
    /// Named probes: old (tag, number) → node, new (tag, node) → number.
    named_old: HashMap<(u8, u32), u32>,
    named_new: HashMap<(u8, u32), u32>,
}

/// What [`Reload::carry`] did for one agent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Carried {
    /// The nodes the old state showed active that keep running, as the new program's node
    /// indices.
    pub kept: Vec<u32>,
    /// The nodes the old state showed active that were reset (gone from the new version, or
    /// their state could not be carried), as the old program's node indices.
    pub reset: Vec<u32>,
    /// In the lifecycle model, when some live node is not kept: the old state with only those
    /// nodes live. The old program's restart function run on it makes their exit calls.
    pub stop: Option<Vec<u8>>,
}

impl Reload {
    /// Pairs `old` and `new`. Programs without node tables (from version-8 files, or trees too
    /// large for one) pair nothing: their agents start fresh unless the programs are the same.
    pub fn new(old: &Program, new: &Program) -> Reload {
        let (ot, nt) = (&old.parts().nodes, &new.parts().nodes);
        let identical = old.fingerprint() == new.fingerprint() && ot == nt;
        let by_key: HashMap<&str, u32> = nt
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.key.as_str(), i as u32))
            .collect();
        let mut node: Vec<Option<u32>> = vec![None; ot.nodes.len()];
        for (i, n) in ot.nodes.iter().enumerate() {
            let Some(&j) = by_key.get(n.key.as_str()) else {
                continue;
            };
            let m = &nt.nodes[j as usize];
            let parent = n.parent.map(|p| node.get(p as usize).copied().flatten());
            let same_parent = match (parent, m.parent) {
                (None, None) => true,
                (Some(Some(p)), Some(q)) => p == q,
                _ => false,
            };
            if m.kind == n.kind && same_parent {
                node[i] = Some(j);
            }
        }
        let (cells_of, own) = owners(ot);
        let (new_cells_of, new_own) = owners(nt);
        let mut pair = vec![None; ot.cells.len()];
        for (i, cells) in cells_of.iter().enumerate() {
            let Some(j) = node[i] else { continue };
            let theirs = &new_cells_of[j as usize];
            let paired: Vec<Option<usize>> = cells
                .iter()
                .map(|&c| find(nt, theirs, &ot.cells[c]))
                .collect();
            if paired.iter().all(Option::is_some) && theirs.len() == cells.len() {
                for (&c, p) in cells.iter().zip(paired) {
                    pair[c] = p;
                }
            } else {
                node[i] = None;
            }
        }
        for &c in &own {
            pair[c] = find(nt, &new_own, &ot.cells[c]);
        }
        Reload {
            old: old.clone(),
            new: new.clone(),
            identical,
            parent: ot.nodes.iter().map(|n| n.parent).collect(),
            node,
            cells_of,
            own,
            pair,
            kids_old: kids(ot),
            kids_new: kids(nt),
            named_old: ot
                .probes
                .iter()
                .filter_map(|&(n, p)| Some(((p.tag(), p.number()?), n)))
                .collect(),
            named_new: nt
                .probes
                .iter()
                .filter_map(|&(n, p)| Some(((p.tag(), n), p.number()?)))
                .collect(),
        }
    }

    /// The program agents are carried from.
    pub fn old(&self) -> &Program {
        &self.old
    }

    /// The program agents are carried to.
    pub fn new_program(&self) -> &Program {
        &self.new
    }

    /// Whether the two programs are the same (states carried byte for byte).
    pub fn is_identical(&self) -> bool {
        self.identical
    }

    /// The new node each old node is paired with (by key, kind, parent and cells), if any.
    pub fn partner(&self, old_node: u32) -> Option<u32> {
        self.node.get(old_node as usize).copied().flatten()
    }

    /// Carries one agent: `old` is its state under the old program, `new` receives its state
    /// under the new one (overwritten whole). A block of the wrong size carries nothing: `new`
    /// is left fresh.
    pub fn carry(&self, old: &[u8], new: &mut [u8]) -> Carried {
        let kept = self.keep(old);
        let stop = self.stop(old, &kept);
        self.write(old, old, &kept, new);
        self.report(old, &kept, stop)
    }

    /// Carries every node cell-by-cell even when the programs are identical (tools and tests
    /// that check the cells alone carry an agent whole).
    pub fn cell_by_cell(mut self) -> Reload {
        self.identical = false;
        self
    }

    /// After the stop calls: [`Reload::carry`] again, with the agent's own cells read from
    /// `stopped` (the [`Carried::stop`] block once the old program's stop calls ran on it,
    /// [`Engine::stop_agent`](crate::Engine::stop_agent): they may have left group scopes)
    /// instead of `old`.
    pub fn finish(&self, old: &[u8], stopped: &[u8], new: &mut [u8]) {
        let own = if stopped.len() == old.len() {
            stopped
        } else {
            old
        };
        let kept = self.keep(old);
        self.write(old, own, &kept, new);
    }

    /// Which old nodes are kept for this agent (parents first).
    fn keep(&self, old: &[u8]) -> Vec<bool> {
        let n = self.node.len();
        let mut kept = vec![false; n];
        if old.len() != self.old.state_size() {
            return kept;
        }
        // A node under an overlay that does not hold has a sibling's data: it is fresh.
        let out = crate::model::active::overlaid_out(&self.old, old);
        for i in 0..n {
            if self.node[i].is_none() || out.get(i).copied().unwrap_or(false) {
                continue;
            }
            if let Some(p) = self.parent[i] {
                if !kept.get(p as usize).copied().unwrap_or(false) {
                    continue;
                }
            }
            kept[i] = self.cells_of[i]
                .iter()
                .all(|&c| self.value(c, old).is_some());
        }
        kept
    }

    /// The value old cell `c` has in `old`, as the new cell it pairs with holds it: `None` if it
    /// cannot be carried. Values wider than 64 bits are carried only by [`CellKind::Data`]
    /// (copied bit by bit), and report `Some(0)` here.
    fn value(&self, c: usize, old: &[u8]) -> Option<u64> {
        let ot = &self.old.parts().nodes;
        let nt = &self.new.parts().nodes;
        let cell = ot.cells.get(c)?;
        let to = nt.cells.get(self.pair.get(c).copied().flatten()?)?;
        let fits = |v: u64| (to.bits >= 64 || v >> to.bits == 0).then_some(v);
        match cell.kind {
            CellKind::Data | CellKind::ListCount => Some(0),
            CellKind::Child { bias } => {
                let v = bits(old, cell.bit, cell.bits.min(64));
                let Some(k) = v.checked_sub(u64::from(bias)) else {
                    return Some(v);
                };
                let (from, onto) = (cell.node? as usize, to.node?);
                let child = *self.kids_old.get(from)?.get(usize::try_from(k).ok()?)?;
                let partner = self.partner(child)?;
                let at = self.kids_new.get(onto as usize)?;
                let k2 = at.iter().position(|&x| x == partner)? as u64;
                fits(k2 + u64::from(bias))
            }
            CellKind::Children => {
                let (from, onto) = (cell.node? as usize, to.node? as usize);
                let mut out = 0u64;
                for k in 0..cell.bits.min(64) {
                    if bits(old, cell.bit + k, 1) == 0 {
                        continue;
                    }
                    let child = *self.kids_old.get(from)?.get(k as usize)?;
                    let partner = self.partner(child)?;
                    let k2 = self
                        .kids_new
                        .get(onto)?
                        .iter()
                        .position(|&x| x == partner)?;
                    if k2 >= 64 || k2 as u32 >= to.bits {
                        return None;
                    }
                    out |= 1 << k2;
                }
                Some(out)
            }
            CellKind::Named { probe, bias } => {
                let v = bits(old, cell.bit, cell.bits.min(64));
                let Some(k) = v.checked_sub(u64::from(bias)) else {
                    return Some(v);
                };
                let node = self.named_old.get(&(probe, u32::try_from(k).ok()?))?;
                let number = self.named_new.get(&(probe, self.partner(*node)?))?;
                fits(u64::from(*number) + u64::from(bias))
            }
        }
    }

    /// Writes the new state: fresh, then every kept node's cells from `old` and the agent's
    /// own cells from `own`.
    fn write(&self, old: &[u8], own: &[u8], kept: &[bool], new: &mut [u8]) {
        new.fill(0);
        if old.len() != self.old.state_size() || new.len() != self.new.state_size() {
            return;
        }
        if self.identical {
            new.copy_from_slice(old);
            return;
        }
        for (i, cells) in self.cells_of.iter().enumerate() {
            // A node whose cells are all zero is fresh: nothing to carry (a zero child index
            // of a node that is not running must stay zero, not follow child 0).
            if !kept[i] || cells.iter().all(|&c| self.zero(c, old)) {
                continue;
            }
            for &c in cells {
                self.put(c, old, new);
            }
        }
        let mut lost = false;
        for &c in &self.own {
            if self.pair[c].is_some() && self.value(c, own).is_some() {
                self.put(c, own, new);
            } else if matches!(self.old.parts().nodes.cells[c].kind, CellKind::Named { .. }) {
                lost = !self.zero(c, own);
            }
        }
        self.fix(new, lost);
    }

    /// Whether old cell `c` is all zero in `old`.
    fn zero(&self, c: usize, old: &[u8]) -> bool {
        let cell = &self.old.parts().nodes.cells[c];
        (0..cell.bits).all(|k| bits(old, cell.bit + k, 1) == 0)
    }

    /// Writes old cell `c`'s value (from `old`) into its partner in `new`.
    fn put(&self, c: usize, old: &[u8], new: &mut [u8]) {
        let cell = &self.old.parts().nodes.cells[c];
        let Some(to) = self.pair[c].and_then(|p| self.new.parts().nodes.cells.get(p)) else {
            return;
        };
        match cell.kind {
            CellKind::Data => {
                for k in 0..cell.bits.min(to.bits) {
                    set_bits(new, to.bit + k, 1, bits(old, cell.bit + k, 1));
                }
            }
            CellKind::ListCount => {}
            _ => {
                if let Some(v) = self.value(c, old) {
                    set_bits(new, to.bit, to.bits.min(64), v);
                }
            }
        }
    }

    /// What the new state's model needs after its cells are written: the running list's
    /// length recounted; a cursor whose rule is gone (`lost`) is a context with no current
    /// rule, as Drag\[en\]gine's is when a restored record names a rule the tree lacks.
    fn fix(&self, new: &mut [u8], lost: bool) {
        let l = self.new.layout();
        match self.new.model() {
            ProgramModel::RunningList => running_list::recount(new, l),
            ProgramModel::Cursor { .. } if lost => cursor::lose_rule(new, l),
            _ => {}
        }
    }

    /// The old state with only the live nodes that are not kept, when the model makes calls
    /// for them (see [`Carried::stop`]).
    fn stop(&self, old: &[u8], kept: &[bool]) -> Option<Vec<u8>> {
        if !matches!(self.old.model(), ProgramModel::Lifecycle) || self.identical {
            return None;
        }
        crate::model::lifecycle::restart_function(&self.old)?;
        let ot = &self.old.parts().nodes;
        let out = crate::model::active::overlaid_out(&self.old, old);
        let live_lost = ot.probes.iter().any(|&(n, p)| {
            !kept.get(n as usize).copied().unwrap_or(false)
                && !out.get(n as usize).copied().unwrap_or(true)
                && crate::model::active::probe_active(&self.old, old, p)
        });
        if !live_lost || old.len() != self.old.state_size() {
            return None;
        }
        let mut masked = old.to_vec();
        for (i, cells) in self.cells_of.iter().enumerate() {
            if kept[i] {
                for &c in cells {
                    let cell = &ot.cells[c];
                    set_zero(&mut masked, cell.bit, cell.bits);
                }
            }
        }
        // The restart function finds the live child of an overlaying node through its
        // current-child field: those stay as they were, kept or not.
        for o in &ot.overlays {
            let (at, n) = (o.field.offset as usize, usize::from(o.field.width));
            if let (Some(to), Some(from)) = (masked.get_mut(at..at + n), old.get(at..at + n)) {
                to.copy_from_slice(from);
            }
        }
        Some(masked)
    }

    /// The active nodes kept and reset.
    fn report(&self, old: &[u8], kept: &[bool], stop: Option<Vec<u8>>) -> Carried {
        let mut out = Carried {
            stop,
            ..Carried::default()
        };
        for a in self.old.active_path(old).iter().filter(|a| a.direct) {
            let i = a.index;
            match self
                .partner(i)
                .filter(|_| kept[i as usize] || self.identical)
            {
                Some(j) => out.kept.push(j),
                None => out.reset.push(i),
            }
        }
        out
    }
}

/// Each node's cells and the agent's own cells (indices into `t.cells`).
fn owners(t: &NodeTable) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut of = vec![Vec::new(); t.nodes.len()];
    let mut own = Vec::new();
    for (c, cell) in t.cells.iter().enumerate() {
        match cell.node.and_then(|n| of.get_mut(n as usize)) {
            Some(v) => v.push(c),
            None => own.push(c),
        }
    }
    (of, own)
}

/// The cell among `candidates` with `cell`'s key and kind (and width, for data).
fn find(t: &NodeTable, candidates: &[usize], cell: &Cell) -> Option<usize> {
    candidates.iter().copied().find(|&c| {
        let x = &t.cells[c];
        x.key == cell.key
            && x.kind == cell.kind
            && (x.bits == cell.bits || !matches!(cell.kind, CellKind::Data))
    })
}

/// Each node's children, in table order (a node's children are after it, in order).
fn kids(t: &NodeTable) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); t.nodes.len()];
    for (i, n) in t.nodes.iter().enumerate() {
        if let Some(v) = n.parent.and_then(|p| out.get_mut(p as usize)) {
            v.push(i as u32);
        }
    }
    out
}

/// `n` (≤ 64) bits of `state` from bit `at` (out of range: zero).
fn bits(state: &[u8], at: u32, n: u32) -> u64 {
    let mut v = 0u64;
    for k in 0..n.min(64) {
        let b = u64::from(at) + u64::from(k);
        let byte = state.get((b / 8) as usize).copied().unwrap_or(0);
        v |= u64::from(byte >> (b % 8) & 1) << k;
    }
    v
}

/// Writes the low `n` (≤ 64) bits of `v` at bit `at` (out of range: nothing).
fn set_bits(state: &mut [u8], at: u32, n: u32, v: u64) {
    for k in 0..n.min(64) {
        let b = u64::from(at) + u64::from(k);
        if let Some(byte) = state.get_mut((b / 8) as usize) {
            let m = 1u8 << (b % 8);
            if v >> k & 1 == 1 {
                *byte |= m;
            } else {
                *byte &= !m;
            }
        }
    }
}

/// Clears `n` bits at bit `at`.
fn set_zero(state: &mut [u8], at: u32, n: u32) {
    let mut k = 0;
    while k < n {
        let m = (n - k).min(64);
        set_bits(state, at + k, m, 0);
        k += m;
    }
}
