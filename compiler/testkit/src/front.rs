//! Loading trees from in-memory files for the front-end tests: the files live in `/t`, the
//! first one is the main file.

use std::path::Path;

use btvm::Limits;
use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::Tree;
use btvm_compiler::source::{FileSystem, MemFs, SourceMap};

/// A front-end's `load` function.
pub type Loader =
    fn(&Path, &dyn FileSystem, &Limits, &mut SourceMap) -> btvm_compiler::diag::Result<Tree>;

/// The files under `/t`.
pub fn memfs(files: &[(&str, &[u8])]) -> MemFs {
    let mut fs = MemFs::new();
    for (name, bytes) in files {
        fs.insert(Path::new("/t").join(name), bytes.to_vec());
    }
    fs
}

/// Loads the first of `files` with `load` under `limits`; the source map comes back either way.
pub fn try_load_bytes(
    load: Loader,
    files: &[(&str, &[u8])],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    let fs = memfs(files);
    let mut sources = SourceMap::new();
    let r = load(&Path::new("/t").join(files[0].0), &fs, limits, &mut sources);
    (r, sources)
}

/// [`try_load_bytes`] for text files.
pub fn try_load_with(
    load: Loader,
    files: &[(&str, &str)],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    let bytes: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    try_load_bytes(load, &bytes, limits)
}

/// Loads `files` under the default limits; the tree must load and validate.
pub fn load_ok(load: Loader, files: &[(&str, &str)]) -> Tree {
    let (r, sources) = try_load_with(load, files, &Limits::default());
    match r {
        Ok(t) => {
            t.validate().unwrap();
            t
        }
        Err(d) => panic!("load failed: {}", d[0].display(&sources)),
    }
}

/// The verified program of a canonical-syntax tree under the default limits; the tree must
/// parse and lower (a failure panics with the first diagnostic).
pub fn compile(text: &str) -> btvm::Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", text.to_string());
    let tree = match btvm_compiler::syntax::canonical::parse(file, text, &limits) {
        Ok(t) => t,
        Err(d) => panic!("does not parse: {}", d[0].display(&sources)),
    };
    match btvm_compiler::lower::lower(&tree, &limits) {
        Ok(p) => p,
        Err(d) => panic!("does not lower: {}", d[0].display(&sources)),
    }
}
