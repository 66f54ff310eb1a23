//! The per-agent state of the lifecycle and selection models: the flags byte, the variable
//! bits, the timestamps, the current leaf and the node records, and where each node's
//! runtime data lives among the records.
//!
//! Records are allocated in arena order over the main root's subtree, each node's own record
//! byte-aligned, so **a subtree's records are one contiguous byte range**: finishing or
//! aborting a node zeroes its range with one `rec.zero`. A node's record holds what the model
//! keeps for it while it is live (`spec/mbt.md` 2.5, `spec/bst.md` 2.1):
//!
//! | node | record |
//! |---|---|
//! | flags byte (bit 0 *live*, bit 1 an extra bit) | nodes with an init step, a terminate step, events or a start log |
//! | `a` | sequence/selector index, parallel finished mask, priority/state-machine current, loop count, wait end time |
//! | `b` | parallel succeeded mask, state-machine pending state |
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
}

/// The smallest field width that holds `max`.
pub(super) fn width(max: u64) -> u8 {
    match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    }
}

impl Records {
    /// Lays out the state of `tree` (its main root is `root`).
    pub fn new(tree: &Tree, root: NodeId) -> Records {
        let n = tree.nodes.len();
        let lo = root.index();
        let hi = (lo + tree.subtree_size(root)).min(n);
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
        let selection = tree.config.model == Model::Selection;
        let mut rec = vec![Rec::default(); n];
        let mut leaf = vec![0; n];
        let mut nleaves = 0u32;
        let mut at = 0u64;
        let mut rng = false;
        for i in lo..hi {
            let node = &tree.nodes[i];
            let kids = node.children.len() as u64;
            let start = at;
            let mut take = |len: u64| {
                let a = at;
                at += len;
                u32::try_from(a).unwrap_or(u32::MAX)
            };
            let logged = parent[i].is_some_and(
                |p| matches!(&tree.node(p).kind, NodeKind::LogStatus(l) if l.start.is_some()),
            );
            let mut r = Rec::default();
            let flags = match &node.kind {
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
            };
            if flags {
                r.flags = Some(take(1));
            }
            match &node.kind {
                NodeKind::Sequence(_) | NodeKind::Selector(_) => {
                    r.a_width = width(kids.saturating_sub(1));
                    r.a = take(u64::from(r.a_width));
                }
                NodeKind::Parallel(_) => {
                    let bytes = kids.div_ceil(8);
                    r.a = take(bytes);
                    r.b = take(bytes);
                }
                NodeKind::Priority(_) if !selection => {
                    r.a_width = width(kids);
                    r.a = take(u64::from(r.a_width));
                }
                NodeKind::StateMachine => {
                    r.a_width = width(kids.saturating_sub(1));
                    r.a = take(u64::from(r.a_width));
                    if !selection {
                        r.b_width = r.a_width;
                        r.b = take(u64::from(r.b_width));
                    }
                }
                NodeKind::Loop(l) => {
                    if let Some(c) = l.count {
                        r.a_width = width(u64::from(c));
                        r.a = take(u64::from(r.a_width));
                    }
                }
                NodeKind::Wait(w) => {
                    if w.time >= 0 {
                        r.a = take(8);
                    }
                    rng |= w.variation > 0 && w.time >= 0;
                }
                NodeKind::Select(_) => {
                    leaf[i] = nleaves;
                    nleaves += 1;
                }
                _ => {}
            }
            r.start = u32::try_from(start).unwrap_or(u32::MAX);
            r.children = u32::try_from(at).unwrap_or(u32::MAX);
            rec[i] = r;
            for e in node.kind.exprs() {
                e.walk(|x| rng |= matches!(x, Expr::Random));
            }
        }
        let nodes_total = at;
        // The group-scope block: the agent's AI group, then one member bit per scope id.
        let mut scopes: Vec<(u32, String, RBit)> = Vec::new();
        if !selection {
            for node in &tree.nodes[lo..hi] {
                if let NodeKind::GroupScope(g) = &node.kind {
                    let id = btvm::scope_id(&g.scope);
                    if !scopes.iter().any(|s| s.0 == id) {
                        scopes.push((id, g.scope.clone(), RBit(0)));
                    }
                }
            }
        }
        let group = u32::try_from(nodes_total).unwrap_or(u32::MAX);
        let mut total = nodes_total;
        if !scopes.is_empty() {
            total += 4;
            for (k, s) in scopes.iter_mut().enumerate() {
                s.2 = RBit(u32::try_from(total * 8 + k as u64).unwrap_or(u32::MAX));
            }
            total += (scopes.len() as u64).div_ceil(8);
        }
        // A subtree's records end where the records of the node after it start.
        let starts: Vec<u32> = (lo..hi).map(|i| rec[i].start).collect();
        let mut leaves = vec![(0, 0); n];
        for i in lo..hi {
            let after = last[i] + 1;
            rec[i].end = if after < hi {
                starts[after - lo]
            } else {
                group
            };
            rec[i].children = rec[i].children.min(rec[i].end);
            let first_leaf = (i..=last[i])
                .find(|&j| matches!(tree.nodes[j].kind, NodeKind::Select(_)))
                .map_or(0, |j| leaf[j]);
            let count = (i..=last[i])
                .filter(|&j| matches!(tree.nodes[j].kind, NodeKind::Select(_)))
                .count() as u32;
            leaves[i] = (first_leaf, first_leaf + count);
        }
        for s in &tree.signals {
            s.value.walk(|x| rng |= matches!(x, Expr::Random));
        }
        // flags byte, variables, timestamps, current leaf, records, PRNG.
        let mut at: u64 = 1;
        let mut take = |len: u64| {
            let a = at;
            at += len;
            u32::try_from(a).unwrap_or(u32::MAX)
        };
        let var_count = u32::try_from(tree.vars.len()).unwrap_or(u32::MAX);
        let vars = take(u64::from(var_count.div_ceil(8)));
        let stamp_count = if selection {
            0
        } else {
            u32::try_from(tree.timestamps.len()).unwrap_or(u32::MAX)
        };
        let stamps = take(u64::from(STAMP_RECORD) * u64::from(stamp_count));
        let leaf_field = if selection {
            let w = width(u64::from(nleaves));
            Field {
                offset: take(u64::from(w)),
                width: w,
            }
        } else {
            Field::default()
        };
        let records = take(total);
        let rng_at = rng.then(|| take(8));
        let layout = Layout {
            size: u32::try_from(at).unwrap_or(u32::MAX),
            flags: Field {
                offset: 0,
                width: 1,
            },
            vars,
            var_count,
            stamps,
            stamp_count,
            records,
            records_len: u32::try_from(total).unwrap_or(u32::MAX),
            leaf: leaf_field,
            leaves: if selection { nleaves } else { 0 },
            rng: rng_at,
            ..Layout::default()
        };
        Records {
            rec,
            root,
            last: NodeId(last[lo] as u32),
            leaf,
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

    /// Whether `id` lies in the main root's subtree.
    pub fn in_main(&self, id: NodeId) -> bool {
        (self.root..=self.last).contains(&id)
    }
}
