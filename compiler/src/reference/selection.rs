//! The BST execution model (selection), written to follow `spec/bst.md` section 2 line by
//! line: the agent state (2.1), one update (2.2), evaluation (2.3) and signals (2.4), for the IR
//! kinds of section 3.
//!
//! Per agent: the variables and the `changed` flag, each StateMachine's and Sequence's
//! `current` index (`AgentState::index`, by node id) and the current leaf
//! (`AgentState::leaf`). Evaluation reads only variables; the `current` indices are its only
//! effects; the host hears `select` when the current leaf changes, and `select ""` on every
//! evaluation that selects nothing.
//!
//! This module must stay a plain recursive walk over the IR: it is the oracle the vm and the
//! native code are compared with.

use btvm::{Host, Millis, NodeEvent, Status};

use super::{AgentState, Interpreter};
use crate::ir::{Expr, NodeId, NodeKind, Tree, Trigger};

/// One update of one agent.
pub(super) struct Update<'a, 't> {
    pub interp: &'a Interpreter<'t>,
    pub state: &'a mut AgentState,
    pub host: &'a mut dyn Host,
    pub now: Millis,
    /// The current leaf before this update's evaluation began.
    pub previous: Option<NodeId>,
}

impl Update<'_, '_> {
    /// One update (2.2).
    pub fn run(&mut self, root: NodeId) -> Status {
        // 1. Nothing changed: nothing is evaluated.
        if self.state.changed {
            // 2.
            self.previous = self.state.leaf;
            match self.eval(root) {
                // `eval` made it the current leaf where it found it (`select_leaf`).
                Some(_) => {}
                None => {
                    // `changed` stays set, so the next update evaluates again; the host is
                    // told the empty behaviour on every such evaluation.
                    self.state.leaf = None;
                    self.host.select(self.state.agent, "");
                }
            }
        }
        // 3.
        if self.state.leaf.is_some() {
            Status::Success
        } else {
            Status::Failure
        }
    }

    /// A leaf was found (2.2 step 2, done where the leaf is found, as the compiled engines'
    /// `sel.leaf` does: nothing observable happens between there and the end of `eval`, and a
    /// node-level trace shows the `select` inside the leaf's events): `changed` becomes false
    /// and, if it is another leaf than the current one, it becomes current and the host is
    /// told its behaviour.
    fn select_leaf(&mut self, leaf: NodeId) {
        self.state.changed = false;
        if self.state.leaf != Some(leaf) {
            self.state.leaf = Some(leaf);
            let name = match &self.interp.tree.node(leaf).kind {
                NodeKind::Select(b) => b.as_str(),
                _ => "",
            };
            self.host.select(self.state.agent, name);
        }
    }

    /// `eval(n)` (2.3): a leaf or none; traced, `n` is entered before and finished after, with
    /// success for a leaf and failure for none (`spec/semantics.md` 4.7; a `case` has its
    /// events in [`Update::eval_case`]).
    fn eval(&mut self, id: NodeId) -> Option<NodeId> {
        if matches!(self.interp.tree.node(id).kind, NodeKind::Case(_)) {
            return self.eval_body(id);
        }
        self.traced(id, |u| u.eval_body(id))
    }

    /// Runs `f` between node `id`'s enter and finish events.
    fn traced(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut Self) -> Option<NodeId>,
    ) -> Option<NodeId> {
        let agent = self.state.agent;
        self.interp
            .node_event(self.host, agent, id, NodeEvent::Enter);
        let leaf = f(self);
        let status = if leaf.is_some() {
            Status::Success
        } else {
            Status::Failure
        };
        self.interp
            .node_event(self.host, agent, id, NodeEvent::Finish(status));
        leaf
    }

    /// [`Update::eval`]'s node, untraced.
    fn eval_body(&mut self, id: NodeId) -> Option<NodeId> {
        let tree = self.interp.tree;
        let node = tree.node(id);
        match &node.kind {
            // Leaf: itself.
            NodeKind::Select(_) => {
                self.select_leaf(id);
                Some(id)
            }
            // Priority: the first child whose condition holds and which gives a leaf.
            NodeKind::Priority(_) => node.children.iter().find_map(|&c| self.eval_case(c)),
            // Sequence (Definition): a priority that only moves forward.
            NodeKind::Sequence(_) => {
                let start = self.start(id);
                for (i, &c) in node.children.iter().enumerate().skip(start) {
                    if let Some(leaf) = self.eval_case(c) {
                        self.set_index(id, i);
                        return Some(leaf);
                    }
                }
                None
            }
            NodeKind::StateMachine => self.state_machine(id, &node.children),
            NodeKind::Case(_) => self.eval_case(id),
            NodeKind::State(_) => node.children.first().and_then(|&c| self.eval(c)),
            // `check` rejected every other kind.
            _ => None,
        }
    }

    /// A child of a Priority or Sequence: if its condition holds, `eval(child)`.
    fn eval_case(&mut self, id: NodeId) -> Option<NodeId> {
        let node = self.interp.tree.node(id);
        match &node.kind {
            NodeKind::Case(cond) => self.traced(id, |u| {
                if u.test(cond) {
                    node.children.first().and_then(|&c| u.eval(c))
                } else {
                    None
                }
            }),
            _ => self.eval(id),
        }
    }

    /// StateMachine (2.3): the start state, the transitions followed until none fires or one
    /// enters a visited state (which is taken; the visited set is seeded with the stored
    /// `current`), then the state's node, with no fallback.
    fn state_machine(&mut self, id: NodeId, states: &[NodeId]) -> Option<NodeId> {
        let tree = self.interp.tree;
        // 1.
        let start = self.start(id);
        // 2.
        let mut visited = vec![false; states.len()];
        if let Some(v) = visited.get_mut(self.index(id)) {
            *v = true;
        }
        let mut s = start;
        // 3.
        while let Some(NodeKind::State(st)) = states.get(s).map(|&n| &tree.node(n).kind) {
            let mut fired = None;
            for t in &st.transitions {
                if let Trigger::When(cond) = &t.on {
                    if self.test(cond) {
                        fired = Some(t.to as usize);
                        break;
                    }
                }
            }
            let Some(target) = fired else {
                break;
            };
            if target >= states.len() {
                break;
            }
            // The transition is taken; into a visited state, it ends the chain.
            s = target;
            if visited[target] {
                break;
            }
            visited[target] = true;
        }
        // 4.
        self.set_index(id, s);
        let state = *states.get(s)?;
        tree.node(state)
            .children
            .first()
            .and_then(|&c| self.eval(c))
    }

    /// `start = current` if the previous leaf is a descendant of `id`, else 0.
    fn start(&self, id: NodeId) -> usize {
        match self.previous {
            Some(leaf) if is_descendant(self.interp.tree, id, leaf) => self.index(id),
            _ => 0,
        }
    }

    fn index(&self, id: NodeId) -> usize {
        self.state.index.get(id.index()).copied().unwrap_or(0) as usize
    }

    fn set_index(&mut self, id: NodeId, i: usize) {
        if let Some(slot) = self.state.index.get_mut(id.index()) {
            *slot = u32::try_from(i).unwrap_or(u32::MAX);
        }
    }

    fn test(&mut self, e: &Expr) -> bool {
        self.interp.test(self.state, self.host, self.now, e)
    }
}

/// Whether `node` lies strictly below `ancestor`.
fn is_descendant(tree: &Tree, ancestor: NodeId, node: NodeId) -> bool {
    tree.node(ancestor)
        .children
        .iter()
        .any(|&c| c == node || is_descendant(tree, c, node))
}

/// The behaviour name of the agent's current leaf (`None` when it has none).
pub(super) fn selected<'t>(tree: &'t Tree, state: &AgentState) -> Option<&'t str> {
    match &tree.node(state.leaf?).kind {
        NodeKind::Select(b) => Some(b.as_str()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! Each expected trace below is worked out by hand from `spec/bst.md` section 2.

    use crate::reference::testing::expect;

    /// A tree of the BST dialect's knobs: the header, then `body` (declarations and the root).
    fn bst(body: &str) -> String {
        format!("btvm 1;\ndialect bst;\n{body}\n")
    }

    #[test]
    fn the_tree_is_evaluated_only_when_a_variable_changed() {
        let tree = bst("import function f 0..0;\nvar a: bool = true;\n\
             root main = priority every-tick { case ($a) { select \"A\" } \
             case (f()) { select \"B\" } }");
        expect(
            &tree,
            "ticks 8\nanswer f = false, true\nat 2 set a = false\nat 5 set A = false\n\
             at 6 set a = true\nat 7 set a = false\nat 7 set a = true\n",
            r#"tick 0 now 0
                 select "A"
                 root success
               tick 1 now 100
                 root success
               # no leaf: the empty behaviour, and `changed` stays set
               tick 2 now 200
                 f() = false
                 select ""
                 root failure
               tick 3 now 300
                 f() = true
                 select "B"
                 root success
               tick 4 now 400
                 root success
               # the same value: no change
               tick 5 now 500
                 root success
               tick 6 now 600
                 select "A"
                 root success
               # changed and changed back: evaluated, the same leaf, nothing reported
               tick 7 now 700
                 root success"#,
        );
    }

    #[test]
    fn a_state_machine_starts_over_unless_it_held_the_leaf_and_seeds_visited_with_current() {
        let tree = bst(
            "var x: bool = false;\nvar y: bool = false;\nvar z: bool = false;\n\
             var w: bool = false;\n\
             root main = priority every-tick {\n\
               case ($y) { select \"Other\" }\n\
               case (true) { statemachine @\"SM\" {\n\
                 state @\"S0\" when ($x) -> 1 { select \"L0\" }\n\
                 state @\"S1\" when ($z) -> 2 { select \"L1\" }\n\
                 state @\"S2\" when ($w) -> 0 { select \"L2\" }\n\
               } }\n\
             }",
        );
        expect(
            &tree,
            "ticks 7\nat 1 set x = true\nat 2 set z = true\nat 3 set y = true\n\
             at 3 set w = true\nat 4 set y = false\nat 5 set x = false\nat 6 set x = true\n",
            r#"tick 0 now 0
                 select "L0"
                 root success
               # the machine held the leaf: start at S0 (current); S0 -> S1; S1 does not fire
               tick 1 now 100
                 select "L1"
                 root success
               tick 2 now 200
                 select "L2"
                 root success
               tick 3 now 300
                 select "Other"
                 root success
               # the previous leaf is not the machine's: start at S0, visited = {S2} (the
               # stored current); S0 -> S1 -> S2, which was visited: taken, then stop
               tick 4 now 400
                 select "L2"
                 root success
               # the machine held the leaf: start at S2; S2 -> S0; S0 does not fire
               tick 5 now 500
                 select "L0"
                 root success
               # S0 -> S1 -> S2 -> S0, visited: taken, then stop; the same leaf
               tick 6 now 600
                 root success"#,
        );
    }

    #[test]
    fn a_sequence_only_moves_forward_while_it_holds_the_leaf() {
        let tree = bst("var a: bool = true;\nvar b: bool = false;\n\
             root main = priority every-tick {\n\
               case ($b) { select \"Top\" }\n\
               case (true) { sequence remember { case ($a) { select \"A\" } \
                 case ($b) { select \"B\" } case (!$a) { select \"C\" } } }\n\
             }");
        expect(
            &tree,
            "ticks 6\nat 1 set a = false\nat 2 set a = true\nat 3 set b = true\n\
             at 4 set b = false\nat 5 set a = false\n",
            r#"tick 0 now 0
                 select "A"
                 root success
               tick 1 now 100
                 select "C"
                 root success
               # started at C, whose condition fails: no leaf, `current` stays
               tick 2 now 200
                 select ""
                 root failure
               tick 3 now 300
                 select "Top"
                 root success
               # the sequence did not hold the leaf: it starts at its first child again
               tick 4 now 400
                 select "A"
                 root success
               tick 5 now 500
                 select "C"
                 root success"#,
        );
    }

    #[test]
    fn signals_set_variables_and_unknown_events_do_nothing() {
        let tree = bst(
            "var v: bool = false;\nsignal \"on\" v = !$v;\nsignal \"on\" v = !$v;\n\
             signal \"flip\" v = !$v;\n\
             root main = priority every-tick { case ($v) { select \"V\" } }",
        );
        expect(
            &tree,
            "ticks 4\nat 1 event on\nat 2 event nothing\nat 3 event flip\n",
            r#"tick 0 now 0
                 select ""
                 root failure
               # two bindings, the second sees the first's result: v is false again; nothing
               # was selected, so every update evaluates (and reports the empty behaviour)
               tick 1 now 100
                 select ""
                 root failure
               tick 2 now 200
                 select ""
                 root failure
               tick 3 now 300
                 select "V"
                 root success"#,
        );
    }
}
