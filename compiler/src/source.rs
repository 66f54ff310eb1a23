//! Source files, spans and the file system front-ends read through.
//!
//! Every position btvm reports is a [`Span`] into a [`SourceMap`]; the map turns it into
//! `file:line:column`. Front-ends read files only through a [`FileSystem`], so tests and fuzzers
//! can feed them in-memory files.
//!
//! Reading here is bounded: [`read_file`] (what [`RealFs`] and the CLI use for files an
//! operator names) reads only regular files, checks the size before reading and never reads
//! more than the limit plus one byte. [`resolve_in`] is the lexical half of confining the
//! files a tree names to a root. This module never decides which file a tree means (the
//! front-ends and `syntax::files` do) and never reads a file whole without a bound.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Identifies one file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// A span that points nowhere (used for nodes built in memory).
    pub const DUMMY: Span = Span {
        file: FileId(u32::MAX),
        start: 0,
        end: 0,
    };

    /// A span from `start` to `end` in `file`; offsets beyond `u32::MAX` saturate.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span {
            file,
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }

    /// The smallest span covering both (same file assumed; otherwise `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Whether this is [`Span::DUMMY`] or otherwise not in a real file.
    pub fn is_dummy(self) -> bool {
        self.file == Span::DUMMY.file
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as given (used in messages).
    pub path: PathBuf,
    /// The text (invalid UTF-8 is replaced before it gets here; the loader reports it), shared
    /// with the front-end that reads it rather than copied.
    pub text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = (offset as usize).min(self.text.len());
        let line = self
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_starts[line];
        let mut col_end = offset;
        while !self.text.is_char_boundary(col_end) {
            col_end -= 1;
        }
        let col = self.text[start..col_end].chars().count();
        (line + 1, col + 1)
    }
}

/// All files read while loading one tree.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: String) -> FileId {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX - 1));
        self.files.push(SourceFile {
            path: path.into(),
            text: text.into(),
            line_starts,
        });
        id
    }

    /// The file with id `id`.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// All files, in id order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// `path:line:column` of the start of a span, or `<unknown>` for a dummy span.
    pub fn locate(&self, span: Span) -> String {
        match self.get(span.file) {
            Some(f) => {
                let (l, c) = f.line_col(span.start);
                format!("{}:{l}:{c}", f.path.display())
            }
            None => "<unknown>".to_string(),
        }
    }
}

/// Where front-ends read files from.
pub trait FileSystem {
    /// Reads the regular file at `path`, at most `max_bytes` long.
    ///
    /// Anything but a regular file (a directory, a FIFO, a device) is an error, found without
    /// blocking; a file longer than `max_bytes` is an error carrying a [`TooLarge`] (see
    /// [`TooLarge::of`]), found before reading when the size is known.
    fn read(&self, path: &Path, max_bytes: u64) -> io::Result<Vec<u8>>;
    /// Lists the file names in a directory (used for case-insensitive include lookup).
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// The canonical form of `path`, with every symbolic link resolved, used to keep reads
    /// inside a root. The default, for file systems without links, is the lexical
    /// normalization ([`normalize`]).
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        Ok(normalize(path))
    }
    /// Whether `path` itself is a symbolic link (not following it). The default, for file
    /// systems without links, is `false`.
    fn is_link(&self, path: &Path) -> bool {
        let _ = path;
        false
    }
}

/// Why a read was refused: the file is longer than the limit. Carried inside the
/// [`io::Error`] a [`FileSystem::read`] or [`read_file`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The file's size when it was known before reading (`None`: found while reading, as for
    /// files of `/proc` that report a size of zero).
    pub size: Option<u64>,
    /// The limit it exceeds, in bytes.
    pub max_bytes: u64,
}

impl TooLarge {
    /// The [`TooLarge`] inside `e`, if `e` is a refusal for size.
    pub fn of(e: &io::Error) -> Option<TooLarge> {
        e.get_ref()?.downcast_ref::<TooLarge>().copied()
    }

    fn error(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.size {
            Some(size) => write!(
                f,
                "the file has {size} bytes, more than the limit of {}",
                self.max_bytes
            ),
            None => write!(
                f,
                "the file has more than the limit of {} bytes",
                self.max_bytes
            ),
        }
    }
}

impl std::error::Error for TooLarge {}

/// Reads the regular file at `path`, at most `max_bytes` long: the one bounded reader of
/// files named by an operator or a tree.
///
/// The file's metadata is checked before it is opened (so a FIFO or a device is refused
/// without blocking, and a file longer than `max_bytes` without reading it), again on the
/// opened file, and the read stops after `max_bytes + 1` bytes (for files whose size is not
/// known in advance). Errors: not a regular file ([`io::ErrorKind::InvalidInput`]), too
/// large (a [`TooLarge`], see [`TooLarge::of`]), or the operating system's.
pub fn read_file(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    regular(&std::fs::metadata(path)?, max_bytes)?;
    let file = std::fs::File::open(path)?;
    let size = regular(&file.metadata()?, max_bytes)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(TooLarge {
            size: None,
            max_bytes,
        }
        .error());
    }
    Ok(bytes)
}

/// Checks that `meta` is a regular file of at most `max_bytes`; returns its size.
fn regular(meta: &std::fs::Metadata, max_bytes: u64) -> io::Result<u64> {
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > max_bytes {
        return Err(TooLarge {
            size: Some(meta.len()),
            max_bytes,
        }
        .error());
    }
    Ok(meta.len())
}

/// `path` with `.` components removed and `name/..` pairs folded, lexically (without asking
/// the file system): `..` at the root stays at the root, and a leading `..` of a relative
/// path is kept.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// Why [`resolve_in`] refused a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escape {
    /// The path is absolute (or, on Windows, has a drive prefix).
    Absolute,
    /// The path leads outside the root through `..`.
    OutsideRoot,
}

/// `written` (a path as a tree writes it) taken relative to the directory `base` and
/// normalized, if it stays inside `root` ([`inside`]); absolute paths are refused whatever
/// they name. Lexical only: symbolic links are the caller's to check (through
/// [`FileSystem::canonicalize`]).
pub fn resolve_in(root: &Path, base: &Path, written: &str) -> Result<PathBuf, Escape> {
    let w = Path::new(written);
    if w.has_root()
        || w.is_absolute()
        || matches!(w.components().next(), Some(Component::Prefix(_)))
    {
        return Err(Escape::Absolute);
    }
    let path = normalize(&base.join(w));
    if inside(root, &path) {
        Ok(path)
    } else {
        Err(Escape::OutsideRoot)
    }
}

/// Whether `path` lies inside the directory `root` (or is it), compared lexically after
/// [`normalize`]: no `..` may climb out of it.
pub fn inside(root: &Path, path: &Path) -> bool {
    let (root, path) = (normalize(root), normalize(path));
    match path.strip_prefix(&root) {
        Ok(rest) => rest.components().all(|c| matches!(c, Component::Normal(_))),
        Err(_) => false,
    }
}

/// The real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

impl FileSystem for RealFs {
    fn read(&self, path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
        read_file(path, max_bytes)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(or_dot(dir))? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(or_dot(path))
    }

    fn is_link(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }
}

/// `.` for the empty path (the current directory), else `path`.
fn or_dot(path: &Path) -> &Path {
    if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    }
}

/// An in-memory file system for tests and fuzzing. Paths are normalized ([`normalize`]) when
/// files are added and looked up; it has no links.
#[derive(Clone, Debug, Default)]
pub struct MemFs {
    files: HashMap<PathBuf, Vec<u8>>,
}

impl MemFs {
    /// An empty file system.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> &mut Self {
        self.files.insert(normalize(&path.into()), bytes.into());
        self
    }
}

impl FileSystem for MemFs {
    fn read(&self, path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
        let bytes = self
            .files
            .get(&normalize(path))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))?;
        if bytes.len() as u64 > max_bytes {
            return Err(TooLarge {
                size: Some(bytes.len() as u64),
                max_bytes,
            }
            .error());
        }
        Ok(bytes.clone())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let dir = normalize(dir);
        Ok(self
            .files
            .keys()
            .filter(|p| p.parent() == Some(dir.as_path()))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_and_count_chars() {
        let mut map = SourceMap::new();
        let id = map.add("a.bt", "ab\nçd\n".to_string());
        let f = map.get(id).unwrap();
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(5), (2, 2));
        assert_eq!(map.locate(Span::new(id, 5, 6)), "a.bt:2:2");
        assert_eq!(map.locate(Span::DUMMY), "<unknown>");
    }
}
