//! The per-agent state layout and the numbering of slots.
//!
//! Running-list bits are given only to node identities that may return running (a node that
//! never runs is never listed, so testing or clearing its bit could never matter). Bits,
//! timers and action ordinals are numbered in arena order, so the slots of a subtree are
//! contiguous; the shared identities of `include` nodes come after every node's.

use btvm::program::{Field, Layout};

use crate::ir::analysis::identity;
use crate::ir::{NodeId, NodeKind, Resume, Tree};

const S: u8 = 1;
const F: u8 = 2;
const R: u8 = 4;

/// Slot numbers for every node, and the layout they make.
pub struct Slots {
    /// The state layout.
    pub layout: Layout,
    /// Running-list bit per identity (`nodes.len() + subtree` for shared includes).
    bits: Vec<Option<u32>>,
    /// Action ordinal per node (0 for non-actions).
    pub action: Vec<u32>,
    /// Timer slot per node (0 for non-cooldowns).
    pub timer: Vec<u32>,
    /// First of two counters per parallel node.
    pub temp: Vec<u32>,
    /// Counters in all.
    pub temps: u32,
}

impl Slots {
    /// Numbers the slots of `tree` (running-list model with `capacity`).
    pub fn new(tree: &Tree, capacity: u32) -> Slots {
        let n = tree.nodes.len();
        let masks = outcomes(tree);
        let mut bits = vec![None; n + tree.subtrees.len()];
        let (mut nbits, mut actions, mut timers, mut temps) = (0u32, 0u32, 0u32, 0u32);
        let mut action = vec![0; n];
        let mut timer = vec![0; n];
        let mut temp = vec![0; n];
        let mut rng = false;
        for (i, node) in tree.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            let key = identity(tree, id).index();
            if masks[i] & R != 0 && bits[key].is_none() && key == i {
                bits[key] = Some(nbits);
                nbits += 1;
            }
            match node.kind {
                NodeKind::Action(_) => {
                    action[i] = actions;
                    actions += 1;
                }
                NodeKind::Cooldown(_) => {
                    timer[i] = timers;
                    timers += 1;
                }
                NodeKind::Parallel(_) => {
                    temp[i] = temps;
                    temps += 2;
                }
                _ => {}
            }
            for e in node.kind.exprs() {
                e.walk(|x| rng |= matches!(x, crate::ir::Expr::Random));
            }
        }
        // Shared include identities come after every node's.
        for (i, &mask) in masks.iter().enumerate() {
            let key = identity(tree, NodeId(i as u32)).index();
            if key != i && mask & R != 0 && bits[key].is_none() {
                bits[key] = Some(nbits);
                nbits += 1;
            }
        }
        let width = |max: u64| match max {
            0 => 0u8,
            1..=0xff => 1,
            0x100..=0xffff => 2,
            _ => 4,
        };
        let mut at = 0u32;
        let mut field = |width: u8| {
            let f = Field { offset: at, width };
            at += u32::from(width);
            f
        };
        let current = field(width(u64::from(actions)));
        let count = field(if nbits == 0 {
            0
        } else {
            width(u64::from(capacity.min(nbits)).max(1))
        });
        let list = at;
        at += nbits.div_ceil(8);
        let rng_at = rng.then(|| {
            let a = at;
            at += 8;
            a
        });
        let timers_at = at;
        at += 8 * timers;
        Slots {
            layout: Layout {
                size: at,
                current,
                actions,
                count,
                capacity,
                list,
                bits: nbits,
                timers: timers_at,
                timer_count: timers,
                rng: rng_at,
                cursor: Field::default(),
                flags: Field::default(),
                ..Layout::default()
            },
            bits,
            action,
            timer,
            temp,
            temps,
        }
    }

    /// The running-list bit of a node's identity, if it may ever be listed.
    pub fn bit(&self, tree: &Tree, id: NodeId) -> Option<u32> {
        self.bits.get(identity(tree, id).index()).copied().flatten()
    }
}

/// For every node, the statuses it may return (an over-approximation: bits S, F, R).
/// Includes make this a fixpoint; masks only grow, so it ends within include-depth passes.
fn outcomes(tree: &Tree) -> Vec<u8> {
    let mut m = vec![0u8; tree.nodes.len()];
    loop {
        let mut changed = false;
        for i in (0..tree.nodes.len()).rev() {
            let node = &tree.nodes[i];
            let kids = node.children.iter().map(|c| m[c.index()]);
            let union = kids.clone().fold(0, |a, b| a | b);
            let bit = |s: btvm::Status| match s {
                btvm::Status::Success => S,
                btvm::Status::Failure => F,
                btvm::Status::Running => R,
            };
            let new = match &node.kind {
                NodeKind::Action(_) => S | F | R,
                NodeKind::Condition(_) => S | F,
                NodeKind::Const(s) => bit(*s),
                NodeKind::Sequence(c) if c.resume != Resume::Cursor => S | (union & (F | R)),
                NodeKind::Selector(_) => F | (union & (S | R)),
                NodeKind::Invert => {
                    (union & R)
                        | if union & S != 0 { F } else { 0 }
                        | if union & F != 0 { S } else { 0 }
                }
                NodeKind::MapStatus(map) => {
                    let mut out = 0;
                    for (from, to) in [(S, map.success), (F, map.failure), (R, map.running)] {
                        if union & from != 0 {
                            out |= bit(to);
                        }
                    }
                    out
                }
                NodeKind::Guard(_) | NodeKind::Cooldown(_) => union | F,
                NodeKind::Include(sub) => tree
                    .subtrees
                    .get(sub.0 as usize)
                    .map_or(F, |s| m[s.node.index()]),
                _ => S | F | R,
            };
            let merged = m[i] | new;
            if merged != m[i] {
                m[i] = merged;
                changed = true;
            }
        }
        if !changed {
            return m;
        }
    }
}
