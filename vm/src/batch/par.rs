//! [`Batch::par_tick`]: one tick of a batch on a rayon pool, in contiguous shards of slots.
//!
//! The slots are cut into about `threads × shards_per_thread` shards of consecutive slots
//! (more shards than threads, so a slow or busy core does not hold the tick up: rayon hands
//! the shards out as threads come free). The caller makes one host per shard, on the calling
//! thread, from the [`Shard`] (its index and its agents' ids); hosts are bound once by the
//! caller (bind a prototype and clone it, or hand out `&mut` hosts kept between ticks: a
//! `&mut H` is a host). Every shard ticks its agents in slot order, exactly as
//! [`Batch::tick`] would, so the result is exactly `tick`'s.
//!
//! Group scopes (lifecycle model): a program that uses them shares each AI group's scope
//! tables between the group's agents, so one group must tick on one thread, in slot order.
//! Shards are cut only at group boundaries (a cut moves forward past agents of the group
//! before it), and the shards run in parallel when no two shards hold agents of one group —
//! precisely when each group's agents are contiguous in slot order ([`Batch::sort_by_group`]
//! makes them so; groups then tick in parallel, each group's agents in slot order). Otherwise
//! the shards run one after another on the calling thread, with one host each, as `tick`
//! would run them. A single group with every agent is inherently one shard.
//!
//! Migration from `par_tick(&mut hosts, now)` (one shard per host, ranges of
//! `ceil(n / hosts.len())` agents): `batch.par_tick(&ParTick::new(), now, |shard| ...)`, the
//! closure making (or lending) the shard's host; the statuses are `batch.statuses()`.
//!
//! [`Batch::par_tick_with`] also runs the caller's per-agent work around each shard's tick on
//! the shard's thread ([`ShardTick`], module `shard`), so bookkeeping over every agent (events,
//! statuses, restarts) need not be serial work on the calling thread between parallel ticks.
//!
//! Allocates per call (the shard list, the hosts); never calls the host except through the
//! ticks and `work`.

use super::run::Run;
use super::schedule::Entry;
use super::{Batch, ShardTick};
use crate::exec::Scratch;
use crate::{AgentId, Host, Millis, Status};
use rayon::prelude::*;
use std::ops::Range;

/// How [`Batch::par_tick`] spreads a tick over threads: the pool (rayon's global pool unless
/// one is given) and how many shards per thread.
#[derive(Clone, Copy, Debug)]
pub struct ParTick<'a> {
    pool: Option<&'a rayon::ThreadPool>,
    shards_per_thread: usize,
}

impl Default for ParTick<'_> {
    fn default() -> Self {
        ParTick::new()
    }
}

impl<'a> ParTick<'a> {
    /// Rayon's global pool, 4 shards per thread.
    pub fn new() -> Self {
        ParTick {
            pool: None,
            shards_per_thread: 4,
        }
    }

    /// Ticks on `pool` instead of rayon's global pool.
    pub fn pool(self, pool: &'a rayon::ThreadPool) -> Self {
        ParTick {
            pool: Some(pool),
            ..self
        }
    }

    /// Cuts the agents into about `k` shards per thread (at least 1).
    pub fn shards_per_thread(self, k: usize) -> Self {
        ParTick {
            shards_per_thread: k.max(1),
            ..self
        }
    }

    /// The number of threads of the pool used.
    pub fn threads(&self) -> usize {
        self.pool
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
    }
}

/// One shard of a [`Batch::par_tick`]: consecutive slots, ticked by one host.
#[derive(Clone, Copy, Debug)]
pub struct Shard<'a> {
    index: usize,
    ids: &'a [AgentId],
}

impl<'a> Shard<'a> {
    /// The shard's place among the tick's shards (0, 1, ...), in slot order.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The ids of the shard's agents, in the order they tick.
    pub fn ids(&self) -> &'a [AgentId] {
        self.ids
    }
}

/// Cuts a batch's per-slot storage into consecutive shards.
struct Cutter<'b> {
    size: usize,
    states: &'b mut [u8],
    statuses: &'b mut [Status],
    /// The schedule's entries and awake bytes, when some agent is scheduled.
    schedule: Option<(&'b mut [Entry], &'b mut [u8])>,
    ids: &'b [AgentId],
}

/// One shard's slots: state blocks, statuses, schedule, ids.
type Cut<'b> = (
    &'b mut [u8],
    &'b mut [Status],
    Option<(&'b mut [Entry], &'b mut [u8])>,
    &'b [AgentId],
);

impl<'b> Cutter<'b> {
    /// The next `n` slots.
    fn take(&mut self, n: usize) -> Cut<'b> {
        let (states, rest) = std::mem::take(&mut self.states).split_at_mut(n * self.size);
        self.states = rest;
        let (statuses, rest) = std::mem::take(&mut self.statuses).split_at_mut(n);
        self.statuses = rest;
        let (ids, rest) = self.ids.split_at(n);
        self.ids = rest;
        let schedule = self.schedule.take().map(|(e, a)| {
            let (e, e_rest) = e.split_at_mut(n);
            let (a, a_rest) = a.split_at_mut(n);
            self.schedule = Some((e_rest, a_rest));
            (e, a)
        });
        (states, statuses, schedule, ids)
    }
}

impl Batch {
    /// Ticks every awake agent once, in shards on a rayon pool (see the module docs of
    /// `batch::par`): `host_for` is called on the calling thread once per shard, in shard
    /// order, with the shard's index and agent ids, and returns the host that ticks that
    /// shard; the hosts are returned in shard order. With no agents, there are no shards.
    /// The statuses and every agent's host calls are exactly those of [`Batch::tick`]; the
    /// statuses are [`Batch::statuses`] afterwards. Allocates (the shards and hosts).
    pub fn par_tick<H, F>(&mut self, how: &ParTick<'_>, now: Millis, host_for: F) -> Vec<H>
    where
        H: Host + Send,
        F: FnMut(&Shard<'_>) -> H,
    {
        self.par_tick_with(how, now, host_for, |_: &mut ShardTick<'_, H>| {})
    }

    /// [`Batch::par_tick`], running `work` on the thread that ticks each shard, with the
    /// shard's agents and host ([`ShardTick`]), so the per-agent work a server does around a
    /// tick — events and inputs before it, reading statuses and restarting finished trees
    /// after it — runs in parallel too. `work` ticks the shard by calling
    /// [`ShardTick::tick`] (what it does before that call precedes the tick, what it does
    /// after follows it); a shard `work` did not tick is ticked when `work` returns. Shards
    /// share nothing, so the result is that of running every shard's `work` and tick one
    /// shard after another. When shards cannot run in parallel (group scopes, see the module
    /// docs) they run in slot order on the calling thread, `work` included. Allocates (the
    /// shards and hosts).
    pub fn par_tick_with<H, F, W>(
        &mut self,
        how: &ParTick<'_>,
        now: Millis,
        mut host_for: F,
        work: W,
    ) -> Vec<H>
    where
        H: Host + Send,
        F: FnMut(&Shard<'_>) -> H,
        W: Fn(&mut ShardTick<'_, H>) + Sync,
    {
        let turn = self.schedule.next_turn();
        if !self.schedule.is_idle() {
            self.schedule.wake_due(now);
        }
        let ranges = self.shard_ranges(how);
        let mut hosts: Vec<H> = ranges
            .iter()
            .enumerate()
            .map(|(index, r)| {
                host_for(&Shard {
                    index,
                    ids: &self.slots.ids()[r.clone()],
                })
            })
            .collect();
        if ranges.is_empty() {
            return hosts;
        }
        let scopes = self.program.uses_scopes();
        let groups = match scopes {
            true => match self.disjoint_groups(&ranges, how) {
                Some(g) => g,
                None => {
                    let woken = self.shards_in_order(&ranges, &mut hosts, turn, now, &work);
                    self.schedule.unscheduled(woken);
                    return hosts;
                }
            },
            false => Vec::new(),
        };
        while self.scratch.len() < ranges.len() {
            self.scratch.push(Scratch::new(&self.program));
        }
        // Shard k > 0 takes the scope tables of its groups; shard 0 ticks with the batch's.
        if let Some((first, rest)) = self.scratch.split_first_mut() {
            for (&(lo, hi), s) in groups.iter().skip(1).zip(rest.iter_mut()) {
                first.life.lend_groups(lo, hi, &mut s.life);
            }
        }
        let woken = self.run_shards(&ranges, &mut hosts, turn, now, how, &work);
        self.schedule.unscheduled(woken);
        if !groups.is_empty() {
            if let Some((first, rest)) = self.scratch.split_first_mut() {
                for s in rest.iter_mut().take(groups.len() - 1) {
                    first.life.return_groups(&mut s.life);
                }
            }
        }
        hosts
    }

    /// The storage of the batch's slots, to be cut into shards, and what every shard's tick
    /// needs.
    fn cutter(&mut self, now: Millis) -> (Cutter<'_>, Run<'_>, &mut [Scratch], bool) {
        let idle = self.schedule.is_idle();
        let intervals = self.schedule.has_intervals();
        let (entries, awake) = self.schedule.parts_mut();
        let cutter = Cutter {
            size: self.size,
            states: &mut self.states,
            statuses: &mut self.statuses,
            schedule: (!idle).then_some((entries, awake)),
            ids: self.slots.ids(),
        };
        let run = Run {
            program: &self.program,
            code: &self.code,
            main: self.main,
            now,
        };
        (cutter, run, &mut self.scratch, intervals)
    }

    /// Runs the shards in parallel, each with its own scratch; returns how many agents
    /// events took off the schedule.
    fn run_shards<H: Host + Send, W: Fn(&mut ShardTick<'_, H>) + Sync>(
        &mut self,
        ranges: &[Range<usize>],
        hosts: &mut [H],
        turn: u64,
        now: Millis,
        how: &ParTick<'_>,
        work: &W,
    ) -> usize {
        let scopes = self.program.uses_scopes();
        let (mut cut, run, scratch, intervals) = self.cutter(now);
        let mut shards = Vec::with_capacity(ranges.len());
        let parts = ranges.iter().zip(hosts).zip(scratch.iter_mut());
        for (index, ((r, host), scratch)) in parts.enumerate() {
            let (states, statuses, schedule, ids) = cut.take(r.len());
            shards.push(ShardTick {
                index,
                ids,
                states,
                statuses,
                schedule,
                intervals,
                turn,
                scratch,
                host,
                run,
                scopes,
                ticked: false,
                unscheduled: 0,
            });
        }
        let go = || {
            shards
                .into_par_iter()
                .map(|mut shard| shard.go(work))
                .sum::<usize>()
        };
        match how.pool {
            Some(pool) => pool.install(go),
            None => go(),
        }
    }

    /// The shards in slot order on the calling thread, with the batch's one scope table;
    /// returns how many agents events took off the schedule.
    fn shards_in_order<H: Host, W: Fn(&mut ShardTick<'_, H>)>(
        &mut self,
        ranges: &[Range<usize>],
        hosts: &mut [H],
        turn: u64,
        now: Millis,
        work: &W,
    ) -> usize {
        let scopes = self.program.uses_scopes();
        let (mut cut, run, scratch, intervals) = self.cutter(now);
        let Some(scratch) = scratch.first_mut() else {
            return 0;
        };
        let mut woken = 0;
        for (index, (r, host)) in ranges.iter().zip(hosts).enumerate() {
            let (states, statuses, schedule, ids) = cut.take(r.len());
            let mut shard = ShardTick {
                index,
                ids,
                states,
                statuses,
                schedule,
                intervals,
                turn,
                scratch: &mut *scratch,
                host,
                run,
                scopes,
                ticked: false,
                unscheduled: 0,
            };
            woken += shard.go(work);
        }
        woken
    }

    /// The shards' slot ranges: about `threads × shards_per_thread` of equal size, each cut
    /// moved forward to the next group boundary in a program with group scopes.
    fn shard_ranges(&self, how: &ParTick<'_>) -> Vec<Range<usize>> {
        let n = self.statuses.len();
        let want = how.threads().max(1).saturating_mul(how.shards_per_thread);
        let chunk = n.div_ceil(want.max(1)).max(1);
        let scopes = self.program.uses_scopes();
        let group = crate::model::lifecycle::group_reader(&self.program);
        let size = self.size;
        let group_at = |s: usize| group(&self.states[s * size..(s + 1) * size]);
        let mut ranges = Vec::with_capacity(n.div_ceil(chunk));
        let mut start = 0;
        while start < n {
            let mut end = (start + chunk).min(n);
            if scopes {
                while end < n && group_at(end) == group_at(end - 1) {
                    end += 1;
                }
            }
            ranges.push(start..end);
            start = end;
        }
        ranges
    }

    /// Each shard's range of AI groups (smallest, largest), if no two ranges overlap. Reads
    /// every agent's group, so the shards are read in parallel on the tick's pool.
    fn disjoint_groups(
        &self,
        ranges: &[Range<usize>],
        how: &ParTick<'_>,
    ) -> Option<Vec<(u32, u32)>> {
        let group = crate::model::lifecycle::group_reader(&self.program);
        let size = self.size;
        let read = || -> Vec<(u32, u32)> {
            ranges
                .par_iter()
                .map(|r| {
                    self.states[r.start * size..r.end * size]
                        .chunks(size.max(1))
                        .map(&group)
                        .fold((u32::MAX, 0), |(lo, hi), g| (lo.min(g), hi.max(g)))
                })
                .collect()
        };
        let groups = match how.pool {
            Some(pool) => pool.install(read),
            None => read(),
        };
        let mut sorted = groups.clone();
        sorted.sort_unstable();
        match sorted.windows(2).any(|w| w[0].1 >= w[1].0) {
            true => None,
            false => Some(groups),
        }
    }
}
