//! Any bytes as a game profile file (`spec/profiles.md`): a profile or positioned errors, never
//! a panic. An accepted profile then loads a small fixed `.bt` tree (which may name its
//! vocabulary or not): a tree or positioned errors again, and an accepted tree is exercised.
#![no_main]

use std::path::Path;

use btvm::Limits;
use btvm_compiler::ir::Dialect;
use btvm_compiler::load::{load, Format, LoadOptions, Profile};
use btvm_compiler::source::{MemFs, SourceMap};
use libfuzzer_sys::fuzz_target;

/// A tree naming a symbol, a function and two actions a profile may or may not declare.
const TREE: &str = "selector {\n  condition f( A ) == 1\n  action a( A, 2 )\n  action roam\n}\n";

fuzz_target!(|data: &[u8]| {
    let mut fs = MemFs::new();
    fs.insert("p.toml", data.to_vec());
    fs.insert("bots/main.bt", TREE.as_bytes().to_vec());
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let profile = match Profile::load(Path::new("p.toml"), &fs, &limits, &mut sources) {
        Ok(p) => p,
        Err(d) => {
            btvm_fuzz::check_diagnostics(&d, &sources);
            return;
        }
    };
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Unvanquished)),
        profile: Some(profile),
        ..LoadOptions::default()
    };
    let mut sources = SourceMap::new();
    match load(Path::new("bots/main.bt"), &fs, &options, &mut sources) {
        Ok(tree) => btvm_fuzz::exercise(&tree),
        Err(d) => btvm_fuzz::check_diagnostics(&d, &sources),
    }
});
