//! The MBT node types: which tags exist (the core, Lua and group nodes of `spec/mbt.md`
//! section 2.5, plus the GameSDK profile's), the attributes each accepts and how many children
//! each takes. This file is a table; it builds nothing.

use super::profile::{self, ProfileNode};
use crate::syntax::profile::MbtNodes;

/// The attributes every node accepts: status log messages.
pub(super) const LOG_ATTRS: [&str; 3] = ["_startLog", "_successLog", "_failureLog"];

/// The editor's comment, which every node accepts and nothing reads (not even a profile
/// node's arguments).
pub(super) const COMMENT: &str = "_comment";

/// Most children of a Sequence or Selector (their `uint8` index: `> 255` is refused).
pub(super) const MAX_CHILDREN: usize = 255;

/// Most children of a Parallel (the bits of its running mask).
/// Most cases of a Priority and states of a StateMachine: `Priority::LoadFromXml` and
/// `StateMachine::LoadFromXml` (`BehaviorTreeNodes_Core.cpp`, 8b63f61c) refuse a child count
/// `>= 255`, the largest `uint8` index.
pub(super) const MAX_CASES: usize = 254;

pub(super) const MAX_PARALLEL: usize = 32;

/// How many child nodes a type takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// At least one and at most this many.
    Composite(usize),
    /// Exactly one.
    Decorator,
    /// None.
    Leaf,
}

/// A node type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Sequence,
    Selector,
    Parallel,
    Loop,
    LoopUntilSuccess,
    Priority,
    StateMachine,
    SendEvent,
    SendTransitionEvent,
    IfCondition,
    AssertCondition,
    MonitorCondition,
    RandomGate,
    Timeout,
    Wait,
    WaitForEvent,
    IfTime,
    WaitUntilTime,
    AssertTime,
    Fail,
    Halt,
    Breakpoint,
    SuppressFailure,
    Log,
    Graft,
    ExecuteLua,
    AssertLua,
    LuaGate,
    LuaWrapper,
    GroupScope,
    /// A GameSDK node (only under the profile).
    Profile(ProfileNode),
}

/// What a tag names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lookup {
    /// A node type available here.
    Found(Kind),
    /// A GameSDK node, but the profile is off.
    NeedsProfile,
    /// Nothing.
    Unknown,
}

impl Kind {
    /// The type called exactly `tag`, with or without the GameSDK profile.
    pub fn lookup(tag: &str, nodes: Option<&MbtNodes>) -> Lookup {
        if let Some(kind) = Kind::own(tag) {
            return Lookup::Found(kind);
        }
        match nodes.and_then(|n| profile::lookup(n, tag)) {
            Some(p) => Lookup::Found(Kind::Profile(p)),
            None if nodes.is_none() && profile::in_gamesdk(tag) => Lookup::NeedsProfile,
            None => Lookup::Unknown,
        }
    }

    /// MBT's own node type called exactly `tag` (no profile consulted).
    pub fn own(tag: &str) -> Option<Kind> {
        use Kind::*;
        Some(match tag {
            "Sequence" => Sequence,
            "Selector" => Selector,
            "Parallel" => Parallel,
            "Loop" => Loop,
            "LoopUntilSuccess" => LoopUntilSuccess,
            "Priority" => Priority,
            "StateMachine" => StateMachine,
            "SendEvent" => SendEvent,
            "SendTransitionEvent" => SendTransitionEvent,
            "IfCondition" => IfCondition,
            "AssertCondition" => AssertCondition,
            "MonitorCondition" => MonitorCondition,
            "RandomGate" => RandomGate,
            "Timeout" => Timeout,
            "Wait" => Wait,
            "WaitForEvent" => WaitForEvent,
            "IfTime" => IfTime,
            "WaitUntilTime" => WaitUntilTime,
            "AssertTime" => AssertTime,
            "Fail" => Fail,
            "Halt" => Halt,
            "Breakpoint" => Breakpoint,
            "SuppressFailure" => SuppressFailure,
            "Log" => Log,
            "Graft" => Graft,
            "ExecuteLua" => ExecuteLua,
            "AssertLua" => AssertLua,
            "LuaGate" => LuaGate,
            "LuaWrapper" => LuaWrapper,
            "GroupScope" => GroupScope,
            _ => return None,
        })
    }

    /// The attributes the type accepts besides [`LOG_ATTRS`] and [`COMMENT`] (`None`: any, for
    /// profile nodes, whose attributes are their arguments).
    pub fn attrs(self) -> Option<&'static [&'static str]> {
        use Kind::*;
        const TIME: [&str; 4] = ["since", "isMoreThan", "isLessThan", "orNeverBeenSet"];
        Some(match self {
            Parallel => &["successMode", "failureMode"],
            Loop => &["count"],
            LoopUntilSuccess => &["attemptCount"],
            SendEvent | SendTransitionEvent => &["name"],
            IfCondition => &["condition", "equalTo"],
            AssertCondition | MonitorCondition => &["condition"],
            RandomGate => &["opensWithChance"],
            Timeout => &["duration"],
            Wait => &["duration", "variation"],
            WaitForEvent => &["name", "result"],
            IfTime | AssertTime => &TIME,
            WaitUntilTime => &["since", "isMoreThan", "isLessThan", "succeedIfNeverBeenSet"],
            Log => &["message"],
            ExecuteLua | AssertLua | LuaGate => &["code"],
            LuaWrapper => &["onEnter", "onExit"],
            GroupScope => &["name", "allowedConcurrentUsers"],
            Profile(_) => return None,
            Sequence | Selector | Priority | StateMachine | Fail | Halt | Breakpoint
            | SuppressFailure | Graft => &[],
        })
    }

    /// How many children the type takes.
    /// Whether the node reads `_startLog`, `_successLog` and `_failureLog`: its
    /// `LoadFromXml` reaches `Node::LoadFromXml`
    /// (`Code/CryEngine/CryCommon/CryAISystem/BehaviorTree/Node.h`), directly or through
    /// `Decorator::LoadChildFromXml` (`Decorator.h`), which calls it. WaitUntilTime,
    /// AssertTime, Log and StateMachine override it without either
    /// (`BehaviorTreeNodes_Core.cpp`, commit 8b63f61c).
    pub fn reads_logs(self) -> bool {
        use Kind::*;
        !matches!(self, WaitUntilTime | AssertTime | Log | StateMachine)
    }

    pub fn shape(self) -> Shape {
        use Kind::*;
        match self {
            Sequence | Selector => Shape::Composite(MAX_CHILDREN),
            Priority | StateMachine => Shape::Composite(MAX_CASES),
            Parallel => Shape::Composite(MAX_PARALLEL),
            Loop
            | LoopUntilSuccess
            | IfCondition
            | RandomGate
            | IfTime
            | SuppressFailure
            | LuaGate
            | LuaWrapper
            | GroupScope
            | Profile(ProfileNode::Wrapper) => Shape::Decorator,
            SendEvent
            | SendTransitionEvent
            | AssertCondition
            | MonitorCondition
            | Timeout
            | Wait
            | WaitForEvent
            | WaitUntilTime
            | AssertTime
            | Fail
            | Halt
            | Breakpoint
            | Log
            | Graft
            | ExecuteLua
            | AssertLua
            | Profile(ProfileNode::Leaf) => Shape::Leaf,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_depends_on_the_profile() {
        let sdk = crate::syntax::Profile::builtin("gamesdk").unwrap();
        let sdk = sdk.mbt();
        assert_eq!(Kind::lookup("Wait", None), Lookup::Found(Kind::Wait));
        assert_eq!(Kind::lookup("wait", sdk), Lookup::Unknown);
        assert_eq!(Kind::lookup("Move", None), Lookup::NeedsProfile);
        assert_eq!(Kind::lookup("move", sdk), Lookup::Unknown);
        assert_eq!(
            Kind::lookup("AnimationTagWrapper", sdk),
            Lookup::Found(Kind::Profile(ProfileNode::Wrapper))
        );
        assert_eq!(
            Kind::lookup("Move", sdk),
            Lookup::Found(Kind::Profile(ProfileNode::Leaf))
        );
        assert_eq!(Kind::Parallel.shape(), Shape::Composite(32));
        assert_eq!(
            Kind::Profile(ProfileNode::Wrapper).shape(),
            Shape::Decorator
        );
        assert_eq!(Kind::Profile(ProfileNode::Leaf).attrs(), None);
    }
}
