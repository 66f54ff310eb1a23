//! The bytecode executor: runs a verified [`Program`] for one agent's state block.
//!
//! The loop decodes nothing (the program holds decoded [`Instr`]s), walks no tree and allocates
//! nothing: the operand stack, the return stack and the counters live in a [`Scratch`] sized
//! once from what the verifier proved. Every index it uses was range-checked by the verifier;
//! it still reads through checked accessors so a verifier bug degrades to a wrong answer, never
//! to a panic or undefined behaviour.
//!
//! This module must never accept an unverified program: [`Program`] can only be built through
//! the verifier.

mod call;
mod flow;
mod run;
mod stack;

pub(crate) use run::run;

use crate::model::decider::DeciderScratch;
use crate::model::lifecycle::LifeScratch;
use crate::{AgentId, Engine, EngineKind, Host, Millis, Program, Status, Value, VmError};

// Re-exported at their old paths, which the native trampolines still name.
#[cfg(feature = "jit")]
pub(crate) use crate::model::running_list::{
    add_to_list, after_action, claims_of, clear_list, listed,
};
#[cfg(feature = "jit")]
pub(crate) use crate::program::read;

/// The per-thread working memory of the executor: operand stack, return stack and counters.
/// Sized once per program; reused by every tick. Aligned to two cache lines so the scratch
/// areas of different threads (kept side by side by `Batch`) never share a line.
///
/// It also holds the lifecycle model's group-scope counters, which are not per tick: they
/// belong to the engine that owns the scratch ([`Engine`], or [`Batch`](crate::Batch), whose
/// first scratch holds them) and are shared by every agent ticked through it.
#[derive(Clone, Debug)]
#[repr(align(128))]
pub struct Scratch {
    stack: Vec<Value>,
    rets: Vec<u32>,
    temps: Vec<u32>,
    decider: DeciderScratch,
    pub(crate) life: LifeScratch,
}

impl Scratch {
    /// Working memory for `program`.
    pub fn new(program: &Program) -> Scratch {
        Scratch {
            // One more than the deepest stack: `Stack` keeps a placeholder below the bottom.
            stack: Vec::with_capacity(program.max_stack() as usize + 1),
            rets: Vec::with_capacity(program.max_calls() as usize),
            temps: vec![0; program.temps() as usize],
            decider: DeciderScratch::new(program),
            life: LifeScratch::new(program),
        }
    }

    /// The counters, the decider registers and the lifecycle memory, for the native engine.
    #[cfg(feature = "jit")]
    pub(crate) fn native_parts(&mut self) -> (&mut [u32], &mut DeciderScratch, &mut LifeScratch) {
        (&mut self.temps, &mut self.decider, &mut self.life)
    }
}

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
pub struct Vm<'p> {
    /// The facade, always on the vm (it owns the scratch and the entry lookup).
    engine: Engine<'p>,
}

impl<'p> Vm<'p> {
    /// An executor for `program`.
    pub fn new(program: &'p Program) -> Self {
        Vm {
            engine: Engine::new(program, EngineKind::Vm),
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
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
