//! The MBT execution model (lifecycle), written to follow `spec/mbt.md` section 2 line by line:
//! the agent state (2.1), the node lifecycle (2.2), one update of an agent (2.3), events (2.4),
//! every node (2.5) and group scopes (2.6), for the IR kinds of section 3.
//!
//! Per agent: the variables and the `changed` flag, the timestamps, the runtime data of every
//! live node (`AgentState::live`, indexed by node id: `Some` exactly while the node is live) and
//! whether the tree is stopped (`AgentState::halt`). Per run: the group-scope table
//! ([`Scopes`]), owned by the caller and shared by every agent it ticks.
//!
//! In this model `case`, `state` and `logstatus` are transparent: they have no data of their
//! own and are never live themselves (a Priority ticks its case's child, a StateMachine its
//! state's tree, and `logstatus` attaches its messages to its child as MBT's `_startLog`,
//! `_successLog` and `_failureLog` attributes do).
//!
//! This module must stay a plain recursive walk over the IR: it is the oracle the vm and the
//! native code are compared with.
//!
//! The node steps of 2.5 are in `nodes`, events (2.4) in `events`, the group-scope table
//! (2.6) in `scopes`; this file holds the agent state, the lifecycle of 2.2 and 2.3 and the
//! host calls.

mod events;
mod nodes;
mod scopes;
#[cfg(test)]
mod tests;

use btvm::{Halt, Host, ImportKind, Millis, Phase, Status, Value};

use super::{AgentState, Interpreter};
use crate::ir::{CallExpr, Expr, LogStatus, NodeId, NodeKind};

pub(in crate::reference) use scopes::release;
pub use scopes::Scopes;

/// A timestamp's per-agent state (`spec/mbt.md` 2.4, step 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// When it was last set, in the tree's time unit.
    pub time: i64,
    /// It was set at least once.
    pub ever: bool,
    /// It is set and no `exclusiveTo` stamp invalidated it since.
    pub valid: bool,
}

/// The runtime data of a live node (`spec/mbt.md` 2.5). Each variant is zero at init except
/// where the node says otherwise.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NodeData {
    /// Nodes without data of their own (decorators, leaves without state).
    Plain,
    /// Sequence / Selector: the index `i` of the child being run.
    Index(usize),
    /// Parallel: the running mask (every child at init), the counts, and which finished
    /// children succeeded (the compiled engines' state keeps that mask; the counts follow from
    /// it, `reference::blocks`).
    Parallel {
        running: Vec<bool>,
        successes: usize,
        failures: usize,
        succeeded: Vec<bool>,
    },
    /// Loop: finished runs counted so far (`succeeded`, or `failed` for LoopUntilSuccess), and
    /// whether the child's status at the end of the previous update was running.
    Loop { runs: u32, was_running: bool },
    /// Priority: the index of the current case.
    Priority { current: Option<usize> },
    /// StateMachine: the current state and the pending one.
    StateMachine {
        current: usize,
        pending: Option<usize>,
    },
    /// An on-entry guard (IfCondition, RandomGate, IfTime, LuaGate): whether it opened.
    Gate { open: bool },
    /// Wait / Timeout: when the time is up (`None`: never, a negative duration).
    Wait { end: Option<i64> },
    /// WaitForEvent: whether the event arrived while the node was live.
    WaitForEvent { arrived: bool },
    /// GroupScope: whether the agent entered the scope.
    GroupScope { entered: bool },
    /// A host action: whether its last update returned running (so the next call continues
    /// it, and terminating it calls it with phase `exit`).
    Action { running: bool },
}

/// One update of one agent, or one event delivered between ticks.
pub(super) struct Tick<'a, 't> {
    pub interp: &'a Interpreter<'t>,
    pub state: &'a mut AgentState,
    pub host: &'a mut dyn Host,
    pub scopes: &'a mut Scopes,
    pub now: Millis,
    /// `changed` as it was when this update began (`changed_before`, 2.3).
    pub changed_before: bool,
}

impl Tick<'_, '_> {
    /// `now` in the tree's time unit ([`crate::ir::TreeConfig::clock`]): what timers and
    /// timestamps count (hosts are still called with `now` in milliseconds).
    fn time(&self) -> i64 {
        self.now
            .saturating_mul(i64::from(self.interp.tree().config.clock))
    }

    // ---- 2.3 one update of an agent --------------------------------------------------------

    /// One update of the agent whose root is `root` (2.3).
    pub fn update_agent(&mut self, root: NodeId) -> Status {
        // 1. A stopped tree runs nothing.
        if self.state.halt.is_some() {
            return Status::Failure;
        }
        // 2.
        self.changed_before = self.state.changed;
        self.state.changed = false;
        // 3.
        let s = self.tick(root);
        // 4. The root finished: `tick` has terminated it; the tree stops.
        if s != Status::Running {
            self.state.halt = Some(Halt::Stopped);
        }
        s
    }

    /// Terminates the live tree from `root`, innermost first, as CRYENGINE does when it stops
    /// an agent's tree (2.7: the restart of a reset).
    pub fn terminate_tree(&mut self, root: NodeId) {
        self.terminate(root);
    }

    /// `changed_since_last_tick()` (2.3): a variable changed before this update or during it.
    fn changed_since_last_tick(&self) -> bool {
        self.changed_before || self.state.changed
    }

    // ---- 2.2 the node lifecycle ------------------------------------------------------------

    /// `tick(n)`; traced, `n` is entered before and finished after (`spec/semantics.md`
    /// 4.7).
    fn tick(&mut self, id: NodeId) -> Status {
        let agent = self.state.agent;
        self.interp
            .node_event(self.host, agent, id, btvm::NodeEvent::Enter);
        let s = self.tick_body(id);
        self.interp
            .node_event(self.host, agent, id, btvm::NodeEvent::Finish(s));
        s
    }

    /// [`Tick::tick`], untraced.
    fn tick_body(&mut self, id: NodeId) -> Status {
        let node = self.interp.tree.node(id);
        match &node.kind {
            // `logstatus` attaches its messages to its child.
            NodeKind::LogStatus(l) => match node.children.first() {
                Some(&c) => self.tick_logged(c, Some(l)),
                None => Status::Failure,
            },
            // Transparent wrappers (their parents tick through them; kept for completeness).
            NodeKind::Case(_) | NodeKind::State(_) => match node.children.first() {
                Some(&c) => self.tick(c),
                None => Status::Failure,
            },
            _ => self.tick_logged(id, None),
        }
    }

    /// `tick(n)` for a node that is not transparent, with its `_startLog`, `_successLog` and
    /// `_failureLog` messages, if any.
    fn tick_logged(&mut self, id: NodeId, log: Option<&LogStatus>) -> Status {
        if !self.is_live(id) {
            // The start message is logged before the node's own init step.
            if let Some(msg) = log.and_then(|l| l.start.as_deref()) {
                self.log(msg);
            }
            let data = self.fresh_data(id);
            self.set_live(id, Some(data));
            self.init(id);
        }
        let s = self.update(id);
        if s != Status::Running {
            self.terminate_step(id);
            self.set_live(id, None);
        }
        // The success / failure message is logged just after the node's terminate step.
        let msg = match s {
            Status::Success => log.and_then(|l| l.success.as_deref()),
            Status::Failure => log.and_then(|l| l.failure.as_deref()),
            Status::Running => None,
        };
        if let Some(msg) = msg {
            self.log(msg);
        }
        s
    }

    /// `terminate(n)`: if `n` is live, run its terminate step and make it not live.
    fn terminate(&mut self, id: NodeId) {
        let node = self.interp.tree.node(id);
        match node.kind {
            NodeKind::LogStatus(_) | NodeKind::Case(_) | NodeKind::State(_) => {
                if let Some(&c) = node.children.first() {
                    self.terminate(c);
                }
            }
            _ => {
                if self.is_live(id) {
                    self.terminate_step(id);
                    self.set_live(id, None);
                }
            }
        }
    }

    /// Whether `id` is live (a transparent node is live when its child is).
    fn is_live(&self, id: NodeId) -> bool {
        let node = self.interp.tree.node(id);
        match node.kind {
            NodeKind::LogStatus(_) | NodeKind::Case(_) | NodeKind::State(_) => {
                node.children.first().is_some_and(|&c| self.is_live(c))
            }
            _ => self.state.live.get(id.index()).is_some_and(|d| d.is_some()),
        }
    }

    /// The data a node gets when it is made live: zero, except a parallel's running mask.
    fn fresh_data(&self, id: NodeId) -> NodeData {
        let node = self.interp.tree.node(id);
        match &node.kind {
            NodeKind::Sequence(_) | NodeKind::Selector(_) => NodeData::Index(0),
            NodeKind::Parallel(_) => NodeData::Parallel {
                running: vec![true; node.children.len()],
                successes: 0,
                failures: 0,
                succeeded: vec![false; node.children.len()],
            },
            NodeKind::Loop(_) => NodeData::Loop {
                runs: 0,
                was_running: false,
            },
            NodeKind::Priority(_) => NodeData::Priority { current: None },
            NodeKind::StateMachine => NodeData::StateMachine {
                current: 0,
                pending: None,
            },
            NodeKind::Guard(_) => NodeData::Gate { open: false },
            NodeKind::Wait(_) => NodeData::Wait { end: None },
            NodeKind::WaitForEvent(_) => NodeData::WaitForEvent { arrived: false },
            NodeKind::GroupScope(_) => NodeData::GroupScope { entered: false },
            NodeKind::Action(_) => NodeData::Action { running: false },
            _ => NodeData::Plain,
        }
    }

    /// Makes `id` live with `data`, or not live (`None`).
    fn set_live(&mut self, id: NodeId, data: Option<NodeData>) {
        if let Some(slot) = self.state.live.get_mut(id.index()) {
            *slot = data;
        }
    }

    fn data(&self, id: NodeId) -> Option<&NodeData> {
        self.state.live.get(id.index())?.as_ref()
    }

    fn data_mut(&mut self, id: NodeId) -> Option<&mut NodeData> {
        self.state.live.get_mut(id.index())?.as_mut()
    }

    // ---- host calls and expressions --------------------------------------------------------

    fn test(&mut self, e: &Expr) -> bool {
        self.interp.test(self.state, self.host, self.now, e)
    }

    /// Calls an action with `phase`, its arguments evaluated left to right.
    fn action(&mut self, call: &CallExpr, phase: Phase) -> Status {
        self.interp
            .call_action(self.state, self.host, self.now, call, phase)
    }

    /// A `hooks` call: an action with `phase` (status ignored), or a function (value ignored).
    fn hook(&mut self, call: &CallExpr, phase: Phase) {
        let kind = self
            .interp
            .tree
            .imports
            .get(call.import.index())
            .map(|i| i.kind);
        match kind {
            Some(ImportKind::Action) => {
                self.action(call, phase);
            }
            Some(ImportKind::Function) => {
                let mut ctx = self.interp.eval_ctx(self.state, self.now);
                let _: Value = ctx.eval(&Expr::Call(call.clone()), self.host);
            }
            None => {}
        }
    }

    fn log(&mut self, msg: &str) {
        self.host.log(self.state.agent, msg);
    }
}
