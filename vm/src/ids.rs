//! Small typed ids shared by every engine.

use std::fmt;

/// Time in integer milliseconds. Every engine is given `now` with each tick; none reads a clock.
pub type Millis = i64;

/// The largest [`ProgramParts::clock`](crate::program::ProgramParts::clock): tree time units
/// per millisecond (10^6 is one nanosecond).
pub const MAX_CLOCK: u32 = 1_000_000;

/// `now` (milliseconds) in a tree's time unit of `clock` units per millisecond, saturating.
#[inline]
pub(crate) fn in_units(now: Millis, clock: u32) -> i64 {
    now.saturating_mul(i64::from(clock))
}

/// Identifies one agent: the owner of one per-agent state block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AgentId(pub u32);

/// Index into a tree's (or program's) import table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImportId(pub u32);

/// Index into a [`Strings`](crate::Strings) table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct StrId(pub u32);

/// One event of one program, looked up by name once with
/// [`Program::event_id`](crate::Program::event_id), so that delivering it
/// ([`Engine::event_by_id`](crate::Engine::event_by_id),
/// [`Batch::event_by_id`](crate::Batch::event_by_id)) compares no strings. It carries its
/// program's fingerprint: delivering it with another program's engine is
/// [`VmError::ForeignEvent`](crate::VmError::ForeignEvent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventId {
    /// The fingerprint of the program the event belongs to.
    pub(crate) program: u64,
    /// The index of the event's function in that program.
    pub(crate) function: u32,
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl ImportId {
    /// The id as a table index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl StrId {
    /// The id as a table index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
