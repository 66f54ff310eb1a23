//! Driving an engine through a scenario.

use btvm::{AgentId, Host, Millis, Status};

use super::{Scenario, ScriptedHost, Trace};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::reference::{AgentState, Interpreter};
use crate::source::Span;

/// The engines a scenario can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// The reference interpreter (the oracle).
    Reference,
    /// The bytecode virtual machine.
    Vm,
}

impl EngineKind {
    /// Every engine that exists, in the order the conformance runner tries them.
    pub const ALL: [EngineKind; 2] = [EngineKind::Reference, EngineKind::Vm];

    /// The engine's name (`--engine`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Reference => "reference",
            EngineKind::Vm => "vm",
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
}

struct VmEngine<'p> {
    vm: btvm::Vm<'p>,
    states: Vec<Vec<u8>>,
}

impl Engine for VmEngine<'_> {
    fn tick(&mut self, agent: u32, host: &mut dyn Host, now: Millis) -> Status {
        match self.states.get_mut(agent as usize) {
            Some(state) => self
                .vm
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
        let state = self.states.get_mut(agent as usize)?;
        self.vm
            .run_entry(entry, state, AgentId(agent), host, now)
            .ok()
    }
}

/// Runs `tree` through `scenario` on `engine` and returns the trace.
///
/// Fails if the engine cannot run the tree, or if the scenario names an entry point the tree
/// does not have.
pub fn run(tree: &Tree, scenario: &Scenario, engine: EngineKind) -> Result<Trace, Diagnostic> {
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
            drive(&mut ReferenceEngine { interp, agents }, scenario, &mut host);
            Ok(host.into_trace())
        }
        EngineKind::Vm => {
            let program = crate::lower::lower(tree, &btvm::Limits::default())
                .map_err(|mut d| d.swap_remove(0))?;
            let mut host = ScriptedHost::new(scenario, &tree.imports);
            let states = (0..scenario.agents).map(|_| program.new_state()).collect();
            let mut engine = VmEngine {
                vm: btvm::Vm::new(&program),
                states,
            };
            drive(&mut engine, scenario, &mut host);
            Ok(host.into_trace())
        }
    }
}

/// The scenario loop shared by every engine.
fn drive(engine: &mut dyn Engine, scenario: &Scenario, host: &mut ScriptedHost<'_>) {
    for k in 0..scenario.ticks {
        let now = scenario.now(k);
        host.set_tick(k);
        for agent in 0..scenario.agents {
            if scenario.agents > 1 {
                host.note(format!("tick {k} now {now} agent {agent}"));
            } else {
                host.note(format!("tick {k} now {now}"));
            }
            for entry in scenario.entries.get(&k).into_iter().flatten() {
                if let Some(s) = engine.run_entry(agent, entry, host, now) {
                    host.note(format!("entry {entry} {s}"));
                }
            }
            let s = engine.tick(agent, host, now);
            host.note(format!("root {s}"));
        }
    }
}
