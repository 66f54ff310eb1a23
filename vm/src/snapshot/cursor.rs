//! Saved state of the cursor model: where an agent's cursor rests, by rule id, and whether
//! its tree is stopped.
//!
//! Drag\[en\]gine persists a behaviour tree context as the id of its current rule and its
//! first-run flag, not as raw memory, so a saved game survives a rebuild of the tree as long as
//! the ids stay. Two of the original's records are written and read here (LordOfDragons/
//! dragengine b26e8b4b, `src/modules/scripting/dragonscript/scripts/`):
//!
//! - the *context record* ([`CursorSnapshot::encode_context`], `behaviortree/BTContext.ds`
//!   `writeToFile`/`readFromFile`): a version byte (0), a flags byte (bit 0: a current rule is
//!   present, bit 1: `first_run`; `loadsave/persistency/PersistencyFlags.ds` reads bits 0-1
//!   and ignores the rest), then, if bit 0 is set, the rule id as a length byte and its bytes;
//! - the *element record* ([`CursorSnapshot::encode`], `scenery/behavior/actor/
//!   ECBehaviorBehaviorTree.ds` `Instance.writeToFile`/`readFromFile`), which is what a saved
//!   game holds for an actor's tree: a version byte (0), a flags byte (bit 0: the tree runs,
//!   bit 1: it failed and is stopped), then the context record if bit 0 is set. Its "failed"
//!   flag is how a tree stopped by a root failure or a run-away stays stopped across a save.
//!
//! This module never panics on input: malformed records are [`SnapshotError`]s. It must never
//! change behaviour: saved games written by the original read back here.

use super::SnapshotError;

/// An agent's cursor, saved by rule id, and whether its tree is stopped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CursorSnapshot {
    /// The id of the rule the cursor rests on; `None` for a context without a current rule.
    /// Restoring `None` keeps the cursor the agent has (a fresh agent's: the root); restoring
    /// an id the tree lacks leaves the agent without a current rule, so its next tick runs
    /// nothing, fails and stops the tree.
    pub rule: Option<String>,
    /// The first-run flag.
    pub first_run: bool,
    /// The tree is stopped (halted by a root failure or a run-away): the element record's
    /// "failed" flag. A restored agent with it set is stopped until it is reset.
    pub failed: bool,
}

/// Context record, flags bit 0: a current rule is present.
const PRESENT: u8 = 1;
/// Context record, flags bit 1: `first_run`.
const FIRST_RUN: u8 = 2;
/// Element record, flags bit 0: the tree runs.
const RUN: u8 = 1;
/// Element record, flags bit 1: the tree failed (stopped).
const FAILED: u8 = 2;

fn bad(m: &str) -> SnapshotError {
    SnapshotError::Malformed(m.to_string())
}

/// The version byte and the flags byte at the front of `bytes` (version 0 only; unknown flag
/// bits are ignored, as `PersistencyFlags` ignores them).
fn header(bytes: &[u8]) -> Result<(u8, &[u8]), SnapshotError> {
    let (&version, rest) = bytes.split_first().ok_or_else(|| bad("it is empty"))?;
    if version != 0 {
        return Err(bad(&format!("version {version}; only version 0 exists")));
    }
    let (&flags, rest) = rest
        .split_first()
        .ok_or_else(|| bad("the flags are missing"))?;
    Ok((flags, rest))
}

impl CursorSnapshot {
    /// The element record (what `btvm run --save` writes for each agent): version 0, flags
    /// (run, failed), then the context record. btvm trees always run, so bit 0 is set.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), SnapshotError> {
        out.push(0);
        out.push(RUN | if self.failed { FAILED } else { 0 });
        self.encode_context(out)
    }

    /// The context record alone (`BTContext.writeToFile`); `failed` is not part of it.
    pub fn encode_context(&self, out: &mut Vec<u8>) -> Result<(), SnapshotError> {
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

    /// Reads one element record from the front of `bytes`; returns it and the bytes after it
    /// (records of several agents follow each other). A record whose "run" flag is clear holds
    /// no context: it reads as a stopped tree whose cursor is kept (**Definition**: btvm trees
    /// always run, and the original's element would not think until restarted).
    pub fn decode(bytes: &[u8]) -> Result<(CursorSnapshot, &[u8]), SnapshotError> {
        let (flags, rest) = header(bytes)?;
        if flags & RUN == 0 {
            return Ok((
                CursorSnapshot {
                    rule: None,
                    first_run: true,
                    failed: true,
                },
                rest,
            ));
        }
        let (mut snap, rest) = CursorSnapshot::decode_context(rest)?;
        snap.failed = flags & FAILED != 0;
        Ok((snap, rest))
    }

    /// Reads one context record (`BTContext.readFromFile`) from the front of `bytes`, with
    /// `failed` false; returns it and the bytes after it.
    pub fn decode_context(bytes: &[u8]) -> Result<(CursorSnapshot, &[u8]), SnapshotError> {
        let (flags, rest) = header(bytes)?;
        let first_run = flags & FIRST_RUN != 0;
        if flags & PRESENT == 0 {
            return Ok((
                CursorSnapshot {
                    rule: None,
                    first_run,
                    failed: false,
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
                failed: false,
            },
            rest,
        ))
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
            failed: false,
        };
        let b = CursorSnapshot {
            rule: None,
            first_run: true,
            failed: true,
        };
        let mut bytes = Vec::new();
        a.encode(&mut bytes).unwrap();
        b.encode(&mut bytes).unwrap();
        assert_eq!(&bytes[..5], &[0, 1, 0, 1, 5]);
        assert_eq!(&bytes[10..], &[0, 3, 0, 2]);
        let (x, rest) = CursorSnapshot::decode(&bytes).unwrap();
        let (y, rest) = CursorSnapshot::decode(rest).unwrap();
        assert_eq!((x, y), (a.clone(), b));
        assert!(rest.is_empty());
        let mut ctx = Vec::new();
        a.encode_context(&mut ctx).unwrap();
        assert_eq!(&ctx[..3], &[0, 1, 5]);
        assert_eq!(CursorSnapshot::decode_context(&ctx).unwrap().0, a);
    }

    #[test]
    fn unknown_flag_bits_are_ignored() {
        // PersistencyFlags.new(2, reader) keeps bits 0 and 1 only.
        let (s, rest) = CursorSnapshot::decode_context(&[0, 0xfd, 1, b'a']).unwrap();
        assert_eq!(s.rule.as_deref(), Some("a"));
        assert!(!s.first_run && !s.failed && rest.is_empty());
        let (s, _) = CursorSnapshot::decode(&[0, 0xfe]).unwrap();
        assert!(s.failed && s.rule.is_none());
        let (s, _) = CursorSnapshot::decode(&[0, 0xfd, 0, 0]).unwrap();
        assert!(!s.failed && s.rule.is_none() && !s.first_run);
    }

    #[test]
    fn malformed_records_are_errors() {
        for bad in [
            &[][..],
            &[1, 0],
            &[0],
            &[0, 1],
            &[0, 1, 3, b'a'],
            &[0, 1, 1, 0xff],
        ] {
            assert!(
                matches!(
                    CursorSnapshot::decode_context(bad),
                    Err(SnapshotError::Malformed(_))
                ),
                "{bad:?}"
            );
        }
        let long = CursorSnapshot {
            rule: Some("x".repeat(256)),
            first_run: true,
            failed: false,
        };
        assert!(matches!(
            long.encode(&mut Vec::new()),
            Err(SnapshotError::IdTooLong(_))
        ));
    }
}
