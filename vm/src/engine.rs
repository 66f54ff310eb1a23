//! One facade over the fast engines: pick the vm or native code, get a working engine either
//! way.
//!
//! [`Engine::new`] with [`EngineKind::Native`] compiles the program to machine code (once per
//! program, cached by [`Program::native`]). **If that fails** — no Cranelift backend for this
//! machine, the crate built without the `jit` feature, or a code-generation error — **the
//! engine falls back to the vm**, which runs the same program with identical results;
//! [`Engine::kind`] says which engine is running and [`Engine::fallback`] why native code is not.
//! Callers that must have native code use [`NativeCode::compile`](crate::native::NativeCode)
//! directly and handle the error.

use std::fmt;

use crate::exec::{self, Scratch};
use crate::{AgentId, Host, Millis, Program, SnapshotError, Status, VmError};

/// An engine that runs compiled programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// The bytecode interpreter.
    Vm,
    /// Machine code compiled with Cranelift.
    Native,
}

impl EngineKind {
    /// The engine's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Vm => "vm",
            EngineKind::Native => "native",
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why native code is not in use: its [`kind`](Fallback::kind), and the reason in words
/// (its `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback {
    kind: FallbackKind,
    message: String,
}

/// What made an engine fall back to the vm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FallbackKind {
    /// btvm was built without native code (feature `jit`).
    NotBuilt,
    /// The program is larger than native code is compiled for
    /// (`NativeConfig::max_instructions`): a deliberate choice, the vm runs it as well.
    TooLarge,
    /// Native code could not be produced (no backend for this machine, a code-generation
    /// error).
    Failed,
}

impl Fallback {
    /// What made the engine fall back.
    pub fn kind(&self) -> FallbackKind {
        self.kind
    }
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A program's code as one engine runs it.
#[derive(Clone, Debug)]
pub(crate) enum Code {
    Vm,
    #[cfg(feature = "jit")]
    Native(std::sync::Arc<crate::native::NativeCode>),
}

impl Code {
    /// The code for `kind`, falling back to the vm (with the reason) when native code is
    /// unavailable.
    pub(crate) fn select(program: &Program, kind: EngineKind) -> (Code, Option<Fallback>) {
        match kind {
            EngineKind::Vm => (Code::Vm, None),
            #[cfg(feature = "jit")]
            EngineKind::Native => match program.native_shared() {
                Ok(code) => (Code::Native(code.clone()), None),
                Err(e) => {
                    let kind = match e.kind() {
                        crate::native::NativeErrorKind::TooLarge => FallbackKind::TooLarge,
                        _ => FallbackKind::Failed,
                    };
                    let message = e.to_string();
                    (Code::Vm, Some(Fallback { kind, message }))
                }
            },
            #[cfg(not(feature = "jit"))]
            EngineKind::Native => {
                let _ = program;
                (
                    Code::Vm,
                    Some(Fallback {
                        kind: FallbackKind::NotBuilt,
                        message: "btvm was built without the `jit` feature".to_string(),
                    }),
                )
            }
        }
    }

    pub(crate) fn kind(&self) -> EngineKind {
        match self {
            Code::Vm => EngineKind::Vm,
            #[cfg(feature = "jit")]
            Code::Native(_) => EngineKind::Native,
        }
    }

    /// Runs function `func` for one agent (the state size is checked by the caller).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn run<H: Host + ?Sized>(
        &self,
        program: &Program,
        scratch: &mut Scratch,
        func: u32,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Status {
        match self {
            #[cfg(feature = "jit")]
            Code::Native(code) => {
                crate::native::run(code, program, scratch, func, state, agent, host, now)
            }
            _ => exec::run(program, scratch, func, state, agent, host, now),
        }
    }

    /// Ticks function `func` for the agents `ids` (one state block of `program.state_size()`
    /// bytes and one id per status, contiguous in `states`), telling the host before each
    /// agent ([`Host::before_tick`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_many<H: Host + ?Sized>(
        &self,
        program: &Program,
        scratch: &mut Scratch,
        func: u32,
        states: &mut [u8],
        ids: &[AgentId],
        statuses: &mut [Status],
        host: &mut H,
        now: Millis,
    ) {
        match self {
            #[cfg(feature = "jit")]
            Code::Native(code) => crate::native::run_many(
                code,
                program,
                scratch,
                func,
                states,
                ids,
                statuses,
                host,
                now,
                crate::native::BeforeTick::Call,
            ),
            _ => {
                // One block, status and id per agent (the callers pass as many of each); a
                // program with no state has empty blocks.
                let size = program.state_size();
                let mut empty = [0u8; 0];
                let mut blocks = states.chunks_exact_mut(size.max(1));
                for (status, &agent) in statuses.iter_mut().zip(ids) {
                    let state = match size {
                        0 => &mut empty[..],
                        _ => match blocks.next() {
                            Some(state) => state,
                            None => break,
                        },
                    };
                    host.before_tick(agent);
                    *status = exec::run(program, scratch, func, state, agent, host, now);
                }
            }
        }
    }
}

/// Runs a program for agents whose state blocks the caller owns, on the vm or on native code.
///
/// ```
/// # fn demo(program: &btvm::Program, host: &mut impl btvm::Host) -> Result<(), btvm::VmError> {
/// program.bind(host)?;
/// let mut engine = btvm::Engine::new(program, btvm::EngineKind::Native);
/// if let Some(why) = engine.fallback() {
///     eprintln!("running on the vm: {why}");
/// }
/// let mut state = program.new_state();
/// let status = engine.tick(&mut state, btvm::AgentId(0), host, 0)?;
/// # let _ = status; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Engine {
    program: Program,
    code: Code,
    fallback: Option<Fallback>,
    scratch: Scratch,
}

impl Engine {
    /// An engine of `kind` for `program` (which it shares: a [`Program`] is a cheap clone);
    /// asking for native code on a machine or build that cannot produce it gives the vm (see
    /// [`Engine::fallback`]).
    pub fn new(program: &Program, kind: EngineKind) -> Self {
        let (code, fallback) = Code::select(program, kind);
        Engine {
            program: program.clone(),
            code,
            fallback,
            scratch: Scratch::new(program),
        }
    }

    /// An engine running `code`, compiled from `program` with a [`NativeConfig`] of the
    /// caller's choosing (no fallback: code compiled for another program is an error).
    ///
    /// [`NativeConfig`]: crate::native::NativeConfig
    #[cfg(feature = "jit")]
    pub fn with_native(
        program: &Program,
        code: impl Into<std::sync::Arc<crate::native::NativeCode>>,
    ) -> Result<Self, crate::native::NativeError> {
        let code = code.into();
        code.check(program)?;
        Ok(Engine {
            program: program.clone(),
            code: Code::Native(code),
            fallback: None,
            scratch: Scratch::new(program),
        })
    }

    /// Switches to the engine of `kind` (between ticks), keeping what this engine owns: its
    /// working memory and the group-scope counters its agents share (lifecycle model). Since
    /// both engines share one state layout, agents simply continue on the other one. Asking
    /// for native code that cannot be produced gives the vm, as [`Engine::new`] does.
    pub fn switch(&mut self, kind: EngineKind) {
        let (code, fallback) = Code::select(&self.program, kind);
        self.code = code;
        self.fallback = fallback;
    }

    /// The engine actually running.
    pub fn kind(&self) -> EngineKind {
        self.code.kind()
    }

    /// Why native code was asked for but the vm runs instead.
    pub fn fallback(&self) -> Option<&Fallback> {
        self.fallback.as_ref()
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Ticks the main tree once for `agent`, whose state is `state`, at time `now`.
    pub fn tick<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<Status, VmError> {
        let func = self
            .program
            .main()
            .ok_or_else(|| VmError::NoEntry(String::new()))?;
        if state.len() == self.program.state_size() {
            host.before_tick(agent);
        }
        self.run_function(func, state, agent, host, now)
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
        let func = self
            .program
            .entry(entry)
            .ok_or_else(|| VmError::NoEntry(entry.to_string()))?;
        self.run_function(func, state, agent, host, now)
    }

    /// Delivers event `event` to the agent between ticks, at time `now` (lifecycle and
    /// selection models, `spec/mbt.md` 2.4 and `spec/bst.md` 2.4): its signal bindings set
    /// variables, its timestamps are stamped, and (lifecycle) live state machines and
    /// WaitForEvent nodes take note. An event to a stopped tree does nothing; so does a name
    /// the program never uses, and any event in a program of another model (`Ok` either way).
    /// Never allocates.
    pub fn event<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        event: &str,
        now: Millis,
    ) -> Result<(), VmError> {
        let Some(func) = crate::model::lifecycle::event_function(&self.program, event) else {
            return Ok(());
        };
        self.run_function(func, state, agent, host, now).map(|_| ())
    }

    /// Delivers an event resolved once with [`Program::event_id`], exactly as
    /// [`Engine::event`] delivers it by name, without comparing strings. An id from another
    /// program is [`VmError::ForeignEvent`]. Never allocates.
    pub fn event_by_id<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        event: crate::EventId,
        now: Millis,
    ) -> Result<(), VmError> {
        let func = crate::model::lifecycle::event_id_function(&self.program, event)?;
        self.run_function(func, state, agent, host, now).map(|_| ())
    }

    /// Resets an agent: the group scopes it is a member of (lifecycle model) are left, without
    /// any terminate calls, and its state is reset as [`Program::reset`] says (fresh, except in
    /// the running-list model, where cooldown timers survive, and the agent's AI group, which
    /// stays). Other agents of its group may then enter those scopes.
    ///
    /// This is the game's reset in every model but the lifecycle (MBT) model, whose game
    /// terminates the live tree first: use [`Engine::restart_agent`] there.
    pub fn reset_agent(&mut self, state: &mut [u8]) {
        crate::model::lifecycle::leave_scopes(&self.program, &mut self.scratch.life, state);
        self.program.reset(state);
    }

    /// Restores a saved state block (a [`crate::AgentRecord`]'s, or any block from outside)
    /// into the agent whose state is `state`: the block is checked
    /// ([`Program::check_state`]), the agent leaves the group scopes its old state held
    /// (lifecycle model, no host calls), the block is copied in, and the agent is counted in
    /// the group scopes of its AI group that the block says it is a member of. `state` is
    /// unchanged on error.
    pub fn restore_agent(&mut self, state: &mut [u8], saved: &[u8]) -> Result<(), SnapshotError> {
        self.program.check_state(saved)?;
        if state.len() != saved.len() {
            return Err(SnapshotError::StateSize {
                expected: saved.len(),
                found: state.len(),
            });
        }
        crate::model::lifecycle::leave_scopes(&self.program, &mut self.scratch.life, state);
        state.copy_from_slice(saved);
        crate::model::lifecycle::enter_scopes(&self.program, &mut self.scratch.life, state);
        Ok(())
    }

    /// Restarts an agent's tree as its game does, at time `now`.
    ///
    /// In the lifecycle (MBT) model this is CRYENGINE stopping the tree and starting it again
    /// (`spec/mbt.md` 2.7): the live tree is terminated, innermost first, exactly as an
    /// aborted subtree is (a running action's `exit` call, a hooks exit call, a group scope
    /// left; no `_…Log` message), then the state becomes fresh (variables at their defaults,
    /// timestamps never set, a stopped tree running again). [`Host::before_tick`] is not
    /// called. In every other model it is [`Engine::reset_agent`], and `host` is not called.
    /// Never allocates.
    pub fn restart_agent<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        self.stop_agent(state, agent, host, now)?;
        self.reset_agent(state);
        Ok(())
    }

    /// The calls the dialect makes when the agent's live nodes stop, without resetting it: in
    /// the lifecycle (MBT) model the terminate walk of [`Engine::restart_agent`] (exit calls,
    /// innermost first; scopes left), nothing in other models. Hot reload runs it on
    /// [`Carried::stop`](crate::Carried::stop), the old state with only the nodes that do not
    /// survive live.
    pub fn stop_agent<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        match crate::model::lifecycle::restart_function(&self.program) {
            Some(func) => self.run_function(func, state, agent, host, now).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Puts the agent whose state is `state` in AI group `group` (`spec/mbt.md` 2.6; every
    /// agent starts in group 0). Group scopes are per group: only agents of one group compete
    /// for a scope. If the group changes, the agent first leaves every scope it is a member of
    /// in its old group (its GroupScope nodes stay open and leave nothing later). Nothing in a
    /// program without group scopes. Allocates the group's scope table the first time a group
    /// is named, so ticks do not.
    pub fn set_group(&mut self, state: &mut [u8], group: u32) {
        crate::model::lifecycle::set_group(&self.program, &mut self.scratch.life, state, group);
    }

    /// How many agents of AI group `group` ticked through this engine are members of group
    /// scope `scope` now (lifecycle model). Names are compared as the original does: by the
    /// CRC-32 of the lower-cased name ([`crate::scope_id`]). 0 for a scope the program does not
    /// use.
    pub fn scope_users(&self, group: u32, scope: &str) -> u32 {
        self.program
            .scope_slot(scope)
            .map_or(0, |id| self.scratch.life.scope_users(group, id))
    }

    fn run_function<H: Host + ?Sized>(
        &mut self,
        func: u32,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<Status, VmError> {
        if state.len() != self.program.state_size() {
            return Err(VmError::StateSize {
                expected: self.program.state_size(),
                found: state.len(),
            });
        }
        Ok(self.code.run(
            &self.program,
            &mut self.scratch,
            func,
            state,
            agent,
            host,
            now,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Function, FunctionKind, Instr, Layout, ProgramModel, ProgramParts};
    use crate::{Call, Limits, Value};

    /// `root main = const success`: one `finish`.
    fn tiny() -> Program {
        let parts = ProgramParts {
            model: ProgramModel::RunningList,
            single_precision: false,
            clock: 1,
            layout: Layout::default(),
            strings: Vec::new(),
            imports: Vec::new(),
            vars: Vec::new(),
            var_names: Vec::new(),
            temps: 0,
            functions: vec![Function {
                name: "main".into(),
                kind: FunctionKind::Entry,
                start: 0,
                end: 1,
            }],
            rules: Vec::new(),
            stimuli: 0,
            code: vec![Instr::Finish {
                status: Status::Success,
            }],
            nodes: Default::default(),
        };
        Program::new(parts, &Limits::default()).expect("a valid program")
    }

    struct NoHost;

    impl Host for NoHost {
        fn action(&mut self, _: &Call<'_>) -> Status {
            Status::Failure
        }
        fn function(&mut self, _: &Call<'_>) -> Value {
            Value::Bool(false)
        }
    }

    #[test]
    fn every_kind_runs_and_reports_what_runs() {
        let p = tiny();
        for kind in [EngineKind::Vm, EngineKind::Native] {
            let mut engine = Engine::new(&p, kind);
            let mut state = p.new_state();
            let status = engine.tick(&mut state, AgentId(0), &mut NoHost, 0);
            assert_eq!(status, Ok(Status::Success));
            if cfg!(feature = "jit") || kind == EngineKind::Vm {
                assert_eq!(engine.kind(), kind);
                assert!(engine.fallback().is_none());
            } else {
                // Without the `jit` feature, native code falls back to the vm and says why.
                assert_eq!(engine.kind(), EngineKind::Vm);
                let why = engine.fallback().expect("a reason").to_string();
                assert!(why.contains("jit"), "{why}");
            }
        }
    }
}
