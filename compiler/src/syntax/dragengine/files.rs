//! Reading `.debt` files and resolving subtree paths, through the load's
//! [`Files`](crate::syntax::files::Files).
//!
//! Every file goes through `syntax::files`, which confines it to the load's root (a subtree
//! path is relative to the including file's directory; an absolute path or one leading out of
//! the root is refused), enforces the load's budgets, `Limits::max_source_bytes` and UTF-8,
//! and registers the file in the [`SourceMap`](crate::source::SourceMap), so every diagnostic
//! can be located. Paths are compared after lexical normalization (`.` dropped, `dir/..`
//! folded), which is what makes include cycles through `../` detectable. This file never
//! parses XML.

pub(super) use crate::source::normalize;
pub(super) use crate::syntax::files::Files;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::source::{resolve_in, Escape};

    #[test]
    fn paths_resolve_against_the_including_directory() {
        let (root, dir) = (Path::new("/g"), Path::new("/g/ai"));
        let resolve = |w: &str| resolve_in(root, dir, w);
        assert_eq!(resolve("sub/a.debt"), Ok(PathBuf::from("/g/ai/sub/a.debt")));
        assert_eq!(resolve("./../x/./b.debt"), Ok(PathBuf::from("/g/x/b.debt")));
        assert_eq!(resolve("/abs/c.debt"), Err(Escape::Absolute));
        assert_eq!(resolve("../../up.debt"), Err(Escape::OutsideRoot));
        assert_eq!(
            resolve_in(Path::new(""), Path::new(""), "../up.debt"),
            Err(Escape::OutsideRoot)
        );
    }
}
