//! Scenario runs of a compiled program (a `.btvm` file read by `btvm::Program::decode`): the
//! same driver as a tree's run ([`stream_session`](super::stream_session)), given the
//! program's [`Outline`], so its trace is exactly its tree's on the same engine. Only the
//! compiled engines run programs; the reference interpreter needs the tree.
//!
//! This module only picks and refuses; it never lowers a tree (a program runs as compiled:
//! `trace nodes` needs a program compiled with node tracing).

use btvm::Program;

use super::run::{check_scenario, check_size, run_lowered, Kept};
use super::{EngineKind, Outcome, Outline, Scenario, Session, TraceSink};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

/// Runs `program` through `scenario` on `engine` (the vm or native code) as
/// [`stream_session`](super::stream_session) runs a tree, handing each trace line to `sink`.
///
/// Fails for the reference engine (it interprets trees), for a scenario that says `trace nodes`
/// with a program compiled without node tracing, and as a tree's run fails. A program compiled
/// with node tracing reports every node whatever the scenario says.
pub fn stream_program(
    program: &Program,
    scenario: &Scenario,
    engine: EngineKind,
    session: &Session,
    sink: &mut dyn TraceSink,
) -> Result<Outcome, Diagnostic> {
    let outline = Outline::of_program(program)?;
    check_scenario(&outline, scenario)?;
    check_size(scenario, &session.limits)?;
    let kind =
        match engine {
            EngineKind::Reference => return Err(Diagnostic::new(
                ErrorKind::Unsupported,
                Span::DUMMY,
                "the reference interpreter runs trees, not compiled programs",
            )
            .with_note(
                "run the program on the vm or native code, or the tree's source on the reference",
            )),
            EngineKind::Vm => btvm::EngineKind::Vm,
            EngineKind::Native => btvm::EngineKind::Native,
        };
    if scenario.trace_nodes && !outline.traced {
        return Err(Diagnostic::new(
            ErrorKind::Unsupported,
            Span::DUMMY,
            "the scenario traces nodes, but the program was compiled without node tracing",
        )
        .with_note("compile the tree with node tracing: `btvm compile TREE --trace nodes` (in code, `lower::lower_traced`)"));
    }
    run_lowered(program, &outline, scenario, &[kind], session, sink)
}

/// [`stream_program`] keeping the whole trace (and no debug lines: only the reference reports
/// them) in the returned [`Outcome`].
pub fn run_program(
    program: &Program,
    scenario: &Scenario,
    engine: EngineKind,
    session: &Session,
) -> Result<Outcome, Diagnostic> {
    let mut kept = Kept::default();
    let mut outcome = stream_program(program, scenario, engine, session, &mut kept)?;
    outcome.trace = kept.trace;
    Ok(outcome)
}
