//! Reading `.debt` files through the [`FileSystem`](crate::source::FileSystem) and resolving subtree paths.
//!
//! Every file goes through [`read_source`] (`syntax::files`), which enforces `Limits::max_source_bytes` and
//! UTF-8 and registers the file in the [`SourceMap`](crate::source::SourceMap), so every diagnostic can be located. Paths
//! are compared after lexical normalization (`.` dropped, `dir/..` folded), which is what makes
//! include cycles through `../` detectable. This file never parses XML.

use std::path::{Component, Path, PathBuf};

pub(super) use crate::syntax::files::read_source;

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
