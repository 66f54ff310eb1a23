//! [`VmError`]: why an engine could not run a tick, an entry or an event.
//!
//! A leaf shared by the models, the interpreter and the engines; it must never depend on any
//! of them.

use std::fmt;

/// Why a tick could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VmError {
    /// The state block does not have the program's state size.
    StateSize {
        /// What the program needs.
        expected: usize,
        /// What was passed.
        found: usize,
    },
    /// The program has no entry of that name (or no entry at all, for the main tree).
    NoEntry(String),
    /// The host has no function for an import.
    UnknownImport {
        /// The import's name.
        name: String,
        /// `action` or `function`.
        kind: &'static str,
    },
    /// The program keeps no variable of that index in the state (programs of models other
    /// than lifecycle and selection keep none).
    UnknownVariable(u32),
    /// A batch has no live agent of that id.
    NoAgent(usize),
    /// An agent id given twice (to [`Batch::from_records`](crate::Batch::from_records)).
    DuplicateAgent(crate::AgentId),
    /// An [`EventId`](crate::EventId) delivered with an engine or batch of another program.
    ForeignEvent,
    /// The memory for this many agents' states could not be allocated.
    OutOfMemory {
        /// The agents asked for.
        agents: u32,
    },
    /// A snapshot that does not fit the program (another program's, or a state block its
    /// model refuses), given to [`Batch::from_snapshot`](crate::Batch::from_snapshot).
    Snapshot(crate::SnapshotError),
}

impl fmt::Display for VmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VmError::StateSize { expected, found } => write!(
                f,
                "the state block has {found} bytes; the program needs {expected}"
            ),
            VmError::NoAgent(i) => write!(f, "the batch has no agent {i}"),
            VmError::DuplicateAgent(id) => write!(f, "agent {id} is given twice"),
            VmError::ForeignEvent => f.write_str("the event id belongs to another program"),
            VmError::OutOfMemory { agents } => {
                write!(f, "cannot allocate the state of {agents} agents")
            }
            VmError::NoEntry(name) if name.is_empty() => f.write_str("the program has no entry"),
            VmError::NoEntry(name) => write!(f, "the program has no entry `{name}`"),
            VmError::UnknownImport { name, kind } => {
                write!(f, "the host has no {kind} `{name}`")
            }
            VmError::Snapshot(e) => e.fmt(f),
            VmError::UnknownVariable(k) => {
                write!(f, "the program keeps no variable {k} in the agent's state")
            }
        }
    }
}

impl std::error::Error for VmError {}
