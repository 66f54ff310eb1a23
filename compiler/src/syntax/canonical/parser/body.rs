//! The second stage of the grammar (signals, roots, subtrees) and the assembly of the parsed
//! file into a validated [`Tree`]: provisional `include` ids mapped to subtrees, entry and
//! subtree names checked, the node count limited.
//!
//! This module never parses a node itself (see `nodes`).

use std::collections::HashMap;

use btvm::Limits;
use chumsky::prelude::*;

use super::super::lexer::Tok;
use super::atoms::{kw, name, string, words};
use super::decls::{duplicate, Named};
use super::expr::{expr_parser, resolve_var};
use super::nodes::node_parser;
use super::plumbing::P;
use super::recover::{is_word, skip, Resync};
use super::{BodyE, Refs, Tables};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{NodeBuf, NodeKind, Sharing, SignalBinding, SubtreeId, Tree, TreeBuilder};
use crate::source::{FileId, Span};

/// An entry point: its name (with span) and body.
type Root = (Named<String>, NodeBuf);
/// A subtree: its name (with span), sharing, whole span and body.
type Sub = (Named<String>, Sharing, SimpleSpan, NodeBuf);

pub(super) struct Body {
    signals: Vec<SignalBinding>,
    roots: Vec<Root>,
    subtrees: Vec<Sub>,
}

/// Whether `tok` begins a statement of the body (`root`, `subtree`, `signal`).
fn statement_word(tok: Tok<'_>) -> bool {
    ["root", "subtree", "signal"]
        .iter()
        .any(|w| is_word(tok, w))
}

/// Where a body statement skipped after a syntax error ends: before the next `root`,
/// `subtree` or `signal` (not one that is a name: after `action` or `behavior`), after a `;`
/// (a signal) or after a braced block at its level. `refuses` says which statements may not
/// begin where a list of this kind ends (roots come after signals, subtrees after roots).
const fn statement_resync(refuses: fn(Tok<'_>) -> bool) -> Resync {
    Resync {
        begins: |prev, tok, _| {
            statement_word(tok) && !is_word(prev, "action") && !is_word(prev, "behavior")
        },
        semi: true,
        block: true,
        refuses,
    }
}

pub(super) fn body_parser<'t, 's: 't>(file: FileId, limits: &Limits) -> P<'t, 's, Body, BodyE<'s>> {
    let limit = u64::from(limits.max_expr_depth);
    let node = node_parser(file, limit);
    let signal = kw("signal")
        .ignore_then(string())
        .then(name().map_with(|(n, span), e| resolve_var(e, &n, span)))
        .then_ignore(just(Tok::Assign))
        .then(expr_parser(limit))
        .then_ignore(just(Tok::Semi))
        .map(|((event, var), value)| {
            Some(SignalBinding {
                event,
                var,
                value: value.e,
            })
        })
        .recover_with(via_parser(skip(
            statement_resync(|t| is_word(t, "root") || is_word(t, "subtree")),
            None,
        )));
    let root = kw("root")
        .ignore_then(name())
        .then_ignore(just(Tok::Assign))
        .then(node.clone())
        .map(|(n, body)| Some((n, body.buf)))
        .recover_with(via_parser(skip(
            statement_resync(|t| is_word(t, "subtree")),
            None,
        )));
    let subtree = kw("subtree")
        .ignore_then(string().map_with(|s, e| (s, e.span())))
        .then(words(vec![
            ("shared", Sharing::Shared),
            ("per-site", Sharing::PerSite),
        ]))
        .then_ignore(just(Tok::Assign))
        .then(node)
        .map_with(|((n, sharing), body), e| Some((n, sharing, e.span(), body.buf)))
        .recover_with(via_parser(skip(statement_resync(|_| false), None)));
    group((
        signal.repeated().collect::<Vec<_>>(),
        root.repeated().at_least(1).collect::<Vec<_>>(),
        subtree.repeated().collect::<Vec<_>>(),
    ))
    .then_ignore(end())
    .map(|(signals, roots, subtrees)| Body {
        // A statement skipped after a syntax error is `None`; with an error, the file is not
        // assembled.
        signals: signals.into_iter().flatten().collect(),
        roots: roots.into_iter().flatten().collect(),
        subtrees: subtrees.into_iter().flatten().collect(),
    })
    .boxed()
}

/// Maps provisional include ids to subtree ids, checks entry names and the node count, and
/// builds and validates the tree.
pub(super) fn assemble(
    file: FileId,
    t: Tables,
    mut body: Body,
    refs: &Refs,
    limits: &Limits,
) -> crate::diag::Result<Tree> {
    let span = |s: SimpleSpan| Span::new(file, s.start, s.end);
    let mut errors = Vec::new();
    let mut root_names: HashMap<&str, ()> = HashMap::new();
    for ((name, s), _) in &body.roots {
        if root_names.insert(name, ()).is_some() {
            errors.push(duplicate(*s, "root", name).into_diagnostic(file));
        }
    }
    let mut sub_ix: HashMap<String, u32> = HashMap::new();
    for (i, ((name, s), ..)) in body.subtrees.iter().enumerate() {
        if sub_ix.contains_key(name) {
            errors.push(duplicate(*s, "subtree", name).into_diagnostic(file));
        } else {
            sub_ix.insert(name.clone(), u32::try_from(i).unwrap_or(u32::MAX));
        }
    }
    // Resolve includes and count nodes, iteratively.
    let mut count = 0usize;
    let mut stack: Vec<&mut NodeBuf> = body
        .roots
        .iter_mut()
        .map(|r| &mut r.1)
        .chain(body.subtrees.iter_mut().map(|s| &mut s.3))
        .collect();
    while let Some(n) = stack.pop() {
        count += 1;
        if let NodeKind::Include(id) = &mut n.kind {
            let name = refs.names.get(id.0 as usize).map_or("", String::as_str);
            match sub_ix.get(name) {
                Some(&i) => *id = SubtreeId(i),
                None => errors.push(Diagnostic::new(
                    ErrorKind::UnknownName,
                    n.span,
                    format!("unknown subtree `{name}`: expected a name declared with `subtree`"),
                )),
            }
        }
        stack.extend(n.children.iter_mut());
    }
    if count > limits.max_nodes {
        errors.push(Diagnostic::new(
            ErrorKind::TooManyNodes,
            Span::new(file, 0, 0),
            format!(
                "the tree has {count} nodes, more than the limit of {}",
                limits.max_nodes
            ),
        ));
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| d.span.start);
        return Err(errors);
    }
    let mut b = TreeBuilder::new(t.dialect);
    b.config(t.config);
    for i in t.imports {
        b.import(i);
    }
    for v in t.vars {
        b.var(v);
    }
    for ts in t.timestamps {
        b.timestamp(ts);
    }
    for f in t.flags {
        b.flag(f);
    }
    for st in t.stimuli {
        b.stimulus(st);
    }
    for s in body.signals {
        b.signal(s.event, s.var, s.value);
    }
    for ((name, _), node) in body.roots {
        b.root(name, node);
    }
    for ((name, _), sharing, s, node) in body.subtrees {
        let id = b.declare_subtree(name, sharing, span(s));
        b.define_subtree(id, node);
    }
    let whole = Span::new(file, 0, 0);
    finish(b, whole)
}

/// Finishes and validates the tree `b` built; a failure is an `InvalidValue` error at `whole`.
pub(in crate::syntax) fn finish(b: TreeBuilder, whole: Span) -> crate::diag::Result<Tree> {
    let tree = b
        .finish()
        .map_err(|m| vec![Diagnostic::new(ErrorKind::InvalidValue, whole, m)])?;
    tree.validate()
        .map_err(|m| vec![Diagnostic::new(ErrorKind::InvalidValue, whole, m)])?;
    Ok(tree)
}
