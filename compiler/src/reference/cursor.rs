//! The Drag\[en\]gine execution model, written to mirror `BTContext.stepBehaviorTree` and the
//! rules' `run` methods (`spec/semantics.md` §4.2).
//!
//! Per agent: the cursor (one rule), the `first_run` flag and whether the tree is halted. A
//! step runs the cursor's rule; a finished rule bubbles up to its parent list rule, which
//! either moves the cursor to another child (run in the same step) or finishes in turn. The
//! step counts rule runs and ends with a run-away error at the limit.
//!
//! [`Rules`] (which nodes are rules, and their parents) comes from `crate::ir::analysis`,
//! shared with the lowering, so the bytecode numbers rules exactly as this interpreter sees
//! them.

use btvm::{Halt, Host, Millis, NodeEvent, Phase, Status};

use super::{AgentState, Interpreter};
use crate::ir::analysis::Rules;
use crate::ir::{Composite, Expr, NodeId, NodeKind};

/// What running a rule did.
enum Run {
    /// It finished (or ran) with a status; the cursor did not move off it.
    Done(Status),
    /// It moved the cursor to another rule.
    Moved,
}

/// One step of one agent.
pub(super) struct Step<'a, 't> {
    pub interp: &'a Interpreter<'t>,
    pub rules: &'a Rules,
    pub state: &'a mut AgentState,
    pub host: &'a mut dyn Host,
    pub now: Millis,
    pub limit: u32,
}

impl Step<'_, '_> {
    /// `stepBehaviorTree`, plus the integration's stop on root failure or run-away.
    pub fn step(&mut self) -> Status {
        if self.state.halt.is_some() {
            return Status::Failure;
        }
        if self.state.no_rule {
            // `while pCurrentRule != null` does not run: the step returns false, and the
            // integration stops the tree.
            self.state.halt = Some(Halt::Stopped);
            return Status::Failure;
        }
        let mut count = 0u32;
        loop {
            let mut rule = self.state.cursor;
            let mut out = self.run_rule(rule, None);
            loop {
                let status = match out {
                    Run::Done(Status::Running) => return Status::Running,
                    Run::Done(s) => Some(s),
                    Run::Moved => None,
                };
                count += 1;
                if count == self.limit {
                    self.state.halt = Some(Halt::RunAway);
                    return Status::Failure;
                }
                let Some(s) = status else {
                    break; // the cursor moved: run the new current rule
                };
                // The rule finished without moving the cursor: bubble up.
                match self.rules.parent.get(rule as usize).copied().flatten() {
                    None => {
                        if s == Status::Failure {
                            self.state.halt = Some(Halt::Stopped);
                        }
                        return s;
                    }
                    Some(p) => {
                        out = self.run_rule(p, Some((rule, s)));
                        rule = p;
                    }
                }
            }
        }
    }

    /// Runs rule `rule`: entered (`finished` is `None`) or told that its child rule finished.
    fn run_rule(&mut self, rule: u32, finished: Option<(u32, Status)>) -> Run {
        let top = self.rules.tops[rule as usize];
        self.run_node(top, rule, finished)
    }

    /// Runs node `id` of rule `rule`'s chain; traced, a run that starts the rule
    /// (`finished` is `None`) enters the node and a run that returns a status finishes it
    /// (`spec/semantics.md` 4.7: a move finishes nothing).
    fn run_node(&mut self, id: NodeId, rule: u32, finished: Option<(u32, Status)>) -> Run {
        let agent = self.state.agent;
        if finished.is_none() {
            self.interp
                .node_event(self.host, agent, id, NodeEvent::Enter);
        }
        let run = self.run_chain(id, rule, finished);
        if let Run::Done(s) = run {
            self.interp
                .node_event(self.host, agent, id, NodeEvent::Finish(s));
        }
        run
    }

    /// [`Step::run_node`]'s node, untraced.
    fn run_chain(&mut self, id: NodeId, rule: u32, finished: Option<(u32, Status)>) -> Run {
        let tree = self.interp.tree;
        let node = tree.node(id);
        let child = node.children.first().copied();
        match &node.kind {
            NodeKind::Guard(g) => {
                // A guard tests its condition when its rule is entered, not when a child of
                // the list below it finishes.
                if finished.is_none() && !self.test(&g.cond) {
                    return Run::Done(Status::Failure);
                }
                self.run_node(child.unwrap_or(id), rule, finished)
            }
            NodeKind::MapStatus(m) => match self.run_node(child.unwrap_or(id), rule, finished) {
                Run::Done(Status::Success) => Run::Done(m.success),
                Run::Done(Status::Failure) => Run::Done(m.failure),
                Run::Done(Status::Running) => Run::Done(m.running),
                Run::Moved => Run::Moved,
            },
            NodeKind::Invert => match self.run_node(child.unwrap_or(id), rule, finished) {
                Run::Done(Status::Success) => Run::Done(Status::Failure),
                Run::Done(Status::Failure) => Run::Done(Status::Success),
                other => other,
            },
            NodeKind::Action(call) => {
                let phase = if self.state.first_run {
                    Phase::Enter
                } else {
                    Phase::Continue
                };
                let status = self
                    .interp
                    .call_action(self.state, self.host, self.now, call, phase);
                self.state.first_run = false;
                Run::Done(status)
            }
            NodeKind::Condition(e) => Run::Done(if self.test(e) {
                Status::Success
            } else {
                Status::Failure
            }),
            NodeKind::Const(s) => Run::Done(*s),
            NodeKind::Yield => {
                if self.state.first_run {
                    self.state.first_run = false;
                    Run::Done(Status::Running)
                } else {
                    Run::Done(Status::Success)
                }
            }
            NodeKind::Sequence(c) => self.list(true, c, &node.children, rule, finished),
            NodeKind::Selector(c) => self.list(false, c, &node.children, rule, finished),
            // `check` rejected every other kind.
            _ => Run::Done(Status::Failure),
        }
    }

    /// `BTRuleSequence.run` / `BTRuleChoice.run`, with `D` = failure (doNotFail is a map above).
    fn list(
        &mut self,
        seq: bool,
        c: &Composite,
        children: &[NodeId],
        me: u32,
        finished: Option<(u32, Status)>,
    ) -> Run {
        let kids: Vec<u32> = children.iter().map(|&k| self.rules.of(k)).collect();
        let Some((child, status)) = finished else {
            // Entry.
            if kids.is_empty() || !self.when(c) {
                return Run::Done(Status::Failure);
            }
            return self.move_to(kids[0]);
        };
        let i = kids.iter().position(|&k| k == child).unwrap_or(kids.len());
        let next = kids.get(i + 1).copied();
        match (seq, status) {
            (true, Status::Success) => {
                if !self.when(c) {
                    self.finish(me, Status::Failure)
                } else if let Some(n) = next {
                    self.move_to(n)
                } else if c.looping {
                    self.move_to(kids[0])
                } else {
                    self.finish(me, Status::Success)
                }
            }
            (false, Status::Failure) => match next {
                Some(n) if self.when(c) => self.move_to(n),
                _ => self.finish(me, Status::Failure),
            },
            (false, Status::Success) if c.looping => {
                if self.when(c) {
                    self.move_to(kids[0])
                } else {
                    self.finish(me, Status::Failure)
                }
            }
            (false, Status::Success) => self.finish(me, Status::Success),
            _ => self.finish(me, Status::Failure),
        }
    }

    /// The list's own conditions (true without any).
    fn when(&mut self, c: &Composite) -> bool {
        c.cond.as_ref().is_none_or(|e| self.test(e))
    }

    /// `setCurrentRule(rule)`.
    fn set_cursor(&mut self, rule: u32) {
        self.state.cursor = rule;
        self.state.first_run = true;
    }

    fn move_to(&mut self, rule: u32) -> Run {
        self.set_cursor(rule);
        Run::Moved
    }

    /// The list finishes: the cursor comes back to it, and its status bubbles up.
    fn finish(&mut self, me: u32, s: Status) -> Run {
        self.set_cursor(me);
        Run::Done(s)
    }

    fn test(&mut self, e: &Expr) -> bool {
        self.interp.test(self.state, self.host, self.now, e)
    }
}
