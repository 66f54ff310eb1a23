//! Node kinds and their knobs.

use btvm::{ImportId, Status};

use super::expr::{CallExpr, Expr};
use super::tree::{NodeId, SubtreeId};
use crate::source::Span;

/// One node of a [`Tree`](super::Tree).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What the node does.
    pub kind: NodeKind,
    /// The children, in order. How many a kind takes is given by [`NodeKind::arity`].
    pub children: Vec<NodeId>,
    /// An optional name: Drag\[en\]gine rule id, MBT/BST state or node name, Spore decider name.
    pub name: Option<String>,
    /// Where the node came from.
    pub span: Span,
}

/// How a composite finds the child to start from when it is ticked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resume {
    /// Start from the first child on every tick (Unvanquished `selector`; reactive).
    Restart,
    /// Remember the running child's index in per-node state; reset when the node finishes
    /// (MBT Sequence/Selector).
    Remember,
    /// Start from the highest-index child (never child 0) found in the agent's running-nodes
    /// list (Unvanquished `sequence`/`fallback`; needs [`Model::RunningList`](super::Model)).
    RunningList,
    /// The agent's single cursor rests on a leaf; control returns to the composite only when a
    /// child finishes (Drag\[en\]gine; needs [`Model::Cursor`](super::Model)).
    Cursor,
}

/// Knobs of `sequence` and `selector`.
#[derive(Clone, Debug, PartialEq)]
pub struct Composite {
    /// How the composite resumes.
    pub resume: Resume,
    /// Start again at the first child after the last one finishes the way that would end the
    /// composite (Drag\[en\]gine `loop`).
    pub looping: bool,
    /// A condition checked on entry and again whenever a child finishes (Drag\[en\]gine rule
    /// conditions on `sequence`/`choice`); false ends the composite with failure.
    pub cond: Option<Expr>,
}

/// How many children decide a parallel's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quorum {
    /// Every child.
    All,
    /// At least one child.
    Any,
}

/// Knobs of `parallel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Parallel {
    /// How many successes make the parallel succeed (checked before failure).
    pub success: Quorum,
    /// How many failures make it fail.
    pub failure: Quorum,
    /// Return failure at the first failing child without ticking the rest (Unvanquished
    /// `concurrent`); otherwise every running child is ticked (MBT).
    pub stop_on_failure: bool,
    /// Remember finished children and stop ticking them until the parallel finishes (MBT);
    /// otherwise every child is ticked on every tick (Unvanquished).
    pub remember: bool,
}

impl Parallel {
    /// The quorums' verdict on `n` children of which `successes` succeeded and `failures`
    /// failed: success when the success quorum is reached (checked first), failure when the
    /// failure quorum is, else `None` (each model says what that means).
    pub fn outcome(&self, successes: usize, failures: usize, n: usize) -> Option<Status> {
        let reached = |q: Quorum, k: usize| match q {
            Quorum::All => k == n,
            Quorum::Any => k > 0,
        };
        if reached(self.success, successes) {
            Some(Status::Success)
        } else if reached(self.failure, failures) {
            Some(Status::Failure)
        } else {
            None
        }
    }
}

/// When a guard or a priority evaluates its conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardEval {
    /// Every time the node is ticked (Unvanquished `condition`).
    EveryTick,
    /// Once when the node is entered; kept while its child runs (MBT `IfCondition`, gates).
    OnEntry,
    /// When entered and again whenever a tree variable changed since the last tick (MBT
    /// `Priority`).
    OnChange,
}

/// Knobs of `guard` (a condition with one child).
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    /// The condition; false makes the guard fail without ticking the child.
    pub cond: Expr,
    /// When the condition is evaluated.
    pub eval: GuardEval,
}

/// Knobs of `priority`, whose children are `case` nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Priority {
    /// When the cases are re-picked.
    pub repick: GuardEval,
}

/// What makes a state machine change state.
#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    /// An event delivered while the state is current (MBT `Transition onEvent`).
    Event(String),
    /// A condition over the tree variables, checked when the machine is evaluated (BST).
    When(Expr),
}

/// One transition of a `state`.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// What fires it.
    pub on: Trigger,
    /// Index of the target state among the machine's children.
    pub to: u32,
}

/// Knobs of `state` (a child of `statemachine` with one child of its own).
#[derive(Clone, Debug, PartialEq)]
pub struct StateNode {
    /// Outgoing transitions, in order.
    pub transitions: Vec<Transition>,
}

/// How a Spore group picks a child decider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// First accepting decider wins; the active child continues without its Decide being
    /// called, and only higher-priority siblings may interrupt it (hysteresis).
    Prioritized,
    /// Children run one after another.
    Sequential,
    /// A random accepting child (agent PRNG).
    Random,
    /// Highest Decide score wins; ties go to the earlier child.
    Scored,
}

/// A Spore behavior: one action import whose phases are the behavior's functions (`enter` =
/// activate, `continue` = tick, `exit` = deactivate). A function the behavior lacks is not
/// called and counts as true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BehaviorRef {
    /// The action import.
    pub import: ImportId,
    /// The host implements activate.
    pub activate: bool,
    /// The host implements tick.
    pub tick: bool,
    /// The host implements deactivate.
    pub deactivate: bool,
}

/// Knobs of a Spore group decider (children are `decider` nodes, or includes of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    /// The decision policy.
    pub policy: Policy,
    /// A group behavior activated, ticked and deactivated with the group.
    pub behavior: Option<BehaviorRef>,
}

/// A test of a flag word: Spore DecisionFlags / StimuliFlags preconditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlagTest {
    /// The bits tested.
    pub mask: u32,
    /// All bits of the mask (otherwise any bit).
    pub all: bool,
    /// The bits must be set (otherwise clear).
    pub set: bool,
}

/// Preconditions checked before a decider's Decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Precondition {
    /// Only decide once every this many ms since the last Decide call.
    pub every_ms: Option<u32>,
    /// A DecisionFlags test.
    pub decision: Option<FlagTest>,
    /// A StimuliFlags test.
    pub stimuli: Option<FlagTest>,
}

/// Knobs of a Spore `decider` (one child: a group or a behavior leaf).
#[derive(Clone, Debug, PartialEq)]
pub struct Decider {
    /// Preconditions.
    pub pre: Precondition,
    /// The Decide score; `None` means 1.0.
    pub decide: Option<Expr>,
    /// Call this decider's Decide again when its group redecides after a child failed.
    pub decide_on_redecide: bool,
}

/// A status mapping: Unvanquished `return`/`mapStatus`, MBT `SuppressFailure`, Drag\[en\]gine
/// `doNotFail`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StatusMap {
    /// What a child failure becomes.
    pub failure: Status,
    /// What a child success becomes.
    pub success: Status,
    /// What a running child becomes.
    pub running: Status,
}

/// Unvanquished `timer`: a cooldown armed when the child fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cooldown {
    /// The cooldown in milliseconds.
    pub ms: u32,
}

/// MBT `Loop` / `LoopUntilSuccess`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Loop {
    /// How many finished runs end the loop; `None` loops forever.
    pub count: Option<u32>,
    /// The child status that ends the loop at once with that status (`failure` for `Loop`,
    /// `success` for `LoopUntilSuccess`); the other finished status counts a run.
    pub exit_on: Status,
}

/// MBT `GroupScope`: a counter shared by all agents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupScope {
    /// The scope's name.
    pub scope: String,
    /// How many agents may be inside at once.
    pub max_users: u32,
}

/// MBT `LuaWrapper` and the GameSDK wrappers: host calls on entry and on exit.
///
/// Each call names an action import (called with phase `enter` / `exit`, its status ignored)
/// or a function import (its value ignored), with its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Hooks {
    /// Called when the node is entered.
    pub enter: Option<CallExpr>,
    /// Called when the node finishes or is terminated.
    pub exit: Option<CallExpr>,
}

/// MBT `_startLog` / `_successLog` / `_failureLog`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LogStatus {
    /// Logged on entry.
    pub start: Option<String>,
    /// Logged when the child succeeds.
    pub success: Option<String>,
    /// Logged when the child fails.
    pub failure: Option<String>,
}

/// MBT `Wait`/`Timeout`: a timer leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wait {
    /// Duration in the tree's time unit ([`crate::ir::TreeConfig::clock`]); negative never
    /// finishes (MBT quirk).
    pub time: i64,
    /// A random extra duration in `[0, variation]` (the same unit), drawn on entry.
    pub variation: u32,
    /// The status returned when the time is up.
    pub result: Status,
}

/// MBT `SendEvent` / `SendTransitionEvent`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SendEvent {
    /// The event raised on the own agent, synchronously, on entry.
    pub event: String,
    /// What the node returns afterwards (`success`, or `running` forever).
    pub then: Status,
}

/// MBT `WaitForEvent`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WaitForEvent {
    /// The awaited event.
    pub event: String,
    /// Returned when it arrives.
    pub result: Status,
}

/// What a node does. `spec/semantics.md` gives each kind's exact semantics per knob.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    // ---- composites -------------------------------------------------------------------
    /// Ticks children in order until one fails or runs.
    Sequence(Composite),
    /// Ticks children in order until one succeeds or runs (selector / fallback / choice).
    Selector(Composite),
    /// Ticks several children per tick.
    Parallel(Parallel),
    /// Picks the first `case` whose condition holds and runs its child.
    Priority(Priority),
    /// An arm of a `priority` (one child).
    Case(Expr),
    /// A state machine over `state` children; starts in the first.
    StateMachine,
    /// A state of a `statemachine` (one child).
    State(StateNode),
    /// A Spore group decider over `decider` children.
    Group(Group),
    /// A Spore decider (one child: a group or a behavior).
    Decider(Decider),
    // ---- decorators (one child) -------------------------------------------------------
    /// Swaps success and failure; running passes through.
    Invert,
    /// Maps each child status.
    MapStatus(StatusMap),
    /// A cooldown armed on child failure.
    Cooldown(Cooldown),
    /// A condition guarding one child.
    Guard(Guard),
    /// Repeats its child.
    Loop(Loop),
    /// Limits concurrent users across agents.
    GroupScope(GroupScope),
    /// Host calls on entry and exit.
    Hooks(Hooks),
    /// Log messages on entry, success and failure.
    LogStatus(LogStatus),
    // ---- leaves -----------------------------------------------------------------------
    /// Runs a subtree by reference (Unvanquished `behavior`, shared child arrays).
    Include(SubtreeId),
    /// Calls a host action.
    Action(CallExpr),
    /// Success when the expression holds, else failure.
    Condition(Expr),
    /// Always returns the status.
    Const(Status),
    /// Returns running once, then success (Drag\[en\]gine `yield`).
    Yield,
    /// Running until a time is up.
    Wait(Wait),
    /// Running until the expression holds, then success (MBT `MonitorCondition`).
    WaitUntil(Expr),
    /// Raises an event on the own agent.
    SendEvent(SendEvent),
    /// Running until an event arrives.
    WaitForEvent(WaitForEvent),
    /// Logs a message, then success.
    Log(String),
    /// Selects a leaf behavior by name (BST), then success.
    Select(String),
    /// A Spore behavior: activate / tick / deactivate through one action import.
    Behavior(BehaviorRef),
}

/// How many children a kind takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// None.
    Leaf,
    /// Exactly one.
    One,
    /// Any number.
    Many,
}

impl NodeKind {
    /// How many children the kind takes.
    pub fn arity(&self) -> Arity {
        use NodeKind::*;
        match self {
            Sequence(_) | Selector(_) | Parallel(_) | Priority(_) | StateMachine | Group(_) => {
                Arity::Many
            }
            Case(_) | State(_) | Decider(_) | Invert | MapStatus(_) | Cooldown(_) | Guard(_)
            | Loop(_) | GroupScope(_) | Hooks(_) | LogStatus(_) => Arity::One,
            Include(_) | Action(_) | Condition(_) | Const(_) | Yield | Wait(_) | WaitUntil(_)
            | SendEvent(_) | WaitForEvent(_) | Log(_) | Select(_) | Behavior(_) => Arity::Leaf,
        }
    }

    /// The kind's keyword in the canonical syntax.
    pub fn keyword(&self) -> &'static str {
        use NodeKind::*;
        match self {
            Sequence(_) => "sequence",
            Selector(_) => "selector",
            Parallel(_) => "parallel",
            Priority(_) => "priority",
            Case(_) => "case",
            StateMachine => "statemachine",
            State(_) => "state",
            Group(_) => "group",
            Decider(_) => "decider",
            Invert => "invert",
            MapStatus(_) => "map",
            Cooldown(_) => "cooldown",
            Guard(_) => "guard",
            Loop(_) => "loop",
            GroupScope(_) => "groupscope",
            Hooks(_) => "hooks",
            LogStatus(_) => "logstatus",
            Include(_) => "include",
            Action(_) => "action",
            Condition(_) => "condition",
            Const(_) => "const",
            Yield => "yield",
            Wait(_) => "wait",
            WaitUntil(_) => "waituntil",
            SendEvent(_) => "send",
            WaitForEvent(_) => "waitevent",
            Log(_) => "log",
            Select(_) => "select",
            Behavior(_) => "behavior",
        }
    }
}
