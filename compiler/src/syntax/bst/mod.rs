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
//! - `blocks`: block scopes and `Ref` expansion (cycles, unresolved Refs, depth, expansion
//!   size);
//! - `translate`: `LeafTranslations` and the most specific match;
//! - `tree`: one SelectionTree's sections and nodes, and the IR.
//!
//! Several trees in one file: the variables of trees after the first are named `TREE:VAR` in
//! the IR, and only the main tree's signal bindings are bound (the others are checked), so a
//! signal meant for another tree can never mark the main tree's variables changed. As in
//! `CSelectionTreeManager` (8b63f61c), every tree's name and own `<Blocks>` are read before any
//! tree loads (a fault there fails the file), a load error in a tree after the first is a
//! warning that ends the file's trees there (the first tree still runs), and a fault in a
//! global `<Blocks>` file is a warning that ends that file's blocks.
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
use crate::source::{FileSystem, SourceMap};

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
    load_in(path, files::Files::new(fs, limits, None), sources, warnings)
}

/// [`load_with_warnings`] within the reads of one load (its root and budgets).
pub(crate) fn load_in(
    path: &Path,
    mut files: files::Files,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> crate::diag::Result<Tree> {
    files.default_root(path.parent().unwrap_or(Path::new("")));
    let mut errors = Vec::new();
    match load_tree(path, &files, sources, warnings, &mut errors) {
        Ok(Some(tree)) => Ok(tree),
        Ok(None) => Err(errors),
        Err(d) => {
            errors.push(d);
            Err(errors)
        }
    }
}

/// `d` as a warning, with `note`.
fn demote(d: Diagnostic, note: &str) -> Diagnostic {
    Diagnostic {
        severity: crate::diag::Severity::Warning,
        ..d
    }
    .with_note(note)
}

/// Loads the main file's trees: `None` when the main tree has errors read past (recorded in
/// `errors`, in document order); `Err` for the error that stopped loading.
fn load_tree(
    path: &Path,
    files: &files::Files,
    sources: &mut SourceMap,
    warnings: &mut Vec<Diagnostic>,
    errors: &mut Vec<Diagnostic>,
) -> Result<Option<Tree>, Diagnostic> {
    let limits = files.limits();
    let main = files.read_main(sources, path)?;
    let main_xml = xml::parse(main.id, &main.text, limits)?;
    let root = El::root(&main_xml);
    // The trees of the file in order, and the first element of a `<SelectionTrees>` that is
    // not a `<SelectionTree>` (CSelectionTreeManager::LoadFileNode stops there).
    let (trees, stray): (Vec<El>, Option<El>) = if root.is("SelectionTrees") {
        root.only_attributes(&[])?;
        let stray = root.elements().find(|t| !t.is("SelectionTree"));
        let trees: Vec<El> = root.elements().filter(|t| t.is("SelectionTree")).collect();
        if trees.is_empty() {
            return Err(Diagnostic::new(
                ErrorKind::Arity,
                root.start_tag(),
                "`<SelectionTrees>` holds no `<SelectionTree>`",
            ));
        }
        (trees, stray)
    } else if root.is("SelectionTree") {
        (vec![root], None)
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
    let block_files = files::global_block_files(files, sources, path, root.start_tag())?;
    let block_xml = block_files
        .iter()
        .map(|f| xml::parse(f.id, &f.text, limits))
        .collect::<Result<Vec<_>, _>>()?;
    // A bad global `<Blocks>` file (a duplicate block, another element, a Block without a
    // name) keeps the blocks before the fault and the trees still load
    // (CSelectionTreeManager::LoadBlocks returns false, ScanFolder ignores it).
    let mut global = Scope::new("global");
    for f in &block_xml {
        if let Err(d) = global.add_blocks(El::root(f)) {
            warnings.push(demote(
                d,
                "the original logs this and reads no further block of this file",
            ));
        }
    }
    // Discovery, before any tree loads (CSelectionTreeManager::Discover/DiscoverBlocks): every
    // SelectionTree of the file needs a name, and every tree's own `<Blocks>` must load, or
    // the whole file is skipped; that makes it an error here.
    let mut scopes = Vec::with_capacity(trees.len());
    for t in &trees {
        let name = t.required("name")?;
        let mut scope = Scope::new("tree");
        for c in t.elements().filter(|c| c.is("Blocks")) {
            scope.add_blocks(c)?;
        }
        scope.hides_global(name.value);
        scopes.push(scope);
    }
    let mut loader = tree::Loader::new(Expander::new(&global, limits), limits);
    for (i, (t, scope)) in trees.into_iter().zip(scopes).enumerate() {
        if let Some(s) = stray.filter(|s| s.start_tag().start < t.start_tag().start) {
            let d = Diagnostic::new(
                ErrorKind::UnknownName,
                s.start_tag(),
                format!("unknown element `<{}>` in `<{}>`", s.tag(), root.tag()),
            )
            .with_note("`<SelectionTrees>` holds `<SelectionTree name=\"…\" type=\"…\">` elements");
            if i == 0 {
                return Err(d);
            }
            warnings.push(demote(
                d,
                "the trees before it are loaded; this and the ones after it are not",
            ));
            break;
        }
        let r = loader.tree(t, i == 0, scope);
        warnings.append(&mut loader.warnings);
        let mut found = std::mem::take(&mut loader.errors);
        found.extend(r.err());
        // Document order (a condition is read after the node it guards); stable, so the
        // error that stopped the tree, if any, stays last of its position.
        found.sort_by_key(|d| (d.span.file, d.span.start));
        if i == 0 {
            if !found.is_empty() {
                errors.append(&mut found);
                return Ok(None);
            }
        } else if let Some(d) = found.into_iter().next() {
            // The trees loaded before stay registered and the first one runs; this one and
            // the ones after it are not loaded (CSelectionTreeManager::LoadFileNode stops at
            // the first tree whose LoadTreeTemplate fails): its first error says why.
            warnings.push(demote(
                d,
                "this selection tree fails to load: the trees before it are loaded, this \
                 one and the ones after it are not",
            ));
            break;
        }
    }
    loader
        .into_builder()
        .finish()
        .map(Some)
        .map_err(|msg| Diagnostic::new(ErrorKind::InvalidValue, root.start_tag(), msg))
}
