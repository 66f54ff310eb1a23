//! The Unvanquished `.bt` front-end: IR mapping, expressions, literals, the preprocessor,
//! includes, every error kind with its position, hostile nesting, and the real game files in
//! `../shared/corpus/unvanquished/` (skipped with a message when that folder is absent).

use std::path::{Path, PathBuf};

use btvm::{ImportKind, Limits};
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    BinOp, Composite, Expr, GuardEval, Lit, Node, NodeId, NodeKind, Parallel, Quorum, Resume,
    Sharing, Tree,
};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};
use btvm_compiler::syntax::unvanquished::load;

use btvm_testkit::front;

mod errors;
mod expressions;
mod game_files;
mod hostile_nesting;
mod includes;
mod invert_quirk;
mod ir_mapping;
mod literals;
mod preprocessor;

// ---- helpers ------------------------------------------------------------------------------

fn try_load_with(
    files: &[(&str, &str)],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    front::try_load_with(load, files, limits)
}

fn load_ok(files: &[(&str, &str)]) -> Tree {
    front::load_ok(load, files)
}

fn load_src(src: &str) -> Tree {
    load_ok(&[("main.bt", src)])
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

fn err_files(files: &[(&str, &str)]) -> (Diagnostic, String) {
    err_with(files, &Limits::default())
}

fn err(src: &str) -> (Diagnostic, String) {
    err_files(&[("main.bt", src)])
}

/// Asserts the kind and the `line:col` of the error `src` produces.
#[track_caller]
fn assert_err(src: &str, kind: ErrorKind, line_col: &str) -> Diagnostic {
    let (d, at) = err(src);
    assert_eq!(d.kind, kind, "{}: {}", at, d.message);
    assert_eq!(at, format!("/t/main.bt:{line_col}"), "{}", d.message);
    d
}

/// Asserts the kind and the `line:col` of the first warning loading `src` gives (whether or not
/// the load then fails): what the game only logs.
#[track_caller]
fn assert_warns(src: &str, kind: ErrorKind, line_col: &str) -> Diagnostic {
    let mut fs = MemFs::new();
    fs.insert("/t/main.bt", src.as_bytes().to_vec());
    let mut sources = SourceMap::new();
    let mut warnings = Vec::new();
    let _ = btvm_compiler::syntax::unvanquished::load_with_warnings(
        Path::new("/t/main.bt"),
        &fs,
        &Limits::default(),
        &mut sources,
        &mut warnings,
    );
    let Some(d) = warnings.first() else {
        panic!("{src:?} gave no warning");
    };
    assert!(d.is_warning());
    assert_eq!(d.kind, kind, "{src:?}: {}", d.message);
    assert_eq!(
        sources.locate(d.span).to_string(),
        format!("/t/main.bt:{line_col}"),
        "{}",
        d.message
    );
    d.clone()
}

fn root(t: &Tree) -> &Node {
    t.node(t.main_root().unwrap())
}

fn import_name(t: &Tree, call: &btvm_compiler::ir::CallExpr) -> String {
    t.imports[call.import.0 as usize].name.clone()
}

fn lit(l: &Lit) -> String {
    match l {
        Lit::Int(i) => i.to_string(),
        Lit::Float(f) => format!("{f:?}f"),
        Lit::Str(s) => format!("{s:?}"),
        Lit::Bool(b) => b.to_string(),
    }
}

fn show_expr(t: &Tree, e: &Expr) -> String {
    match e {
        Expr::Lit(l) => lit(l),
        Expr::Not(a) => format!("!{}", show_expr(t, a)),
        Expr::Binary(op, a, b) => {
            format!("({} {} {})", show_expr(t, a), op.symbol(), show_expr(t, b))
        }
        Expr::Call(c) => format!("{}({})", import_name(t, c), show_args(t, c)),
        other => format!("{other:?}"),
    }
}

fn show_args(t: &Tree, c: &btvm_compiler::ir::CallExpr) -> String {
    c.args
        .iter()
        .map(|a| {
            assert!(a.name.is_none());
            show_expr(t, &a.value)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A compact rendering of a node and its children.
fn show(t: &Tree, id: NodeId) -> String {
    let n = t.node(id);
    let kids: Vec<String> = n.children.iter().map(|&c| show(t, c)).collect();
    let head = match &n.kind {
        NodeKind::Selector(c) if c.resume == Resume::Restart => "selector".to_string(),
        NodeKind::Selector(_) => "fallback".to_string(),
        NodeKind::Sequence(_) => "sequence".to_string(),
        NodeKind::Parallel(_) => "concurrent".to_string(),
        NodeKind::Action(c) => format!("{}({})", import_name(t, c), show_args(t, c)),
        NodeKind::Condition(e) => format!("cond {}", show_expr(t, e)),
        NodeKind::Guard(g) => format!("guard {}", show_expr(t, &g.cond)),
        NodeKind::Invert => "invert".to_string(),
        NodeKind::MapStatus(m) => format!("map({},{},{})", m.failure, m.success, m.running),
        NodeKind::Cooldown(c) => format!("timer({})", c.ms),
        NodeKind::Include(s) => format!("include {}", t.subtrees[s.0 as usize].name),
        other => format!("{other:?}"),
    };
    if kids.is_empty() {
        head
    } else {
        format!("{head} {{ {} }}", kids.join("; "))
    }
}

fn show_main(t: &Tree) -> String {
    show(t, t.main_root().unwrap())
}

/// The expression of `condition EXPR` (given a child: a condition cannot end a file).
fn expr_of(src: &str) -> String {
    let t = load_src(&format!("condition {src} {{ action roam() }}"));
    match &root(&t).kind {
        NodeKind::Guard(g) => show_expr(&t, &g.cond),
        k => panic!("{k:?}"),
    }
}

/// The arguments of `action NAME(ARGS)`.
fn args_of(call: &str) -> String {
    let t = load_src(&format!("action {call}"));
    match &root(&t).kind {
        NodeKind::Action(c) => show_args(&t, c),
        k => panic!("{k:?}"),
    }
}
