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

use std::collections::{BTreeMap, BTreeSet};

use btvm::{AgentId, Call, Halt, Host, ImportKind, Millis, Phase, Status, Value};

use super::eval::EvalCtx;
use super::{AgentState, Interpreter};
use crate::ir::{
    CallExpr, Expr, LogStatus, Loop, NodeId, NodeKind, Parallel, Quorum, Tree, Trigger,
};

/// The group-scope tables of one run (`spec/mbt.md` 2.6), as CRYENGINE's AI groups keep them
/// (`CAIGroup::m_groupScopes`, `CryAISystem/AIGroup.h`, 8b63f61c): per AI group, per scope id
/// (the CRC-32 of the lower-cased name, [`btvm::scope_id`]), the **set** of agents that are
/// members; and each agent's AI group (0 until set). Every agent ticked through one table
/// competes for the scopes of its group; agents are ticked in agent order, so the outcome is
/// deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes {
    members: BTreeMap<(u32, u32), BTreeSet<AgentId>>,
    groups: BTreeMap<AgentId, u32>,
}

impl Scopes {
    /// An empty table: every agent in group 0, no agent inside any scope.
    pub fn new() -> Scopes {
        Scopes::default()
    }

    /// How many agents of `group` are members of `scope` (`CAIGroup::GetAmountOfActorsInScope`).
    pub fn users(&self, group: u32, scope: &str) -> u32 {
        self.count(group, btvm::scope_id(scope))
    }

    fn count(&self, group: u32, id: u32) -> u32 {
        self.members
            .get(&(group, id))
            .map_or(0, |m| u32::try_from(m.len()).unwrap_or(u32::MAX))
    }

    /// The agent's AI group.
    pub fn group(&self, agent: AgentId) -> u32 {
        self.groups.get(&agent).copied().unwrap_or(0)
    }

    /// Puts the agent in AI group `group`. A change first takes the agent out of every scope
    /// of its old group (`CAIGroup::LeaveAllGroupScopesForActor`, which `CAIGroup::RemoveMember`
    /// runs); its GroupScope nodes keep their gates (**Definition**, 2.6).
    pub fn set_group(&mut self, agent: AgentId, group: u32) {
        let old = self.group(agent);
        if old == group {
            return;
        }
        for ((g, _), m) in self.members.iter_mut() {
            if *g == old {
                m.remove(&agent);
            }
        }
        self.members.retain(|_, m| !m.is_empty());
        self.groups.insert(agent, group);
    }

    /// `CAIGroup::EnterGroupScope`: refused when `max` or more agents are members already
    /// (the agent itself included); else the agent is inserted into the set (a member stays
    /// one member). Whether it entered.
    fn try_enter(&mut self, agent: AgentId, scope: &str, max: u32) -> bool {
        let key = (self.group(agent), btvm::scope_id(scope));
        if self.count(key.0, key.1) >= max {
            return false;
        }
        self.members.entry(key).or_default().insert(agent);
        true
    }

    /// `CAIGroup::LeaveGroupScope`: the agent is no longer a member (nothing if it was not).
    fn leave(&mut self, agent: AgentId, scope: &str) {
        let key = (self.group(agent), btvm::scope_id(scope));
        if let Some(m) = self.members.get_mut(&key) {
            m.remove(&agent);
            if m.is_empty() {
                self.members.remove(&key);
            }
        }
    }
}

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
    /// Parallel: the running mask (every child at init) and the counts.
    Parallel {
        running: Vec<bool>,
        successes: usize,
        failures: usize,
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

    /// `tick(n)`.
    fn tick(&mut self, id: NodeId) -> Status {
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

    // ---- 2.5 the nodes: init ---------------------------------------------------------------

    /// The node's init step (the node is already live, with fresh data).
    fn init(&mut self, id: NodeId) {
        let tree = self.interp.tree;
        match &tree.node(id).kind {
            // IfCondition, RandomGate, IfTime, LuaGate: decide the gate once.
            NodeKind::Guard(g) => {
                let open = self.test(&g.cond);
                if let Some(NodeData::Gate { open: o }) = self.data_mut(id) {
                    *o = open;
                }
            }
            // Wait / Timeout: a negative duration never starts the timer.
            NodeKind::Wait(w) if w.time >= 0 => {
                let v = if w.variation == 0 {
                    0
                } else {
                    let r = self.state.rng.next_f64();
                    let var = f64::from(w.variation);
                    // `as` saturates; the `min` keeps an r close to 1 inside the range.
                    ((r * (var + 1.0)).floor() as i64).min(i64::from(w.variation))
                };
                let end = self.time().saturating_add(w.time).saturating_add(v);
                if let Some(NodeData::Wait { end: e }) = self.data_mut(id) {
                    *e = Some(end);
                }
            }
            // SendEvent / SendTransitionEvent: deliver the event, synchronously.
            NodeKind::SendEvent(e) => self.deliver(&e.event),
            // GroupScope: enter if fewer than the limit hold it.
            NodeKind::GroupScope(g) => {
                let entered = self
                    .scopes
                    .try_enter(self.state.agent, &g.scope, g.max_users);
                if let Some(NodeData::GroupScope { entered: e }) = self.data_mut(id) {
                    *e = entered;
                }
            }
            // LuaWrapper / GameSDK wrappers: the enter call.
            NodeKind::Hooks(h) => {
                if let Some(call) = &h.enter {
                    self.hook(call, Phase::Enter);
                }
            }
            _ => {}
        }
    }

    // ---- 2.5 the nodes: update -------------------------------------------------------------

    /// The node's update step.
    fn update(&mut self, id: NodeId) -> Status {
        let tree = self.interp.tree;
        let node = tree.node(id);
        let children = &node.children;
        let child = children.first().copied();
        match &node.kind {
            NodeKind::Sequence(_) => self.list(id, children, Status::Success),
            NodeKind::Selector(_) => self.list(id, children, Status::Failure),
            NodeKind::Parallel(p) => self.parallel(id, p, children),
            NodeKind::Loop(l) => match child {
                Some(c) => self.repeat(id, l, c),
                None => Status::Failure,
            },
            NodeKind::Priority(_) => self.priority(id, children),
            NodeKind::StateMachine => self.state_machine(id, children),
            NodeKind::Guard(_) => {
                let open = matches!(self.data(id), Some(NodeData::Gate { open: true }));
                match child {
                    Some(c) if open => self.tick(c),
                    _ => Status::Failure,
                }
            }
            NodeKind::MapStatus(m) => match child.map(|c| self.tick(c)) {
                Some(Status::Success) => m.success,
                Some(Status::Failure) => m.failure,
                Some(Status::Running) => m.running,
                None => Status::Failure,
            },
            NodeKind::GroupScope(_) => {
                let entered = matches!(self.data(id), Some(NodeData::GroupScope { entered: true }));
                match child {
                    Some(c) if entered => self.tick(c),
                    _ => Status::Failure,
                }
            }
            NodeKind::Hooks(_) => match child {
                Some(c) => self.tick(c),
                None => Status::Failure,
            },
            NodeKind::Action(call) => {
                let running = matches!(self.data(id), Some(NodeData::Action { running: true }));
                let phase = if running {
                    Phase::Continue
                } else {
                    Phase::Enter
                };
                let s = self.action(call, phase);
                if let Some(NodeData::Action { running }) = self.data_mut(id) {
                    *running = s == Status::Running;
                }
                s
            }
            NodeKind::Condition(e) => {
                if self.test(e) {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            NodeKind::WaitUntil(e) => {
                if self.test(e) {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            NodeKind::Const(s) => *s,
            NodeKind::Wait(w) => match self.data(id) {
                Some(NodeData::Wait { end: Some(end) }) if self.time() >= *end => w.result,
                _ => Status::Running,
            },
            NodeKind::SendEvent(e) => e.then,
            NodeKind::WaitForEvent(w) => match self.data(id) {
                Some(NodeData::WaitForEvent { arrived: true }) => w.result,
                _ => Status::Running,
            },
            NodeKind::Log(msg) => {
                self.log(msg);
                Status::Success
            }
            // `check` rejected every other kind; transparent kinds never get here.
            _ => Status::Failure,
        }
    }

    /// Sequence (`go_on` = success) and Selector (`go_on` = failure): loop { `s = tick(c[i])`;
    /// if `s` is not `go_on`, return it; `i += 1`; past the end, return `go_on` }. No children:
    /// `go_on` (`spec/semantics.md` 3.1).
    fn list(&mut self, id: NodeId, children: &[NodeId], go_on: Status) -> Status {
        loop {
            let i = match self.data(id) {
                Some(NodeData::Index(i)) => *i,
                _ => 0,
            };
            let Some(&c) = children.get(i) else {
                return go_on;
            };
            let s = self.tick(c);
            if s != go_on {
                return s;
            }
            if let Some(NodeData::Index(i)) = self.data_mut(id) {
                *i += 1;
            }
            if i + 1 == children.len() {
                return go_on;
            }
        }
    }

    /// Parallel: tick every child whose mask bit is set, in order (even after a failure);
    /// a finished child clears its bit and is counted; then the quorums, success first. The
    /// counts are kept across updates (all/all with mixed outcomes runs forever). No children:
    /// success (`spec/semantics.md` 3.1).
    fn parallel(&mut self, id: NodeId, p: &Parallel, children: &[NodeId]) -> Status {
        if children.is_empty() {
            return Status::Success;
        }
        for (i, &c) in children.iter().enumerate() {
            let set = match self.data(id) {
                Some(NodeData::Parallel { running, .. }) => {
                    running.get(i).copied().unwrap_or(false)
                }
                _ => false,
            };
            if !set {
                continue;
            }
            let s = self.tick(c);
            if s != Status::Running {
                if let Some(NodeData::Parallel {
                    running,
                    successes,
                    failures,
                }) = self.data_mut(id)
                {
                    if let Some(bit) = running.get_mut(i) {
                        *bit = false;
                    }
                    if s == Status::Success {
                        *successes += 1;
                    } else {
                        *failures += 1;
                    }
                }
            }
        }
        let (successes, failures) = match self.data(id) {
            Some(NodeData::Parallel {
                successes,
                failures,
                ..
            }) => (*successes, *failures),
            _ => (0, 0),
        };
        let n = children.len();
        let reached = |q: Quorum, k: usize| match q {
            Quorum::All => k == n,
            Quorum::Any => k > 0,
        };
        if reached(p.success, successes) {
            Status::Success
        } else if reached(p.failure, failures) {
            Status::Failure
        } else {
            Status::Running
        }
    }

    /// Loop / LoopUntilSuccess (`exit_on` = failure / success; the other finished status
    /// counts a run): `s = tick(c)`; a counted status ends the loop with it once the count is
    /// reached, else counts the run and, if the child's status at the end of the previous
    /// update was running, ticks it again at once (that second status is not counted). Then
    /// `was_running = (s == R)`; return the exit status if `s` is it, else running.
    fn repeat(&mut self, id: NodeId, l: &Loop, c: NodeId) -> Status {
        let (runs, was_running) = match self.data(id) {
            Some(NodeData::Loop { runs, was_running }) => (*runs, *was_running),
            _ => (0, false),
        };
        let mut s = self.tick(c);
        if s != Status::Running && s != l.exit_on {
            if l.count.is_some_and(|count| runs.saturating_add(1) >= count) {
                return s;
            }
            if let Some(NodeData::Loop { runs, .. }) = self.data_mut(id) {
                *runs = runs.saturating_add(1);
            }
            if was_running {
                s = self.tick(c);
            }
        }
        if let Some(NodeData::Loop { was_running, .. }) = self.data_mut(id) {
            *was_running = s == Status::Running;
        }
        if s == l.exit_on {
            s
        } else {
            Status::Running
        }
    }

    /// Priority: (re)pick on entry and when a variable changed since the last tick; no case
    /// holds → failure; a different pick terminates the old child. Then tick the current case's
    /// child.
    fn priority(&mut self, id: NodeId, cases: &[NodeId]) -> Status {
        let current = match self.data(id) {
            Some(NodeData::Priority { current }) => *current,
            _ => None,
        };
        let mut current = current;
        if current.is_none() || self.changed_since_last_tick() {
            let mut pick = None;
            for (k, &case) in cases.iter().enumerate() {
                if let NodeKind::Case(cond) = &self.interp.tree.node(case).kind {
                    if self.test(cond) {
                        pick = Some(k);
                        break;
                    }
                }
            }
            let Some(pick) = pick else {
                return Status::Failure;
            };
            if current != Some(pick) {
                if let Some(old) = current.and_then(|k| cases.get(k)) {
                    self.terminate(*old);
                }
                current = Some(pick);
                if let Some(NodeData::Priority { current: c }) = self.data_mut(id) {
                    *c = Some(pick);
                }
            }
        }
        match current.and_then(|k| cases.get(k)) {
            Some(&case) => self.tick(case),
            None => Status::Failure,
        }
    }

    /// StateMachine: a pending transition terminates the current state's tree and makes the
    /// pending state current; then tick the current state's tree.
    fn state_machine(&mut self, id: NodeId, states: &[NodeId]) -> Status {
        let (mut current, pending) = match self.data(id) {
            Some(NodeData::StateMachine { current, pending }) => (*current, *pending),
            _ => (0, None),
        };
        if let Some(to) = pending {
            if let Some(&old) = states.get(current) {
                self.terminate(old);
            }
            current = to;
            if let Some(NodeData::StateMachine {
                current: c,
                pending,
            }) = self.data_mut(id)
            {
                *c = to;
                *pending = None;
            }
        }
        match states.get(current) {
            Some(&state) => self.tick(state),
            None => Status::Failure,
        }
    }

    // ---- 2.5 the nodes: terminate ----------------------------------------------------------

    /// The node's terminate step: composites and decorators terminate their live children
    /// first, then do their own part.
    fn terminate_step(&mut self, id: NodeId) {
        let tree = self.interp.tree;
        let node = tree.node(id);
        let children = &node.children;
        let data = self.data(id).cloned();
        match (&node.kind, data) {
            (NodeKind::Sequence(_) | NodeKind::Selector(_), Some(NodeData::Index(i))) => {
                if let Some(&c) = children.get(i) {
                    self.terminate(c);
                }
            }
            (NodeKind::Parallel(_), Some(NodeData::Parallel { running, .. })) => {
                for (&c, set) in children.iter().zip(running) {
                    if set {
                        self.terminate(c);
                    }
                }
            }
            (NodeKind::Priority(_), Some(NodeData::Priority { current })) => {
                if let Some(&case) = current.and_then(|k| children.get(k)) {
                    self.terminate(case);
                }
            }
            (NodeKind::StateMachine, Some(NodeData::StateMachine { current, .. })) => {
                if let Some(&state) = children.get(current) {
                    self.terminate(state);
                }
            }
            (NodeKind::GroupScope(g), Some(NodeData::GroupScope { entered })) => {
                for &c in children {
                    self.terminate(c);
                }
                if entered {
                    self.scopes.leave(self.state.agent, &g.scope);
                }
            }
            (NodeKind::Hooks(h), _) => {
                for &c in children {
                    self.terminate(c);
                }
                if let Some(call) = &h.exit {
                    self.hook(call, Phase::Exit);
                }
            }
            // An aborted running action is told.
            (NodeKind::Action(call), Some(NodeData::Action { running: true })) => {
                self.action(call, Phase::Exit);
            }
            // Loop, guards, SuppressFailure and other decorators: terminate the child.
            _ => {
                for &c in children {
                    self.terminate(c);
                }
            }
        }
    }

    // ---- 2.4 events ------------------------------------------------------------------------

    /// Delivers event `event` to the agent (2.4): signal bindings, then timestamps, then the
    /// live nodes. A stopped tree ignores it.
    pub fn deliver(&mut self, event: &str) {
        if self.state.halt.is_some() {
            return;
        }
        let tree = self.interp.tree;
        // 1. Signal bindings, in file order, each on the variables as they are now.
        for sig in tree.signals.iter().filter(|s| s.event == event) {
            let value = self.test(&sig.value);
            self.state.set_var(sig.var.0 as usize, value);
        }
        // 2. Timestamps: every one set on the event is stamped, then the ones they are
        // exclusive to are invalidated (so a stamp of this event can be invalidated by another
        // of it, whatever their file order).
        let time = self.time();
        let set_on = |ts: &&crate::ir::TimestampDecl| ts.set_on.as_deref() == Some(event);
        for (k, _) in tree
            .timestamps
            .iter()
            .enumerate()
            .filter(|(_, ts)| set_on(ts))
        {
            if let Some(stamp) = self.state.stamps.get_mut(k) {
                *stamp = Stamp {
                    time,
                    ever: true,
                    valid: true,
                };
            }
        }
        for x in tree
            .timestamps
            .iter()
            .filter(set_on)
            .filter_map(|ts| ts.exclusive_to)
        {
            if let Some(other) = self.state.stamps.get_mut(x.0 as usize) {
                other.valid = false;
            }
        }
        // 3. Down the live nodes.
        if let Some(root) = tree.main_root() {
            self.deliver_to(root, event);
        }
    }

    /// Passes `event` down the live nodes from `id`: a StateMachine looks for a transition in
    /// its pending state, then forwards the event to its current state's tree; a WaitForEvent
    /// for it remembers that it arrived.
    fn deliver_to(&mut self, id: NodeId, event: &str) {
        if !self.is_live(id) {
            return;
        }
        let tree = self.interp.tree;
        let node = tree.node(id);
        match &node.kind {
            NodeKind::StateMachine => {
                let (current, pending) = match self.data(id) {
                    Some(NodeData::StateMachine { current, pending }) => (*current, *pending),
                    _ => return,
                };
                let from = pending.unwrap_or(current);
                let to = node
                    .children
                    .get(from)
                    .and_then(|&s| match &tree.node(s).kind {
                        NodeKind::State(st) => st
                            .transitions
                            .iter()
                            .find(|t| matches!(&t.on, Trigger::Event(e) if e == event))
                            .map(|t| t.to as usize),
                        _ => None,
                    });
                if let Some(to) = to {
                    if let Some(NodeData::StateMachine { pending, .. }) = self.data_mut(id) {
                        *pending = Some(to);
                    }
                }
                if let Some(&state) = node.children.get(current) {
                    self.deliver_to(state, event);
                }
            }
            NodeKind::WaitForEvent(w) => {
                if w.event == event {
                    if let Some(NodeData::WaitForEvent { arrived }) = self.data_mut(id) {
                        *arrived = true;
                    }
                }
            }
            _ => {
                for &c in &node.children {
                    self.deliver_to(c, event);
                }
            }
        }
    }

    // ---- host calls and expressions --------------------------------------------------------

    /// Splits the tick into an expression context and the host.
    fn split(&mut self) -> (EvalCtx<'_>, &mut dyn Host) {
        (
            self.interp.eval_ctx(&mut *self.state, self.now),
            &mut *self.host,
        )
    }

    fn test(&mut self, e: &Expr) -> bool {
        let (mut ctx, host) = self.split();
        ctx.eval(e, host).truthy()
    }

    /// Calls an action with `phase`, its arguments evaluated left to right.
    fn action(&mut self, call: &CallExpr, phase: Phase) -> Status {
        let args = {
            let (mut ctx, host) = self.split();
            ctx.args(&call.args, host)
        };
        let c = Call::new(
            self.state.agent,
            call.import,
            phase,
            &args,
            self.now,
            &self.interp.strings,
        );
        self.host.action(&c)
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
                let (mut ctx, host) = self.split();
                let _: Value = ctx.eval(&Expr::Call(call.clone()), host);
            }
            None => {}
        }
    }

    fn log(&mut self, msg: &str) {
        self.host.log(self.state.agent, msg);
    }
}

/// Leaves every scope the agent holds (the host-less reset, 2.7: no terminate calls).
pub(super) fn release(tree: &Tree, state: &AgentState, scopes: &mut Scopes) {
    for (i, data) in state.live.iter().enumerate() {
        if let (Some(NodeData::GroupScope { entered: true }), Some(n)) = (data, tree.nodes.get(i)) {
            if let NodeKind::GroupScope(g) = &n.kind {
                scopes.leave(state.agent, &g.scope);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each expected trace below is worked out by hand from `spec/mbt.md` section 2.

    use super::*;
    use crate::reference::testing::expect;

    /// A tree of the MBT dialect's knobs, but counting time in milliseconds (`clock 1`, so
    /// durations read as the scenario's times): the header, then `body` (declarations and the
    /// root).
    fn mbt(body: &str) -> String {
        format!("btvm 1;\ndialect mbt;\nclock 1;\n{body}\n")
    }

    #[test]
    fn the_clock_scales_now_where_the_tree_reads_the_time() {
        // MBT's own unit: 100 per millisecond. Hosts still see milliseconds.
        let tree = "btvm 1;\ndialect mbt;\nimport action probe 0..1 long;\n\
             timestamp Seen on \"seen\";\n\
             root main = sequence remember { wait 150 0 -> success \
             loop forever until failure { action probe(@elapsed(Seen)) } }\n";
        expect(
            tree,
            "ticks 3\ntime 0 1\nat 0 event seen\n",
            "tick 0 now 0
               root running
             # 100 units < 150
             tick 1 now 1
               root running
             tick 2 now 2
               probe(200) enter -> success
               root running",
        );
    }

    #[test]
    fn parallel_keeps_its_counts_and_all_all_mixed_runs_forever() {
        let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
             root main = parallel success=all failure=all remember { action a() action b() }");
        expect(
            &tree,
            "ticks 3\nanswer b = running, failure\n",
            "tick 0 now 0
               a() enter -> success
               b() enter -> running
               root running
             tick 1 now 100
               b() continue -> failure
               root running
             tick 2 now 200
               root running",
        );
    }

    #[test]
    fn parallel_ticks_every_running_child_and_terminates_the_rest_when_it_finishes() {
        let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
             import action c 0..0 long;\n\
             root main = parallel success=all failure=any remember \
             { action a() action b() action c() }");
        expect(
            &tree,
            "ticks 2\nanswer a = running\nanswer b = failure\nanswer c = running\n",
            "tick 0 now 0
               a() enter -> running
               b() enter -> failure
               c() enter -> running
               a() exit -> running
               c() exit -> running
               root failure
             tick 1 now 100
               stopped",
        );
    }

    #[test]
    fn a_loop_restarts_a_child_that_was_running_in_the_same_tick() {
        let tree = mbt("import action a 0..0 long;\n\
             root main = loop 3 until failure { action a() }");
        // Tick 1: the child had been running, so it is restarted at once; that second status
        // is not counted. Tick 2: it had succeeded at once, so it was restarted on this tick.
        expect(
            &tree,
            "ticks 5\nanswer a = running, success\n",
            "tick 0 now 0
               a() enter -> running
               root running
             tick 1 now 100
               a() continue -> success
               a() enter -> success
               root running
             tick 2 now 200
               a() enter -> success
               root running
             tick 3 now 300
               a() enter -> success
               root success
             tick 4 now 400
               stopped",
        );
        // The restarted child's exit status ends the loop.
        let tree = mbt("import action a 0..0 long;\n\
             root main = loop 5 until failure { action a() }");
        expect(
            &tree,
            "ticks 2\nanswer a = running, success, failure\n",
            "tick 0 now 0
               a() enter -> running
               root running
             tick 1 now 100
               a() continue -> success
               a() enter -> failure
               root failure",
        );
        // A child that succeeds at once is restarted on the next tick.
        let tree = mbt("import action a 0..0 long;\n\
             root main = loop 2 until success { action a() }");
        expect(
            &tree,
            "ticks 3\nanswer a = failure\n",
            "tick 0 now 0
               a() enter -> failure
               root running
             tick 1 now 100
               a() enter -> failure
               root failure
             tick 2 now 200
               stopped",
        );
    }

    #[test]
    fn a_forever_loop_ends_only_on_its_exit_status() {
        let tree = mbt("import action a 0..0 long;\n\
             root main = loop forever until success { action a() }");
        expect(
            &tree,
            "ticks 3\nanswer a = running, failure, running, success\n",
            "tick 0 now 0
               a() enter -> running
               root running
             tick 1 now 100
               a() continue -> failure
               a() enter -> running
               root running
             tick 2 now 200
               a() continue -> success
               root success",
        );
    }

    #[test]
    fn priority_repicks_only_when_a_variable_changed() {
        let tree = mbt("import action hi 0..0 long;\nimport action lo 0..0 long;\n\
             import function check 0..0;\n\
             var X: bool = false;\n\
             signal \"go\" X = true;\n\
             root main = parallel success=all failure=any remember {\n\
                 sequence remember { wait 200 0 -> success send \"go\" -> running }\n\
                 priority on-change { case ($X) { action hi() } case (check()) { action lo() } }\n\
             }");
        expect(
            &tree,
            "ticks 7\ndefault action running\nanswer check = true\n\
             at 4 set x = false\nat 5 set X = false\n",
            "tick 0 now 0
               check() = true
               lo() enter -> running
               root running
             # no change: no re-pick
             tick 1 now 100
               lo() continue -> running
               root running
             # the send raises go earlier in this tick: X is set, the priority re-picks
             tick 2 now 200
               lo() exit -> running
               hi() enter -> running
               root running
             # X changed during the last tick: re-picked, the same case
             tick 3 now 300
               hi() continue -> running
               root running
             tick 4 now 400
               check() = true
               hi() exit -> running
               lo() enter -> running
               root running
             # setting X to the value it has changes nothing
             tick 5 now 500
               lo() continue -> running
               root running
             tick 6 now 600
               lo() continue -> running
               root running",
        );
    }

    #[test]
    fn priority_fails_when_no_case_holds_and_terminates_its_child() {
        let tree = mbt("import action a 0..0 long;\nvar on: bool = true;\n\
             root main = priority on-change { case ($on) { action a() } }");
        expect(
            &tree,
            "ticks 3\ndefault action running\nat 1 set on = false\n",
            "tick 0 now 0
               a() enter -> running
               root running
             tick 1 now 100
               a() exit -> running
               root failure
             tick 2 now 200
               stopped",
        );
    }

    #[test]
    fn state_machine_transitions_chain_and_restart_on_self_transitions() {
        let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
             import action c 0..0 long;\n\
             root main = statemachine {\n\
                 state @\"A\" on \"e1\" -> 1 { action a() }\n\
                 state @\"B\" on \"e2\" -> 2 on \"e1\" -> 0 { action b() }\n\
                 state @\"C\" on \"e3\" -> 2 { action c() }\n\
             }");
        expect(
            &tree,
            "ticks 5\ndefault action running\nat 1 event e1\nat 1 event \"e2\"\n\
             at 2 event e1\nat 2 event e2\nat 3 event e3\n",
            "tick 0 now 0
               a() enter -> running
               root running
             # e1 makes B pending, e2 (looked up in B) makes C pending: one switch
             tick 1 now 100
               a() exit -> running
               c() enter -> running
               root running
             # C has no transition on e1 or e2
             tick 2 now 200
               c() continue -> running
               root running
             # a transition to the current state restarts it
             tick 3 now 300
               c() exit -> running
               c() enter -> running
               root running
             tick 4 now 400
               c() continue -> running
               root running",
        );
    }

    #[test]
    fn an_on_entry_guard_is_evaluated_once() {
        let tree = mbt("import action a 0..0 long;\nimport function f 0..0;\n\
             root main = guard on-entry (f()) { action a() }");
        expect(
            &tree,
            "ticks 4\nanswer f = true, false\nanswer a = running, running, success\n",
            "tick 0 now 0
               f() = true
               a() enter -> running
               root running
             tick 1 now 100
               a() continue -> running
               root running
             tick 2 now 200
               a() continue -> success
               root success
             tick 3 now 300
               stopped",
        );
    }

    #[test]
    fn wait_draws_its_variation_once_and_a_negative_duration_never_ends() {
        let tree = mbt("root main = wait 100 50 -> success");
        // The spec's draw for agent 0: min(floor(r * 51), 50) from its first random number.
        let r = btvm::Prng::for_agent(0).next_f64();
        let v = ((r * 51.0).floor() as i64).min(50);
        let end = 100 + v;
        let mut want = String::new();
        let mut k = 0;
        loop {
            let now = k * 10;
            let done = now >= end;
            want.push_str(&format!(
                "tick {k} now {now}\nroot {}\n",
                if done { "success" } else { "running" }
            ));
            if done {
                break;
            }
            k += 1;
        }
        expect(&tree, &format!("ticks {}\ntime 0 10\n", k + 1), &want);

        // A negative duration: running forever, and no draw from the PRNG.
        let text = mbt("root main = wait -5 7 -> success");
        let t = crate::syntax::canonical::parse(
            crate::source::FileId(0),
            &text,
            &btvm::Limits::default(),
        )
        .unwrap();
        let interp = Interpreter::new(&t).unwrap();
        let mut state = interp.new_agent(btvm::AgentId(0));
        let mut host = crate::reference::testing::NullHost;
        for now in [0, 1_000_000, i64::MAX] {
            assert_eq!(interp.tick(&mut state, &mut host, now), Status::Running);
        }
        assert_eq!(state.rng, btvm::Prng::for_agent(0));
        // Duration 0 succeeds on its first update.
        expect(
            &mbt("root main = wait 0 0 -> failure"),
            "ticks 1\n",
            "tick 0 now 0\nroot failure",
        );
    }

    #[test]
    fn wait_for_event_counts_only_events_that_reach_it_while_it_is_live() {
        let tree = mbt("root main = sequence remember { wait 200 0 -> success \
                        waitevent \"ping\" -> failure }");
        expect(
            &tree,
            "ticks 5\nat 1 event ping\nat 3 event ping\n",
            "tick 0 now 0
               root running
             tick 1 now 100
               root running
             tick 2 now 200
               root running
             tick 3 now 300
               root failure
             tick 4 now 400
               stopped",
        );
        // An event sent earlier in the same tick counts.
        let tree = mbt("root main = parallel success=any failure=any remember \
                        { waitevent \"ping\" -> success send \"ping\" -> running }");
        expect(
            &tree,
            "ticks 2\n",
            "tick 0 now 0\nroot running\ntick 1 now 100\nroot success",
        );
    }

    #[test]
    fn timestamps_are_set_by_events_and_invalidated_by_exclusive_ones() {
        let tree = mbt("import action probe 0..4 long;\n\
             timestamp Seen on \"seen\" exclusive Lost;\n\
             timestamp Lost on \"lost\" exclusive Seen;\n\
             root main = loop forever until failure \
             { action probe(@ever(Seen), @valid(Seen), @elapsed(Seen), @valid(Lost)) }");
        expect(
            &tree,
            "ticks 4\nat 1 event seen\nat 3 event lost\n",
            "tick 0 now 0
               probe(false, false, 0, false) enter -> success
               root running
             tick 1 now 100
               probe(true, true, 0, false) enter -> success
               root running
             tick 2 now 200
               probe(true, true, 100, false) enter -> success
               root running
             tick 3 now 300
               probe(true, false, 200, true) enter -> success
               root running",
        );
        // IfTime: the gate is decided at init from the timestamp.
        let tree = mbt("import action a 0..0 long;\ntimestamp T on \"t\";\n\
             root main = loop forever until failure { guard on-entry \
             (!@ever(T) || (@valid(T) && (@elapsed(T) > 150))) { action a() } }");
        expect(
            &tree,
            "ticks 4\nat 1 event t\n",
            "tick 0 now 0
               a() enter -> success
               root running
             tick 1 now 100
               root failure
             tick 2 now 200
               stopped
             tick 3 now 300
               stopped",
        );
    }

    #[test]
    fn start_logs_come_before_init_and_end_logs_after_terminate() {
        let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
             import action c 0..0 long;\n\
             import action h 0..0 long;\nimport action x 0..0 long;\n\
             root main = sequence remember {\n\
               logstatus start \"s1\" success \"ok1\" failure \"bad1\" \
                 { hooks enter action h() exit action x() { action a() } }\n\
               logstatus start \"s2\" failure \"bad\\\"2\" \
                 { parallel success=all failure=any remember { action c() action b() } }\n\
               log \"never\"\n\
             }");
        expect(
            &tree,
            "ticks 2\nanswer a = running, success\nanswer b = failure\nanswer c = running\n",
            r#"tick 0 now 0
                 log "s1"
                 h() enter -> success
                 a() enter -> running
                 root running
               # the hooks node's terminate step (its exit call) comes before its success log
               tick 1 now 100
                 a() continue -> success
                 x() exit -> success
                 log "ok1"
                 log "s2"
                 c() enter -> running
                 b() enter -> failure
                 c() exit -> running
                 log "bad\"2"
                 root failure"#,
        );
    }

    #[test]
    fn an_aborted_subtree_is_terminated_innermost_first() {
        let tree = mbt("import action a 0..0 long;\nimport action f 0..0 long;\n\
             import action x1 0..0 long;\nimport function x2 1..1;\n\
             root main = parallel success=all failure=any remember {\n\
               hooks exit action x1() { sequence remember \
                 { hooks exit x2(\"bye\") { action a() } } }\n\
               action f()\n\
             }");
        expect(
            &tree,
            "ticks 1\nanswer a = running\nanswer f = failure\n",
            r#"tick 0 now 0
                 a() enter -> running
                 f() enter -> failure
                 a() exit -> running
                 x2("bye") = 0
                 x1() exit -> success
                 root failure"#,
        );
    }

    #[test]
    fn group_scopes_are_contended_in_agent_order_and_released_on_reset() {
        let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
             root main = loop forever until failure { selector remember \
             { groupscope \"g\" 1 { action a() } action b() } }");
        expect(
            &tree,
            "agents 2\nticks 4\ndefault action running\n\
             answer a agent 0 = running, failure\nanswer b agent 1 = success\nat 3 reset\n",
            "tick 0 now 0 agent 0
               a() enter -> running
               root running
             tick 0 now 0 agent 1
               b() enter -> success
               root running
             # agent 0 leaves the scope when a fails; agent 1 gets in
             tick 1 now 100 agent 0
               a() continue -> failure
               b() enter -> running
               root running
             tick 1 now 100 agent 1
               a() enter -> running
               root running
             tick 2 now 200 agent 0
               b() continue -> running
               root running
             tick 2 now 200 agent 1
               a() continue -> running
               root running
             # agent 1 still holds the scope when agent 0 is reset (its running b exits) and
             # ticked; agent 1's reset terminates a (exit call) and leaves the scope, so it
             # enters again
             tick 3 now 300 agent 0
               reset
               b() exit -> running
               b() enter -> running
               root running
             tick 3 now 300 agent 1
               reset
               a() exit -> running
               a() enter -> running
               root running",
        );
    }

    #[test]
    fn events_to_a_stopped_tree_do_nothing_and_reset_restarts_it() {
        let tree = mbt("var v: bool = false;\nsignal \"s\" v = true;\n\
             root main = guard on-entry ($v) { const success }");
        let text = tree.clone();
        let t = crate::syntax::canonical::parse(
            crate::source::FileId(0),
            &text,
            &btvm::Limits::default(),
        )
        .unwrap();
        let interp = Interpreter::new(&t).unwrap();
        let mut state = interp.new_agent(btvm::AgentId(0));
        let mut host = crate::reference::testing::NullHost;
        assert_eq!(interp.tick(&mut state, &mut host, 0), Status::Failure);
        assert_eq!(state.halt(), Some(Halt::Stopped));
        interp.event(&mut state, &mut host, "s", 5);
        assert_eq!(interp.var(&state, 0), Some(false));
        interp.reset(&mut state);
        assert_eq!(state.halt(), None);
        assert!(state.changed());
        interp.event(&mut state, &mut host, "s", 5);
        assert_eq!(
            interp.var(&state, interp.var_index("V").unwrap()),
            Some(true)
        );
        assert_eq!(interp.tick(&mut state, &mut host, 10), Status::Success);
    }
}
