//! The MBT front-end (`spec/mbt.md` sections 1 and 3), through `btvm_compiler::load::load`:
//! every section and node and its IR, attribute defaults, seconds to milliseconds, the GameSDK
//! profile (actions, wrappers, leniency), Lua snippet imports, the time conditions, status logs,
//! every load error with its kind and position, hostile input, a GameSDK-style tree of our own,
//! and the canonical-syntax round trip of what the front-end produces.

use std::path::Path;

use btvm::{ImportKind, Limits, Status};
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    Arg, BinOp, CallExpr, Dialect, Expr, Hooks, Lit, LogStatus, NodeKind, TimestampId, Tree,
    TsQuery, VarId,
};
use btvm_compiler::load::{load, Format, LoadOptions, Profile};
use btvm_compiler::source::{MemFs, SourceMap};
use btvm_compiler::syntax::canonical;

mod attribute_errors;
mod declaration_errors;
mod gamesdk_tree;
mod hostile;
mod lua;
mod nodes;
mod numbers;
mod profile;
mod sections;
mod structure_errors;

// ---- helpers ------------------------------------------------------------------------------

const PATH: &str = "/ai/BehaviorTrees/main.xml";

fn try_load_with(
    bytes: &[u8],
    gamesdk: bool,
    limits: Limits,
    format: Option<Format>,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    let mut fs = MemFs::new();
    fs.insert(PATH, bytes.to_vec());
    let options = LoadOptions {
        format,
        limits,
        profile: gamesdk.then(|| Profile::builtin("gamesdk").unwrap()),
        deny_warnings: false,
        root: None,
    };
    let mut sources = SourceMap::new();
    let r = load(Path::new(PATH), &fs, &options, &mut sources);
    (r, sources)
}

fn try_load(xml: &str, gamesdk: bool) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    try_load_with(
        xml.as_bytes(),
        gamesdk,
        Limits::default(),
        Some(Format::Dialect(Dialect::Mbt)),
    )
}

#[track_caller]
fn ok_with(xml: &str, gamesdk: bool) -> Tree {
    match try_load(xml, gamesdk).0 {
        Ok(t) => t,
        Err(d) => panic!("{:?}: {}", d[0].kind, d[0].message),
    }
}

#[track_caller]
fn ok(xml: &str) -> Tree {
    ok_with(xml, false)
}

#[track_caller]
fn ok_sdk(xml: &str) -> Tree {
    ok_with(xml, true)
}

/// A document with `body` as its Root node, after the declarations `decls`.
fn doc(decls: &str, body: &str) -> String {
    format!("<BehaviorTree>\n{decls}\n<Root>\n{body}\n</Root>\n</BehaviorTree>\n")
}

/// The `file:line:col` of the first occurrence of `needle` in `text`.
fn at(text: &str, needle: &str) -> String {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is not in the text"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    format!("{PATH}:{line}:{col}")
}

/// The first diagnostic loading `xml` gives, and where it points.
#[track_caller]
fn err_with(xml: &str, gamesdk: bool) -> (Diagnostic, String) {
    let (r, sources) = try_load(xml, gamesdk);
    match r {
        Ok(_) => panic!("loaded but should not have:\n{xml}"),
        Err(d) => {
            let at = sources.locate(d[0].span);
            (d[0].clone(), at)
        }
    }
}

/// Asserts that `xml` fails with `kind` at the first occurrence of `needle`, with a message
/// containing `says`.
#[track_caller]
fn assert_err_with(xml: &str, gamesdk: bool, kind: ErrorKind, needle: &str, says: &str) {
    let (d, where_) = err_with(xml, gamesdk);
    assert_eq!(d.kind, kind, "{where_}: {}", d.message);
    assert_eq!(where_, at(xml, needle), "{}", d.message);
    assert!(
        d.message.contains(says),
        "`{}` does not say `{says}`",
        d.message
    );
}

#[track_caller]
fn assert_err(xml: &str, kind: ErrorKind, needle: &str, says: &str) {
    assert_err_with(xml, false, kind, needle, says);
}

/// Asserts that `xml` loads, and that its first warning has `kind`, points at the first
/// occurrence of `needle` and says `says` (what CRYENGINE logs while loading the tree anyway).
#[track_caller]
fn assert_warn(xml: &str, kind: ErrorKind, needle: &str, says: &str) {
    ok(xml);
    let mut fs = MemFs::new();
    fs.insert(PATH, xml.as_bytes().to_vec());
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Mbt)),
        limits: Limits::default(),
        profile: None,
        deny_warnings: true,
        root: None,
    };
    let mut sources = SourceMap::new();
    let d = match load(Path::new(PATH), &fs, &options, &mut sources) {
        Ok(_) => panic!("no warning loading:\n{xml}"),
        Err(d) => d[0].clone(),
    };
    assert_eq!(d.kind, kind, "{}", d.message);
    assert_eq!(sources.locate(d.span), at(xml, needle), "{}", d.message);
    assert!(
        d.message.contains(says),
        "`{}` does not say `{says}`",
        d.message
    );
}

/// The tree printed in the canonical syntax, from its first `root` line.
fn body(t: &Tree) -> String {
    let text = canonical::print(t);
    let from = text.find("root main").expect("a main root");
    text[from..].to_string()
}

/// The canonical text of the tree's tables (imports, variables, timestamps, signals).
fn tables(t: &Tree) -> String {
    let text = canonical::print(t);
    let header = "precision double;\nclock 100;\n\n";
    let from = text.find(header).expect("the header") + header.len();
    let to = text.find("root main").expect("a main root");
    text[from..to].trim_end().to_string()
}

fn str_arg(name: &str, value: &str) -> Arg {
    Arg {
        name: Some(name.to_string()),
        value: Expr::Lit(Lit::Str(value.to_string())),
    }
}

/// Printing and parsing back gives the same tree, spans aside (`btvm fmt` round trip).
#[track_caller]
fn assert_round_trip(t: &Tree) {
    let text = canonical::print(t);
    let mut back = canonical::parse(btvm_compiler::source::FileId(0), &text, &Limits::default())
        .unwrap_or_else(|d| panic!("{}: {}\n{text}", d[0].message, d[0].span.start));
    let mut t = t.clone();
    back.strip_spans();
    t.strip_spans();
    assert_eq!(back, t, "{text}");
}
