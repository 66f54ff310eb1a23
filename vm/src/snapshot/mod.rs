//! Saved agent state: btvm's own snapshot format for every model ([`Snapshot`], in `format`)
//! and Drag\[en\]gine's original cursor records ([`CursorSnapshot`], in `cursor`), with the
//! one error type both report.
//!
//! Nothing here ticks, calls the host or panics on input: every malformed, damaged or foreign
//! byte string is a [`SnapshotError`].

mod cursor;
mod format;

pub use cursor::CursorSnapshot;
pub use format::{AgentRecord, Snapshot};

use format::VERSION;

use crate::AgentId;
use std::fmt;

/// Why a snapshot could not be taken, read or restored.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The program does not use the cursor model.
    NotCursorModel,
    /// The state block has the wrong size for the program.
    StateSize {
        /// Bytes the program needs.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// The current rule has no id, so it cannot be saved (the original throws too).
    NoRuleId {
        /// The rule's number in the program's rule table.
        rule: u32,
    },
    /// The rule id is longer than the format's 255 bytes.
    IdTooLong(String),
    /// The bytes are not a snapshot record.
    Malformed(String),
    /// The bytes do not start with the snapshot magic ([`Snapshot::MAGIC`]).
    NotASnapshot,
    /// The snapshot was written in a format version this build does not read.
    Version {
        /// The version in the file.
        found: u16,
    },
    /// The snapshot ends before its records do.
    Truncated {
        /// Bytes the header says the snapshot has.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// Bytes follow the snapshot's integrity check.
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The integrity check does not match the contents: the snapshot was damaged.
    Damaged {
        /// The check stored in the snapshot.
        stored: u64,
        /// The check the contents hash to.
        computed: u64,
    },
    /// The snapshot was taken of another program.
    OtherProgram {
        /// The fingerprint in the snapshot.
        snapshot: u64,
        /// The fingerprint of the program it was restored into.
        program: u64,
    },
    /// The snapshot holds more agents than [`crate::Limits::max_agents`].
    TooManyAgents {
        /// Agents in the snapshot.
        count: u32,
        /// The limit.
        limit: u32,
    },
    /// Two records name the same agent.
    DuplicateAgent(AgentId),
    /// A record's status byte is not a [`crate::Status`].
    BadStatus(u8),
    /// A state block holds a value no agent of the program can have.
    InvalidState(String),
    /// A one-agent restore was given a snapshot of another number of agents.
    AgentCount {
        /// Agents in the snapshot.
        found: usize,
    },
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::NotCursorModel => {
                f.write_str("only cursor-model (Drag[en]gine) trees have cursor snapshots")
            }
            SnapshotError::StateSize { expected, found } => write!(
                f,
                "the state block has {found} bytes; the program needs {expected}"
            ),
            SnapshotError::NoRuleId { rule } => write!(
                f,
                "the current rule (rule {rule}) has no id, so it cannot be saved; give every rule that may return running an id"
            ),
            SnapshotError::IdTooLong(id) => {
                write!(f, "the rule id `{id}` is longer than 255 bytes")
            }
            SnapshotError::Malformed(why) => write!(f, "not a cursor snapshot: {why}"),
            SnapshotError::NotASnapshot => f.write_str("not a btvm snapshot (the magic is wrong)"),
            SnapshotError::Version { found } => write!(
                f,
                "snapshot format version {found}; this build reads version {VERSION}"
            ),
            SnapshotError::Truncated { expected, found } => write!(
                f,
                "the snapshot is cut short: {found} bytes, its header says {expected}"
            ),
            SnapshotError::TrailingBytes { extra } => {
                write!(f, "{extra} bytes follow the end of the snapshot")
            }
            SnapshotError::Damaged { stored, computed } => write!(
                f,
                "the snapshot is damaged: its check is {stored:016x}, its contents hash to {computed:016x}"
            ),
            SnapshotError::OtherProgram { snapshot, program } => write!(
                f,
                "a snapshot of another program: it was taken of program {snapshot:016x}, this is program {program:016x}"
            ),
            SnapshotError::TooManyAgents { count, limit } => write!(
                f,
                "the snapshot holds {count} agents, more than the limit of {limit}"
            ),
            SnapshotError::DuplicateAgent(id) => {
                write!(f, "the snapshot holds agent {} twice", id.0)
            }
            SnapshotError::BadStatus(b) => write!(f, "{b} is not a status"),
            SnapshotError::InvalidState(why) => write!(f, "invalid agent state: {why}"),
            SnapshotError::AgentCount { found } => {
                write!(f, "the snapshot holds {found} agents; expected one")
            }
        }
    }
}

impl std::error::Error for SnapshotError {}
