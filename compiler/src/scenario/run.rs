//! Driving an engine through a scenario.

use btvm::{AgentId, CursorSnapshot, Halt, Millis, SnapshotError, Status, Stimulus};
use std::collections::BTreeMap;

use super::engines::{
    compiled, out_of_memory, try_table, CompiledEngine, Engine, EngineKind, ReferenceEngine, States,
};
use super::saved::{self, SaveFormat, Saved};
use super::{FlagWord, InputKind, Outline, Scenario, ScriptedHost, Trace, TraceSink};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Model, Tree};
use crate::reference::{Interpreter, Scopes};
use crate::source::Span;

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

/// Resolves the scenario's `flags`, `stimulus` and `set` names against the tree's outline.
fn resolve_inputs(tree: &Outline, scenario: &Scenario) -> Result<Inputs, Diagnostic> {
    let mut out = Inputs::new();
    let decider = matches!(tree.model, Model::Decider { .. });
    let events = matches!(tree.model, Model::Lifecycle | Model::Selection);
    let cursor = matches!(tree.model, Model::Cursor { .. });
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
                    if !tree.vars.iter().any(|v| v.eq_ignore_ascii_case(var)) {
                        let names: Vec<&str> = tree.vars.iter().map(String::as_str).collect();
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
    /// Stop before this tick and save every agent (in [`Session::save_format`]).
    pub save_at: Option<u32>,
    /// The format [`Session::save_at`] saves in; `None`: [`SaveFormat::default_for`] the
    /// tree's model.
    pub save_format: Option<SaveFormat>,
    /// Restore these agents (one per agent) before the first tick.
    pub restore: Option<Saved>,
    /// Hot reload: carry these agents, saved under another version of the tree, into this
    /// tree's program before the first tick (compiled engines; instead of
    /// [`Session::restore`]).
    pub reload: Option<super::reload::Reloaded>,
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
    /// The saved agents (with [`Session::save_at`]).
    pub saved: Option<Saved>,
    /// Decider trees: each agent's state after the run, one per agent.
    pub deciders: Vec<btvm::DeciderView>,
    /// The compiled engines: each agent's state block after the run, for
    /// [`btvm::Program::active_path`] (empty from the reference, which keeps no blocks).
    pub states: Vec<Vec<u8>>,
    /// The debug lines of [`Session::debug_level`], in order (empty from [`stream_session`]).
    pub debug: Vec<String>,
    /// With [`Session::reload`]: what each agent kept and lost, in agent order.
    pub carried: Vec<btvm::Carried>,
    /// Why native code was asked for but the vm ran: only ever a program larger than native
    /// code is compiled for ([`btvm::FallbackKind::TooLarge`]; any other failure to produce
    /// native code is an error). `btvm run` prints it as a note.
    pub fallback: Option<btvm::Fallback>,
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
pub(super) struct Kept {
    pub(super) trace: Trace,
    pub(super) debug: Vec<String>,
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
    let outline = Outline::of_tree(tree);
    check_scenario(&outline, scenario)?;
    check_size(scenario, &session.limits)?;
    match engine {
        EngineKind::Reference => {
            if session.reload.is_some() {
                return Err(Diagnostic::new(
                    ErrorKind::Unsupported,
                    Span::DUMMY,
                    "the reference engine cannot reload: hot reload carries state blocks",
                )
                .with_note("run it on the vm or native code"));
            }
            let program = saved::program_for(
                tree,
                session.save_at.map(|_| save_format(&outline, session)),
                session.restore.as_ref(),
                scenario.trace_nodes,
                &session.limits,
            )?;
            let mut interp = Interpreter::new(tree)?;
            if scenario.trace_nodes {
                interp = interp.with_node_trace(&session.limits)?;
            }
            let agents = try_table(scenario.agents, |a| interp.new_agent(AgentId(a)))
                .ok_or_else(|| out_of_memory(scenario.agents))?;
            let mut host = ScriptedHost::for_outline(scenario, &outline);
            let debug = (session.debug_level > 0)
                .then(|| crate::debug::DebugOutput::new(tree, session.debug_level));
            let mut engine = ReferenceEngine {
                interp,
                agents,
                debug,
                scopes: Scopes::new(),
                program,
            };
            let saved = drive(&mut engine, &outline, scenario, session, &mut host, sink)?;
            Ok(Outcome {
                trace: Trace::new(),
                saved,
                deciders: views(&engine, scenario),
                states: Vec::new(),
                debug: Vec::new(),
                fallback: None,
                carried: Vec::new(),
            })
        }
        EngineKind::Vm => run_compiled(
            (tree, &outline),
            scenario,
            &[btvm::EngineKind::Vm],
            session,
            sink,
        ),
        EngineKind::Native => run_compiled(
            (tree, &outline),
            scenario,
            &[btvm::EngineKind::Native],
            session,
            sink,
        ),
    }
}

/// Refuses a scenario past `limits` (a scenario changed after parsing, e.g. by `btvm run
/// --agents`; [`parse_scenario_with`](super::parse_scenario_with) refuses it at its text).
pub(super) fn check_size(scenario: &Scenario, limits: &btvm::Limits) -> Result<(), Diagnostic> {
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
    let outline = Outline::of_tree(tree);
    check_scenario(&outline, scenario)?;
    let session = Session::default();
    check_size(scenario, &session.limits)?;
    let mut trace = Trace::new();
    run_compiled((tree, &outline), scenario, turns, &session, &mut trace)?;
    Ok(trace)
}

/// The compiled engines' half of [`run_session`], taking `turns` as [`run_taking_turns`] does.
fn run_compiled(
    (tree, outline): (&Tree, &Outline),
    scenario: &Scenario,
    turns: &[btvm::EngineKind],
    session: &Session,
    sink: &mut dyn TraceSink,
) -> Result<Outcome, Diagnostic> {
    let program = if scenario.trace_nodes {
        crate::lower::lower_traced(tree, &session.limits, None)
    } else {
        crate::lower::lower(tree, &session.limits)
    }
    .map_err(|mut d| d.swap_remove(0))?;
    run_lowered(&program, outline, scenario, turns, session, sink)
}

/// The compiled engines' run of `program` (whose names `outline` gives) through `scenario`,
/// taking `turns` as [`run_taking_turns`] does: for trees once lowered, and for program files.
pub(super) fn run_lowered(
    program: &btvm::Program,
    outline: &Outline,
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
        .with_note("run it on the reference engine: every engine makes the same decisions"));
    }
    // Every kind the run takes must exist (native code must compile): check each, then run
    // one engine, switched between them.
    let mut base = None;
    for &k in turns {
        let e = compiled(program, k)?;
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
    let mut host = ScriptedHost::for_outline(scenario, outline);
    let turns = if turns.len() > 1 {
        turns.to_vec()
    } else {
        Vec::new()
    };
    let mut carried = Vec::new();
    let reloaded;
    let session = match &session.reload {
        Some(r) => {
            let (saved, c) = super::reload::carry(
                r,
                program,
                base.kind(),
                (scenario, session.from),
                sink,
                &session.limits,
            )?;
            carried = c;
            reloaded = Session {
                restore: Some(saved),
                reload: None,
                ..session.clone()
            };
            &reloaded
        }
        None => session,
    };
    let mut engine = compiled_engine(program, scenario, base, turns)?;
    let saved = drive(&mut engine, outline, scenario, session, &mut host, sink)?;
    Ok(Outcome {
        trace: Trace::new(),
        saved,
        deciders: views(&engine, scenario),
        states: (0..engine.states.agents)
            .filter_map(|a| engine.states.get(a).map(<[u8]>::to_vec))
            .collect(),
        debug: Vec::new(),
        fallback,
        carried,
    })
}

/// Refuses a scenario that cannot run `tree` on any engine: it says an import the tree needs is
/// missing, runs entries in a model without them, or names an entry the tree does not have.
pub(super) fn check_scenario(tree: &Outline, scenario: &Scenario) -> Result<(), Diagnostic> {
    if !matches!(tree.model, Model::Cursor { .. }) {
        if let Some(imp) = tree
            .imports
            .iter()
            .find(|i| scenario.missing.contains_key(&i.name))
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
    if matches!(tree.model, Model::Lifecycle | Model::Selection) {
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
            if !tree.has_entry(name) {
                let known: Vec<&str> = tree.entries.iter().map(String::as_str).collect();
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

fn compiled_engine(
    program: &btvm::Program,
    scenario: &Scenario,
    engine: btvm::Engine,
    turns: Vec<btvm::EngineKind>,
) -> Result<CompiledEngine, Diagnostic> {
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
    engine: btvm::Engine,
) -> Trace {
    let outline = Outline::of_tree(tree);
    let mut host = ScriptedHost::for_outline(scenario, &outline);
    let mut trace = Trace::new();
    // A whole scenario without saving, into a trace, fails only for want of memory: the
    // trace then ends where the run stopped (empty).
    if let Ok(mut engine) = compiled_engine(program, scenario, engine, Vec::new()) {
        let _ = drive(
            &mut engine,
            &outline,
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

/// Before the first tick: AI groups, and the saved agents of `session.restore` (their saved
/// statuses, if the format holds them).
fn set_up(
    engine: &mut dyn Engine,
    tree: &Outline,
    scenario: &Scenario,
    session: &Session,
) -> Result<Option<Vec<Status>>, Diagnostic> {
    for (&agent, &group) in &scenario.groups {
        if tree.model != Model::Lifecycle {
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
    match &session.restore {
        Some(saved) => saved::restore(engine, scenario.agents, saved, &session.limits),
        None => Ok(None),
    }
}

/// The format `session` saves `tree`'s agents in.
fn save_format(tree: &Outline, session: &Session) -> SaveFormat {
    session
        .save_format
        .unwrap_or_else(|| SaveFormat::default_for(matches!(tree.model, Model::Cursor { .. })))
}

/// The scenario loop shared by every engine.
fn drive(
    engine: &mut dyn Engine,
    tree: &Outline,
    scenario: &Scenario,
    session: &Session,
    host: &mut ScriptedHost<'_>,
    sink: &mut dyn TraceSink,
) -> Result<Option<Saved>, Diagnostic> {
    let limit = match tree.model {
        Model::Cursor { runaway_limit } => runaway_limit,
        Model::Decider { redecide_limit } => redecide_limit,
        _ => 0,
    };
    let inputs = resolve_inputs(tree, scenario)?;
    let restored = set_up(engine, tree, scenario, session)?;
    // Each agent's last status, kept only for a btvm snapshot (which records it).
    let keep = session.save_at.is_some() && save_format(tree, session) == SaveFormat::Btvm;
    let mut last = match (keep, restored) {
        (false, _) => Vec::new(),
        (true, Some(last)) => last,
        (true, None) => try_table(scenario.agents, |_| Status::Running)
            .ok_or_else(|| out_of_memory(scenario.agents))?,
    };
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
            if let Some(l) = last.get_mut(agent as usize) {
                *l = s;
            }
            host.note(match (halted, engine.halt(agent)) {
                (true, _) => "stopped".into(),
                (false, Some(Halt::RunAway)) => format!("error run-away after {limit} rule runs"),
                _ if engine.loop_guard(agent) => format!("error redecide limit {limit} exceeded"),
                _ => format!("root {s}"),
            });
            flush(engine, host, sink)?;
            let block = match sink.wants_state() {
                true => engine.state_block(agent).ok(),
                false => None,
            };
            let state = engine.program_of().zip(block.as_deref());
            sink.ticked(k, agent, state).map_err(|e| {
                Diagnostic::new(
                    ErrorKind::Io,
                    Span::DUMMY,
                    format!("cannot write the trace: {e}"),
                )
            })?;
        }
    }
    if session.save_at.is_none() {
        return Ok(None);
    }
    saved::save(engine, scenario.agents, save_format(tree, session), &last).map(Some)
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
