//! What `btvm check` is given: files, directories (walked for trees) and `-` (standard input).
//!
//! This module only finds and reads inputs; it never loads or checks a tree, and it never
//! prints (its caller reports what it returns).

use std::io::Read;
use std::path::{Path, PathBuf};

use btvm_compiler::load::Format;

/// The name a tree read from standard input goes by in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// How deep `check DIR` descends below a directory it is given.
const MAX_DEPTH: usize = 64;

/// One tree to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file.
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
}

/// The trees named by `args`, in order: a directory stands for the tree files below it
/// (recursively, in name order, by extension: every dialect's `.bt`, `.debt`, `.spore`, `.btn`
/// and `.xml`, and program files' `.btvm`; symbolic links to directories are not followed, so a walk always ends).
/// Fails on a directory that cannot be read or holds no tree.
pub fn expand(args: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    for arg in args {
        if arg.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if arg.is_dir() {
            let before = inputs.len();
            walk(arg, 0, &mut inputs)?;
            if inputs.len() == before {
                return Err(format!(
                    "no trees in `{}` (looked for .bt, .debt, .spore, .btn, .xml and .btvm files)",
                    arg.display()
                ));
            }
        } else {
            inputs.push(Input::File(arg.clone()));
        }
    }
    Ok(inputs)
}

/// Adds the tree files below `dir` to `out`, in name order.
fn walk(dir: &Path, depth: usize, out: &mut Vec<Input>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "`{}` is nested more than {MAX_DEPTH} directories deep",
            dir.display()
        ));
    }
    let cannot = |e: std::io::Error| format!("cannot read directory `{}`: {e}", dir.display());
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(cannot)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(cannot)?;
    entries.sort();
    for path in entries {
        // `symlink_metadata`: a link to a directory is not walked (it could lead back up).
        let meta = std::fs::symlink_metadata(&path).map_err(cannot)?;
        if meta.is_dir() {
            walk(&path, depth + 1, out)?;
        } else if is_tree_file(&path) && path.is_file() {
            out.push(Input::File(path));
        }
    }
    Ok(())
}

/// Whether `path`'s extension is one a tree is written in, or `.btvm` (a program file).
fn is_tree_file(path: &Path) -> bool {
    Format::from_path(path).is_some()
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("xml") || e.eq_ignore_ascii_case("btvm"))
}

/// Reads standard input whole, refusing more than `max` bytes.
pub fn read_stdin(max: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "standard input holds more than {max} bytes (the limit for a source file)"
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_stand_for_their_tree_files_in_name_order() {
        let dir = std::env::temp_dir().join(format!("btvm-inputs-{}", std::process::id()));
        let sub = dir.join("b");
        std::fs::create_dir_all(&sub).unwrap();
        for f in [
            "z.bt",
            "a.debt",
            "notes.txt",
            "b/c.XML",
            "b/d.spore",
            "b/e.btvm",
        ] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let found = expand(&[dir.clone(), PathBuf::from("-")]).unwrap();
        let names: Vec<String> = found
            .iter()
            .map(|i| match i {
                Input::File(p) => p.strip_prefix(&dir).unwrap().display().to_string(),
                Input::Stdin => "-".into(),
            })
            .collect();
        assert_eq!(
            names,
            ["a.debt", "b/c.XML", "b/d.spore", "b/e.btvm", "z.bt", "-"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_without_trees_is_an_error() {
        let dir = std::env::temp_dir().join(format!("btvm-inputs-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("readme.md"), "").unwrap();
        let err = expand(std::slice::from_ref(&dir)).unwrap_err();
        assert!(err.starts_with("no trees in"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
