//! Loading: the server's own vocabulary profile, then the tree checked against it, compiled
//! once into a `Program` that keeps node names and source positions (for active paths).
//!
//! Every error comes back as a `Report`: all of a file's errors, each with its snippet.

use std::path::Path;

use btvm::{Limits, Program};
use btvm_compiler::diag::Report;
use btvm_compiler::load::{load, LoadOptions, Profile};
use btvm_compiler::lower::lower_with_sources;
use btvm_compiler::source::{RealFs, SourceMap};

/// Loads `tree` (a `.bt` file) against the profile file `profile` and compiles it.
pub fn program(tree: &Path, profile: &Path) -> Result<Program, Report> {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let profile = Profile::load(profile, &RealFs, &limits, &mut sources)
        .map_err(|d| Report::new(d, &sources))?;
    let options = LoadOptions {
        profile: Some(profile),
        limits,
        ..LoadOptions::default()
    };
    let tree = load(tree, &RealFs, &options, &mut sources).map_err(|d| Report::new(d, &sources))?;
    lower_with_sources(&tree, &limits, &sources).map_err(|d| Report::new(d, &sources))
}
