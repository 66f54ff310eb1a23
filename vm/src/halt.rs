//! Why an agent's tree stopped running.

use std::fmt;

/// Why an agent's tree no longer runs. Reported beside the tick's [`Status`](crate::Status)
/// (never as a fourth status) by [`Program::halt`](crate::Program::halt); a halted agent's
/// ticks make no host calls and return failure until the agent is reset
/// ([`Program::reset`](crate::Program::reset)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Halt {
    /// The root failed in a dialect where that stops the tree (Drag\[en\]gine).
    Stopped,
    /// A step ran more rules than the run-away limit allows (Drag\[en\]gine's
    /// `BTRunAwayException`, which stops the tree).
    RunAway,
}

impl Halt {
    /// A short lower-case name (`stopped`, `run-away`).
    pub fn name(self) -> &'static str {
        match self {
            Halt::Stopped => "stopped",
            Halt::RunAway => "run-away",
        }
    }
}

impl fmt::Display for Halt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
