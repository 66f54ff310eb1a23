//! The per-agent state of the lifecycle and selection models: the flags byte, the variable
//! bits, the timestamps, the current leaf and the node records, and where each node's
//! runtime data lives among the records.
//!
//! Records are allocated in pre-order over the main root's subtree, each node's own record
//! byte-aligned, so **a subtree's records are one contiguous byte range**: finishing or
//! aborting a node zeroes its range with one `rec.zero`. In the lifecycle model the children
//! of a state machine or a priority are *overlaid*: all start at the same offset, since only
//! one of them is ever live and a new one starts only after the old one's range was zeroed
//! (`spec/bytecode.md` §3). Nothing may read an overlaid child's records unless its parent's
//! field `a` names it: the terminate walk and the event functions test that field first. A node's record holds what the model
//! keeps for it while it is live (`spec/mbt.md` 2.5, `spec/bst.md` 2.1):
//!
//! | node | record |
//! |---|---|
//! | flags byte (bit 0 *live*, bit 1 an extra bit) | nodes with an init step, a terminate step, events or a start log |
//! | `a` | sequence/selector index, parallel finished mask, priority/state-machine current, loop count, wait end time |
//! | `b` | parallel succeeded mask, state-machine pending state, priority new pick (zero between ticks) |
//!
//! The extra flag bit is a WaitForEvent's *arrived*, a GroupScope's *held*, a StateMachine's
//! *pending*, a Loop's *child live*. Everything is zero in a fresh agent and zero again when
//! the node stops being live.
//!
//! After every node's records, a tree with GroupScope nodes keeps the agent's group-scope
//! block (`spec/mbt.md` 2.6): its AI group (`u32`, 0 in a fresh agent; `Program::reset` keeps
//! it) and one *member* bit per scope id, which no node's range covers.

use btvm::program::{Field, Layout, RBit, STAMP_RECORD};

use btvm::Status;

use crate::ir::{Expr, Model, NodeId, NodeKind, Tree};

/// One node's record.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rec {
    /// Offset of the node's flags byte in the records region.
    pub flags: Option<u32>,
    /// Offset and width of field `a`.
    pub a: u32,
    pub a_width: u8,
    /// Offset and width of field `b`.
    pub b: u32,
    pub b_width: u8,
    /// The node's subtree's records: `start .. end`.
    pub start: u32,
    pub end: u32,
    /// Where the node's children's records start (`end` if it has none).
    pub children: u32,
}

impl Rec {
    /// The node's live bit.
    pub fn live(&self) -> Option<RBit> {
        self.flags.map(|f| RBit(f * 8))
    }

    /// The node's extra flag bit.
    pub fn extra(&self) -> Option<RBit> {
        self.flags.map(|f| RBit(f * 8 + 1))
    }
}

/// The layout of a lifecycle or selection program's state.
pub(super) struct Records {
    /// Per node (by id; default for nodes outside the main root).
    pub rec: Vec<Rec>,
    /// The main root's subtree: `root ..= last`.
    pub root: NodeId,
    pub last: NodeId,
    /// Leaf ordinal of each `select` node (selection model), and the leaf range of each
    /// node's subtree (`lo .. hi`).
    pub leaf: Vec<u32>,
    pub leaves: Vec<(u32, u32)>,
    pub layout: Layout,
    /// Lifecycle model, when the main tree has GroupScope nodes: one entry per distinct scope
    /// id ([`btvm::scope_id`], the CRC-32 of the lower-cased name) in arena order: the id, the
    /// first name with it (the scope's string) and the agent's *member* bit.
    pub scopes: Vec<(u32, String, RBit)>,
    /// Where the agent's AI group (`u32`) lives in the records, after every node's records.
    pub group: u32,
    /// Lifecycle model: each overlaid child (see [`overlays`]), its parent and the value of
    /// the parent's field `a` that names it, in arena order of the children.
    pub overlays: Vec<(NodeId, NodeId, u32)>,
    /// Each node's parent within the main tree.
    pub parent: Vec<Option<NodeId>>,
}

/// The smallest field width that holds `max`.
pub(super) fn width(max: u64) -> u8 {
    match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    }
}

/// A bump allocator over a byte range.
struct Bump(u64);

impl Bump {
    /// Takes `len` bytes; their offset.
    fn take(&mut self, len: u64) -> u32 {
        let a = self.0;
        self.0 += len;
        u32::try_from(a).unwrap_or(u32::MAX)
    }
}

/// The node records of the main root's subtree `lo .. hi`, before their ranges are closed.
struct NodeRecords {
    rec: Vec<Rec>,
    /// Leaf ordinal of each `select` node.
    leaf: Vec<u32>,
    nleaves: u32,
    /// The bytes every node's records take together.
    len: u64,
    /// Whether some expression of the subtree draws a random number, or a wait varies.
    rng: bool,
    /// Each overlaid child, its overlaying parent and the parent's field value naming it.
    overlays: Vec<(NodeId, NodeId, u32)>,
}

/// Each node's parent within `lo .. hi`, and the last node of each node's subtree.
fn parents(tree: &Tree, lo: usize, hi: usize) -> (Vec<Option<NodeId>>, Vec<usize>) {
    let n = tree.nodes.len();
    let mut parent = vec![None; n];
    let mut last: Vec<usize> = (0..n).collect();
    for i in (lo..hi).rev() {
        for &c in &tree.nodes[i].children {
            if (lo..hi).contains(&c.index()) {
                parent[c.index()] = Some(NodeId(i as u32));
                last[i] = last[i].max(last[c.index()]);
            }
        }
    }
    (parent, last)
}

/// Whether a node has a flags byte: an init step, a terminate step, events or (`logged`) a
/// start log.
fn has_flags(kind: &NodeKind, logged: bool, selection: bool) -> bool {
    match kind {
        NodeKind::StateMachine
        | NodeKind::Guard(_)
        | NodeKind::WaitForEvent(_)
        | NodeKind::GroupScope(_)
        | NodeKind::Hooks(_)
        | NodeKind::Action(_)
        | NodeKind::Loop(_) => !selection,
        NodeKind::Wait(w) => w.time >= 0 || logged,
        NodeKind::SendEvent(s) => s.then == Status::Running || logged,
        NodeKind::LogStatus(_) | NodeKind::Case(_) | NodeKind::State(_) => false,
        _ => logged,
    }
}

/// Allocates a node's fields `a` and `b` (a node with `kids` children).
fn fields(kind: &NodeKind, kids: u64, selection: bool, r: &mut Rec, at: &mut Bump) {
    match kind {
        NodeKind::Sequence(_) | NodeKind::Selector(_) => {
            r.a_width = width(kids.saturating_sub(1));
            r.a = at.take(u64::from(r.a_width));
        }
        NodeKind::Parallel(_) => {
            let bytes = kids.div_ceil(8);
            r.a = at.take(bytes);
            r.b = at.take(bytes);
        }
        NodeKind::Priority(_) if !selection => {
            r.a_width = width(kids);
            r.a = at.take(u64::from(r.a_width));
            // The new pick while the old case's records are terminated (zero between ticks).
            r.b_width = r.a_width;
            r.b = at.take(u64::from(r.b_width));
        }
        NodeKind::StateMachine => {
            r.a_width = width(kids.saturating_sub(1));
            r.a = at.take(u64::from(r.a_width));
            if !selection {
                r.b_width = r.a_width;
                r.b = at.take(u64::from(r.b_width));
            }
        }
        NodeKind::Loop(l) => {
            if let Some(c) = l.count {
                r.a_width = width(u64::from(c));
                r.a = at.take(u64::from(r.a_width));
            }
        }
        NodeKind::Wait(w) if w.time >= 0 => r.a = at.take(8),
        _ => {}
    }
}

/// Whether a node's children share one stretch of records (lifecycle model): a state
/// machine runs one state at a time and a priority one case, and a new state or case starts
/// only after the old one's records were zeroed (`spec/mbt.md` 2.5), so each child's
/// records start where the node's children's start, and the stretch is as long as the
/// longest child's.
pub(super) fn overlays(kind: &NodeKind, selection: bool) -> bool {
    !selection && matches!(kind, NodeKind::StateMachine | NodeKind::Priority(_))
}

/// What the recursive allocation reads.
struct Alloc<'t> {
    tree: &'t Tree,
    lo: usize,
    hi: usize,
    parent: &'t [Option<NodeId>],
    selection: bool,
}

/// Allocates node `i`'s own record at `at`, then its children's (one after another, or all
/// at the same offset under an overlaying node); sets the node's `start`, `children` and
/// `end`, and returns the end. Recursion follows the checked tree's depth.
fn alloc(cx: &Alloc<'_>, i: usize, at: u64, out: &mut NodeRecords) -> u64 {
    let node = &cx.tree.nodes[i];
    let logged = cx.parent[i].is_some_and(
        |p| matches!(&cx.tree.node(p).kind, NodeKind::LogStatus(l) if l.start.is_some()),
    );
    let mut bump = Bump(at);
    let mut r = Rec::default();
    if has_flags(&node.kind, logged, cx.selection) {
        r.flags = Some(bump.take(1));
    }
    let kids = node.children.len() as u64;
    fields(&node.kind, kids, cx.selection, &mut r, &mut bump);
    let children = bump.0;
    let overlay = overlays(&node.kind, cx.selection);
    let mut end = children;
    for (k, c) in node.children.iter().enumerate() {
        let c = c.index();
        if !(cx.lo..cx.hi).contains(&c) || c <= i {
            continue;
        }
        if overlay {
            let value = k as u32 + u32::from(matches!(node.kind, NodeKind::Priority(_)));
            out.overlays
                .push((NodeId(c as u32), NodeId(i as u32), value));
            end = end.max(alloc(cx, c, children, out));
        } else {
            end = alloc(cx, c, end, out);
        }
    }
    r.start = u32::try_from(at).unwrap_or(u32::MAX);
    r.children = u32::try_from(children).unwrap_or(u32::MAX);
    r.end = u32::try_from(end).unwrap_or(u32::MAX);
    out.rec[i] = r;
    end
}

/// Every node's record in `lo .. hi` (ranges closed: a subtree's records are `start .. end`).
fn node_records(
    tree: &Tree,
    (lo, hi): (usize, usize),
    parent: &[Option<NodeId>],
    selection: bool,
) -> NodeRecords {
    let n = tree.nodes.len();
    let mut out = NodeRecords {
        rec: vec![Rec::default(); n],
        leaf: vec![0; n],
        nleaves: 0,
        len: 0,
        rng: false,
        overlays: Vec::new(),
    };
    if lo < hi {
        let cx = Alloc {
            tree,
            lo,
            hi,
            parent,
            selection,
        };
        out.len = alloc(&cx, lo, 0, &mut out);
    }
    for node in tree.nodes.iter().take(hi).skip(lo) {
        if let NodeKind::Wait(w) = &node.kind {
            out.rng |= w.variation > 0 && w.time >= 0;
        }
        for e in node.kind.exprs() {
            e.walk(|x| out.rng |= matches!(x, Expr::Random));
        }
    }
    for i in lo..hi {
        if matches!(tree.nodes[i].kind, NodeKind::Select(_)) {
            out.leaf[i] = out.nleaves;
            out.nleaves += 1;
        }
    }
    out
}

/// The distinct scope ids of the GroupScope nodes in `nodes`, in arena order, each with its
/// first name (member bits not yet placed).
fn scope_ids(nodes: &[crate::ir::Node]) -> Vec<(u32, String, RBit)> {
    let mut scopes: Vec<(u32, String, RBit)> = Vec::new();
    for node in nodes {
        if let NodeKind::GroupScope(g) = &node.kind {
            let id = btvm::scope_id(&g.scope);
            if !scopes.iter().any(|s| s.0 == id) {
                scopes.push((id, g.scope.clone(), RBit(0)));
            }
        }
    }
    scopes
}

/// Places the group-scope block after the nodes' `len` bytes: the AI group, then one member
/// bit per scope. The records' total length.
fn place_scopes(scopes: &mut [(u32, String, RBit)], len: u64) -> u64 {
    let mut total = len;
    if !scopes.is_empty() {
        total += 4;
        for (k, s) in scopes.iter_mut().enumerate() {
            s.2 = RBit(u32::try_from(total * 8 + k as u64).unwrap_or(u32::MAX));
        }
        total += (scopes.len() as u64).div_ceil(8);
    }
    total
}

/// Each node's leaf range (`lo .. hi`, selection model).
fn leaf_ranges(
    tree: &Tree,
    (lo, hi): (usize, usize),
    last: &[usize],
    recs: &NodeRecords,
) -> Vec<(u32, u32)> {
    let mut leaves = vec![(0, 0); tree.nodes.len()];
    let is_select = |j: usize| matches!(tree.nodes[j].kind, NodeKind::Select(_));
    for i in lo..hi {
        let first_leaf = (i..=last[i])
            .find(|&j| is_select(j))
            .map_or(0, |j| recs.leaf[j]);
        let count = (i..=last[i]).filter(|&j| is_select(j)).count() as u32;
        leaves[i] = (first_leaf, first_leaf + count);
    }
    leaves
}

/// The whole state's layout: flags byte, variables, timestamps, current leaf (selection),
/// the `records` bytes of records, the PRNG (`rng`).
fn state_layout(tree: &Tree, selection: bool, nleaves: u32, records: u64, rng: bool) -> Layout {
    let mut at = Bump(1);
    let var_count = u32::try_from(tree.vars.len()).unwrap_or(u32::MAX);
    let vars = at.take(u64::from(var_count.div_ceil(8)));
    let stamp_count = if selection {
        0
    } else {
        u32::try_from(tree.timestamps.len()).unwrap_or(u32::MAX)
    };
    let stamps = at.take(u64::from(STAMP_RECORD) * u64::from(stamp_count));
    let leaf = if selection {
        let w = width(u64::from(nleaves));
        Field {
            offset: at.take(u64::from(w)),
            width: w,
        }
    } else {
        Field::default()
    };
    let records_at = at.take(records);
    let rng_at = rng.then(|| at.take(8));
    Layout {
        size: u32::try_from(at.0).unwrap_or(u32::MAX),
        flags: Field {
            offset: 0,
            width: 1,
        },
        vars,
        var_count,
        stamps,
        stamp_count,
        records: records_at,
        records_len: u32::try_from(records).unwrap_or(u32::MAX),
        leaf,
        leaves: if selection { nleaves } else { 0 },
        rng: rng_at,
        ..Layout::default()
    }
}

impl Records {
    /// Lays out the state of `tree` (its main root is `root`).
    pub fn new(tree: &Tree, root: NodeId) -> Records {
        let lo = root.index();
        let hi = (lo + tree.subtree_size(root)).min(tree.nodes.len());
        let selection = tree.config.model == Model::Selection;
        let (parent, last) = parents(tree, lo, hi);
        let mut nodes = node_records(tree, (lo, hi), &parent, selection);
        // The group-scope block: the agent's AI group, then one member bit per scope id.
        let mut scopes = if selection {
            Vec::new()
        } else {
            scope_ids(&tree.nodes[lo..hi])
        };
        let group = u32::try_from(nodes.len).unwrap_or(u32::MAX);
        let total = place_scopes(&mut scopes, nodes.len);
        let leaves = leaf_ranges(tree, (lo, hi), &last, &nodes);
        for s in &tree.signals {
            s.value.walk(|x| nodes.rng |= matches!(x, Expr::Random));
        }
        let layout = state_layout(tree, selection, nodes.nleaves, total, nodes.rng);
        Records {
            overlays: nodes.overlays,
            parent,
            rec: nodes.rec,
            root,
            last: NodeId(last[lo] as u32),
            leaf: nodes.leaf,
            leaves,
            layout,
            scopes,
            group,
        }
    }

    /// The scope string and member bit of group scope `name` (`None` outside the main tree).
    pub fn scope(&self, name: &str) -> Option<(&str, RBit)> {
        let id = btvm::scope_id(name);
        self.scopes
            .iter()
            .find(|s| s.0 == id)
            .map(|s| (s.1.as_str(), s.2))
    }

    /// The record of node `id`.
    pub fn of(&self, id: NodeId) -> Rec {
        self.rec.get(id.index()).copied().unwrap_or_default()
    }

    /// Where the state shows a node active (introspection): its record's *live* bit, and in
    /// the selection model a `select` node's leaf ordinal in the current-leaf field.
    pub fn probes(&self, tree: &Tree, selection: bool) -> Vec<(u32, btvm::program::Probe)> {
        use btvm::program::Probe;
        let mut probes = Vec::new();
        for i in self.root.index()..=self.last.index().min(tree.nodes.len().saturating_sub(1)) {
            if let Some(bit) = self.of(NodeId(i as u32)).live() {
                probes.push((i as u32, Probe::Live(bit.0)));
            }
            if selection && matches!(tree.nodes[i].kind, NodeKind::Select(_)) {
                if let Some(&leaf) = self.leaf.get(i) {
                    probes.push((i as u32, Probe::Leaf(leaf)));
                }
            }
        }
        probes
    }

    /// The value of its parent's field `a` that names overlaid child `id` (`None`: `id` is
    /// not overlaid).
    pub fn overlay_value(&self, id: NodeId) -> Option<u32> {
        self.overlays.iter().find(|o| o.0 == id).map(|o| o.2)
    }

    /// The node table's overlays: each overlaid child with its parent's field `a` in the
    /// state block and the value naming it.
    pub fn table_overlays(&self) -> Vec<btvm::program::Overlay> {
        let base = self.layout.records;
        (self.overlays.iter())
            .map(|&(c, p, value)| {
                let r = self.of(p);
                btvm::program::Overlay {
                    node: c.0,
                    field: Field {
                        offset: base + r.a,
                        width: r.a_width,
                    },
                    value,
                }
            })
            .collect()
    }

    /// Whether `id` lies in the main root's subtree.
    pub fn in_main(&self, id: NodeId) -> bool {
        (self.root..=self.last).contains(&id)
    }
}
