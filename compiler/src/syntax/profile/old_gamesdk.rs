//! The GameSDK profile (`spec/mbt.md` section 1.4): the node types CRYENGINE's AI system,
//! CryAction and the GameSDK game module register, which btvm turns into host actions.
//!
//! A profile leaf is an action whose arguments are the element's attributes (named strings, in
//! document order, the `_…Log` attributes left out); a profile wrapper calls its action with
//! phase `enter` when initialised and `exit` when terminated, around its one child. This file
//! only names the nodes; it builds nothing.

use btvm::{Import, ImportKind};

/// The leaves: host actions that may return running.
pub(super) const LEAVES: [&str; 37] = [
    "GoalPipe",
    "LuaBehavior",
    "Bubble",
    "Move",
    "QueryTPS",
    "AdjustCoverStance",
    "SetAlertness",
    "Communicate",
    "Animate",
    "Signal",
    "SendTransitionSignal",
    "Stance",
    "Look",
    "Aim",
    "AimAroundWhileUsingAMachingGun",
    "TurnBody",
    "ClearTargets",
    "StopMovement",
    "CheckIfTargetCanBeReached",
    "ShootFromCover",
    "Shoot",
    "ThrowGrenade",
    "PullDownThreatLevel",
    "TeleportStalker_Deprecated",
    "AnimateFragment",
    "HoldFormation",
    "JoinFormation",
    "Melee",
    "KeepTargetAtADistance",
    "SuppressHitReactions",
    "InflateAgentCollisionRadiusUsingPhysicsTrick",
    "Fly",
    "FlyShoot",
    "WaitAlignedWithAttentionTarget",
    "Hover",
    "FlyAimAtCombatTarget",
    "FlyForceAttentionTarget",
];

/// The wrappers: decorators calling their action on entry and on exit.
pub(super) const WRAPPERS: [&str; 2] = ["AnimationTagWrapper", "SmartObjectStatesWrapper"];

/// What a profile tag is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ProfileNode {
    /// A leaf action.
    Leaf,
    /// A wrapper around one child.
    Wrapper,
}

/// The profile node called exactly `tag`, if any.
pub(super) fn lookup(tag: &str) -> Option<ProfileNode> {
    if LEAVES.contains(&tag) {
        Some(ProfileNode::Leaf)
    } else if WRAPPERS.contains(&tag) {
        Some(ProfileNode::Wrapper)
    } else {
        None
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_matched_exactly() {
        assert_eq!(lookup("Move"), Some(ProfileNode::Leaf));
        assert_eq!(lookup("move"), None);
        assert_eq!(lookup("AnimationTagWrapper"), Some(ProfileNode::Wrapper));
        assert_eq!(lookup("Sequence"), None);
        let mut all: Vec<_> = LEAVES.iter().chain(WRAPPERS.iter()).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), LEAVES.len() + WRAPPERS.len());
    }
}
