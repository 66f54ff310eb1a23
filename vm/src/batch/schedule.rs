//! Scheduling a batch's agents: sleeping until a time or an event, and tick intervals (level
//! of detail: a distant agent ticks every k-th tick).
//!
//! A left-out agent makes no host call at all (not even [`Host::before_tick`]), keeps its state
//! and its last status. An agent that wakes is ticked with the tick's `now`, as if it had been
//! ticked all along: its tree sees time jump from its last tick to this one (a wait node that
//! ran out meanwhile finishes on this tick).
//!
//! Cost: the schedule is kept per slot only once an agent was scheduled, and the batch counts
//! the scheduled agents; while the count is zero a tick runs the plain loop over every agent
//! with no per-agent test. Otherwise each tick walks the schedule and ticks each run of
//! consecutive awake agents through the same batch loop (`Code::run_many`). Nothing here
//! allocates during a tick or calls the host itself.

use super::Batch;
use crate::engine::Code;
use crate::exec::Scratch;
use crate::{AgentId, Host, Millis, Program, Status, VmError};

/// `Entry::until` of an awake agent.
const AWAKE: Millis = Millis::MIN;
/// `Entry::until` of an agent sleeping until an event or [`Batch::wake`].
const EVENT: Millis = Millis::MAX;

/// One agent's schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// Asleep while `now < until` ([`AWAKE`], a time, or [`EVENT`]).
    until: Millis,
    /// Ticks when the tick's turn is `phase` modulo `every` (every tick when `every <= 1`).
    every: u32,
    /// See `every`.
    phase: u32,
}

impl Entry {
    const DEFAULT: Entry = Entry {
        until: AWAKE,
        every: 1,
        phase: 0,
    };

    /// Whether the entry leaves its agent out of some tick.
    #[inline]
    fn scheduled(&self) -> bool {
        self.until != AWAKE || self.every > 1
    }

    /// Whether the agent ticks on this turn at `now`; wakes an agent whose time came.
    #[inline]
    fn due(&mut self, turn: u64, now: Millis) -> bool {
        if self.until != AWAKE {
            if self.until == EVENT || now < self.until {
                return false;
            }
            self.until = AWAKE;
        }
        self.every <= 1 || turn % u64::from(self.every) == u64::from(self.phase)
    }
}

/// The batch's schedule: one entry per slot once anyone was scheduled.
#[derive(Clone, Debug, Default)]
pub(super) struct Schedule {
    /// Empty until an agent is first scheduled; then one entry per slot.
    entries: Vec<Entry>,
    /// How many entries are scheduled (an upper bound between ticks: a time sleeper that woke
    /// is counted until the next tick sees it).
    scheduled: usize,
    /// How many ticks the batch has had (the turn of interval phases).
    turn: u64,
}

impl Schedule {
    /// The turn of the tick starting now (and counts it).
    pub(super) fn next_turn(&mut self) -> u64 {
        let t = self.turn;
        self.turn = self.turn.wrapping_add(1);
        t
    }

    /// Whether every agent ticks on every tick.
    #[inline]
    pub(super) fn is_idle(&self) -> bool {
        self.scheduled == 0
    }

    /// The entries, one per slot (only when not idle).
    pub(super) fn entries_mut(&mut self) -> &mut [Entry] {
        &mut self.entries
    }

    /// Records how many entries are still scheduled after a tick.
    pub(super) fn set_scheduled(&mut self, n: usize) {
        self.scheduled = n;
    }

    /// A slot was added at the end.
    pub(super) fn push(&mut self) {
        if !self.entries.is_empty() {
            self.entries.push(Entry::DEFAULT);
        }
    }

    /// The slot was removed, the last moved into it.
    pub(super) fn swap_remove(&mut self, slot: usize) {
        if slot < self.entries.len() && self.entries.swap_remove(slot).scheduled() {
            self.scheduled -= 1;
        }
    }

    /// The slots were put in the order `order`.
    pub(super) fn permute(&mut self, order: &[usize]) {
        if !self.entries.is_empty() {
            self.entries = order.iter().map(|&s| self.entries[s]).collect();
        }
    }

    /// An event was delivered to the agent in `slot`: wakes it if it sleeps until one.
    pub(super) fn woken_by_event(&mut self, slot: usize) {
        if let Some(e) = self.entries.get_mut(slot) {
            if e.until == EVENT {
                self.update(slot, |e| e.until = AWAKE);
            }
        }
    }

    /// Changes the entry of `slot`, keeping the count of scheduled entries.
    fn update(&mut self, slot: usize, f: impl FnOnce(&mut Entry)) {
        let Some(e) = self.entries.get_mut(slot) else {
            return;
        };
        let was = e.scheduled();
        f(e);
        match (was, e.scheduled()) {
            (false, true) => self.scheduled += 1,
            (true, false) => self.scheduled -= 1,
            _ => {}
        }
    }

    /// Makes sure there is an entry per slot (`slots` slots); allocates the first time.
    fn ensure(&mut self, slots: usize) -> Result<(), VmError> {
        if self.entries.len() < slots {
            let more = slots - self.entries.len();
            self.entries
                .try_reserve_exact(more)
                .map_err(|_| VmError::OutOfMemory {
                    agents: u32::try_from(slots).unwrap_or(u32::MAX),
                })?;
            self.entries.resize(slots, Entry::DEFAULT);
        }
        Ok(())
    }
}

/// What one tick (or one shard of it) needs besides its agents.
pub(super) struct Run<'a> {
    pub(super) program: &'a Program,
    pub(super) code: &'a Code,
    pub(super) main: u32,
    pub(super) turn: u64,
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
            ..
        } = *self;
        code.run_many(program, scratch, main, states, ids, statuses, host, now);
    }

    /// Ticks the agents whose entries say they are due, run by run; returns how many entries
    /// are still scheduled.
    pub(super) fn awake<H: Host + ?Sized>(
        &self,
        scratch: &mut Scratch,
        states: &mut [u8],
        ids: &[AgentId],
        statuses: &mut [Status],
        entries: &mut [Entry],
        host: &mut H,
    ) -> usize {
        let size = self.program.state_size();
        let n = statuses.len().min(entries.len()).min(ids.len());
        let (mut left, mut i) = (0, 0);
        while i < n {
            let start = i;
            while i < n && entries[i].due(self.turn, self.now) {
                left += usize::from(entries[i].scheduled());
                i += 1;
            }
            if start < i {
                let states = &mut states[start * size..i * size];
                let (ids, statuses) = (&ids[start..i], &mut statuses[start..i]);
                self.all(scratch, states, ids, statuses, host);
            }
            // The agent that ended the run (if any) is left out.
            if i < n {
                left += usize::from(entries[i].scheduled());
                i += 1;
            }
        }
        left
    }
}

impl Batch {
    /// Agent `id` sleeps until time `until`: every tick with `now < until` leaves it out (no
    /// host call, state and last status kept); the first tick at or after `until` ticks it
    /// with that tick's `now`. [`Batch::wake`] ends the sleep early; events do not. Replaces
    /// an earlier sleep. An agent not alive is [`VmError::NoAgent`]. Allocates the batch's
    /// schedule (one entry per agent) the first time any agent is scheduled.
    pub fn sleep_until(&mut self, id: AgentId, until: Millis) -> Result<(), VmError> {
        let until = until.clamp(AWAKE + 1, EVENT - 1);
        self.schedule_slot(id, |e| e.until = until)
    }

    /// Agent `id` sleeps until an event is delivered to it ([`Batch::event`],
    /// [`Batch::event_by_id`]) or [`Batch::wake`] is called; then the next tick ticks it.
    /// Replaces an earlier sleep. An agent not alive is [`VmError::NoAgent`].
    pub fn sleep_until_event(&mut self, id: AgentId) -> Result<(), VmError> {
        self.schedule_slot(id, |e| e.until = EVENT)
    }

    /// Wakes agent `id` from either sleep: the next tick ticks it (if its interval lets it).
    /// An agent not alive is [`VmError::NoAgent`].
    pub fn wake(&mut self, id: AgentId) -> Result<(), VmError> {
        let slot = self.slot(id)?;
        self.schedule.update(slot, |e| e.until = AWAKE);
        Ok(())
    }

    /// Whether agent `id` is asleep (until a time that has not been reached by a tick, or
    /// until an event); `false` for an agent not alive.
    pub fn is_asleep(&self, id: AgentId) -> bool {
        let slot = self.slots.slot(id);
        slot.and_then(|s| self.schedule.entries.get(s))
            .is_some_and(|e| e.until != AWAKE)
    }

    /// Agent `id` ticks on every `every`-th tick of the batch only (level of detail), with
    /// phase `id % every`, so agents given the same interval spread over the ticks: tick
    /// number `t` (counting every [`Batch::tick`] and [`Batch::par_tick`] from 0) ticks it when
    /// `t % every == id % every`. `every` 0 or 1 is every tick. An agent not alive is
    /// [`VmError::NoAgent`].
    pub fn set_interval(&mut self, id: AgentId, every: u32) -> Result<(), VmError> {
        let every = every.max(1);
        self.schedule_slot(id, |e| {
            e.every = every;
            e.phase = id.0 % every;
        })
    }

    /// Changes agent `id`'s schedule entry.
    fn schedule_slot(&mut self, id: AgentId, f: impl FnOnce(&mut Entry)) -> Result<(), VmError> {
        let slot = self.slot(id)?;
        self.schedule.ensure(self.statuses.len())?;
        self.schedule.update(slot, f);
        Ok(())
    }
}
