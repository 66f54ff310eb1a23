//! The node lifecycle in the lifecycle lowering (`spec/mbt.md` 2.2, 2.5): `tick` with its
//! init check and finish edges, each node's init and terminate steps, and the static
//! terminate walk that aborts a subtree.
//!
//! The update steps are in `update`; this module must never emit a node's update itself.

use btvm::program::{Instr, Label, RBit};
use btvm::Status;

use super::super::records::{overlays, Rec};
use super::super::stateful::Emit;
use super::super::Cont;
use super::LcLower;
use crate::ir::{CallExpr, LogStatus, NodeId, NodeKind};

impl LcLower<'_, '_> {
    /// [`Self::tick_in`], its instructions mapped to `id` in the code map.
    pub(super) fn tick(&mut self, id: NodeId, k: Cont) {
        let previous = self.lw.asm.enter(id.0);
        self.tick_in(id, k);
        self.lw.asm.leave(previous);
    }

    /// `tick(n)`, through the transparent kinds (`case`, `state`, `logstatus`); traced when
    /// asked: `n` is entered when its tick starts and finished with the status the tick
    /// returns to the parent, after its finish step (`spec/semantics.md` 4.7).
    fn tick_in(&mut self, id: NodeId, k: Cont) {
        if self.full() {
            return self.jump(k.f);
        }
        if !self.lw.trace {
            return self.tick_body(id, k);
        }
        self.emit(Instr::NodeEnter { node: id.0 });
        let inner = Cont {
            s: self.label(),
            f: self.label(),
            r: self.label(),
        };
        self.tick_body(id, inner);
        for s in [Status::Success, Status::Failure, Status::Running] {
            self.place(inner.on(s));
            self.emit(Instr::NodeExit {
                node: id.0,
                status: s,
            });
            self.jump(k.on(s));
        }
    }

    /// [`Self::tick`], untraced.
    fn tick_body(&mut self, id: NodeId, k: Cont) {
        let node = self.tree().node(id);
        match &node.kind {
            NodeKind::Case(_) | NodeKind::State(_) => {
                self.tick_child(node.children.first().copied(), k)
            }
            NodeKind::LogStatus(l) => match node.children.first() {
                Some(&c) => {
                    let l = l.clone();
                    // The child's code is the child's; the messages are part of it.
                    self.lw.asm.enter(c.0);
                    self.tick_node(c, k, Some(&l))
                }
                None => self.jump(k.f),
            },
            _ => self.tick_node(id, k, None),
        }
    }

    /// `tick(n)` for a node with its own lifecycle, with its log messages.
    fn tick_node(&mut self, id: NodeId, k: Cont, log: Option<&LogStatus>) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let rec = self.recs.of(id);
        let start_log = log.and_then(|l| l.start.as_deref());
        // The init check.
        let init = self.init_step(id);
        if let (Some(live), true) = (rec.live(), init || start_log.is_some()) {
            let update = self.label();
            self.emit(Instr::RecJump {
                bit: live,
                when: true,
                to: update,
            });
            if let Some(m) = start_log {
                let msg = self.str_id(m);
                self.emit(Instr::LcLog { msg });
            }
            // Actions and WaitForEvent become live when they return running.
            if !matches!(node.kind, NodeKind::Action(_) | NodeKind::WaitForEvent(_)) {
                self.emit(Instr::RecBit {
                    bit: live,
                    value: true,
                });
            }
            self.init(id);
            self.place(update);
        } else if init {
            // An init step without a live bit runs at every update (the node always finishes
            // in it: `send -> success`).
            self.init(id);
        }
        // The update, with the finish edges (straight to the parent when a finish does
        // nothing).
        let message = |st: Status| {
            log.and_then(|lg| match st {
                Status::Success => lg.success.as_deref(),
                _ => lg.failure.as_deref(),
            })
        };
        let edge = |lc: &mut Self, st: Status, to: Label| {
            if message(st).is_none() && lc.finish_is_empty(id, st) {
                to
            } else {
                lc.label()
            }
        };
        let (fs, ff) = (
            edge(self, Status::Success, k.s),
            edge(self, Status::Failure, k.f),
        );
        self.update(
            id,
            Cont {
                s: fs,
                f: ff,
                r: k.r,
            },
        );
        for (l, st, to) in [(fs, Status::Success, k.s), (ff, Status::Failure, k.f)] {
            if l == to {
                continue;
            }
            self.place(l);
            self.finish(id, st);
            // The success or failure message comes just after the terminate step.
            if let Some(m) = message(st) {
                let msg = self.str_id(m);
                self.emit(Instr::LcLog { msg });
            }
            self.jump(to);
        }
    }

    /// Whether finishing `id` with `st` does nothing (no terminate effects, no records).
    fn finish_is_empty(&self, id: NodeId, st: Status) -> bool {
        let node = self.tree().node(id);
        let rec = self.recs.of(id);
        let effects = match &node.kind {
            NodeKind::Parallel(_) | NodeKind::GroupScope(_) => true,
            NodeKind::Priority(_) => st == Status::Failure,
            NodeKind::MapStatus(m) => m.running != Status::Running,
            NodeKind::Hooks(h) => h.exit.is_some(),
            _ => false,
        };
        let zero = !matches!(node.kind, NodeKind::Action(_)) && rec.end > rec.start;
        !effects && !zero
    }

    /// Whether the node has an init step of its own (`spec/mbt.md` 2.5).
    pub(super) fn init_step(&self, id: NodeId) -> bool {
        match &self.tree().node(id).kind {
            NodeKind::Guard(_) | NodeKind::GroupScope(_) | NodeKind::StateMachine => true,
            NodeKind::Hooks(h) => h.enter.is_some() || h.exit.is_some(),
            NodeKind::Wait(w) => w.time >= 0,
            NodeKind::SendEvent(_) => true,
            _ => false,
        }
    }

    /// The node's init step (it is live already).
    fn init(&mut self, id: NodeId) {
        let tree = self.lw.tree;
        let rec = self.recs.of(id);
        match &tree.node(id).kind {
            NodeKind::Guard(g) => {
                // A closed gate fails at once (its failure edge zeroes the record), so the
                // live bit alone says "open" afterwards.
                let closed = self.label();
                let open = self.label();
                self.lw.branch(&g.cond, closed, false);
                self.jump(open);
                self.place(closed);
                if let Some(live) = rec.live() {
                    self.emit(Instr::RecBit {
                        bit: live,
                        value: false,
                    });
                }
                self.place(open);
            }
            NodeKind::Wait(w) if w.time >= 0 => self.emit(Instr::LcWaitArm {
                at: rec.a,
                time: w.time,
                variation: w.variation,
            }),
            NodeKind::SendEvent(e) => self.send(&e.event),
            NodeKind::GroupScope(g) => {
                if let (Some(held), Some((name, member))) = (rec.extra(), self.recs.scope(&g.scope))
                {
                    let scope = self.str_id(name);
                    self.emit(Instr::ScopeEnter {
                        scope,
                        max: g.max_users,
                        held,
                        member,
                        group: self.recs.group,
                    });
                }
            }
            NodeKind::Hooks(h) => {
                if let Some(c) = &h.enter {
                    self.hook(c, 0);
                }
            }
            _ => {}
        }
    }

    /// A hooks call: an action with `phase` (status ignored) or a function (value ignored).
    pub(super) fn hook(&mut self, c: &CallExpr, phase: u8) {
        let (import, argc) = self.lw.call_args(c);
        self.emit(Instr::LcCall {
            import,
            argc,
            phase,
        });
    }

    /// A GroupScope's terminate step: leave scope `scope` if the node's record holds it.
    fn leave_scope(&mut self, scope: &str, rec: Rec) {
        if let (Some(held), Some((name, member))) = (rec.extra(), self.recs.scope(scope)) {
            let scope = self.str_id(name);
            self.emit(Instr::ScopeLeave {
                scope,
                held,
                member,
                group: self.recs.group,
            });
        }
    }

    /// The node's terminate step on a normal finish with `st`, then its records zeroed.
    fn finish(&mut self, id: NodeId, st: Status) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let rec = self.recs.of(id);
        match &node.kind {
            // A parallel's running children; the old child of a priority that found no case
            // (when it finishes with success its child has finished); a running child mapped
            // to a finished status.
            NodeKind::Parallel(_) => self.terminate_all(&node.children),
            NodeKind::Priority(_) if st == Status::Failure => self.terminate_children(id),
            NodeKind::MapStatus(m) if m.running != Status::Running => {
                self.terminate_all(&node.children)
            }
            NodeKind::GroupScope(g) => self.leave_scope(&g.scope, rec),
            NodeKind::Hooks(h) => {
                if let Some(c) = &h.exit {
                    self.hook(c, 2);
                }
            }
            _ => {}
        }
        // An action clears its own live bit (`lc.act`).
        if !matches!(tree.node(id).kind, NodeKind::Action(_)) {
            self.zero(rec.start, rec.end);
        }
    }

    fn zero(&mut self, from: u32, to: u32) {
        if to > from {
            self.emit(Instr::RecZero {
                at: from,
                len: to - from,
            });
        }
    }

    /// Terminates the live nodes among `nodes` and their subtrees (post-order, each guarded by
    /// its live bit), then zeroes the records `from .. to`.
    pub(super) fn abort(&mut self, nodes: &[NodeId], from: u32, to: u32) {
        self.terminate_all(nodes);
        self.zero(from, to);
    }

    /// The terminate effects of the live nodes among `nodes` and their subtrees.
    fn terminate_all(&mut self, nodes: &[NodeId]) {
        for &n in nodes {
            self.terminate_walk(n);
        }
    }

    /// Terminates the live nodes below `id` (a state machine or priority), then zeroes its
    /// children's records.
    pub(super) fn abort_children(&mut self, id: NodeId) {
        let rec = self.recs.of(id);
        self.terminate_children(id);
        self.zero(rec.children, rec.end);
    }

    /// The terminate effects below `id`: under an overlaying node (its children's records
    /// overlaid, `records::overlays`) only in the child its field `a` names, since the other
    /// children's records hold that child's data; else in every child.
    fn terminate_children(&mut self, id: NodeId) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        if !overlays(&node.kind, false) {
            return self.terminate_all(&node.children);
        }
        let rec = self.recs.of(id);
        let bias = u32::from(matches!(node.kind, NodeKind::Priority(_)));
        let walks: Vec<(u32, NodeId)> = (node.children.iter().enumerate())
            .filter(|&(_, &c)| self.has_exits(c))
            .map(|(k, &c)| (k as u32 + bias, c))
            .collect();
        if walks.is_empty() {
            return;
        }
        let done = self.label();
        let labels: Vec<Label> = walks.iter().map(|_| self.label()).collect();
        for (&(value, _), &to) in walks.iter().zip(&labels) {
            self.emit(Instr::RecJumpEq {
                at: rec.a,
                width: rec.a_width,
                value,
                to,
            });
        }
        self.jump(done);
        for (&(_, c), &l) in walks.iter().zip(&labels) {
            self.place(l);
            self.terminate_walk(c);
            self.jump(done);
        }
        self.place(done);
    }

    /// Whether `id`'s subtree has a node with terminate effects of its own.
    fn has_exits(&self, id: NodeId) -> bool {
        let tree = self.lw.tree;
        let rec = self.recs.of(id);
        let own = match &tree.node(id).kind {
            NodeKind::Action(_) => rec.live().is_some(),
            NodeKind::Hooks(h) => rec.live().is_some() && h.exit.is_some(),
            NodeKind::GroupScope(g) => rec.extra().is_some() && self.recs.scope(&g.scope).is_some(),
            _ => false,
        };
        own || tree.node(id).children.iter().any(|&c| self.has_exits(c))
    }

    /// The terminate effects in `id`'s subtree, innermost first, each node's mapped to it in
    /// the code map.
    fn terminate_walk(&mut self, id: NodeId) {
        if self.full() {
            return;
        }
        self.terminate_children(id);
        let previous = self.lw.asm.enter(id.0);
        self.terminate_node(id);
        self.lw.asm.leave(previous);
    }

    /// `id`'s own terminate effects.
    fn terminate_node(&mut self, id: NodeId) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let rec = self.recs.of(id);
        match &node.kind {
            NodeKind::Action(c) => {
                if let Some(live) = rec.live() {
                    self.exit_if_live(live, c);
                }
            }
            NodeKind::Hooks(h) => {
                if let (Some(live), Some(c)) = (rec.live(), &h.exit) {
                    self.exit_if_live(live, c);
                }
            }
            NodeKind::GroupScope(g) => self.leave_scope(&g.scope, rec),
            _ => {}
        }
    }

    /// The call `c` with phase `exit`, if the node's `live` bit is set.
    fn exit_if_live(&mut self, live: RBit, c: &CallExpr) {
        let skip = self.unless(live);
        self.hook(c, 2);
        self.place(skip);
    }

    /// A jump over what follows when `bit` is clear (the record's node is not live, the
    /// event did not arrive...); the label to place after it.
    pub(super) fn unless(&mut self, bit: RBit) -> Label {
        let skip = self.label();
        self.emit(Instr::RecJump {
            bit,
            when: false,
            to: skip,
        });
        skip
    }
}
