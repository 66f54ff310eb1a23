//! Whole-tree checks that every engine relies on, run after any front-end.
//!
//! - the structural invariants of [`Tree::validate`];
//! - no include cycles (a subtree reaching itself through `include` nodes);
//! - nesting depth through includes within `Limits::max_depth`, node count within
//!   `Limits::max_nodes`, expression depth within `Limits::max_expr_depth`;
//! - knobs consistent with the tree's model (`running-list` resume needs the running-list
//!   model, `cursor` resume the cursor model), and a cursor model's run-away limit of at
//!   least 1 (the verifier refuses 0, so the checker must too);
//! - imports whose least argument count is at most their greatest, calls with an argument
//!   count the import takes, and Spore behaviors whose import can be called without
//!   arguments (the verifier checks all three again in the bytecode).
//!
//! - what the tree's execution model runs: node kinds and knobs, timestamps only in the
//!   lifecycle model, boolean variables where the model has only those, entries and subtrees
//!   as the model allows, and node widths within the bytecode's state masks (one module per
//!   model: `running_list`, `cursor`, `decider`, `lifecycle`, `selection`; shared rules in
//!   `kinds`).
//!
//! **This module alone decides whether a tree is valid.** After `check` succeeds, every engine
//! runs the tree and the lowering compiles it, failing only on a size limit
//! (`ProgramTooLarge`); neither repeats a rule of this module. Engines may recurse over a
//! checked tree without risking the stack. This module never recurses itself.

mod cursor;
mod decider;
mod kinds;
mod lifecycle;
mod running_list;
mod selection;

use btvm::Limits;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{CallExpr, Expr, Model, NodeId, NodeKind, Resume, Tree};
use crate::source::Span;

/// Checks `tree` against `limits`; returns every problem found, in source order. The rules
/// about the tree's model run only on a tree that passed the others (they may follow includes).
pub fn check(tree: &Tree, limits: &Limits) -> crate::diag::Result<()> {
    let span0 = tree.main_root().map_or(Span::DUMMY, |r| {
        tree.nodes.get(r.index()).map_or(Span::DUMMY, |n| n.span)
    });
    if let Err(msg) = tree.validate() {
        return Err(vec![Diagnostic::new(
            ErrorKind::InvalidValue,
            span0,
            format!("invalid tree: {msg}"),
        )]);
    }
    let mut diags = Vec::new();
    if tree.nodes.len() > limits.max_nodes {
        diags.push(Diagnostic::new(
            ErrorKind::TooManyNodes,
            span0,
            format!(
                "the tree has {} nodes; the limit is {}",
                tree.nodes.len(),
                limits.max_nodes
            ),
        ));
    }
    // Signal values are expressions like any node's, checked at the main root's position.
    let signal_values = tree.signals.iter().map(|s| (&s.value, span0));
    let node_exprs = tree
        .nodes
        .iter()
        .flat_map(|n| n.kind.exprs().into_iter().map(move |e| (e, n.span)));
    let exprs: Vec<(&Expr, Span)> = node_exprs.chain(signal_values).collect();
    for (e, span) in &exprs {
        let d = e.depth();
        if d > limits.max_expr_depth as usize {
            diags.push(Diagnostic::new(
                ErrorKind::NestTooDeep,
                *span,
                format!(
                    "expression nested {d} deep; the limit is {}",
                    limits.max_expr_depth
                ),
            ));
        }
    }
    for n in &tree.nodes {
        if let NodeKind::Sequence(c) | NodeKind::Selector(c) = &n.kind {
            let ok = match c.resume {
                Resume::RunningList => matches!(tree.config.model, Model::RunningList { .. }),
                Resume::Cursor => matches!(tree.config.model, Model::Cursor { .. }),
                Resume::Restart | Resume::Remember => true,
            };
            if !ok {
                diags.push(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    n.span,
                    format!(
                        "resume policy {:?} does not fit the tree's {:?} model",
                        c.resume, tree.config.model
                    ),
                ));
            }
        }
    }
    for i in tree.imports.iter().filter(|i| i.min_args > i.max_args) {
        diags.push(Diagnostic::new(
            ErrorKind::Arity,
            span0,
            format!(
                "{} `{}` is declared with {}..{} arguments: the least is more than the most",
                i.kind.name(),
                i.name,
                i.min_args,
                i.max_args
            ),
        ));
    }
    for n in &tree.nodes {
        // A Spore behavior's functions are called without arguments.
        let behavior = match &n.kind {
            NodeKind::Behavior(b) => Some(b),
            NodeKind::Group(g) => g.behavior.as_ref(),
            _ => None,
        };
        if let Some(i) = behavior.and_then(|b| tree.imports.get(b.import.index())) {
            if i.min_args > 0 {
                diags.push(Diagnostic::new(
                    ErrorKind::Arity,
                    n.span,
                    format!(
                        "behavior `{}` is called without arguments, but its import takes {}..{}",
                        i.name, i.min_args, i.max_args
                    ),
                ));
            }
        }
        for c in n.kind.calls() {
            check_arity(tree, c, n.span, &mut diags);
        }
    }
    for (e, span) in &exprs {
        e.walk(|x| {
            if let Expr::Call(c) = x {
                check_arity(tree, c, *span, &mut diags);
            }
        });
    }
    if let Model::Cursor { runaway_limit: 0 } = tree.config.model {
        diags.push(
            Diagnostic::new(
                ErrorKind::InvalidValue,
                span0,
                "a run-away limit of 0 rule runs stops every step before its first rule",
            )
            .with_note("the limit must be at least 1 (Drag[en]gine's own is 100)"),
        );
    }
    if let Err(d) = check_includes(tree, limits) {
        diags.push(d);
    }
    if !diags.is_empty() {
        return Err(by_position(diags));
    }
    // What the tree's model runs (on a tree known to be sound, so these may follow includes).
    model(tree).map_err(by_position)
}

/// `diags` in source order (file, then offset; a stable sort, so problems at one position keep
/// the order the rules found them in).
fn by_position(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| (d.span.file, d.span.start));
    diags
}

/// Whether the tree's execution model defines every node kind and knob the tree uses: each
/// one it does not is an [`ErrorKind::Unsupported`] error.
fn model(tree: &Tree) -> kinds::Found {
    match tree.config.model {
        Model::RunningList { .. } => running_list::supported(tree),
        Model::Cursor { .. } => cursor::supported(tree),
        Model::Decider { .. } => decider::supported(tree),
        Model::Lifecycle => lifecycle::supported(tree),
        Model::Selection => selection::supported(tree),
    }
}

/// An `Arity` error at `span` when `call` passes a number of arguments outside its import's
/// range (an import whose range is empty is reported once, elsewhere).
fn check_arity(tree: &Tree, call: &CallExpr, span: Span, diags: &mut Vec<Diagnostic>) {
    let Some(i) = tree.imports.get(call.import.index()) else {
        return;
    };
    let argc = call.args.len();
    if i.min_args <= i.max_args
        && (argc < usize::from(i.min_args) || argc > usize::from(i.max_args))
    {
        diags.push(Diagnostic::new(
            ErrorKind::Arity,
            span,
            format!(
                "{} `{}` is called with {argc} arguments; it takes {}..{}",
                i.kind.name(),
                i.name,
                i.min_args,
                i.max_args
            ),
        ));
    }
}

/// Names every Drag\[en\]gine game has: the standard `timer.*` actions and conditions.
pub const DRAGENGINE_STANDARD_NAMES: [&str; 4] =
    ["timer.start", "timer.stop", "timer.wait", "timer.running"];

/// `btvm check --strict`: in a tree whose host looks names up at run time (the cursor model),
/// every action and condition the tree calls must be a standard name or one of `known`;
/// otherwise (a name the game may lack would fail at run time) it is an `UnknownName` error at
/// each node that first calls it. Other models check their names at load, so this finds
/// nothing there.
pub fn strict_names(tree: &Tree, known: &[String]) -> Vec<Diagnostic> {
    if !matches!(tree.config.model, Model::Cursor { .. }) {
        return Vec::new();
    }
    let is_known =
        |name: &str| DRAGENGINE_STANDARD_NAMES.contains(&name) || known.iter().any(|k| k == name);
    let mut reported = vec![false; tree.imports.len()];
    let mut diags = Vec::new();
    for n in &tree.nodes {
        let mut called: Vec<_> = n.kind.calls().iter().map(|c| c.import).collect();
        for e in n.kind.exprs() {
            e.walk(|x| {
                if let crate::ir::Expr::Call(c) = x {
                    called.push(c.import);
                }
            });
        }
        for id in called {
            let Some(imp) = tree.imports.get(id.index()) else {
                continue;
            };
            if !reported[id.index()] && !is_known(&imp.name) {
                reported[id.index()] = true;
                diags.push(
                    Diagnostic::new(
                        ErrorKind::UnknownName,
                        n.span,
                        format!("the game may have no {} `{}`", imp.kind.name(), imp.name),
                    )
                    .with_note(
                        "unchecked, it fails at run time if the game lacks it; declare it as known",
                    ),
                );
            }
        }
    }
    diags
}

/// Local facts about one entry or subtree body.
struct Body {
    /// Height of the body without following includes (a leaf is 1).
    height: usize,
    /// Includes in the body: (node, depth of the include node, target subtree index).
    includes: Vec<(NodeId, usize, usize)>,
}

fn body(tree: &Tree, root: NodeId) -> Body {
    let mut b = Body {
        height: 0,
        includes: Vec::new(),
    };
    let mut stack = vec![(root, 1usize)];
    while let Some((id, d)) = stack.pop() {
        b.height = b.height.max(d);
        let node = tree.node(id);
        if let NodeKind::Include(s) = node.kind {
            b.includes.push((id, d, s.0 as usize));
        }
        stack.extend(node.children.iter().map(|&c| (c, d + 1)));
    }
    b
}

fn check_includes(tree: &Tree, limits: &Limits) -> Result<(), Diagnostic> {
    let subs: Vec<Body> = tree.subtrees.iter().map(|s| body(tree, s.node)).collect();
    // Effective height of each subtree, computed in post-order with an explicit stack;
    // `state`: 0 unvisited, 1 on the stack, 2 done.
    let mut height = vec![0usize; subs.len()];
    let mut state = vec![0u8; subs.len()];
    for start in 0..subs.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (s, ref mut next)) = stack.last_mut() {
            if let Some(&(node, _, target)) = subs[s].includes.get(*next) {
                *next += 1;
                match state[target] {
                    0 => {
                        state[target] = 1;
                        stack.push((target, 0));
                    }
                    1 => {
                        let chain: Vec<&str> = stack
                            .iter()
                            .map(|&(i, _)| tree.subtrees[i].name.as_str())
                            .skip_while(|&n| n != tree.subtrees[target].name)
                            .collect();
                        return Err(Diagnostic::new(
                            ErrorKind::IncludeCycle,
                            tree.node(node).span,
                            format!(
                                "include cycle: {} -> {}",
                                chain.join(" -> "),
                                tree.subtrees[target].name
                            ),
                        ));
                    }
                    _ => {}
                }
            } else {
                let h = subs[s]
                    .includes
                    .iter()
                    .map(|&(_, d, t)| d + height[t])
                    .fold(subs[s].height, usize::max);
                height[s] = h;
                state[s] = 2;
                stack.pop();
            }
        }
    }
    for entry in &tree.roots {
        let b = body(tree, entry.node);
        let h = b
            .includes
            .iter()
            .map(|&(_, d, t)| d + height[t])
            .fold(b.height, usize::max);
        if h > limits.max_depth as usize {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                tree.node(entry.node).span,
                format!(
                    "entry `{}` nests {h} nodes deep through its includes; the limit is {}",
                    entry.name, limits.max_depth
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Composite, Dialect, NodeBuf, Sharing, TreeBuilder};
    use btvm::Status;

    fn include(id: crate::ir::SubtreeId) -> NodeBuf {
        NodeBuf::leaf(NodeKind::Include(id), Span::DUMMY)
    }

    fn seq(children: Vec<NodeBuf>) -> NodeBuf {
        let c = Composite {
            resume: Resume::RunningList,
            looping: false,
            cond: None,
        };
        NodeBuf::new(NodeKind::Sequence(c), Span::DUMMY, children)
    }

    /// Found by the `compile` fuzz target: a cursor-model tree with a run-away limit of 0 (the
    /// canonical syntax's `model cursor 0;`) passed the checker, then the verifier refused the
    /// lowered program, so `btvm check` said "ok" about a tree `btvm run` could not run.
    #[test]
    fn a_runaway_limit_of_zero_is_refused_by_the_checker() {
        for (limit, ok) in [(0, false), (1, true)] {
            let mut b = TreeBuilder::new(Dialect::Dragengine);
            let mut config = crate::ir::TreeConfig::for_dialect(Dialect::Dragengine);
            config.model = Model::Cursor {
                runaway_limit: limit,
            };
            b.config(config);
            let leaf = NodeBuf::leaf(NodeKind::Const(Status::Success), Span::DUMMY);
            b.root("main", leaf);
            let t = b.finish().unwrap();
            match check(&t, &Limits::default()) {
                Ok(()) => assert!(ok),
                Err(d) => {
                    assert!(!ok);
                    assert_eq!(d[0].kind, ErrorKind::InvalidValue);
                }
            }
            assert_eq!(crate::lower::lower(&t, &Limits::default()).is_ok(), ok);
        }
    }

    /// Found by the `compile` fuzz target: an import declared with more required arguments
    /// than allowed ones (`import action a 3..1;`) passed the checker, then the verifier
    /// refused the lowered program.
    #[test]
    fn an_import_whose_argument_range_is_empty_is_refused() {
        let src = "btvm 1;\ndialect unvanquished;\nimport action a 3..1;\nroot main = action a(1, 2, 3)\n";
        let t = crate::syntax::canonical::parse(crate::source::FileId(0), src, &Limits::default())
            .unwrap();
        let d = check(&t, &Limits::default()).unwrap_err();
        assert_eq!(d[0].kind, ErrorKind::Arity);
        assert!(
            d[0].message.contains("`a` is declared with 3..1"),
            "{}",
            d[0].message
        );
        assert!(crate::lower::lower(&t, &Limits::default()).is_err());
    }

    /// Found by the `compile` fuzz target: a Spore behavior (or group behavior) whose import
    /// needs arguments passed the checker, and the verifier refused the lowered `behave`
    /// (behaviors are called without arguments).
    #[test]
    fn behaviors_whose_import_needs_arguments_are_refused() {
        for (import, ok) in [("0..0", true), ("0..2", true), ("1..1", false)] {
            for body in [
                "group prioritized { decider { behavior a tick } }",
                "group prioritized behavior a tick { decider { behavior b tick } }",
            ] {
                let src = format!(
                    "btvm 1;\ndialect spore;\nimport action a {import};\n\
                     import action b 0..0;\nroot main = decider {{ {body} }}\n"
                );
                let t = crate::syntax::canonical::parse(
                    crate::source::FileId(0),
                    &src,
                    &Limits::default(),
                )
                .unwrap();
                match check(&t, &Limits::default()) {
                    Ok(()) => {
                        assert!(ok, "{src}");
                        crate::lower::lower(&t, &Limits::default()).unwrap();
                    }
                    Err(d) => {
                        assert!(!ok, "{src}");
                        assert_eq!(d[0].kind, ErrorKind::Arity);
                        assert!(d[0].message.contains("behavior `a`"), "{}", d[0].message);
                    }
                }
            }
        }
    }

    /// Found by the `compile` fuzz target: the front-ends check arities, but a tree built
    /// through the API (or the canonical syntax) could call an import with more or fewer
    /// arguments than it declares; the checker passed it and the verifier refused the program.
    #[test]
    fn calls_outside_their_import_s_argument_range_are_refused() {
        for (call, ok) in [("a()", false), ("a(1)", true), ("a(1, 2, 3)", false)] {
            let src = format!(
                "btvm 1;\ndialect unvanquished;\nimport action a 1..2;\nimport function f 0..0;\n\
                 root main = sequence restart {{ action {call} condition (f() > 0) }}\n"
            );
            let t =
                crate::syntax::canonical::parse(crate::source::FileId(0), &src, &Limits::default())
                    .unwrap();
            match check(&t, &Limits::default()) {
                Ok(()) => assert!(ok, "{call}"),
                Err(d) => {
                    assert!(!ok, "{call}");
                    assert_eq!(d[0].kind, ErrorKind::Arity);
                    assert!(d[0].message.contains("takes 1..2"), "{}", d[0].message);
                }
            }
            assert_eq!(
                crate::lower::lower(&t, &Limits::default()).is_ok(),
                ok,
                "{call}"
            );
        }
        let src =
            "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\nimport function f 0..0;\n\
                   root main = guard every-tick (f(1) > 0) { action a() }\n";
        let t = crate::syntax::canonical::parse(crate::source::FileId(0), src, &Limits::default())
            .unwrap();
        assert_eq!(
            check(&t, &Limits::default()).unwrap_err()[0].kind,
            ErrorKind::Arity
        );
    }

    /// Found by the `compile` fuzz target (CI, stop 16): a signal's value calling a function
    /// with fewer arguments than it declares passed the checker, which only looked at the
    /// nodes' expressions, and the verifier then refused the lowered program.
    #[test]
    fn signal_values_are_checked_like_node_expressions() {
        let header = "btvm 1;\ndialect mbt;\nmodel lifecycle;\nimport function f 2..2;\n\
                      var v: bool = false;\n";
        for (value, ok) in [
            ("f(1, 2) > 0", true),
            ("!f()", false),
            ("f(1, 2, 3) > 0", false),
        ] {
            let src = format!("{header}signal \"E\" v = {value};\nroot main = const failure\n");
            let t =
                crate::syntax::canonical::parse(crate::source::FileId(0), &src, &Limits::default())
                    .unwrap();
            match check(&t, &Limits::default()) {
                Ok(()) => assert!(ok, "{value}"),
                Err(d) => {
                    assert!(!ok, "{value}");
                    assert_eq!(d[0].kind, ErrorKind::Arity, "{value}");
                    assert!(d[0].message.contains("takes 2..2"), "{}", d[0].message);
                }
            }
        }
        let deep = format!("{}true{}", "!(".repeat(300), ")".repeat(300));
        let src = format!("{header}signal \"E\" v = {deep};\nroot main = const failure\n");
        let roomy = Limits {
            max_expr_depth: 1000,
            ..Limits::default()
        };
        let t = crate::syntax::canonical::parse(crate::source::FileId(0), &src, &roomy).unwrap();
        assert!(check(&t, &roomy).is_ok());
        let d = check(&t, &Limits::default()).unwrap_err();
        assert_eq!(d[0].kind, ErrorKind::NestTooDeep);
    }

    #[test]
    fn include_cycles_are_reported() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        let a = b.declare_subtree("a", Sharing::Shared, Span::DUMMY);
        let c = b.declare_subtree("c", Sharing::Shared, Span::DUMMY);
        b.root("main", include(a));
        b.define_subtree(a, seq(vec![include(c)]));
        b.define_subtree(c, seq(vec![include(a)]));
        let t = b.finish().unwrap();
        let errs = check(&t, &Limits::default()).unwrap_err();
        assert_eq!(errs[0].kind, ErrorKind::IncludeCycle);
        assert!(
            errs[0].message.contains("a -> c -> a"),
            "{}",
            errs[0].message
        );
    }

    #[test]
    fn depth_counts_through_includes() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        let mut prev = None;
        let mut ids = Vec::new();
        for i in 0..10 {
            ids.push(b.declare_subtree(format!("s{i}"), Sharing::Shared, Span::DUMMY));
        }
        for (i, id) in ids.iter().enumerate() {
            let leaf = NodeBuf::leaf(NodeKind::Const(Status::Success), Span::DUMMY);
            let body = match prev {
                Some(p) => seq(vec![seq(vec![include(p)])]),
                None => seq(vec![leaf]),
            };
            let _ = i;
            b.define_subtree(*id, body);
            prev = Some(*id);
        }
        b.root("main", include(ids[9]));
        let t = b.finish().unwrap();
        // main(1) + 9 levels of 3 nodes + the last body (2) = 30
        let limits = Limits {
            max_depth: 29,
            ..Limits::default()
        };
        assert_eq!(
            check(&t, &limits).unwrap_err()[0].kind,
            ErrorKind::NestTooDeep
        );
        let limits = Limits {
            max_depth: 30,
            ..Limits::default()
        };
        check(&t, &limits).unwrap();
    }
}
