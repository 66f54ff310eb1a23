//! The loops of one tick over a range of slots: every agent ([`Run::all`], the plain loop), or
//! only the awake ones ([`Run::awake`], runs of consecutive awake slots found eight slots per
//! word in the schedule's awake bytes).
//!
//! Used by [`Batch::tick`](super::Batch::tick) and by each shard of
//! [`Batch::par_tick`](super::Batch::par_tick). Never allocates, never calls the host except
//! through the ticks, never changes the schedule.

use super::schedule::Due;
use crate::engine::Code;
use crate::exec::Scratch;
use crate::{AgentId, Host, Millis, Program, Status};

/// What one tick (or one shard of it) needs besides its agents.
#[derive(Clone, Copy)]
pub(super) struct Run<'a> {
    pub(super) program: &'a Program,
    pub(super) code: &'a Code,
    pub(super) main: u32,
    pub(super) now: Millis,
}

impl Run<'_> {
    /// Ticks every agent (the plain loop).
    #[inline]
    pub(super) fn all<H: Host + ?Sized>(
        &self,
        scratch: &mut Scratch,
        states: &mut [u8],
        ids: &[AgentId],
        statuses: &mut [Status],
        host: &mut H,
    ) {
        let Run {
            program,
            code,
            main,
            now,
        } = *self;
        code.run_many(program, scratch, main, states, ids, statuses, host, now);
    }

    /// Ticks the agents that `due` says are awake (and, with intervals, on this turn), run by
    /// run of consecutive slots.
    pub(super) fn awake<H: Host + ?Sized>(
        &self,
        scratch: &mut Scratch,
        states: &mut [u8],
        ids: &[AgentId],
        statuses: &mut [Status],
        due: &Due<'_>,
        host: &mut H,
    ) {
        let size = self.program.state_size();
        let n = statuses.len().min(ids.len()).min(due.awake.len());
        let mut i = 0;
        while i < n {
            let start = find(due.awake, i, n, true);
            let end = find(due.awake, start, n, false);
            let mut a = start;
            while a < end {
                // Without intervals the whole run ticks; with them, its sub-runs on this turn.
                let (lo, hi) = match due.intervals {
                    false => (a, end),
                    true => {
                        let on =
                            |s: &usize| due.entries.get(*s).is_some_and(|e| e.on_turn(due.turn));
                        let lo = (a..end).find(on).unwrap_or(end);
                        (lo, (lo..end).find(|s| !on(s)).unwrap_or(end))
                    }
                };
                if lo < hi {
                    let states = &mut states[lo * size..hi * size];
                    self.all(scratch, states, &ids[lo..hi], &mut statuses[lo..hi], host);
                }
                a = hi;
            }
            i = end;
        }
    }
}

/// The first slot in `from..n` whose awake byte is nonzero (`awake`) or zero (`!awake`), or
/// `n`: byte by byte to a word boundary, then eight bytes at a time over words that are all
/// the other kind.
#[inline]
fn find(bytes: &[u8], from: usize, n: usize, awake: bool) -> usize {
    let n = n.min(bytes.len());
    let hit = |b: u8| (b != 0) == awake;
    let mut i = from;
    while i < n && !i.is_multiple_of(8) {
        if hit(bytes[i]) {
            return i;
        }
        i += 1;
    }
    // Awake bytes are 0 or 1: a word of all-other bytes is 0 (looking for awake) or all ones.
    let other = if awake { 0 } else { u64::from_ne_bytes([1; 8]) };
    while i + 8 <= n {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        if u64::from_ne_bytes(word) != other {
            break;
        }
        i += 8;
    }
    while i < n {
        if hit(bytes[i]) {
            return i;
        }
        i += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn find_stops_at_the_first_byte_of_the_kind_wherever_it_is() {
        for n in [0usize, 1, 7, 8, 9, 23, 64, 70] {
            for at in 0..n {
                for from in 0..=at {
                    let mut bytes = vec![0u8; n];
                    bytes[at] = 1;
                    assert_eq!(find(&bytes, from, n, true), at, "{n} {at} {from}");
                    let flipped: Vec<u8> = bytes.iter().map(|b| 1 - b).collect();
                    assert_eq!(find(&flipped, from, n, false), at, "{n} {at} {from}");
                }
                let none = vec![0u8; n];
                assert_eq!(find(&none, at, n, true), n);
                assert_eq!(find(&vec![1u8; n], at, n, false), n);
            }
        }
    }
}
