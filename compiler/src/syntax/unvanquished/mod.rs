//! The Unvanquished `.bt` dialect.
//!
//! Unvanquished (a Daemon-engine game) describes bot behaviour in `.bt` text files read by the
//! game's botlib-style precompiler and a small recursive-descent parser. This front-end
//! reproduces both and maps the result onto the IR:
//!
//! | `.bt` | IR |
//! |---|---|
//! | `selector { … }` | [`Selector`](crate::ir::NodeKind::Selector), `Resume::Restart` |
//! | `fallback { … }` | `Selector`, `Resume::RunningList` |
//! | `sequence { … }` | [`Sequence`](crate::ir::NodeKind::Sequence), `Resume::RunningList` |
//! | `concurrent { … }` | [`Parallel`](crate::ir::NodeKind::Parallel): all succeed, any fails, stop on failure, no memory |
//! | `action NAME(args)` | [`Action`](crate::ir::NodeKind::Action) calling the action import (the game's spelling) |
//! | `spawnAs N` | `Action` calling the import `spawnAs(N)` |
//! | `condition EXPR` | [`Condition`](crate::ir::NodeKind::Condition) |
//! | `condition EXPR { node }` | [`Guard`](crate::ir::NodeKind::Guard), `GuardEval::EveryTick` |
//! | `decorator invert() { node }` | [`Invert`](crate::ir::NodeKind::Invert) |
//! | `decorator return(S) { node }` | [`MapStatus`](crate::ir::NodeKind::MapStatus) mapping everything to `S` |
//! | `decorator mapStatus(f, s, r) { node }` | `MapStatus` |
//! | `decorator timer(ms) { node }` | [`Cooldown`](crate::ir::NodeKind::Cooldown) |
//! | `behavior NAME` | [`Include`](crate::ir::NodeKind::Include) of a shared subtree |
//! | `selectClass { node }` (main file) | the second entry, `selectClass` |
//!
//! Files of this module, in pipeline order:
//!
//! - `files`: reading a file through the [`FileSystem`] (size limit, UTF-8, source map).
//! - `token`, `lexer`: bytes to tokens, as the game's tokenizer reads them.
//! - `preprocess`, `macros`, `cond_expr`: directives, macro expansion, `#if` expressions.
//! - `parser`, `expr`, `params`: tokens to IR nodes (node grammar, condition expressions,
//!   parameter lists and literal typing).
//! - `include`: the loader: `behavior` includes, the shared-subtree cache, the tree builder.
//! - `decorators`: the dialect's decorators; the game's actions, functions and symbols come
//!   from the load's profile (`syntax::profile`).
//!
//! No stage recurses on its input: node nesting, expressions, `#if` expressions, conditionals
//! and macro expansion all use explicit stacks and check their limits as they grow; only the
//! chain of included files recurses, bounded by `Limits::max_include_depth`.
//!
//! Deliberate differences from the game, each rejected with a positioned error rather than
//! accepted with a different meaning: integers above `i32::MAX`; status parameters other than
//! 0, 1, 2; `timer` with a negative or fractional duration; `spawnAs` with a fractional number;
//! `decorator invert` without `()` (the game builds a decorator without a child); numbers
//! ending in `.` or with two `.`; `#elif`/`#else` chains where the game's precompiler would
//! include two branches; files that are not UTF-8.

mod cond_expr;
mod decorators;
mod expr;
mod files;
mod include;
mod lexer;
mod macros;
mod params;
mod parser;
mod preprocess;
mod token;

use std::path::Path;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::{FileSystem, SourceMap};
use crate::syntax::Profile;

/// Loads the `.bt` file at `path` and every file it includes, through `fs`, dropping the
/// warnings (see [`load_with_warnings`]).
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &btvm::Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    load_with_warnings(path, fs, limits, sources, &mut Vec::new())
}

/// Loads the `.bt` file at `path` and every file it includes, through `fs`.
///
/// Every file read is added to `sources`, so diagnostics can be located even when loading
/// fails. The tree has the entry `main` and, when the main file starts with a `selectClass`
/// block, the entry `selectClass`; every behavior is a shared subtree. What the game logs
/// while loading the tree anyway is pushed onto `warnings`.
pub fn load_with_warnings(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &btvm::Limits,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> crate::diag::Result<Tree> {
    let files = files::Files::new(fs, limits, None);
    load_in(path, files, None, sources, warnings)
}

/// [`load_with_warnings`] within the reads of one load (its root and budgets), with the
/// vocabulary of `profile` when it declares one, else the built-in `unvanquished` profile's.
pub(crate) fn load_in(
    path: &Path,
    files: files::Files,
    profile: Option<&Profile>,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> crate::diag::Result<Tree> {
    let profile = match profile.filter(|p| p.unvanquished().is_some()) {
        Some(p) => p.clone(),
        None => Profile::builtin_or_error("unvanquished").map_err(|d| vec![d])?,
    };
    let Some(game) = parser::Game::of(&profile) else {
        let msg = format!(
            "profile `{}` declares no Unvanquished vocabulary",
            profile.name()
        );
        let at = crate::source::Span::DUMMY;
        return Err(vec![Diagnostic::new(ErrorKind::UnknownName, at, msg)]);
    };
    include::Loader::new(files, game, sources, warnings).load_all(path)
}
