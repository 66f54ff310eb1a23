//! A scenario run as a [`Timeline`]: the scenario driver runs every agent on the vm (the
//! traced program where the model has node-level traces), and a [`TraceSink`] keeps one
//! agent's lines tick by tick, its node events parsed back from the `node N KIND ...` lines
//! and its active path read from its state block after each tick. Never prints.

use std::io;

use btvm::{NodeEvent, Status};

use super::{NodeStep, TickView, Timeline};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::scenario::{
    stream_program, stream_session, EngineKind, Scenario, Session, TraceLine, TraceSink,
};
use crate::source::Span;

/// The most ticks a timeline holds: a page past this would be too large to open.
pub const MAX_VIEW_TICKS: u32 = 10_000;

/// Runs `scenario` for `tree` on the vm and keeps what `agent` did, tick by tick.
///
/// Node events are traced when the tree's model has them (`traced` says whether it did); the
/// decider model has none yet and runs untraced. Fails for an agent the scenario does not run,
/// a scenario of more than [`MAX_VIEW_TICKS`] ticks, and whatever the run fails for.
pub fn timeline(
    tree: &Tree,
    scenario: &Scenario,
    agent: u32,
    limits: &btvm::Limits,
) -> Result<Timeline, Diagnostic> {
    let traced = crate::lower::within_budget_traced(tree, limits).is_ok();
    kept(scenario, (agent, traced), limits, |scn, session, keep| {
        stream_session(tree, scn, EngineKind::Vm, session, keep)
    })
}

/// [`timeline`] for a compiled program: node events are traced when the program was compiled
/// with node tracing.
pub fn timeline_program(
    program: &btvm::Program,
    scenario: &Scenario,
    agent: u32,
    limits: &btvm::Limits,
) -> Result<Timeline, Diagnostic> {
    kept(
        scenario,
        (agent, program.traced()),
        limits,
        |scn, session, keep| stream_program(program, scn, EngineKind::Vm, session, keep),
    )
}

/// Runs `scenario` (tracing nodes if `traced`) through `run`, keeping `agent`'s ticks.
fn kept(
    scenario: &Scenario,
    (agent, traced): (u32, bool),
    limits: &btvm::Limits,
    run: impl FnOnce(&Scenario, &Session, &mut Keep<'_>) -> Result<crate::scenario::Outcome, Diagnostic>,
) -> Result<Timeline, Diagnostic> {
    if agent >= scenario.agents {
        return Err(Diagnostic::new(
            ErrorKind::InvalidValue,
            Span::DUMMY,
            format!(
                "there is no agent {agent}: the scenario runs {} agent{}",
                scenario.agents,
                if scenario.agents == 1 { "" } else { "s" }
            ),
        ));
    }
    if scenario.ticks > MAX_VIEW_TICKS {
        return Err(Diagnostic::new(
            ErrorKind::ScenarioTooLarge,
            Span::DUMMY,
            format!(
                "{} ticks is more than the viewer shows ({MAX_VIEW_TICKS})",
                scenario.ticks
            ),
        ));
    }
    let scenario = Scenario {
        trace_nodes: traced,
        ..scenario.clone()
    };
    let session = Session {
        limits: *limits,
        ..Session::default()
    };
    let mut keep = Keep {
        agent,
        pending: Vec::new(),
        ticks: Vec::new(),
        scenario: &scenario,
    };
    run(&scenario, &session, &mut keep)?;
    Ok(Timeline {
        agent,
        traced,
        ticks: keep.ticks,
    })
}

/// The sink that keeps one agent's ticks.
struct Keep<'a> {
    agent: u32,
    /// The lines of the agent-tick being run.
    pending: Vec<String>,
    ticks: Vec<TickView>,
    /// The scenario, for each tick's time.
    scenario: &'a Scenario,
}

impl TraceSink for Keep<'_> {
    fn line(&mut self, line: &str) -> io::Result<()> {
        self.pending.push(line.to_string());
        Ok(())
    }

    fn wants_state(&self) -> bool {
        true
    }

    fn ticked(
        &mut self,
        tick: u32,
        agent: u32,
        state: Option<(&btvm::Program, &[u8])>,
    ) -> io::Result<()> {
        let lines = std::mem::take(&mut self.pending);
        if agent != self.agent {
            return Ok(());
        }
        let mut view = TickView {
            tick,
            now: self.scenario.now(tick),
            events: Vec::new(),
            active: state.map_or_else(Vec::new, |(p, s)| {
                p.active_path(s).iter().map(|n| n.index).collect()
            }),
            calls: Vec::new(),
        };
        for line in lines.iter().filter(|l| !l.starts_with("tick ")) {
            match node_step(line) {
                Some(step) => view.events.push(step),
                None => view.calls.push(written(line)),
            }
        }
        self.ticks.push(view);
        Ok(())
    }
}

/// A line as `btvm run` writes it ([`TraceLine`]), without indentation and newline.
fn written(line: &str) -> String {
    let text = TraceLine(line).to_string();
    let text = text.strip_suffix('\n').unwrap_or(&text);
    text.strip_prefix("  ").unwrap_or(text).to_string()
}

/// `node N KIND enter` or `node N KIND -> STATUS` (`spec/cases/README.md`).
fn node_step(line: &str) -> Option<NodeStep> {
    let mut words = line.strip_prefix("node ")?.split(' ');
    let node = words.next()?.parse().ok()?;
    let _kind = words.next()?;
    let event = match (words.next()?, words.next()) {
        ("enter", None) => NodeEvent::Enter,
        ("->", Some(s)) => NodeEvent::Finish(Status::from_name(s)?),
        _ => return None,
    };
    words.next().is_none().then_some(NodeStep { node, event })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lines_parse_and_others_do_not() {
        let enter = node_step("node 3 sequence enter").unwrap();
        assert_eq!((enter.node, enter.event), (3, NodeEvent::Enter));
        let done = node_step("node 12 action -> running").unwrap();
        assert_eq!(done.event, NodeEvent::Finish(Status::Running));
        for other in [
            "node(1) = 2",
            "node x action enter",
            "node 1 action -> maybe",
            "node 1 action enter now",
            "root success",
        ] {
            assert_eq!(node_step(other), None, "{other}");
        }
    }

    #[test]
    fn written_lines_escape_controls_like_the_trace() {
        assert_eq!(written("log \"a\""), "log \"a\"");
        assert_eq!(
            written("a\u{1b}b() enter -> success"),
            "a\\u{1b}b() enter -> success"
        );
    }
}
