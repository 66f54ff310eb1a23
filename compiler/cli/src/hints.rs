//! The CLI's own hints: which flag does what a library diagnostic asks for.
//!
//! Library messages speak library terms (`LoadOptions`, engines, profiles); only here, when the
//! CLI renders one, is it told which `btvm` flag to pass. This module never changes a message,
//! it only adds a `help:` note.

use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::load::Format;

/// The flag hint for `d`, if one of the CLI's flags is the answer.
pub fn for_diagnostic(d: &Diagnostic) -> Option<String> {
    let noted = |text: &str| d.notes.iter().any(|n| n.contains(text));
    match d.kind {
        ErrorKind::UnknownDialect => Some(format!(
            "help: pass --dialect with one of: {}",
            Format::NAMES.join(", ")
        )),
        ErrorKind::OutsideRoot => Some("help: `--root DIR` sets the root".to_string()),
        ErrorKind::UnknownName if noted("GameSDK profile") => {
            Some("help: load the tree with `--profile gamesdk`".to_string())
        }
        ErrorKind::UnknownName if noted("declare it as known") => {
            Some("help: name it with `--known`".to_string())
        }
        ErrorKind::InvalidProgram if noted("the vm engine") => {
            Some("help: `--engine vm` runs it on the vm".to_string())
        }
        ErrorKind::Unsupported if noted("reference engine") => {
            Some("help: `--engine reference` runs it on the reference".to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use btvm_compiler::load::{load, LoadOptions};
    use btvm_compiler::source::{MemFs, SourceMap};
    use std::path::Path;

    /// The hints the CLI adds to the errors of loading `name` holding `text`.
    fn hints(name: &str, text: &str) -> Vec<String> {
        let mut fs = MemFs::new();
        fs.insert(Path::new("/t").join(name), text.as_bytes().to_vec());
        let mut sources = SourceMap::new();
        let diags = load(
            &Path::new("/t").join(name),
            &fs,
            &LoadOptions::default(),
            &mut sources,
        )
        .expect_err("the input fails to load");
        diags.iter().filter_map(for_diagnostic).collect()
    }

    #[test]
    fn library_errors_get_their_flag() {
        for (name, text, flag) in [
            ("main.txt", "selector { action roam }", "--dialect"),
            (
                "main.xml",
                "<BehaviorTree><Root><Move to=\"Cover\"/></Root></BehaviorTree>",
                "--profile gamesdk",
            ),
            (
                "main.debt",
                "<behaviorTree>\n<subtree>../x.debt</subtree></behaviorTree>",
                "--root",
            ),
        ] {
            let h = hints(name, text);
            assert!(h.iter().any(|h| h.contains(flag)), "{name}: {h:?}");
        }
        assert!(hints("main.bt", "selector { action roma }").is_empty());
    }
}
