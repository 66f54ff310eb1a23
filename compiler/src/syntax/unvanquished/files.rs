//! Reading source files through the [`FileSystem`]: size limit, UTF-8 check, registration in
//! the [`SourceMap`], and the case-insensitive fallback the game's file system gives includes.
//!
//! Every file the front-end reads goes through [`read_source`] (and so through
//! `syntax::files`), so every file a diagnostic can point into is in the source map. This
//! file never lexes or parses.

use std::io;
use std::path::{Path, PathBuf};

use btvm::Limits;

use crate::diag::Diagnostic;
use crate::source::{FileSystem, SourceMap, Span};
pub(super) use crate::syntax::files::SourceText;
use crate::syntax::files::{self, io_error, register};

/// Reads `path` (or, if it does not exist, the one file in its directory whose name matches
/// ignoring ASCII case). Errors are positioned at `requested_at` (the directive or `behavior`
/// naming the file) for I/O problems, and inside the file for size and encoding problems.
pub(super) fn read_source(
    fs: &dyn FileSystem,
    sources: &mut SourceMap,
    limits: &Limits,
    path: &Path,
    requested_at: Span,
) -> Result<SourceText, Diagnostic> {
    match fs.read(path) {
        Ok(bytes) => register(sources, limits, path, bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match case_insensitive(fs, path) {
            Some(found) => files::read_source(fs, sources, limits, &found, requested_at),
            None => Err(io_error(path, &e, requested_at)),
        },
        Err(e) => Err(io_error(path, &e, requested_at)),
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
