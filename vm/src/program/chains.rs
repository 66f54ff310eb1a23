//! Running-list bookkeeping chains: a view of a verified program that lets the vm run a run of
//! `list.success` (or `list.running`) instructions that jump into one another as one step.
//!
//! When a node deep in a running-list tree succeeds or runs, the status climbs through every
//! ancestor that owns a list bit, one `list.success bit, L` (or `list.running bit, L`) per
//! ancestor, each jumping to the next. The vm would dispatch each of them; with the chain it
//! dispatches the first and does the rest in a loop over the chain's bits, which is the same
//! work on the state block:
//!
//! - `list.success b0 → list.success b1 → … → L`: clear the list if any `bi` is listed (once
//!   one is, the list is empty and no later `bj` can be), then continue at `L`;
//! - `list.running b0 → list.running b1 → … → L`: list every `bi` in order (each unless listed
//!   already or the list is full), then continue at `L`.
//!
//! This module is derived data: it is built from the verified code when a [`Program`] is
//! made, is never encoded, and never changes what a program means. It must never follow a
//! label the verifier did not check, and it bounds every chain (at [`MAX_CHAIN`] bits), so a
//! hostile program cannot make it large.
//!
//! [`Program`]: super::Program

use super::{Instr, Label};

/// The most bits one chain holds; a longer run is cut into chains of at most this many.
pub const MAX_CHAIN: usize = 16;

/// Where a chain starting at an instruction ends, and its bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    /// First bit in [`Chains::bits`].
    pub start: u32,
    /// How many bits (0: the instruction starts no chain of two or more).
    pub len: u32,
    /// Where execution continues after the last instruction of the chain.
    pub end: u32,
}

/// The chains of a program's code, by instruction index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chains {
    /// One entry per instruction of the code.
    pub at: Vec<Chain>,
    /// The chains' bits.
    pub bits: Vec<u32>,
}

impl Chains {
    /// The chains of `code`, whose labels the verifier has checked.
    pub fn of(code: &[Instr]) -> Chains {
        let mut chains = Chains {
            at: vec![Chain::default(); code.len()],
            bits: Vec::new(),
        };
        for (pc, ins) in code.iter().enumerate() {
            let success = match ins {
                Instr::OnSuccess { .. } => true,
                Instr::OnRunning { .. } => false,
                _ => continue,
            };
            let start = chains.bits.len();
            let mut here = pc;
            let mut end = pc;
            while chains.bits.len() - start < MAX_CHAIN {
                let (bit, to) = match code.get(here) {
                    Some(&Instr::OnSuccess { bit, to }) if success => (bit, to),
                    Some(&Instr::OnRunning { bit, to }) if !success => (bit, to),
                    _ => break,
                };
                chains.bits.push(bit.0);
                end = label(to);
                // Labels of these instructions only go forward; anything else ends the chain.
                if end <= here {
                    break;
                }
                here = end;
            }
            let len = chains.bits.len() - start;
            if len < 2 {
                chains.bits.truncate(start);
                continue;
            }
            chains.at[pc] = Chain {
                start: start as u32,
                len: len as u32,
                end: end as u32,
            };
        }
        chains
    }

    /// The chain starting at instruction `pc`, if it has two or more bits.
    #[inline]
    pub fn get(&self, pc: usize) -> Option<(&[u32], usize)> {
        let c = self.at.get(pc)?;
        if c.len < 2 {
            return None;
        }
        let bits = self
            .bits
            .get(c.start as usize..(c.start + c.len) as usize)?;
        Some((bits, c.end as usize))
    }
}

fn label(l: Label) -> usize {
    l.0 as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Bit, Label};
    use crate::Status;

    fn succ(bit: u32, to: u32) -> Instr {
        Instr::OnSuccess {
            bit: Bit(bit),
            to: Label(to),
        }
    }

    fn run(bit: u32, to: u32) -> Instr {
        Instr::OnRunning {
            bit: Bit(bit),
            to: Label(to),
        }
    }

    #[test]
    fn runs_of_the_same_kind_chain_and_stop_at_anything_else() {
        let fin = Instr::Finish {
            status: Status::Success,
        };
        let code = vec![
            succ(1, 2),
            run(1, 3),
            succ(2, 4),
            run(2, 5),
            succ(3, 6),
            fin,
        ];
        let c = Chains::of(&code);
        assert_eq!(c.get(0), Some((&[1, 2, 3][..], 6)));
        assert_eq!(c.get(2), Some((&[2, 3][..], 6)));
        // A running chain that reaches a success instruction stops before it.
        assert_eq!(c.get(1), Some((&[1, 2][..], 5)));
        assert_eq!(c.get(3), None);
        assert_eq!(c.get(4), None);
        assert_eq!(c.get(5), None);
        assert_eq!(c.get(99), None);
    }

    #[test]
    fn chains_are_bounded_and_never_follow_a_backward_label() {
        let mut code: Vec<Instr> = (0..40).map(|i| succ(i, i + 1)).collect();
        code.push(Instr::Finish {
            status: Status::Success,
        });
        let c = Chains::of(&code);
        let (bits, end) = c.get(0).unwrap();
        assert_eq!(bits.len(), MAX_CHAIN);
        assert_eq!(end, MAX_CHAIN);
        // A (hand-made) backward label ends the chain at the jump.
        let code = vec![succ(0, 1), succ(1, 0)];
        let c = Chains::of(&code);
        assert_eq!(c.get(0), Some((&[0, 1][..], 0)));
    }
}
