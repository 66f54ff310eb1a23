//! Scripted scenarios: run a tree without a game.
//!
//! A [`Scenario`] says how many agents and ticks to run, what time each tick happens at, which
//! entry points to run, what inputs agents get before a tick (decision flags and stimuli for
//! decider trees, events and variable sets for MBT and BST trees), and how every host import
//! answers (`spec/cases/README.md` defines the text format). A [`ScriptedHost`] answers the
//! calls and records the [`Trace`]; [`run`] drives any engine through a scenario. The same
//! scripted host drives every engine, so their traces can be compared line by line.
//!
//! A scenario's agents and ticks are bounded by `btvm::Limits` (`max_agents`, `max_ticks`,
//! `max_agent_ticks`), its agents' memory is asked for before the first tick (a refusal is an
//! error, never an abort), and [`stream_session`] hands the trace on as it is made, so no run
//! holds a whole trace unless its caller keeps one.

mod engines;
mod host;
mod lint;
mod outline;
mod parse;
mod program;
mod reload;
mod run;
mod saved;
mod trace;

pub use engines::{Engine, EngineKind};
pub use host::ScriptedHost;
pub use lint::{lint, lint_outline};
pub use outline::Outline;
pub use parse::{load_scenario, parse_scenario, parse_scenario_with};
pub use program::{run_program, stream_program};
pub use reload::Reloaded;
pub use run::{run, run_engines, run_session, run_taking_turns, stream_session, Outcome, Session};
pub use saved::{SaveFormat, Saved};
pub use trace::{Trace, TraceLine, TraceSink};

use btvm::{Millis, Status};
use std::collections::{BTreeMap, BTreeSet};

use crate::ir::Lit;
use crate::source::Span;

/// One scripted value: a status (for actions) or a literal (for functions).
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptValue {
    /// An action result.
    Status(Status),
    /// A function result.
    Lit(Lit),
}

/// How a rule answers successive calls.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The same value every call.
    Const(ScriptValue),
    /// The n-th matching call (per agent) answers the n-th value; the last repeats.
    Seq(Vec<ScriptValue>),
    /// Like `Seq`, but starting over after the last value.
    Cycle(Vec<ScriptValue>),
    /// From tick `k` on, the value (entries sorted by tick).
    Schedule(Vec<(u32, ScriptValue)>),
}

/// One `answer` line.
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerRule {
    /// The import name.
    pub name: String,
    /// Only calls with exactly these arguments.
    pub args: Option<Vec<Lit>>,
    /// Only this agent.
    pub agent: Option<u32>,
    /// The answer.
    pub answer: Answer,
    /// Where the rule was written.
    pub span: Span,
}

/// A DecisionFlags word as a scenario writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum FlagWord {
    /// The word itself (`flags 0x5`, `flags none`).
    Word(u32),
    /// Flag names, resolved against the tree's flag table when the scenario runs.
    Names(Vec<String>),
}

/// What an input directive gives an agent: decision flags and stimuli (decider model), events
/// and variables (lifecycle and selection models).
#[derive(Clone, Debug, PartialEq)]
pub enum InputKind {
    /// `flags …`: the DecisionFlags word from this tick on.
    Flags(FlagWord),
    /// `stimulus NAME [for MS] [data N]`: a stimulus added before the tick.
    Stimulus {
        /// The stimulus name.
        name: String,
        /// How long it lasts; `None` until removed.
        timeout: Option<Millis>,
        /// Its data.
        data: i64,
    },
    /// `event NAME`: the event delivered before the tick, at its `now` (MBT and BST).
    Event(String),
    /// `set VAR = true|false`: the variable set before the tick (MBT and BST), by name
    /// (case-insensitive).
    Set {
        /// The variable's name.
        var: String,
        /// The value.
        value: bool,
    },
    /// `restore "HEX"`: Drag\[en\]gine: the context record (`BTContext.readFromFile`) read
    /// into the agent's context before the tick (cursor model).
    Restore(btvm::CursorSnapshot),
    /// `reload`: Drag\[en\]gine: the agent's element record is written, the agent is
    /// reset and the record is read back (a save and a load of the game) before the tick.
    SaveRestore,
}

/// One `at K [agent A] flags|stimulus|event|set …` directive.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Only this agent (every agent when `None`).
    pub agent: Option<u32>,
    /// What is given.
    pub kind: InputKind,
    /// Where it was written.
    pub span: Span,
}

/// A parsed scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Number of agents.
    pub agents: u32,
    /// Number of ticks.
    pub ticks: u32,
    /// Time of tick 0.
    pub time_start: Millis,
    /// Time between ticks.
    pub time_step: Millis,
    /// Ticks with an explicit time.
    pub now_at: BTreeMap<u32, Millis>,
    /// Entry points to run before a tick's main tick.
    pub entries: BTreeMap<u32, Vec<String>>,
    /// Ticks before which every agent is reset.
    pub resets: BTreeSet<u32>,
    /// Inputs given before a tick (after any reset), in file order: flags, stimuli, events
    /// and variable sets.
    pub inputs: BTreeMap<u32, Vec<Input>>,
    /// MBT: the AI group of each agent named by `agent A group G` (others are in group 0).
    pub groups: BTreeMap<u32, u32>,
    /// Imports the host does not have, each with where it was first named.
    pub missing: BTreeMap<String, Span>,
    /// What unscripted actions return.
    pub default_action: Status,
    /// What unscripted functions return.
    pub default_function: Lit,
    /// The answer rules, in file order.
    pub answers: Vec<AnswerRule>,
    /// `trace nodes`: run the engines with node-level tracing (the reference with
    /// `Interpreter::with_node_trace`, the compiled engines on `lower_traced`'s program), so
    /// the trace also shows every node entered and finished.
    pub trace_nodes: bool,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            agents: 1,
            ticks: 10,
            time_start: 0,
            time_step: 100,
            now_at: BTreeMap::new(),
            entries: BTreeMap::new(),
            resets: BTreeSet::new(),
            inputs: BTreeMap::new(),
            groups: BTreeMap::new(),
            missing: BTreeMap::new(),
            default_action: Status::Success,
            default_function: Lit::Int(0),
            answers: Vec::new(),
            trace_nodes: false,
        }
    }
}

impl Scenario {
    /// The time at which tick `k` runs.
    pub fn now(&self, k: u32) -> Millis {
        self.now_at.get(&k).copied().unwrap_or_else(|| {
            self.time_start
                .saturating_add(self.time_step.saturating_mul(i64::from(k)))
        })
    }
}
