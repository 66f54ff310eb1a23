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
//! Allocates per call (the shard list, the hosts); never calls the host except through the
//! ticks.

use super::schedule::{Entry, Run};
use super::Batch;
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

/// One shard's share of the batch during a parallel tick.
struct Job<'b, H> {
    states: &'b mut [u8],
    ids: &'b [AgentId],
    statuses: &'b mut [Status],
    entries: Option<&'b mut [Entry]>,
    scratch: &'b mut Scratch,
    host: &'b mut H,
}

impl Batch {
    /// Ticks every awake agent once, in shards on a rayon pool (see the module docs of
    /// `batch::par`): `host_for` is called on the calling thread once per shard, in shard
    /// order, with the shard's index and agent ids, and returns the host that ticks that
    /// shard; the hosts are returned in shard order. With no agents, there are no shards.
    /// The statuses and every agent's host calls are exactly those of [`Batch::tick`]; the
    /// statuses are [`Batch::statuses`] afterwards. Allocates (the shards and hosts).
    pub fn par_tick<H, F>(&mut self, how: &ParTick<'_>, now: Millis, mut host_for: F) -> Vec<H>
    where
        H: Host + Send,
        F: FnMut(&Shard<'_>) -> H,
    {
        let turn = self.schedule.next_turn();
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
        let groups = match self.program.uses_scopes() {
            true => match self.disjoint_groups(&ranges) {
                Some(g) => g,
                None => {
                    self.shards_in_order(&ranges, &mut hosts, turn, now);
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
        let left = self.run_shards(&ranges, &mut hosts, turn, now, how);
        if !groups.is_empty() {
            if let Some((first, rest)) = self.scratch.split_first_mut() {
                for s in rest.iter_mut().take(groups.len() - 1) {
                    first.life.return_groups(&mut s.life);
                }
            }
        }
        if let Some(left) = left {
            self.schedule.set_scheduled(left);
        }
        hosts
    }

    /// Ticks the shards in parallel, each with its own scratch; returns how many agents are
    /// still scheduled (`None` when nobody was).
    fn run_shards<H: Host + Send>(
        &mut self,
        ranges: &[Range<usize>],
        hosts: &mut [H],
        turn: u64,
        now: Millis,
        how: &ParTick<'_>,
    ) -> Option<usize> {
        let size = self.size;
        let idle = self.schedule.is_idle();
        let mut states: &mut [u8] = &mut self.states;
        let mut statuses: &mut [Status] = &mut self.statuses;
        let mut entries: &mut [Entry] = self.schedule.entries_mut();
        let ids = self.slots.ids();
        let mut jobs = Vec::with_capacity(ranges.len());
        for ((r, host), scratch) in ranges.iter().zip(hosts).zip(self.scratch.iter_mut()) {
            let n = r.len();
            let (s, rest) = std::mem::take(&mut states).split_at_mut(n * size);
            states = rest;
            let (st, rest) = std::mem::take(&mut statuses).split_at_mut(n);
            statuses = rest;
            let e = match idle {
                true => None,
                false => {
                    let (e, rest) = std::mem::take(&mut entries).split_at_mut(n);
                    entries = rest;
                    Some(e)
                }
            };
            jobs.push(Job {
                states: s,
                ids: &ids[r.clone()],
                statuses: st,
                entries: e,
                scratch,
                host,
            });
        }
        let run = Run {
            program: &self.program,
            code: &self.code,
            main: self.main,
            turn,
            now,
        };
        let go = || {
            jobs.into_par_iter()
                .map(|j| match j.entries {
                    None => {
                        run.all(j.scratch, j.states, j.ids, j.statuses, j.host);
                        0
                    }
                    Some(e) => run.awake(j.scratch, j.states, j.ids, j.statuses, e, j.host),
                })
                .sum::<usize>()
        };
        let left = match how.pool {
            Some(pool) => pool.install(go),
            None => go(),
        };
        (!idle).then_some(left)
    }

    /// The shards in slot order on the calling thread, with the batch's one scope table.
    fn shards_in_order<H: Host>(
        &mut self,
        ranges: &[Range<usize>],
        hosts: &mut [H],
        turn: u64,
        now: Millis,
    ) {
        let size = self.size;
        let idle = self.schedule.is_idle();
        let run = Run {
            program: &self.program,
            code: &self.code,
            main: self.main,
            turn,
            now,
        };
        let mut left = 0;
        for (r, host) in ranges.iter().zip(hosts) {
            let states = &mut self.states[r.start * size..r.end * size];
            let ids = &self.slots.ids()[r.clone()];
            let statuses = &mut self.statuses[r.clone()];
            let scratch = &mut self.scratch[0];
            match idle {
                true => run.all(scratch, states, ids, statuses, host),
                false => {
                    let e = &mut self.schedule.entries_mut()[r.clone()];
                    left += run.awake(scratch, states, ids, statuses, e, host);
                }
            }
        }
        if !idle {
            self.schedule.set_scheduled(left);
        }
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

    /// Each shard's range of AI groups (smallest, largest), if no two ranges overlap.
    fn disjoint_groups(&self, ranges: &[Range<usize>]) -> Option<Vec<(u32, u32)>> {
        let group = crate::model::lifecycle::group_reader(&self.program);
        let size = self.size;
        let groups: Vec<(u32, u32)> = ranges
            .iter()
            .map(|r| {
                self.states[r.start * size..r.end * size]
                    .chunks(size.max(1))
                    .map(&group)
                    .fold((u32::MAX, 0), |(lo, hi), g| (lo.min(g), hi.max(g)))
            })
            .collect();
        let mut sorted = groups.clone();
        sorted.sort_unstable();
        match sorted.windows(2).any(|w| w[0].1 >= w[1].0) {
            true => None,
            false => Some(groups),
        }
    }
}
