//! The lifecycle lowering's event functions (`spec/mbt.md` 2.4) and `send`.
//!
//! An event function only sets variables, stamps and record bits for the next update: it must
//! never tick a node or call the host.

use btvm::program::{Func, Instr, Label, Var};
use btvm::Status;

use super::super::stateful::Emit;
use super::LcLower;
use crate::ir::{NodeId, NodeKind, Trigger};

impl LcLower<'_, '_> {
    /// An event function (`spec/mbt.md` 2.4): signal bindings, timestamps, then the live
    /// state machines and WaitForEvent nodes, in arena order. A stopped tree ignores it.
    pub(super) fn event(&mut self, event: &str) {
        let done = self.label();
        self.emit(Instr::JumpStopped { to: done });
        self.event_signals(event);
        self.event_stamps(event);
        let tree = self.lw.tree;
        for i in self.recs.root.0..=self.recs.last.0 {
            let id = NodeId(i);
            match &tree.node(id).kind {
                NodeKind::StateMachine => self.event_machine(id, event),
                NodeKind::WaitForEvent(w) if w.event == event => self.event_wait(id),
                _ => {}
            }
        }
        self.place(done);
        self.emit(Instr::Return {
            status: Status::Success,
        });
    }

    /// The signal bindings of `event`, in file order.
    fn event_signals(&mut self, event: &str) {
        let tree = self.lw.tree;
        for sig in tree.signals.iter().filter(|s| s.event == event) {
            self.lw.value(&sig.value);
            self.emit(Instr::VarSet {
                var: Var(sig.var.0),
            });
        }
    }

    /// Every timestamp set on `event` is stamped first, then the ones they are exclusive to
    /// are invalidated.
    fn event_stamps(&mut self, event: &str) {
        let tree = self.lw.tree;
        let set: Vec<_> = tree
            .timestamps
            .iter()
            .enumerate()
            .filter(|(_, ts)| ts.set_on.as_deref() == Some(event))
            .collect();
        for &(k, _) in &set {
            self.emit(Instr::TsStamp {
                ts: btvm::program::Stamp(k as u32),
            });
        }
        for x in set.iter().filter_map(|(_, ts)| ts.exclusive_to) {
            self.emit(Instr::TsInvalidate {
                ts: btvm::program::Stamp(x.0),
            });
        }
    }

    /// A live state machine whose current state has a transition on `event` makes its
    /// target pending (the first such transition of the state).
    fn event_machine(&mut self, id: NodeId, event: &str) {
        let tree = self.lw.tree;
        let rec = self.recs.of(id);
        let targets: Vec<(u32, u32)> = tree
            .node(id)
            .children
            .iter()
            .enumerate()
            .filter_map(|(k, &st)| match &tree.node(st).kind {
                NodeKind::State(s) => s
                    .transitions
                    .iter()
                    .find(|t| matches!(&t.on, Trigger::Event(e) if e == event))
                    .map(|t| (k as u32, t.to)),
                _ => None,
            })
            .collect();
        let (Some(live), Some(pending), false) = (rec.live(), rec.extra(), targets.is_empty())
        else {
            return;
        };
        let skip = self.unless(live);
        let sets: Vec<Label> = targets.iter().map(|_| self.label()).collect();
        for (&(k, _), &l) in targets.iter().zip(&sets) {
            self.emit(Instr::RecJumpEq {
                at: rec.b,
                width: rec.b_width,
                value: k,
                to: l,
            });
        }
        self.jump(skip);
        for (&(_, to), &l) in targets.iter().zip(&sets) {
            self.place(l);
            self.emit(Instr::RecSet {
                at: rec.b,
                width: rec.b_width,
                value: to,
            });
            self.emit(Instr::RecBit {
                bit: pending,
                value: true,
            });
            self.jump(skip);
        }
        self.place(skip);
    }

    /// A live WaitForEvent for the event remembers that it arrived.
    fn event_wait(&mut self, id: NodeId) {
        let rec = self.recs.of(id);
        let (Some(live), Some(arrived)) = (rec.live(), rec.extra()) else {
            return;
        };
        let skip = self.unless(live);
        self.emit(Instr::RecBit {
            bit: arrived,
            value: true,
        });
        self.place(skip);
    }

    /// Delivers `event` now (a `send`).
    pub(super) fn send(&mut self, event: &str) {
        if let Some(&f) = self.events.get(event) {
            let next = self.label();
            self.emit(Instr::Call {
                func: Func(f),
                success: next,
                failure: next,
                running: next,
            });
            self.place(next);
        }
    }
}
