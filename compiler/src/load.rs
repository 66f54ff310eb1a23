//! Loading a tree from a file: pick the front-end, parse, then [`check`](crate::check).

use btvm::Limits;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, ErrorKind, Report, Severity};
use crate::ir::{Dialect, Tree};
use crate::source::{FileSystem, SourceMap, Span};
use crate::syntax;
use crate::syntax::files::Files;
pub use crate::syntax::Profile;

/// A source format: the canonical syntax or one of the dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// The canonical syntax (`.btn`).
    Canonical,
    /// A dialect.
    Dialect(Dialect),
}

impl Format {
    /// Every format name accepted by [`Format::from_name`].
    pub const NAMES: [&'static str; 6] = [
        "canonical",
        "unvanquished",
        "dragengine",
        "mbt",
        "bst",
        "spore",
    ];

    /// Parses a format name (`canonical` or a dialect name). `native`, the canonical syntax's
    /// name before 0.1, is still accepted.
    pub fn from_name(name: &str) -> Option<Format> {
        if name == "canonical" || name == "native" {
            return Some(Format::Canonical);
        }
        Dialect::from_name(name).map(Format::Dialect)
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::Dialect(d) => d.name(),
        }
    }

    /// The format implied by a file's extension: `.btn` canonical, `.bt` Unvanquished, `.debt`
    /// Drag\[en\]gine, `.spore` Spore. XML files are ambiguous (MBT or BST) and need an explicit
    /// format.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "btn" => Some(Format::Canonical),
            "bt" => Some(Format::Dialect(Dialect::Unvanquished)),
            "debt" => Some(Format::Dialect(Dialect::Dragengine)),
            "spore" => Some(Format::Dialect(Dialect::Spore)),
            _ => None,
        }
    }

    /// The format of an `.xml` file, from its root element: BST for `SelectionTrees`,
    /// `SelectionTree` or `Blocks` (any case), MBT for anything else (the original MBT loader
    /// does not check the root tag). `None` if the text is not XML with a root element.
    ///
    /// A document type declaration, with or without an internal subset (`[...]`, which may
    /// hold `>` inside its declarations, comments and quoted strings), is skipped. A UTF-16
    /// file with a byte order mark is sniffed from its decoded prolog, so the front-end then
    /// refuses it with a positioned message (btvm reads UTF-8; see `SourceMap::add_checked`);
    /// so is a file with invalid UTF-8 after its root element's name.
    pub fn sniff_xml(text: &[u8]) -> Option<Format> {
        let decoded;
        let text = match utf16_prolog(text) {
            Some(t) => {
                decoded = t;
                decoded.as_str()
            }
            // Sniffed from the valid part: the reader then reports the first bad byte.
            None => match std::str::from_utf8(text) {
                Ok(t) => t,
                Err(e) => std::str::from_utf8(&text[..e.valid_up_to()]).ok()?,
            },
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut rest = text;
        // Skip the prolog: declarations, comments, processing instructions, a doctype.
        loop {
            rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix("<?") {
                rest = &r[r.find("?>")? + 2..];
            } else if let Some(r) = rest.strip_prefix("<!--") {
                rest = &r[r.find("-->")? + 3..];
            } else if let Some(r) = rest.strip_prefix("<!") {
                rest = skip_declaration(r)?;
            } else {
                break;
            }
        }
        let name: String = rest
            .strip_prefix('<')?
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, '>' | '/'))
            .collect();
        if name.is_empty() {
            return None;
        }
        let bst = ["SelectionTrees", "SelectionTree", "Blocks"]
            .iter()
            .any(|t| t.eq_ignore_ascii_case(&name));
        Some(Format::Dialect(if bst {
            Dialect::Bst
        } else {
            Dialect::Mbt
        }))
    }
}

/// The first 64 KiB of a UTF-16 file with a byte order mark (either byte order), decoded, for
/// sniffing its root element; `None` without such a mark.
fn utf16_prolog(bytes: &[u8]) -> Option<String> {
    let big = match bytes.get(..2)? {
        [0xff, 0xfe] => false,
        [0xfe, 0xff] => true,
        _ => return None,
    };
    let units = bytes[2..].chunks_exact(2).take(32 << 10).map(|b| {
        if big {
            u16::from_be_bytes([b[0], b[1]])
        } else {
            u16::from_le_bytes([b[0], b[1]])
        }
    });
    Some(
        char::decode_utf16(units)
            .map(|c| c.unwrap_or('\u{fffd}'))
            .collect(),
    )
}

/// The text after a markup declaration whose `<!` was just read (a `<!DOCTYPE ...>` with
/// its optional internal subset): `>` inside quotes, inside the `[...]` subset's own
/// declarations and comments does not end it. `None` if it never ends.
fn skip_declaration(text: &str) -> Option<&str> {
    let mut depth = 0u32;
    let mut quote = None;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let c = rest.chars().next()?;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '<') if rest.starts_with("<!--") => {
                at += 4 + rest[4..].find("-->")? + 3;
                continue;
            }
            (None, '[' | '<') => depth += 1,
            (None, ']') => depth = depth.saturating_sub(1),
            (None, '>') if depth == 0 => return Some(&text[at + 1..]),
            (None, '>') => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += c.len_utf8();
    }
    None
}

/// How to load a tree.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// The format; `None` picks it from the file extension (and, for `.xml`, the root
    /// element: see [`Format::sniff_xml`]).
    pub format: Option<Format>,
    /// The limits every stage enforces.
    pub limits: Limits,
    /// A game profile: a built-in one ([`Profile::builtin`]) or one read from a file
    /// ([`Profile::load`]). A dialect the profile declares nothing for keeps its default, as
    /// with `None`: `.bt` trees get the built-in `unvanquished` vocabulary, MBT trees their
    /// own nodes only (`spec/profiles.md`).
    pub profile: Option<Profile>,
    /// Make every warning an error: a tree the original loads with a logged complaint fails
    /// to load (`--deny-warnings`).
    pub deny_warnings: bool,
    /// The directory every file the tree names (includes, behaviors, subtrees, BST's block
    /// files) must be inside, after resolving symbolic links (`--root`); the main file too
    /// when given. `None`: the main file's directory (for Unvanquished the directory above
    /// it, the game's root that `#include` names files from), and the main file itself is
    /// read wherever it is. Absolute paths in a tree are always refused.
    pub root: Option<PathBuf>,
}

/// A loaded tree and the warnings its loading gave: what the original game would log while
/// loading it anyway (an Unvanquished parameter list with too many values, an unknown string
/// escape, ...).
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The checked tree.
    pub tree: Tree,
    /// The warnings, in the order they were found (each [`Severity::Warning`]).
    ///
    /// [`Severity::Warning`]: crate::diag::Severity::Warning
    pub warnings: Vec<Diagnostic>,
}

/// Loads, parses and checks the tree at `path`, dropping warnings (see [`load_reporting`]).
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    options: &LoadOptions,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    match load_reporting(path, fs, options, sources) {
        Ok(loaded) => Ok(loaded.tree),
        Err(mut diags) => {
            diags.retain(|d| !d.is_warning());
            Err(diags)
        }
    }
}

/// Loads, parses and checks the tree at `path`, with the warnings loading gave.
///
/// On failure the errors come first, then the warnings found before loading failed. With
/// [`LoadOptions::deny_warnings`] a warning fails the load: it is returned as an error.
pub fn load_reporting(
    path: &Path,
    fs: &dyn FileSystem,
    options: &LoadOptions,
    sources: &mut SourceMap,
) -> crate::diag::Result<Loaded> {
    let files = Files::new(fs, &options.limits, options.root.as_deref());
    let is_xml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"));
    let mut format = options.format.or_else(|| Format::from_path(path));
    if format.is_none() && is_xml {
        let shown = path.display().to_string();
        let bytes = files
            .read_bytes(sources, path, &shown, Span::DUMMY)
            .map_err(|e| vec![e.diag])?;
        format = Format::sniff_xml(&bytes);
    }
    let format = match format {
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
                "set the format explicitly; the formats are: {}",
                Format::NAMES.join(", ")
            ))])
        }
    };
    let mut warnings = Vec::new();
    let checked = front_end(format, path, files, options, sources, &mut warnings)
        .and_then(|tree| crate::check::check(&tree, &options.limits).map(|()| tree));
    match checked {
        Ok(_) if options.deny_warnings && !warnings.is_empty() => {
            let mut errors: Vec<Diagnostic> = warnings
                .into_iter()
                .map(|d| Diagnostic {
                    severity: Severity::Error,
                    ..d
                })
                .collect();
            bound(&mut errors, options.limits.max_errors);
            Err(errors)
        }
        Ok(tree) => Ok(Loaded { tree, warnings }),
        Err(mut errors) => {
            bound(&mut errors, options.limits.max_errors);
            bound(&mut warnings, options.limits.max_errors);
            errors.append(&mut warnings);
            Err(errors)
        }
    }
}

/// Keeps the first `max` of `diags` (at least one); the last one kept says there were more.
/// (Front-ends stop collecting a little past the bound, so how many more is not known.)
fn bound(diags: &mut Vec<Diagnostic>, max: usize) {
    let keep = max.max(1);
    if diags.len() <= keep {
        return;
    }
    diags.truncate(keep);
    if let Some(last) = diags.pop() {
        let what = if last.is_warning() {
            "warnings"
        } else {
            "errors"
        };
        diags.push(last.with_note(format!(
            "too many {what}: only the first {keep} are shown (`Limits::max_errors`)"
        )));
    }
}

/// Loads, parses and checks the tree at `path` from the real file system, dropping
/// warnings: a failure is a [`Report`] that owns the source lines it points at, so it prints
/// itself and converts into `Box<dyn Error>`.
///
/// ```no_run
/// use btvm_compiler::load::{load_path, LoadOptions};
///
/// fn start() -> Result<(), Box<dyn std::error::Error>> {
///     let tree = load_path("bots/guard.bt".as_ref(), &LoadOptions::default())?;
///     let program = btvm_compiler::lower::lower(&tree, &btvm::Limits::default())
///         .map_err(|d| btvm_compiler::diag::Report::new(d, &Default::default()))?;
///     let _ = program;
///     Ok(())
/// }
/// ```
pub fn load_path(path: &Path, options: &LoadOptions) -> std::result::Result<Tree, Report> {
    let mut sources = SourceMap::new();
    load(path, &crate::source::RealFs, options, &mut sources)
        .map_err(|diags| Report::new(diags, &sources))
}

fn front_end(
    format: Format,
    path: &Path,
    files: Files,
    options: &LoadOptions,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> crate::diag::Result<Tree> {
    match format {
        Format::Canonical => syntax::canonical::load_in(path, files, sources),
        Format::Dialect(Dialect::Unvanquished) => {
            syntax::unvanquished::load_in(path, files, options.profile.as_ref(), sources, warnings)
        }
        Format::Dialect(Dialect::Dragengine) => syntax::dragengine::load_in(path, files, sources),
        Format::Dialect(Dialect::Spore) => syntax::spore::load_in(path, files, sources),
        Format::Dialect(Dialect::Mbt) => {
            syntax::mbt::load_in(path, files, options.profile.as_ref(), sources, warnings)
        }
        Format::Dialect(Dialect::Bst) => syntax::bst::load_in(path, files, sources, warnings),
    }
}
