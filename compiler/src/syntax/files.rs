//! Reading source files: through the [`FileSystem`], confined to the load's root, within the
//! load's budgets, into the [`SourceMap`], with the one diagnostic for each way it can fail.
//!
//! Every front-end reads every file it parses through one [`Files`] per load: its
//! [`Files::resolve`] decides, in this one place, which path a name written in a tree means
//! (never an absolute path, never outside the root), and its reads check that the file's
//! canonical path (symbolic links resolved) is inside the root, count files and bytes
//! against `Limits::max_load_files` and `Limits::max_load_bytes`, and read at most
//! `Limits::max_source_bytes` of a regular file. So the size limit, the UTF-8 check and the
//! wording of each failure are decided here once, and every file a diagnostic can point into
//! is in the source map. An error about a path names the path as the tree wrote it and the
//! rule, never anything read from, or learnt about, a file outside the root.
//!
//! This module never lexes or parses, and never decides which name a front-end asks for
//! (relative to an including file or to the game's root, case-insensitively, ...).

use std::cell::{Cell, RefCell};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use btvm::Limits;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::{resolve_in, Escape, FileId, FileSystem, SourceMap, Span, TooLarge};

/// A file read and registered in the source map.
pub(crate) struct SourceText {
    /// Its id in the source map.
    pub id: FileId,
    /// The path it was read from.
    pub path: PathBuf,
    /// Its text (the source map's, shared).
    pub text: Arc<str>,
}

/// A failed read: the diagnostic, and the I/O error kind when the file system failed (a
/// front-end may then try another name, or skip the file).
pub(crate) struct ReadError {
    /// What to report.
    pub diag: Diagnostic,
    /// The I/O error's kind; `None` for a refusal (root, budget, size).
    pub io: Option<io::ErrorKind>,
}

impl From<ReadError> for Diagnostic {
    fn from(e: ReadError) -> Diagnostic {
        e.diag
    }
}

impl From<Diagnostic> for ReadError {
    fn from(diag: Diagnostic) -> ReadError {
        ReadError { diag, io: None }
    }
}

/// Everything one load reads goes through this: the file system, the limits, the root and
/// what has been read so far.
pub(crate) struct Files<'a> {
    fs: &'a dyn FileSystem,
    limits: &'a Limits,
    /// The root every file a tree names must be inside; `None` until a front-end sets its
    /// default (then the main file is not confined either).
    root: Option<PathBuf>,
    /// Whether the root was given (`LoadOptions::root`) rather than defaulted.
    explicit: bool,
    /// The root's canonical path, once asked for.
    canonical_root: RefCell<Option<PathBuf>>,
    /// Files read so far.
    files: Cell<usize>,
    /// Bytes read so far.
    bytes: Cell<u64>,
}

impl<'a> Files<'a> {
    /// A load reading through `fs`, confined to `root` when given.
    pub(crate) fn new(fs: &'a dyn FileSystem, limits: &'a Limits, root: Option<&Path>) -> Self {
        Files {
            fs,
            limits,
            root: root.map(crate::source::normalize),
            explicit: root.is_some(),
            canonical_root: RefCell::new(None),
            files: Cell::new(0),
            bytes: Cell::new(0),
        }
    }

    /// The limits of this load.
    pub(crate) fn limits(&self) -> &'a Limits {
        self.limits
    }

    /// The file system, for listing directories (reads go through [`Files::read`]).
    pub(crate) fn fs(&self) -> &'a dyn FileSystem {
        self.fs
    }

    /// Sets the root a front-end uses when none was given: the main file's directory, or
    /// the game's root for Unvanquished.
    pub(crate) fn default_root(&mut self, root: &Path) {
        if self.root.is_none() {
            self.root = Some(crate::source::normalize(root));
        }
    }

    /// The path a tree means by `written`, relative to the directory `base`: refused (at
    /// `at`) when absolute or when it climbs out of the root.
    pub(crate) fn resolve(
        &self,
        base: &Path,
        written: &str,
        at: Span,
    ) -> Result<PathBuf, Diagnostic> {
        let root = self.root.as_deref().unwrap_or(Path::new(""));
        resolve_in(root, base, written).map_err(|e| {
            let why = match e {
                Escape::Absolute => "it is an absolute path",
                Escape::OutsideRoot => "it leads out of the tree's root",
            };
            outside(written, at, why)
        })
    }

    /// Reads and registers the main file (not confined to a defaulted root).
    pub(crate) fn read_main(
        &self,
        sources: &mut SourceMap,
        path: &Path,
    ) -> Result<SourceText, Diagnostic> {
        let shown = path.display().to_string();
        let bytes = self.read_bytes(sources, path, &shown, Span::DUMMY)?;
        register(sources, self.limits, path, bytes)
    }

    /// Reads the file at `path` (resolved by [`Files::resolve`] or listed in a directory
    /// inside the root) and registers it. `written` is the name as the tree wrote it, `at`
    /// where (see [`Files::read_bytes`]).
    pub(crate) fn read(
        &self,
        sources: &mut SourceMap,
        path: &Path,
        written: &str,
        at: Span,
    ) -> Result<SourceText, ReadError> {
        let bytes = self.read_bytes(sources, path, written, at)?;
        Ok(register(sources, self.limits, path, bytes)?)
    }

    /// Reads the bytes of `path` without registering them (see [`register`]): refused when
    /// the file's canonical path is outside the root, when the load's file or byte budget
    /// would be exceeded, or when it is not a regular file of at most
    /// `Limits::max_source_bytes`. I/O failures and refusals are positioned at `at` (the
    /// directive, element or reference naming the file; [`Span::DUMMY`] for the main file);
    /// a file too large is added to `sources` with empty text and the error points into it.
    pub(crate) fn read_bytes(
        &self,
        sources: &mut SourceMap,
        path: &Path,
        written: &str,
        at: Span,
    ) -> Result<Vec<u8>, ReadError> {
        let io_err = |e: &io::Error| ReadError {
            diag: io_error(path, e, at),
            io: Some(e.kind()),
        };
        let confined = !at.is_dummy() || self.explicit;
        let target = match (&self.root, confined) {
            (Some(_), true) => {
                let escape = || outside(written, at, LINKED_OUT).into();
                let canonical = match self.fs.canonicalize(path) {
                    Ok(c) => c,
                    // A broken link says as little as one to a file outside the root.
                    Err(_) if self.through_link(path) => return Err(escape()),
                    Err(e) => return Err(io_err(&e)),
                };
                let root = self.canonical_root().map_err(ReadError::from)?;
                if !canonical.starts_with(&root) {
                    return Err(escape());
                }
                canonical
            }
            _ => path.to_path_buf(),
        };
        if self.files.get() >= self.limits.max_load_files {
            return Err(budget(
                at,
                format!(
                    "loading the tree reads more than {} files (each include counts)",
                    self.limits.max_load_files
                ),
            )
            .into());
        }
        // Every attempt counts, a failed one too.
        self.files.set(self.files.get() + 1);
        let left = self.limits.max_load_bytes.saturating_sub(self.bytes.get());
        let per_file = self.limits.max_source_bytes as u64;
        let bytes =
            self.fs
                .read(&target, per_file.min(left))
                .map_err(|e| match TooLarge::of(&e) {
                    Some(t) if left < per_file && t.size.is_none_or(|s| s <= per_file) => budget(
                        at,
                        format!(
                        "reading `{written}` would take the tree's sources past {} bytes (each \
                         include counts)",
                        self.limits.max_load_bytes
                    ),
                    )
                    .into(),
                    Some(t) => too_large(sources, path, t, per_file).into(),
                    None => io_err(&e),
                })?;
        self.bytes.set(self.bytes.get() + bytes.len() as u64);
        Ok(bytes)
    }

    /// Whether `path`, or a directory on its way below the root, is a symbolic link.
    fn through_link(&self, path: &Path) -> bool {
        let root = self.root.as_deref().unwrap_or(Path::new(""));
        path.ancestors()
            .take_while(|a| *a != root && crate::source::inside(root, a))
            .any(|a| self.fs.is_link(a))
    }

    /// The root's canonical path (asked of the file system once).
    fn canonical_root(&self) -> Result<PathBuf, Diagnostic> {
        if let Some(r) = &*self.canonical_root.borrow() {
            return Ok(r.clone());
        }
        let root = self.root.clone().unwrap_or_default();
        let canonical = self.fs.canonicalize(&root).map_err(|e| {
            Diagnostic::new(
                ErrorKind::Io,
                Span::DUMMY,
                format!("cannot resolve the tree's root `{}`: {e}", root.display()),
            )
        })?;
        *self.canonical_root.borrow_mut() = Some(canonical.clone());
        Ok(canonical)
    }
}

/// Why a path whose symbolic links lead out of the root (or nowhere) is refused: the same words
/// whether the link's target exists or not, so the refusal tells nothing about it.
const LINKED_OUT: &str = "with symbolic links followed, it is not a file inside the tree's root";

/// The error for a path refused by the root: it names the path as written and the rule.
fn outside(written: &str, at: Span, why: &str) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::OutsideRoot,
        at,
        format!("`{written}` is not read: {why}"),
    )
    .with_note(
        "a tree reads only files inside its root (by default the main file's directory; \
         `LoadOptions::root`), named by relative paths",
    )
}

/// The error for a load past its file or byte budget.
fn budget(at: Span, message: String) -> Diagnostic {
    Diagnostic::new(ErrorKind::LoadBudget, at, message).with_note(
        "`Limits::max_load_files` and `Limits::max_load_bytes` bound what one load reads",
    )
}

/// The error for a file longer than `Limits::max_source_bytes`: the file is added with empty
/// text, so the message can name it.
fn too_large(sources: &mut SourceMap, path: &Path, t: TooLarge, max: u64) -> Diagnostic {
    let id = sources.add(path, String::new());
    let size = match t.size {
        Some(s) => format!("{s} bytes"),
        None => format!("more than {max} bytes"),
    };
    Diagnostic::new(
        ErrorKind::SourceTooLarge,
        Span::new(id, 0, 0),
        format!("`{}` is {size}; the limit is {max} bytes", path.display()),
    )
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
    let text = sources
        .get(id)
        .map_or_else(|| Arc::from(""), |f| Arc::clone(&f.text));
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
    files: &mut Files,
    sources: &mut SourceMap,
    parse: impl FnOnce(FileId, &str, &Limits) -> crate::diag::Result<Tree>,
) -> crate::diag::Result<Tree> {
    files.default_root(path.parent().unwrap_or(Path::new("")));
    let src = files.read_main(sources, path).map_err(|d| vec![d])?;
    parse(src.id, &src.text, files.limits())
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
