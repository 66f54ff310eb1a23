//! Events in the lifecycle model (`spec/mbt.md` 2.4): signal bindings, timestamps, then the
//! live state machines and WaitForEvent nodes.
//!
//! An event never ticks anything: it only sets variables, stamps and pending transitions
//! for the next update to act on.

use super::{NodeData, Stamp, Tick};
use crate::ir::{NodeId, NodeKind, Trigger};

impl Tick<'_, '_> {
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
}
