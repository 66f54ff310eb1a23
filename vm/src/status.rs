//! The three-valued result of ticking a node.

use std::fmt;

/// The result of ticking a node (or a whole tree) once.
///
/// Every dialect's statuses map onto these three; dialect-specific outcomes (an MBT tree that
/// stopped, a Drag\[en\]gine run-away step) are reported by the engines beside the status, never as
/// a fourth status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Status {
    /// The node failed.
    Failure = 0,
    /// The node succeeded.
    Success = 1,
    /// The node has not finished; tick again later.
    Running = 2,
}

impl Status {
    /// All statuses, in the order of their numeric values.
    pub const ALL: [Status; 3] = [Status::Failure, Status::Success, Status::Running];

    /// The lower-case name used in traces and in the canonical syntax.
    pub fn name(self) -> &'static str {
        match self {
            Status::Failure => "failure",
            Status::Success => "success",
            Status::Running => "running",
        }
    }

    /// Parses a lower-case status name.
    pub fn from_name(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The status with the given numeric value (`0` failure, `1` success, `2` running).
    pub fn from_u8(value: u8) -> Option<Status> {
        Status::ALL.get(usize::from(value)).copied()
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_round_trip() {
        for s in Status::ALL {
            assert_eq!(Status::from_name(s.name()), Some(s));
            assert_eq!(Status::from_u8(s as u8), Some(s));
        }
        assert_eq!(Status::from_u8(3), None);
        assert_eq!(Status::from_name("Running"), None);
    }
}
