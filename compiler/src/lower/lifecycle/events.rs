//! The lifecycle lowering's event functions (`spec/mbt.md` 2.4) and `send`.
//!
//! An event function only sets variables, stamps and record bits for the next update: it must
//! never tick a node or call the host. What each event touches is found once for all events
//! ([`EventIndex`]); an event function never scans the tree's tables or nodes (one scan per
//! event made the lowering quadratic in the number of signals).

use std::collections::{HashMap, HashSet};

use btvm::program::{Func, Instr, Label, RBit, Var};
use btvm::Status;

use super::super::records::Records;
use super::super::stateful::Emit;
use super::LcLower;
use crate::ir::{NodeId, NodeKind, SignalBinding, Tree, Trigger};

/// A main-tree node an event acts on.
enum Target {
    /// A state machine and, per state with a transition on the event, the state's index and
    /// the first such transition's target.
    Machine(NodeId, Vec<(u32, u32)>),
    /// A WaitForEvent on the event.
    Wait(NodeId),
}

/// What each event touches, by event name: its signal bindings in file order, the
/// timestamps set on it in table order, and the main tree's nodes in arena order.
#[derive(Default)]
pub(super) struct EventIndex<'a> {
    signals: HashMap<&'a str, Vec<&'a SignalBinding>>,
    stamps: HashMap<&'a str, Vec<usize>>,
    nodes: HashMap<&'a str, Vec<Target>>,
}

impl<'a> EventIndex<'a> {
    /// One pass over the signals, the timestamps and the main tree's nodes.
    pub(super) fn new(tree: &'a Tree, recs: &Records) -> EventIndex<'a> {
        let mut ix = EventIndex::default();
        for s in &tree.signals {
            ix.signals.entry(s.event.as_str()).or_default().push(s);
        }
        for (k, t) in tree.timestamps.iter().enumerate() {
            if let Some(e) = &t.set_on {
                ix.stamps.entry(e.as_str()).or_default().push(k);
            }
        }
        for i in recs.root.0..=recs.last.0 {
            let id = NodeId(i);
            match &tree.node(id).kind {
                NodeKind::StateMachine => {
                    let mut targets: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
                    for (k, &st) in tree.node(id).children.iter().enumerate() {
                        let NodeKind::State(s) = &tree.node(st).kind else {
                            continue;
                        };
                        let mut seen = HashSet::new();
                        for t in &s.transitions {
                            match &t.on {
                                Trigger::Event(e) if seen.insert(e.as_str()) => {
                                    targets.entry(e).or_default().push((k as u32, t.to));
                                }
                                _ => {}
                            }
                        }
                    }
                    for (e, t) in targets {
                        ix.nodes.entry(e).or_default().push(Target::Machine(id, t));
                    }
                }
                NodeKind::WaitForEvent(w) => {
                    ix.nodes.entry(&w.event).or_default().push(Target::Wait(id));
                }
                _ => {}
            }
        }
        ix
    }
}

impl LcLower<'_, '_> {
    /// An event function (`spec/mbt.md` 2.4): signal bindings, timestamps, then the live
    /// state machines and WaitForEvent nodes, in arena order. A stopped tree ignores it.
    pub(super) fn event(&mut self, event: &str) {
        let done = self.label();
        self.emit(Instr::JumpStopped { to: done });
        self.event_signals(event);
        self.event_stamps(event);
        let touched = self.touched;
        for target in touched.nodes.get(event).into_iter().flatten() {
            let id = match target {
                Target::Machine(id, _) | Target::Wait(id) => *id,
            };
            let previous = self.lw.asm.enter(id.0);
            match target {
                Target::Machine(id, targets) => self.event_machine(*id, targets),
                Target::Wait(id) => self.event_wait(*id),
            }
            self.lw.asm.leave(previous);
        }
        self.place(done);
        self.emit(Instr::Return {
            status: Status::Success,
        });
    }

    /// The signal bindings of `event`, in file order.
    fn event_signals(&mut self, event: &str) {
        let touched = self.touched;
        for sig in touched.signals.get(event).into_iter().flatten() {
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
        let set: Vec<_> = (self.touched.stamps.get(event).into_iter().flatten())
            .filter_map(|&k| Some((k, tree.timestamps.get(k)?)))
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
    fn event_machine(&mut self, id: NodeId, targets: &[(u32, u32)]) {
        let rec = self.recs.of(id);
        let (Some(live), Some(pending), false) = (rec.live(), rec.extra(), targets.is_empty())
        else {
            return;
        };
        let skip = self.unless_live(id, live);
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
        let skip = self.unless_live(id, live);
        self.emit(Instr::RecBit {
            bit: arrived,
            value: true,
        });
        self.place(skip);
    }

    /// A jump over what follows unless node `id` is live: every overlaying ancestor's field
    /// names the child on `id`'s path (else `id`'s records hold a sibling's data), and then
    /// its `live` bit is set. The label to place after it.
    fn unless_live(&mut self, id: NodeId, live: RBit) -> Label {
        let skip = self.label();
        let mut guards = Vec::new();
        let mut at = id;
        while let Some(p) = self.recs.parent.get(at.index()).copied().flatten() {
            if let Some(value) = self.recs.overlay_value(at) {
                guards.push((self.recs.of(p), value));
            }
            at = p;
        }
        for (rec, value) in guards.into_iter().rev() {
            let next = self.label();
            self.emit(Instr::RecJumpEq {
                at: rec.a,
                width: rec.a_width,
                value,
                to: next,
            });
            self.jump(skip);
            self.place(next);
        }
        self.emit(Instr::RecJump {
            bit: live,
            when: false,
            to: skip,
        });
        skip
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
