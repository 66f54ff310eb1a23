//! Any bytes as an MBT file (CRYENGINE Modular Behavior Tree XML), loaded without and with the
//! GameSDK profile: the front-end and the checker return a tree or positioned errors, never a
//! panic, a hang or a stack overflow; an accepted tree lowers, its program survives the file
//! format, and the reference and the vm agree on it (`btvm_fuzz::exercise`). Two more
//! properties: a tree that loads without the profile loads the same with it (the profile only
//! adds nodes and leniency), and the native printout of an accepted tree parses back to it
//! (`btvm fmt`, script imports and hook calls included). The whole input is `main.xml`: an MBT
//! tree is one file.
#![no_main]

use std::path::Path;

use btvm::Limits;
use btvm_compiler::ir::{Dialect, Tree};
use btvm_compiler::load::{load, Format, LoadOptions, Profile};
use btvm_compiler::source::{FileId, MemFs, SourceMap};
use btvm_compiler::syntax::canonical;
use libfuzzer_sys::fuzz_target;

fn load_as(fs: &MemFs, profile: Option<Profile>) -> Option<Tree> {
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Mbt)),
        limits: Limits::default(),
        profile,
        deny_warnings: false,
        root: None,
    };
    let mut sources = SourceMap::new();
    match load(Path::new("/f/main.xml"), fs, &options, &mut sources) {
        Ok(tree) => Some(tree),
        Err(diags) => {
            btvm_fuzz::check_diagnostics(&diags, &sources);
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut fs = MemFs::new();
    fs.insert("/f/main.xml", data);
    let plain = load_as(&fs, None);
    let gamesdk = load_as(&fs, Some(Profile::builtin("gamesdk").unwrap()));
    if let Some(p) = &plain {
        assert_eq!(
            Some(p),
            gamesdk.as_ref(),
            "a tree that loads without the profile loads differently with it"
        );
    }
    if let Some(tree) = gamesdk {
        let text = canonical::print(&tree);
        match canonical::parse(FileId(0), &text, &Limits::default()) {
            Ok(mut back) => {
                let mut tree = tree.clone();
                back.strip_spans();
                tree.strip_spans();
                assert!(
                    back == tree,
                    "the native printout parses to another tree:\n{text}"
                );
            }
            Err(d) => panic!("the native printout does not parse: {d:?}\n{text}"),
        }
        btvm_fuzz::exercise(&tree);
    }
});
