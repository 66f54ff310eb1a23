//! The reference's agent states as the state blocks of the program the same tree lowers to
//! (`spec/bytecode.md` §9): export (an [`AgentState`] to a block's bytes) and import (a block
//! to an [`AgentState`]), so the reference writes and reads btvm's snapshots and a snapshot
//! saved on any engine restores on any other.
//!
//! Where each piece of state lives is read from the program, never re-derived: its
//! [`Layout`](btvm::program::Layout) for the agent's own fields and its node table's cells
//! ([`btvm::program::Cell`]: which bits belong to which node, under which key) for every
//! node's. One file per model converts what the reference keeps differently (`running_list`,
//! `cursor`, `decider`, `stateful` for the lifecycle and selection models' shared fields,
//! `lifecycle`, `selection`); this file holds the cell lookup and the bit access they share.
//!
//! This module must never import the lowering (the caller passes the program) and never panic
//! on a block: every index read from one is checked, and a block the reference cannot hold
//! (or one [`Program::check_state`] refuses) is a [`SnapshotError`]. It never ticks and never
//! calls the host.

mod cursor;
mod decider;
mod dont_care;
mod lifecycle;
mod running_list;
mod selection;
mod stateful;

pub use dont_care::dont_care;

use std::collections::HashMap;

use btvm::program::Cell;
use btvm::program::ProgramModel;
use btvm::{AgentId, Prng, Program, SnapshotError};

use super::{AgentState, Interpreter, Scopes};
use crate::ir::Model;

/// The cells of a program's state, by owner and key.
pub(super) struct Cells<'p> {
    by_key: HashMap<(Option<u32>, &'p str), &'p Cell>,
    /// The node table's overlays (`btvm::program::Overlay`).
    pub(super) overlays: &'p [btvm::program::Overlay],
}

impl<'p> Cells<'p> {
    fn new(program: &'p Program) -> Cells<'p> {
        let by_key = program
            .nodes()
            .cells
            .iter()
            .map(|c| ((c.node, c.key.as_str()), c))
            .collect();
        Cells {
            by_key,
            overlays: &program.nodes().overlays,
        }
    }

    /// Node `node`'s cell `key` (`None`: the agent's own).
    pub(super) fn get(&self, node: Option<usize>, key: &str) -> Option<&'p Cell> {
        let node = node.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        self.by_key.get(&(node, key)).copied()
    }

    /// The agent's cell whose key starts with `prefix` and whose rest is `rest`.
    pub(super) fn agent(&self, prefix: &str, rest: &str) -> Option<&'p Cell> {
        self.get(None, &format!("{prefix}{rest}"))
    }
}

/// Reads `bits` (at most 64) bits from bit `bit` of `block`, little-endian (out of range: 0).
pub(super) fn get_bits(block: &[u8], bit: u32, bits: u32) -> u64 {
    let mut v = 0u64;
    for k in 0..bits.min(64) {
        let at = u64::from(bit) + u64::from(k);
        let byte = block.get((at / 8) as usize).copied().unwrap_or(0);
        if byte >> (at % 8) & 1 != 0 {
            v |= 1 << k;
        }
    }
    v
}

/// Writes the low `bits` (at most 64) bits of `v` at bit `bit` of `block` (out of range:
/// nothing).
pub(super) fn set_bits(block: &mut [u8], bit: u32, bits: u32, v: u64) {
    for k in 0..bits.min(64) {
        let at = u64::from(bit) + u64::from(k);
        if let Some(byte) = block.get_mut((at / 8) as usize) {
            let m = 1u8 << (at % 8);
            if v >> k & 1 != 0 {
                *byte |= m;
            } else {
                *byte &= !m;
            }
        }
    }
}

/// A cell's value (0 for a missing cell).
pub(super) fn read(block: &[u8], cell: Option<&Cell>) -> u64 {
    cell.map_or(0, |c| get_bits(block, c.bit, c.bits))
}

/// Writes a cell's value (nothing for a missing cell).
pub(super) fn write(block: &mut [u8], cell: Option<&Cell>, v: u64) {
    if let Some(c) = cell {
        set_bits(block, c.bit, c.bits, v);
    }
}

/// A signed 64-bit time at byte `at`.
pub(super) fn read_i64(block: &[u8], at: u32) -> i64 {
    get_bits(block, at.saturating_mul(8), 64) as i64
}

/// Writes a signed 64-bit time at byte `at`.
pub(super) fn write_i64(block: &mut [u8], at: u32, v: i64) {
    set_bits(block, at.saturating_mul(8), 64, v as u64);
}

/// A block the reference cannot hold.
/// The node of each probe `pick` accepts, with the ordinal `pick` reads from it (the
/// current-action slot's action ordinals, the selection model's leaf ordinals).
pub(super) fn probed(
    program: &Program,
    pick: fn(btvm::program::Probe) -> Option<u32>,
) -> impl Iterator<Item = (u32, u32)> + '_ {
    program
        .nodes()
        .probes
        .iter()
        .filter_map(move |&(node, p)| pick(p).map(|k| (node, k)))
}

pub(super) fn invalid(why: impl Into<String>) -> SnapshotError {
    SnapshotError::InvalidState(why.into())
}

/// The PRNG as the block stores it: 0 while it still is the agent's seed (the compiled
/// engines seed it on the first draw).
fn export_rng(program: &Program, state: &AgentState, block: &mut [u8]) {
    if let Some(at) = program.layout().rng {
        let s = state.rng.state();
        let stored = if s == Prng::for_agent(state.agent.0).state() {
            0
        } else {
            s
        };
        set_bits(block, at.saturating_mul(8), 64, stored);
    }
}

/// The PRNG a block holds.
fn import_rng(program: &Program, agent: AgentId, block: &[u8]) -> Prng {
    match program.layout().rng {
        Some(at) => match get_bits(block, at.saturating_mul(8), 64) {
            0 => Prng::for_agent(agent.0),
            s => Prng::from_state(s),
        },
        None => Prng::for_agent(agent.0),
    }
}

/// Whether `program` can be the lowering of the interpreter's tree: the same model and one
/// node-table entry per IR node, with cells.
fn check_program(interp: &Interpreter<'_>, program: &Program) -> Result<(), SnapshotError> {
    let tree = interp.tree;
    let same_model = matches!(
        (tree.config.model, program.model()),
        (Model::RunningList { .. }, ProgramModel::RunningList)
            | (Model::Cursor { .. }, ProgramModel::Cursor { .. })
            | (Model::Decider { .. }, ProgramModel::Decider { .. })
            | (Model::Lifecycle, ProgramModel::Lifecycle)
            | (Model::Selection, ProgramModel::Selection { .. })
    );
    let table = program.nodes();
    if !same_model
        || table.nodes.len() != tree.nodes.len()
        || (table.cells.is_empty() && program.state_size() > 0)
    {
        return Err(invalid(
            "the program is not the one this tree lowers to (another model or node table)",
        ));
    }
    Ok(())
}

impl Interpreter<'_> {
    /// `state` as a state block of `program`, the program this interpreter's tree lowers to
    /// ([`crate::lower::lower`], or [`crate::lower::lower_traced`] for a traced run): the
    /// bytes the vm and native code would hold for the same agent after the same ticks
    /// (`spec/bytecode.md` §9). `scopes` holds the agent's AI group and group-scope
    /// memberships (lifecycle model). Fails for a program of another tree.
    pub fn export_block(
        &self,
        program: &Program,
        state: &AgentState,
        scopes: &Scopes,
    ) -> Result<Vec<u8>, SnapshotError> {
        check_program(self, program)?;
        let cells = Cells::new(program);
        let mut block = program.new_state();
        match self.tree.config.model {
            Model::RunningList { .. } => {
                running_list::export(self, program, &cells, state, &mut block)
            }
            Model::Cursor { .. } => cursor::export(program, state, &mut block),
            Model::Decider { .. } => decider::export(self, program, &cells, state, &mut block),
            Model::Lifecycle => {
                stateful::export(program, state, &mut block);
                lifecycle::export(self, &cells, state, scopes, &mut block);
            }
            Model::Selection => {
                stateful::export(program, state, &mut block);
                selection::export(self, program, &cells, state, &mut block);
            }
        }
        export_rng(program, state, &mut block);
        program.check_state(&block)?;
        Ok(block)
    }

    /// Restores `block`, a state block of `program` (the program this interpreter's tree
    /// lowers to, as for [`Interpreter::export_block`]), into `state`, as
    /// [`btvm::Engine::restore_agent`] does for a compiled agent: the agent keeps its id; in
    /// the lifecycle model it first leaves the group scopes it holds in `scopes`, then takes
    /// the block's AI group and joins the scopes the block says it is a member of. A block
    /// [`Program::check_state`] refuses, or one whose indices no agent of the tree can hold,
    /// is an error, and then nothing changes.
    pub fn restore_block(
        &self,
        program: &Program,
        state: &mut AgentState,
        block: &[u8],
        scopes: &mut Scopes,
    ) -> Result<(), SnapshotError> {
        check_program(self, program)?;
        program.check_state(block)?;
        let cells = Cells::new(program);
        let mut fresh = self.new_agent(state.agent);
        match self.tree.config.model {
            Model::RunningList { .. } => {
                running_list::import(self, program, &cells, block, &mut fresh)?
            }
            Model::Cursor { .. } => cursor::import(program, block, &mut fresh),
            Model::Decider { .. } => decider::import(self, program, &cells, block, &mut fresh)?,
            Model::Lifecycle => {
                stateful::import(program, block, &mut fresh)?;
                lifecycle::import(self, &cells, block, &mut fresh)?;
            }
            Model::Selection => {
                stateful::import(program, block, &mut fresh)?;
                selection::import(self, program, &cells, block, &mut fresh)?;
            }
        }
        fresh.rng = import_rng(program, state.agent, block);
        if self.tree.config.model == Model::Lifecycle {
            super::lifecycle::release(self.tree, state, scopes);
            lifecycle::join_scopes(self, &cells, block, state.agent, scopes);
        }
        *state = fresh;
        Ok(())
    }
}
