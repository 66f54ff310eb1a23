//! Checks every model shares: node kinds a model does not define, timestamp queries outside
//! the lifecycle model, variables that are not booleans.

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{NodeKind, Tree};

/// Every node's problems, in node order (an error per node at most).
pub(super) type Found = Result<(), Vec<Diagnostic>>;

/// Rejects every node whose kind or knobs `supported` refuses, or whose expressions query
/// timestamps (only the lifecycle model has them), naming the model in the message.
pub(super) fn check(tree: &Tree, model: &str, supported: impl Fn(&NodeKind) -> bool) -> Found {
    check_with_timestamps(tree, model, false, supported)
}

/// [`check`], accepting timestamp queries when `timestamps` is set. Without them, a
/// signal whose value queries a timestamp is refused too: nothing would keep the timestamp.
pub(super) fn check_with_timestamps(
    tree: &Tree,
    model: &str,
    timestamps: bool,
    supported: impl Fn(&NodeKind) -> bool,
) -> Found {
    let queries_timestamp = |e: &crate::ir::Expr| {
        let mut found = false;
        e.walk(|x| found |= matches!(x, crate::ir::Expr::Timestamp(..)));
        found
    };
    let no_timestamps = |what: String, span| {
        Diagnostic::new(
            ErrorKind::Unsupported,
            span,
            format!("{what} queries a timestamp, which the {model} model does not have"),
        )
        .with_note("timestamps are part of the lifecycle (MBT) model only")
    };
    let mut found = Vec::new();
    for n in &tree.nodes {
        if !supported(&n.kind) {
            found.push(Diagnostic::new(
                ErrorKind::Unsupported,
                n.span,
                format!(
                    "`{}` with these knobs is not part of the {model} model",
                    n.kind.keyword()
                ),
            ));
        } else if !timestamps && n.kind.exprs().into_iter().any(queries_timestamp) {
            found.push(no_timestamps(format!("`{}`", n.kind.keyword()), n.span));
        }
    }
    if !timestamps {
        if let Some(sig) = tree.signals.iter().find(|s| queries_timestamp(&s.value)) {
            let span = tree
                .main_root()
                .map_or(crate::source::Span::DUMMY, |r| tree.node(r).span);
            found.push(no_timestamps(
                format!("the value of signal \"{}\"", sig.event.escape_debug()),
                span,
            ));
        }
    }
    into_found(found)
}

/// `Ok` for no problems, else every one of them.
pub(super) fn into_found(found: Vec<Diagnostic>) -> Found {
    if found.is_empty() {
        Ok(())
    } else {
        Err(found)
    }
}

/// Rejects variables that are not booleans (MBT and BST variables are all booleans).
pub(super) fn bool_vars(tree: &Tree, model: &str) -> Found {
    match tree.vars.iter().find(|v| v.ty != crate::ir::Type::Bool) {
        Some(v) => Err(vec![Diagnostic::new(
            ErrorKind::Unsupported,
            tree.main_root()
                .map_or(crate::source::Span::DUMMY, |r| tree.node(r).span),
            format!(
                "variable `{}` is not a `bool`: the {model} model has boolean variables only",
                v.name
            ),
        )]),
        None => Ok(()),
    }
}
