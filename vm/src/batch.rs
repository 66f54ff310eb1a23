//! Many agents: their state blocks stored contiguously, ticked in one call.
//!
//! Agent `i` of a batch has id `AgentId(i)` and owns bytes `i * size .. (i + 1) * size` of one
//! buffer, so a tick over the batch walks memory linearly. [`Batch::tick`] allocates nothing;
//! [`Batch::par_tick`] splits the agents into one contiguous chunk per host and ticks the chunks
//! on rayon's pool. Both give exactly the statuses and host calls (per agent) of ticking the
//! agents one by one, since agents share no state — except the lifecycle model's group scopes,
//! which the agents of one AI group share ([`Batch::set_group`]): a program that uses them is
//! ticked by `par_tick` in parallel only when no AI group has agents in two chunks, and
//! otherwise in agent order on the calling thread, exactly as `tick` would. Between ticks,
//! [`Batch::event`] delivers an event to one agent (lifecycle and selection models), as
//! [`Engine::event`](crate::Engine::event) does.

use crate::engine::{Code, Fallback};
use crate::exec::Scratch;
use crate::{AgentId, EngineKind, Host, Millis, Program, Status, VmError};

/// The state of `n` agents running one program.
#[derive(Clone, Debug)]
pub struct Batch {
    program: Program,
    code: Code,
    fallback: Option<Fallback>,
    main: u32,
    size: usize,
    states: Vec<u8>,
    statuses: Vec<Status>,
    scratch: Vec<Scratch>,
}

impl Batch {
    /// `agents` fresh agents (ids `0..agents`) for `program`, ticked by the vm; fails if it has
    /// no main entry.
    pub fn new(program: &Program, agents: u32) -> Result<Self, VmError> {
        Batch::with_engine(program, agents, EngineKind::Vm)
    }

    /// `agents` fresh agents ticked by the engine of `kind`. Native code that cannot be produced
    /// falls back to the vm, as [`Engine`](crate::Engine) does ([`Batch::engine`],
    /// [`Batch::fallback`]). Fails with [`VmError::OutOfMemory`] when the agents' memory
    /// cannot be allocated.
    pub fn with_engine(program: &Program, agents: u32, kind: EngineKind) -> Result<Self, VmError> {
        let (code, fallback) = Code::select(program, kind);
        let main = program
            .main()
            .ok_or_else(|| VmError::NoEntry(String::new()))?;
        let n = agents as usize;
        // Every agent's memory is asked for up front and may be refused (an error, not an
        // abort): a batch's size is often chosen by whoever configures the game.
        let too_big = || VmError::OutOfMemory { agents };
        let bytes = n.checked_mul(program.state_size()).ok_or_else(too_big)?;
        let mut states = Vec::new();
        states.try_reserve_exact(bytes).map_err(|_| too_big())?;
        states.resize(bytes, 0);
        let mut statuses = Vec::new();
        statuses.try_reserve_exact(n).map_err(|_| too_big())?;
        statuses.resize(n, Status::Failure);
        Ok(Batch {
            program: program.clone(),
            code,
            fallback,
            main,
            size: program.state_size(),
            states,
            statuses,
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

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.statuses.len()
    }

    /// Whether the batch has no agents.
    pub fn is_empty(&self) -> bool {
        self.statuses.is_empty()
    }

    /// The state block of agent `i`.
    pub fn state(&self, i: usize) -> Option<&[u8]> {
        self.states.get(i * self.size..(i + 1) * self.size)
    }

    /// The state block of agent `i`, mutably (to restore a snapshot).
    pub fn state_mut(&mut self, i: usize) -> Option<&mut [u8]> {
        self.states.get_mut(i * self.size..(i + 1) * self.size)
    }

    /// Every agent's status after the last tick.
    pub fn statuses(&self) -> &[Status] {
        &self.statuses
    }

    /// Ticks every agent once, in id order, with one host.
    pub fn tick<H: Host + ?Sized>(&mut self, host: &mut H, now: Millis) -> &[Status] {
        let Batch {
            program,
            code,
            main,
            states,
            statuses,
            scratch,
            ..
        } = self;
        code.run_many(
            program,
            &mut scratch[0],
            *main,
            states,
            0,
            statuses,
            host,
            now,
        );
        &self.statuses
    }

    /// Delivers event `event` to agent `i` (id `AgentId(i)`) between ticks, at time `now`,
    /// exactly as [`Engine::event`](crate::Engine::event) does for one agent: on the batch's
    /// engine, with the group-scope counters the batch's agents share. A name the program never
    /// uses, an event to a stopped tree and any event in a program of another model do nothing
    /// (`Ok`). An `i` past the last agent is [`VmError::NoAgent`], whatever the event. Never allocates.
    ///
    /// Deliver events on the calling thread between ticks ([`Batch::tick`] or
    /// [`Batch::par_tick`] borrow the batch mutably, so they cannot overlap).
    pub fn event<H: Host + ?Sized>(
        &mut self,
        i: usize,
        host: &mut H,
        event: &str,
        now: Millis,
    ) -> Result<(), VmError> {
        if i >= self.statuses.len() {
            return Err(VmError::NoAgent(i));
        }
        match crate::model::lifecycle::event_function(&self.program, event) {
            Some(func) => self.run_event(i, host, func, now),
            None => Ok(()),
        }
    }

    /// Delivers an event resolved once with [`Program::event_id`](crate::Program::event_id)
    /// to agent `i`, exactly as [`Batch::event`] delivers it by name, without comparing
    /// strings. An id from another program is [`VmError::ForeignEvent`]; an `i` past the last
    /// agent is [`VmError::NoAgent`]. Never allocates.
    pub fn event_by_id<H: Host + ?Sized>(
        &mut self,
        i: usize,
        host: &mut H,
        event: crate::EventId,
        now: Millis,
    ) -> Result<(), VmError> {
        if i >= self.statuses.len() {
            return Err(VmError::NoAgent(i));
        }
        let func = crate::model::lifecycle::event_id_function(&self.program, event)?;
        self.run_event(i, host, func, now)
    }

    /// Runs event (or restart) function `func` for agent `i`.
    fn run_event<H: Host + ?Sized>(
        &mut self,
        i: usize,
        host: &mut H,
        func: u32,
        now: Millis,
    ) -> Result<(), VmError> {
        let size = self.size;
        let Some(state) = self.states.get_mut(i * size..(i + 1) * size) else {
            return Err(VmError::NoAgent(i));
        };
        self.code.run(
            &self.program,
            &mut self.scratch[0],
            func,
            state,
            AgentId(i as u32),
            host,
            now,
        );
        Ok(())
    }

    /// Resets agent `i` (see [`Engine::reset_agent`](crate::Engine::reset_agent)): the group
    /// scopes it is a member of are left and its state becomes fresh; it stays in its AI group.
    pub fn reset_agent(&mut self, i: usize) {
        let size = self.size;
        if let Some(state) = self.states.get_mut(i * size..(i + 1) * size) {
            crate::model::lifecycle::leave_scopes(&self.program, &mut self.scratch[0].life, state);
            self.program.reset(state);
        }
    }

    /// Restarts agent `i`'s tree as its game does, at time `now` (see
    /// [`Engine::restart_agent`](crate::Engine::restart_agent)): in the lifecycle (MBT) model
    /// the live tree is terminated with its host calls, innermost first, then the agent is
    /// reset as [`Batch::reset_agent`] does; in other models this is [`Batch::reset_agent`].
    /// An `i` past the last agent is [`VmError::NoAgent`]. Never allocates.
    pub fn restart_agent<H: Host + ?Sized>(
        &mut self,
        i: usize,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        if i >= self.statuses.len() {
            return Err(VmError::NoAgent(i));
        }
        if let Some(func) = crate::model::lifecycle::restart_function(&self.program) {
            self.run_event(i, host, func, now)?;
        }
        self.reset_agent(i);
        Ok(())
    }

    /// Puts agent `i` in AI group `group` (see [`Engine::set_group`](crate::Engine::set_group):
    /// agents compete for a group scope only with agents of their own group; every agent
    /// starts in group 0; a change first leaves the scopes the agent is a member of). An `i`
    /// past the last agent is [`VmError::NoAgent`].
    pub fn set_group(&mut self, i: usize, group: u32) -> Result<(), VmError> {
        let size = self.size;
        let Some(state) = self.states.get_mut(i * size..(i + 1) * size) else {
            return Err(VmError::NoAgent(i));
        };
        crate::model::lifecycle::set_group(&self.program, &mut self.scratch[0].life, state, group);
        Ok(())
    }

    /// Agent `i`'s AI group (0 for an `i` past the last agent and in programs without group
    /// scopes).
    pub fn group(&self, i: usize) -> u32 {
        self.state(i).map_or(0, |s| self.program.group(s))
    }

    /// How many agents of AI group `group` are members of group scope `scope` now (see
    /// [`Engine::scope_users`](crate::Engine::scope_users)).
    pub fn scope_users(&self, group: u32, scope: &str) -> u32 {
        self.program
            .scope_slot(scope)
            .map_or(0, |id| self.scratch[0].life.scope_users(group, id))
    }

    /// Ticks every agent once on rayon's pool: the agents are split into `hosts.len()`
    /// contiguous chunks of `ceil(n / hosts.len())` agents, and chunk `k` is ticked in id order
    /// with `hosts[k]` (agent ids stay global). With no hosts, nothing is ticked.
    ///
    /// A program that uses group scopes (MBT `GroupScope`, shared by the agents of one AI
    /// group, [`Batch::set_group`]) is split across threads only when the chunks' ranges of
    /// groups (from the smallest to the largest group id among a chunk's agents) do not
    /// overlap, e.g. when the agents are ordered by group: then no two threads touch one
    /// group's scopes, and each group's agents still enter in agent order. Otherwise which agent
    /// gets a contended scope depends on the order of entry, so the chunks are ticked one after
    /// another, in agent order, on the calling thread (chunk `k` still with `hosts[k]`). Either
    /// way the result is exactly that of [`Batch::tick`].
    #[cfg(feature = "rayon")]
    pub fn par_tick<H: Host + Send>(&mut self, hosts: &mut [H], now: Millis) -> &[Status] {
        use rayon::prelude::*;
        let n = self.statuses.len();
        if hosts.is_empty() || n == 0 {
            return &self.statuses;
        }
        let chunk = n.div_ceil(hosts.len());
        let mut ranges = Vec::new();
        if self.program.uses_scopes() {
            let program = self.program.clone();
            let group = crate::model::lifecycle::group_reader(&program);
            ranges = self
                .states
                .chunks(chunk * self.size)
                .map(|c| {
                    c.chunks(self.size)
                        .map(&group)
                        .fold((u32::MAX, 0), |(lo, hi), g| (lo.min(g), hi.max(g)))
                })
                .collect();
            let mut sorted = ranges.clone();
            sorted.sort_unstable();
            if sorted.windows(2).any(|w| w[0].1 >= w[1].0) {
                self.tick_chunks_in_order(hosts, chunk, now);
                return &self.statuses;
            }
        }
        while self.scratch.len() < hosts.len() {
            self.scratch.push(Scratch::new(&self.program));
        }
        // Chunk k > 0 takes the scope tables of its groups; chunk 0 ticks with the batch's.
        if let Some((first, rest)) = self.scratch.split_first_mut() {
            for (&(lo, hi), s) in ranges.iter().skip(1).zip(rest.iter_mut()) {
                first.life.lend_groups(lo, hi, &mut s.life);
            }
        }
        let (program, code, main, size) = (&self.program, &self.code, self.main, self.size);
        let mut states: &mut [u8] = &mut self.states;
        let mut jobs = Vec::with_capacity(hosts.len());
        for (k, (statuses, (host, scratch))) in self
            .statuses
            .chunks_mut(chunk)
            .zip(hosts.iter_mut().zip(self.scratch.iter_mut()))
            .enumerate()
        {
            let (mine, rest) = std::mem::take(&mut states).split_at_mut(statuses.len() * size);
            states = rest;
            jobs.push((k * chunk, statuses, mine, host, scratch));
        }
        jobs.into_par_iter()
            .for_each(|(first, statuses, states, host, scratch)| {
                code.run_many(
                    program,
                    scratch,
                    main,
                    states,
                    first as u32,
                    statuses,
                    host,
                    now,
                );
            });
        if !ranges.is_empty() {
            if let Some((first, rest)) = self.scratch.split_first_mut() {
                for s in rest.iter_mut().take(ranges.len() - 1) {
                    first.life.return_groups(&mut s.life);
                }
            }
        }
        &self.statuses
    }

    /// `par_tick`'s order-keeping path: chunk `k` with `hosts[k]`, one after another, on the
    /// calling thread, with the batch's one scope table.
    #[cfg(feature = "rayon")]
    fn tick_chunks_in_order<H: Host + Send>(&mut self, hosts: &mut [H], chunk: usize, now: Millis) {
        let Batch {
            program,
            code,
            main,
            size,
            states,
            statuses,
            scratch,
            ..
        } = self;
        for (k, (statuses, host)) in statuses.chunks_mut(chunk).zip(hosts.iter_mut()).enumerate() {
            let first = k * chunk;
            let states = &mut states[first * *size..(first + statuses.len()) * *size];
            code.run_many(
                program,
                &mut scratch[0],
                *main,
                states,
                first as u32,
                statuses,
                host,
                now,
            );
        }
    }
}
