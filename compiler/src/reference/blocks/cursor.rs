//! The cursor (Drag\[en\]gine) model's state as a block: the rule the cursor rests on (the
//! same rule numbers in both) and the flags byte (`first_run` is the inverse of
//! [`FLAG_STARTED`]; a halt is [`FLAG_STOPPED`] or [`FLAG_RUNAWAY`]; no current rule is
//! [`FLAG_NO_RULE`]). It never panics on a block.

use btvm::program::{FLAG_NO_RULE, FLAG_RUNAWAY, FLAG_STARTED, FLAG_STOPPED};
use btvm::{Halt, Program};

use super::{get_bits, set_bits};
use crate::reference::AgentState;

/// A field's value.
fn field(block: &[u8], f: btvm::program::Field) -> u64 {
    get_bits(block, f.offset.saturating_mul(8), 8 * u32::from(f.width))
}

/// Writes `state`'s cursor and flags into `block`.
pub(super) fn export(program: &Program, state: &AgentState, block: &mut [u8]) {
    let l = program.layout();
    let mut flags = 0u8;
    if !state.first_run {
        flags |= FLAG_STARTED;
    }
    match state.halt {
        Some(Halt::Stopped) => flags |= FLAG_STOPPED,
        Some(Halt::RunAway) => flags |= FLAG_RUNAWAY,
        None => {}
    }
    if state.no_rule {
        flags |= FLAG_NO_RULE;
    }
    set_bits(
        block,
        l.flags.offset.saturating_mul(8),
        8 * u32::from(l.flags.width),
        u64::from(flags),
    );
    let width = 8 * u32::from(l.cursor.width);
    set_bits(
        block,
        l.cursor.offset.saturating_mul(8),
        width,
        u64::from(state.cursor),
    );
}

/// Reads the cursor and flags of `block` (checked by [`Program::check_state`]) into `state`.
pub(super) fn import(program: &Program, block: &[u8], state: &mut AgentState) {
    let l = program.layout();
    let flags = field(block, l.flags) as u8;
    state.first_run = flags & FLAG_STARTED == 0;
    state.halt = if flags & FLAG_RUNAWAY != 0 {
        Some(Halt::RunAway)
    } else if flags & FLAG_STOPPED != 0 {
        Some(Halt::Stopped)
    } else {
        None
    };
    state.no_rule = flags & FLAG_NO_RULE != 0;
    state.cursor = u32::try_from(field(block, l.cursor)).unwrap_or(u32::MAX);
}
