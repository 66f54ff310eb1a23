//! A whole batch saved and restored in btvm's snapshot format ([`Snapshot`]): every agent's id,
//! last status and state block, in slot order.
//!
//! What a batch holds besides its agents is rebuilt, not saved: the lifecycle model's
//! group-scope counters come from the agents' states (each records the scopes it is a member
//! of and its AI group), exactly as [`Engine::restore_agent`](crate::Engine::restore_agent)
//! counts one agent. The schedule (sleeping agents, intervals) is the server's policy and is
//! not part of a snapshot: a restored batch has every agent awake, ticked every tick.
//!
//! This module reads no bytes ([`Snapshot::decode`] does, with every check); it only moves
//! checked records into a batch and checks again what a hand-built [`Snapshot`] could break.

use super::Batch;
use crate::{EngineKind, Program, Snapshot, SnapshotError, VmError};

impl Batch {
    /// Every agent's id, last status and state block, in slot order (the order they tick), as
    /// a [`Snapshot`] of the batch's program; [`Snapshot::encode`] makes the bytes.
    pub fn snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::new(&self.program);
        snapshot.agents.reserve_exact(self.len());
        for (id, status, state) in self.iter() {
            snapshot.push(id, status, state);
        }
        snapshot
    }

    /// A batch of `program`'s agents as `snapshot` saved them (ids, statuses, states, slot
    /// order), ticked by the engine of `kind`. The snapshot must be of this program (its
    /// fingerprint) and every state block must be one the program's model accepts
    /// ([`Program::check_state`]); both are checked again here, since a [`Snapshot`] may be
    /// built by hand. MBT agents are counted in the group scopes their states say they hold;
    /// every agent is awake and ticks every tick. Errors: [`VmError::Snapshot`] for a snapshot
    /// that does not fit, and [`Batch::from_records`]'s errors (a duplicate id, a block of the
    /// wrong size, memory).
    pub fn from_snapshot(
        program: &Program,
        kind: EngineKind,
        snapshot: &Snapshot,
    ) -> Result<Batch, VmError> {
        if snapshot.fingerprint != program.fingerprint() {
            return Err(VmError::Snapshot(SnapshotError::OtherProgram {
                snapshot: snapshot.fingerprint,
                program: program.fingerprint(),
            }));
        }
        for agent in &snapshot.agents {
            if agent.state.len() == program.state_size() {
                program
                    .check_state(&agent.state)
                    .map_err(VmError::Snapshot)?;
            }
        }
        let records = snapshot
            .agents
            .iter()
            .map(|a| (a.id, a.status, &a.state[..]));
        let mut batch = Batch::from_records(program, kind, records)?;
        if program.uses_scopes() {
            let Batch {
                program,
                states,
                size,
                scratch,
                ..
            } = &mut batch;
            for state in states.chunks(*size) {
                crate::model::lifecycle::enter_scopes(program, &mut scratch[0].life, state);
            }
        }
        Ok(batch)
    }
}
