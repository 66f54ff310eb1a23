//! Loading a tree from a file: pick the front-end, parse, then [`check`](crate::check).

use btvm::Limits;
use std::path::Path;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Dialect, Tree};
use crate::source::{FileSystem, SourceMap, Span};
use crate::syntax;

/// A source format: the native syntax or one of the dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// The native syntax (`.btn`).
    Native,
    /// A dialect.
    Dialect(Dialect),
}

impl Format {
    /// Every format name accepted by [`Format::from_name`].
    pub const NAMES: [&'static str; 6] = [
        "native",
        "unvanquished",
        "dragengine",
        "mbt",
        "bst",
        "spore",
    ];

    /// Parses a format name (`native` or a dialect name).
    pub fn from_name(name: &str) -> Option<Format> {
        if name == "native" {
            return Some(Format::Native);
        }
        Dialect::from_name(name).map(Format::Dialect)
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Dialect(d) => d.name(),
        }
    }

    /// The format implied by a file's extension: `.btn` native, `.bt` Unvanquished, `.debt`
    /// Drag[en]gine, `.spore` Spore. XML files are ambiguous (MBT or BST) and need an explicit
    /// format.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "btn" => Some(Format::Native),
            "bt" => Some(Format::Dialect(Dialect::Unvanquished)),
            "debt" => Some(Format::Dialect(Dialect::Dragengine)),
            "spore" => Some(Format::Dialect(Dialect::Spore)),
            _ => None,
        }
    }
}

/// How to load a tree.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// The format; `None` picks it from the file extension.
    pub format: Option<Format>,
    /// The limits every stage enforces.
    pub limits: Limits,
}

/// Loads, parses and checks the tree at `path`.
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    options: &LoadOptions,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    let format = match options.format.or_else(|| Format::from_path(path)) {
        Some(f) => f,
        None => {
            return Err(vec![Diagnostic::new(
                ErrorKind::UnknownDialect,
                Span::DUMMY,
                format!(
                    "cannot tell the format of `{}` from its extension",
                    path.display()
                ),
            )
            .with_note(format!(
                "pass --dialect with one of: {}",
                Format::NAMES.join(", ")
            ))])
        }
    };
    let limits = &options.limits;
    let tree = front_end(format, path, fs, limits, sources)?;
    crate::check::check(&tree, limits)?;
    Ok(tree)
}

fn front_end(
    format: Format,
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    match format {
        Format::Native => syntax::native::load(path, fs, limits, sources),
        Format::Dialect(Dialect::Unvanquished) => {
            syntax::unvanquished::load(path, fs, limits, sources)
        }
        Format::Dialect(Dialect::Dragengine) => syntax::dragengine::load(path, fs, limits, sources),
        Format::Dialect(Dialect::Spore) => syntax::spore::load(path, fs, limits, sources),
        Format::Dialect(d) => Err(vec![Diagnostic::new(
            ErrorKind::Unsupported,
            Span::DUMMY,
            format!("the {} front-end is not implemented yet", d.name()),
        )]),
    }
}
