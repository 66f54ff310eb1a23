//! The Unvanquished execution model, written to mirror the game's `BotEvaluateNode` and node
//! runners (`spec/semantics.md`, "Running-list model").
//!
//! Per agent: a bounded list of running node identities, one current-action slot (claimed by
//! the actions themselves, on the outcomes their import's `claims` names), and per-node
//! cooldown data. Nothing is ever told when it is abandoned.

use btvm::{Host, Millis, NodeEvent, Phase, Status};

use super::{is_action, AgentState, Interpreter};
use crate::ir::analysis::identity;
use crate::ir::{Expr, NodeId, NodeKind, Parallel, Resume};

/// One tick of one agent.
pub(super) struct Tick<'a, 't> {
    pub interp: &'a Interpreter<'t>,
    pub state: &'a mut AgentState,
    pub host: &'a mut dyn Host,
    pub now: Millis,
    pub capacity: usize,
}

impl Tick<'_, '_> {
    /// `BotEvaluateNode`: run the node, then do the running-list bookkeeping; traced, the
    /// node is entered before its run and finished after the bookkeeping
    /// (`spec/semantics.md`, "Node-level traces").
    pub fn evaluate(&mut self, id: NodeId) -> Status {
        let agent = self.state.agent;
        self.interp
            .node_event(self.host, agent, id, NodeEvent::Enter);
        let status = self.bookkept(id);
        self.interp
            .node_event(self.host, agent, id, NodeEvent::Finish(status));
        status
    }

    /// [`Tick::evaluate`]'s run and bookkeeping.
    fn bookkept(&mut self, id: NodeId) -> Status {
        let status = self.run(id);
        let node = self.interp.tree.node(id);
        let key = identity(self.interp.tree, id);
        if status != Status::Running && self.state.current == Some(id) {
            self.state.current = None;
        }
        if status == Status::Success && self.state.running.contains(&key) {
            self.state.running.clear();
        }
        if status == Status::Running {
            if is_action(&node.kind) {
                self.state.running.clear();
            }
            if !self.state.running.contains(&key) && self.state.running.len() < self.capacity {
                self.state.running.push(key);
            }
        }
        status
    }

    fn run(&mut self, id: NodeId) -> Status {
        let tree = self.interp.tree;
        let node = tree.node(id);
        let children = &node.children;
        match &node.kind {
            NodeKind::Selector(c) if c.resume == Resume::Restart => {
                for &child in children {
                    let s = self.evaluate(child);
                    if s != Status::Failure {
                        return s;
                    }
                }
                Status::Failure
            }
            NodeKind::Sequence(c) => {
                let start = match c.resume {
                    Resume::Restart => 0,
                    _ => self.start_index(children),
                };
                for &child in &children[start..] {
                    let s = self.evaluate(child);
                    if s != Status::Success {
                        return s;
                    }
                }
                Status::Success
            }
            NodeKind::Selector(_) => {
                // fallback: the sequence's resume rule, the selector's outcome rule.
                for &child in &children[self.start_index(children)..] {
                    let s = self.evaluate(child);
                    if s != Status::Failure {
                        return s;
                    }
                }
                Status::Failure
            }
            NodeKind::Parallel(p) => self.parallel(p, children),
            NodeKind::Condition(e) => status_of(self.test(e)),
            NodeKind::Guard(g) => {
                if self.test(&g.cond) {
                    self.evaluate(children[0])
                } else {
                    Status::Failure
                }
            }
            NodeKind::Invert => match self.evaluate(children[0]) {
                Status::Success => Status::Failure,
                Status::Failure => Status::Success,
                Status::Running => Status::Running,
            },
            NodeKind::MapStatus(m) => match self.evaluate(children[0]) {
                Status::Success => m.success,
                Status::Failure => m.failure,
                Status::Running => m.running,
            },
            NodeKind::Cooldown(c) => {
                if self.now > self.state.cooldowns[id.index()] {
                    let s = self.evaluate(children[0]);
                    if s == Status::Failure {
                        self.state.cooldowns[id.index()] = self.now.saturating_add(i64::from(c.ms));
                    }
                    s
                } else {
                    Status::Failure
                }
            }
            NodeKind::Include(sub) => match tree.subtrees.get(sub.0 as usize) {
                Some(s) => self.evaluate(s.node),
                None => Status::Failure,
            },
            NodeKind::Action(call) => {
                let phase = if self.state.current == Some(id) {
                    Phase::Continue
                } else {
                    Phase::Enter
                };
                let s = self
                    .interp
                    .call_action(self.state, self.host, self.now, call, phase);
                // The action itself claims the slot on some outcomes (the game's actions set
                // `currentNode`); `evaluate` then releases it if the action finished.
                let claims = tree.imports.get(call.import.0 as usize).map(|i| i.claims);
                if claims.unwrap_or_default().contains(s) {
                    self.state.current = Some(id);
                }
                s
            }
            NodeKind::Const(s) => *s,
            // `check` rejected every other kind.
            _ => Status::Failure,
        }
    }

    /// The sequence/fallback start index: the highest child index above 0 found in the
    /// running list, else 0. Child 0 is never tested.
    fn start_index(&self, children: &[NodeId]) -> usize {
        let tree = self.interp.tree;
        (1..children.len())
            .rev()
            .find(|&i| self.state.running.contains(&identity(tree, children[i])))
            .unwrap_or(0)
    }

    fn parallel(&mut self, p: &Parallel, children: &[NodeId]) -> Status {
        let (mut successes, mut failures) = (0usize, 0usize);
        for &child in children {
            match self.evaluate(child) {
                Status::Success => successes += 1,
                Status::Failure => {
                    failures += 1;
                    if p.stop_on_failure {
                        return Status::Failure;
                    }
                }
                Status::Running => {}
            }
        }
        let n = children.len();
        match p.outcome(successes, failures, n) {
            Some(s) => s,
            None if n == 0 => Status::Success,
            // Some child runs, or (both quorums `all`) the outcomes are mixed: MBT's
            // documented "running forever" edge case.
            None => Status::Running,
        }
    }

    fn test(&mut self, e: &Expr) -> bool {
        self.interp.test(self.state, self.host, self.now, e)
    }
}

fn status_of(b: bool) -> Status {
    if b {
        Status::Success
    } else {
        Status::Failure
    }
}
