//! Many agents of one program: their state blocks stored contiguously, ticked in one call.
//!
//! **Ids and slots.** Every agent has a stable [`AgentId`] (what the host sees in every
//! [`Call`](crate::Call)) and a *slot*, its place in the batch's storage: slot `s` owns bytes
//! `s * size .. (s + 1) * size` of one buffer, so a tick walks memory linearly. [`Batch::new`]
//! gives ids `0..n` in slots `0..n`; [`Batch::spawn`] adds an agent at the end;
//! [`Batch::despawn`] moves the last agent into the freed slot (module `agents`), so ids and slots
//! part ways once an agent is despawned. Every method that names an agent takes its id and
//! answers [`VmError::NoAgent`] for an id that is not alive.
//!
//! **Order.** [`Batch::tick`] ticks the agents in slot order ([`Batch::ids`]). Agents share no
//! state except the lifecycle (MBT) model's group scopes, shared by the agents of one AI group
//! ([`Batch::set_group`]), whose outcome depends on the order in which a group's agents tick:
//! it is exactly that of ticking the agents one by one in slot order. [`Batch::par_tick`]
//! (`par`) gives exactly the result of `tick`. Scheduling (`schedule`: sleeping agents, tick
//! intervals) only leaves agents out of a tick.
//!
//! This module never calls the host outside a tick, an event, a restart or a despawn, and
//! [`Batch::tick`] never allocates.

mod agents;
#[cfg(feature = "rayon")]
mod par;
mod reload;
mod run;
mod schedule;
#[cfg(feature = "rayon")]
mod shard;
mod snapshot;

use crate::engine::{Code, Fallback};
use crate::exec::Scratch;
use crate::{AgentId, EngineKind, Host, Millis, Program, Status, VmError};
use agents::Slots;
#[cfg(feature = "rayon")]
pub use par::{ParTick, Shard};
use schedule::Schedule;
#[cfg(feature = "rayon")]
pub use shard::ShardTick;

/// The state of the agents running one program.
#[derive(Clone, Debug)]
pub struct Batch {
    program: Program,
    code: Code,
    fallback: Option<Fallback>,
    main: u32,
    size: usize,
    /// Slot `s`'s state block is `states[s * size..(s + 1) * size]`.
    states: Vec<u8>,
    /// Slot `s`'s status after its last tick.
    statuses: Vec<Status>,
    /// Which agent is in which slot.
    slots: Slots,
    /// Sleeping agents and tick intervals.
    schedule: Schedule,
    scratch: Vec<Scratch>,
}

impl Batch {
    /// `agents` fresh agents (ids `0..agents`) for `program`, ticked by the vm; fails if it has
    /// no main entry.
    pub fn new(program: &Program, agents: u32) -> Result<Self, VmError> {
        Batch::with_engine(program, agents, EngineKind::Vm)
    }

    /// `agents` fresh agents (ids `0..agents`) ticked by the engine of `kind`. Native code that
    /// cannot be produced falls back to the vm, as [`Engine`](crate::Engine) does
    /// ([`Batch::engine`], [`Batch::fallback`]). Fails with [`VmError::OutOfMemory`] when the
    /// agents' memory cannot be allocated.
    pub fn with_engine(program: &Program, agents: u32, kind: EngineKind) -> Result<Self, VmError> {
        let mut batch = Batch::empty(program, kind)?;
        let n = agents as usize;
        // Every agent's memory is asked for up front and may be refused (an error, not an
        // abort): a batch's size is often chosen by whoever configures the game.
        let too_big = || VmError::OutOfMemory { agents };
        let bytes = n.checked_mul(program.state_size()).ok_or_else(too_big)?;
        batch
            .states
            .try_reserve_exact(bytes)
            .map_err(|_| too_big())?;
        batch.states.resize(bytes, 0);
        batch.statuses.try_reserve_exact(n).map_err(|_| too_big())?;
        batch.statuses.resize(n, Status::Failure);
        batch.slots = Slots::dense(agents).ok_or_else(too_big)?;
        Ok(batch)
    }

    /// A batch of no agents.
    fn empty(program: &Program, kind: EngineKind) -> Result<Self, VmError> {
        let (code, fallback) = Code::select(program, kind);
        let main = program
            .main()
            .ok_or_else(|| VmError::NoEntry(String::new()))?;
        Ok(Batch {
            program: program.clone(),
            code,
            fallback,
            main,
            size: program.state_size(),
            states: Vec::new(),
            statuses: Vec::new(),
            slots: Slots::default(),
            schedule: Schedule::default(),
            scratch: vec![Scratch::new(program)],
        })
    }

    /// The program the agents run (shared: a [`Program`] is a cheap clone).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The engine ticking the agents.
    pub fn engine(&self) -> EngineKind {
        self.code.kind()
    }

    /// Why native code was asked for but the vm runs instead.
    pub fn fallback(&self) -> Option<&Fallback> {
        self.fallback.as_ref()
    }

    /// Number of live agents.
    pub fn len(&self) -> usize {
        self.statuses.len()
    }

    /// Whether the batch has no agents.
    pub fn is_empty(&self) -> bool {
        self.statuses.is_empty()
    }

    /// The live agents' ids in slot order: the order [`Batch::tick`] ticks them in, and the
    /// order of [`Batch::statuses`].
    pub fn ids(&self) -> &[AgentId] {
        self.slots.ids()
    }

    /// Whether agent `id` is alive.
    pub fn contains(&self, id: AgentId) -> bool {
        self.slots.slot(id).is_some()
    }

    /// Every live agent as (id, status after its last tick, state block), in slot order: the
    /// records a snapshot saves (see [`Batch::from_records`]).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (AgentId, Status, &[u8])> + '_ {
        let size = self.size;
        self.slots
            .ids()
            .iter()
            .zip(&self.statuses)
            .enumerate()
            .map(move |(s, (&id, &status))| (id, status, &self.states[s * size..(s + 1) * size]))
    }

    /// The slot of a live agent.
    fn slot(&self, id: AgentId) -> Result<usize, VmError> {
        self.slots.slot(id).ok_or(VmError::NoAgent(id.0 as usize))
    }

    /// The state block of agent `id` (`None` if it is not alive).
    pub fn state(&self, id: AgentId) -> Option<&[u8]> {
        let s = self.slots.slot(id)?;
        self.states.get(s * self.size..(s + 1) * self.size)
    }

    /// The state block of agent `id`, mutably (to restore a snapshot; `None` if it is not
    /// alive).
    pub fn state_mut(&mut self, id: AgentId) -> Option<&mut [u8]> {
        let s = self.slots.slot(id)?;
        self.states.get_mut(s * self.size..(s + 1) * self.size)
    }

    /// Agent `id`'s status after its last tick (`Failure` before its first; `None` if it is
    /// not alive).
    pub fn status(&self, id: AgentId) -> Option<Status> {
        self.slots
            .slot(id)
            .and_then(|s| self.statuses.get(s).copied())
    }

    /// Every live agent's status after its last tick, in slot order ([`Batch::ids`]).
    pub fn statuses(&self) -> &[Status] {
        &self.statuses
    }

    /// Ticks every awake agent once, in slot order ([`Batch::ids`]), with one host, and returns
    /// every agent's status in slot order. A sleeping agent, or one whose tick interval skips
    /// this tick ([`Batch::sleep_until`], [`Batch::set_interval`]), is left out: no host call,
    /// not even [`Host::before_tick`], and it keeps its state and last status. Never allocates.
    pub fn tick<H: Host + ?Sized>(&mut self, host: &mut H, now: Millis) -> &[Status] {
        let turn = self.schedule.next_turn();
        let Batch {
            program,
            code,
            main,
            states,
            statuses,
            slots,
            schedule,
            scratch,
            ..
        } = self;
        let run = run::Run {
            program,
            code,
            main: *main,
            now,
        };
        if schedule.is_idle() {
            // Nobody sleeps and nobody skips: the plain loop, with no per-agent test.
            run.all(&mut scratch[0], states, slots.ids(), statuses, host);
        } else {
            schedule.wake_due(now);
            let due = schedule.due(turn);
            run.awake(&mut scratch[0], states, slots.ids(), statuses, &due, host);
        }
        &self.statuses
    }

    /// Delivers event `event` to agent `id` between ticks, at time `now`, exactly as
    /// [`Engine::event`](crate::Engine::event) does for one agent: on the batch's engine, with
    /// the group-scope counters the batch's agents share. A name the program never uses, an
    /// event to a stopped tree and any event in a program of another model do nothing
    /// (`Ok`). An agent that sleeps until an event ([`Batch::sleep_until_event`]) is woken by
    /// any event delivered to it. An `id` not alive is [`VmError::NoAgent`], whatever the
    /// event. Never allocates.
    ///
    /// Deliver events on the calling thread between ticks ([`Batch::tick`] or
    /// [`Batch::par_tick`] borrow the batch mutably, so they cannot overlap).
    pub fn event<H: Host + ?Sized>(
        &mut self,
        id: AgentId,
        host: &mut H,
        event: &str,
        now: Millis,
    ) -> Result<(), VmError> {
        let slot = self.slot(id)?;
        self.schedule.woken_by_event(slot);
        match crate::model::lifecycle::event_function(&self.program, event) {
            Some(func) => self.run_event(slot, host, func, now),
            None => Ok(()),
        }
    }

    /// Delivers an event resolved once with [`Program::event_id`](crate::Program::event_id)
    /// to agent `id`, exactly as [`Batch::event`] delivers it by name (and wakes the agent
    /// likewise), without comparing strings. An event id from another program is
    /// [`VmError::ForeignEvent`]; an agent not alive is [`VmError::NoAgent`]. Never allocates.
    pub fn event_by_id<H: Host + ?Sized>(
        &mut self,
        id: AgentId,
        host: &mut H,
        event: crate::EventId,
        now: Millis,
    ) -> Result<(), VmError> {
        let slot = self.slot(id)?;
        let func = crate::model::lifecycle::event_id_function(&self.program, event)?;
        self.schedule.woken_by_event(slot);
        self.run_event(slot, host, func, now)
    }

    /// Runs event (or restart) function `func` for the agent in `slot`.
    fn run_event<H: Host + ?Sized>(
        &mut self,
        slot: usize,
        host: &mut H,
        func: u32,
        now: Millis,
    ) -> Result<(), VmError> {
        let size = self.size;
        let id = self.slots.ids().get(slot).copied();
        let (Some(state), Some(id)) = (self.states.get_mut(slot * size..(slot + 1) * size), id)
        else {
            return Err(VmError::NoAgent(slot));
        };
        self.code.run(
            &self.program,
            &mut self.scratch[0],
            func,
            state,
            id,
            host,
            now,
        );
        Ok(())
    }

    /// Resets agent `id` (see [`Engine::reset_agent`](crate::Engine::reset_agent)): the group
    /// scopes it is a member of are left and its state becomes fresh; it stays in its AI group
    /// and keeps its schedule. An agent not alive is [`VmError::NoAgent`].
    pub fn reset_agent(&mut self, id: AgentId) -> Result<(), VmError> {
        let slot = self.slot(id)?;
        self.reset_slot(slot);
        Ok(())
    }

    /// Resets the agent in `slot`.
    fn reset_slot(&mut self, slot: usize) {
        let size = self.size;
        if let Some(state) = self.states.get_mut(slot * size..(slot + 1) * size) {
            crate::model::lifecycle::leave_scopes(&self.program, &mut self.scratch[0].life, state);
            self.program.reset(state);
        }
    }

    /// Restarts agent `id`'s tree as its game does, at time `now` (see
    /// [`Engine::restart_agent`](crate::Engine::restart_agent)): in the lifecycle (MBT) model
    /// the live tree is terminated with its host calls, innermost first, then the agent is
    /// reset as [`Batch::reset_agent`] does; in other models this is [`Batch::reset_agent`].
    /// An agent not alive is [`VmError::NoAgent`]. Never allocates.
    pub fn restart_agent<H: Host + ?Sized>(
        &mut self,
        id: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        self.restart_slot(id, host, now).map(|_| ())
    }

    /// Restarts agent `id`'s tree (its dialect's stop calls, then a reset); returns its slot.
    fn restart_slot<H: Host + ?Sized>(
        &mut self,
        id: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<usize, VmError> {
        let slot = self.slot(id)?;
        self.stop_slot(slot, host, now)?;
        self.reset_slot(slot);
        Ok(slot)
    }

    /// What the dialect does when the tree of the agent in `slot` is stopped: the lifecycle
    /// model's terminate calls; nothing in other models.
    fn stop_slot<H: Host + ?Sized>(
        &mut self,
        slot: usize,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        match crate::model::lifecycle::restart_function(&self.program) {
            Some(func) => self.run_event(slot, host, func, now),
            None => Ok(()),
        }
    }

    /// Puts agent `id` in AI group `group` (see [`Engine::set_group`](crate::Engine::set_group):
    /// agents compete for a group scope only with agents of their own group; every agent
    /// starts in group 0; a change first leaves the scopes the agent is a member of). An agent
    /// not alive is [`VmError::NoAgent`]. See [`Batch::sort_by_group`] for parallel ticking.
    pub fn set_group(&mut self, id: AgentId, group: u32) -> Result<(), VmError> {
        let slot = self.slot(id)?;
        let size = self.size;
        let state = &mut self.states[slot * size..(slot + 1) * size];
        crate::model::lifecycle::set_group(&self.program, &mut self.scratch[0].life, state, group);
        Ok(())
    }

    /// Agent `id`'s AI group (0 for an agent not alive and in programs without group scopes).
    pub fn group(&self, id: AgentId) -> u32 {
        self.state(id).map_or(0, |s| self.program.group(s))
    }

    /// How many agents of AI group `group` are members of group scope `scope` now (see
    /// [`Engine::scope_users`](crate::Engine::scope_users)).
    pub fn scope_users(&self, group: u32, scope: &str) -> u32 {
        self.program
            .scope_slot(scope)
            .map_or(0, |id| self.scratch[0].life.scope_users(group, id))
    }
}
