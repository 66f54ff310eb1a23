//! Driving an engine through a scenario.

use btvm::{AgentId, Halt, Host, Millis, Status};

use super::{Scenario, ScriptedHost, Trace};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Model, Tree};
use crate::reference::{AgentState, Interpreter};
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
    /// The vm and native code taking turns on the same state blocks (each call an agent gets,
    /// tick or entry, goes to the other engine than its previous one): proves the two engines
    /// share one state layout.
    Switching,
}

impl EngineKind {
    /// Every engine that exists, in the order the conformance runner tries them.
    pub const ALL: [EngineKind; 3] = [EngineKind::Reference, EngineKind::Vm, EngineKind::Native];

    /// [`EngineKind::ALL`] plus the switching test engine.
    pub const TESTED: [EngineKind; 4] = [
        EngineKind::Reference,
        EngineKind::Vm,
        EngineKind::Native,
        EngineKind::Switching,
    ];

    /// The engine's name (`--engine`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Reference => "reference",
            EngineKind::Vm => "vm",
            EngineKind::Native => "native",
            EngineKind::Switching => "vm+native",
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
    /// Makes the agent's state fresh.
    fn reset(&mut self, agent: u32);
}

struct ReferenceEngine<'t> {
    interp: Interpreter<'t>,
    agents: Vec<AgentState>,
}

impl Engine for ReferenceEngine<'_> {
    fn tick(&mut self, agent: u32, host: &mut dyn Host, now: Millis) -> Status {
        match self.agents.get_mut(agent as usize) {
            Some(state) => self.interp.tick(state, host, now),
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
        let state = self.agents.get_mut(agent as usize)?;
        self.interp.run_entry(entry, state, host, now)
    }

    fn halt(&self, agent: u32) -> Option<Halt> {
        self.agents.get(agent as usize)?.halt()
    }

    fn reset(&mut self, agent: u32) {
        if let Some(state) = self.agents.get_mut(agent as usize) {
            self.interp.reset(state);
        }
    }
}

/// The vm or native code (or both, taking turns) over per-agent state blocks.
struct CompiledEngine<'p> {
    /// The engines used in turn: an agent's call `k` uses `engines[k % len]`.
    engines: Vec<btvm::Engine<'p>>,
    states: Vec<Vec<u8>>,
    /// Calls made so far, per agent (picks the engine).
    ticks: Vec<usize>,
}

impl<'p> CompiledEngine<'p> {
    fn next(&mut self, agent: u32) -> Option<(&mut btvm::Engine<'p>, &mut Vec<u8>)> {
        let i = agent as usize;
        let turn = self.ticks.get_mut(i)?;
        let k = *turn % self.engines.len().max(1);
        *turn += 1;
        Some((self.engines.get_mut(k)?, self.states.get_mut(i)?))
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
        let program = self.engines.first()?.program();
        program.halt(self.states.get(agent as usize)?)
    }

    fn reset(&mut self, agent: u32) {
        if let (Some(e), Some(state)) = (self.engines.first(), self.states.get_mut(agent as usize))
        {
            e.program().reset(state);
        }
    }
}

/// A compiled engine of `kind`; native code that cannot be produced is an error here (tests
/// and `btvm run` must know which engine ran).
fn compiled(
    program: &btvm::Program,
    kind: btvm::EngineKind,
) -> Result<btvm::Engine<'_>, Diagnostic> {
    let engine = btvm::Engine::new(program, kind);
    match engine.fallback() {
        Some(why) => Err(Diagnostic::new(
            ErrorKind::InvalidProgram,
            Span::DUMMY,
            format!("native code is not available: {why}"),
        )
        .with_note("`--engine vm` runs the same program on the bytecode vm")),
        None => Ok(engine),
    }
}

/// Runs `tree` through `scenario` on `engine` and returns the trace.
///
/// Fails if the engine cannot run the tree, or if the scenario names an entry point the tree
/// does not have.
pub fn run(tree: &Tree, scenario: &Scenario, engine: EngineKind) -> Result<Trace, Diagnostic> {
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
    match engine {
        EngineKind::Reference => {
            let interp = Interpreter::new(tree)?;
            let agents = (0..scenario.agents)
                .map(|a| interp.new_agent(AgentId(a)))
                .collect();
            let mut host = ScriptedHost::new(scenario, &tree.imports);
            drive(
                &mut ReferenceEngine { interp, agents },
                tree,
                scenario,
                &mut host,
            );
            Ok(host.into_trace())
        }
        EngineKind::Vm | EngineKind::Native | EngineKind::Switching => {
            let program = crate::lower::lower(tree, &btvm::Limits::default())
                .map_err(|mut d| d.swap_remove(0))?;
            let kinds: &[btvm::EngineKind] = match engine {
                EngineKind::Vm => &[btvm::EngineKind::Vm],
                EngineKind::Native => &[btvm::EngineKind::Native],
                _ => &[btvm::EngineKind::Vm, btvm::EngineKind::Native],
            };
            let engines = kinds
                .iter()
                .map(|&k| compiled(&program, k))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(run_engines(tree, &program, scenario, engines))
        }
    }
}

/// Runs `scenario` with compiled engines for `program` (the lowering of `tree`), taking turns
/// per agent when there are several (see [`EngineKind::Switching`]); for tests that build
/// engines with their own configuration.
pub fn run_engines(
    tree: &Tree,
    program: &btvm::Program,
    scenario: &Scenario,
    engines: Vec<btvm::Engine<'_>>,
) -> Trace {
    let mut host = ScriptedHost::new(scenario, &tree.imports);
    let mut engine = CompiledEngine {
        engines,
        states: (0..scenario.agents).map(|_| program.new_state()).collect(),
        ticks: vec![0; scenario.agents as usize],
    };
    drive(&mut engine, tree, scenario, &mut host);
    host.into_trace()
}

/// The scenario loop shared by every engine.
fn drive(engine: &mut dyn Engine, tree: &Tree, scenario: &Scenario, host: &mut ScriptedHost<'_>) {
    let limit = match tree.config.model {
        Model::Cursor { runaway_limit } => runaway_limit,
        _ => 0,
    };
    for k in 0..scenario.ticks {
        let now = scenario.now(k);
        host.set_tick(k);
        for agent in 0..scenario.agents {
            if scenario.agents > 1 {
                host.note(format!("tick {k} now {now} agent {agent}"));
            } else {
                host.note(format!("tick {k} now {now}"));
            }
            if scenario.resets.contains(&k) {
                engine.reset(agent);
                host.note("reset".into());
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
                _ => format!("root {s}"),
            });
        }
    }
}
