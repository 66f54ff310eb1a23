//! Lowering of the lifecycle model (MBT, `spec/mbt.md` 2).
//!
//! The main tree is one entry function with static control flow: every node is compiled with
//! three continuations, as in the running-list lowering, around its runtime data in the node
//! records (`records`). `tick(n)` is, in order:
//!
//! - the init check (for nodes with an init step or a start message): `rec.jump live → update`,
//!   then the start message, the live bit and the init step;
//! - the update, whose success and failure edges lead to the node's *finish*: the node's
//!   terminate step on a normal finish (a parallel's running children, a hooks exit call, a
//!   scope release), `rec.zero` of the node's records, so a finished node is initialised
//!   afresh next time, and then the success/failure message; the running edge goes straight
//!   to the parent.
//!
//! Aborting a subtree (a priority switching, a state machine taking a transition, a parallel
//! finishing, a guard or map ending a running child) is a static post-order walk over the
//! subtree's nodes with terminate effects — an action's `exit` call, a hooks exit call, a scope
//! release — each guarded by the node's live (or held) bit, then one `rec.zero` of its range:
//! only live nodes act, and live nodes form a tree from the root, so the walk does exactly what
//! the recursive `terminate` does, innermost first.
//!
//! A loop's child is compiled once, as a subtree function the loop calls up to twice per
//! update (its immediate restart), so nothing is duplicated and every jump still goes forward.
//! Each event name the tree uses has an event function (signal bindings, then timestamps, then
//! the live state machines and WaitForEvent nodes), called by `send` nodes during a tick and by
//! [`btvm::Engine::event`] between ticks. The restart function is the terminate walk over the
//! whole tree, run by [`btvm::Engine::restart_agent`].

use std::collections::HashMap;

use btvm::program::{Func, FunctionKind, Imp, Instr, Label, ProgramModel, Str, Var};
use btvm::{Limits, Program, Status};

use super::layout::Slots;
use super::records::Records;
use super::stateful::{self, Budget, Emit};
use super::{Cont, Lower};
use crate::diag::Diagnostic;
use crate::ir::{CallExpr, LogStatus, NodeId, NodeKind, Quorum, Tree, Trigger};
use crate::source::Span;

/// Compiles a lifecycle-model tree.
pub(super) fn lower(tree: &Tree, limits: &Limits, span: Span) -> Result<Program, Vec<Diagnostic>> {
    let root = stateful::main_root(tree, span)?;
    let recs = Records::new(tree, root);
    let mut strings = crate::ir::analysis::intern_strings(tree);
    // Log messages and scope names are operands too.
    for (i, n) in tree.nodes.iter().enumerate() {
        if !recs.in_main(NodeId(i as u32)) {
            continue;
        }
        match &n.kind {
            NodeKind::Log(m) => {
                strings.intern(m);
            }
            NodeKind::LogStatus(l) => {
                for m in [&l.start, &l.success, &l.failure].into_iter().flatten() {
                    strings.intern(m);
                }
            }
            NodeKind::GroupScope(g) => {
                if let Some((name, _)) = recs.scope(&g.scope) {
                    strings.intern(name);
                }
            }
            _ => {}
        }
    }
    let events = event_names(tree, &recs);
    let slots = Slots::new(tree, 0);
    let mut lw = stateful::state_lower(tree, &slots, &strings);
    let event_func: HashMap<String, u32> = events
        .iter()
        .enumerate()
        .map(|(k, e)| (e.clone(), 1 + k as u32))
        .collect();
    let mut lc = LcLower {
        lw: &mut lw,
        recs: &recs,
        events: &event_func,
        bodies: Vec::new(),
        next_func: 1 + events.len() as u32,
        budget: Budget::new(limits),
    };
    // The main tree, then the loop bodies it needs (which may need more), then the events.
    let mut bounds = Vec::new();
    let start = lc.lw.asm.here();
    lc.entry(root);
    bounds.push((
        tree.roots[0].name.clone(),
        FunctionKind::Entry,
        start,
        lc.lw.asm.here(),
    ));
    let mut body_bounds = Vec::new();
    let mut k = 0;
    while k < lc.bodies.len() && !lc.budget.exceeded {
        let child = lc.bodies[k];
        let start = lc.lw.asm.here();
        lc.body(child);
        body_bounds.push((
            format!("loop#{k}"),
            FunctionKind::Subtree,
            start,
            lc.lw.asm.here(),
        ));
        k += 1;
    }
    for e in &events {
        let start = lc.lw.asm.here();
        lc.event(e);
        bounds.push((e.clone(), FunctionKind::Event, start, lc.lw.asm.here()));
    }
    // The restart comes last in function order, after the loop bodies the code calls.
    let start = lc.lw.asm.here();
    lc.restart(root);
    let restart = (
        "restart".to_string(),
        FunctionKind::Restart,
        start,
        lc.lw.asm.here(),
    );
    if lc.budget.exceeded {
        return Err(vec![stateful::too_large(limits, span)]);
    }
    bounds.extend(body_bounds);
    bounds.push(restart);
    stateful::finish(
        lw,
        bounds,
        ProgramModel::Lifecycle,
        (recs.layout, 0),
        limits,
        span,
    )
}

/// Every event name the tree uses (signal bindings, timestamps, then transitions, waits and
/// sends of the main tree in arena order), each once.
pub(super) fn event_names(tree: &Tree, recs: &Records) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |e: &str| {
        if !out.iter().any(|x| x == e) {
            out.push(e.to_string());
        }
    };
    for s in &tree.signals {
        add(&s.event);
    }
    for t in &tree.timestamps {
        if let Some(e) = &t.set_on {
            add(e);
        }
    }
    for (i, n) in tree.nodes.iter().enumerate() {
        if !recs.in_main(NodeId(i as u32)) {
            continue;
        }
        match &n.kind {
            NodeKind::State(s) => {
                for t in &s.transitions {
                    if let Trigger::Event(e) = &t.on {
                        add(e);
                    }
                }
            }
            NodeKind::WaitForEvent(w) => add(&w.event),
            NodeKind::SendEvent(s) => add(&s.event),
            _ => {}
        }
    }
    out
}

struct LcLower<'l, 'a> {
    lw: &'l mut Lower<'a>,
    recs: &'l Records,
    /// The function of each event.
    events: &'l HashMap<String, u32>,
    /// Loop children compiled as functions, in function order after the events.
    bodies: Vec<NodeId>,
    next_func: u32,
    budget: Budget,
}

impl<'a> Emit<'a> for LcLower<'_, 'a> {
    fn lower(&mut self) -> &mut Lower<'a> {
        self.lw
    }

    fn budget(&mut self) -> &mut Budget {
        &mut self.budget
    }
}

impl LcLower<'_, '_> {
    fn tree(&self) -> &Tree {
        self.lw.tree
    }

    fn str_id(&self, s: &str) -> Str {
        Str(self.lw.strings.lookup(s).map_or(0, |i| i.0))
    }

    /// The tick (`spec/mbt.md` 2.3).
    fn entry(&mut self, root: NodeId) {
        let (s, f, r, stopped) = (self.label(), self.label(), self.label(), self.label());
        self.emit(Instr::LcBegin { stopped });
        self.tick(root, Cont { s, f, r });
        self.place(r);
        self.emit(Instr::Finish {
            status: Status::Running,
        });
        for (l, st) in [(s, Status::Success), (f, Status::Failure)] {
            self.place(l);
            self.emit(Instr::LcStop {});
            self.emit(Instr::Finish { status: st });
        }
        self.place(stopped);
        self.emit(Instr::Finish {
            status: Status::Failure,
        });
    }

    /// A loop's child as a function: `tick(child)`, returning its status.
    fn body(&mut self, child: NodeId) {
        let k = Cont {
            s: self.label(),
            f: self.label(),
            r: self.label(),
        };
        self.tick(child, k);
        for st in [Status::Success, Status::Failure, Status::Running] {
            self.place(k.on(st));
            self.emit(Instr::Return { status: st });
        }
    }

    /// The restart function (`spec/mbt.md` 2.7): the live tree terminated, innermost first,
    /// and its records zeroed; the engine then makes the whole state fresh.
    fn restart(&mut self, root: NodeId) {
        let rec = self.recs.of(root);
        self.abort(&[root], rec.start, rec.end);
        self.emit(Instr::Return {
            status: Status::Success,
        });
    }

    /// An event function (`spec/mbt.md` 2.4).
    fn event(&mut self, event: &str) {
        let done = self.label();
        self.emit(Instr::JumpStopped { to: done });
        let tree = self.lw.tree;
        for sig in tree.signals.iter().filter(|s| s.event == event) {
            self.lw.value(&sig.value);
            self.emit(Instr::VarSet {
                var: Var(sig.var.0),
            });
        }
        // Every timestamp set on the event is stamped first, then the ones they are
        // exclusive to are invalidated.
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
        for i in self.recs.root.0..=self.recs.last.0 {
            let id = NodeId(i);
            let node = tree.node(id);
            let rec = self.recs.of(id);
            match &node.kind {
                NodeKind::StateMachine => {
                    // The first transition on `event` of each state that has one.
                    let targets: Vec<(u32, u32)> = node
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
                    let (Some(live), Some(pending), false) =
                        (rec.live(), rec.extra(), targets.is_empty())
                    else {
                        continue;
                    };
                    let skip = self.label();
                    self.emit(Instr::RecJump {
                        bit: live,
                        when: false,
                        to: skip,
                    });
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
                NodeKind::WaitForEvent(w) if w.event == event => {
                    let (Some(live), Some(arrived)) = (rec.live(), rec.extra()) else {
                        continue;
                    };
                    let skip = self.label();
                    self.emit(Instr::RecJump {
                        bit: live,
                        when: false,
                        to: skip,
                    });
                    self.emit(Instr::RecBit {
                        bit: arrived,
                        value: true,
                    });
                    self.place(skip);
                }
                _ => {}
            }
        }
        self.place(done);
        self.emit(Instr::Return {
            status: Status::Success,
        });
    }

    /// `tick(n)`, through the transparent kinds (`case`, `state`, `logstatus`).
    fn tick(&mut self, id: NodeId, k: Cont) {
        if self.full() {
            return self.jump(k.f);
        }
        let node = self.tree().node(id);
        match &node.kind {
            NodeKind::Case(_) | NodeKind::State(_) => match node.children.first() {
                Some(&c) => self.tick(c, k),
                None => self.jump(k.f),
            },
            NodeKind::LogStatus(l) => match node.children.first() {
                Some(&c) => {
                    let l = l.clone();
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
    fn init_step(&self, id: NodeId) -> bool {
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

    /// Delivers `event` now (a `send`).
    fn send(&mut self, event: &str) {
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

    /// A hooks call: an action with `phase` (status ignored) or a function (value ignored).
    fn hook(&mut self, c: &CallExpr, phase: u8) {
        for a in &c.args {
            self.lw.value(&a.value);
        }
        self.emit(Instr::LcCall {
            import: Imp(c.import.0),
            argc: u8::try_from(c.args.len()).unwrap_or(u8::MAX),
            phase,
        });
    }

    /// A GroupScope's terminate step: leave scope `scope` if the node's record holds it.
    fn leave_scope(&mut self, scope: &str, rec: super::records::Rec) {
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
            NodeKind::Parallel(_) => {
                let kids = node.children.clone();
                self.terminate_all(&kids);
            }
            NodeKind::Priority(_) if st == Status::Failure => {
                let kids = node.children.clone();
                self.terminate_all(&kids);
            }
            NodeKind::MapStatus(m) if m.running != Status::Running => {
                let kids = node.children.clone();
                self.terminate_all(&kids);
            }
            NodeKind::GroupScope(g) => self.leave_scope(&g.scope, rec),
            NodeKind::Hooks(h) => {
                if let Some(c) = &h.exit {
                    let c = c.clone();
                    self.hook(&c, 2);
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
    fn abort(&mut self, nodes: &[NodeId], from: u32, to: u32) {
        self.terminate_all(nodes);
        self.zero(from, to);
    }

    /// The terminate effects of the live nodes among `nodes` and their subtrees.
    fn terminate_all(&mut self, nodes: &[NodeId]) {
        for &n in nodes {
            self.terminate_walk(n);
        }
    }

    /// The terminate effects in `id`'s subtree, innermost first.
    fn terminate_walk(&mut self, id: NodeId) {
        if self.full() {
            return;
        }
        let tree = self.lw.tree;
        let node = tree.node(id);
        for &c in &node.children {
            self.terminate_walk(c);
        }
        let rec = self.recs.of(id);
        match &node.kind {
            NodeKind::Action(c) => {
                if let Some(live) = rec.live() {
                    let skip = self.label();
                    self.emit(Instr::RecJump {
                        bit: live,
                        when: false,
                        to: skip,
                    });
                    self.hook(c, 2);
                    self.place(skip);
                }
            }
            NodeKind::Hooks(h) => {
                if let (Some(live), Some(c)) = (rec.live(), &h.exit) {
                    let skip = self.label();
                    self.emit(Instr::RecJump {
                        bit: live,
                        when: false,
                        to: skip,
                    });
                    self.hook(c, 2);
                    self.place(skip);
                }
            }
            NodeKind::GroupScope(g) => self.leave_scope(&g.scope, rec),
            _ => {}
        }
    }

    /// The node's update step (`spec/mbt.md` 2.5), with `k.s`/`k.f` its finish edges.
    fn update(&mut self, id: NodeId, k: Cont) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let rec = self.recs.of(id);
        let children = &node.children;
        let child = children.first().copied();
        match &node.kind {
            NodeKind::Sequence(_) | NodeKind::Selector(_) => {
                let seq = matches!(node.kind, NodeKind::Sequence(_));
                if children.is_empty() {
                    return self.jump(if seq { k.s } else { k.f });
                }
                let entry: Vec<Label> = children.iter().map(|_| self.label()).collect();
                for (j, &l) in entry.iter().enumerate().skip(1) {
                    self.emit(Instr::RecJumpEq {
                        at: rec.a,
                        width: rec.a_width,
                        value: j as u32,
                        to: l,
                    });
                }
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
            NodeKind::Parallel(p) => {
                let n = children.len();
                if n == 0 {
                    return self.jump(k.s);
                }
                let bytes = n.div_ceil(8) as u32;
                for (i, &c) in children.iter().enumerate() {
                    let fin = btvm::program::RBit(rec.a * 8 + i as u32);
                    let ok = btvm::program::RBit((rec.a + bytes) * 8 + i as u32);
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
            NodeKind::Loop(l) => {
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
            NodeKind::Priority(_) => {
                let cases: Vec<(usize, NodeId)> = children
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| matches!(tree.node(c).kind, NodeKind::Case(_)))
                    .map(|(j, &c)| (j, c))
                    .collect();
                let (pick, run, switch, nocase) =
                    (self.label(), self.label(), self.label(), self.label());
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
                        at: rec.a,
                        width: rec.a_width,
                        value: j as u32 + 1,
                    });
                    self.jump(switch);
                }
                // A new pick: terminate the old child.
                self.place(switch);
                let kids = children.clone();
                self.abort(&kids, rec.children, rec.end);
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
            NodeKind::StateMachine => {
                let Some(pending) = rec.extra() else {
                    return self.jump(k.f);
                };
                if children.is_empty() {
                    return self.jump(k.f);
                }
                let run = self.label();
                self.emit(Instr::RecJump {
                    bit: pending,
                    when: false,
                    to: run,
                });
                let kids = children.clone();
                self.abort(&kids, rec.children, rec.end);
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
                let states: Vec<Label> = children.iter().map(|_| self.label()).collect();
                for (j, &l) in states.iter().enumerate().skip(1) {
                    self.emit(Instr::RecJumpEq {
                        at: rec.a,
                        width: rec.a_width,
                        value: j as u32,
                        to: l,
                    });
                }
                for (j, &c) in children.iter().enumerate() {
                    self.place(states[j]);
                    self.tick(c, k);
                }
            }
            NodeKind::Guard(_) => {
                // Open (the init check closed nothing that got here): tick the child.
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
                match child {
                    Some(c) => self.tick(c, k),
                    None => self.jump(k.f),
                }
            }
            NodeKind::MapStatus(m) => {
                let Some(c) = child else {
                    return self.jump(k.f);
                };
                // A running child mapped to a finished status is terminated by the finish.
                self.tick(
                    c,
                    Cont {
                        s: k.on(m.success),
                        f: k.on(m.failure),
                        r: k.on(m.running),
                    },
                );
            }
            NodeKind::GroupScope(_) => {
                let Some(held) = rec.extra() else {
                    return self.jump(k.f);
                };
                self.emit(Instr::RecJump {
                    bit: held,
                    when: false,
                    to: k.f,
                });
                match child {
                    Some(c) => self.tick(c, k),
                    None => self.jump(k.f),
                }
            }
            NodeKind::Hooks(_) => match child {
                Some(c) => self.tick(c, k),
                None => self.jump(k.f),
            },
            NodeKind::Action(c) => {
                let Some(live) = rec.live() else {
                    return self.jump(k.f);
                };
                for a in &c.args {
                    self.lw.value(&a.value);
                }
                self.emit(Instr::LcAct {
                    import: Imp(c.import.0),
                    argc: u8::try_from(c.args.len()).unwrap_or(u8::MAX),
                    live,
                    success: k.s,
                    failure: k.f,
                    running: k.r,
                });
            }
            NodeKind::Condition(e) => {
                self.lw.branch(e, k.f, false);
                self.jump(k.s);
            }
            NodeKind::WaitUntil(e) => {
                self.lw.branch(e, k.r, false);
                self.jump(k.s);
            }
            NodeKind::Const(s) => self.jump(k.on(*s)),
            NodeKind::Wait(w) => {
                if w.time >= 0 {
                    self.emit(Instr::LcJumpWait { at: rec.a, to: k.r });
                    self.jump(k.on(w.result));
                } else {
                    self.jump(k.r);
                }
            }
            NodeKind::SendEvent(e) => self.jump(k.on(e.then)),
            NodeKind::WaitForEvent(w) => {
                let (Some(live), Some(arrived)) = (rec.live(), rec.extra()) else {
                    return self.jump(k.r);
                };
                let waiting = self.label();
                self.emit(Instr::RecJump {
                    bit: arrived,
                    when: false,
                    to: waiting,
                });
                self.jump(k.on(w.result));
                self.place(waiting);
                self.emit(Instr::RecBit {
                    bit: live,
                    value: true,
                });
                self.jump(k.r);
            }
            NodeKind::Log(m) => {
                let msg = self.str_id(m);
                self.emit(Instr::LcLog { msg });
                self.jump(k.s);
            }
            // `check` rejected every other kind; transparent kinds never get here.
            _ => self.jump(k.f),
        }
    }

    /// A loop's counted run: jumps to `done` if `count` runs are reached (`runs + 1 >=
    /// count`), else counts it.
    fn count(&mut self, count: Option<u32>, rec: &super::records::Rec, done: Label) {
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
}
