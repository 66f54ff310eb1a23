//! Reading source files: through the [`FileSystem`], into the [`SourceMap`], with the one
//! diagnostic for each way it can fail.
//!
//! Every front-end reads every file it parses through [`read_source`] (or, for bytes it has
//! already read, [`register`]), so the size limit, the UTF-8 check and the wording of an I/O
//! failure are decided here once, and every file a diagnostic can point into is in the source
//! map. This module never lexes or parses, and never resolves paths (a front-end decides which
//! path to read: relative to an including file, case-insensitively, ...).

use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use btvm::Limits;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::{FileId, FileSystem, SourceMap, Span};

/// A file read and registered in the source map.
pub(crate) struct SourceText {
    /// Its id in the source map.
    pub id: FileId,
    /// The path it was read from.
    pub path: PathBuf,
    /// Its text.
    pub text: Rc<str>,
}

/// Reads `path` through `fs` and registers it in `sources` (see [`register`]).
///
/// An I/O failure is an [`ErrorKind::Io`] positioned at `requested_at` (the directive, element
/// or reference naming the file; [`Span::DUMMY`] for the main file), and nothing is added to
/// `sources`; size and encoding failures point into the file.
pub(crate) fn read_source(
    fs: &dyn FileSystem,
    sources: &mut SourceMap,
    limits: &Limits,
    path: &Path,
    requested_at: Span,
) -> Result<SourceText, Diagnostic> {
    let bytes = fs
        .read(path)
        .map_err(|e| io_error(path, &e, requested_at))?;
    register(sources, limits, path, bytes)
}

/// Registers the `bytes` read from `path` in `sources`, enforcing
/// [`Limits::max_source_bytes`] and UTF-8 (see [`SourceMap::add_checked`]).
pub(crate) fn register(
    sources: &mut SourceMap,
    limits: &Limits,
    path: &Path,
    bytes: Vec<u8>,
) -> Result<SourceText, Diagnostic> {
    let id = sources.add_checked(path, bytes, limits.max_source_bytes)?;
    let text: Rc<str> = sources.get(id).map_or("", |f| f.text.as_str()).into();
    Ok(SourceText {
        id,
        path: path.to_path_buf(),
        text,
    })
}

/// The diagnostic for failing to read (or list) `path`: it names the path and the operating
/// system's error, and is positioned at `at`.
pub(crate) fn io_error(path: &Path, e: &io::Error, at: Span) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::Io,
        at,
        format!("cannot read `{}`: {e}", path.display()),
    )
}

/// Refuses text longer than [`Limits::max_source_bytes`], for the parsers that take text
/// directly rather than through [`read_source`].
pub(crate) fn check_size(file: FileId, text: &str, limits: &Limits) -> crate::diag::Result<()> {
    if text.len() > limits.max_source_bytes {
        return Err(vec![Diagnostic::new(
            ErrorKind::SourceTooLarge,
            Span::new(file, 0, 0),
            format!(
                "the file has {} bytes, more than the limit of {}",
                text.len(),
                limits.max_source_bytes
            ),
        )]);
    }
    Ok(())
}

/// Reads the one file at `path` (an I/O failure positioned nowhere) and parses it with `parse`:
/// the `load` of the single-file text front-ends.
pub(crate) fn load_one(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
    parse: impl FnOnce(FileId, &str, &Limits) -> crate::diag::Result<Tree>,
) -> crate::diag::Result<Tree> {
    let src = read_source(fs, sources, limits, path, Span::DUMMY).map_err(|d| vec![d])?;
    parse(src.id, &src.text, limits)
}

impl SourceMap {
    /// Adds the bytes read from `path` as a source file, enforcing the size limit and UTF-8.
    ///
    /// Fails with [`ErrorKind::SourceTooLarge`] when `bytes` is longer than `max_bytes` (the
    /// file is added with empty text, so the message can name it), and with `InvalidUtf8` at
    /// the first invalid byte (the file is added with invalid sequences replaced by U+FFFD,
    /// which keeps that byte's offset, and the span covers the replacement character). Every
    /// front-end reads its files through this.
    pub fn add_checked(
        &mut self,
        path: &Path,
        bytes: Vec<u8>,
        max_bytes: usize,
    ) -> Result<FileId, Diagnostic> {
        if bytes.len() > max_bytes {
            let id = self.add(path, String::new());
            return Err(Diagnostic::new(
                ErrorKind::SourceTooLarge,
                Span::new(id, 0, 0),
                format!(
                    "`{}` is {} bytes; the limit is {max_bytes} bytes",
                    path.display(),
                    bytes.len()
                ),
            ));
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(self.add(path, text)),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let id = self.add(path, text);
                if let Some(order) = utf16_order(e.as_bytes()) {
                    return Err(Diagnostic::new(
                        ErrorKind::InvalidUtf8,
                        Span::new(id, 0, '\u{FFFD}'.len_utf8()),
                        format!(
                            "`{}` is UTF-16 ({order}: it starts with a UTF-16 byte order mark)",
                            path.display()
                        ),
                    )
                    .with_note(
                        "btvm reads source files as UTF-8: convert it first, e.g. with \
                         `iconv -f UTF-16 -t UTF-8`",
                    ));
                }
                Err(Diagnostic::new(
                    ErrorKind::InvalidUtf8,
                    Span::new(id, at, at + '\u{FFFD}'.len_utf8()),
                    format!(
                        "`{}` is not valid UTF-8 (first bad byte at offset {at})",
                        path.display()
                    ),
                )
                .with_note("btvm reads source files as UTF-8 (plain ASCII is always fine)"))
            }
        }
    }
}

/// The byte order of a file that starts with a UTF-16 byte order mark, if it does.
fn utf16_order(bytes: &[u8]) -> Option<&'static str> {
    match bytes.get(..2)? {
        [0xff, 0xfe] => Some("little-endian"),
        [0xfe, 0xff] => Some("big-endian"),
        _ => None,
    }
}
