//! What `btvm bench` does to a batch's agents around each parallel tick, as a game server does
//! in its shard hosts: decider inputs and events before the tick, the root-status tally and
//! restarting stopped trees after it — inside each shard of `Batch::par_tick_with`, on the
//! shard's thread, so none of it is serial work on the calling thread. The result is that of
//! doing the same around `Batch::tick` on one thread (`measure`'s one-thread path): each agent
//! gets the same inputs and events before its tick, and the tally is a sum.
//!
//! Never allocates and never times anything; errors are counted, not panicked on.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use btvm::{EventId, Host, Program, ShardTick, Status};

use super::measure::{DeciderSchedule, EventSchedule};

/// The per-agent work of one tick, shared by every shard.
pub(crate) struct Between<'a> {
    /// The program the batch runs.
    pub program: &'a Program,
    /// Decider inputs (decider trees only).
    pub inputs: Option<DeciderSchedule>,
    /// Events (lifecycle and selection trees only).
    pub events: &'a EventSchedule,
    /// `events`' names resolved on `program`.
    pub ids: &'a [Option<EventId>],
    /// Whether the program is on the cursor model (a failed tick may stop its tree).
    pub cursor: bool,
    /// Whether the program is on the lifecycle model (a finished root stops its tree).
    pub lifecycle: bool,
    /// Per agent id, whether it sleeps for the whole run (empty when every agent is awake):
    /// a sleeping agent did not tick, so its tree cannot have stopped.
    pub asleep: &'a [bool],
    /// The tick's number.
    pub tick: u32,
    /// Root statuses of the tick, counted by `Status as usize`.
    pub counts: [AtomicU64; 3],
    /// Whether any event could not be delivered.
    pub failed: AtomicBool,
}

impl Between<'_> {
    /// Whether a tick with root status `s` may have stopped the agent's tree.
    pub(crate) fn may_stop(&self, s: Status) -> bool {
        match s {
            Status::Failure => self.cursor || self.lifecycle,
            Status::Success => self.lifecycle,
            Status::Running => false,
        }
    }

    /// Whether agent `a` sleeps for the whole run.
    pub(crate) fn asleep(&self, a: u32) -> bool {
        self.asleep.get(a as usize).copied().unwrap_or(false)
    }

    /// One shard's inputs and events, its tick, its tally and its restarts.
    pub(crate) fn shard<H: Host>(&self, shard: &mut ShardTick<'_, H>) {
        let now = shard.now();
        for (k, &id) in shard.ids().iter().enumerate() {
            if let Some(inp) = self.inputs {
                let flags = inp.flags(id.0, self.tick);
                let stimulus = inp.stimulus(id.0, self.tick);
                if let Some(st) = shard.state_mut(k) {
                    if let Some(w) = flags {
                        self.program.set_decision_flags(st, w);
                    }
                    if let Some((bit, ms)) = stimulus {
                        let s = btvm::Stimulus::new(now, Some(ms), 0);
                        self.program.add_stimulus(st, bit, s);
                    }
                }
            }
            let event = self.events.event(id.0, self.tick);
            if let Some(Some(e)) = event.and_then(|e| self.ids.get(e)) {
                if shard.event_by_id(k, *e, now).is_err() {
                    self.failed.store(true, Ordering::Relaxed);
                }
            }
        }
        shard.tick();
        let mut counts = [0u64; 3];
        for k in 0..shard.len() {
            let s = shard.statuses()[k];
            counts[s as usize] += 1;
            if !self.may_stop(s) || self.asleep(shard.ids()[k].0) {
                continue;
            }
            let halted = shard
                .state(k)
                .is_some_and(|st| self.program.halt(st).is_some());
            if halted && shard.reset(k).is_err() {
                self.failed.store(true, Ordering::Relaxed);
            }
        }
        for (c, n) in self.counts.iter().zip(counts) {
            c.fetch_add(n, Ordering::Relaxed);
        }
    }
}
