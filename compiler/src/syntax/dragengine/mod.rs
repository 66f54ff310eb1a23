//! The Drag\[en\]gine `.debt` dialect.
//!
//! Drag\[en\]gine's DragonScript runtime describes behaviour trees in `.debt` XML files: a
//! `<behaviorTree>` root holding one *rule*, rules nesting in `<sequence>` and `<choice>`, and
//! `<subtree>` elements pulling in the rules of other files. This front-end reads them and maps
//! them onto the IR's cursor model exactly as `spec/semantics.md` §6.2 specifies:
//!
//! | `.debt` | IR (the rule's final id names the outermost node) |
//! |---|---|
//! | `<action name="A">` | [`Guard`](crate::ir::NodeKind::Guard) every-tick (`@bound(action A) && C`) over [`Action`](crate::ir::NodeKind::Action) `A(params)` |
//! | `<success>`, `<running>` | [`Const`](crate::ir::NodeKind::Const), under a guard `(C)` when the rule has conditions |
//! | `<yield>` | [`Yield`](crate::ir::NodeKind::Yield), under a guard `(C)` when the rule has conditions |
//! | `<failure>` | `Const(Failure)` (conditions ignored) |
//! | `<sequence loop>` | [`Sequence`](crate::ir::NodeKind::Sequence), `Resume::Cursor`, `looping`, `cond: C` |
//! | `<choice loop>` | [`Selector`](crate::ir::NodeKind::Selector), `Resume::Cursor`, `looping`, `cond: C` |
//! | `<subtree loop>PATH</subtree>` | `Sequence`, `Resume::Cursor`, over the file's top-level rules, built in place |
//! | `doNotFail="true"` | the above inside [`MapStatus`](crate::ir::NodeKind::MapStatus) `success success running` |
//!
//! Parameters (`<parameter name="N">V</parameter>`, one dictionary per rule) are passed to the
//! action and to every condition as positional string arguments `"N1", "V1", "N2", …`. Each
//! condition `F` is the function import `F`, tested as `@bound(F) && F(params)`, and `C`
//! combines them left to right by `<conditionMode>` (`allTrue` `∧`, `anyTrue` `∨`, `anyFalse`
//! `¬…∨`, `allFalse` `¬…∧`). Rule ids are prefixed as the original does, including its
//! subtree-boundary quirk (a `.x` at the top of a subtree file stays `.x`); see `ids`.
//!
//! Files of this module, in pipeline order:
//!
//! - `files`: reading a file through the [`FileSystem`] (size limit, UTF-8, source map) and
//!   resolving subtree paths against the including file's directory.
//! - `raw`: what the original's own XML reader makes of the source where `roxmltree` reads it
//!   differently: element text (the first text node after its whitespace cleaning), attribute
//!   values, and the few inputs one accepts and the other refuses.
//! - `xml`: one file's XML (parsed by `roxmltree`) to rules: the grammar, attributes, common
//!   elements, and every grammar error with its span.
//! - `ast`: the parsed rules of one file.
//! - `ids`: rule id prefixing and duplicate detection.
//! - `rules`: the loader: subtree files (each parsed once, built at every site), include
//!   cycles, imports and their argument counts, the IR nodes, the tree.
//!
//! Neither stage recurses deeper than `Limits::max_depth`: rule nesting is checked before each
//! recursive step, in a file and across subtrees, so hostile nesting (say 100,000 nested
//! `<sequence>`s) is a positioned [`NestTooDeep`](crate::diag::ErrorKind::NestTooDeep) error
//! and never a stack overflow. Node counts are bounded by `Limits::max_nodes`, subtree chains
//! by `Limits::max_include_depth`. No part of this module prints, panics on input, or reads a
//! file other than through the [`FileSystem`] it is given.
//!
//! The texts of `<parameter>`, `<condition>`, `<conditionMode>` and `<subtree>` are the
//! element's first text node after the original's whitespace cleaning, and attribute values
//! are decoded as the original decodes them (`raw`, `spec/semantics.md` §6.2); child
//! elements of those four elements, rule text and unknown attributes are ignored, as in the
//! original. Deliberate differences, all load errors with a position (§6.2 lists them with
//! their reasons): a subtree including itself, directly or through others; an empty action or
//! condition name; a `<subtree>` without a path; more than 127 distinct parameters on one rule
//! (a call takes at most 255 arguments); DTDs; a character reference standing for a byte of
//! 0x80 or more; the XML `roxmltree` refuses and the original's parser accepts.

mod ast;
mod files;
mod ids;
mod raw;
mod rules;
mod xml;

use std::path::Path;

use crate::ir::Tree;
use crate::source::{FileSystem, SourceMap};

/// Loads the `.debt` file at `path` and every subtree file it includes, through `fs`.
///
/// Every file read is added to `sources`, so diagnostics can be located even when loading
/// fails. The tree has the dialect [`Dragengine`](crate::ir::Dialect::Dragengine) with its
/// knobs (cursor model, run-away limit 100) and one entry, `main`.
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &btvm::Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    load_in(path, files::Files::new(fs, limits, None), sources)
}

/// [`load`] within the reads of one load (its root and budgets).
pub(crate) fn load_in(
    path: &Path,
    files: files::Files,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    rules::Loader::new(files, sources).load_all(path)
}
