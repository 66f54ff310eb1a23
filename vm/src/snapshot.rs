//! Saved state of the cursor model: where an agent's cursor rests, by rule id.
//!
//! Drag\[en\]gine persists a behaviour tree context as the id of its current rule and its
//! first-run flag, not as raw memory, so a saved game survives a rebuild of the tree as long as
//! the ids stay. [`CursorSnapshot`] is that record, and [`CursorSnapshot::encode`] writes the
//! original's byte format: a version byte (0), a flags byte (bit 0: a current rule is present,
//! bit 1: `first_run`), then the rule id as a length byte and UTF-8 bytes.
//!
//! This module never panics on input: malformed records are [`SnapshotError`]s.

use std::fmt;

use crate::program::{ProgramModel, FLAG_STARTED, FLAG_STOPPED};
use crate::Program;

/// An agent's cursor, saved by rule id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CursorSnapshot {
    /// The id of the rule the cursor rests on; `None` for a context without a current rule
    /// (restoring it leaves the tree stopped, as the original's step does nothing then).
    pub rule: Option<String>,
    /// The first-run flag.
    pub first_run: bool,
}

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
    /// No rule of the program has the saved id: the tree changed since the save.
    UnknownRule(String),
    /// The bytes are not a snapshot record.
    Malformed(String),
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
            SnapshotError::UnknownRule(id) => write!(
                f,
                "the saved rule `{id}` does not exist in this tree (were its ids changed?)"
            ),
            SnapshotError::Malformed(why) => write!(f, "not a cursor snapshot: {why}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

const PRESENT: u8 = 1;
const FIRST_RUN: u8 = 2;

impl CursorSnapshot {
    /// The record in Drag\[en\]gine's byte format.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), SnapshotError> {
        out.push(0);
        let mut flags = 0;
        if self.rule.is_some() {
            flags |= PRESENT;
        }
        if self.first_run {
            flags |= FIRST_RUN;
        }
        out.push(flags);
        if let Some(id) = &self.rule {
            let len = u8::try_from(id.len()).map_err(|_| SnapshotError::IdTooLong(id.clone()))?;
            out.push(len);
            out.extend_from_slice(id.as_bytes());
        }
        Ok(())
    }

    /// Reads one record from the front of `bytes`; returns it and the bytes after it (records
    /// of several agents may follow each other).
    pub fn decode(bytes: &[u8]) -> Result<(CursorSnapshot, &[u8]), SnapshotError> {
        let bad = |m: &str| SnapshotError::Malformed(m.to_string());
        let (&version, rest) = bytes.split_first().ok_or_else(|| bad("it is empty"))?;
        if version != 0 {
            return Err(bad(&format!("version {version}; only version 0 exists")));
        }
        let (&flags, rest) = rest
            .split_first()
            .ok_or_else(|| bad("the flags are missing"))?;
        if flags & !(PRESENT | FIRST_RUN) != 0 {
            return Err(bad(&format!("unknown flags 0x{flags:02x}")));
        }
        let first_run = flags & FIRST_RUN != 0;
        if flags & PRESENT == 0 {
            return Ok((
                CursorSnapshot {
                    rule: None,
                    first_run,
                },
                rest,
            ));
        }
        let (&len, rest) = rest
            .split_first()
            .ok_or_else(|| bad("the rule id is missing"))?;
        let len = usize::from(len);
        if rest.len() < len {
            return Err(bad("the rule id is cut short"));
        }
        let (id, rest) = rest.split_at(len);
        let id = std::str::from_utf8(id).map_err(|_| bad("the rule id is not UTF-8"))?;
        Ok((
            CursorSnapshot {
                rule: Some(id.to_string()),
                first_run,
            },
            rest,
        ))
    }
}

impl Program {
    fn cursor_state(&self, state: &[u8]) -> Result<(), SnapshotError> {
        if !matches!(self.model(), ProgramModel::Cursor { .. }) {
            return Err(SnapshotError::NotCursorModel);
        }
        if state.len() != self.state_size() {
            return Err(SnapshotError::StateSize {
                expected: self.state_size(),
                found: state.len(),
            });
        }
        Ok(())
    }

    /// Saves where the cursor of the agent with state `state` rests (cursor model).
    pub fn snapshot(&self, state: &[u8]) -> Result<CursorSnapshot, SnapshotError> {
        self.cursor_state(state)?;
        let l = self.layout();
        let rule = crate::cursor::current(state, l, self.rules().len());
        let id = self
            .rules()
            .get(rule)
            .and_then(|r| r.id.clone())
            .ok_or(SnapshotError::NoRuleId { rule: rule as u32 })?;
        Ok(CursorSnapshot {
            rule: Some(id),
            first_run: crate::cursor::first_run(state, l),
        })
    }

    /// Restores a saved cursor into `state`, which becomes a running (not halted) agent on
    /// that rule. Fails, leaving `state` unchanged, if no rule has the saved id.
    pub fn restore(&self, state: &mut [u8], snap: &CursorSnapshot) -> Result<(), SnapshotError> {
        self.cursor_state(state)?;
        let l = *self.layout();
        let rule = match &snap.rule {
            Some(id) => Some(
                self.rules()
                    .iter()
                    .position(|r| r.id.as_deref() == Some(id.as_str()))
                    .ok_or_else(|| SnapshotError::UnknownRule(id.clone()))?,
            ),
            None => None,
        };
        let keep_rng = l.rng.and_then(|at| {
            let at = at as usize;
            state.get(at..at + 8).map(|b| (at, b.to_vec()))
        });
        state.fill(0);
        if let Some((at, bytes)) = keep_rng {
            state[at..at + 8].copy_from_slice(&bytes);
        }
        match rule {
            Some(r) => crate::cursor::set(state, &l, r as u32),
            None => crate::exec::write(state, l.flags, u32::from(FLAG_STOPPED)),
        }
        if !snap.first_run {
            let f = crate::exec::read(state, l.flags) as u8;
            crate::exec::write(state, l.flags, u32::from(f | FLAG_STARTED));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_concatenate() {
        let a = CursorSnapshot {
            rule: Some(".walk".into()),
            first_run: false,
        };
        let b = CursorSnapshot {
            rule: None,
            first_run: true,
        };
        let mut bytes = Vec::new();
        a.encode(&mut bytes).unwrap();
        b.encode(&mut bytes).unwrap();
        assert_eq!(&bytes[..3], &[0, 1, 5]);
        let (x, rest) = CursorSnapshot::decode(&bytes).unwrap();
        let (y, rest) = CursorSnapshot::decode(rest).unwrap();
        assert_eq!((x, y), (a, b));
        assert!(rest.is_empty());
    }

    #[test]
    fn malformed_records_are_errors() {
        for bad in [
            &[][..],
            &[1, 0],
            &[0],
            &[0, 8],
            &[0, 1],
            &[0, 1, 3, b'a'],
            &[0, 1, 1, 0xff],
        ] {
            assert!(
                matches!(
                    CursorSnapshot::decode(bad),
                    Err(SnapshotError::Malformed(_))
                ),
                "{bad:?}"
            );
        }
        let long = CursorSnapshot {
            rule: Some("x".repeat(256)),
            first_run: true,
        };
        assert!(matches!(
            long.encode(&mut Vec::new()),
            Err(SnapshotError::IdTooLong(_))
        ));
    }
}
