//! What the lifecycle (MBT) and selection (BST) models' blocks share, as the reference keeps
//! it: the flags byte ([`FLAG_UNCHANGED`] is the inverse of `changed`; [`FLAG_STOPPED`] the
//! lifecycle model's halt), the variables (one bit each, stored as `value XOR default`) and
//! the timestamps (a time and the *ever set* and *valid* bits each).
//!
//! [`FLAG_CHANGED_BEFORE`](btvm::program::FLAG_CHANGED_BEFORE) is not carried: it is scratch
//! of one tick (`lc.begin` writes it before anything reads it), so an exported block holds 0
//! there (`spec/bytecode.md` §9). It never panics on a block.

use btvm::program::{FLAG_STOPPED, FLAG_UNCHANGED, STAMP_RECORD};
use btvm::{Halt, Program, SnapshotError, Value};

use super::{get_bits, read_i64, set_bits, write_i64};
use crate::reference::AgentState;

/// Bit 0 of a stamp's last byte: set at least once.
const EVER: u8 = 1;
/// Bit 1 of a stamp's last byte: valid.
const VALID: u8 = 2;

/// Writes the flags, variables and timestamps of `state` into `block`.
pub(super) fn export(program: &Program, state: &AgentState, block: &mut [u8]) {
    let l = program.layout();
    let mut flags = 0u8;
    if !state.changed {
        flags |= FLAG_UNCHANGED;
    }
    if state.halt.is_some() {
        flags |= FLAG_STOPPED;
    }
    set_bits(block, l.flags.offset.saturating_mul(8), 8, u64::from(flags));
    let defaults = program.vars();
    for (k, v) in state.vars.iter().enumerate().take(l.var_count as usize) {
        let differs = defaults.get(k).is_some_and(|d| d != v);
        set_bits(block, l.vars * 8 + k as u32, 1, u64::from(differs));
    }
    for (k, s) in state.stamps.iter().enumerate().take(l.stamp_count as usize) {
        let at = l.stamps + STAMP_RECORD * k as u32;
        write_i64(block, at, s.time);
        let bits = if s.ever { EVER } else { 0 } | if s.valid { VALID } else { 0 };
        set_bits(block, (at + 8) * 8, 8, u64::from(bits));
    }
}

/// Reads the flags, variables and timestamps of `block` into `state`.
pub(super) fn import(
    program: &Program,
    block: &[u8],
    state: &mut AgentState,
) -> Result<(), SnapshotError> {
    let l = program.layout();
    let flags = get_bits(block, l.flags.offset.saturating_mul(8), 8) as u8;
    state.changed = flags & FLAG_UNCHANGED == 0;
    state.halt = (program.model() == btvm::program::ProgramModel::Lifecycle
        && flags & FLAG_STOPPED != 0)
        .then_some(Halt::Stopped);
    let defaults = program.vars();
    for (k, v) in state.vars.iter_mut().enumerate().take(l.var_count as usize) {
        if get_bits(block, l.vars * 8 + k as u32, 1) != 0 {
            let d = defaults.get(k).is_some_and(|d| d.truthy());
            *v = Value::Bool(!d);
        }
    }
    for (k, s) in state
        .stamps
        .iter_mut()
        .enumerate()
        .take(l.stamp_count as usize)
    {
        let at = l.stamps + STAMP_RECORD * k as u32;
        s.time = read_i64(block, at);
        let bits = get_bits(block, (at + 8) * 8, 8) as u8;
        s.ever = bits & EVER != 0;
        s.valid = bits & VALID != 0;
    }
    Ok(())
}
