//! The BST front-end (CryEngine 3 Behavior Selection Tree XML), `spec/bst.md`.
//! (Being written; until it lands, loading a BST tree is `Unsupported`.)

use btvm::Limits;
use std::path::Path;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::{FileSystem, SourceMap, Span};

/// Loads the BST tree at `path` (with the global blocks of its directory).
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    let _ = (path, fs, limits, sources);
    Err(vec![Diagnostic::new(
        ErrorKind::Unsupported,
        Span::DUMMY,
        "the bst front-end is not implemented yet",
    )])
}
