//! The execution models: one module per model, each holding the meaning of its part of an
//! agent's state block and of its instructions that do not call the host.
//!
//! The vm's interpreter ([`exec`](crate::exec)) and the native trampolines both call these, so
//! the engines cannot disagree on a model. A model module reads and writes the state only
//! through [`program`](crate::program)'s accessors, never calls the host, never allocates
//! during a tick and never panics (out-of-range accesses read zero and write nothing). It must
//! never depend on the interpreter or the engines.

pub(crate) mod cursor;
pub(crate) mod decider;
pub(crate) mod lifecycle;
pub(crate) mod running_list;

use crate::program::Label;

/// The instruction index a label names.
#[inline(always)]
pub(crate) fn target(l: Label) -> usize {
    l.0 as usize
}
