//! What the selection (BST) model runs: its node kinds and knobs, boolean variables, and
//! state machines within the bytecode's state masks (`spec/bst.md` section 3).
//!
//! Only [`super::check`] calls this; the reference and the lowering assume a checked tree.

use btvm::program::MAX_STATES;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{GuardEval, NodeKind, Resume, RootFinish, Tree, Trigger};

/// Rejects node kinds and knobs the selection model does not define (`spec/bst.md` section
/// 3): only `select`, `priority every-tick` and `sequence remember` over `case` children, and
/// `statemachine` whose states have only `when` transitions; variables must be booleans and
/// the tree `root-finish rerun`.
pub(super) fn supported(tree: &Tree) -> super::kinds::Found {
    super::kinds::check_with_timestamps(tree, "selection (BST)", false, |kind| match kind {
        NodeKind::Priority(p) => p.repick == GuardEval::EveryTick,
        NodeKind::Sequence(c) => c.resume == Resume::Remember && !c.looping && c.cond.is_none(),
        NodeKind::State(s) => s
            .transitions
            .iter()
            .all(|t| matches!(t.on, Trigger::When(_))),
        NodeKind::Case(_) | NodeKind::StateMachine | NodeKind::Select(_) => true,
        _ => false,
    })?;
    super::kinds::bool_vars(tree, "selection (BST)")?;
    let mut found = Vec::new();
    for n in &tree.nodes {
        if let NodeKind::Sequence(_) = n.kind {
            if let Some(&c) = n
                .children
                .iter()
                .find(|&&c| !matches!(tree.node(c).kind, NodeKind::Case(_)))
            {
                found.push(Diagnostic::new(
                    ErrorKind::Unsupported,
                    tree.node(c).span,
                    "in the selection (BST) model a `sequence`'s children are `case` nodes",
                ));
            }
        }
    }
    if tree.config.root_finish != RootFinish::Rerun {
        let span = tree
            .main_root()
            .map_or(crate::source::Span::DUMMY, |r| tree.node(r).span);
        found.push(Diagnostic::new(
            ErrorKind::Unsupported,
            span,
            "the selection (BST) model needs `root-finish rerun`",
        ));
    }
    // The bytecode's state masks (`MAX_STATES` bits) bound a state machine's states.
    for n in &tree.nodes {
        if matches!(n.kind, NodeKind::StateMachine) && n.children.len() > MAX_STATES as usize {
            found.push(Diagnostic::new(
                ErrorKind::Unsupported,
                n.span,
                format!(
                    "a state machine of {} states; the bytecode runs at most {MAX_STATES}",
                    n.children.len(),
                ),
            ));
        }
    }
    super::kinds::into_found(found)
}
