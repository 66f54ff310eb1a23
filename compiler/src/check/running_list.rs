//! What the running-list (Unvanquished) model runs: its node kinds and knobs
//! (`spec/semantics.md` section 4.1).
//!
//! Only [`super::check`] calls this; the reference and the lowering assume a checked tree.

use crate::ir::{GuardEval, NodeKind, Resume, Tree};

/// Rejects node kinds and knobs this model does not define.
pub(super) fn supported(tree: &Tree) -> super::kinds::Found {
    super::kinds::check(tree, "running-list (Unvanquished)", |kind| match kind {
        NodeKind::Sequence(c) | NodeKind::Selector(c) => {
            matches!(c.resume, Resume::Restart | Resume::RunningList)
                && !c.looping
                && c.cond.is_none()
        }
        NodeKind::Parallel(p) => !p.remember,
        NodeKind::Guard(g) => g.eval == GuardEval::EveryTick,
        NodeKind::Condition(_)
        | NodeKind::Invert
        | NodeKind::MapStatus(_)
        | NodeKind::Cooldown(_)
        | NodeKind::Include(_)
        | NodeKind::Action(_)
        | NodeKind::Const(_) => true,
        _ => false,
    })
}
