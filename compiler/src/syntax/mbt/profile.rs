//! Game-registered MBT nodes (`spec/mbt.md` section 1.4): the lookup of a tag in the load's
//! profile (`syntax::profile::MbtNodes`, e.g. the built-in `gamesdk` profile's CRYENGINE AI,
//! CryAction and GameSDK nodes) and the host action such a node calls.
//!
//! A profile leaf is an action whose arguments are the element's attributes (named strings, in
//! document order, the `_…Log` attributes left out); a profile wrapper calls its action with
//! phase `enter` when initialised and `exit` when terminated, around its one child. This file
//! only looks tags up; it builds nothing and holds no names (the profiles do).

use btvm::{Import, ImportKind};

pub(super) use crate::syntax::profile::MbtNode as ProfileNode;
use crate::syntax::profile::{MbtNodes, Profile};

/// The node called exactly `tag` in `nodes`, if any.
pub(super) fn lookup(nodes: &MbtNodes, tag: &str) -> Option<ProfileNode> {
    nodes.lookup(tag)
}

/// Whether `tag` is a node of the built-in `gamesdk` profile (to hint at it when no profile
/// with MBT nodes is loaded).
pub(super) fn in_gamesdk(tag: &str) -> bool {
    Profile::builtin("gamesdk")
        .and_then(|p| p.mbt().map(|n| n.lookup(tag).is_some()))
        .unwrap_or(false)
}

/// The action import of a profile node: any argument count a call can have, may run.
pub(super) fn import(tag: &str) -> Import {
    Import {
        name: tag.to_string(),
        kind: ImportKind::Action,
        min_args: 0,
        max_args: 255,
        long_running: true,
        claims: btvm::SlotClaims::default(),
        script: None,
    }
}
