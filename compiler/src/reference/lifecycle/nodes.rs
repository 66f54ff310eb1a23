//! The node steps of the lifecycle model (`spec/mbt.md` 2.5): each node's init, update and
//! terminate, one function per node family.
//!
//! Like the rest of the reference, this must stay a plain recursive walk over the IR, written
//! to follow the spec line by line: no precomputed tables, no shortcuts shared with the
//! lowering.

use btvm::{Phase, Status};

use super::{NodeData, Tick};
use crate::ir::{Loop, NodeId, NodeKind, Parallel};

impl Tick<'_, '_> {
    // ---- 2.5 the nodes: init ---------------------------------------------------------------

    /// The node's init step (the node is already live, with fresh data).
    pub(super) fn init(&mut self, id: NodeId) {
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
    pub(super) fn update(&mut self, id: NodeId) -> Status {
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
                    succeeded,
                }) = self.data_mut(id)
                {
                    if let Some(bit) = running.get_mut(i) {
                        *bit = false;
                    }
                    if s == Status::Success {
                        *successes += 1;
                        if let Some(bit) = succeeded.get_mut(i) {
                            *bit = true;
                        }
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
        p.outcome(successes, failures, children.len())
            .unwrap_or(Status::Running)
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
    pub(super) fn terminate_step(&mut self, id: NodeId) {
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
}
