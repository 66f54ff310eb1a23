//! The BST front-end: CryEngine 3 Behavior Selection Tree XML (`spec/bst.md` sections 1
//! and 3).
//!
//! A main file (`<SelectionTrees>` holding `<SelectionTree>` elements, or one
//! `<SelectionTree>`) plus the global block files next to it (`<Blocks>` roots) become one
//! [`Tree`] of dialect [`Bst`](crate::ir::Dialect::Bst) in the selection model: the first
//! SelectionTree is the main entry, every other one a further entry named after it. Blocks,
//! Refs and leaf translations are resolved here and leave no trace in the IR; conditions are
//! CryEngine's expression language ([`cryexpr`](crate::syntax::cryexpr)) with every variable
//! declared.
//!
//! Files of this module, in pipeline order:
//!
//! - `files`: reading the main file and discovering the global `<Blocks>` files through the
//!   [`FileSystem`] (size limit, UTF-8, source map);
//! - `xml`: parsing with `roxmltree`, positioned XML errors, elements and attributes with
//!   their spans (tags case-insensitive, attribute names exact);
//! - `blocks`: block scopes and `Ref` expansion (cycles, unknown blocks, depth, expansion
//!   size);
//! - `translate`: `LeafTranslations` and the most specific match;
//! - `tree`: one SelectionTree's sections and nodes, and the IR.
//!
//! Several trees in one file: the variables of trees after the first are named `TREE:VAR` in
//! the IR, and only the main tree's signal bindings are bound (the others are checked), so a
//! signal meant for another tree can never mark the main tree's variables changed.
//!
//! This module never prints, never panics on input and never reads a file other than through
//! the [`FileSystem`] it is given. Nesting (nodes, cases, states and Ref levels) is checked
//! against `Limits::max_depth` before each recursive step, elements visited through Refs and
//! nodes built against `Limits::max_nodes`, so hostile input is a positioned diagnostic,
//! never a stack overflow or an exponential expansion.

mod blocks;
mod files;
mod translate;
mod tree;
mod xml;

use btvm::Limits;
use std::path::Path;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::{FileSystem, SourceMap, Span};

use blocks::{Expander, Scope};
use xml::El;

/// Loads the BST tree at `path` (with the global blocks of its directory).
///
/// Every file read is added to `sources`, so diagnostics can be located even when loading
/// fails.
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    load_with_warnings(path, fs, limits, sources, &mut Vec::new())
}

/// [`load`], pushing onto `warnings` what the original logs (or silently ignores) while
/// loading the tree anyway: text a condition ignores, a `condition` that is never read.
pub fn load_with_warnings(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> crate::diag::Result<Tree> {
    load_tree(path, fs, limits, sources, warnings).map_err(|d| vec![d])
}

fn load_tree(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Tree, Diagnostic> {
    let main = files::read_source(fs, sources, limits, path, Span::DUMMY)?;
    let main_xml = xml::parse(main.id, &main.text)?;
    let root = El::root(&main_xml);
    let trees: Vec<El> = if root.is("SelectionTrees") {
        root.only_attributes(&[])?;
        let trees: Vec<El> = root.elements().collect();
        if let Some(other) = trees.iter().find(|t| !t.is("SelectionTree")) {
            return Err(Diagnostic::new(
                ErrorKind::UnknownName,
                other.start_tag(),
                format!("unknown element `<{}>` in `<{}>`", other.tag(), root.tag()),
            )
            .with_note(
                "`<SelectionTrees>` holds `<SelectionTree name=\"…\" type=\"…\">` elements",
            ));
        }
        if trees.is_empty() {
            return Err(Diagnostic::new(
                ErrorKind::Arity,
                root.start_tag(),
                "`<SelectionTrees>` holds no `<SelectionTree>`",
            ));
        }
        trees
    } else if root.is("SelectionTree") {
        vec![root]
    } else {
        let d = Diagnostic::new(
            ErrorKind::Syntax,
            root.start_tag(),
            format!(
                "the root element is `<{}>`; a BST tree's root is `<SelectionTrees>` or \
                 `<SelectionTree>`",
                root.tag()
            ),
        );
        return Err(if root.is("Blocks") {
            d.with_note("a `<Blocks>` file only provides blocks to the trees next to it")
        } else {
            d
        });
    };
    let block_files = files::global_block_files(fs, sources, limits, path, root.start_tag())?;
    let block_xml = block_files
        .iter()
        .map(|f| xml::parse(f.id, &f.text))
        .collect::<Result<Vec<_>, _>>()?;
    let mut global = Scope::new("global");
    for f in &block_xml {
        global.add_blocks(El::root(f))?;
    }
    let mut loader = tree::Loader::new(Expander::new(&global, limits), limits);
    for (i, t) in trees.into_iter().enumerate() {
        let r = loader.tree(t, i == 0);
        warnings.append(&mut loader.warnings);
        r?;
    }
    loader
        .into_builder()
        .finish()
        .map_err(|msg| Diagnostic::new(ErrorKind::InvalidValue, root.start_tag(), msg))
}
