//! A whole batch moved to a new version of its program between ticks ([`Reload`]): every
//! agent keeps its id, slot, last status and schedule; its state is carried node by node.
//!
//! This module only orders the steps: the stop calls the old program makes for running nodes
//! that are not kept (with the old code, before anything changes), then the new states, code
//! and per-engine memory. What is carried is decided by [`Reload`] alone.

use super::Batch;
use crate::engine::Code;
use crate::exec::Scratch;
use crate::{AgentId, Carried, Host, Millis, Program, Reload, VmError};

impl Batch {
    /// Moves every agent to `new`, a new version of the batch's program, between ticks at time
    /// `now` (hot reload, [`Reload`]): nodes still in the tree keep their state and running
    /// nodes keep running; what cannot be carried starts fresh; in the lifecycle (MBT) model
    /// the running nodes that are not kept are terminated first with the old program's exit
    /// calls, through `host`, innermost first. Ids, slot order, statuses and the schedule are
    /// kept; the engine kind is kept (native code is compiled for `new` once, or the batch
    /// falls back to the vm, [`Batch::fallback`]). Returns what each agent kept and lost, in
    /// slot order. Fails (changing nothing) if `new` has no main entry or the new states
    /// cannot be allocated.
    pub fn reload<H: Host + ?Sized>(
        &mut self,
        new: &Program,
        host: &mut H,
        now: Millis,
    ) -> Result<Vec<(AgentId, Carried)>, VmError> {
        let main = new.main().ok_or_else(|| VmError::NoEntry(String::new()))?;
        let plan = Reload::new(&self.program, new);
        let (old_size, new_size) = (self.size, new.state_size());
        let n = self.len();
        let too_big = || VmError::OutOfMemory {
            agents: u32::try_from(n).unwrap_or(u32::MAX),
        };
        let mut states = Vec::new();
        states
            .try_reserve_exact(n.checked_mul(new_size).ok_or_else(too_big)?)
            .map_err(|_| too_big())?;
        states.resize(n * new_size, 0);
        let mut report = Vec::with_capacity(n);
        let restart = crate::model::lifecycle::restart_function(&self.program);
        for slot in 0..n {
            let old = self.states[slot * old_size..(slot + 1) * old_size].to_vec();
            let target = &mut states[slot * new_size..(slot + 1) * new_size];
            let mut carried = plan.carry(&old, target);
            if let (Some(masked), Some(func)) = (carried.stop.take(), restart) {
                // The stop calls run on the masked block in the agent's own slot, so the host
                // sees the agent's id; the group scopes they leave are left in the block the
                // agent's own cells are then read from.
                self.states[slot * old_size..(slot + 1) * old_size].copy_from_slice(&masked);
                self.run_event(slot, host, func, now)?;
                let after = &self.states[slot * old_size..(slot + 1) * old_size];
                plan.finish(&old, after, target);
            }
            let id = self.slots.ids()[slot];
            report.push((id, carried));
        }
        let kind = self.code.kind();
        let (code, fallback) = Code::select(new, kind);
        self.program = new.clone();
        self.code = code;
        self.fallback = fallback;
        self.main = main;
        self.size = new_size;
        self.states = states;
        self.scratch = vec![Scratch::new(new)];
        if new.uses_scopes() {
            for state in self.states.chunks(new_size.max(1)) {
                crate::model::lifecycle::enter_scopes(new, &mut self.scratch[0].life, state);
            }
        }
        Ok(report)
    }
}
