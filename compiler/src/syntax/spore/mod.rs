//! The Spore dialect (`.spore`): btvm's text syntax for Spore's decider trees
//! (`spec/spore.md` §1), mapped onto the IR as §3 says.
//!
//! The pipeline, one file per step:
//!
//! 1. a size check against [`Limits::max_source_bytes`](btvm::Limits);
//! 2. the canonical syntax's lexer (`syntax::canonical::lexer`), in its mode where a number may run
//!    into the unit `ms` or `s` (`250ms`);
//! 3. `nesting`: the pre-scan that rejects blocks and parentheses nested past the limits before
//!    anything recurses;
//! 4. `grammar` (with `expr` for Decide expressions): chumsky over the tokens, into the `ast`
//!    (names unresolved, with spans);
//! 5. `index`: the declarations — behaviors (action imports), flags and stimuli (their bits),
//!    every decider and `children` array by name;
//! 6. `resolve`: every decider's options and target in source order — masks, durations
//!    (`duration`, exact decimal arithmetic), Decide expressions with their functions declared
//!    by first use, references counted;
//! 7. `sharing`: which deciders are shared subtrees, unused deciders and arrays, cycles;
//! 8. `build`: the nodes, through [`TreeBuilder`], and
//!    [`Tree::validate`].
//!
//! Lexical errors stop at the first one; a syntax error skips its item or block entry and the
//! grammar reads on (`grammar`), so every broken item reports its error, and then the later
//! passes do not run; otherwise every error of the later passes is reported, in source order. Nothing here panics
//! or prints on any input; every failure is a [`Diagnostic`] with a span.

mod ast;
mod build;
mod duration;
mod expr;
mod grammar;
mod index;
mod nesting;
mod resolve;
mod sharing;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Dialect, Tree, TreeBuilder};
use crate::source::{FileId, FileSystem, SourceMap, Span};

use super::canonical::lexer::lex_units;

/// Parses `.spore` text (already in a source map as `file`) into a validated tree of dialect
/// [`Spore`](Dialect::Spore) with one entry, `main`.
///
/// Errors are positioned in `file`. Depth through shared deciders, which the pre-scan cannot
/// see, is checked by [`crate::check`] (as `load::load` does after every front-end).
pub fn parse(file: FileId, text: &str, limits: &btvm::Limits) -> crate::diag::Result<Tree> {
    super::files::check_size(file, text, limits)?;
    let tokens = lex_units(file, text).map_err(|d| vec![d])?;
    nesting::check(file, &tokens, limits).map_err(|d| vec![d])?;
    let ast = grammar::parse_tokens(file, text, &tokens, limits)?;
    let mut b = TreeBuilder::new(Dialect::Spore);
    let mut ix = index::index(file, &ast, &mut b);
    if ix.root.is_none() {
        let end = text.len();
        ix.errors.push(Diagnostic::new(
            ErrorKind::Syntax,
            Span::new(file, end, end),
            "expected a `root` decider: the file has none",
        ));
    }
    let res = resolve::resolve(&mut ix, &mut b);
    let sh = sharing::shared(&mut ix, &res);
    if !ix.errors.is_empty() {
        let mut errors = std::mem::take(&mut ix.errors);
        errors.sort_by_key(|d| d.span.start);
        return Err(errors);
    }
    build::build(&ix, &res, &sh, b, limits)
}

/// Reads `path` through `fs`, adds it to `sources`, and parses it.
///
/// Fails with [`ErrorKind::Io`] if the file cannot be read (nothing is added to `sources`),
/// [`ErrorKind::SourceTooLarge`] if it is larger than `limits.max_source_bytes` (the file is
/// added with empty text, so the message can name it), and [`ErrorKind::InvalidUtf8`] at the
/// first invalid byte.
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
