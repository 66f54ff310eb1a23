//! The engines a scenario drives, behind one trait: the reference interpreter over its agent
//! states, and the vm or native code (or both taking turns) over state blocks.
//!
//! This module only adapts engines to [`Engine`]; the scenario's inputs, schedule and trace
//! are [`run`](super::run)'s. Agent tables are allocated up front and fallibly, never during
//! a tick.

use std::borrow::Cow;

use btvm::{AgentId, CursorSnapshot, Halt, Host, Millis, SnapshotError, Status, Stimulus};

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Model;
use crate::reference::{AgentState, Interpreter, Scopes};
use crate::source::Span;

/// The engines a scenario can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// The reference interpreter (the oracle).
    Reference,
    /// The bytecode virtual machine.
    Vm,
    /// Native code compiled with Cranelift.
    Native,
}

impl EngineKind {
    /// Every engine that exists, in the order the conformance runner tries them.
    pub const ALL: [EngineKind; 3] = [EngineKind::Reference, EngineKind::Vm, EngineKind::Native];

    /// The engine's name (`--engine`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Reference => "reference",
            EngineKind::Vm => "vm",
            EngineKind::Native => "native",
        }
    }
}

/// An engine holding the state of a set of agents.
pub trait Engine {
    /// Ticks the main tree for one agent.
    fn tick(&mut self, agent: u32, host: &mut dyn Host, now: Millis) -> Status;
    /// Runs a named entry point for one agent; `None` if there is no such entry.
    fn run_entry(
        &mut self,
        agent: u32,
        entry: &str,
        host: &mut dyn Host,
        now: Millis,
    ) -> Option<Status>;
    /// Why the agent's tree no longer runs, if it is halted.
    fn halt(&self, agent: u32) -> Option<Halt>;
    /// Makes the agent's state fresh, without host calls.
    fn reset(&mut self, agent: u32);
    /// Restarts the agent's tree as its game does (`at K reset`): the lifecycle model
    /// terminates the live tree with its host calls first (`spec/mbt.md` 2.7); other models
    /// [`Engine::reset`].
    fn restart(&mut self, agent: u32, host: &mut dyn Host, now: Millis);
    /// Saves the agent's cursor (cursor model).
    fn snapshot(&self, agent: u32) -> Result<CursorSnapshot, SnapshotError>;
    /// Restores a saved cursor into the agent's state.
    fn restore(&mut self, agent: u32, snap: &CursorSnapshot) -> Result<(), SnapshotError>;
    /// The compiled program: the one the engine runs, or for the reference the one its tree
    /// lowers to, when the run saves or restores btvm snapshots (`None` otherwise).
    fn program_of(&self) -> Option<&btvm::Program>;
    /// The agent's state block of [`Engine::program_of`] (the reference exports its state).
    fn state_block(&self, agent: u32) -> Result<Cow<'_, [u8]>, SnapshotError>;
    /// Restores a saved state block of [`Engine::program_of`] into the agent (btvm
    /// snapshots).
    fn restore_block(&mut self, agent: u32, saved: &[u8]) -> Result<(), SnapshotError>;
    /// Sets the agent's DecisionFlags word (decider model).
    fn set_decision_flags(&mut self, agent: u32, word: u32);
    /// Gives the agent stimulus `bit` (decider model).
    fn add_stimulus(&mut self, agent: u32, bit: u32, stimulus: Stimulus);
    /// Whether the agent's last tick ended with the decider model's loop guard.
    fn loop_guard(&self, agent: u32) -> bool;
    /// Takes the debug output lines made so far (`Session::debug_level`; none by default).
    fn take_debug(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// The agent's decider-model state (`None` in other models).
    fn decider_view(&self, agent: u32) -> Option<btvm::DeciderView>;
    /// Delivers event `event` to the agent between ticks, at time `now` (lifecycle and
    /// selection models).
    fn event(&mut self, agent: u32, host: &mut dyn Host, event: &str, now: Millis);
    /// Puts the agent in AI group `group` (lifecycle model: group scopes are per group).
    fn set_group(&mut self, agent: u32, group: u32);
    /// Sets the agent's variable named `var` (case-insensitively) to `value`, as a game
    /// behaviour would (lifecycle and selection models).
    fn set_var(&mut self, agent: u32, var: &str, value: bool);
}

pub(super) fn no_agent() -> SnapshotError {
    SnapshotError::Malformed("no such agent".into())
}

fn no_program() -> SnapshotError {
    SnapshotError::InvalidState("the run has no program to convert states with".into())
}

pub(super) struct ReferenceEngine<'t> {
    pub(super) interp: Interpreter<'t>,
    pub(super) agents: Vec<AgentState>,
    pub(super) debug: Option<crate::debug::DebugOutput<'t>>,
    /// The group-scope table every agent of the run shares (lifecycle model).
    pub(super) scopes: Scopes,
    /// The program the tree lowers to, for runs that save or restore btvm snapshots.
    pub(super) program: Option<btvm::Program>,
}

impl Engine for ReferenceEngine<'_> {
    fn tick(&mut self, agent: u32, host: &mut dyn Host, now: Millis) -> Status {
        let decider = matches!(self.interp.tree().config.model, Model::Decider { .. });
        match (self.agents.get_mut(agent as usize), self.debug.as_mut()) {
            (Some(state), Some(d)) if decider => self.interp.tick_observed(state, host, now, d),
            (Some(state), _) => self
                .interp
                .tick_with_scopes(state, host, now, &mut self.scopes),
            (None, _) => Status::Failure,
        }
    }

    fn run_entry(
        &mut self,
        agent: u32,
        entry: &str,
        host: &mut dyn Host,
        now: Millis,
    ) -> Option<Status> {
        let state = self.agents.get_mut(agent as usize)?;
        self.interp.run_entry(entry, state, host, now)
    }

    fn halt(&self, agent: u32) -> Option<Halt> {
        self.agents.get(agent as usize)?.halt()
    }

    fn reset(&mut self, agent: u32) {
        if let Some(state) = self.agents.get_mut(agent as usize) {
            self.interp.reset_with_scopes(state, &mut self.scopes);
        }
    }

    fn restart(&mut self, agent: u32, host: &mut dyn Host, now: Millis) {
        if let Some(state) = self.agents.get_mut(agent as usize) {
            self.interp.restart(state, host, now, &mut self.scopes);
        }
    }

    fn snapshot(&self, agent: u32) -> Result<CursorSnapshot, SnapshotError> {
        let state = self.agents.get(agent as usize).ok_or_else(no_agent)?;
        self.interp.snapshot(state)
    }

    fn restore(&mut self, agent: u32, snap: &CursorSnapshot) -> Result<(), SnapshotError> {
        let state = self.agents.get_mut(agent as usize).ok_or_else(no_agent)?;
        self.interp.restore(state, snap)
    }

    fn program_of(&self) -> Option<&btvm::Program> {
        self.program.as_ref()
    }

    fn state_block(&self, agent: u32) -> Result<Cow<'_, [u8]>, SnapshotError> {
        let state = self.agents.get(agent as usize).ok_or_else(no_agent)?;
        let program = self.program.as_ref().ok_or_else(no_program)?;
        let block = self.interp.export_block(program, state, &self.scopes)?;
        Ok(Cow::Owned(block))
    }

    fn restore_block(&mut self, agent: u32, saved: &[u8]) -> Result<(), SnapshotError> {
        let state = self.agents.get_mut(agent as usize).ok_or_else(no_agent)?;
        let program = self.program.as_ref().ok_or_else(no_program)?;
        self.interp
            .restore_block(program, state, saved, &mut self.scopes)
    }

    fn set_decision_flags(&mut self, agent: u32, word: u32) {
        if let Some(state) = self.agents.get_mut(agent as usize) {
            self.interp.set_decision_flags(state, word);
        }
    }

    fn add_stimulus(&mut self, agent: u32, bit: u32, stimulus: Stimulus) {
        if let Some(state) = self.agents.get_mut(agent as usize) {
            self.interp.add_stimulus(state, bit, stimulus);
        }
    }

    fn loop_guard(&self, agent: u32) -> bool {
        self.agents
            .get(agent as usize)
            .is_some_and(|s| self.interp.loop_guard(s))
    }

    fn decider_view(&self, agent: u32) -> Option<btvm::DeciderView> {
        self.interp.decider_view(self.agents.get(agent as usize)?)
    }

    fn take_debug(&mut self) -> Vec<String> {
        self.debug.as_mut().map_or(Vec::new(), |d| d.take())
    }

    fn event(&mut self, agent: u32, host: &mut dyn Host, event: &str, now: Millis) {
        if let Some(state) = self.agents.get_mut(agent as usize) {
            self.interp.event(state, host, event, now);
        }
    }

    fn set_group(&mut self, agent: u32, group: u32) {
        self.scopes.set_group(AgentId(agent), group);
    }

    fn set_var(&mut self, agent: u32, var: &str, value: bool) {
        if let (Some(state), Some(index)) = (
            self.agents.get_mut(agent as usize),
            self.interp.var_index(var),
        ) {
            self.interp.set_var(state, index, value);
        }
    }
}

/// The vm or native code (or both, taking turns) over per-agent state blocks.
///
/// One `btvm::Engine` serves every agent, so the lifecycle model's group-scope counters it
/// owns are shared by all agents of the run; taking turns switches that one engine between the
/// vm and native code ([`btvm::Engine::switch`]), keeping the counters.
pub(super) struct CompiledEngine {
    pub(super) engine: btvm::Engine,
    /// The engines an agent's calls take in turn: call `k` runs on `turns[k % len]`; empty:
    /// the engine never switches.
    pub(super) turns: Vec<btvm::EngineKind>,
    pub(super) states: States,
    /// Calls made so far, per agent (picks the engine).
    pub(super) calls: Vec<usize>,
}

/// Every agent's state block, in one allocation asked for up front.
pub(super) struct States {
    pub(super) bytes: Vec<u8>,
    pub(super) size: usize,
    pub(super) agents: usize,
}

impl States {
    /// `agents` fresh blocks of `size` bytes; `None` when the memory cannot be had.
    pub(super) fn new(agents: usize, size: usize) -> Option<States> {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(agents.checked_mul(size)?).ok()?;
        bytes.resize(agents * size, 0);
        Some(States {
            bytes,
            size,
            agents,
        })
    }

    pub(super) fn get(&self, agent: usize) -> Option<&[u8]> {
        let at = (agent < self.agents).then(|| agent * self.size)?;
        self.bytes.get(at..at + self.size)
    }

    pub(super) fn get_mut(&mut self, agent: usize) -> Option<&mut [u8]> {
        let at = (agent < self.agents).then(|| agent * self.size)?;
        self.bytes.get_mut(at..at + self.size)
    }
}

/// A vector of `n` values made by `make`, its memory asked for up front.
pub(super) fn try_table<T>(n: u32, make: impl FnMut(u32) -> T) -> Option<Vec<T>> {
    let mut table = Vec::new();
    table.try_reserve_exact(n as usize).ok()?;
    table.extend((0..n).map(make));
    Some(table)
}

/// The error for agents whose memory cannot be allocated.
pub(super) fn out_of_memory(agents: u32) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::ScenarioTooLarge,
        Span::DUMMY,
        format!("cannot allocate the state of {agents} agents"),
    )
}

impl CompiledEngine {
    /// The engine for the agent's next call (switched to its turn) and the agent's state.
    pub(super) fn next(&mut self, agent: u32) -> Option<(&mut btvm::Engine, &mut [u8])> {
        let i = agent as usize;
        let turn = self.calls.get_mut(i)?;
        if let Some(&kind) = self.turns.get(*turn % self.turns.len().max(1)) {
            self.engine.switch(kind);
        }
        *turn += 1;
        Some((&mut self.engine, self.states.get_mut(i)?))
    }

    pub(super) fn program(&self) -> &btvm::Program {
        self.engine.program()
    }
}

impl Engine for CompiledEngine {
    fn tick(&mut self, agent: u32, host: &mut dyn Host, now: Millis) -> Status {
        match self.next(agent) {
            Some((engine, state)) => engine
                .tick(state, AgentId(agent), host, now)
                .unwrap_or(Status::Failure),
            None => Status::Failure,
        }
    }

    fn run_entry(
        &mut self,
        agent: u32,
        entry: &str,
        host: &mut dyn Host,
        now: Millis,
    ) -> Option<Status> {
        let (engine, state) = self.next(agent)?;
        engine
            .run_entry(entry, state, AgentId(agent), host, now)
            .ok()
    }

    fn halt(&self, agent: u32) -> Option<Halt> {
        self.program().halt(self.states.get(agent as usize)?)
    }

    fn reset(&mut self, agent: u32) {
        if let Some(state) = self.states.get_mut(agent as usize) {
            self.engine.reset_agent(state);
        }
    }

    fn restart(&mut self, agent: u32, host: &mut dyn Host, now: Millis) {
        if let Some((engine, state)) = self.next(agent) {
            // As for events: an error means a state block of the wrong size, which this
            // runner never makes.
            let _ = engine.restart_agent(state, AgentId(agent), host, now);
        }
    }

    fn snapshot(&self, agent: u32) -> Result<CursorSnapshot, SnapshotError> {
        let state = self.states.get(agent as usize).ok_or_else(no_agent)?;
        self.program().snapshot(state)
    }

    fn restore(&mut self, agent: u32, snap: &CursorSnapshot) -> Result<(), SnapshotError> {
        let program = self.program().clone();
        let state = self.states.get_mut(agent as usize).ok_or_else(no_agent)?;
        program.restore(state, snap)
    }

    fn program_of(&self) -> Option<&btvm::Program> {
        Some(self.program())
    }

    fn state_block(&self, agent: u32) -> Result<Cow<'_, [u8]>, SnapshotError> {
        self.states
            .get(agent as usize)
            .map(Cow::Borrowed)
            .ok_or_else(no_agent)
    }

    fn restore_block(&mut self, agent: u32, saved: &[u8]) -> Result<(), SnapshotError> {
        let state = self.states.get_mut(agent as usize).ok_or_else(no_agent)?;
        self.engine.restore_agent(state, saved)
    }

    fn set_decision_flags(&mut self, agent: u32, word: u32) {
        let program = self.program().clone();
        if let Some(state) = self.states.get_mut(agent as usize) {
            program.set_decision_flags(state, word);
        }
    }

    fn add_stimulus(&mut self, agent: u32, bit: u32, stimulus: Stimulus) {
        let program = self.program().clone();
        if let Some(state) = self.states.get_mut(agent as usize) {
            program.add_stimulus(state, bit, stimulus);
        }
    }

    fn loop_guard(&self, agent: u32) -> bool {
        self.states
            .get(agent as usize)
            .is_some_and(|state| self.program().loop_guard(state))
    }

    fn decider_view(&self, agent: u32) -> Option<btvm::DeciderView> {
        self.program()
            .decider_view(self.states.get(agent as usize)?)
    }

    fn event(&mut self, agent: u32, host: &mut dyn Host, event: &str, now: Millis) {
        if let Some((engine, state)) = self.next(agent) {
            // An error here means a state block of the wrong size, which this runner never
            // makes; the trace would show any effect missing.
            let _ = engine.event(state, AgentId(agent), host, event, now);
        }
    }

    fn set_group(&mut self, agent: u32, group: u32) {
        if let Some(state) = self.states.get_mut(agent as usize) {
            self.engine.set_group(state, group);
        }
    }

    fn set_var(&mut self, agent: u32, var: &str, value: bool) {
        let program = self.program().clone();
        if let (Some(state), Some(index)) =
            (self.states.get_mut(agent as usize), program.var_index(var))
        {
            let _ = program.set_var(state, index, value);
        }
    }
}

/// A compiled engine of `kind`; native code that cannot be produced is an error here (tests
/// and `btvm run` must know which engine ran), except for a program larger than native code
/// is compiled for: that one runs on the vm, and the engine's fallback says so.
pub(super) fn compiled(
    program: &btvm::Program,
    kind: btvm::EngineKind,
) -> Result<btvm::Engine, Diagnostic> {
    let engine = btvm::Engine::new(program, kind);
    match engine.fallback() {
        Some(why) if why.kind() != btvm::FallbackKind::TooLarge => Err(Diagnostic::new(
            ErrorKind::InvalidProgram,
            Span::DUMMY,
            format!("native code is not available: {why}"),
        )
        .with_note("the vm engine runs the same program as bytecode")),
        _ => Ok(engine),
    }
}
