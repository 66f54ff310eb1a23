//! The MBT front-end: CRYENGINE 5 / Lumberyard Modular Behavior Tree XML (`spec/mbt.md`).
//!
//! An MBT file is one XML document whose root element holds sections: `<Variables>`,
//! `<SignalVariables>`, `<Timestamps>`, `<MetaExtensions>` (ignored) and `<Root>` with the
//! tree's one top node. A node's tag is its type. This front-end maps them onto the IR's
//! lifecycle model (section 3):
//!
//! | MBT | IR |
//! |---|---|
//! | Sequence / Selector | `sequence remember` / `selector remember` |
//! | Parallel | `parallel … remember` |
//! | Loop / LoopUntilSuccess | `loop N until failure` / `until success` |
//! | Priority + Case | `priority on-change` + `case` |
//! | StateMachine + State | `statemachine` + `state @"name" on "EV" -> N` |
//! | IfCondition, RandomGate, IfTime, LuaGate | `guard on-entry` |
//! | AssertCondition, AssertTime, AssertLua | `condition` |
//! | MonitorCondition, WaitUntilTime | `waituntil` |
//! | Wait / Timeout | `wait UNITS VAR -> success` / `-> failure` (10 µs units, `clock 100`) |
//! | SuppressFailure, ExecuteLua | `map success success running` (ExecuteLua over a `condition`) |
//! | LuaWrapper, GameSDK wrappers | `hooks` |
//! | GameSDK leaves | `action NAME(attr = "value", …)` |
//! | `_startLog`, `_successLog`, `_failureLog` | `logstatus` around the node |
//!
//! Lua snippets become function imports `lua_K` carrying their code (`Import::script`).
//!
//! Files of this module, in pipeline order:
//!
//! - `xml`: the document (`roxmltree`), tag and attribute names and spans from the source,
//!   the unknown-attribute rule.
//! - `build`: reading the file, the sections, `<Root>`, assembling the tree.
//! - `sections`: `<Variables>`, `<Timestamps>`, `<SignalVariables>` and the name lookups.
//! - `kinds`: the node types (tags, attributes, child counts).
//! - `profile`: the lookup of game-registered nodes in the load's profile.
//! - `nodes`: node elements to IR nodes, Priority cases and state-machine states.
//! - `time`: numbers as CryXML and C read them (seconds to `CTimeValue` units, chances, counts,
//!   booleans) and the time conditions.
//! - `lua`: snippet imports.
//!
//! Conditions are parsed by the shared [`cryexpr`](crate::syntax::cryexpr) module.
//!
//! Nothing here recurses (nodes are read with a heap stack) and a node's IR depth is checked
//! against `Limits::max_depth` before its children are read, so hostile nesting (100,000 nested `<Loop>`s) is a positioned
//! [`NestTooDeep`](crate::diag::ErrorKind::NestTooDeep) error, never a stack overflow; the node
//! count is bounded by `Limits::max_nodes` as it grows. No part of this module prints, panics
//! on input, or reads a file other than the one it is given, through the [`FileSystem`].
//!
//! As the spec says: every node accepts the editor's `_comment` (never an argument of a profile
//! action), and a time condition whose `since` names no declared timestamp reads that
//! timestamp as never set, so it is the constant `orNeverBeenSet` (`succeedIfNeverBeenSet`).
//!
//! Definitions where `spec/mbt.md` leaves a choice open: an empty `_…Log` message, `setOnEvent`,
//! `exclusiveTo`, `LuaWrapper@onEnter` or `@onExit` counts as absent; of two states with the
//! same name (in any case) a transition goes to the first; a misplaced element in a Priority
//! or StateMachine, a State without `<BehaviorTree>` and a file without `<Root>` are errors; a
//! section appearing twice, a second `<Transitions>` or `<BehaviorTree>` in a State, and other
//! elements in a State are warnings (the first is read, as CryXML's `findChild` finds it).

mod build;
mod kinds;
mod lua;
mod nodes;
mod profile;
mod sections;
mod time;
mod xml;

use std::path::Path;

use btvm::Limits;

use crate::ir::Tree;
use crate::source::{FileSystem, SourceMap};
use crate::syntax::Profile;

/// Whether `tag` is one of MBT's own node types (a profile may not declare it).
pub(crate) fn is_own_tag(tag: &str) -> bool {
    kinds::Kind::own(tag).is_some()
}

/// Loads the MBT tree at `path` through `fs`, with the GameSDK nodes when `profile` says so.
///
/// The file is added to `sources`, so diagnostics can be located even when loading fails. The
/// tree has the dialect [`Mbt`](crate::ir::Dialect::Mbt) with its knobs (lifecycle model,
/// root-finish stop, abort terminate) and one entry, `main`. On failure: the error of each
/// node element that could not be read (its siblings are read on), in document order, then
/// the one that stopped loading, if any (a section's error, a limit).
pub fn load(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    profile: Option<&Profile>,
    sources: &mut SourceMap,
) -> crate::diag::Result<Tree> {
    load_with_warnings(path, fs, limits, profile, sources, &mut Vec::new())
}

/// [`load`], pushing onto `warnings` what CRYENGINE logs while loading the tree anyway (a
/// Parallel mode it does not know, the deprecated `equalTo`, a Case's extra children, text a
/// condition ignores, a bad declaration ending its section, an `exclusiveTo` naming nothing)
/// and what btvm reads where the original is silent (a section twice, extra State elements).
pub fn load_with_warnings(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    profile: Option<&Profile>,
    sources: &mut SourceMap,
    warnings: &mut Vec<crate::diag::Diagnostic>,
) -> crate::diag::Result<Tree> {
    let files = super::files::Files::new(fs, limits, None);
    load_in(path, files, profile, sources, warnings)
}

/// [`load_with_warnings`] within the reads of one load (its root and budgets).
pub(crate) fn load_in(
    path: &Path,
    mut files: super::files::Files,
    profile: Option<&Profile>,
    sources: &mut SourceMap,
    warnings: &mut Vec<crate::diag::Diagnostic>,
) -> crate::diag::Result<Tree> {
    let mut errors = Vec::new();
    match build::load(path, &mut files, profile, sources, warnings, &mut errors) {
        Ok(Some(tree)) => Ok(tree),
        Ok(None) => Err(errors),
        Err(d) => {
            errors.push(d);
            Err(errors)
        }
    }
}
