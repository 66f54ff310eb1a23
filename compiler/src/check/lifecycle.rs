//! What the lifecycle (MBT) model runs: its node kinds and knobs, boolean variables, one
//! set of log attributes per node, and parallels within the bytecode's state masks
//! (`spec/mbt.md` section 3).
//!
//! Only [`super::check`] calls this; the reference and the lowering assume a checked tree.

use btvm::program::MAX_STATES;
use btvm::Status;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Abort, GuardEval, NodeKind, Resume, RootFinish, Tree, Trigger};

/// Rejects node kinds and knobs the lifecycle model does not define (`spec/mbt.md` section 3),
/// variables that are not booleans, tree knobs other than `root-finish stop` and
/// `abort terminate`, and a `logstatus` directly inside another (MBT attaches one set of log
/// attributes to a node).
pub(super) fn supported(tree: &Tree) -> super::kinds::Found {
    super::kinds::check_with_timestamps(tree, "lifecycle (MBT)", true, |kind| match kind {
        NodeKind::Sequence(c) | NodeKind::Selector(c) => {
            c.resume == Resume::Remember && !c.looping && c.cond.is_none()
        }
        NodeKind::Parallel(p) => p.remember && !p.stop_on_failure,
        NodeKind::Loop(l) => l.exit_on != Status::Running,
        NodeKind::Priority(p) => p.repick == GuardEval::OnChange,
        NodeKind::State(s) => s
            .transitions
            .iter()
            .all(|t| matches!(t.on, Trigger::Event(_))),
        NodeKind::Guard(g) => g.eval == GuardEval::OnEntry,
        NodeKind::Case(_)
        | NodeKind::StateMachine
        | NodeKind::MapStatus(_)
        | NodeKind::GroupScope(_)
        | NodeKind::Hooks(_)
        | NodeKind::LogStatus(_)
        | NodeKind::Action(_)
        | NodeKind::Condition(_)
        | NodeKind::Const(_)
        | NodeKind::Wait(_)
        | NodeKind::WaitUntil(_)
        | NodeKind::SendEvent(_)
        | NodeKind::WaitForEvent(_)
        | NodeKind::Log(_) => true,
        _ => false,
    })?;
    super::kinds::bool_vars(tree, "lifecycle (MBT)")?;
    let mut found = Vec::new();
    let span = tree
        .main_root()
        .map_or(crate::source::Span::DUMMY, |r| tree.node(r).span);
    if tree.config.root_finish != RootFinish::Stop || tree.config.abort != Abort::Terminate {
        found.push(Diagnostic::new(
            ErrorKind::Unsupported,
            span,
            "the lifecycle (MBT) model needs `root-finish stop` and `abort terminate`",
        ));
    }
    for n in &tree.nodes {
        if let NodeKind::LogStatus(_) = n.kind {
            if let Some(&c) = n.children.first() {
                if let NodeKind::LogStatus(_) = tree.node(c).kind {
                    found.push(Diagnostic::new(
                        ErrorKind::Unsupported,
                        tree.node(c).span,
                        "a `logstatus` directly inside another is not part of the lifecycle \
                         (MBT) model",
                    ));
                }
            }
        }
    }
    // The bytecode's state masks (`MAX_STATES` bits) bound a parallel's children.
    for n in &tree.nodes {
        if matches!(n.kind, NodeKind::Parallel(_)) && n.children.len() > MAX_STATES as usize {
            found.push(Diagnostic::new(
                ErrorKind::Unsupported,
                n.span,
                format!(
                    "a parallel of {} children; the bytecode runs at most {MAX_STATES}",
                    n.children.len(),
                ),
            ));
        }
    }
    super::kinds::into_found(found)
}
