//! The string table every engine numbers strings by.
//!
//! The reference interpreter and the lowering both build it from here, so a `StrId` means the
//! same string in both. It only reads the tree: it must never depend on an engine or add a
//! string the engines do not hand to the host.

use btvm::Strings;

use crate::ir::{Expr, Lit, NodeKind, Tree};

/// Interns every string literal of the tree, in arena order, then every string variable
/// default, then the strings the main tree's nodes hand to the host (log messages, `logstatus`
/// messages, group scope names and selected behaviours, in arena order), so evaluation never
/// allocates strings. Every engine numbers strings this way (a host answering a string looks it
/// up in this table, so the engines must agree on what it holds).
pub(crate) fn intern_strings(tree: &Tree) -> Strings {
    let mut strings = Strings::new();
    tree.for_each_expr(|e| {
        if let Expr::Lit(Lit::Str(s)) = e {
            strings.intern(s);
        }
    });
    for v in &tree.vars {
        if let Lit::Str(s) = &v.default {
            strings.intern(s);
        }
    }
    if let Some(root) = tree.main_root() {
        let main = root.index()..root.index() + tree.subtree_size(root);
        for n in tree.nodes.get(main).into_iter().flatten() {
            match &n.kind {
                NodeKind::Log(m) | NodeKind::Select(m) => {
                    strings.intern(m);
                }
                NodeKind::LogStatus(l) => {
                    for m in [&l.start, &l.success, &l.failure].into_iter().flatten() {
                        strings.intern(m);
                    }
                }
                NodeKind::GroupScope(g) => {
                    strings.intern(&g.scope);
                }
                _ => {}
            }
        }
    }
    strings
}
