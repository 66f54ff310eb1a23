//! Hot reload in a scenario run (`btvm run OLD --reload-at N NEW`): the agents of a run of
//! the old tree, saved before tick N, carried into the new tree's program ([`btvm::Reload`])
//! before the new tree's run goes on from tick N.
//!
//! The stop calls of running nodes that do not survive (the lifecycle model's exit calls) are
//! made by the old program, through a scripted host of the old program's imports, and appear
//! in the trace after a `reload` line (`reload agent K` with several agents), before tick N.
//! A reload that stops nothing adds no line. This module never ticks; it only carries.

use btvm::{AgentId, Carried, Program, Reload, Snapshot};

use super::host::ScriptedHost;
use super::saved::{snapshot_error, Saved};
use super::trace::TraceSink;
use super::{Outline, Scenario};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::Span;

/// Agents saved under another version of the tree, to carry into this one before the first
/// tick (see [`Session::reload`](super::Session::reload)).
#[derive(Clone, Debug)]
pub struct Reloaded {
    /// The program the agents were saved under.
    pub old: Program,
    /// The tree `old` was lowered from, if the old run ran a tree: a run that traces nodes ran
    /// its traced lowering. `None`: the old run ran `old` itself (a program file). The trace
    /// writes the stop calls' arguments with the old version's argument names
    /// (`Move(to="Cover") exit`), as a run of it writes its calls.
    pub old_tree: Option<Tree>,
    /// Their btvm snapshot ([`Saved::Btvm`]).
    pub saved: Saved,
    /// Carry node by node even when the programs are the same ([`Reload::cell_by_cell`]).
    pub cell_by_cell: bool,
}

/// Carries `r`'s agents into `new`, making the stop calls through a host of the old program's
/// imports on `kind`'s engine at tick `from`; the carried agents as a snapshot of `new`, and
/// what each agent kept and lost.
pub(super) fn carry(
    r: &Reloaded,
    new: &Program,
    kind: btvm::EngineKind,
    (scenario, from): (&Scenario, u32),
    sink: &mut dyn TraceSink,
    limits: &btvm::Limits,
) -> Result<(Saved, Vec<Carried>), Diagnostic> {
    let Saved::Btvm(bytes) = &r.saved else {
        return Err(Diagnostic::new(
            ErrorKind::Unsupported,
            Span::DUMMY,
            "a reload carries agents saved as a btvm snapshot, not as cursor records",
        ));
    };
    // A run that traces nodes ran the old tree's traced program (as the new one runs now).
    let traced;
    let old_program = match (&r.old_tree, scenario.trace_nodes) {
        (Some(tree), true) => {
            traced =
                crate::lower::lower_traced(tree, limits, None).map_err(|mut d| d.swap_remove(0))?;
            &traced
        }
        _ => &r.old,
    };
    let old = Snapshot::decode(bytes, old_program, limits).map_err(|e| snapshot_error(None, e))?;
    let mut plan = Reload::new(old_program, new);
    if r.cell_by_cell {
        plan = plan.cell_by_cell();
    }
    let mut engine = btvm::Engine::new(old_program, kind);
    let outline = match &r.old_tree {
        Some(tree) => Outline::of_tree(tree),
        None => Outline::of_program(&r.old)?,
    };
    let mut host = ScriptedHost::for_outline(scenario, &outline);
    host.set_tick(from);
    let now = scenario.now(from);
    let several = old.agents.len() > 1;
    let mut out = Snapshot::new(new);
    let mut report = Vec::with_capacity(old.agents.len());
    for agent in &old.agents {
        let mut state = vec![0u8; new.state_size()];
        let mut carried = plan.carry(&agent.state, &mut state);
        if let Some(mut stopped) = carried.stop.take() {
            host.note(match several {
                true => format!("reload agent {}", agent.id.0),
                false => "reload".to_string(),
            });
            engine
                .stop_agent(&mut stopped, AgentId(agent.id.0), &mut host, now)
                .map_err(|e| {
                    Diagnostic::new(ErrorKind::InvalidValue, Span::DUMMY, e.to_string())
                })?;
            plan.finish(&agent.state, &stopped, &mut state);
        }
        host.flush_to(sink).map_err(|e| {
            Diagnostic::new(
                ErrorKind::Io,
                Span::DUMMY,
                format!("cannot write the trace: {e}"),
            )
        })?;
        out.push(agent.id, agent.status, &state);
        report.push(carried);
    }
    Ok((Saved::Btvm(out.encode()), report))
}
