//! A batch's population: stable agent ids mapped to slots, [`Batch::spawn`],
//! [`Batch::despawn`], [`Batch::sort_by_group`] and [`Batch::from_records`].
//!
//! Ids are `u32`s handed out from a free list: a despawned agent's id may be given to a later
//! spawn (most recently freed first), never while its agent is alive. Slots stay contiguous:
//! despawning moves the last slot's agent into the freed slot. Nothing here runs during a
//! tick; spawning allocates only to grow the batch (amortised, as a `Vec` grows).

use super::Batch;
use crate::{AgentId, EngineKind, Host, Millis, Program, Status, VmError};

/// Marks an id that is not alive in [`Slots::slot_of`].
const DEAD: u32 = u32::MAX;

/// Which agent is in which slot, and back.
#[derive(Clone, Debug, Default)]
pub(super) struct Slots {
    /// Slot → id.
    ids: Vec<AgentId>,
    /// Id → slot, [`DEAD`] for an id not alive.
    slot_of: Vec<u32>,
    /// Ids not alive below `slot_of.len()`, the next spawn's last.
    free: Vec<u32>,
}

impl Slots {
    /// Ids `0..n` in slots `0..n` (`None` if the memory cannot be had).
    pub(super) fn dense(n: u32) -> Option<Slots> {
        let mut ids = Vec::new();
        ids.try_reserve_exact(n as usize).ok()?;
        ids.extend((0..n).map(AgentId));
        let mut slot_of = Vec::new();
        slot_of.try_reserve_exact(n as usize).ok()?;
        slot_of.extend(0..n);
        Some(Slots {
            ids,
            slot_of,
            free: Vec::new(),
        })
    }

    /// Slot → id, in slot order.
    pub(super) fn ids(&self) -> &[AgentId] {
        &self.ids
    }

    /// The slot of `id`, if it is alive.
    pub(super) fn slot(&self, id: AgentId) -> Option<usize> {
        match self.slot_of.get(id.0 as usize) {
            Some(&s) if s != DEAD => Some(s as usize),
            _ => None,
        }
    }

    /// A fresh id, placed in the next slot (`None` when every `u32` but [`DEAD`] is alive).
    fn push(&mut self) -> Option<AgentId> {
        let slot = u32::try_from(self.ids.len()).ok().filter(|&s| s != DEAD)?;
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                let id = u32::try_from(self.slot_of.len())
                    .ok()
                    .filter(|&i| i != DEAD)?;
                self.slot_of.push(DEAD);
                id
            }
        };
        self.slot_of[id as usize] = slot;
        self.ids.push(AgentId(id));
        Some(AgentId(id))
    }

    /// Removes the agent in `slot`, moving the last slot's agent into it.
    fn swap_remove(&mut self, slot: usize) {
        let id = self.ids.swap_remove(slot);
        self.slot_of[id.0 as usize] = DEAD;
        self.free.push(id.0);
        if let Some(moved) = self.ids.get(slot) {
            self.slot_of[moved.0 as usize] = slot as u32;
        }
    }

    /// Puts the slots in the order `order` (a permutation of the slots).
    fn permute(&mut self, order: &[usize]) {
        self.ids = order.iter().map(|&s| self.ids[s]).collect();
        for (s, id) in self.ids.iter().enumerate() {
            self.slot_of[id.0 as usize] = s as u32;
        }
    }
}

impl Batch {
    /// Adds a fresh agent (all-zero state, status `Failure` until its first tick, AI group 0,
    /// awake, ticked every tick) in the last slot, and returns its id: an id never used, or
    /// one freed by [`Batch::despawn`] (never the id of a live agent). Allocates only to grow
    /// the batch. Fails with [`VmError::OutOfMemory`] when the memory cannot be had or every
    /// id is taken.
    pub fn spawn(&mut self) -> Result<AgentId, VmError> {
        let agents = u32::try_from(self.statuses.len() + 1).unwrap_or(u32::MAX);
        let full = || VmError::OutOfMemory { agents };
        self.states.try_reserve(self.size).map_err(|_| full())?;
        self.statuses.try_reserve(1).map_err(|_| full())?;
        let id = self.slots.push().ok_or_else(full)?;
        self.states.resize(self.states.len() + self.size, 0);
        self.statuses.push(Status::Failure);
        self.schedule.push();
        Ok(id)
    }

    /// Stops agent `id`'s tree as its dialect does when a tree is stopped, at time `now`, then
    /// removes the agent: in the lifecycle (MBT) model the running nodes are terminated with
    /// their host calls, innermost first (as [`Batch::restart_agent`] does), and the group
    /// scopes it is a member of are left; other models make no call, as their originals make
    /// none (`spec/semantics.md` §4.6). The last slot's agent
    /// moves into the freed slot (so [`Batch::ids`] changes order; ids do not change). An
    /// agent not alive is [`VmError::NoAgent`].
    pub fn despawn<H: Host + ?Sized>(
        &mut self,
        id: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        let slot = self.restart_slot(id, host, now)?;
        let size = self.size;
        let last = self.statuses.len() - 1;
        self.states
            .copy_within(last * size..(last + 1) * size, slot * size);
        self.states.truncate(last * size);
        self.statuses.swap_remove(slot);
        self.slots.swap_remove(slot);
        self.schedule.swap_remove(slot);
        Ok(())
    }

    /// Reorders the slots so each AI group's agents are contiguous, groups in increasing id
    /// order, keeping the order of each group's agents (a stable sort). Group scopes give the
    /// same results afterwards (they depend only on the order within a group), and
    /// [`Batch::par_tick`] can then tick different groups on different threads. Call it after
    /// spawning or regrouping agents in a program with group scopes; it does nothing to ids
    /// or states. Allocates.
    pub fn sort_by_group(&mut self) {
        let group = crate::model::lifecycle::group_reader(&self.program);
        let size = self.size;
        let key = |s: &usize| group(&self.states[s * size..(s + 1) * size]);
        let mut order: Vec<usize> = (0..self.statuses.len()).collect();
        order.sort_by_key(key);
        drop(group);
        self.reorder(&order);
    }

    /// Reorders the slots so the awake agents come first and the sleeping ones after them,
    /// within each AI group (groups stay contiguous, in increasing id order), keeping the
    /// order among the awake and among the sleeping (a stable sort). A tick then walks the
    /// awake agents as one dense run instead of one by one among sleepers (level of detail:
    /// call it after putting many agents to sleep or waking them). It changes the order in
    /// which a group's agents tick, so in a program with group scopes the scopes' outcomes
    /// follow the new order. Nothing happens to ids or states. Allocates.
    pub fn sort_by_awake(&mut self) {
        self.sort_slots(false);
    }

    /// Reorders the slots so every awake agent comes before every sleeping one, each side by
    /// AI group (groups in increasing id order, a group's agents in their old order): the
    /// awake agents are one dense run even when each group has only a few of them. A group's
    /// awake agents keep their order among themselves, so while the sleepers sleep, group
    /// scopes decide exactly as in the unsorted batch. A group split between the two runs is
    /// no longer contiguous, so [`Batch::par_tick`] ticks such a batch's shards one after
    /// another (same result); for several threads, [`Batch::sort_by_awake`] keeps groups
    /// whole. Nothing happens to ids or states. Allocates.
    pub fn sort_awake_first(&mut self) {
        self.sort_slots(true);
    }

    /// The stable sort behind [`Batch::sort_by_awake`] (by group, then asleep) and
    /// [`Batch::sort_awake_first`] (by asleep, then group).
    fn sort_slots(&mut self, awake_first: bool) {
        if self.schedule.is_idle() {
            return;
        }
        let group = crate::model::lifecycle::group_reader(&self.program);
        let size = self.size;
        let key = |&s: &usize| {
            let asleep = self
                .slots
                .ids()
                .get(s)
                .is_some_and(|&id| self.is_asleep(id));
            let g = group(&self.states[s * size..(s + 1) * size]);
            match awake_first {
                true => (asleep, g, false),
                false => (false, g, asleep),
            }
        };
        let mut order: Vec<usize> = (0..self.statuses.len()).collect();
        order.sort_by_key(key);
        drop(group);
        self.reorder(&order);
    }

    /// Moves slot `order[k]` to slot `k` (states, statuses, ids, schedule).
    fn reorder(&mut self, order: &[usize]) {
        let size = self.size;
        if order.iter().enumerate().all(|(i, &s)| i == s) {
            return;
        }
        let mut states = Vec::with_capacity(self.states.len());
        for &s in order {
            states.extend_from_slice(&self.states[s * size..(s + 1) * size]);
        }
        self.states = states;
        self.statuses = order.iter().map(|&s| self.statuses[s]).collect();
        self.slots.permute(order);
        self.schedule.permute(order);
    }

    /// A batch holding the agents `records` — (id, status, state block), e.g. what
    /// [`Batch::iter`] gave — in that order of slots, ticked by the engine of `kind`. Ids
    /// below the largest that are not in `records` are free. Fails with
    /// [`VmError::StateSize`] for a block of the wrong size, [`VmError::DuplicateAgent`] for an
    /// id given twice, [`VmError::NoEntry`] for a program with no main entry. The records are
    /// taken as they are: the group-scope tables start empty and every agent is awake.
    pub fn from_records<'a>(
        program: &Program,
        kind: EngineKind,
        records: impl IntoIterator<Item = (AgentId, Status, &'a [u8])>,
    ) -> Result<Batch, VmError> {
        let mut batch = Batch::empty(program, kind)?;
        let mut slots = Slots::default();
        for (id, status, state) in records {
            if state.len() != batch.size {
                return Err(VmError::StateSize {
                    expected: batch.size,
                    found: state.len(),
                });
            }
            let i = id.0 as usize;
            if id.0 == DEAD {
                return Err(VmError::NoAgent(i));
            }
            if slots.slot_of.len() <= i {
                let more = i + 1 - slots.slot_of.len();
                let full = VmError::OutOfMemory { agents: id.0 };
                slots.slot_of.try_reserve(more).map_err(|_| full)?;
                slots.slot_of.resize(i + 1, DEAD);
            }
            if slots.slot_of[i] != DEAD {
                return Err(VmError::DuplicateAgent(id));
            }
            slots.slot_of[i] = slots.ids.len() as u32;
            slots.ids.push(id);
            batch.states.extend_from_slice(state);
            batch.statuses.push(status);
        }
        slots.free = (0..slots.slot_of.len() as u32)
            .rev()
            .filter(|&i| slots.slot_of[i as usize] == DEAD)
            .collect();
        batch.slots = slots;
        Ok(batch)
    }
}
