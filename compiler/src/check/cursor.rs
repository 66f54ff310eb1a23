//! What the cursor (Drag[en]gine) model runs: one entry, no included subtrees, and its node
//! kinds (`spec/semantics.md` section 6.2).
//!
//! Only [`super::check`] calls this; the reference and the lowering assume a checked tree.

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{GuardEval, NodeKind, Resume, Tree};

/// Rejects trees this model does not define: other kinds or knobs, entries besides `main`,
/// subtrees (Drag\[en\]gine subtrees are built in place).
pub(super) fn supported(tree: &Tree) -> super::kinds::Found {
    let span = tree
        .main_root()
        .map_or(crate::source::Span::DUMMY, |r| tree.node(r).span);
    if tree.roots.len() != 1 || !tree.subtrees.is_empty() {
        return Err(vec![Diagnostic::new(
            ErrorKind::Unsupported,
            span,
            "a cursor-model tree has one entry and no included subtrees",
        )]);
    }
    super::kinds::check(tree, "cursor (Drag[en]gine)", |kind| match kind {
        NodeKind::Sequence(c) | NodeKind::Selector(c) => c.resume == Resume::Cursor,
        NodeKind::Guard(g) => g.eval == GuardEval::EveryTick,
        NodeKind::MapStatus(_)
        | NodeKind::Invert
        | NodeKind::Action(_)
        | NodeKind::Condition(_)
        | NodeKind::Const(_)
        | NodeKind::Yield => true,
        _ => false,
    })
}
