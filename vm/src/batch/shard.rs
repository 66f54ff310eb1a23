//! [`ShardTick`]: one shard of a [`Batch::par_tick_with`](super::Batch::par_tick_with) on the
//! worker thread that ticks it, for the per-agent work a server does around a tick (events,
//! inputs, reading the statuses, restarting finished trees) in parallel instead of on the
//! calling thread.
//!
//! A shard can touch only its own agents (by their place in the shard), with its own host and
//! scratch (holding its AI groups' scope tables), so shards never share anything. It ticks its
//! agents once, exactly as [`Batch::tick`](super::Batch::tick) would. It never allocates.

use super::run::Run;
use super::schedule::{self, Due, Entry};
use crate::exec::Scratch;
use crate::model::lifecycle;
use crate::{AgentId, EventId, Host, Millis, Program, Status, VmError};

/// One shard of a parallel tick, handed to the `work` of
/// [`Batch::par_tick_with`](super::Batch::par_tick_with) on the thread that ticks it: its
/// agents (consecutive slots, addressed by their place `k` in the shard, `0..len()`), its
/// host, and its tick ([`ShardTick::tick`]).
pub struct ShardTick<'b, H> {
    pub(super) index: usize,
    pub(super) ids: &'b [AgentId],
    pub(super) states: &'b mut [u8],
    pub(super) statuses: &'b mut [Status],
    /// The shard's schedule entries and awake bytes, when some agent of the batch is scheduled.
    pub(super) schedule: Option<(&'b mut [Entry], &'b mut [u8])>,
    pub(super) intervals: bool,
    pub(super) turn: u64,
    pub(super) scratch: &'b mut Scratch,
    pub(super) host: &'b mut H,
    pub(super) run: Run<'b>,
    /// Whether the program uses group scopes (a reset leaves them).
    pub(super) scopes: bool,
    pub(super) ticked: bool,
    /// Entries that events took off the schedule.
    pub(super) unscheduled: usize,
}

impl<'b, H: Host> ShardTick<'b, H> {
    /// The shard's place among the tick's shards (0, 1, ...), in slot order.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The ids of the shard's agents, in the order they tick: agent `k` of the shard is
    /// `ids()[k]`.
    pub fn ids(&self) -> &'b [AgentId] {
        self.ids
    }

    /// The number of agents in the shard.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the shard has no agents (never, for a shard of a tick).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The program the agents run.
    pub fn program(&self) -> &Program {
        self.run.program
    }

    /// The tick's time.
    pub fn now(&self) -> Millis {
        self.run.now
    }

    /// The shard's host.
    pub fn host(&mut self) -> &mut H {
        self.host
    }

    /// The shard's agents' statuses, in shard order: after [`ShardTick::tick`] this tick's
    /// (a left-out agent keeps its last), before it the last tick's.
    pub fn statuses(&self) -> &[Status] {
        self.statuses
    }

    /// Whether [`ShardTick::tick`] has run.
    pub fn ticked(&self) -> bool {
        self.ticked
    }

    /// The state block of the shard's agent `k`.
    pub fn state(&self, k: usize) -> Option<&[u8]> {
        let size = self.run.program.state_size();
        self.states.get(k * size..(k + 1) * size)
    }

    /// The state block of the shard's agent `k`, mutably (to set inputs: decision flags,
    /// stimuli, variables).
    pub fn state_mut(&mut self, k: usize) -> Option<&mut [u8]> {
        let size = self.run.program.state_size();
        self.states.get_mut(k * size..(k + 1) * size)
    }

    /// Ticks the shard's awake agents once, exactly as [`Batch::tick`](super::Batch::tick)
    /// ticks them, and returns the shard's statuses. Later calls do nothing more; if `work`
    /// never calls it, the shard is ticked after `work` returns.
    pub fn tick(&mut self) -> &[Status] {
        if !self.ticked {
            self.ticked = true;
            let (scratch, states, ids) = (&mut *self.scratch, &mut *self.states, self.ids);
            match &self.schedule {
                None => self.run.all(scratch, states, ids, self.statuses, self.host),
                Some((entries, awake)) => {
                    let due = Due {
                        awake,
                        entries,
                        intervals: self.intervals,
                        turn: self.turn,
                    };
                    self.run
                        .awake(scratch, states, ids, self.statuses, &due, self.host);
                }
            }
        }
        self.statuses
    }

    /// Delivers event `event` to the shard's agent `k` at time `now` with the shard's host,
    /// exactly as [`Batch::event_by_id`](super::Batch::event_by_id) does (waking an agent
    /// that sleeps until an event: before the shard's tick, that tick ticks it). An event id
    /// of another program is [`VmError::ForeignEvent`]; `k` out of the shard is
    /// [`VmError::NoAgent`] (with `k`).
    pub fn event_by_id(&mut self, k: usize, event: EventId, now: Millis) -> Result<(), VmError> {
        let func = lifecycle::event_id_function(self.run.program, event)?;
        self.run_function(k, func, now, true)
    }

    /// Resets the shard's agent `k` as [`Batch::reset_agent`](super::Batch::reset_agent)
    /// does (it leaves its group scopes, its state becomes fresh). `k` out of the shard is
    /// [`VmError::NoAgent`].
    pub fn reset(&mut self, k: usize) -> Result<(), VmError> {
        let program = self.run.program;
        let scopes = self.scopes;
        let life = &mut self.scratch.life;
        let size = program.state_size();
        let state = self
            .states
            .get_mut(k * size..(k + 1) * size)
            .ok_or(VmError::NoAgent(k))?;
        if scopes {
            lifecycle::leave_scopes(program, life, state);
        }
        program.reset(state);
        Ok(())
    }

    /// Restarts the shard's agent `k`'s tree at time `now` as
    /// [`Batch::restart_agent`](super::Batch::restart_agent) does (the lifecycle model's
    /// terminate calls with the shard's host, then [`ShardTick::reset`]).
    pub fn restart(&mut self, k: usize, now: Millis) -> Result<(), VmError> {
        if let Some(func) = lifecycle::restart_function(self.run.program) {
            self.run_function(k, func, now, false)?;
        }
        self.reset(k)
    }

    /// Runs event or restart function `func` for agent `k`; an event (`wake`) wakes it if it
    /// sleeps until one.
    fn run_function(
        &mut self,
        k: usize,
        func: u32,
        now: Millis,
        wake: bool,
    ) -> Result<(), VmError> {
        let size = self.run.program.state_size();
        let (Some(state), Some(&id)) = (
            self.states.get_mut(k * size..(k + 1) * size),
            self.ids.get(k),
        ) else {
            return Err(VmError::NoAgent(k));
        };
        if let (true, Some((entries, awake))) = (wake, &mut self.schedule) {
            if let (Some(e), Some(a)) = (entries.get_mut(k), awake.get_mut(k)) {
                self.unscheduled += usize::from(schedule::wake_by_event(e, a));
            }
        }
        let run = &self.run;
        run.code
            .run(run.program, self.scratch, func, state, id, self.host, now);
        Ok(())
    }

    /// Runs `work` on the shard, then ticks it if `work` did not; returns how many agents
    /// events took off the schedule.
    pub(super) fn go<W: Fn(&mut ShardTick<'b, H>)>(&mut self, work: &W) -> usize {
        work(self);
        self.tick();
        self.unscheduled
    }
}
