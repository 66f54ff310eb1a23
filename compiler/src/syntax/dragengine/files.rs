//! Reading `.debt` files through the [`FileSystem`] and resolving subtree paths.
//!
//! Every file goes through [`read_source`], which enforces `Limits::max_source_bytes` and
//! UTF-8 and registers the file in the [`SourceMap`], so every diagnostic can be located. Paths
//! are compared after lexical normalization (`.` dropped, `dir/..` folded), which is what makes
//! include cycles through `../` detectable. This file never parses XML.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use btvm::Limits;

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, FileSystem, SourceMap, Span};

/// A file read and registered in the source map.
pub(super) struct SourceText {
    /// Its id in the source map.
    pub id: FileId,
    /// Its text.
    pub text: Rc<str>,
}

/// Reads `path`. An I/O error is positioned at `requested_at` (the `<subtree>` naming the
/// file, or nowhere for the main file); size and encoding errors point into the file.
pub(super) fn read_source(
    fs: &dyn FileSystem,
    sources: &mut SourceMap,
    limits: &Limits,
    path: &Path,
    requested_at: Span,
) -> Result<SourceText, Diagnostic> {
    let bytes = fs.read(path).map_err(|e| {
        let what = if e.kind() == io::ErrorKind::NotFound {
            "not found".to_string()
        } else {
            e.to_string()
        };
        Diagnostic::new(
            ErrorKind::Io,
            requested_at,
            format!("cannot read `{}`: {what}", path.display()),
        )
    })?;
    let id = sources.add_checked(path, bytes, limits.max_source_bytes)?;
    let text: Rc<str> = sources.get(id).map_or("", |f| f.text.as_str()).into();
    Ok(SourceText { id, text })
}

/// The file a `<subtree>` in `including` names: `written` taken relative to the including
/// file's directory (or as is when absolute), normalized.
pub(super) fn resolve(including: &Path, written: &str) -> PathBuf {
    let dir = including.parent().unwrap_or(Path::new(""));
    normalize(&dir.join(written))
}

/// `path` with `.` components removed and `name/..` pairs folded (lexically, without asking
/// the file system; a leading `..` of a relative path is kept).
pub(super) fn normalize(path: &Path) -> PathBuf {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_including_directory() {
        let main = Path::new("/g/ai/main.debt");
        assert_eq!(
            resolve(main, "sub/a.debt"),
            PathBuf::from("/g/ai/sub/a.debt")
        );
        assert_eq!(
            resolve(main, "./../x/./b.debt"),
            PathBuf::from("/g/x/b.debt")
        );
        assert_eq!(resolve(main, "/abs/c.debt"), PathBuf::from("/abs/c.debt"));
        assert_eq!(
            resolve(Path::new("main.debt"), "../up.debt"),
            PathBuf::from("../up.debt")
        );
        assert_eq!(normalize(Path::new("/../a")), PathBuf::from("/a"));
    }
}
