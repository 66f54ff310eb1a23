//! The execution models: one module per model, each holding the meaning of its part of an
//! agent's state block and of its instructions that do not call the host.
//!
//! The vm's interpreter ([`exec`](crate::exec)) and the native trampolines both call these, so
//! the engines cannot disagree on a model. A model module reads and writes the state only
//! through [`program`](crate::program)'s accessors, never calls the host, never allocates
//! during a tick and never panics (out-of-range accesses read zero and write nothing). It must
//! never depend on the interpreter or the engines.

pub(crate) mod active;
pub(crate) mod check;
pub(crate) mod cursor;
pub(crate) mod decider;
pub(crate) mod lifecycle;
pub(crate) mod running_list;
pub(crate) mod selection;

use crate::program::{read_u64, write_u64, Label, Layout};
use crate::{Phase, Prng, Status};

/// The instruction index a label names.
#[inline(always)]
pub(crate) fn target(l: Label) -> usize {
    l.0 as usize
}

/// The label of a node's outcome: `[success, failure, running]` picked by `status`.
#[inline(always)]
pub(crate) fn pick(status: Status, [success, failure, running]: [Label; 3]) -> Label {
    match status {
        Status::Success => success,
        Status::Failure => failure,
        Status::Running => running,
    }
}

/// A parallel's status from its finished children: `ok` succeeded and `failed` failed of `n`;
/// each outcome is reached by all children (`*_all`) or by one. No children is success.
#[inline(always)]
pub(crate) fn quorum(ok: u32, failed: u32, n: u32, success_all: bool, failure_all: bool) -> Status {
    let reached = |all: bool, k: u32| if all { k == n } else { k > 0 };
    if reached(success_all, ok) {
        Status::Success
    } else if reached(failure_all, failed) {
        Status::Failure
    } else if n == 0 {
        Status::Success
    } else {
        Status::Running
    }
}

/// The next number in `[0, 1)` of the agent's PRNG ([`Layout::rng`]), seeded from the agent's
/// id on first use.
#[inline]
pub(crate) fn draw(state: &mut [u8], l: &Layout, agent: u32) -> f64 {
    let at = l.rng.unwrap_or(0) as usize;
    let mut rng = match read_u64(state, at) {
        0 => Prng::for_agent(agent),
        s => Prng::from_state(s),
    };
    let x = rng.next_f64();
    write_u64(state, at, rng.state());
    x
}

/// The phase of a host call's phase operand (`behave`, `lc.call`): 0 `enter`, 1 `continue`,
/// else `exit`.
#[inline]
pub(crate) fn phase(p: u8) -> Phase {
    match p {
        0 => Phase::Enter,
        1 => Phase::Continue,
        _ => Phase::Exit,
    }
}
