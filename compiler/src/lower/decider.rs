//! Lowering of the decider model (Spore, `spec/spore.md` 2).
//!
//! The whole tree is one entry function with static control flow. Includes (shared deciders)
//! are inlined at every use: a shared node's state slots (its group record, its `every` timer)
//! are the same at every site, which is right because a node is on the active path at most
//! once. The tick:
//!
//! ```text
//!   dec.begin                       ; clear the loop-guard flag, expire stimuli
//!   dec.jump.root   → root.visit
//!   decide(root)    → none          ; preconditions, then the score
//!   dec.root true; jump root.activate
//!   <the root's body>               ; success → ok, failure → rootfail
//! ok:       finish running
//! guard:    dec.guard               ; every `dec.redecide` past the limit comes here
//! rootfail: <deactivate the root>; dec.root false
//! none:     finish failure
//! ```
//!
//! A decider's body has two entries, *activate* and *visit*, and two exits. A behavior decider
//! is a few `behave` calls. A group decider `d` (group `g`, children `c0..cn`) is, in order:
//!
//! - the entries: the group behavior's calls, `dec.enter g` (no child masked or picked), then a
//!   jump to the choice (activate), or to the active child's visit entry (`dec.jump.active`
//!   chain; `prioritized` visits through the scan below instead, which meets the active child
//!   after trying the higher-priority ones);
//! - with the `redecide` flag, a block that recomputes `d`'s score before the choice;
//! - the choice: `prioritized`/`sequential` scan positions `scan[j]` (masked? active? decide,
//!   `dec.pick`, switch); `random`/`scored` collect the accepting candidates and draw
//!   (`dec.draw`/`dec.best`);
//! - the switch: deactivate the active child (a `dec.jump.active` chain over one inline
//!   deactivation per child), then `dec.set` the picked child (a `dec.jump.pick` chain) and jump
//!   to its activate entry;
//! - the children's bodies, each followed by its failure handler: the failed child joins the
//!   group's mask (`sequential`, after a failed visit: with every child before it) and the
//!   group redecides, which starts the choice over (the scan from its first position, or the
//!   collection of candidates). `dec.redecide` is the only backward jump, and it is counted.
//!
//! Traced (`lower_traced`, `spec/semantics.md` 4.7): each `decide(d)` is wrapped in
//! `node.enter d` and a `node.exit` on its accept (success) and reject (failure) edges; each
//! body's two entries enter `d` and its exits finish it (running, failure); each
//! `dec.redecide` gets its own guard exit that finishes the deciders open at it before the loop
//! guard. The untraced program has none of these: it is the program of a build without them.
//!
//! Code grows with the number of include sites times the size of what they include; a tree
//! whose code would pass `Limits::max_program_instructions` is refused as `ProgramTooLarge`
//! before it is built.

use btvm::program::{
    Back, Field, Group, Imp, Instr, Label, Layout, Probe, ProgramModel, ProgramParts, Timer,
    DECIDER_HEADER, GROUP_RECORD, STIMULUS_RECORD,
};
use btvm::{BinOp, Limits, Program, Status};

use super::layout::Slots;
use super::{main_root, string_table, var_names, var_values, verified, Lower};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{
    BehaviorRef, Decider, Expr, FlagTest, Group as GroupKnobs, NodeId, NodeKind, Policy, Precision,
    Tree,
};
use crate::source::{SourceMap, Span};

/// Compiles a decider-model tree; with `trace`, the traced program (`lower_traced`).
pub(super) fn lower(
    tree: &Tree,
    limits: &Limits,
    limit: u32,
    (span, src): (Span, Option<&SourceMap>),
    trace: bool,
) -> Result<Program, Vec<Diagnostic>> {
    let root = main_root(tree, span)?;
    let strings = crate::ir::analysis::intern_strings(tree);
    let slots = Slots::new(tree, 0);
    let numbers = Numbers::new(tree);
    let mut lw = Lower::new(tree, &slots, &strings);
    lw.trace = trace;
    let guard = lw.asm.label();
    let mut dl = DeciderLower {
        lw: &mut lw,
        numbers: &numbers,
        guard,
        budget: limits.max_program_instructions as u64,
        too_large: false,
        open: Vec::new(),
        guard_exits: Vec::new(),
    };
    dl.tick(root);
    if dl.too_large {
        return Err(vec![Diagnostic::new(
            ErrorKind::ProgramTooLarge,
            span,
            format!(
                "the tree's program is beyond a limit: more than {} instructions (shared deciders are compiled at every use)",
                limits.max_program_instructions
            ),
        )
        .with_note("a smaller tree, fewer uses of large shared deciders or larger `Limits` fit")]);
    }
    let end = lw.asm.here();
    let super::asm::Assembled {
        code,
        index,
        nodes: map,
    } = lw.asm.finish();
    let parts = ProgramParts {
        model: ProgramModel::Decider { limit },
        single_precision: tree.config.precision == Precision::Single,
        clock: tree.config.clock,
        layout: numbers.layout,
        strings: string_table(&strings),
        imports: tree.imports.clone(),
        vars: var_values(tree, &strings),
        var_names: var_names(tree),
        temps: 0,
        functions: vec![btvm::program::Function {
            name: tree.roots[0].name.clone(),
            kind: btvm::program::FunctionKind::Entry,
            start: 0,
            end: index[end as usize],
        }],
        rules: Vec::new(),
        stimuli: u32::try_from(tree.stimuli.len()).unwrap_or(u32::MAX),
        code,
        nodes: btvm::program::NodeTable {
            cells: super::cells::decider(tree, &numbers.layout, &numbers.group, &numbers.timer),
            overlays: Vec::new(),
            code: map,
            ..super::nodes::table(tree, decider_probes(tree, root, &numbers), src)
        },
    };
    verified(parts, limits, span)
}

/// Where the decider state shows a node active: the root decider's flag, and each group's
/// active-child byte for the group's children (deciders, through includes).
fn decider_probes(tree: &Tree, root: NodeId, numbers: &Numbers) -> Vec<(u32, Probe)> {
    let mut probes = vec![(root.0, Probe::Root)];
    for (i, node) in tree.nodes.iter().enumerate() {
        if let NodeKind::Group(_) = node.kind {
            for (k, &c) in node.children.iter().enumerate() {
                let probe = Probe::Child {
                    group: numbers.group[i],
                    child: k as u32,
                };
                // The include node (on the group's path) and the decider it names.
                probes.push((c.0, probe));
                let target = tree.through_includes(c);
                if target != c {
                    probes.push((target.0, probe));
                }
            }
        }
    }
    probes
}

/// The state slots of the tree's nodes, and the layout they make.
struct Numbers {
    /// Group record per `group` node (arena order).
    group: Vec<u32>,
    /// `every` timer per decider that has one (arena order).
    timer: Vec<u32>,
    layout: Layout,
}

impl Numbers {
    fn new(tree: &Tree) -> Numbers {
        let n = tree.nodes.len();
        let (mut group, mut timer) = (vec![0; n], vec![0; n]);
        let (mut groups, mut timers) = (0u32, 0u32);
        let mut rng = false;
        for (i, node) in tree.nodes.iter().enumerate() {
            match &node.kind {
                NodeKind::Group(g) => {
                    group[i] = groups;
                    groups += 1;
                    rng |= g.policy == Policy::Random;
                }
                NodeKind::Decider(d) if d.pre.every_ms.is_some() => {
                    timer[i] = timers;
                    timers += 1;
                }
                _ => {}
            }
            for e in node.kind.exprs() {
                e.walk(|x| rng |= matches!(x, Expr::Random));
            }
        }
        let stimuli = u32::try_from(tree.stimuli.len()).unwrap_or(u32::MAX);
        // flags byte, header, group records, stimulus records, timers, rng.
        let mut at: u64 = 1;
        let mut take = |len: u64| {
            let a = at;
            at += len;
            u32::try_from(a).unwrap_or(u32::MAX)
        };
        let decider = take(u64::from(DECIDER_HEADER));
        let groups_at = take(u64::from(GROUP_RECORD) * u64::from(groups));
        let stimuli_at = take(u64::from(STIMULUS_RECORD) * u64::from(stimuli));
        let timers_at = take(8 * u64::from(timers));
        let rng_at = rng.then(|| take(8));
        let layout = Layout {
            size: u32::try_from(at).unwrap_or(u32::MAX),
            timers: timers_at,
            timer_count: timers,
            rng: rng_at,
            flags: Field {
                offset: 0,
                width: 1,
            },
            decider,
            groups: groups_at,
            group_count: groups,
            stimuli: stimuli_at,
            ..Layout::default()
        };
        Numbers {
            group,
            timer,
            layout,
        }
    }
}

/// A decider body's two entries.
#[derive(Clone, Copy)]
struct Entries {
    activate: Label,
    visit: Label,
}

/// What a child's Decide feeds when it accepts.
#[derive(Clone, Copy)]
enum Mode {
    /// Nothing: fall through.
    Accept,
    /// The group's candidate set (`random`).
    Cand(u32, u8),
    /// The group's candidates with their scores (`scored`).
    Score(u32, u8),
}

/// One group decider's body while it is compiled: its record, children and the labels its
/// parts share.
struct GroupCode {
    /// The group's record number.
    g: u32,
    kids: Vec<NodeId>,
    policy: Policy,
    /// Each child's entries.
    entries: Vec<Entries>,
    /// Where the choice starts.
    choose: Label,
    /// After the choice: the picked child is activated.
    switch: Label,
}

impl GroupCode {
    fn grp(&self) -> Group {
        Group(self.g)
    }
}

struct DeciderLower<'l, 'a> {
    lw: &'l mut Lower<'a>,
    numbers: &'l Numbers,
    /// The loop-guard exit.
    guard: Label,
    /// Most instructions before the tree is refused as too large.
    budget: u64,
    too_large: bool,
    /// Traced: the deciders whose run is entered where code is being emitted, outermost first.
    open: Vec<NodeId>,
    /// Traced: each redecide's own guard exit, finishing the deciders open at it.
    guard_exits: Vec<(Label, Vec<NodeId>)>,
}

impl DeciderLower<'_, '_> {
    fn emit(&mut self, i: Instr) {
        self.lw.asm.emit(i);
    }

    fn label(&mut self) -> Label {
        self.lw.asm.label()
    }

    fn place(&mut self, l: Label) {
        self.lw.asm.place(l);
    }

    fn jump(&mut self, to: Label) {
        self.emit(Instr::Jump { to });
    }

    /// Whether the code has outgrown the limit (then nothing more is emitted).
    fn full(&mut self) -> bool {
        if u64::from(self.lw.asm.here()) > self.budget {
            self.too_large = true;
        }
        self.too_large
    }

    fn tree(&self) -> &Tree {
        self.lw.tree
    }

    /// The tick (see the module docs).
    fn tick(&mut self, root: NodeId) {
        let root = self.tree().through_includes(root);
        let e = Entries {
            activate: self.label(),
            visit: self.label(),
        };
        let (ok, rootfail, none) = (self.label(), self.label(), self.label());
        self.emit(Instr::DecBegin {});
        self.emit(Instr::DecJumpRoot { to: e.visit });
        self.decide(root, none, Mode::Accept);
        self.emit(Instr::DecRoot { on: true });
        self.jump(e.activate);
        self.body(root, e, ok, rootfail);
        self.place(ok);
        self.emit(Instr::Finish {
            status: Status::Running,
        });
        self.guard_exits();
        let guard = self.guard;
        self.place(guard);
        self.emit(Instr::DecGuard {});
        self.place(rootfail);
        self.deactivate(root);
        self.emit(Instr::DecRoot { on: false });
        self.place(none);
        self.emit(Instr::Finish {
            status: Status::Failure,
        });
    }

    fn knobs(&self, d: NodeId) -> Option<&Decider> {
        match &self.tree().node(d).kind {
            NodeKind::Decider(k) => Some(k),
            _ => None,
        }
    }

    /// What decider `d` runs: a behavior or a group (through includes).
    fn target(&self, d: NodeId) -> NodeId {
        crate::ir::analysis::decider_target(self.tree(), d)
    }

    /// A group's children (deciders, through includes).
    fn children(&self, g: NodeId) -> Vec<NodeId> {
        let tree = self.tree();
        tree.node(g)
            .children
            .iter()
            .map(|&c| tree.through_includes(c))
            .collect()
    }

    /// Calls one of a behavior's functions (when it has it); false jumps to `fail`.
    fn behave(&mut self, b: BehaviorRef, phase: u8, fail: Label) {
        let has = match phase {
            0 => b.activate,
            1 => b.tick,
            _ => b.deactivate,
        };
        if has {
            self.emit(Instr::Behave {
                import: Imp(b.import.0),
                phase,
                fail,
            });
        }
    }

    /// A `deactivate` call (its result is ignored: the label is the next instruction).
    fn behave_exit(&mut self, b: BehaviorRef) {
        if b.deactivate {
            let next = self.label();
            self.behave(b, 2, next);
            self.place(next);
        }
    }

    /// Jumps to `reject` unless `e`'s value as a double is `> 0` (NaN rejects).
    fn score_test(&mut self, e: &Expr, reject: Label) {
        let (op, when, k) = (BinOp::Gt, false, 0.0);
        match e {
            Expr::Call(c) => {
                let (import, argc) = self.lw.call_args(c);
                self.emit(Instr::CallFnCmpK {
                    import,
                    argc,
                    op,
                    when,
                    k,
                    to: reject,
                });
            }
            _ => {
                self.lw.value(e);
                self.emit(Instr::JumpIfCmpK {
                    op,
                    when,
                    k,
                    to: reject,
                });
            }
        }
    }

    /// `decide(d)`, its instructions mapped to `d` in the code map; traced, inside `d`'s
    /// node events (finished with success when it accepts, failure when it rejects).
    fn decide(&mut self, d: NodeId, reject: Label, mode: Mode) {
        let previous = self.lw.asm.enter(d.0);
        if self.lw.trace {
            self.emit(Instr::NodeEnter { node: d.0 });
            let (rejected, accepted) = (self.label(), self.label());
            self.decide_in(d, rejected, mode);
            self.node_exit(d, Status::Success, accepted);
            self.place(rejected);
            self.node_exit(d, Status::Failure, reject);
            self.place(accepted);
        } else {
            self.decide_in(d, reject, mode);
        }
        self.lw.asm.leave(previous);
    }

    /// `node.exit d status`, then a jump to `to`.
    fn node_exit(&mut self, d: NodeId, status: Status, to: Label) {
        self.emit(Instr::NodeExit { node: d.0, status });
        self.jump(to);
    }

    /// `decide(d)` (2.3): falls through when `d` accepts (feeding `mode`), else jumps to
    /// `reject`.
    fn decide_in(&mut self, d: NodeId, reject: Label, mode: Mode) {
        let Some(k) = self.knobs(d).cloned() else {
            return self.jump(reject);
        };
        let timer = Timer(self.numbers.timer[d.index()]);
        if k.pre.every_ms.is_some() {
            self.emit(Instr::DecWait { timer, to: reject });
        }
        let test = |t: FlagTest, stimuli: bool| Instr::DecTest {
            stimuli,
            mask: t.mask,
            all: t.all,
            set: t.set,
            to: reject,
        };
        if let Some(t) = k.pre.decision {
            self.emit(test(t, false));
        }
        if let Some(t) = k.pre.stimuli {
            self.emit(test(t, true));
        }
        if let Some(ms) = k.pre.every_ms {
            self.emit(Instr::DecStamp { timer, ms });
        }
        match mode {
            Mode::Score(g, child) => {
                match &k.decide {
                    Some(e) => self.lw.value(e),
                    None => self.emit(Instr::PushFloat { value: 1.0 }),
                }
                self.emit(Instr::DecScore {
                    group: Group(g),
                    child,
                    reject,
                });
            }
            Mode::Accept | Mode::Cand(..) => {
                if let Some(e) = &k.decide {
                    self.score_test(e, reject);
                }
                if let Mode::Cand(g, child) = mode {
                    self.emit(Instr::DecCand {
                        group: Group(g),
                        child,
                    });
                }
            }
        }
    }

    /// The `redecide` flag's second Decide of `d`: stamps its timer, recomputes its score and
    /// jumps to `reject` unless it accepts.
    fn recompute(&mut self, d: NodeId, reject: Label) {
        let Some(k) = self.knobs(d).cloned() else {
            return;
        };
        let previous = self.lw.asm.enter(d.0);
        if let Some(ms) = k.pre.every_ms {
            let timer = Timer(self.numbers.timer[d.index()]);
            self.emit(Instr::DecStamp { timer, ms });
        }
        if let Some(e) = &k.decide {
            self.score_test(e, reject);
        }
        self.lw.asm.leave(previous);
    }

    /// The body of decider `d`, its instructions mapped to `d` in the code map (what it runs,
    /// a behavior's calls or a group's code, to that node).
    fn body(&mut self, d: NodeId, e: Entries, s: Label, f: Label) {
        let previous = self.lw.asm.enter(d.0);
        if self.lw.trace {
            self.body_traced(d, e, s, f);
        } else {
            self.body_in(d, e, s, f);
        }
        self.lw.asm.leave(previous);
    }

    /// The traced body of `d`: each entry enters `d`, the body's exits finish it with running
    /// (it worked) or failure (`spec/semantics.md` 4.7, Decider).
    fn body_traced(&mut self, d: NodeId, e: Entries, s: Label, f: Label) {
        let inner = Entries {
            activate: self.label(),
            visit: self.label(),
        };
        let (worked, failed) = (self.label(), self.label());
        self.place(e.visit);
        self.emit(Instr::NodeEnter { node: d.0 });
        self.jump(inner.visit);
        self.place(e.activate);
        self.emit(Instr::NodeEnter { node: d.0 });
        self.open.push(d);
        self.body_in(d, inner, worked, failed);
        self.open.pop();
        self.lw.asm.enter(d.0);
        self.place(worked);
        self.node_exit(d, Status::Running, s);
        self.place(failed);
        self.node_exit(d, Status::Failure, f);
    }

    /// The body of decider `d`, entered at `e`, leaving at `s` (it worked) or `f` (it failed).
    fn body_in(&mut self, d: NodeId, e: Entries, s: Label, f: Label) {
        if self.full() {
            return;
        }
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => {
                self.lw.asm.enter(t.0);
                self.place(e.activate);
                self.behave(b, 0, f);
                self.behave(b, 1, f);
                self.jump(s);
                self.place(e.visit);
                self.behave(b, 1, f);
                self.jump(s);
            }
            NodeKind::Group(g) => {
                self.lw.asm.enter(t.0);
                self.group(d, t, g, e, s, f)
            }
            // `check` makes every decider run a behavior or a group.
            _ => {
                self.place(e.activate);
                self.place(e.visit);
                self.jump(f);
            }
        }
    }

    /// A group decider's body (see the module docs): its entries, the choice, the switch to
    /// the picked child, then the children, each with its failure handler.
    fn group(&mut self, d: NodeId, t: NodeId, knobs: GroupKnobs, e: Entries, s: Label, f: Label) {
        let kids = self.children(t);
        let n = kids.len();
        let entries: Vec<Entries> = kids
            .iter()
            .map(|_| Entries {
                activate: self.label(),
                visit: self.label(),
            })
            .collect();
        let scans = matches!(knobs.policy, Policy::Prioritized | Policy::Sequential);
        // Choice positions: `scan[0..=n]` or `collect`.
        let scan: Vec<Label> = if scans {
            (0..=n).map(|_| self.label()).collect()
        } else {
            Vec::new()
        };
        let collect = self.label();
        let gc = GroupCode {
            g: self.numbers.group[t.index()],
            kids,
            policy: knobs.policy,
            entries,
            choose: if scans { scan[0] } else { collect },
            switch: self.label(),
        };
        self.group_entries(&gc, knobs.behavior, e, f);
        let redecide_to = self.redecide_target(d, gc.choose, f);
        if scans {
            self.group_scan(&gc, &scan, f);
        } else {
            self.group_collect(&gc, collect, f);
        }
        self.group_switch(&gc, f);
        self.group_children(&gc, s, redecide_to);
    }

    /// The group's entries: activation runs the group's behavior's activate and visit, then
    /// the choice; a visit resumes the active child (a prioritized group chooses again).
    fn group_entries(
        &mut self,
        gc: &GroupCode,
        behavior: Option<BehaviorRef>,
        e: Entries,
        f: Label,
    ) {
        let grp = gc.grp();
        self.place(e.activate);
        if let Some(b) = behavior {
            self.behave(b, 0, f);
            self.behave(b, 1, f);
        }
        self.emit(Instr::DecEnter { group: grp });
        self.jump(gc.choose);
        self.place(e.visit);
        if let Some(b) = behavior {
            self.behave(b, 1, f);
        }
        self.emit(Instr::DecEnter { group: grp });
        if gc.policy != Policy::Prioritized {
            for (k, ce) in gc.entries.iter().enumerate() {
                self.emit(Instr::DecJumpActive {
                    group: grp,
                    active: (k + 1) as u8,
                    to: ce.visit,
                });
            }
        }
        self.jump(gc.choose);
    }

    /// The redecide target: the choice from its start, after the `redecide` flag's
    /// recomputation of `d`'s score.
    fn redecide_target(&mut self, d: NodeId, choose: Label, f: Label) -> Label {
        if self.knobs(d).is_some_and(|k| k.decide_on_redecide) {
            let r = self.label();
            self.place(r);
            self.recompute(d, f);
            self.jump(choose);
            r
        } else {
            choose
        }
    }

    /// The choice of a prioritized or sequential group: the first unmasked child that
    /// accepts (a prioritized group keeps its active child when it comes first).
    fn group_scan(&mut self, gc: &GroupCode, scan: &[Label], f: Label) {
        let grp = gc.grp();
        for (j, &c) in gc.kids.iter().enumerate() {
            self.place(scan[j]);
            let next = scan[j + 1];
            self.emit(Instr::DecJumpMasked {
                group: grp,
                child: j as u8,
                to: next,
            });
            if gc.policy == Policy::Prioritized {
                self.emit(Instr::DecJumpActive {
                    group: grp,
                    active: (j + 1) as u8,
                    to: gc.entries[j].visit,
                });
            }
            self.decide(c, next, Mode::Accept);
            self.emit(Instr::DecPick {
                group: grp,
                child: j as u8,
            });
            self.jump(gc.switch);
        }
        self.place(scan[gc.kids.len()]);
        self.jump(f);
    }

    /// The choice of a random or scored group: every unmasked child that accepts is a
    /// candidate; then the draw or the best score (none: failure). Falls through to the
    /// switch.
    fn group_collect(&mut self, gc: &GroupCode, collect: Label, f: Label) {
        let grp = gc.grp();
        let random = gc.policy == Policy::Random;
        self.place(collect);
        self.emit(Instr::DecCandClear { group: grp });
        for (j, &c) in gc.kids.iter().enumerate() {
            let skip = self.label();
            self.emit(Instr::DecJumpMasked {
                group: grp,
                child: j as u8,
                to: skip,
            });
            let mode = if random {
                Mode::Cand(gc.g, j as u8)
            } else {
                Mode::Score(gc.g, j as u8)
            };
            self.decide(c, skip, mode);
            self.place(skip);
        }
        self.emit(if random {
            Instr::DecDraw {
                group: grp,
                none: f,
            }
        } else {
            Instr::DecBest {
                group: grp,
                none: f,
            }
        });
    }

    /// The switch: deactivate the active child, then activate the picked one.
    fn group_switch(&mut self, gc: &GroupCode, f: Label) {
        let grp = gc.grp();
        self.place(gc.switch);
        let after = self.label();
        self.deactivate_active(grp, &gc.kids, after);
        let acts: Vec<Label> = gc.kids.iter().map(|_| self.label()).collect();
        // The first child's activation comes next: test the others.
        for (i, &l) in acts.iter().enumerate().skip(1) {
            self.emit(Instr::DecJumpPick {
                group: grp,
                child: i as u8,
                to: l,
            });
        }
        for (i, ce) in gc.entries.iter().enumerate() {
            self.place(acts[i]);
            self.emit(Instr::DecSet {
                group: grp,
                child: i as u8,
            });
            self.jump(ce.activate);
        }
        if gc.kids.is_empty() {
            self.jump(f);
        }
    }

    /// Deactivates the group's active child (if any), then goes on at `after`, which it
    /// places.
    fn deactivate_active(&mut self, grp: Group, kids: &[NodeId], after: Label) {
        let labels: Vec<Label> = kids.iter().map(|_| self.label()).collect();
        for (k, &l) in labels.iter().enumerate() {
            self.emit(Instr::DecJumpActive {
                group: grp,
                active: (k + 1) as u8,
                to: l,
            });
        }
        self.jump(after);
        for (&l, &c) in labels.iter().zip(kids) {
            self.place(l);
            self.deactivate(c);
            self.jump(after);
        }
        self.place(after);
    }

    /// The children's bodies, each with its failure handler: the failed child joins the
    /// mask and the choice starts over (`redecide_to`). Sequential: a child that failed while
    /// active masks the children before it too.
    fn group_children(&mut self, gc: &GroupCode, s: Label, redecide_to: Label) {
        let grp = gc.grp();
        for (i, &c) in gc.kids.iter().enumerate() {
            let fail = self.label();
            self.body(c, gc.entries[i], s, fail);
            if self.too_large {
                return;
            }
            self.place(fail);
            if gc.policy == Policy::Sequential {
                let activated = self.label();
                self.emit(Instr::DecJumpPick {
                    group: grp,
                    child: i as u8,
                    to: activated,
                });
                self.emit(Instr::DecMaskUpTo {
                    group: grp,
                    child: i as u8,
                });
                self.redecide(redecide_to);
                self.place(activated);
            }
            self.emit(Instr::DecMask {
                group: grp,
                child: i as u8,
            });
            self.redecide(redecide_to);
        }
    }

    /// A counted redecide back to `to`; past the limit it leaves for the loop guard (traced:
    /// through its own exit that first finishes the deciders open here).
    fn redecide(&mut self, to: Label) {
        let guard = if self.lw.trace && !self.open.is_empty() {
            let exit = self.label();
            self.guard_exits.push((exit, self.open.clone()));
            exit
        } else {
            self.guard
        };
        self.emit(Instr::DecRedecide {
            to: Back(to.0),
            guard,
        });
    }

    /// Traced: the redecides' guard exits, each finishing its open deciders with failure,
    /// innermost first, then jumping on to the loop guard (`spec/semantics.md` 4.7).
    fn guard_exits(&mut self) {
        let exits = std::mem::take(&mut self.guard_exits);
        if self.too_large {
            return;
        }
        for (exit, open) in exits {
            self.place(exit);
            for &d in open.iter().rev() {
                let previous = self.lw.asm.enter(d.0);
                self.emit(Instr::NodeExit {
                    node: d.0,
                    status: Status::Failure,
                });
                self.lw.asm.leave(previous);
            }
            let guard = self.guard;
            self.jump(guard);
        }
    }

    /// Deactivates decider `d`, its instructions mapped to `d` in the code map (what it runs to
    /// that node).
    fn deactivate(&mut self, d: NodeId) {
        let previous = self.lw.asm.enter(d.0);
        self.deactivate_in(d);
        self.lw.asm.leave(previous);
    }

    /// Deactivates decider `d` (2.5), innermost first.
    fn deactivate_in(&mut self, d: NodeId) {
        if self.full() {
            return;
        }
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => {
                self.lw.asm.enter(t.0);
                self.behave_exit(b);
            }
            NodeKind::Group(knobs) => {
                self.lw.asm.enter(t.0);
                let grp = Group(self.numbers.group[t.index()]);
                let kids = self.children(t);
                let end = self.label();
                self.deactivate_active(grp, &kids, end);
                self.emit(Instr::DecClear { group: grp });
                if let Some(b) = knobs.behavior {
                    self.behave_exit(b);
                }
            }
            _ => {}
        }
    }
}
