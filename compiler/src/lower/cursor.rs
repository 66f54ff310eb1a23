//! Lowering of the cursor model (Drag\[en\]gine, `spec/semantics.md` §4.2).
//!
//! The whole tree is one entry function:
//!
//! ```text
//!   cursor.dispatch           ; halted → failure; else jump to the cursor's rule
//! rule 0: …                   ; each rule's code, in arena order (the rule table's labels)
//! ```
//!
//! A rule is compiled with three continuations like any node, but they lead to its parent
//! list's "child finished" code instead of the next sibling: bubbling up is a static jump. A
//! list rule's code is its entry, then its children's rules, then one handler per child and
//! outcome; every handler starts with `cursor.step` (the finished child's run is counted) and
//! ends with `cursor.move` (to another child: counted, then straight to its code) or with
//! `cursor.set` to itself and a jump to its own continuation. Decorators above a list run on
//! entry (guards) and on its finishing status (maps); a move bypasses them, as in the
//! reference interpreter.
//!
//! This module never builds a program without the verifier.

use btvm::program::{Field, Instr, Label, Layout, NodeTable, ProgramModel, ProgramParts, RuleNo};
use btvm::{Limits, Program, Status};

use super::asm::Asm;
use super::layout::Slots;
use super::{main_root, string_table, var_names, var_values, verified, Cont, Lower};
use crate::diag::Diagnostic;
use crate::ir::analysis::Rules;
use crate::ir::{Composite, NodeId, NodeKind, Precision, Tree};
use crate::source::{SourceMap, Span};

/// Compiles a cursor-model tree.
pub(super) fn lower(
    tree: &Tree,
    limits: &Limits,
    limit: u32,
    (span, src): (Span, Option<&SourceMap>),
    trace: bool,
) -> Result<Program, Vec<Diagnostic>> {
    let root = main_root(tree, span)?;
    let strings = crate::ir::analysis::intern_strings(tree);
    let rules = Rules::new(tree);
    let slots = Slots::new(tree, 0);
    let mut lw = Lower {
        lazy_imports: true,
        trace,
        ..Lower::new(tree, &slots, &strings)
    };
    let mut starts = vec![0u32; rules.tops.len()];
    let fn_start = lw.asm.here();
    lw.asm.emit(Instr::Dispatch {});
    let k = Cont {
        s: lw.asm.label(),
        f: lw.asm.label(),
        r: lw.asm.label(),
    };
    let mut cl = CursorLower {
        lw: &mut lw,
        rules: &rules,
        starts: &mut starts,
        running: k.r,
    };
    cl.rule(root, k);
    let asm = &mut cl.lw.asm;
    asm.place(k.s);
    asm.emit(Instr::Step {});
    asm.emit(Instr::Finish {
        status: Status::Success,
    });
    asm.place(k.f);
    asm.emit(Instr::Step {});
    asm.emit(Instr::Stop {});
    asm.place(k.r);
    asm.emit(Instr::Finish {
        status: Status::Running,
    });
    let fn_end = asm.here();
    let super::asm::Assembled {
        code,
        index,
        nodes: map,
    } = lw.asm.finish();
    let at = |pos: u32| index[pos as usize];
    let rule_table = rules
        .tops
        .iter()
        .zip(&starts)
        .map(|(&top, &pos)| btvm::program::Rule {
            label: at(pos),
            id: tree.node(top).name.clone(),
        })
        .collect();
    let probes = cursor_probes(tree, &rules);
    let layout = layout(tree, rules.tops.len());
    let parts = ProgramParts {
        model: ProgramModel::Cursor { limit },
        single_precision: tree.config.precision == Precision::Single,
        clock: tree.config.clock,
        layout,
        strings: string_table(&strings),
        imports: tree.imports.clone(),
        vars: var_values(tree, &strings),
        var_names: var_names(tree),
        temps: 0,
        functions: vec![btvm::program::Function {
            name: tree.roots[0].name.clone(),
            kind: btvm::program::FunctionKind::Entry,
            start: at(fn_start),
            end: at(fn_end),
        }],
        rules: rule_table,
        stimuli: 0,
        code,
        nodes: NodeTable {
            cells: super::cells::cursor(&layout),
            overlays: Vec::new(),
            code: map,
            ..super::nodes::table(tree, probes, src)
        },
    };
    verified(parts, limits, span)
}

/// Where the cursor state shows a node active: the cursor rests on a rule, so its top node is
/// active, and so is every action that rule runs (an action below the top, as a rule's
/// conditions wrap it, belongs to the nearest rule top above it).
fn cursor_probes(tree: &Tree, rules: &Rules) -> Vec<(u32, btvm::program::Probe)> {
    use btvm::program::Probe;
    let mut rule_of: Vec<Option<u32>> = vec![None; tree.nodes.len()];
    let mut probes = Vec::new();
    // Pre-order arena: a parent's rule is known before its children's.
    for (i, node) in tree.nodes.iter().enumerate() {
        if let Some(r) = rules.index.get(i).copied().flatten() {
            rule_of[i] = Some(r);
            probes.push((i as u32, Probe::Rule(r)));
        } else if matches!(node.kind, NodeKind::Action(_)) {
            if let Some(r) = rule_of[i] {
                probes.push((i as u32, Probe::Rule(r)));
            }
        }
        let mine = rule_of[i];
        for c in &node.children {
            if let Some(slot) = rule_of.get_mut(c.index()) {
                *slot = mine;
            }
        }
    }
    probes
}

/// The state of a cursor agent: the flags byte, the cursor, then the PRNG if used.
fn layout(tree: &Tree, rules: usize) -> Layout {
    let width = match rules.saturating_sub(1) {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    };
    let mut rng = false;
    tree.for_each_expr(|e| rng |= matches!(e, crate::ir::Expr::Random));
    let flags = Field {
        offset: 0,
        width: 1,
    };
    let cursor = Field { offset: 1, width };
    let mut size = 1 + u32::from(width);
    let rng_at = rng.then(|| {
        let a = size;
        size += 8;
        a
    });
    Layout {
        size,
        rng: rng_at,
        cursor,
        flags,
        ..Layout::default()
    }
}

struct CursorLower<'l, 'a> {
    lw: &'l mut Lower<'a>,
    rules: &'l Rules,
    /// Each rule's first position in the assembler (becomes its rule-table label).
    starts: &'l mut Vec<u32>,
    /// `finish running`: a running rule ends the step with the cursor on it.
    running: Label,
}

impl CursorLower<'_, '_> {
    fn asm(&mut self) -> &mut Asm {
        &mut self.lw.asm
    }

    fn jump(&mut self, to: Label) {
        self.asm().emit(Instr::Jump { to });
    }

    /// A rule whose top node is `top`, finishing at `k`.
    fn rule(&mut self, top: NodeId, k: Cont) {
        let me = self.rules.of(top);
        self.starts[me as usize] = self.lw.asm.here();
        self.chain(top, me, k);
    }

    /// [`Self::chain_traced`], its instructions mapped to `id` in the code map.
    fn chain(&mut self, id: NodeId, me: u32, k: Cont) {
        let previous = self.lw.asm.enter(id.0);
        self.chain_traced(id, me, k);
        self.lw.asm.leave(previous);
    }

    /// A node of rule `me`'s decorator chain, or its leaf or list; traced when asked: the
    /// node is entered where its code starts (a rule run that starts it) and finished on each
    /// exit to its continuation (a run that returns a status; a move finishes nothing), as
    /// `spec/semantics.md` 4.7 defines for this model.
    fn chain_traced(&mut self, id: NodeId, me: u32, k: Cont) {
        if !self.lw.trace {
            return self.chain_body(id, me, k);
        }
        self.asm().emit(Instr::NodeEnter { node: id.0 });
        let inner = Cont {
            s: self.lw.asm.label(),
            f: self.lw.asm.label(),
            r: self.lw.asm.label(),
        };
        self.chain_body(id, me, inner);
        for s in [Status::Success, Status::Failure, Status::Running] {
            self.asm().place(inner.on(s));
            self.asm().emit(Instr::NodeExit {
                node: id.0,
                status: s,
            });
            self.jump(k.on(s));
        }
    }

    /// [`Self::chain`]'s node, untraced.
    fn chain_body(&mut self, id: NodeId, me: u32, k: Cont) {
        let tree = self.lw.tree;
        let node = tree.node(id);
        let child = node.children.first().copied();
        match &node.kind {
            NodeKind::Guard(g) => {
                self.lw.branch(&g.cond, k.f, false);
                if let Some(c) = child {
                    self.chain(c, me, k);
                }
            }
            NodeKind::MapStatus(m) => {
                let mapped = Cont {
                    s: k.on(m.success),
                    f: k.on(m.failure),
                    r: k.on(m.running),
                };
                if let Some(c) = child {
                    self.chain(c, me, mapped);
                }
            }
            NodeKind::Invert => {
                if let Some(c) = child {
                    self.chain(
                        c,
                        me,
                        Cont {
                            s: k.f,
                            f: k.s,
                            r: k.r,
                        },
                    );
                }
            }
            NodeKind::Action(call) => {
                let (import, argc) = self.lw.call_args(call);
                self.asm().emit(Instr::ActCursor {
                    import,
                    argc,
                    success: k.s,
                    failure: k.f,
                    running: k.r,
                });
            }
            NodeKind::Condition(e) => {
                self.lw.branch(e, k.f, false);
                self.jump(k.s);
            }
            NodeKind::Const(s) => self.jump(k.on(*s)),
            NodeKind::Yield => self.asm().emit(Instr::Yield {
                success: k.s,
                running: k.r,
            }),
            NodeKind::Sequence(c) => self.list(true, c, &node.children, me, k),
            NodeKind::Selector(c) => self.list(false, c, &node.children, me, k),
            // `check` rejected every other kind.
            _ => self.jump(k.f),
        }
    }

    fn move_to(&mut self, rule: u32) {
        self.asm().emit(Instr::Move { rule: RuleNo(rule) });
    }

    /// Jumps to `to` when the list's `when` condition is false.
    fn unless_when(&mut self, c: &Composite, to: Label) {
        if let Some(e) = &c.cond {
            self.lw.branch(e, to, false);
        }
    }

    /// A list rule: entry, children, then the "child finished" handlers (spec §4.2).
    fn list(&mut self, seq: bool, c: &Composite, children: &[NodeId], me: u32, k: Cont) {
        if children.is_empty() {
            return self.jump(k.f);
        }
        let kids: Vec<u32> = children.iter().map(|&ch| self.rules.of(ch)).collect();
        self.unless_when(c, k.f);
        self.move_to(kids[0]);
        let handlers: Vec<(Label, Label)> = children
            .iter()
            .map(|_| (self.lw.asm.label(), self.lw.asm.label()))
            .collect();
        for (i, &ch) in children.iter().enumerate() {
            let (s, f) = handlers[i];
            let r = self.running;
            self.rule(ch, Cont { s, f, r });
        }
        // The list finishes with failure: the cursor comes back to it.
        let fail = self.lw.asm.label();
        for (i, &(s, f)) in handlers.iter().enumerate() {
            let next = kids.get(i + 1).copied();
            self.asm().place(s);
            self.asm().emit(Instr::Step {});
            match (seq, next) {
                (true, _) => {
                    self.unless_when(c, fail);
                    match next {
                        Some(n) => self.move_to(n),
                        None if c.looping => self.move_to(kids[0]),
                        None => self.finish(me, k.s),
                    }
                }
                (false, _) if c.looping => {
                    self.unless_when(c, fail);
                    self.move_to(kids[0]);
                }
                (false, _) => self.finish(me, k.s),
            }
            self.asm().place(f);
            self.asm().emit(Instr::Step {});
            match (seq, next) {
                (false, Some(n)) => {
                    self.unless_when(c, fail);
                    self.move_to(n);
                }
                _ => self.jump(fail),
            }
        }
        self.asm().place(fail);
        self.finish(me, k.f);
    }

    /// `setCurrentRule(self)`, then continue at `to` (the list's own continuation).
    fn finish(&mut self, me: u32, to: Label) {
        self.asm().emit(Instr::SetCursor { rule: RuleNo(me) });
        self.jump(to);
    }
}
