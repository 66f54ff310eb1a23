//! The selection model (BST, `spec/bst.md` 2): the current leaf ([`Layout::leaf`]), the
//! state machines' walks, and `changed` as the selection sees it. Its state variables, records
//! and timestamps are the lifecycle model's ([`lifecycle`](super::lifecycle)), which also holds
//! the walk's per-tick visited set in its scratch.
//!
//! Nothing here calls the host (`sel.leaf` and `sel.none` tell it the behaviour through the
//! engines, around the helpers below), allocates or panics.

use super::lifecycle::{changed, jump, rec_field, set_changed, LifeScratch, FALL, FIRST, SECOND};
use crate::program::{read, write, Instr, Layout, ProgramModel, MAX_STATES};
use crate::Program;

/// The selection instructions that do not call the host (see
/// [`lifecycle::step`](super::lifecycle::step), which hands them here); `steps` is the tick's
/// step counter.
#[inline(always)]
pub(super) fn step(
    program: &Program,
    scratch: &mut LifeScratch,
    state: &mut [u8],
    ins: &Instr,
    steps: &mut u32,
) -> u64 {
    let l = program.layout();
    match *ins {
        Instr::SelBegin { .. } => jump(!changed(state, l)),
        Instr::SelJumpPrev { lo, hi, .. } => {
            let cur = read(state, l.leaf);
            jump(cur > lo && cur <= hi)
        }
        Instr::SelSeen { at } => {
            let s = read(state, rec_field(l, at, 1));
            scratch.visited = 1u32.checked_shl(s).unwrap_or(0);
            FALL
        }
        Instr::SelVisit { at, target, .. } => {
            let limit = match program.model() {
                ProgramModel::Selection { limit } => limit,
                _ => 0,
            };
            *steps = steps.saturating_add(1);
            // The transition is taken; into a visited state it ends the chain.
            write(state, rec_field(l, at, 1), u32::from(target));
            let bit = 1u32.checked_shl(u32::from(target)).unwrap_or(0);
            if *steps > limit || u32::from(target) >= MAX_STATES || scratch.visited & bit != 0 {
                return FIRST;
            }
            scratch.visited |= bit;
            SECOND
        }
        Instr::SelJumpLeaf { .. } => jump(read(state, l.leaf) != 0),
        _ => FALL,
    }
}

/// `sel.leaf`: `changed` becomes false; returns whether the current leaf changed to `leaf`
/// (then the host is told its behaviour).
pub(crate) fn select_leaf(state: &mut [u8], l: &Layout, leaf: u32) -> bool {
    set_changed(state, l, false);
    let me = leaf.saturating_add(1);
    if read(state, l.leaf) == me {
        return false;
    }
    write(state, l.leaf, me);
    true
}

/// `sel.none`: the current leaf becomes none (the host is then told `""`, on every such
/// evaluation, as the original calls `SetBehaviour("")` each time).
pub(crate) fn select_none(state: &mut [u8], l: &Layout) {
    write(state, l.leaf, 0);
}

/// Introspection (`Program::active_path`): whether `probe` says its node is active in this
/// model: its record's *live* bit is set (a state machine, its current state, a node with
/// per-activation data), or it is the current leaf. Other probes are never active here.
pub(crate) fn probe(state: &[u8], l: &Layout, probe: crate::program::Probe) -> bool {
    use crate::program::Probe;
    match probe {
        Probe::Live(bit) => super::lifecycle::rec_bit(state, l, bit),
        Probe::Leaf(leaf) => leaf < l.leaves && read(state, l.leaf) == leaf.saturating_add(1),
        _ => false,
    }
}
