//! The MBT front-end (CRYENGINE 5 / Lumberyard Modular Behavior Tree XML), `spec/mbt.md`.
//! (Being written; until it lands, loading an MBT tree is `Unsupported`.)

use btvm::Limits;
use std::path::Path;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::load::Profile;
use crate::source::{FileSystem, SourceMap, Span};

/// Loads the MBT tree at `path`.
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    profile: Option<Profile>,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    let _ = (path, fs, limits, profile, sources);
    Err(vec![Diagnostic::new(
        ErrorKind::Unsupported,
        Span::DUMMY,
        "the mbt front-end is not implemented yet",
    )])
}
