//! The canonical syntax: the canonical text form of the IR (`spec/canonical-syntax.md`).
//!
//! Every [`Tree`] prints in it ([`print()`]) and reads back ([`parse()`]) unchanged apart from
//! spans: `parse(print(t))` equals `t` after [`Tree::strip_spans`] for every tree that
//! [validates](Tree::validate). Tests, fuzzers and bug reports speak it; `btvm convert` prints
//! any tree in it and `btvm fmt` formats it ([`format()`]: the printer's layout, comments kept).
//!
//! The pipeline is:
//!
//! 1. a size check against [`Limits::max_source_bytes`](btvm::Limits);
//! 2. a hand-written lexer, which reports bad characters, escapes, unterminated strings and
//!    comments, and numeric overflow with their exact kinds and spans;
//! 3. a nesting pre-scan over the tokens, which rejects blocks and parentheses nested past
//!    [`Limits::max_depth`](btvm::Limits) / [`Limits::max_expr_depth`](btvm::Limits) *before*
//!    anything recurses (so no input can overflow the stack);
//! 4. a chumsky grammar over the tokens that resolves names against the declarations as it
//!    goes and checks the exact depth of every expression while building it;
//! 5. assembly with [`TreeBuilder`](crate::ir::TreeBuilder) (canonical arena order) and
//!    [`Tree::validate`].
//!
//! Nothing here panics or prints on any input; every failure is a
//! [`Diagnostic`](crate::diag::Diagnostic) with a span.

mod format;
pub(in crate::syntax) mod lexer;
pub(in crate::syntax) mod nesting;
pub(in crate::syntax) mod parser;
mod printer;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::ir::Tree;
use crate::source::{FileId, FileSystem, SourceMap};

/// Parses canonical-syntax text (already in `sources` as `file`) into a validated tree.
///
/// Errors are positioned in `file`. Lexical errors stop at the first one, and so does a syntax
/// error in the header or tables; otherwise one syntax error per broken node or statement (it
/// is skipped, see `parser`) plus every semantic error found on the way (unknown names,
/// duplicate declarations, out-of-range numbers, misplaced nodes) is returned, in source order.
pub fn parse(file: FileId, text: &str, limits: &btvm::Limits) -> crate::diag::Result<Tree> {
    super::files::check_size(file, text, limits)?;
    let tokens = lexer::lex(file, text).map_err(|d| vec![d])?;
    nesting::check(file, &tokens, limits, &nesting::NODES).map_err(|d| vec![d])?;
    parser::parse_tokens(file, text.len(), &tokens, limits)
}

pub use format::format;

/// Prints a tree in canonical syntax.
///
/// The output is deterministic, uses four spaces per nesting level and puts one node per line.
/// Trees that do not validate still print (dangling references become placeholders) without
/// panicking, but the text need not parse back.
pub fn print(tree: &Tree) -> String {
    printer::print(tree)
}

/// One node's own line in canonical syntax (keyword, name, knobs; no children): what the
/// node is, independent of where it sits (node identity keys use it).
pub fn node_text(tree: &Tree, id: crate::ir::NodeId) -> String {
    printer::node_text(tree, id)
}

/// A node's knobs in canonical syntax: [`node_text`] without the keyword and the name
/// (what the viewer shows as the node's arguments).
pub(crate) fn node_knobs(tree: &Tree, id: crate::ir::NodeId) -> String {
    printer::node_knobs(tree, id)
}

/// Reads `path` through `fs`, adds it to `sources`, and parses it.
///
/// Fails with [`ErrorKind::Io`](crate::diag::ErrorKind::Io) if the file cannot be read
/// (nothing is added to `sources`), [`ErrorKind::SourceTooLarge`](crate::diag::ErrorKind) if
/// it is larger than `limits.max_source_bytes` (the file is added with empty text, so the
/// message can name it), and `InvalidUtf8` at the first invalid byte (the file is added with
/// invalid sequences replaced by U+FFFD, which leaves that byte offset unchanged).
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &btvm::Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    load_in(path, super::files::Files::new(fs, limits, None), sources)
}

/// [`load`] within the reads of one load (its root and budgets).
pub(crate) fn load_in(
    path: &Path,
    mut files: super::files::Files,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    super::files::load_one(path, &mut files, sources, parse)
}
