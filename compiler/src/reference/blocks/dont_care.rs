//! The bits of a state block that no engine reads before writing them again, so that two
//! blocks differing only there hold the same agent (`spec/bytecode.md` §9, "Don't-care
//! bits"): the reference cannot reproduce them, and its exported blocks hold zeroes there.
//!
//! This module only describes bits; it never reads outside the block it is given and never
//! panics.

use btvm::program::{ProgramModel, FLAG_CHANGED_BEFORE, FLAG_ROOT_ACTIVE, STIMULUS_RECORD};
use btvm::Program;

/// A mask over `block` (a state block of `program`): the bits set in it are don't-care.
///
/// - lifecycle and selection: [`FLAG_CHANGED_BEFORE`] (written by every tick before it is
///   read);
/// - decider: the root's `since` while [`FLAG_ROOT_ACTIVE`] is clear; each stimulus record
///   whose present bit is clear.
pub fn dont_care(program: &Program, block: &[u8]) -> Vec<u8> {
    let mut mask = vec![0u8; block.len()];
    let l = program.layout();
    let flags = block.get(l.flags.offset as usize).copied().unwrap_or(0);
    match program.model() {
        ProgramModel::Lifecycle | ProgramModel::Selection { .. } => {
            set(
                &mut mask,
                l.flags.offset * 8 + FLAG_CHANGED_BEFORE.trailing_zeros(),
                1,
            );
        }
        ProgramModel::Decider { .. } => {
            if flags & FLAG_ROOT_ACTIVE == 0 {
                set(&mut mask, (l.decider + 12) * 8, 64);
            }
            let present = (0..32).filter(|&k| get(block, (l.decider + 4) * 8 + k));
            let absent: Vec<u32> = (0..32u32)
                .filter(|k| !present.clone().any(|p| p == *k))
                .collect();
            for k in absent.into_iter().take(program.parts().stimuli as usize) {
                set(&mut mask, (l.stimuli + STIMULUS_RECORD * k) * 8, 128);
            }
        }
        _ => {}
    }
    mask
}

/// Bit `bit` of `block` (out of range: clear).
fn get(block: &[u8], bit: u32) -> bool {
    block
        .get((bit / 8) as usize)
        .is_some_and(|b| b >> (bit % 8) & 1 != 0)
}

/// Sets `bits` bits of `mask` from bit `bit` (out of range: nothing).
fn set(mask: &mut [u8], bit: u32, bits: u32) {
    for k in bit..bit.saturating_add(bits) {
        if let Some(b) = mask.get_mut((k / 8) as usize) {
            *b |= 1 << (k % 8);
        }
    }
}
