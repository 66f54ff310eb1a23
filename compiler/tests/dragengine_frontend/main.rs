//! The Drag[en]gine `.debt` front-end: every rule kind and its IR shape, condition modes,
//! parameters, doNotFail and loop, rule ids (prefixes, the subtree quirk, duplicates), subtree
//! files (relative paths, per-site copies, cycles, include depth), every error kind with its
//! position, hostile nesting, and the `spec/examples/wanderer` example.

use std::path::{Path, PathBuf};

use btvm::{ImportKind, Limits, Status};
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    BinOp, Dialect, Expr, GuardEval, Lit, Model, NodeId, NodeKind, Resume, RootFinish, Tree,
};
use btvm_compiler::load::{self, LoadOptions};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};
use btvm_compiler::syntax::dragengine::load;

use btvm_testkit::front;

mod conditions_and_parameters;
mod errors;
mod example;
mod hostile_nesting;
mod rule_ids;
mod rule_kinds;
mod subtree_files;
mod tree_and_knobs;

// ---- helpers ------------------------------------------------------------------------------

use front::memfs;

fn try_load_with(
    files: &[(&str, &str)],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    front::try_load_with(load, files, limits)
}

fn try_load_bytes(
    files: &[(&str, &[u8])],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    front::try_load_bytes(load, files, limits)
}

fn load_files(files: &[(&str, &str)]) -> Tree {
    front::load_ok(load, files)
}

/// Loads `body` wrapped in `<behaviorTree>`.
fn load_tree(body: &str) -> Tree {
    load_files(&[("main.debt", &tree(body))])
}

fn tree(body: &str) -> String {
    format!("<behaviorTree>{body}</behaviorTree>")
}

/// The first diagnostic and its `file:line:col`.
fn err_with(files: &[(&str, &str)], limits: &Limits) -> (Diagnostic, String) {
    let (r, sources) = try_load_with(files, limits);
    match r {
        Ok(_) => panic!("{} loaded but should not have", files[0].0),
        Err(d) => {
            let at = sources.locate(d[0].span);
            (d[0].clone(), at)
        }
    }
}

/// Asserts the kind and `line:col` (in `/t/main.debt`) of the error `src` produces.
#[track_caller]
fn assert_err(src: &str, kind: ErrorKind, line_col: &str) -> Diagnostic {
    let (d, at) = err_with(&[("main.debt", src)], &Limits::default());
    assert_eq!(d.kind, kind, "{}: {}", at, d.message);
    assert_eq!(at, format!("/t/main.debt:{line_col}"), "{}", d.message);
    d
}

fn import_name(t: &Tree, id: btvm::ImportId) -> String {
    let i = &t.imports[id.0 as usize];
    let k = match i.kind {
        ImportKind::Action => "action ",
        ImportKind::Function => "",
    };
    format!("{k}{}", i.name)
}

fn show_expr(t: &Tree, e: &Expr) -> String {
    match e {
        Expr::Lit(Lit::Str(s)) => format!("{s:?}"),
        Expr::Bound(i) => format!("@bound({})", import_name(t, *i)),
        Expr::Not(a) => format!("!{}", show_expr(t, a)),
        Expr::Binary(op, a, b) => {
            format!("({} {} {})", show_expr(t, a), op.symbol(), show_expr(t, b))
        }
        Expr::Call(c) => format!(
            "{}({})",
            t.imports[c.import.0 as usize].name,
            show_args(t, &c.args)
        ),
        other => panic!("unexpected expression {other:?}"),
    }
}

fn show_args(t: &Tree, args: &[btvm_compiler::ir::Arg]) -> String {
    args.iter()
        .map(|a| {
            assert!(a.name.is_none(), "parameters are positional");
            show_expr(t, &a.value)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A compact rendering: `kind#name { children }`; asserts the knobs every rule must have.
fn show(t: &Tree, id: NodeId) -> String {
    let n = t.node(id);
    let kids: Vec<String> = n.children.iter().map(|&c| show(t, c)).collect();
    let list = |word: &str, c: &btvm_compiler::ir::Composite| {
        assert_eq!(c.resume, Resume::Cursor);
        let mut s = word.to_string();
        if c.looping {
            s.push_str(" loop");
        }
        if let Some(e) = &c.cond {
            s.push_str(&format!(" when {}", show_expr(t, e)));
        }
        s
    };
    let mut head = match &n.kind {
        NodeKind::Sequence(c) => list("sequence", c),
        NodeKind::Selector(c) => list("choice", c),
        NodeKind::Guard(g) => {
            assert_eq!(g.eval, GuardEval::EveryTick);
            format!("guard {}", show_expr(t, &g.cond))
        }
        NodeKind::MapStatus(m) => {
            assert_eq!(
                (m.failure, m.success, m.running),
                (Status::Success, Status::Success, Status::Running)
            );
            "dnf".to_string()
        }
        NodeKind::Action(c) => format!(
            "action {}({})",
            t.imports[c.import.0 as usize].name,
            show_args(t, &c.args)
        ),
        NodeKind::Const(s) => s.to_string(),
        NodeKind::Yield => "yield".to_string(),
        other => panic!("unexpected node kind {other:?}"),
    };
    if let Some(name) = &n.name {
        head.push_str(&format!("#{name}"));
    }
    if kids.is_empty() {
        head
    } else {
        format!("{head} {{ {} }}", kids.join("; "))
    }
}

fn show_main(t: &Tree) -> String {
    show(t, t.main_root().unwrap())
}

/// Every rule id in the tree, in pre-order.
fn ids(t: &Tree) -> Vec<String> {
    t.nodes.iter().filter_map(|n| n.name.clone()).collect()
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
