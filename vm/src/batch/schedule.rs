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
//! with no per-agent test. Otherwise a tick scans one *awake byte* per slot, eight slots per
//! word (a sleeping agent's entry, state and status are not touched), and ticks each run of
//! consecutive awake agents through the same batch loop (`Code::run_many`; module `run`).
//! Agents sleeping until a time are woken by a walk over the entries only on a tick at or
//! after the earliest such time (kept as a lower bound). Nothing here allocates during a tick
//! or calls the host itself.

use super::Batch;
use crate::{AgentId, Millis, VmError};

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

    /// Whether the agent sleeps until a time (not awake, not until an event).
    #[inline]
    fn timed(&self) -> bool {
        self.until != AWAKE && self.until != EVENT
    }

    /// Whether an awake agent's interval lets it tick on this turn.
    #[inline]
    pub(super) fn on_turn(&self, turn: u64) -> bool {
        self.every <= 1 || turn % u64::from(self.every) == u64::from(self.phase)
    }
}

/// What a tick reads of the schedule of a range of slots: who is awake, and the entries for
/// the intervals.
pub(super) struct Due<'a> {
    /// Per slot: 1 if awake, else 0.
    pub(super) awake: &'a [u8],
    /// The entries, read only when `intervals`.
    pub(super) entries: &'a [Entry],
    /// Whether any agent ticks on an interval (else every awake agent ticks).
    pub(super) intervals: bool,
    /// The tick's turn.
    pub(super) turn: u64,
}

/// The batch's schedule: one entry per slot once anyone was scheduled.
#[derive(Clone, Debug)]
pub(super) struct Schedule {
    /// Empty until an agent is first scheduled; then one entry per slot.
    entries: Vec<Entry>,
    /// One byte per slot beside `entries`: 1 when its agent is awake (`until == AWAKE`), else
    /// 0. What a tick scans, eight slots per word, so a sleeping agent costs an eighth of a
    /// word and its entry is never read.
    awake: Vec<u8>,
    /// How many entries are scheduled (leave their agent out of some tick).
    scheduled: usize,
    /// How many entries tick on an interval (`every > 1`).
    intervals: usize,
    /// No agent sleeping until a time wakes before this ([`EVENT`] when none does): a lower
    /// bound, so a tick looks for agents to wake only when one may.
    next_wake: Millis,
    /// How many ticks the batch has had (the turn of interval phases).
    turn: u64,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            entries: Vec::new(),
            awake: Vec::new(),
            scheduled: 0,
            intervals: 0,
            next_wake: EVENT,
            turn: 0,
        }
    }
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

    /// Whether any agent ticks on an interval.
    #[cfg(feature = "rayon")]
    pub(super) fn has_intervals(&self) -> bool {
        self.intervals > 0
    }

    /// Wakes the agents sleeping until a time at or before `now`. Walks the entries only when
    /// one may wake ([`Schedule::next_wake`]); never allocates.
    pub(super) fn wake_due(&mut self, now: Millis) {
        if now < self.next_wake {
            return;
        }
        let mut next = EVENT;
        for (e, a) in self.entries.iter_mut().zip(self.awake.iter_mut()) {
            if !e.timed() {
                continue;
            }
            if now >= e.until {
                e.until = AWAKE;
                *a = 1;
                self.scheduled = self.scheduled.saturating_sub(usize::from(e.every <= 1));
            } else {
                next = next.min(e.until);
            }
        }
        self.next_wake = next;
    }

    /// What a tick on turn `turn` reads of the schedule (only when not idle).
    pub(super) fn due(&self, turn: u64) -> Due<'_> {
        Due {
            awake: &self.awake,
            entries: &self.entries,
            intervals: self.intervals > 0,
            turn,
        }
    }

    /// The entries and awake bytes, one per slot (only when not idle), to be cut into shards.
    #[cfg(feature = "rayon")]
    pub(super) fn parts_mut(&mut self) -> (&mut [Entry], &mut [u8]) {
        (&mut self.entries, &mut self.awake)
    }

    /// `n` entries that a parallel tick's shards took off the schedule (waking them by events).
    #[cfg(feature = "rayon")]
    pub(super) fn unscheduled(&mut self, n: usize) {
        self.scheduled = self.scheduled.saturating_sub(n);
    }

    /// A slot was added at the end.
    pub(super) fn push(&mut self) {
        if !self.entries.is_empty() {
            self.entries.push(Entry::DEFAULT);
            self.awake.push(1);
        }
    }

    /// The slot was removed, the last moved into it.
    pub(super) fn swap_remove(&mut self, slot: usize) {
        if slot < self.entries.len() {
            let e = self.entries.swap_remove(slot);
            self.awake.swap_remove(slot);
            self.scheduled = self.scheduled.saturating_sub(usize::from(e.scheduled()));
            self.intervals = self.intervals.saturating_sub(usize::from(e.every > 1));
        }
    }

    /// The slots were put in the order `order`.
    pub(super) fn permute(&mut self, order: &[usize]) {
        if !self.entries.is_empty() {
            self.entries = order.iter().map(|&s| self.entries[s]).collect();
            self.awake = order.iter().map(|&s| self.awake[s]).collect();
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

    /// Changes the entry of `slot`, keeping the counts, the awake byte and the next wake.
    fn update(&mut self, slot: usize, f: impl FnOnce(&mut Entry)) {
        let (Some(e), Some(a)) = (self.entries.get_mut(slot), self.awake.get_mut(slot)) else {
            return;
        };
        let was = *e;
        f(e);
        self.scheduled = (self.scheduled + usize::from(e.scheduled()))
            .saturating_sub(usize::from(was.scheduled()));
        self.intervals =
            (self.intervals + usize::from(e.every > 1)).saturating_sub(usize::from(was.every > 1));
        *a = u8::from(e.until == AWAKE);
        if e.timed() {
            self.next_wake = self.next_wake.min(e.until);
        }
    }

    /// Makes sure there is an entry per slot (`slots` slots); allocates the first time.
    fn ensure(&mut self, slots: usize) -> Result<(), VmError> {
        if self.entries.len() < slots {
            let more = slots - self.entries.len();
            let full = || VmError::OutOfMemory {
                agents: u32::try_from(slots).unwrap_or(u32::MAX),
            };
            self.entries.try_reserve_exact(more).map_err(|_| full())?;
            self.awake.try_reserve_exact(more).map_err(|_| full())?;
            self.entries.resize(slots, Entry::DEFAULT);
            self.awake.resize(slots, 1);
        }
        Ok(())
    }
}

#[cfg(feature = "rayon")]
/// An event delivered during a parallel tick's shard woke the agent of `entry` and `awake` if
/// it slept until one; returns whether that took the entry off the schedule.
pub(super) fn wake_by_event(entry: &mut Entry, awake: &mut u8) -> bool {
    if entry.until != EVENT {
        return false;
    }
    entry.until = AWAKE;
    *awake = 1;
    entry.every <= 1
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
