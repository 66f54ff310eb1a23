//! Driving an engine through a scenario.

use btvm::{AgentId, CursorSnapshot, Halt, Host, Millis, SnapshotError, Status, Stimulus};
use std::collections::BTreeMap;

use super::{FlagWord, InputKind, Scenario, ScriptedHost, Trace, TraceSink};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Model, Tree};
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

/// An input resolved against the tree's flag, stimulus and variable tables.
#[derive(Clone, Debug)]
enum Given {
    Flags(u32),
    Stimulus {
        bit: u32,
        timeout: Option<Millis>,
        data: i64,
    },
    Event(String),
    Set(String, bool),
    Restore(CursorSnapshot),
    SaveRestore,
}

/// Per tick: the inputs, each for one agent or all (`None`).
type Inputs = BTreeMap<u32, Vec<(Option<u32>, Given)>>;

/// Resolves the scenario's `flags`, `stimulus` and `set` names against `tree`.
fn resolve_inputs(tree: &Tree, scenario: &Scenario) -> Result<Inputs, Diagnostic> {
    let mut out = Inputs::new();
    let decider = matches!(tree.config.model, Model::Decider { .. });
    let events = matches!(tree.config.model, Model::Lifecycle | Model::Selection);
    let cursor = matches!(tree.config.model, Model::Cursor { .. });
    for (&k, inputs) in &scenario.inputs {
        for input in inputs {
            let for_events = matches!(input.kind, InputKind::Event(_) | InputKind::Set { .. });
            let for_cursor = matches!(input.kind, InputKind::Restore(_) | InputKind::SaveRestore);
            if for_cursor {
                if !cursor {
                    return Err(Diagnostic::new(
                        ErrorKind::InvalidValue,
                        input.span,
                        "saved cursors are inputs of cursor-model (Drag[en]gine) trees only",
                    ));
                }
            } else if for_events && !events {
                return Err(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    input.span,
                    "events and variables are inputs of lifecycle (MBT) and selection (BST) \
                     trees only",
                ));
            }
            if !for_events && !for_cursor && !decider {
                return Err(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    input.span,
                    "decision flags and stimuli are inputs of decider (Spore) trees only",
                ));
            }
            let bit_of = |table: &[String], name: &str, what: &str| {
                table
                    .iter()
                    .position(|n| n == name)
                    .map(|b| b as u32)
                    .ok_or_else(|| {
                        Diagnostic::new(
                            ErrorKind::UnknownName,
                            input.span,
                            format!("the tree declares no {what} `{name}`"),
                        )
                        .with_note(format!("its {what}s: {}", table.join(", ")))
                    })
            };
            let given = match &input.kind {
                InputKind::Flags(FlagWord::Word(w)) => Given::Flags(*w),
                InputKind::Flags(FlagWord::Names(names)) => {
                    let mut w = 0u32;
                    for n in names {
                        w |= 1 << bit_of(&tree.flags, n, "decision flag")?;
                    }
                    Given::Flags(w)
                }
                InputKind::Stimulus {
                    name,
                    timeout,
                    data,
                } => Given::Stimulus {
                    bit: bit_of(&tree.stimuli, name, "stimulus")?,
                    timeout: *timeout,
                    data: *data,
                },
                InputKind::Event(name) => Given::Event(name.clone()),
                InputKind::Set { var, value } => {
                    if !tree.vars.iter().any(|v| v.name.eq_ignore_ascii_case(var)) {
                        let names: Vec<&str> = tree.vars.iter().map(|v| v.name.as_str()).collect();
                        return Err(Diagnostic::new(
                            ErrorKind::UnknownName,
                            input.span,
                            format!("the scenario sets variable `{var}`, which the tree does not declare"),
                        )
                        .with_note(if names.is_empty() {
                            "the tree declares no variables".to_string()
                        } else {
                            format!("its variables: {}", names.join(", "))
                        }));
                    }
                    Given::Set(var.clone(), *value)
                }
                InputKind::Restore(snap) => Given::Restore(snap.clone()),
                InputKind::SaveRestore => Given::SaveRestore,
            };
            out.entry(k).or_default().push((input.agent, given));
        }
    }
    Ok(out)
}

/// Where a run starts and stops, for runs that are saved and resumed (`btvm run --save-at`,
/// `--restore`).
#[derive(Clone, Debug, Default)]
pub struct Session {
    /// The first tick to run (a resumed run continues at the tick it was saved before).
    pub from: u32,
    /// Stop before this tick and save every agent's cursor.
    pub save_at: Option<u32>,
    /// Restore these cursors (one per agent, in agent order) before the first tick.
    pub restore: Option<Vec<CursorSnapshot>>,
    /// Decider trees: keep the debug output of this level (1 to 5; 0 none) in
    /// [`Outcome::debug`]. Only the reference engine reports it.
    pub debug_level: u8,
    /// The bounds on the scenario's agents and ticks (and on the tree's program).
    pub limits: btvm::Limits,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The trace of the ticks run (empty from [`stream_session`], which hands it to its sink).
    pub trace: Trace,
    /// The saved cursors (with [`Session::save_at`]), one per agent.
    pub saved: Option<Vec<CursorSnapshot>>,
    /// Decider trees: each agent's state after the run, one per agent.
    pub deciders: Vec<btvm::DeciderView>,
    /// The debug lines of [`Session::debug_level`], in order (empty from [`stream_session`]).
    pub debug: Vec<String>,
    /// Why native code was asked for but the vm ran: only ever a program larger than native
    /// code is compiled for ([`btvm::FallbackKind::TooLarge`]; any other failure to produce
    /// native code is an error). `btvm run` prints it as a note.
    pub fallback: Option<btvm::Fallback>,
}

fn no_agent() -> SnapshotError {
    SnapshotError::Malformed("no such agent".into())
}

struct ReferenceEngine<'t> {
    interp: Interpreter<'t>,
    agents: Vec<AgentState>,
    debug: Option<crate::debug::DebugOutput<'t>>,
    /// The group-scope table every agent of the run shares (lifecycle model).
    scopes: Scopes,
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
struct CompiledEngine<'p> {
    engine: btvm::Engine<'p>,
    /// The engines an agent's calls take in turn: call `k` runs on `turns[k % len]`; empty:
    /// the engine never switches.
    turns: Vec<btvm::EngineKind>,
    states: States,
    /// Calls made so far, per agent (picks the engine).
    calls: Vec<usize>,
}

/// Every agent's state block, in one allocation asked for up front.
struct States {
    bytes: Vec<u8>,
    size: usize,
    agents: usize,
}

impl States {
    /// `agents` fresh blocks of `size` bytes; `None` when the memory cannot be had.
    fn new(agents: usize, size: usize) -> Option<States> {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(agents.checked_mul(size)?).ok()?;
        bytes.resize(agents * size, 0);
        Some(States {
            bytes,
            size,
            agents,
        })
    }

    fn get(&self, agent: usize) -> Option<&[u8]> {
        let at = (agent < self.agents).then(|| agent * self.size)?;
        self.bytes.get(at..at + self.size)
    }

    fn get_mut(&mut self, agent: usize) -> Option<&mut [u8]> {
        let at = (agent < self.agents).then(|| agent * self.size)?;
        self.bytes.get_mut(at..at + self.size)
    }
}

/// A vector of `n` values made by `make`, its memory asked for up front.
fn try_table<T>(n: u32, make: impl FnMut(u32) -> T) -> Option<Vec<T>> {
    let mut table = Vec::new();
    table.try_reserve_exact(n as usize).ok()?;
    table.extend((0..n).map(make));
    Some(table)
}

/// The error for agents whose memory cannot be allocated.
fn out_of_memory(agents: u32) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::ScenarioTooLarge,
        Span::DUMMY,
        format!("cannot allocate the state of {agents} agents"),
    )
}

impl<'p> CompiledEngine<'p> {
    /// The engine for the agent's next call (switched to its turn) and the agent's state.
    fn next(&mut self, agent: u32) -> Option<(&mut btvm::Engine<'p>, &mut [u8])> {
        let i = agent as usize;
        let turn = self.calls.get_mut(i)?;
        if let Some(&kind) = self.turns.get(*turn % self.turns.len().max(1)) {
            self.engine.switch(kind);
        }
        *turn += 1;
        Some((&mut self.engine, self.states.get_mut(i)?))
    }

    fn program(&self) -> &'p btvm::Program {
        self.engine.program()
    }
}

impl Engine for CompiledEngine<'_> {
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
        let program = self.program();
        let state = self.states.get_mut(agent as usize).ok_or_else(no_agent)?;
        program.restore(state, snap)
    }

    fn set_decision_flags(&mut self, agent: u32, word: u32) {
        let program = self.program();
        if let Some(state) = self.states.get_mut(agent as usize) {
            program.set_decision_flags(state, word);
        }
    }

    fn add_stimulus(&mut self, agent: u32, bit: u32, stimulus: Stimulus) {
        let program = self.program();
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
        let program = self.program();
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
fn compiled(
    program: &btvm::Program,
    kind: btvm::EngineKind,
) -> Result<btvm::Engine<'_>, Diagnostic> {
    let engine = btvm::Engine::new(program, kind);
    match engine.fallback() {
        Some(why) if why.kind() != btvm::FallbackKind::TooLarge => Err(Diagnostic::new(
            ErrorKind::InvalidProgram,
            Span::DUMMY,
            format!("native code is not available: {why}"),
        )
        .with_note("`--engine vm` runs the same program on the bytecode vm")),
        _ => Ok(engine),
    }
}

/// Runs `tree` through `scenario` on `engine` and returns the trace.
///
/// Fails if the engine cannot run the tree, or if the scenario names an entry point the tree
/// does not have.
pub fn run(tree: &Tree, scenario: &Scenario, engine: EngineKind) -> Result<Trace, Diagnostic> {
    run_session(tree, scenario, engine, &Session::default()).map(|o| o.trace)
}

/// [`run`] over part of a scenario: from tick `session.from`, optionally restoring saved
/// cursors first, and optionally stopping before tick `session.save_at` to save them. A run
/// saved at tick N and resumed from N with the saved cursors gives the same trace as one run,
/// as long as the scenario's answers do not count calls (use constants or `@K` schedules).
/// The whole trace is kept in memory: [`stream_session`] hands it on instead.
pub fn run_session(
    tree: &Tree,
    scenario: &Scenario,
    engine: EngineKind,
    session: &Session,
) -> Result<Outcome, Diagnostic> {
    let mut kept = Kept::default();
    let mut outcome = stream_session(tree, scenario, engine, session, &mut kept)?;
    outcome.trace = kept.trace;
    outcome.debug = kept.debug;
    Ok(outcome)
}

/// What [`run_session`] keeps: the trace and the debug lines.
#[derive(Default)]
struct Kept {
    trace: Trace,
    debug: Vec<String>,
}

impl TraceSink for Kept {
    fn line(&mut self, line: &str) -> std::io::Result<()> {
        self.trace.line(line)
    }

    fn debug(&mut self, line: &str) -> std::io::Result<()> {
        self.debug.push(line.to_string());
        Ok(())
    }
}

/// [`run_session`] handing each trace line (and debug line) to `sink` as the run makes it,
/// keeping none: the returned [`Outcome`]'s trace and debug lines are empty. The scenario must
/// stay within `session.limits` (agents, ticks, agent-ticks: [`ErrorKind::ScenarioTooLarge`]),
/// and so must its agents' memory. An error from the sink stops the run at once: it fails
/// with an [`ErrorKind::Io`] diagnostic (the sink knows which error it returned).
pub fn stream_session(
    tree: &Tree,
    scenario: &Scenario,
    engine: EngineKind,
    session: &Session,
    sink: &mut dyn TraceSink,
) -> Result<Outcome, Diagnostic> {
    check_scenario(tree, scenario)?;
    check_size(scenario, &session.limits)?;
    match engine {
        EngineKind::Reference => {
            let interp = Interpreter::new(tree)?;
            let agents = try_table(scenario.agents, |a| interp.new_agent(AgentId(a)))
                .ok_or_else(|| out_of_memory(scenario.agents))?;
            let mut host = ScriptedHost::for_tree(scenario, tree);
            let debug = (session.debug_level > 0)
                .then(|| crate::debug::DebugOutput::new(tree, session.debug_level));
            let mut engine = ReferenceEngine {
                interp,
                agents,
                debug,
                scopes: Scopes::new(),
            };
            let saved = drive(&mut engine, tree, scenario, session, &mut host, sink)?;
            Ok(Outcome {
                trace: Trace::new(),
                saved,
                deciders: views(&engine, scenario),
                debug: Vec::new(),
                fallback: None,
            })
        }
        EngineKind::Vm => run_compiled(tree, scenario, &[btvm::EngineKind::Vm], session, sink),
        EngineKind::Native => {
            run_compiled(tree, scenario, &[btvm::EngineKind::Native], session, sink)
        }
    }
}

/// Refuses a scenario past `limits` (a scenario changed after parsing, e.g. by `btvm run
/// --agents`; [`parse_scenario_with`](super::parse_scenario_with) refuses it at its text).
fn check_size(scenario: &Scenario, limits: &btvm::Limits) -> Result<(), Diagnostic> {
    let agent_ticks = u64::from(scenario.agents) * u64::from(scenario.ticks);
    let over = if scenario.agents > limits.max_agents {
        format!(
            "{} agents is more than the limit of {}",
            scenario.agents, limits.max_agents
        )
    } else if scenario.ticks > limits.max_ticks {
        format!(
            "{} ticks is more than the limit of {}",
            scenario.ticks, limits.max_ticks
        )
    } else if agent_ticks > limits.max_agent_ticks {
        format!(
            "{} agents x {} ticks is {agent_ticks} agent-ticks, more than the limit of {}",
            scenario.agents, scenario.ticks, limits.max_agent_ticks
        )
    } else {
        return Ok(());
    };
    Err(Diagnostic::new(
        ErrorKind::ScenarioTooLarge,
        Span::DUMMY,
        over,
    ))
}

/// Runs `tree` through `scenario` on one compiled engine whose kind changes call by call: the
/// k-th call an agent gets (tick, entry or event) runs on `turns[k % turns.len()]`, over the
/// same state blocks (`btvm::Engine::switch`). With `[Vm, Native]` this shows that the vm and
/// native code share one state layout and can hand an agent to each other between any two
/// calls. Every kind in `turns` must be available (native code must compile).
pub fn run_taking_turns(
    tree: &Tree,
    scenario: &Scenario,
    turns: &[btvm::EngineKind],
) -> Result<Trace, Diagnostic> {
    check_scenario(tree, scenario)?;
    let session = Session::default();
    check_size(scenario, &session.limits)?;
    let mut trace = Trace::new();
    run_compiled(tree, scenario, turns, &session, &mut trace)?;
    Ok(trace)
}

/// The compiled engines' half of [`run_session`], taking `turns` as [`run_taking_turns`] does.
fn run_compiled(
    tree: &Tree,
    scenario: &Scenario,
    turns: &[btvm::EngineKind],
    session: &Session,
    sink: &mut dyn TraceSink,
) -> Result<Outcome, Diagnostic> {
    if session.debug_level > 0 {
        return Err(Diagnostic::new(
            ErrorKind::Unsupported,
            Span::DUMMY,
            "debug output comes from the reference interpreter's observer",
        )
        .with_note("run with `--engine reference`: every engine makes the same decisions"));
    }
    let program = crate::lower::lower(tree, &session.limits).map_err(|mut d| d.swap_remove(0))?;
    // Every kind the run takes must exist (native code must compile): check each, then run
    // one engine, switched between them.
    let mut base = None;
    for &k in turns {
        let e = compiled(&program, k)?;
        base.get_or_insert(e);
    }
    let Some(base) = base else {
        return Err(Diagnostic::new(
            ErrorKind::InvalidProgram,
            Span::DUMMY,
            "no engine to run",
        ));
    };
    let fallback = base.fallback().cloned();
    let mut host = ScriptedHost::for_tree(scenario, tree);
    let turns = if turns.len() > 1 {
        turns.to_vec()
    } else {
        Vec::new()
    };
    let mut engine = compiled_engine(&program, scenario, base, turns)?;
    let saved = drive(&mut engine, tree, scenario, session, &mut host, sink)?;
    Ok(Outcome {
        trace: Trace::new(),
        saved,
        deciders: views(&engine, scenario),
        debug: Vec::new(),
        fallback,
    })
}

/// Refuses a scenario that cannot run `tree` on any engine: it says an import the tree needs is
/// missing, runs entries in a model without them, or names an entry the tree does not have.
fn check_scenario(tree: &Tree, scenario: &Scenario) -> Result<(), Diagnostic> {
    if !matches!(tree.config.model, Model::Cursor { .. }) {
        if let Some(imp) = tree
            .imports
            .iter()
            .find(|i| scenario.missing.contains(&i.name))
        {
            return Err(Diagnostic::new(
                ErrorKind::UnknownName,
                Span::DUMMY,
                format!(
                    "the host has no {} `{}` (the scenario says it is missing)",
                    imp.kind.name(),
                    imp.name
                ),
            ));
        }
    }
    if matches!(tree.config.model, Model::Lifecycle | Model::Selection) {
        if let Some(name) = scenario.entries.values().flatten().next() {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                Span::DUMMY,
                format!("the scenario runs entry `{name}`, but MBT and BST trees run only their main tree"),
            ));
        }
    }
    for names in scenario.entries.values() {
        for name in names {
            if tree.entry(name).is_none() {
                let known: Vec<&str> = tree.roots.iter().map(|e| e.name.as_str()).collect();
                return Err(Diagnostic::new(
                    ErrorKind::UnknownName,
                    Span::DUMMY,
                    format!("the scenario runs entry `{name}`, which the tree does not have"),
                )
                .with_note(format!("the tree's entries: {}", known.join(", "))));
            }
        }
    }
    Ok(())
}

/// Every agent's decider view (empty for other models).
fn views(engine: &dyn Engine, scenario: &Scenario) -> Vec<btvm::DeciderView> {
    (0..scenario.agents)
        .filter_map(|a| engine.decider_view(a))
        .collect()
}

fn compiled_engine<'p>(
    program: &btvm::Program,
    scenario: &Scenario,
    engine: btvm::Engine<'p>,
    turns: Vec<btvm::EngineKind>,
) -> Result<CompiledEngine<'p>, Diagnostic> {
    let n = scenario.agents;
    let states = States::new(n as usize, program.state_size()).ok_or_else(|| out_of_memory(n))?;
    let calls = try_table(n, |_| 0).ok_or_else(|| out_of_memory(n))?;
    Ok(CompiledEngine {
        engine,
        turns,
        states,
        calls,
    })
}

/// Runs `scenario` with `engine` for `program` (the lowering of `tree`), for tests that build
/// engines with their own configuration (e.g. native code compiled in small chunks). The
/// engine is never switched, so it runs the code it was built with.
pub fn run_engines(
    tree: &Tree,
    program: &btvm::Program,
    scenario: &Scenario,
    engine: btvm::Engine<'_>,
) -> Trace {
    let mut host = ScriptedHost::for_tree(scenario, tree);
    let mut trace = Trace::new();
    // A whole scenario without saving, into a trace, fails only for want of memory: the
    // trace then ends where the run stopped (empty).
    if let Ok(mut engine) = compiled_engine(program, scenario, engine, Vec::new()) {
        let _ = drive(
            &mut engine,
            tree,
            scenario,
            &Session::default(),
            &mut host,
            &mut trace,
        );
    }
    trace
}

/// A save and a load of the game for one agent: its element record is written, the agent is
/// reset (a new game object) and the record is read back into it.
fn save_restore(engine: &mut dyn Engine, agent: u32) -> Result<(), SnapshotError> {
    let mut bytes = Vec::new();
    engine.snapshot(agent)?.encode(&mut bytes)?;
    let (snap, _) = CursorSnapshot::decode(&bytes)?;
    engine.reset(agent);
    engine.restore(agent, &snap)
}

/// Hands the agent-tick's trace and debug lines to `sink`; its error stops the run.
fn flush(
    engine: &mut dyn Engine,
    host: &mut ScriptedHost<'_>,
    sink: &mut dyn TraceSink,
) -> Result<(), Diagnostic> {
    let written = host.flush_to(sink).and_then(|()| {
        engine
            .take_debug()
            .iter()
            .try_for_each(|line| sink.debug(line))
    });
    written.map_err(|e| {
        Diagnostic::new(
            ErrorKind::Io,
            Span::DUMMY,
            format!("cannot write the trace: {e}"),
        )
    })
}

/// Before the first tick: AI groups, and the saved cursors of `session.restore`.
fn set_up(
    engine: &mut dyn Engine,
    tree: &Tree,
    scenario: &Scenario,
    session: &Session,
) -> Result<(), Diagnostic> {
    for (&agent, &group) in &scenario.groups {
        if tree.config.model != Model::Lifecycle {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                Span::DUMMY,
                format!("`agent {agent} group {group}`: only MBT trees have AI groups"),
            ));
        }
        if agent >= scenario.agents {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                Span::DUMMY,
                format!(
                    "`agent {agent} group {group}`: the scenario runs {} agents",
                    scenario.agents
                ),
            ));
        }
        engine.set_group(agent, group);
    }
    if let Some(snaps) = &session.restore {
        if snaps.len() != scenario.agents as usize {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                Span::DUMMY,
                format!(
                    "the saved state holds {} agents; the scenario runs {}",
                    snaps.len(),
                    scenario.agents
                ),
            ));
        }
        for (agent, snap) in (0..scenario.agents).zip(snaps) {
            engine
                .restore(agent, snap)
                .map_err(|e| snapshot_error(agent, e))?;
        }
    }
    Ok(())
}

/// A cursor that could not be saved or restored.
fn snapshot_error(agent: u32, e: SnapshotError) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::InvalidValue,
        Span::DUMMY,
        format!("agent {agent}: {e}"),
    )
}

/// The scenario loop shared by every engine.
fn drive(
    engine: &mut dyn Engine,
    tree: &Tree,
    scenario: &Scenario,
    session: &Session,
    host: &mut ScriptedHost<'_>,
    sink: &mut dyn TraceSink,
) -> Result<Option<Vec<CursorSnapshot>>, Diagnostic> {
    let limit = match tree.config.model {
        Model::Cursor { runaway_limit } => runaway_limit,
        Model::Decider { redecide_limit } => redecide_limit,
        _ => 0,
    };
    let inputs = resolve_inputs(tree, scenario)?;
    set_up(engine, tree, scenario, session)?;
    let end = session
        .save_at
        .map_or(scenario.ticks, |s| s.min(scenario.ticks));
    for k in session.from..end {
        let now = scenario.now(k);
        host.set_tick(k);
        for agent in 0..scenario.agents {
            if scenario.agents > 1 {
                host.note(format!("tick {k} now {now} agent {agent}"));
            } else {
                host.note(format!("tick {k} now {now}"));
            }
            if scenario.resets.contains(&k) {
                // The line comes first: the terminate calls of a lifecycle tree's restart
                // follow it.
                host.note("reset".into());
                engine.restart(agent, host, now);
            }
            for (only, given) in inputs.get(&k).into_iter().flatten() {
                if only.is_some_and(|a| a != agent) {
                    continue;
                }
                match given {
                    Given::Flags(w) => engine.set_decision_flags(agent, *w),
                    Given::Stimulus { bit, timeout, data } => {
                        engine.add_stimulus(agent, *bit, Stimulus::new(now, *timeout, *data))
                    }
                    Given::Event(name) => engine.event(agent, host, name, now),
                    Given::Set(var, value) => engine.set_var(agent, var, *value),
                    Given::Restore(snap) => {
                        if let Err(e) = engine.restore(agent, snap) {
                            host.note(format!("error {e}"));
                        }
                    }
                    Given::SaveRestore => {
                        if let Err(e) = save_restore(engine, agent) {
                            host.note(format!("error {e}"));
                        }
                    }
                }
            }
            for entry in scenario.entries.get(&k).into_iter().flatten() {
                if let Some(s) = engine.run_entry(agent, entry, host, now) {
                    host.note(format!("entry {entry} {s}"));
                }
            }
            let halted = engine.halt(agent).is_some();
            let s = engine.tick(agent, host, now);
            host.note(match (halted, engine.halt(agent)) {
                (true, _) => "stopped".into(),
                (false, Some(Halt::RunAway)) => format!("error run-away after {limit} rule runs"),
                _ if engine.loop_guard(agent) => format!("error redecide limit {limit} exceeded"),
                _ => format!("root {s}"),
            });
            flush(engine, host, sink)?;
        }
    }
    if session.save_at.is_none() {
        return Ok(None);
    }
    (0..scenario.agents)
        .map(|agent| engine.snapshot(agent).map_err(|e| snapshot_error(agent, e)))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_scenario;
    use crate::source::FileId;

    fn tree(text: &str) -> Tree {
        crate::syntax::canonical::parse(FileId(0), text, &btvm::Limits::default()).unwrap()
    }

    #[test]
    fn setting_an_unknown_variable_is_an_error_naming_it() {
        let t = tree("btvm 1;\ndialect mbt;\nvar Alive: bool = true;\nroot main = const running\n");
        let scn =
            parse_scenario(FileId(1), "at 1 set ALIVE = false\nat 2 set dead = true\n").unwrap();
        let err = run(&t, &scn, EngineKind::Reference).unwrap_err();
        assert_eq!(err.kind, ErrorKind::UnknownName);
        assert!(err.message.contains("`dead`"), "{}", err.message);
        assert!(
            err.notes.iter().any(|n| n.contains("Alive")),
            "{:?}",
            err.notes
        );
    }

    #[test]
    fn events_and_sets_belong_to_mbt_and_bst_trees() {
        let t = tree("btvm 1;\ndialect unvanquished;\nroot main = const success\n");
        let scn = parse_scenario(FileId(1), "at 1 event go\n").unwrap();
        let err = run(&t, &scn, EngineKind::Reference).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidValue);
        let t =
            tree("btvm 1;\ndialect bst;\nroot main = select \"x\"\nroot other = select \"y\"\n");
        let scn = parse_scenario(FileId(1), "at 1 entry other\n").unwrap();
        let err = run(&t, &scn, EngineKind::Reference).unwrap_err();
        assert!(err.message.contains("main tree"), "{}", err.message);
    }

    #[test]
    fn the_scripted_host_traces_logs_and_selections_quoted() {
        let t = tree(
            "btvm 1;\ndialect mbt;\nroot main = sequence remember { log \"a \\\"b\\\"\\n\" const running }\n",
        );
        let scn = parse_scenario(FileId(1), "ticks 1\n").unwrap();
        let trace = run(&t, &scn, EngineKind::Reference).unwrap();
        assert_eq!(
            trace.lines(),
            ["tick 0 now 0", "log \"a \\\"b\\\"\\n\"", "root running"]
        );
        let t = tree("btvm 1;\ndialect bst;\nroot main = select \"\\u{7}x\"\n");
        let trace = run(&t, &scn, EngineKind::Reference).unwrap();
        assert_eq!(
            trace.lines(),
            ["tick 0 now 0", "select \"\\u{7}x\"", "root success"]
        );
    }
}
