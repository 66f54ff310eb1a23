//! The suite of real trees (`btvm bench --suite`, the `suite` criterion group): every example
//! of `spec/examples/`, the shared corpus's `default.bt` when it is present, and one large
//! generated tree per execution model.
//!
//! The examples are compiled into the library (`include_str!`) and loaded through a [`MemFs`],
//! so the suite does not depend on the working directory; the corpus is read from disk
//! ([`corpus_default`]). The generated trees are pure functions of their size and
//! [`SEED`]. This module only builds trees: it never times, prints or reads anything but the
//! corpus file it is pointed at.

mod cursor;
mod decider;
mod lifecycle;
mod selection;
mod text;

use std::path::{Path, PathBuf};

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::{Model, Tree};
use btvm_compiler::load::{load, LoadOptions, Profile};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};

/// The seed of every generated tree of the suite.
pub const SEED: u64 = 28;

/// The size the suite's generated trees aim at (each generator gets close).
pub const GENERATED_NODES: usize = 1_000;

/// One tree of the suite.
#[derive(Clone, Debug)]
pub struct SuiteTree {
    /// A short name: the example's path under `spec/examples/`, `corpus/default.bt`, or
    /// `generated-MODEL`.
    pub name: String,
    /// The tree.
    pub tree: Tree,
}

impl SuiteTree {
    /// The tree's execution model, as the suite's tables name it.
    pub fn model(&self) -> &'static str {
        model_name(&self.tree.config.model)
    }
}

/// The name of an execution model in the suite's tables.
pub fn model_name(model: &Model) -> &'static str {
    match model {
        Model::RunningList { .. } => "running-list",
        Model::Cursor { .. } => "cursor",
        Model::Decider { .. } => "decider",
        Model::Lifecycle => "lifecycle",
        Model::Selection => "selection",
    }
}

/// One embedded example: its name, whether it needs the GameSDK profile, and its files (the
/// main file first; paths relative to `spec/examples/`).
struct Example {
    gamesdk: bool,
    files: &'static [(&'static str, &'static str)],
}

macro_rules! example_file {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!("../../../spec/examples/", $path)),
        )
    };
}

/// Every example of `spec/examples/` (the versions under `reload/` and `*_v2` are hot-reload
/// fixtures, not separate trees).
const EXAMPLES: [Example; 6] = [
    Example {
        gamesdk: false,
        files: &[example_file!("guard.bt")],
    },
    Example {
        gamesdk: false,
        files: &[
            example_file!("wanderer/wanderer.debt"),
            example_file!("wanderer/subtrees/patrol.debt"),
            example_file!("wanderer/subtrees/look.debt"),
            example_file!("wanderer/subtrees/rest.debt"),
        ],
    },
    Example {
        gamesdk: false,
        files: &[example_file!("figure1.spore")],
    },
    Example {
        gamesdk: false,
        files: &[
            example_file!("grunt/grunt.xml"),
            example_file!("grunt/common.xml"),
        ],
    },
    Example {
        gamesdk: true,
        files: &[example_file!("squad_soldier.xml")],
    },
    Example {
        gamesdk: true,
        files: &[example_file!("human_soldier.xml")],
    },
];

/// Options with the GameSDK profile (the MBT examples and the generated MBT tree use it).
fn gamesdk() -> LoadOptions {
    LoadOptions {
        profile: Profile::builtin("gamesdk"),
        ..LoadOptions::default()
    }
}

/// Loads `files` (the main file first) from memory.
fn load_mem(
    files: &[(&str, &str)],
    options: &LoadOptions,
    sources: &mut SourceMap,
) -> Result<Tree, Vec<Diagnostic>> {
    let mut fs = MemFs::new();
    for (name, text) in files {
        fs.insert(*name, *text);
    }
    let main = files.first().map_or("", |f| f.0);
    load(Path::new(main), &fs, options, sources)
}

/// The examples of `spec/examples/`, in a fixed order (diagnostics go into `sources`).
pub fn examples(sources: &mut SourceMap) -> Result<Vec<SuiteTree>, Vec<Diagnostic>> {
    EXAMPLES
        .iter()
        .map(|ex| {
            let options = if ex.gamesdk {
                gamesdk()
            } else {
                LoadOptions::default()
            };
            let tree = load_mem(ex.files, &options, sources)?;
            Ok(SuiteTree {
                name: ex.files[0].0.to_string(),
                tree,
            })
        })
        .collect()
}

/// One generated tree per execution model, about `nodes` nodes each, from `seed`: running
/// list (Unvanquished), cursor (Drag\[en\]gine), decider (Spore), lifecycle (MBT, GameSDK
/// profile) and selection (BST).
pub fn generated(
    nodes: usize,
    seed: u64,
    sources: &mut SourceMap,
) -> Result<Vec<SuiteTree>, Vec<Diagnostic>> {
    let texts: [(&str, &str, String, bool); 5] = [
        (
            "running-list",
            "generated.bt",
            super::generate::unvanquished_tree(nodes, seed),
            false,
        ),
        ("cursor", "generated.debt", cursor::tree(nodes, seed), false),
        (
            "decider",
            "generated.spore",
            decider::tree(nodes, seed),
            false,
        ),
        (
            "lifecycle",
            "generated.xml",
            lifecycle::tree(nodes, seed),
            true,
        ),
        (
            "selection",
            "generated.xml",
            selection::tree(nodes, seed),
            false,
        ),
    ];
    texts
        .into_iter()
        .map(|(model, file, text, mbt)| {
            let options = if mbt {
                gamesdk()
            } else {
                LoadOptions::default()
            };
            let tree = load_mem(&[(file, text.as_str())], &options, sources)?;
            Ok(SuiteTree {
                name: format!("generated-{model}"),
                tree,
            })
        })
        .collect()
}

/// The generated source of the suite's tree for `model` (as [`model_name`] spells it), or
/// `None` for an unknown model name: for reading what the suite runs.
pub fn generated_source(model: &str, nodes: usize, seed: u64) -> Option<String> {
    Some(match model {
        "running-list" => super::generate::unvanquished_tree(nodes, seed),
        "cursor" => cursor::tree(nodes, seed),
        "decider" => decider::tree(nodes, seed),
        "lifecycle" => lifecycle::tree(nodes, seed),
        "selection" => selection::tree(nodes, seed),
        _ => return None,
    })
}

/// Where the shared corpus's `default.bt` may be: `../shared/corpus/unvanquished/default.bt`
/// from the current directory, then from the repository this crate was built in.
pub fn corpus_candidates() -> Vec<PathBuf> {
    let rel = Path::new("../shared/corpus/unvanquished/default.bt");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    vec![rel.to_path_buf(), repo.join(rel)]
}

/// The shared corpus's `default.bt`: the first of `candidates` that is a file, loaded
/// (Unvanquished dialect, its includes from the corpus); `None` when none is a file.
pub fn corpus_default(
    candidates: &[PathBuf],
    sources: &mut SourceMap,
) -> Option<Result<SuiteTree, Vec<Diagnostic>>> {
    let path = candidates.iter().find(|p| p.is_file())?;
    Some(
        load(path, &RealFs, &LoadOptions::default(), sources).map(|tree| SuiteTree {
            name: "corpus/unvanquished/default.bt".to_string(),
            tree,
        }),
    )
}

#[cfg(test)]
mod tests;
