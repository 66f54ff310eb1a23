//! The BST front-end (`spec/bst.md` sections 1 and 3), through `btvm_compiler::load::load`:
//! the IR mapping, every section, Blocks and Refs in every allowed place, scoping, cycles,
//! leaf translations, limits, several trees, and every hostile input as a positioned error.

use std::path::Path;

use btvm::Limits;
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    BinOp, Composite, Dialect, Expr, GuardEval, Lit, Model, NodeId, NodeKind, Resume, Tree,
    Trigger, Type,
};
use btvm_compiler::load::{load, Format, LoadOptions};
use btvm_compiler::source::{FileSystem, SourceMap};

use btvm_testkit::front;

mod blocks_and_refs;
mod hostile;
mod ir_mapping;
mod leaf_translations;
mod nodes;
mod several_trees;
mod whole_trees;

// ---- helpers ------------------------------------------------------------------------------

/// `load::load` in the shape of a front-end's `load`, so the shared helpers can drive it.
fn load_any(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> btvm_compiler::diag::Result<Tree> {
    let options = LoadOptions {
        limits: *limits,
        ..LoadOptions::default()
    };
    load(path, fs, &options, sources)
}

/// `load::load` with the format forced to BST (files the sniffer cannot read: broken XML,
/// invalid UTF-8, missing files).
fn load_bst(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> btvm_compiler::diag::Result<Tree> {
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        limits: *limits,
        ..LoadOptions::default()
    };
    load(path, fs, &options, sources)
}

fn ok_files(files: &[(&str, &str)]) -> Tree {
    let tree = front::load_ok(load_any, files);
    assert_eq!(tree.dialect, Dialect::Bst);
    assert_eq!(tree.config.model, Model::Selection);
    tree
}

fn ok(main: &str) -> Tree {
    ok_files(&[("main.xml", main)])
}

/// Loads `files` (the first is the main file), which must load; the tree and the kinds and
/// covered texts of its warnings.
#[track_caller]
fn warns_files(files: &[(&str, &str)]) -> (Tree, Vec<(ErrorKind, String)>) {
    let fs = front::memfs(
        &files
            .iter()
            .map(|(n, t)| (*n, t.as_bytes()))
            .collect::<Vec<_>>(),
    );
    let mut sources = SourceMap::new();
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        ..LoadOptions::default()
    };
    let path = format!("/t/{}", files[0].0);
    match btvm_compiler::load::load_reporting(Path::new(&path), &fs, &options, &mut sources) {
        Ok(l) => {
            let w = l
                .warnings
                .iter()
                .map(|d| {
                    assert!(d.is_warning());
                    let text = sources
                        .get(d.span.file)
                        .and_then(|f| f.text.get(d.span.start as usize..d.span.end as usize))
                        .unwrap_or("")
                        .to_string();
                    (d.kind, text)
                })
                .collect();
            (l.tree, w)
        }
        Err(d) => panic!("{:?}: {}", d[0].kind, d[0].message),
    }
}

#[track_caller]
fn warns(main: &str) -> (Tree, Vec<(ErrorKind, String)>) {
    warns_files(&[("main.xml", main)])
}

fn w(kind: ErrorKind, text: &str) -> (ErrorKind, String) {
    (kind, text.to_string())
}

/// A failed load: the first diagnostic, its `file:line:col` and the text its span covers.
struct Failure {
    diag: Diagnostic,
    at: String,
    text: String,
}

fn fail_bytes(files: &[(&str, &[u8])], limits: &Limits) -> Failure {
    let (r, sources) = front::try_load_bytes(load_bst, files, limits);
    match r {
        Ok(_) => panic!("{} loaded but should not have", files[0].0),
        Err(d) => {
            let diag = d[0].clone();
            let text = sources
                .get(diag.span.file)
                .and_then(|f| f.text.get(diag.span.start as usize..diag.span.end as usize))
                .unwrap_or("")
                .to_string();
            Failure {
                at: sources.locate(diag.span),
                diag,
                text,
            }
        }
    }
}

fn fail_files(files: &[(&str, &str)]) -> Failure {
    let bytes: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    fail_bytes(&bytes, &Limits::default())
}

/// Asserts the kind of the error `main` gives and the text its span covers.
#[track_caller]
fn assert_err(main: &str, kind: ErrorKind, covers: &str) -> Failure {
    let f = fail_files(&[("main.xml", main)]);
    assert_eq!(f.diag.kind, kind, "{}: {}", f.at, f.diag.message);
    assert_eq!(f.text, covers, "{}: {}", f.at, f.diag.message);
    f
}

/// A main file with one tree `T`, with `body` as its children.
fn tree(body: &str) -> String {
    format!("<SelectionTrees><SelectionTree name='T' type='BST'>{body}</SelectionTree></SelectionTrees>")
}

fn expr(t: &Tree, e: &Expr) -> String {
    match e {
        Expr::Lit(Lit::Bool(b)) => b.to_string(),
        Expr::Var(v) => t.vars[v.0 as usize].name.clone(),
        Expr::Not(a) => format!("!{}", expr(t, a)),
        Expr::Binary(op, a, b) => {
            let op = match op {
                BinOp::And => "and",
                BinOp::Or => "or",
                BinOp::Xor => "xor",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                other => panic!("unexpected operator {other:?}"),
            };
            format!("({} {op} {})", expr(t, a), expr(t, b))
        }
        other => panic!("unexpected expression {other:?}"),
    }
}

/// A compact rendering of the subtree at `id`, checking each node's BST knobs on the way.
fn show(t: &Tree, id: NodeId) -> String {
    let n = t.node(id);
    let name = n.name.clone().unwrap_or_default();
    let kids = |sep: &str| {
        n.children
            .iter()
            .map(|&c| show(t, c))
            .collect::<Vec<_>>()
            .join(sep)
    };
    match &n.kind {
        NodeKind::Select(b) => format!("{name}>{b}"),
        NodeKind::Priority(p) => {
            assert_eq!(p.repick, GuardEval::EveryTick);
            format!("priority {name} {{{}}}", kids(", "))
        }
        NodeKind::Sequence(c) => {
            let want = Composite {
                resume: Resume::Remember,
                looping: false,
                cond: None,
            };
            assert_eq!(c, &want);
            format!("sequence {name} {{{}}}", kids(", "))
        }
        NodeKind::Case(e) => {
            assert!(n.name.is_none());
            format!("[{}] {}", expr(t, e), kids(""))
        }
        NodeKind::StateMachine => format!("sm {name} {{{}}}", kids(", ")),
        NodeKind::State(s) => {
            let ts: Vec<String> = s
                .transitions
                .iter()
                .map(|tr| match &tr.on {
                    Trigger::When(e) => format!(" when {} -> {}", expr(t, e), tr.to),
                    other => panic!("unexpected trigger {other:?}"),
                })
                .collect();
            format!("@{name}{}: {}", ts.concat(), kids(""))
        }
        other => panic!("unexpected node kind {other:?}"),
    }
}

fn main_tree(t: &Tree) -> String {
    show(t, t.roots[0].node)
}

fn vars(t: &Tree) -> Vec<String> {
    t.vars
        .iter()
        .map(|v| {
            assert_eq!(v.ty, Type::Bool);
            format!("{}={}", v.name, v.default)
        })
        .collect()
}

fn signals(t: &Tree) -> Vec<String> {
    t.signals
        .iter()
        .map(|s| {
            format!(
                "{}: {} = {}",
                s.event,
                t.vars[s.var.0 as usize].name,
                expr(t, &s.value)
            )
        })
        .collect()
}
