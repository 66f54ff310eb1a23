//! Source files, spans and the file system front-ends read through.
//!
//! Every position btvm reports is a [`Span`] into a [`SourceMap`]; the map turns it into
//! `file:line:column`. Front-ends read files only through a [`FileSystem`], so tests and fuzzers
//! can feed them in-memory files.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

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
    /// The text (invalid UTF-8 is replaced before it gets here; the loader reports it).
    pub text: String,
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
            text,
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
    /// Reads a whole file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Lists the file names in a directory (used for case-insensitive include lookup).
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
}

/// The real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

impl FileSystem for RealFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }
}

/// An in-memory file system for tests and fuzzing.
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
        self.files.insert(path.into(), bytes.into());
        self
    }
}

impl FileSystem for MemFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        Ok(self
            .files
            .keys()
            .filter(|p| p.parent() == Some(dir))
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
