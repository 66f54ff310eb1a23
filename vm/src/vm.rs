//! [`Vm`]: the bytecode interpreter for agents whose state blocks the caller owns, a thin
//! handle on an [`Engine`] that always runs the interpreter ([`exec`](crate::exec)).
//!
//! It only forwards to the engine; it must never hold tick logic of its own.

use crate::{AgentId, Engine, EngineKind, Host, Millis, Program, Status, VmError};

/// Runs a program for agents whose state blocks the caller owns.
///
/// ```
/// # fn demo(program: &btvm::Program, host: &mut impl btvm::Host) -> Result<(), btvm::VmError> {
/// program.bind(host)?;
/// let mut vm = btvm::Vm::new(program);
/// let mut state = program.new_state();
/// let status = vm.tick(&mut state, btvm::AgentId(0), host, 0)?;
/// # let _ = status; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Vm {
    /// The facade, always on the vm (it owns the scratch and the entry lookup).
    engine: Engine,
}

impl Vm {
    /// An executor for `program`.
    pub fn new(program: &Program) -> Self {
        Vm {
            engine: Engine::new(program, EngineKind::Vm),
        }
    }

    /// The program.
    pub fn program(&self) -> &Program {
        self.engine.program()
    }

    /// Ticks the main tree once for `agent`, whose state is `state`, at time `now`.
    pub fn tick<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<Status, VmError> {
        self.engine.tick(state, agent, host, now)
    }

    /// Runs the named entry once (Unvanquished `selectClass`).
    pub fn run_entry<H: Host + ?Sized>(
        &mut self,
        entry: &str,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<Status, VmError> {
        self.engine.run_entry(entry, state, agent, host, now)
    }

    /// Delivers event `event` to the agent between ticks (see [`Engine::event`]).
    pub fn event<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        event: &str,
        now: Millis,
    ) -> Result<(), VmError> {
        self.engine.event(state, agent, host, event, now)
    }

    /// Delivers an event resolved with [`Program::event_id`] (see [`Engine::event_by_id`]).
    pub fn event_by_id<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        event: crate::EventId,
        now: Millis,
    ) -> Result<(), VmError> {
        self.engine.event_by_id(state, agent, host, event, now)
    }

    /// Resets the agent, leaving the group scopes it holds (see [`Engine::reset_agent`]).
    pub fn reset_agent(&mut self, state: &mut [u8]) {
        self.engine.reset_agent(state);
    }

    /// Restarts the agent's tree as its game does (see [`Engine::restart_agent`]).
    pub fn restart_agent<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        self.engine.restart_agent(state, agent, host, now)
    }

    /// Puts the agent in AI group `group` (see [`Engine::set_group`]).
    pub fn set_group(&mut self, state: &mut [u8], group: u32) {
        self.engine.set_group(state, group);
    }
}
