//! Reading source files through the [`FileSystem`]: size limit, UTF-8 check, registration in
//! the [`SourceMap`], and the case-insensitive fallback the game's file system gives includes.
//!
//! Every file the front-end reads goes through [`read_source`], so every file a diagnostic can
//! point into is in the source map. This file never lexes or parses.

use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use btvm::Limits;

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, FileSystem, SourceMap, Span};

/// A file read and registered in the source map.
pub(super) struct SourceText {
    /// Its id in the source map.
    pub id: FileId,
    /// The path it was read from (after case-insensitive resolution).
    pub path: PathBuf,
    /// Its text.
    pub text: Rc<str>,
}

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
    let (path, bytes) = match fs.read(path) {
        Ok(bytes) => (path.to_path_buf(), bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match case_insensitive(fs, path) {
            Some(found) => match fs.read(&found) {
                Ok(bytes) => (found, bytes),
                Err(e) => return Err(io_error(&found, &e, requested_at)),
            },
            None => return Err(io_error(path, &e, requested_at)),
        },
        Err(e) => return Err(io_error(path, &e, requested_at)),
    };
    let id = sources.add_checked(&path, bytes, limits.max_source_bytes)?;
    let text: Rc<str> = sources.get(id).map_or("", |f| f.text.as_str()).into();
    Ok(SourceText { id, path, text })
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

fn io_error(path: &Path, e: &io::Error, at: Span) -> Diagnostic {
    let what = if e.kind() == io::ErrorKind::NotFound {
        "not found".to_string()
    } else {
        e.to_string()
    };
    Diagnostic::new(
        ErrorKind::Io,
        at,
        format!("cannot read `{}`: {what}", path.display()),
    )
}
