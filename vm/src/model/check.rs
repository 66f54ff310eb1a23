//! What a restored state block may hold: the cheap checks [`Program::check_state`] makes of
//! each model's index fields before a block from outside (a snapshot) is accepted.
//!
//! A state block is only bytes, and the engines never trust it: every index read from it is
//! bounded where it is used (`spec/bytecode.md` §9), so garbage can make an agent misbehave
//! but never panic, read out of bounds or loop. These checks only turn the garbage that is
//! cheap to see into an error instead of silent misbehaviour. They never tick, never call
//! the host and never allocate.

use crate::program::{read, Layout, ProgramModel, FLAG_NO_RULE};
use crate::{Program, SnapshotError};

/// Fails unless `state` is a block of `program`'s size whose index fields are in range.
pub(crate) fn check_state(program: &Program, state: &[u8]) -> Result<(), SnapshotError> {
    if state.len() != program.state_size() {
        return Err(SnapshotError::StateSize {
            expected: program.state_size(),
            found: state.len(),
        });
    }
    let l = program.layout();
    match program.model() {
        ProgramModel::RunningList => running_list(state, l),
        ProgramModel::Cursor { .. } => cursor(program, state, l),
        ProgramModel::Selection { .. } => at_most(state, l.leaf, l.leaves, "the current leaf"),
        ProgramModel::Decider { .. } | ProgramModel::Lifecycle => Ok(()),
    }
}

/// The running list holds at most its capacity; the current-action slot names an action.
fn running_list(state: &[u8], l: &Layout) -> Result<(), SnapshotError> {
    at_most(state, l.count, l.capacity, "the running list's count")?;
    at_most(state, l.current, l.actions, "the current-action slot")
}

/// The cursor rests on a rule of the table (unless the context has no current rule).
fn cursor(program: &Program, state: &[u8], l: &Layout) -> Result<(), SnapshotError> {
    let flags = read(state, l.flags) as u8;
    let rules = u32::try_from(program.rules().len()).unwrap_or(u32::MAX);
    if flags & FLAG_NO_RULE != 0 || rules == 0 {
        return Ok(());
    }
    at_most(state, l.cursor, rules - 1, "the cursor's rule")
}

/// Fails if the field holds more than `max`.
fn at_most(
    state: &[u8],
    field: crate::program::Field,
    max: u32,
    what: &str,
) -> Result<(), SnapshotError> {
    let v = read(state, field);
    if v > max {
        return Err(SnapshotError::InvalidState(format!(
            "{what} is {v}; at most {max} exists"
        )));
    }
    Ok(())
}
