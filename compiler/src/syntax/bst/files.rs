//! Reading BST files through the [`FileSystem`]: the main file, and the discovery of global
//! block files (every other `*.xml` file in the main file's directory whose root element is
//! `<Blocks>`, in sorted name order; `spec/bst.md` section 1.1).
//!
//! Files that are read go through the load's [`Files`] (root, budgets, size limit, UTF-8),
//! so every diagnostic can be located and a `.xml` beside the tree that is a symbolic link out
//! of the root is refused. Other `.xml` files of the directory are only looked at up to their
//! root tag and are never registered. This file never parses XML beyond that root tag.

use std::path::Path;

use crate::diag::Diagnostic;
use crate::source::{SourceMap, Span};
use crate::syntax::files::{io_error, register, SourceText};

pub(super) use crate::syntax::files::Files;

/// The global block files next to `main`: every other `*.xml` file in its directory (not in
/// subdirectories) whose root element is `<Blocks>` (any case), in sorted name order, read
/// and registered. Files that cannot be read (I/O errors, files that are not regular) or
/// whose root is something else are skipped; a file refused by the root, the budgets or the
/// size limit fails the load. `main_span` positions those failures and a failure to list the
/// directory.
pub(super) fn global_block_files(
    files: &Files,
    sources: &mut SourceMap,
    main: &Path,
    main_span: Span,
) -> Result<Vec<SourceText>, Diagnostic> {
    let dir = main.parent().unwrap_or(Path::new(""));
    let main_name = main.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut names = files
        .fs()
        .list(dir)
        .map_err(|e| io_error(dir, &e, main_span))?
        .into_iter()
        .filter(|n| {
            Path::new(n)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
        })
        .filter(|n| Some(n) != main_name.as_ref())
        .collect::<Vec<_>>();
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let path = files.resolve(dir, &name, main_span)?;
        let bytes = match files.read_bytes(sources, &path, &name, main_span) {
            Ok(bytes) => bytes,
            Err(e) if e.io.is_some() => continue,
            Err(e) => return Err(e.diag),
        };
        let is_blocks = root_tag(&bytes).is_some_and(|t| t.eq_ignore_ascii_case(b"Blocks"));
        if is_blocks {
            out.push(register(sources, files.limits(), &path, bytes)?);
        }
    }
    Ok(out)
}

/// The name of the root element of an XML document, as written, found without parsing the
/// rest: a byte-order mark, whitespace, declarations, comments, processing instructions and
/// a doctype are skipped. `None` if the bytes do not start like XML with an element.
pub(super) fn root_tag(bytes: &[u8]) -> Option<&[u8]> {
    let mut rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    loop {
        let skip = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        rest = &rest[skip..];
        let end = if rest.starts_with(b"<?") {
            find(rest, b"?>")? + 2
        } else if rest.starts_with(b"<!--") {
            find(rest, b"-->")? + 3
        } else if rest.starts_with(b"<!") {
            find(rest, b">")? + 1
        } else {
            break;
        };
        rest = &rest[end..];
    }
    let rest = rest.strip_prefix(b"<")?;
    let len = rest
        .iter()
        .position(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'))
        .unwrap_or(rest.len());
    (len > 0).then(|| &rest[..len])
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemFs;

    #[test]
    fn root_tags_are_found_after_the_prolog() {
        let tag = |s: &[u8]| root_tag(s).map(|t| String::from_utf8_lossy(t).into_owned());
        assert_eq!(tag(b"<Blocks>"), Some("Blocks".into()));
        assert_eq!(
            tag(b"\xEF\xBB\xBF <?xml version='1.0'?>\n<!-- c -->\n<!DOCTYPE x><blocks/>"),
            Some("blocks".into())
        );
        assert_eq!(tag(b"<a x='1'>"), Some("a".into()));
        assert_eq!(tag(b"text"), None);
        assert_eq!(tag(b"<!-- never closed"), None);
        assert_eq!(tag(b"< x>"), None);
        assert_eq!(tag(b"\xff\xfe<Blocks>"), None);
    }

    #[test]
    fn only_blocks_files_of_the_same_directory_are_read_in_name_order() {
        let mut fs = MemFs::new();
        fs.insert("ai/main.xml", "<SelectionTrees/>")
            .insert("ai/b.xml", "<Blocks/>")
            .insert("ai/a.XML", "<?xml version='1.0'?><BLOCKS/>")
            .insert("ai/c.xml", "<SelectionTree/>")
            .insert("ai/d.txt", "<Blocks/>")
            .insert("ai/e.xml", b"\xff\xfe garbage".to_vec())
            .insert("ai/sub/f.xml", "<Blocks/>")
            .insert("other/g.xml", "<Blocks/>");
        let mut sources = SourceMap::new();
        let limits = btvm::Limits::default();
        let mut reader = Files::new(&fs, &limits, None);
        reader.default_root(Path::new("ai"));
        let files = global_block_files(
            &reader,
            &mut sources,
            Path::new("ai/main.xml"),
            Span::new(crate::source::FileId(0), 0, 0),
        )
        .unwrap();
        let paths: Vec<_> = files
            .iter()
            .map(|f| sources.get(f.id).unwrap().path.clone())
            .collect();
        assert_eq!(
            paths,
            vec![
                Path::new("ai/a.XML").to_path_buf(),
                Path::new("ai/b.xml").to_path_buf()
            ]
        );
    }
}
