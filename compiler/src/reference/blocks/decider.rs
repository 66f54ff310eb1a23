//! The decider (Spore) model's state as a block: the root's activity (a flag and a `since`
//! time in the header), the DecisionFlags word, the stimuli (present and never-expiring bits
//! in the header, a record each), each `group`'s active child (`k + 1`, 0 none) and `since`,
//! each `every` decider's next time (biased, [`every_encode`]) and the loop-guard flag.
//!
//! The header and stimulus records are read through the [`Layout`](btvm::program::Layout),
//! a node's fields through its cells. It never panics on a block.

use btvm::program::{
    every_decode, every_encode, FLAG_LOOP_GUARD, FLAG_ROOT_ACTIVE, STIMULUS_RECORD,
};
use btvm::{Program, SnapshotError, Stimulus};

use super::{get_bits, invalid, read, read_i64, set_bits, write, write_i64, Cells};
use crate::reference::{AgentState, Interpreter};

const DECISION: u32 = 0;
const PRESENT: u32 = 4;
const NEVER: u32 = 8;
const ROOT_SINCE: u32 = 12;

fn word(block: &[u8], at: u32) -> u32 {
    get_bits(block, at.saturating_mul(8), 32) as u32
}

fn set_word(block: &mut [u8], at: u32, v: u32) {
    set_bits(block, at.saturating_mul(8), 32, u64::from(v));
}

/// Writes `state`'s decider state into `block`.
pub(super) fn export(
    interp: &Interpreter<'_>,
    program: &Program,
    cells: &Cells<'_>,
    state: &AgentState,
    block: &mut [u8],
) {
    let l = program.layout();
    let d = &state.decider;
    let mut flags = 0u8;
    if let Some(since) = d.root {
        flags |= FLAG_ROOT_ACTIVE;
        write_i64(block, l.decider + ROOT_SINCE, since);
    }
    if d.guard {
        flags |= FLAG_LOOP_GUARD;
    }
    set_bits(block, l.flags.offset.saturating_mul(8), 8, u64::from(flags));
    set_word(block, l.decider + DECISION, d.flags);
    let (mut present, mut never) = (0u32, 0u32);
    for (k, s) in d.stimuli.iter().enumerate().take(32) {
        if let Some(s) = s {
            present |= 1 << k;
            if s.expires.is_none() {
                never |= 1 << k;
            }
            let at = l.stimuli + STIMULUS_RECORD * k as u32;
            write_i64(block, at, s.expires.unwrap_or(0));
            write_i64(block, at + 8, s.data);
        }
    }
    set_word(block, l.decider + PRESENT, present);
    set_word(block, l.decider + NEVER, never);
    for i in 0..interp.tree.nodes.len() {
        let active = d.active.get(i).copied().flatten();
        write(
            block,
            cells.get(Some(i), "active"),
            active.map_or(0, |k| u64::from(k) + 1),
        );
        let since = d.since.get(i).copied().unwrap_or(0);
        write(block, cells.get(Some(i), "since"), since as u64);
        let next = d.next.get(i).copied().unwrap_or(i64::MIN);
        write(block, cells.get(Some(i), "every"), every_encode(next));
    }
}

/// Reads the decider state of `block` into `state`; an active child the group lacks is an
/// error.
pub(super) fn import(
    interp: &Interpreter<'_>,
    program: &Program,
    cells: &Cells<'_>,
    block: &[u8],
    state: &mut AgentState,
) -> Result<(), SnapshotError> {
    let l = program.layout();
    let flags = get_bits(block, l.flags.offset.saturating_mul(8), 8) as u8;
    let d = &mut state.decider;
    d.root = (flags & FLAG_ROOT_ACTIVE != 0).then(|| read_i64(block, l.decider + ROOT_SINCE));
    d.guard = flags & FLAG_LOOP_GUARD != 0;
    d.flags = word(block, l.decider + DECISION);
    let (present, never) = (
        word(block, l.decider + PRESENT),
        word(block, l.decider + NEVER),
    );
    for (k, slot) in d.stimuli.iter_mut().enumerate().take(32) {
        let at = l.stimuli + STIMULUS_RECORD * k as u32;
        *slot = (present >> k & 1 != 0).then(|| Stimulus {
            expires: (never >> k & 1 == 0).then(|| read_i64(block, at)),
            data: read_i64(block, at + 8),
        });
    }
    for (i, node) in interp.tree.nodes.iter().enumerate() {
        if let Some(c) = cells.get(Some(i), "active") {
            let v = read(block, Some(c));
            if v > node.children.len() as u64 {
                return Err(invalid(format!(
                    "group node {i} has {} children; its active child is {v} (plus one)",
                    node.children.len()
                )));
            }
            if let Some(a) = d.active.get_mut(i) {
                *a = v.checked_sub(1).map(|k| k as u32);
            }
        }
        if let (Some(c), Some(s)) = (cells.get(Some(i), "since"), d.since.get_mut(i)) {
            *s = read(block, Some(c)) as i64;
        }
        if let (Some(c), Some(n)) = (cells.get(Some(i), "every"), d.next.get_mut(i)) {
            *n = every_decode(read(block, Some(c)));
        }
    }
    Ok(())
}
