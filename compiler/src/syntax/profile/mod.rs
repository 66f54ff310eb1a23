//! Game profiles: the vocabulary a game declares for trees, as data (`spec/profiles.md`).
//!
//! A profile is a TOML file declaring, per dialect, what a game adds: for Unvanquished `.bt`
//! trees its actions, condition functions and symbols ([`Vocabulary`]); for MBT trees the node
//! tags it registers ([`MbtNodes`]). The built-in profiles (`unvanquished`, `gamesdk`) are such
//! files, embedded in the library and parsed once per process. A profile is a cheap clone.
//!
//! This module reads profile files only through the bounded readers (`source::FileSystem`
//! under `Limits::max_source_bytes`); it never builds trees.

mod read;
mod vocab;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use btvm::Limits;

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileSystem, SourceMap, Span};
pub use vocab::{closest, ActionDef, FunctionDef, MbtNode, MbtNodes, Symbol, Vocabulary};

/// A game profile: the vocabulary a game registers on top of a dialect's own nodes.
///
/// A dialect the profile has no section for keeps its default: the built-in `unvanquished`
/// vocabulary for `.bt` trees, MBT's own nodes only for MBT trees.
#[derive(Clone, Debug)]
pub struct Profile(Arc<Data>);

impl PartialEq for Profile {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for Profile {}

/// What a profile holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Data {
    name: String,
    unvanquished: Option<Vocabulary>,
    mbt: Option<MbtNodes>,
}

/// The built-in profiles' names and files.
const BUILTIN: [(&str, &str); 2] = [
    (
        "unvanquished",
        include_str!("../../../profiles/unvanquished.toml"),
    ),
    ("gamesdk", include_str!("../../../profiles/gamesdk.toml")),
];

impl Profile {
    /// Every built-in profile's name, as `--profile` takes it.
    pub const NAMES: [&'static str; 2] = [BUILTIN[0].0, BUILTIN[1].0];

    /// The built-in profile called `name` (parsed once per process).
    pub fn builtin(name: &str) -> Option<Profile> {
        static PARSED: [OnceLock<Option<Profile>>; 2] = [OnceLock::new(), OnceLock::new()];
        let i = BUILTIN.iter().position(|(n, _)| *n == name)?;
        PARSED[i]
            .get_or_init(|| {
                let (name, text) = BUILTIN[i];
                let mut sources = SourceMap::new();
                let path = format!("<built-in profile {name}>");
                read::parse(text, Path::new(&path), &Limits::default(), &mut sources)
                    .ok()
                    .map(|d| Profile(Arc::new(d)))
            })
            .clone()
    }

    /// The built-in profile called `name`, or an error naming the built-in profiles (also
    /// when a built-in file failed to parse, which its tests rule out).
    pub(crate) fn builtin_or_error(name: &str) -> Result<Profile, Diagnostic> {
        Profile::builtin(name).ok_or_else(|| {
            Diagnostic::new(
                ErrorKind::UnknownName,
                Span::DUMMY,
                format!("no built-in profile `{}`", crate::diag::safe_text(name)),
            )
            .with_note(format!("built-in profiles: {}", Profile::NAMES.join(", ")))
        })
    }

    /// Parses the profile file text `text`, registered in `sources` as `path` (so diagnostics
    /// point into it). Errors are positioned: TOML syntax, unknown keys, wrong types, duplicate
    /// names, more than `Limits::max_profile_entries` entries, text over
    /// `Limits::max_source_bytes`.
    pub fn from_toml(
        text: &str,
        path: &Path,
        limits: &Limits,
        sources: &mut SourceMap,
    ) -> crate::diag::Result<Profile> {
        read::parse(text, path, limits, sources).map(|d| Profile(Arc::new(d)))
    }

    /// Reads and parses the profile file at `path` through `fs`, at most
    /// `Limits::max_source_bytes` long (see [`Profile::from_toml`]).
    pub fn load(
        path: &Path,
        fs: &dyn FileSystem,
        limits: &Limits,
        sources: &mut SourceMap,
    ) -> crate::diag::Result<Profile> {
        let bytes = fs
            .read(path, limits.max_source_bytes as u64)
            .map_err(|e| vec![read_error(path, &e)])?;
        let id = sources
            .add_checked(path, bytes, limits.max_source_bytes)
            .map_err(|d| vec![d])?;
        let text = sources
            .get(id)
            .map_or_else(String::new, |f| f.text.to_string());
        read::parse_registered(&text, id, limits, path).map(|d| Profile(Arc::new(d)))
    }

    /// The profile's name (its `name` key, or the file's stem).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The Unvanquished vocabulary it declares, if any.
    pub fn unvanquished(&self) -> Option<&Vocabulary> {
        self.0.unvanquished.as_ref()
    }

    /// The MBT node tags it declares, if any.
    pub fn mbt(&self) -> Option<&MbtNodes> {
        self.0.mbt.as_ref()
    }
}

/// `d` (an unknown name) with the profile it was checked against and, when one is close, the
/// nearest of `known` (its `what`, e.g. "actions").
pub(crate) fn checked_against<'a>(
    d: Diagnostic,
    what: &str,
    profile: &str,
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    let d = d.with_note(format!(
        "checked against the {what} of the `{}` profile",
        crate::diag::safe_text(profile)
    ));
    match closest(name, known) {
        Some(s) => d.with_note(format!("did you mean `{s}`?")),
        None => d,
    }
}

/// The diagnostic for a profile file that cannot be read.
fn read_error(path: &Path, e: &std::io::Error) -> Diagnostic {
    match crate::source::TooLarge::of(e) {
        Some(t) => Diagnostic::new(
            ErrorKind::SourceTooLarge,
            Span::DUMMY,
            format!("profile `{}`: {t}", path.display()),
        ),
        None => Diagnostic::new(
            ErrorKind::Io,
            Span::DUMMY,
            format!("cannot read profile `{}`: {e}", path.display()),
        ),
    }
}

#[cfg(test)]
mod tests;
