//! The update step of each node family in the lifecycle lowering (`spec/mbt.md` 2.5), with
//! `k.s`/`k.f` the node's finish edges and `k.r` straight to its parent.
//!
//! One function per family; `update` only dispatches. The init check, finish and terminate
//! steps are `nodes`'s: nothing here zeroes a node's own records on finishing.

use btvm::program::{Func, Instr, Label, RBit};
use btvm::Status;

use super::super::records::Rec;
use super::super::stateful::Emit;
use super::super::Cont;
use super::LcLower;
use crate::ir::{
    CallExpr, Expr, Loop, NodeId, NodeKind, Parallel, Quorum, StatusMap, Wait, WaitForEvent,
};

impl LcLower<'_, '_> {
    /// The node's update step (`spec/mbt.md` 2.5), with `k.s`/`k.f` its finish edges.
    pub(super) fn update(&mut self, id: NodeId, k: Cont) {
        let node = self.lw.tree.node(id);
        let rec = self.recs.of(id);
        let children = &node.children;
        let child = children.first().copied();
        match &node.kind {
            NodeKind::Sequence(_) => self.list(rec, children, true, k),
            NodeKind::Selector(_) => self.list(rec, children, false, k),
            NodeKind::Parallel(p) => self.parallel(rec, p, children, k),
            NodeKind::Loop(l) => self.repeat(rec, l, child, k),
            NodeKind::Priority(_) => self.priority(id, rec, children, k),
            NodeKind::StateMachine => self.state_machine(id, rec, children, k),
            NodeKind::Guard(_) => self.guard(rec, child, k),
            NodeKind::MapStatus(m) => self.map_status(m, child, k),
            NodeKind::GroupScope(_) => self.group_scope(rec, child, k),
            NodeKind::Hooks(_) => self.tick_child(child, k),
            NodeKind::Action(c) => self.action(rec, c, k),
            NodeKind::Condition(e) => self.test(e, k.f, k.s),
            NodeKind::WaitUntil(e) => self.test(e, k.r, k.s),
            NodeKind::Const(s) => self.jump(k.on(*s)),
            NodeKind::Wait(w) => self.wait(rec, w, k),
            NodeKind::SendEvent(e) => self.jump(k.on(e.then)),
            NodeKind::WaitForEvent(w) => self.wait_for_event(rec, w, k),
            NodeKind::Log(m) => self.log(m, k),
            // `check` rejected every other kind; transparent kinds never get here.
            _ => self.jump(k.f),
        }
    }

    /// Ticks `child`, or fails without one.
    pub(super) fn tick_child(&mut self, child: Option<NodeId>, k: Cont) {
        match child {
            Some(c) => self.tick(c, k),
            None => self.jump(k.f),
        }
    }

    /// Jumps to `labels[j]` when the record's index field `a` holds `j`, for every `j > 0`
    /// (index 0 falls through to `labels[0]`, placed next by the caller).
    fn jump_on_index(&mut self, rec: &Rec, labels: &[Label]) {
        for (j, &l) in labels.iter().enumerate().skip(1) {
            self.emit(Instr::RecJumpEq {
                at: rec.a,
                width: rec.a_width,
                value: j as u32,
                to: l,
            });
        }
    }

    /// Sequence (`seq`) or Selector: resume at the child in the record's index, which a
    /// running child other than the first stores.
    fn list(&mut self, rec: Rec, children: &[NodeId], seq: bool, k: Cont) {
        if children.is_empty() {
            return self.jump(if seq { k.s } else { k.f });
        }
        let entry: Vec<Label> = children.iter().map(|_| self.label()).collect();
        self.jump_on_index(&rec, &entry);
        for (j, &c) in children.iter().enumerate() {
            self.place(entry[j]);
            let next = entry.get(j + 1).copied();
            let running = if j == 0 { k.r } else { self.label() };
            let ck = if seq {
                Cont {
                    s: next.unwrap_or(k.s),
                    f: k.f,
                    r: running,
                }
            } else {
                Cont {
                    s: k.s,
                    f: next.unwrap_or(k.f),
                    r: running,
                }
            };
            self.tick(c, ck);
            if j > 0 {
                self.place(running);
                self.emit(Instr::RecSet {
                    at: rec.a,
                    width: rec.a_width,
                    value: j as u32,
                });
                self.jump(k.r);
            }
        }
    }

    /// Parallel: tick every child not finished yet (its `fin` bit), recording finished ones
    /// and successes, then the quorums (`lc.quorum`).
    fn parallel(&mut self, rec: Rec, p: &Parallel, children: &[NodeId], k: Cont) {
        let n = children.len();
        if n == 0 {
            return self.jump(k.s);
        }
        let bytes = n.div_ceil(8) as u32;
        for (i, &c) in children.iter().enumerate() {
            let fin = RBit(rec.a * 8 + i as u32);
            let ok = RBit((rec.a + bytes) * 8 + i as u32);
            let (next, s, f) = (self.label(), self.label(), self.label());
            self.emit(Instr::RecJump {
                bit: fin,
                when: true,
                to: next,
            });
            self.tick(c, Cont { s, f, r: next });
            self.place(s);
            self.emit(Instr::RecBit {
                bit: ok,
                value: true,
            });
            self.place(f);
            self.emit(Instr::RecBit {
                bit: fin,
                value: true,
            });
            self.place(next);
        }
        // Finishing terminates the running children (`finish`).
        self.emit(Instr::LcQuorum {
            at: rec.a,
            n: n as u8,
            success_all: p.success == Quorum::All,
            failure_all: p.failure == Quorum::All,
            success: k.s,
            failure: k.f,
            running: k.r,
        });
    }

    /// Loop / LoopUntilSuccess: the child is a function called once, and once more at once
    /// after a counted run if it was running at the end of the previous update.
    fn repeat(&mut self, rec: Rec, l: &Loop, child: Option<NodeId>, k: Cont) {
        let Some(c) = child else {
            return self.jump(k.f);
        };
        let Some(clive) = rec.extra() else {
            return self.jump(k.f);
        };
        let func = self.next_func;
        self.next_func += 1;
        self.bodies.push(c);
        // The status that counts a run.
        let counted = match l.exit_on {
            Status::Success => Status::Failure,
            _ => Status::Success,
        };
        let (exit, other) = (k.on(l.exit_on), k.on(counted));
        let call = |lc: &mut Self, s: Label, f: Label, r: Label| {
            lc.emit(Instr::Call {
                func: Func(func),
                success: s,
                failure: f,
                running: r,
            });
        };
        let (y1, r1) = (self.label(), self.label());
        let on = |st: Status, x: Label, y: Label, r: Label| match st {
            s if s == l.exit_on => x,
            Status::Running => r,
            _ => y,
        };
        let lbl = |st| on(st, exit, y1, r1);
        call(self, lbl(Status::Success), lbl(Status::Failure), r1);
        // A counted run: the count reached ends the loop; else the immediate restart
        // if the child was running at the end of the previous update (`was_running`,
        // which is whether it is live).
        self.place(y1);
        self.count(l.count, &rec, other);
        self.emit(Instr::RecJump {
            bit: clive,
            when: false,
            to: k.r,
        });
        self.emit(Instr::RecBit {
            bit: clive,
            value: false,
        });
        // The second status is not counted, whatever it is.
        let lbl2 = |st| on(st, exit, k.r, r1);
        call(self, lbl2(Status::Success), lbl2(Status::Failure), r1);
        self.place(r1);
        self.emit(Instr::RecBit {
            bit: clive,
            value: true,
        });
        self.jump(k.r);
    }

    /// A loop's counted run: jumps to `done` if `count` runs are reached (`runs + 1 >=
    /// count`), else counts it.
    fn count(&mut self, count: Option<u32>, rec: &Rec, done: Label) {
        if let Some(c) = count {
            self.emit(Instr::RecJumpGe {
                at: rec.a,
                width: rec.a_width,
                value: c.saturating_sub(1),
                to: done,
            });
            self.emit(Instr::RecInc {
                at: rec.a,
                width: rec.a_width,
            });
        }
    }

    /// Priority: (re)pick on entry and when a variable changed; a different pick terminates
    /// the old child; then tick the current case's child. The record holds the case's index
    /// plus one (0: none picked yet).
    fn priority(&mut self, id: NodeId, rec: Rec, children: &[NodeId], k: Cont) {
        let tree = self.lw.tree;
        let cases: Vec<(usize, NodeId)> = children
            .iter()
            .enumerate()
            .filter(|(_, &c)| matches!(tree.node(c).kind, NodeKind::Case(_)))
            .map(|(j, &c)| (j, c))
            .collect();
        let (pick, run, switch, nocase) = (self.label(), self.label(), self.label(), self.label());
        self.emit(Instr::RecJumpEq {
            at: rec.a,
            width: rec.a_width,
            value: 0,
            to: pick,
        });
        self.emit(Instr::LcJumpChanged { to: pick });
        self.jump(run);
        self.place(pick);
        let picked: Vec<Label> = cases.iter().map(|_| self.label()).collect();
        for (&(_, c), &l) in cases.iter().zip(&picked) {
            let next = self.label();
            if let NodeKind::Case(cond) = &tree.node(c).kind {
                self.lw.branch(cond, next, false);
            }
            self.jump(l);
            self.place(next);
        }
        self.jump(nocase);
        let bodies: Vec<Label> = cases.iter().map(|_| self.label()).collect();
        for ((&(j, _), &l), &b) in cases.iter().zip(&picked).zip(&bodies) {
            self.place(l);
            self.emit(Instr::RecJumpEq {
                at: rec.a,
                width: rec.a_width,
                value: j as u32 + 1,
                to: b,
            });
            self.emit(Instr::RecSet {
                at: rec.b,
                width: rec.b_width,
                value: j as u32 + 1,
            });
            self.jump(switch);
        }
        // A new pick (in `b`): terminate the old child (named by `a`: the children's records
        // are overlaid), then make the pick current.
        self.place(switch);
        self.abort_children(id);
        self.emit(Instr::RecCopy {
            dst: rec.a,
            src: rec.b,
            width: rec.a_width,
        });
        self.emit(Instr::RecSet {
            at: rec.b,
            width: rec.b_width,
            value: 0,
        });
        self.place(run);
        for (&(j, _), &b) in cases.iter().zip(&bodies).skip(1) {
            self.emit(Instr::RecJumpEq {
                at: rec.a,
                width: rec.a_width,
                value: j as u32 + 1,
                to: b,
            });
        }
        for (&(_, c), &b) in cases.iter().zip(&bodies) {
            self.place(b);
            self.tick(c, k);
        }
        if cases.is_empty() {
            self.jump(k.f);
        }
        // No case holds: failure (the finish terminates the old child).
        self.place(nocase);
        self.jump(k.f);
    }

    /// StateMachine: a pending transition (`b`, set by an event) terminates the current
    /// state's tree and becomes current (`a`); then tick the current state's tree.
    fn state_machine(&mut self, id: NodeId, rec: Rec, states: &[NodeId], k: Cont) {
        let Some(pending) = rec.extra() else {
            return self.jump(k.f);
        };
        if states.is_empty() {
            return self.jump(k.f);
        }
        let run = self.label();
        self.emit(Instr::RecJump {
            bit: pending,
            when: false,
            to: run,
        });
        self.abort_children(id);
        self.emit(Instr::RecCopy {
            dst: rec.a,
            src: rec.b,
            width: rec.a_width,
        });
        self.emit(Instr::RecBit {
            bit: pending,
            value: false,
        });
        self.place(run);
        let entry: Vec<Label> = states.iter().map(|_| self.label()).collect();
        self.jump_on_index(&rec, &entry);
        for (&l, &c) in entry.iter().zip(states) {
            self.place(l);
            self.tick(c, k);
        }
    }

    /// An on-entry guard: open (the init check closed nothing that got here) ticks the
    /// child; closed fails.
    fn guard(&mut self, rec: Rec, child: Option<NodeId>, k: Cont) {
        let open = self.label();
        if let Some(live) = rec.live() {
            self.emit(Instr::RecJump {
                bit: live,
                when: true,
                to: open,
            });
        }
        self.jump(k.f);
        self.place(open);
        self.tick_child(child, k);
    }

    /// MapStatus: the child's statuses mapped. A running child mapped to a finished status
    /// is terminated by the finish.
    fn map_status(&mut self, m: &StatusMap, child: Option<NodeId>, k: Cont) {
        let Some(c) = child else {
            return self.jump(k.f);
        };
        self.tick(
            c,
            Cont {
                s: k.on(m.success),
                f: k.on(m.failure),
                r: k.on(m.running),
            },
        );
    }

    /// GroupScope: fails unless the init step entered the scope, else ticks the child.
    fn group_scope(&mut self, rec: Rec, child: Option<NodeId>, k: Cont) {
        let Some(held) = rec.extra() else {
            return self.jump(k.f);
        };
        self.emit(Instr::RecJump {
            bit: held,
            when: false,
            to: k.f,
        });
        self.tick_child(child, k);
    }

    /// A host action (`lc.act`, which keeps the live bit).
    fn action(&mut self, rec: Rec, c: &CallExpr, k: Cont) {
        let Some(live) = rec.live() else {
            return self.jump(k.f);
        };
        let (import, argc) = self.lw.call_args(c);
        self.emit(Instr::LcAct {
            import,
            argc,
            live,
            success: k.s,
            failure: k.f,
            running: k.r,
        });
    }

    /// Condition (`otherwise` = failure) and WaitUntil (`otherwise` = running): `then` when
    /// `e` holds.
    fn test(&mut self, e: &Expr, otherwise: Label, then: Label) {
        self.lw.branch(e, otherwise, false);
        self.jump(then);
    }

    /// Wait / Timeout: running until the time armed by the init step is up; a negative
    /// duration never ends.
    fn wait(&mut self, rec: Rec, w: &Wait, k: Cont) {
        if w.time >= 0 {
            self.emit(Instr::LcJumpWait { at: rec.a, to: k.r });
            self.jump(k.on(w.result));
        } else {
            self.jump(k.r);
        }
    }

    /// WaitForEvent: its result once the event arrived while it was live, else running (and
    /// live).
    fn wait_for_event(&mut self, rec: Rec, w: &WaitForEvent, k: Cont) {
        let (Some(live), Some(arrived)) = (rec.live(), rec.extra()) else {
            return self.jump(k.r);
        };
        let waiting = self.unless(arrived);
        self.jump(k.on(w.result));
        self.place(waiting);
        self.emit(Instr::RecBit {
            bit: live,
            value: true,
        });
        self.jump(k.r);
    }

    /// Log: the message, then success.
    fn log(&mut self, m: &str, k: Cont) {
        let msg = self.str_id(m);
        self.emit(Instr::LcLog { msg });
        self.jump(k.s);
    }
}
