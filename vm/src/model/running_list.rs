//! The running-list model (Unvanquished, `spec/semantics.md` 4.1): the current-action slot, the
//! running list of nodes that returned `running`, and the bookkeeping a status does as it climbs
//! through a node's ancestors. Shared by the vm and the native trampolines, so the two engines
//! cannot disagree on it.
//!
//! Nothing here calls the host (the `act` call itself is the engines' own) or allocates;
//! out-of-range accesses read zero and write nothing, as everywhere in the vm.

use super::target;
use crate::program::{
    read, read_u64, write, write_u64, Bit, Instr, Label, Layout, ProgramParts, Timer,
};
use crate::{Millis, SlotClaims, Status};

/// Whether node `bit` is on the running list.
#[inline]
pub(crate) fn listed(state: &[u8], l: &Layout, bit: u32) -> bool {
    let at = l.list as usize + (bit / 8) as usize;
    state.get(at).is_some_and(|b| b >> (bit % 8) & 1 == 1)
}

/// Empties the running list.
#[inline]
pub(crate) fn clear_list(state: &mut [u8], l: &Layout) {
    let at = l.list as usize;
    // Short lists (most trees') are cleared with fixed stores, not a `memset` call.
    match state.get_mut(at..at + l.list_bytes() as usize) {
        Some([a]) => *a = 0,
        Some([a, b]) => (*a, *b) = (0, 0),
        Some(b @ [_, _, _, _]) => b.copy_from_slice(&[0; 4]),
        Some(b @ [_, _, _, _, _, _, _, _]) => b.copy_from_slice(&[0; 8]),
        Some(b) => b.fill(0),
        None => {}
    }
    write(state, l.count, 0);
}

/// Lists `bit` unless it is listed or the list is full.
#[inline]
pub(crate) fn add_to_list(state: &mut [u8], l: &Layout, bit: u32) {
    let count = read(state, l.count);
    if listed(state, l, bit) || count >= l.capacity {
        return;
    }
    if let Some(b) = state.get_mut(l.list as usize + (bit / 8) as usize) {
        *b |= 1 << (bit % 8);
    }
    write(state, l.count, count + 1);
}

/// The bookkeeping of `act` once the host answered: `evaluate(action)` updates the
/// current-action slot, then the running list (spec 4.1). `me` is the action ordinal plus one,
/// `claims` the outcomes on which the action claims the slot itself. Shared by the vm and the
/// native trampolines, so the two engines cannot disagree on it.
#[inline(always)]
pub(crate) fn after_action(
    state: &mut [u8],
    l: &Layout,
    me: u32,
    claims: SlotClaims,
    bit: u32,
    status: Status,
) {
    if claims.contains(status) {
        write(state, l.current, me);
    }
    match status {
        Status::Running => {
            clear_list(state, l);
            add_to_list(state, l, bit);
        }
        Status::Success => {
            if read(state, l.current) == me {
                write(state, l.current, 0);
            }
            if listed(state, l, bit) {
                clear_list(state, l);
            }
        }
        Status::Failure => {
            if read(state, l.current) == me {
                write(state, l.current, 0);
            }
        }
    }
}

/// The slot claims of action import `import` (the default for an index out of range, which
/// the verifier never lets through).
#[inline(always)]
pub(crate) fn claims_of(parts: &ProgramParts, import: u32) -> SlotClaims {
    parts
        .imports
        .get(import as usize)
        .map_or(SlotClaims::RUNNING, |i| i.claims)
}

/// Runs the running-list bookkeeping that starts at `pc` (a node's status climbing through
/// its ancestors: `list.success`, `list.running`, `jump`) as the loop would, one instruction
/// after another, without dispatching each; stops at the first other instruction (its index
/// is returned) or at `finish` (its status is). Verified code has no loop among these
/// instructions, so the climb ends.
#[inline(always)]
pub(crate) fn climb(
    code: &[Instr],
    state: &mut [u8],
    l: &Layout,
    mut pc: usize,
) -> Result<usize, Status> {
    loop {
        match code.get(pc) {
            Some(&Instr::OnSuccess { bit, to }) => {
                if listed(state, l, bit.0) {
                    clear_list(state, l);
                }
                pc = target(to);
            }
            Some(&Instr::OnRunning { bit, to }) => {
                add_to_list(state, l, bit.0);
                pc = target(to);
            }
            Some(&Instr::Jump { to }) => pc = target(to),
            Some(&Instr::Finish { status }) => return Err(status),
            _ => return Ok(pc),
        }
    }
}

/// Sets the running list's length to the number of listed bits (hot reload carries bits, not
/// the count), at most the list's capacity.
pub(crate) fn recount(state: &mut [u8], l: &Layout) {
    let at = l.list as usize;
    let n: u32 = state
        .get(at..at + l.list_bytes() as usize)
        .map_or(0, |b| b.iter().map(|x| x.count_ones()).sum());
    write(state, l.count, n.min(l.capacity));
}

/// [`Program::reset`](crate::Program::reset) in this model: the current-action slot and the
/// running list are cleared; the cooldown timers survive.
pub(crate) fn reset(state: &mut [u8], l: &Layout) {
    write(state, l.current, 0);
    clear_list(state, l);
}

/// `jump.listed` (the one at `pc - 1` and those right after it): a composite's resume points,
/// the first listed child's entry, tested in order; `pc` past the run if none is listed.
#[inline(always)]
pub(crate) fn resume(
    code: &[Instr],
    state: &[u8],
    l: &Layout,
    mut bit: Bit,
    mut to: Label,
    mut pc: usize,
) -> usize {
    loop {
        if listed(state, l, bit.0) {
            return target(to);
        }
        match code.get(pc) {
            Some(&Instr::JumpIfListed { bit: b, to: t }) => {
                (bit, to) = (b, t);
                pc += 1;
            }
            _ => return pc,
        }
    }
}

/// The byte offset of cooldown timer `timer`.
#[inline(always)]
fn timer_at(l: &Layout, timer: Timer) -> usize {
    l.timers as usize + 8 * timer.0 as usize
}

/// `jump.cooling`: `to` while timer `timer` runs at `now`, else `pc`.
#[inline(always)]
pub(crate) fn jump_if_cooling(
    state: &[u8],
    l: &Layout,
    now: Millis,
    timer: Timer,
    to: Label,
    pc: usize,
) -> usize {
    let until = read_u64(state, timer_at(l, timer)) as i64;
    if now <= until {
        target(to)
    } else {
        pc
    }
}

/// `timer.arm`: timer `timer` runs until `ms` after `now`.
#[inline(always)]
pub(crate) fn arm(state: &mut [u8], l: &Layout, now: Millis, timer: Timer, ms: u32) {
    let until = now.saturating_add(i64::from(ms));
    write_u64(state, timer_at(l, timer), until as u64);
}

/// Introspection (`Program::active_path`): whether `probe` says its node is active in this
/// model: its running-list bit is set (it returned running last tick), or the current-action
/// slot holds its action ordinal. Other probes are never active here.
pub(crate) fn probe(state: &[u8], l: &Layout, probe: crate::program::Probe) -> bool {
    use crate::program::Probe;
    match probe {
        Probe::Listed(bit) => bit < l.bits && listed(state, l, bit),
        Probe::Current(action) => {
            action < l.actions && read(state, l.current) == action.saturating_add(1)
        }
        _ => false,
    }
}
