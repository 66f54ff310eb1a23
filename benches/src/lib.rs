//! # btvm-benches
//!
//! btvm's benchmark workloads, shared by `btvm bench` (the CLI) and the criterion benchmarks in
//! `benches/benches/` so that both time exactly the same code. Not part of the runtime a
//! server links: nothing here is needed to load or run a tree.
//!
//! - `demo.bt` (with its behaviors `demo_survive.bt` and `demo_supply.bt`) is a human soldier
//!   that unsticks itself, survives (medkit, healing, fleeing when outnumbered), fights what it
//!   sees, keeps itself supplied and otherwise patrols. The files are compiled into the library
//!   with `include_str!` and loaded through an in-memory [`MemFs`], so
//!   [`demo_tree`] does not depend on the working directory.
//! - [`world`] is the [`btvm::Host`] those trees call: per-agent soldier records, deterministic
//!   and cheap per call, with a [`checksum`](world::World::checksum) to compare engines.
//! - [`handwritten`] is the demo tree written by hand in Rust: the engines' speed baseline.
//! - [`fight`] is the fight-or-flight workload shared with other libraries
//!   (`btvm bench --workload fight-or-flight`).
//! - [`measure`] times the engines on any tree (`btvm bench FILE`): every engine gets the same
//!   inputs between ticks — decision flags and stimuli for decider (Spore) trees, events for
//!   lifecycle (MBT) and selection (BST) trees, about one agent in eight per tick — on a
//!   schedule hashed from (agent, tick), and every run reports a checksum the engines must
//!   agree on (the root statuses and the world, or the calls the [`synthetic`] host answered).
//! - [`suite`] is the suite of real trees (`btvm bench --suite`): the examples, the shared
//!   corpus's `default.bt` and a large generated tree per execution model.

#![deny(missing_docs)]

mod between;
pub mod fight;
pub mod generate;
pub mod handwritten;
pub mod measure;
pub mod suite;
pub mod synthetic;
pub mod world;

use std::path::Path;

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::source::{MemFs, SourceMap};

/// The file name the demo's main file is loaded as (diagnostics and `behavior` lookups use it).
pub const DEMO_NAME: &str = "demo.bt";

/// The demo's files: the main file first, then the behaviors it includes.
const DEMO_FILES: [(&str, &str); 3] = [
    (DEMO_NAME, include_str!("demo.bt")),
    ("demo_survive.bt", include_str!("demo_survive.bt")),
    ("demo_supply.bt", include_str!("demo_supply.bt")),
];

/// Loads and checks the embedded demo tree (Unvanquished dialect, default limits).
///
/// The embedded files are valid, so this only fails if the front-end or the checks change in
/// a way the demo no longer satisfies; the diagnostics then point into the embedded files.
pub fn demo_tree() -> Result<Tree, Vec<Diagnostic>> {
    load_demo(&mut SourceMap::new())
}

/// [`demo_tree`], registering the embedded files in `sources` so diagnostics can be rendered.
pub fn load_demo(sources: &mut SourceMap) -> Result<Tree, Vec<Diagnostic>> {
    let mut fs = MemFs::new();
    for (name, text) in DEMO_FILES {
        fs.insert(name, text);
    }
    load(Path::new(DEMO_NAME), &fs, &LoadOptions::default(), sources)
}
