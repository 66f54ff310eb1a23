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
//!
//! `nodes` holds the node lifecycle (tick, init, finish, terminate), `update` each node
//! family's update step, `events` the event functions; this file the program's layout.

mod events;
mod nodes;
mod update;

use std::collections::{HashMap, HashSet};

use btvm::program::{FunctionKind, Instr, ProgramModel, Str};
use btvm::{Limits, Program, Status};

use super::layout::Slots;
use super::records::Records;
use super::stateful::{self, Budget, Emit};
use super::{Cont, Lower};
use crate::diag::Diagnostic;
use crate::ir::{NodeId, NodeKind, Tree, Trigger};
use crate::source::{SourceMap, Span};

/// Compiles a lifecycle-model tree.
pub(super) fn lower(
    tree: &Tree,
    limits: &Limits,
    (span, src): (Span, Option<&SourceMap>),
    trace: bool,
) -> Result<Program, Vec<Diagnostic>> {
    let root = super::main_root(tree, span)?;
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
    lw.trace = trace;
    let event_func: HashMap<String, u32> = events
        .iter()
        .enumerate()
        .map(|(k, e)| (e.clone(), 1 + k as u32))
        .collect();
    let touched = events::EventIndex::new(tree, &recs);
    let mut lc = LcLower {
        lw: &mut lw,
        recs: &recs,
        events: &event_func,
        touched: &touched,
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
    let mut table = super::nodes::table(tree, recs.probes(tree, false), src);
    table.cells = super::cells::stateful(tree, &recs, false);
    table.overlays = recs.table_overlays();
    stateful::finish(
        lw,
        bounds,
        ProgramModel::Lifecycle,
        (recs.layout, 0),
        limits,
        (span, table),
    )
}

/// Every event name the tree uses (signal bindings, timestamps, then transitions, waits and
/// sends of the main tree in arena order), each once.
pub(super) fn event_names<'t>(tree: &'t Tree, recs: &Records) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<&'t str> = HashSet::new();
    let mut add = |e: &'t str| {
        if seen.insert(e) {
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
    /// What each event's function touches.
    touched: &'l events::EventIndex<'a>,
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
}
