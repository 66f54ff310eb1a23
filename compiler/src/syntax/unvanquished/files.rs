//! Reading source files through the load's [`Files`]: the root, budgets, size limit, UTF-8
//! check and registration in the [`SourceMap`] of `syntax::files`, plus the case-insensitive
//! fallback the game's file system gives includes.
//!
//! Every file the front-end reads goes through [`read_source`] (and so through
//! `syntax::files`), so every file a diagnostic can point into is in the source map. This
//! file never lexes or parses.

use std::io;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::source::{FileSystem, SourceMap, Span};
pub(super) use crate::syntax::files::{Files, SourceText};

/// Reads `path` (or, if it does not exist, the one file in its directory whose name matches
/// ignoring ASCII case); `written` is the name as the tree wrote it. Errors are positioned at
/// `requested_at` (the directive or `behavior` naming the file; [`Span::DUMMY`] for the main
/// file) for I/O problems and refusals, and inside the file for size and encoding problems.
pub(super) fn read_source(
    files: &Files,
    sources: &mut SourceMap,
    path: &Path,
    written: &str,
    requested_at: Span,
) -> Result<SourceText, Diagnostic> {
    match files.read(sources, path, written, requested_at) {
        Ok(text) => Ok(text),
        Err(e) if e.io == Some(io::ErrorKind::NotFound) => {
            match case_insensitive(files.fs(), path) {
                Some(found) => Ok(files.read(sources, &found, written, requested_at)?),
                None => Err(e.diag),
            }
        }
        Err(e) => Err(e.diag),
    }
}

/// The file in `path`'s directory whose name equals `path`'s file name ignoring ASCII case
/// (the first in sorted order if several do).
fn case_insensitive(fs: &dyn FileSystem, path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let wanted = path.file_name()?.to_str()?;
    let mut names = fs.list(dir).ok()?;
    names.sort();
    names
        .into_iter()
        .find(|n| n.eq_ignore_ascii_case(wanted))
        .map(|n| dir.join(n))
}
