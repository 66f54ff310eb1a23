//! The node table: what a program remembers of the tree it was compiled from, for tools
//! (`Program::active_path`, `btvm run --dump-state`, hot reload matching nodes between two
//! versions of a tree).
//!
//! One [`NodeInfo`] per IR node, in the IR's arena order (pre-order: a node's parent comes
//! before it), with its kind, name, source position, parent and stable identity key; the
//! [`Probe`]s say where in an agent's state a node shows it is active, in the program's model's
//! terms. The table is never read while ticking, and it is not part of the program's
//! fingerprint: two programs that differ only in their tables are the same program for
//! snapshots. This module only describes and checks the table; it never reads state (the
//! model modules give probes their meaning).

use super::error::{ProgramError, ProgramErrorKind as K};
use super::ProgramParts;
use crate::Limits;

/// The longest string (kind, name, key, file name) a node table may hold, in bytes.
pub const MAX_NODE_TEXT: usize = 4096;

/// One node of the tree a program was compiled from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeInfo {
    /// The node kind as the canonical syntax names it (`sequence`, `action`, `decider`, ...).
    pub kind: String,
    /// The node's name where it has one: the action or function called, the subtree included,
    /// the Drag\[en\]gine rule id, the MBT/BST state or node name, the Spore decider name.
    pub name: Option<String>,
    /// The stable identity key for matching this node in another version of the tree: the
    /// dialect's own id where one exists, otherwise a path of kinds and names from the root.
    /// Distinct within a table.
    pub key: String,
    /// The parent node's index, `None` for an entry's or subtree's root (always before this
    /// node: the table is in pre-order).
    pub parent: Option<u32>,
    /// The source file, an index into [`NodeTable::files`] (`None`: unknown).
    pub file: Option<u32>,
    /// 1-based line in that file (0: unknown).
    pub line: u32,
    /// 1-based column in that file (0: unknown).
    pub column: u32,
}

/// Where an agent's state says a node is active. Each model module gives its probes their
/// meaning; a probe of another model is never active.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Probe {
    /// Running-list model: the node's running-list bit is set (it returned running last tick).
    Listed(u32),
    /// Running-list model: the current-action slot holds this action ordinal.
    Current(u32),
    /// Cursor model: the cursor rests on this rule.
    Rule(u32),
    /// Decider model: the root decider is active.
    Root,
    /// Decider model: group record `group`'s active child is `child`.
    Child {
        /// The group record.
        group: u32,
        /// The child's index among the group's children.
        child: u32,
    },
    /// Lifecycle and selection models: this record bit (a node's *live* flag) is set.
    Live(u32),
    /// Selection model: the current leaf is this leaf ordinal.
    Leaf(u32),
}

/// How hot reload carries a [`Cell`]'s value into the other version of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// The bits as they are.
    Data,
    /// The index of one of the cell's node's children plus `bias` (values below `bias` are
    /// copied as they are): carried as the index of the same child in the other version.
    Child {
        /// What is added to the child's index (0 or 1: 0 = none).
        bias: u8,
    },
    /// A set of the node's children, bit `k` for child `k`: each set bit is carried to the same
    /// child's bit in the other version.
    Children,
    /// A number that names a node through the table's probes of one kind, plus `bias` (values
    /// below `bias` copied as they are): [`Probe::Current`] (`probe` 1), [`Probe::Rule`] (2) or
    /// [`Probe::Leaf`] (6), the tags of [`Probe::tag`]. Carried as the number the other
    /// version's probe of the same node has.
    Named {
        /// The probe kind's tag.
        probe: u8,
        /// What is added to the probe's number.
        bias: u8,
    },
    /// The running list's length: recounted from the carried list bits.
    ListCount,
}

/// A piece of an agent's state that hot reload carries between two versions of a program
/// (`spec/bytecode.md` §5.2): a node's (matched through the node's key) or the agent's
/// (matched by its own key). Together a program's cells cover every bit of its agents' state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The node whose state this is (an index into [`NodeTable::nodes`]), or `None` for the
    /// agent's own (variables, timestamps, the PRNG, the model's flags).
    pub node: Option<u32>,
    /// Names the cell: among its node's cells, or among the agent's. Whatever changes the
    /// meaning of the bits is part of the key (a variable's default, the declared names a
    /// bit set is indexed by), so a cell whose meaning changed finds no match and starts fresh.
    pub key: String,
    /// The first bit, counted from bit 0 of byte 0 (bit `k % 8` of byte `k / 8`).
    pub bit: u32,
    /// How many bits.
    pub bits: u32,
    /// How its value is carried.
    pub kind: CellKind,
}

impl Probe {
    /// The probe's kind as a number (the program file's tag; [`CellKind::Named`] uses it).
    pub fn tag(self) -> u8 {
        match self {
            Probe::Listed(_) => 0,
            Probe::Current(_) => 1,
            Probe::Rule(_) => 2,
            Probe::Root => 3,
            Probe::Child { .. } => 4,
            Probe::Live(_) => 5,
            Probe::Leaf(_) => 6,
        }
    }

    /// The number a probe of kind [`CellKind::Named`] stands for (the action ordinal, rule or
    /// leaf), if it has one.
    pub fn number(self) -> Option<u32> {
        match self {
            Probe::Current(x) | Probe::Rule(x) | Probe::Leaf(x) => Some(x),
            _ => None,
        }
    }
}

/// A program's node table (see the module docs). An empty table means "absent".
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodeTable {
    /// The source files nodes name, by index.
    pub files: Vec<String>,
    /// The nodes, in the IR's arena order.
    pub nodes: Vec<NodeInfo>,
    /// Which node each probe speaks for: `(node index, probe)`.
    pub probes: Vec<(u32, Probe)>,
    /// The node each instruction was emitted for (one per instruction of the program's code,
    /// `u32::MAX` for code of no node), or empty when the map is absent.
    pub code: Vec<u32>,
    /// The cells of the agents' state, for hot reload (empty: the program cannot be reloaded
    /// into or out of except by an identical program).
    pub cells: Vec<Cell>,
    /// The nodes whose subtree's state shares bytes with their siblings' (the lifecycle model
    /// overlays the children of a state machine or a priority, `spec/bytecode.md` §3): each
    /// such subtree's probes and cells mean something only while its [`Overlay`] holds.
    pub overlays: Vec<Overlay>,
    /// Names the tree gave that the code does not need but a scenario or a trace does
    /// (version 11 on; empty in older files).
    pub names: TreeNames,
}

/// One overlaid child (see [`NodeTable::overlays`]): node `node`'s subtree's probes and cells
/// speak for it only while the state's `field` (its parent's current child) holds `value`;
/// otherwise they may hold a sibling's data and the subtree is fresh (not live).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Overlay {
    /// The overlaid node (an index into [`NodeTable::nodes`]).
    pub node: u32,
    /// Where its parent keeps the current child, in the state block.
    pub field: super::Field,
    /// The value that names this node.
    pub value: u32,
}

/// Names of the tree a program was compiled from that its code never reads: what a scripted
/// run needs to run a program file as it runs the tree (`spec/bytecode.md` §5.3). Verified
/// like the rest of the table: counts against the program's, distinct names, bounded text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TreeNames {
    /// Decider model: the decision flags' names, flag `k` at bit `k` (at most 32).
    pub flags: Vec<String>,
    /// Decider model: the stimuli's names, stimulus `k` at index `k` (none, or as many as the
    /// program declares).
    pub stimuli: Vec<String>,
    /// The argument names calls are written with (MBT's GameSDK `name=value`), per import and
    /// argument count.
    pub args: Vec<ArgNames>,
}

/// The argument names of an import's calls with `names.len()` arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArgNames {
    /// The import (an index into the import table).
    pub import: u32,
    /// One per argument: its name, `None` for a positional one.
    pub names: Vec<Option<String>>,
}

impl NodeTable {
    /// Whether the table is absent (no nodes).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

fn bad(what: impl Into<String>) -> ProgramError {
    ProgramError::new(K::BadOperand, format!("node table: {}", what.into()))
}

fn text(s: &str, what: &str) -> Result<(), ProgramError> {
    if s.len() > MAX_NODE_TEXT {
        return Err(ProgramError::new(
            K::TooLarge,
            format!(
                "node table: a {what} of {} bytes; the limit is {MAX_NODE_TEXT}",
                s.len()
            ),
        ));
    }
    Ok(())
}

/// Checks `p`'s node table: at most `limits.max_nodes` nodes, bounded strings, parents before
/// their children, files, probes and the code map in range. Never panics.
pub(super) fn verify(p: &ProgramParts, limits: &Limits) -> Result<(), ProgramError> {
    let t = &p.nodes;
    if t.nodes.len() > limits.max_nodes || t.files.len() > limits.max_nodes {
        return Err(ProgramError::new(
            K::TooLarge,
            format!(
                "node table: {} nodes, {} files; the limit is {}",
                t.nodes.len(),
                t.files.len(),
                limits.max_nodes
            ),
        ));
    }
    if t.probes.len() > t.nodes.len().saturating_mul(2) {
        return Err(bad(format!(
            "{} probes for {} nodes",
            t.probes.len(),
            t.nodes.len()
        )));
    }
    for f in &t.files {
        text(f, "file name")?;
    }
    for (i, n) in t.nodes.iter().enumerate() {
        text(&n.kind, "kind")?;
        text(&n.key, "key")?;
        text(n.name.as_deref().unwrap_or(""), "name")?;
        if n.parent.is_some_and(|q| q as usize >= i) {
            return Err(bad(format!("node {i}'s parent does not come before it")));
        }
        if n.file.is_some_and(|f| f as usize >= t.files.len()) {
            return Err(bad(format!("node {i} names a file out of range")));
        }
    }
    let mut keys: Vec<&str> = t.nodes.iter().map(|n| n.key.as_str()).collect();
    keys.sort_unstable();
    if keys.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad("two nodes have the same key"));
    }
    for &(node, probe) in &t.probes {
        if node as usize >= t.nodes.len() {
            return Err(bad(format!(
                "a probe names node {node} of {}",
                t.nodes.len()
            )));
        }
        probe_in_range(p, probe)?;
    }
    if !t.code.is_empty() && t.code.len() != p.code.len() {
        return Err(bad(format!(
            "a code map of {} entries for {} instructions",
            t.code.len(),
            p.code.len()
        )));
    }
    if let Some(pc) = t
        .code
        .iter()
        .position(|&n| n != u32::MAX && n as usize >= t.nodes.len())
    {
        return Err(bad(format!("instruction {pc} maps to a node out of range")));
    }
    cells(p)?;
    overlays(p)?;
    names(p)
}

/// Checks the overlays: nodes in range, each once, fields of width 1, 2 or 4 inside the state,
/// values the field can hold.
fn overlays(p: &ProgramParts) -> Result<(), ProgramError> {
    let t = &p.nodes;
    if t.overlays.len() > t.nodes.len() {
        return Err(bad(format!(
            "{} overlays for {} nodes",
            t.overlays.len(),
            t.nodes.len()
        )));
    }
    let mut seen = vec![false; t.nodes.len()];
    for o in &t.overlays {
        let Some(s) = seen.get_mut(o.node as usize) else {
            return Err(bad(format!(
                "an overlay names node {} of {}",
                o.node,
                t.nodes.len()
            )));
        };
        if std::mem::replace(s, true) {
            return Err(bad(format!("node {} has two overlays", o.node)));
        }
        let f = o.field;
        let inside = u64::from(f.offset) + u64::from(f.width) <= u64::from(p.layout.size);
        if !matches!(f.width, 1 | 2 | 4) || !inside || u64::from(o.value) > f.max() {
            return Err(bad(format!(
                "node {}'s overlay field is out of range",
                o.node
            )));
        }
    }
    Ok(())
}

/// Checks the tree's names: flags and stimuli only in the decider model, at most 32 flags,
/// every stimulus named or none, distinct names, bounded text; argument names of imports that
/// exist, no more than the import takes, one list per import and count.
fn names(p: &ProgramParts) -> Result<(), ProgramError> {
    let t = &p.nodes.names;
    let decider = matches!(p.model, super::ProgramModel::Decider { .. });
    let named = !(t.flags.is_empty() && t.stimuli.is_empty());
    if named && !decider {
        return Err(bad("flag or stimulus names outside the decider model"));
    }
    if t.flags.len() > 32 {
        return Err(bad(format!("{} decision flags; at most 32", t.flags.len())));
    }
    if !t.stimuli.is_empty() && t.stimuli.len() as u64 != u64::from(p.stimuli) {
        return Err(bad(format!(
            "{} stimulus names for {} stimuli",
            t.stimuli.len(),
            p.stimuli
        )));
    }
    for (list, what) in [(&t.flags, "flag"), (&t.stimuli, "stimulus")] {
        let mut sorted: Vec<&str> = list.iter().map(String::as_str).collect();
        for s in &sorted {
            text(s, what)?;
        }
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(bad(format!("two {what} names are the same")));
        }
    }
    let mut seen: Vec<(u32, usize)> = Vec::with_capacity(t.args.len());
    for a in &t.args {
        let Some(import) = p.imports.get(a.import as usize) else {
            return Err(bad(format!(
                "argument names of import {} out of range",
                a.import
            )));
        };
        if a.names.len() > usize::from(import.max_args) {
            return Err(bad(format!(
                "{} argument names for `{}`, which takes at most {}",
                a.names.len(),
                import.name,
                import.max_args
            )));
        }
        for n in a.names.iter().flatten() {
            text(n, "argument name")?;
        }
        seen.push((a.import, a.names.len()));
    }
    seen.sort_unstable();
    if seen.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad("two argument-name lists for one import and count"));
    }
    Ok(())
}

/// Checks the cells: nodes in range, bits inside the state, bounded keys, no more cells than
/// state bits (cells never share a bit).
fn cells(p: &ProgramParts) -> Result<(), ProgramError> {
    let t = &p.nodes;
    let size = u64::from(p.layout.size) * 8;
    if t.cells.len() as u64 > size {
        return Err(bad(format!(
            "{} cells for {size} bits of state",
            t.cells.len()
        )));
    }
    for c in &t.cells {
        text(&c.key, "cell key")?;
        if c.node.is_some_and(|n| n as usize >= t.nodes.len()) {
            return Err(bad(format!("cell {:?} names a node out of range", c.key)));
        }
        if c.bits == 0 || u64::from(c.bit) + u64::from(c.bits) > size {
            return Err(bad(format!("cell {:?} lies outside the state", c.key)));
        }
    }
    Ok(())
}

/// Whether a probe's operand lies inside what the program's layout has.
fn probe_in_range(p: &ProgramParts, probe: Probe) -> Result<(), ProgramError> {
    let l = &p.layout;
    let ok = match probe {
        Probe::Listed(bit) => bit < l.bits,
        Probe::Current(action) => action < l.actions,
        Probe::Rule(rule) => (rule as usize) < p.rules.len(),
        Probe::Root => true,
        Probe::Child { group, child } => group < l.group_count && child < super::MAX_CHILDREN,
        Probe::Live(bit) => u64::from(bit) < u64::from(l.records_len) * 8,
        Probe::Leaf(leaf) => leaf < l.leaves,
    };
    if ok {
        Ok(())
    } else {
        Err(bad(format!("probe {probe:?} is out of range")))
    }
}
