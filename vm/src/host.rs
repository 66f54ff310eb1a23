//! The host interface: how a tree calls the game.

use crate::{AgentId, ImportId, Millis, Status, Strings, Value};

/// What an import is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImportKind {
    /// A node-level action: returns a [`Status`]; receives a lifecycle [`Phase`].
    Action,
    /// A function called from a condition expression: returns a [`Value`].
    Function,
}

impl ImportKind {
    /// The keyword used in traces and the canonical syntax.
    pub fn name(self) -> &'static str {
        match self {
            ImportKind::Action => "action",
            ImportKind::Function => "function",
        }
    }
}

/// One entry of an import table: a name the tree calls and the host must bind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Import {
    /// The name as the tree spells it (after any case folding the dialect applies).
    pub name: String,
    /// Action or function.
    pub kind: ImportKind,
    /// Fewest arguments a call may pass.
    pub min_args: u8,
    /// Most arguments a call may pass.
    pub max_args: u8,
    /// Whether the action may return [`Status::Running`] (Unvanquished's "long-running"
    /// actions); informational for hosts and checkers.
    pub long_running: bool,
    /// Running-list model: the outcomes on which the action claims the current-action slot
    /// itself (`spec/semantics.md` 4.1). Ignored by every other model and for functions.
    pub claims: SlotClaims,
    /// The source of a script import (MBT's Lua snippets, named `lua#K`): the host compiles
    /// it once, when it binds the import. `None` for ordinary imports.
    pub script: Option<String>,
}

/// The outcomes of an action call on which the action claims the running-list model's
/// current-action slot (Unvanquished: the action sets `botMind->currentNode` to itself).
///
/// A claim is what makes the action's next call a `continue`: a claiming call that returns
/// running keeps the slot; one that finishes releases it at once (the evaluator clears the slot
/// of a node that finishes), so a claim on a finished outcome empties the slot, whoever held it
/// before. A call whose outcome the action does not claim on leaves the slot as it was. The
/// default, [`SlotClaims::RUNNING`], is the generic rule: an action holds the slot while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotClaims(u8);

impl SlotClaims {
    /// Never claims (Unvanquished `moveToGoal` and every short action).
    pub const NONE: Self = Self(0);
    /// Claims when it returns success.
    pub const SUCCESS: Self = Self(1);
    /// Claims when it returns failure.
    pub const FAILURE: Self = Self(2);
    /// Claims when it returns running (the default).
    pub const RUNNING: Self = Self(4);
    /// Every bit a claim set may have.
    pub const ALL: Self = Self(7);

    /// The set holding only `status`.
    pub const fn of(status: Status) -> Self {
        match status {
            Status::Success => Self::SUCCESS,
            Status::Failure => Self::FAILURE,
            Status::Running => Self::RUNNING,
        }
    }

    /// Both sets' outcomes.
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Whether a call returning `status` claims the slot.
    #[inline(always)]
    pub const fn contains(self, status: Status) -> bool {
        self.0 & Self::of(status).0 != 0
    }

    /// The set as bits (success 1, failure 2, running 4), as program files store it.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The set with these bits, or `None` if a bit beyond [`SlotClaims::ALL`] is set.
    pub const fn from_bits(bits: u8) -> Option<Self> {
        if bits & !Self::ALL.0 == 0 {
            Some(Self(bits))
        } else {
            None
        }
    }

    /// The outcomes in the set, in the order success, failure, running.
    pub fn statuses(self) -> impl Iterator<Item = Status> {
        [Status::Success, Status::Failure, Status::Running]
            .into_iter()
            .filter(move |&s| self.contains(s))
    }
}

impl Default for SlotClaims {
    fn default() -> Self {
        Self::RUNNING
    }
}

/// The lifecycle phase of an action call, as the dialect defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The action is entered: it was not the running action before this call.
    Enter,
    /// The action continues: it returned running last time and is ticked again.
    Continue,
    /// The action is being terminated (aborted or finished, in dialects with terminate calls);
    /// its result is ignored.
    Exit,
}

impl Phase {
    /// The lower-case name used in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Enter => "enter",
            Phase::Continue => "continue",
            Phase::Exit => "exit",
        }
    }
}

/// One call from a tree into its host.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Call<'a> {
    /// The agent whose tree makes the call.
    pub agent: AgentId,
    /// Which import is called.
    pub import: ImportId,
    /// The lifecycle phase (always [`Phase::Enter`] for functions).
    pub phase: Phase,
    /// The evaluated arguments.
    pub args: &'a [Value],
    /// The time of the current tick.
    pub now: Millis,
    /// The strings that [`Value::Str`] arguments refer to.
    pub strings: &'a Strings,
}

impl<'a> Call<'a> {
    /// Builds a call record.
    pub fn new(
        agent: AgentId,
        import: ImportId,
        phase: Phase,
        args: &'a [Value],
        now: Millis,
        strings: &'a Strings,
    ) -> Self {
        Call {
            agent,
            import,
            phase,
            args,
            now,
            strings,
        }
    }
}

/// What a node did, in a node-level trace ([`Host::node`]): the tick's walk reached it, or it
/// returned a status to its parent (running included). What *entered* and *finished* mean
/// in each execution model is defined in `spec/semantics.md` ("Node-level traces").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeEvent {
    /// The node was entered.
    Enter,
    /// The node finished with this status.
    Finish(Status),
}

/// The game side of a tree: every action and condition function a tree names is answered here.
///
/// Hosts bind import names to their own functions once, at load, and dispatch on
/// [`Call::import`]. Host calls are the observable behaviour of a tree: two engines are
/// equivalent when they make the same calls in the same order with the same arguments.
pub trait Host {
    /// Binds one import, once, when a program is loaded for this host (see
    /// [`Program::bind`](crate::Program::bind)). Return `false` if the host has no function of
    /// that name and kind; loading then fails with an error naming it. The default accepts every
    /// import.
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        let _ = (id, import);
        true
    }
    /// Runs an action and returns its status.
    fn action(&mut self, call: &Call<'_>) -> Status;
    /// Evaluates a condition function.
    fn function(&mut self, call: &Call<'_>) -> Value;
    /// Whether the host has import `id` right now. Asked at run time by dialects that look
    /// names up on every use (Drag\[en\]gine: a missing action fails, a missing condition counts
    /// as missing for its rule's condition mode); never asked for other dialects. The default
    /// has every import.
    fn available(&mut self, id: ImportId) -> bool {
        let _ = id;
        true
    }
    /// Receives a message a tree logs (MBT `Log` nodes and `_startLog`/`_successLog`/
    /// `_failureLog` attributes). The default drops it.
    fn log(&mut self, agent: AgentId, message: &str) {
        let _ = (agent, message);
    }
    /// Is told the behaviour a selection tree (BST) selected for `agent`, when it changes;
    /// `""` when the tree selects no leaf. The default ignores it.
    fn select(&mut self, agent: AgentId, behavior: &str) {
        let _ = (agent, behavior);
    }
    /// Is told that `agent`'s tree is about to be ticked: called once per agent and tick,
    /// before any other call of that tick, by every engine's tick (the vm, native code and
    /// the reference interpreter; [`Batch::tick`](crate::Batch::tick) and
    /// [`Batch::par_tick`](crate::Batch::par_tick) agent by agent, in the same loop as the
    /// ticks), never for events. A host that updates its agents before they think (senses,
    /// timers) does it here rather than in a pass of its own over every agent, so each agent's
    /// data is brought into the cache once per tick. The default does nothing.
    fn before_tick(&mut self, agent: AgentId) {
        let _ = agent;
    }
    /// Is told a node-level trace event of `agent`'s tree: `node` (an index into the
    /// program's node table, [`Program::nodes`](crate::Program::nodes); the reference
    /// interpreter's IR arena index, the same numbering) was entered or finished. Only a
    /// program lowered with tracing on makes these calls (an ordinary program holds no
    /// instruction that would), so a host that never asks for traces pays nothing. The default
    /// ignores them.
    fn node(&mut self, agent: AgentId, node: u32, event: NodeEvent) {
        let _ = (agent, node, event);
    }
}

/// A host borrowed mutably is a host: every method forwards to it. This lets a caller hand
/// [`Batch::par_tick`](crate::Batch::par_tick)'s shards hosts it keeps between ticks
/// (`|_| hosts.next()...` over `iter_mut()`), bound once.
impl<H: Host + ?Sized> Host for &mut H {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        (**self).bind_import(id, import)
    }
    fn action(&mut self, call: &Call<'_>) -> Status {
        (**self).action(call)
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        (**self).function(call)
    }
    fn available(&mut self, id: ImportId) -> bool {
        (**self).available(id)
    }
    fn log(&mut self, agent: AgentId, message: &str) {
        (**self).log(agent, message);
    }
    fn select(&mut self, agent: AgentId, behavior: &str) {
        (**self).select(agent, behavior);
    }
    fn before_tick(&mut self, agent: AgentId) {
        (**self).before_tick(agent);
    }
    fn node(&mut self, agent: AgentId, node: u32, event: NodeEvent) {
        (**self).node(agent, node, event);
    }
}
