//! The tree's names a program file carries for scripted runs ([`btvm::program::TreeNames`]):
//! Spore's decision-flag and stimulus names, and the argument names calls are written with.
//! The argument names are decided here once, for a tree's run and a program's alike.
//!
//! This module reads the tree only; it never emits code.

use std::collections::BTreeMap;

use btvm::program::{ArgNames, TreeNames, MAX_NODE_TEXT};

use crate::ir::{CallExpr, Expr, Model, Tree};

/// The names of `tree` a program of it carries.
pub(crate) fn tree_names(tree: &Tree) -> TreeNames {
    let decider = matches!(tree.config.model, Model::Decider { .. });
    TreeNames {
        flags: if decider {
            tree.flags.clone()
        } else {
            Vec::new()
        },
        stimuli: if decider {
            tree.stimuli.clone()
        } else {
            Vec::new()
        },
        args: arg_names(tree),
    }
}

/// Keeps only names the verifier accepts: a list with a name past [`MAX_NODE_TEXT`] is dropped
/// (the program then lacks those names; it still runs).
pub(crate) fn fit(names: &mut TreeNames) {
    let long = |s: &String| s.len() > MAX_NODE_TEXT;
    if names.flags.iter().any(long) || names.flags.len() > 32 {
        names.flags.clear();
    }
    if names.stimuli.iter().any(long) {
        names.stimuli.clear();
    }
    names
        .args
        .retain(|a| !a.names.iter().flatten().any(|s| s.len() > MAX_NODE_TEXT));
}

/// Per import and argument count, the argument names of the first call site of that import
/// with that many arguments, in arena order (node calls, then the calls in the node's
/// expressions), then the signal bindings; only lists with at least one name, ordered by import
/// and count. A host sees only argument values, so this is how a trace shows names; two call
/// sites of one import with as many arguments but different names are written with the first
/// one's names.
pub(crate) fn arg_names(tree: &Tree) -> Vec<ArgNames> {
    let mut found: BTreeMap<(u32, usize), Vec<Option<String>>> = BTreeMap::new();
    let mut record = |c: &CallExpr| {
        if c.args.iter().all(|a| a.name.is_none()) {
            return;
        }
        found
            .entry((c.import.0, c.args.len()))
            .or_insert_with(|| c.args.iter().map(|a| a.name.clone()).collect());
    };
    let mut walk = |e: &Expr| {
        e.walk(|x| {
            if let Expr::Call(c) = x {
                record(c);
            }
        })
    };
    for n in &tree.nodes {
        for c in n.kind.calls() {
            // The call's own names first, then those of calls among its arguments.
            walk(&Expr::Call(c.clone()));
        }
        for e in n.kind.exprs() {
            walk(e);
        }
    }
    for s in &tree.signals {
        walk(&s.value);
    }
    found
        .into_iter()
        .filter(|((import, _), _)| (*import as usize) < tree.imports.len())
        .map(|((import, _), names)| ArgNames { import, names })
        .collect()
}
