//! Lowering of the selection model (BST, `spec/bst.md` 2).
//!
//! The main tree is one entry function. Evaluation is compiled with two continuations per
//! node — *found* (a leaf was selected) and *none* — and a `select` leaf does the selection
//! itself (`sel.leaf`: `changed` cleared, the host told when the leaf differs) before jumping
//! to its parent's *found* edge, where a sequence records its index. The tick:
//!
//! ```text
//!   sel.begin → unchanged          ; nothing changed: keep the current leaf
//!   eval(root)  found → ok, none → none
//! ok:        finish success
//! none:      sel.none; finish failure
//! unchanged: sel.jump.leaf → ok; finish failure
//! ```
//!
//! "The previous leaf is a descendant" is one range test (`sel.jump.prev`), since leaves are
//! numbered in arena order and a subtree's leaves are contiguous. A state machine's walk is a
//! block per state (its transitions' conditions in order, each firing one `sel.visit` that
//! jumps to the target state's block, possibly backwards); `sel.visit` takes the transition
//! and ends the chain at a visited state, and counts every jump on the tick's step counter, whose limit (the program's) is the
//! total number of states, which no walk can exceed. Each signal name has an event function
//! that runs its bindings.

use std::collections::{HashMap, HashSet};

use btvm::program::{FunctionKind, Instr, Label, ProgramModel, Str, Var};
use btvm::{Limits, Program, Status};

use super::layout::Slots;
use super::records::Records;
use super::stateful::{self, Budget, Emit};
use super::Lower;
use crate::diag::Diagnostic;
use crate::ir::{NodeId, NodeKind, SignalBinding, Tree, Trigger};
use crate::source::{SourceMap, Span};

/// Compiles a selection-model tree.
pub(super) fn lower(
    tree: &Tree,
    limits: &Limits,
    (span, src): (Span, Option<&SourceMap>),
    trace: bool,
) -> Result<Program, Vec<Diagnostic>> {
    let root = super::main_root(tree, span)?;
    let recs = Records::new(tree, root);
    let mut limit = 0u32;
    for (i, n) in tree.nodes.iter().enumerate() {
        if !recs.in_main(NodeId(i as u32)) {
            continue;
        }
        if let NodeKind::StateMachine = n.kind {
            limit = limit.saturating_add(n.children.len() as u32);
        }
    }
    let mut strings = crate::ir::analysis::intern_strings(tree);
    for (i, n) in tree.nodes.iter().enumerate() {
        if let (true, NodeKind::Select(b)) = (recs.in_main(NodeId(i as u32)), &n.kind) {
            strings.intern(b);
        }
    }
    let events = event_names(tree);
    let slots = Slots::new(tree, 0);
    let mut lw = stateful::state_lower(tree, &slots, &strings);
    lw.trace = trace;
    let mut sl = SelLower {
        lw: &mut lw,
        recs: &recs,
        budget: Budget::new(limits),
    };
    let mut bounds = Vec::new();
    let start = sl.lw.asm.here();
    sl.entry(root);
    bounds.push((
        tree.roots[0].name.clone(),
        FunctionKind::Entry,
        start,
        sl.lw.asm.here(),
    ));
    // Each event's bindings, found in one pass (not one pass per event).
    let mut bindings: HashMap<&str, Vec<&SignalBinding>> = HashMap::new();
    for s in &tree.signals {
        bindings.entry(s.event.as_str()).or_default().push(s);
    }
    for e in &events {
        let start = sl.lw.asm.here();
        for sig in bindings.get(e.as_str()).into_iter().flatten() {
            sl.lw.value(&sig.value);
            sl.emit(Instr::VarSet {
                var: Var(sig.var.0),
            });
        }
        sl.emit(Instr::Return {
            status: Status::Success,
        });
        bounds.push((e.clone(), FunctionKind::Event, start, sl.lw.asm.here()));
    }
    if sl.budget.exceeded {
        return Err(vec![stateful::too_large(limits, span)]);
    }
    let mut table = super::nodes::table(tree, recs.probes(tree, true), src);
    table.cells = super::cells::stateful(tree, &recs, true);
    stateful::finish(
        lw,
        bounds,
        ProgramModel::Selection { limit },
        (recs.layout, 0),
        limits,
        (span, table),
    )
}

/// Every event name the tree uses: its signals' events in file order, each once (one event
/// function each).
pub(super) fn event_names(tree: &Tree) -> Vec<String> {
    let mut seen = HashSet::new();
    tree.signals
        .iter()
        .filter(|s| seen.insert(s.event.as_str()))
        .map(|s| s.event.clone())
        .collect()
}

struct SelLower<'l, 'a> {
    lw: &'l mut Lower<'a>,
    recs: &'l Records,
    budget: Budget,
}

impl<'a> Emit<'a> for SelLower<'_, 'a> {
    fn lower(&mut self) -> &mut Lower<'a> {
        self.lw
    }

    fn budget(&mut self) -> &mut Budget {
        &mut self.budget
    }
}

impl SelLower<'_, '_> {
    /// One update (`spec/bst.md` 2.2).
    fn entry(&mut self, root: NodeId) {
        let (ok, none, unchanged) = (self.label(), self.label(), self.label());
        self.emit(Instr::SelBegin { unchanged });
        self.eval(root, ok, none);
        self.place(none);
        self.emit(Instr::SelNone {});
        self.emit(Instr::Finish {
            status: Status::Failure,
        });
        self.place(unchanged);
        self.emit(Instr::SelJumpLeaf { to: ok });
        self.emit(Instr::Finish {
            status: Status::Failure,
        });
        self.place(ok);
        self.emit(Instr::Finish {
            status: Status::Success,
        });
    }

    /// [`Self::eval_in`], its instructions mapped to `id` in the code map.
    fn eval(&mut self, id: NodeId, found: Label, none: Label) {
        let previous = self.lw.asm.enter(id.0);
        self.eval_in(id, found, none);
        self.lw.asm.leave(previous);
    }

    /// `eval(n)` (2.3): continues at `found` once a leaf was selected, else at `none`; traced
    /// when asked (a `case` has its events in [`Self::eval_case`]).
    fn eval_in(&mut self, id: NodeId, found: Label, none: Label) {
        if self.full() {
            return self.jump(none);
        }
        if !self.lw.trace || matches!(self.lw.tree.node(id).kind, NodeKind::Case(_)) {
            return self.eval_body(id, found, none);
        }
        self.traced(id, found, none, |sl, f, n| sl.eval_body(id, f, n));
    }

    /// Emits `body` between node `id`'s `node.enter` and its `node.exit`s: success on the way
    /// to `found`, failure on the way to `none` (`spec/semantics.md` 4.7).
    fn traced(
        &mut self,
        id: NodeId,
        found: Label,
        none: Label,
        body: impl FnOnce(&mut Self, Label, Label),
    ) {
        self.emit(Instr::NodeEnter { node: id.0 });
        let (f, n) = (self.label(), self.label());
        body(self, f, n);
        for (l, status, to) in [(f, Status::Success, found), (n, Status::Failure, none)] {
            self.place(l);
            self.emit(Instr::NodeExit { node: id.0, status });
            self.jump(to);
        }
    }

    /// [`Self::eval`]'s node, untraced.
    fn eval_body(&mut self, id: NodeId, found: Label, none: Label) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let rec = self.recs.of(id);
        match &node.kind {
            NodeKind::Select(b) => {
                let name = Str(self.lw.strings.lookup(b).map_or(0, |i| i.0));
                self.emit(Instr::SelLeaf {
                    leaf: self.recs.leaf[id.index()],
                    name,
                });
                self.jump(found);
            }
            NodeKind::Priority(_) => {
                for &c in &node.children {
                    let next = self.label();
                    self.eval_case(c, found, next);
                    self.place(next);
                }
                self.jump(none);
            }
            NodeKind::Sequence(_) => {
                let n = node.children.len();
                let entry: Vec<Label> = (0..=n).map(|_| self.label()).collect();
                let resume = self.label();
                let (lo, hi) = self.recs.leaves[id.index()];
                self.emit(Instr::SelJumpPrev { lo, hi, to: resume });
                self.jump(entry[0]);
                self.place(resume);
                for (j, &l) in entry.iter().enumerate().take(n).skip(1) {
                    self.emit(Instr::RecJumpEq {
                        at: rec.a,
                        width: rec.a_width,
                        value: j as u32,
                        to: l,
                    });
                }
                for (j, &c) in node.children.iter().enumerate() {
                    self.place(entry[j]);
                    let got = self.label();
                    self.eval_case(c, got, entry[j + 1]);
                    self.place(got);
                    self.emit(Instr::RecSet {
                        at: rec.a,
                        width: rec.a_width,
                        value: j as u32,
                    });
                    self.jump(found);
                }
                self.place(entry[n]);
                self.jump(none);
            }
            NodeKind::StateMachine => self.state_machine(id, found, none),
            NodeKind::Case(_) => self.eval_case(id, found, none),
            NodeKind::State(_) => match node.children.first() {
                Some(&c) => self.eval(c, found, none),
                None => self.jump(none),
            },
            // `check` rejected every other kind.
            _ => self.jump(none),
        }
    }

    /// A child of a priority or sequence: if its condition holds, `eval(child)`.
    fn eval_case(&mut self, id: NodeId, found: Label, none: Label) {
        let node = self.lw.tree.node(id);
        match &node.kind {
            NodeKind::Case(cond) if self.lw.trace => {
                self.traced(id, found, none, |sl, f, n| sl.case_body(id, cond, f, n))
            }
            NodeKind::Case(cond) => self.case_body(id, cond, found, none),
            _ => self.eval(id, found, none),
        }
    }

    /// A case: its condition, then `eval(child)`.
    fn case_body(&mut self, id: NodeId, cond: &crate::ir::Expr, found: Label, none: Label) {
        let previous = self.lw.asm.enter(id.0);
        self.lw.branch(cond, none, false);
        self.lw.asm.leave(previous);
        match self.lw.tree.node(id).children.first() {
            Some(&c) => self.eval(c, found, none),
            None => self.jump(none),
        }
    }

    /// A state machine (2.3): the start state, the walk, the state's node.
    fn state_machine(&mut self, id: NodeId, found: Label, none: Label) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let rec = self.recs.of(id);
        let n = node.children.len();
        if n == 0 {
            return self.jump(none);
        }
        let (lo, hi) = self.recs.leaves[id.index()];
        let walk = self.label();
        self.emit(Instr::SelSeen { at: rec.a });
        self.emit(Instr::SelJumpPrev { lo, hi, to: walk });
        self.emit(Instr::RecSet {
            at: rec.a,
            width: 1,
            value: 0,
        });
        self.place(walk);
        let steps: Vec<Label> = (0..n).map(|_| self.label()).collect();
        let evals: Vec<Label> = (0..n).map(|_| self.label()).collect();
        for (j, &l) in steps.iter().enumerate().skip(1) {
            self.emit(Instr::RecJumpEq {
                at: rec.a,
                width: 1,
                value: j as u32,
                to: l,
            });
        }
        for (k, &st) in node.children.iter().enumerate() {
            self.place(steps[k]);
            if let NodeKind::State(s) = &tree.node(st).kind {
                for t in &s.transitions {
                    let Trigger::When(cond) = &t.on else {
                        continue;
                    };
                    let next = self.label();
                    self.lw.branch(cond, next, false);
                    let Some(&to) = steps.get(t.to as usize) else {
                        // A target that is no state counts as visited.
                        self.jump(evals[k]);
                        self.place(next);
                        continue;
                    };
                    // Into a visited state the transition is taken and the chain ends there.
                    self.emit(Instr::SelVisit {
                        at: rec.a,
                        target: u8::try_from(t.to).unwrap_or(u8::MAX),
                        stop: evals[t.to as usize],
                        to: btvm::program::Back(to.0),
                    });
                    self.place(next);
                }
            }
            self.jump(evals[k]);
        }
        for (k, &st) in node.children.iter().enumerate() {
            self.place(evals[k]);
            match tree.node(st).children.first() {
                Some(&c) => self.eval(c, found, none),
                None => self.jump(none),
            }
        }
    }
}
