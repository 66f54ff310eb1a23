//! Lowering: a checked IR tree becomes a verified [`btvm::Program`].
//!
//! Control flow is static. Each node is compiled with three continuations — where to go on
//! success, failure and running — the way `&&`/`||` are compiled with true/false labels; a
//! child "returns" to its parent by jumping to one of them, so no call stack exists within a
//! tree. A node's own bookkeeping (the running-list model's "evaluate" step) sits on the edges
//! it leaves by. Shared subtrees are compiled once, as functions called with `call`.
//!
//! Per-agent state is laid out here ([`btvm::program::Layout`]): running-list bits, cooldown
//! timers and action ordinals are numbered in arena order, so a subtree's slots are contiguous.
//! Condition expressions are compiled inline; `&&`, `||` and `!` in conditions become jumps.
//!
//! The result always goes through the verifier ([`btvm::Program::new`]); this module never
//! builds a program any other way. See `spec/bytecode.md`.

mod asm;
mod cells;
mod cursor;
mod decider;
mod expr;
mod layout;
mod lifecycle;
mod names;
pub(crate) use names::arg_names;
mod nodes;
/// A node's display name (its own, else the action, subtree, selection or event it names), as
/// the node table records it; the viewer shows the same.
pub(crate) use nodes::name as node_name;
mod records;
mod selection;
mod stateful;

use btvm::program::{
    ActionNo, Bit, Func, FunctionKind, Instr, Label, ProgramModel, ProgramParts, Temp, Timer,
};
use btvm::{Limits, Program, Status, Value};

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Lit, Model, NodeId, NodeKind, Resume, Tree};
use crate::source::{SourceMap, Span};
use asm::Asm;
use layout::Slots;

/// Compiles `tree` to a verified program under `limits`.
///
/// Runs [`crate::check::check`] first, which alone decides whether the tree is valid (a tree
/// its model does not run is [`ErrorKind::Unsupported`] there); past it, a program beyond a limit
/// (state over `Limits::max_state_bytes`, a tick over `Limits::max_tick_instructions`, ...)
/// with [`ErrorKind::ProgramTooLarge`]. [`ErrorKind::InvalidProgram`] would mean the lowering
/// emitted code its own verifier refuses: a bug (the `compile` fuzz target looks for it).
pub fn lower(tree: &Tree, limits: &Limits) -> Result<Program, Vec<Diagnostic>> {
    crate::check::check(tree, limits)?;
    lower_checked(tree, limits, None)
}

/// [`lower`], with the node table's source positions (file, line, column) read from `sources`,
/// the map the tree was loaded with; [`lower`] leaves them unknown.
pub fn lower_with_sources(
    tree: &Tree,
    limits: &Limits,
    sources: &SourceMap,
) -> Result<Program, Vec<Diagnostic>> {
    crate::check::check(tree, limits)?;
    lower_checked(tree, limits, Some(sources))
}

/// [`lower`] (with [`lower_with_sources`]'s positions when `sources` is given) producing a
/// *traced* program: besides what the ordinary program does, it tells the host every node
/// entered and finished ([`btvm::Host::node`], `spec/semantics.md` "Node-level traces"),
/// through `node.enter`/`node.exit` instructions only this lowering emits. The ordinary
/// lowering is untouched by this option: its programs are byte for byte what they were.
///
/// Every model is traced. A traced program is larger than the ordinary one, so a tree near a
/// size limit may be [`ErrorKind::ProgramTooLarge`] only when traced.
pub fn lower_traced(
    tree: &Tree,
    limits: &Limits,
    sources: Option<&SourceMap>,
) -> Result<Program, Vec<Diagnostic>> {
    crate::check::check(tree, limits)?;
    let span = tree.main_root().map_or(Span::DUMMY, |r| tree.node(r).span);
    match tree.config.model {
        Model::RunningList { capacity } => {
            running_list(tree, limits, capacity, (span, sources), true)
        }
        Model::Cursor { runaway_limit } => {
            cursor::lower(tree, limits, runaway_limit, (span, sources), true)
        }
        Model::Decider { redecide_limit } => {
            decider::lower(tree, limits, redecide_limit, (span, sources), true)
        }
        Model::Lifecycle => lifecycle::lower(tree, limits, (span, sources), true),
        Model::Selection => selection::lower(tree, limits, (span, sources), true),
    }
}

/// Whether the compiled engines run `tree` (already accepted by [`crate::check::check`]) under
/// `limits`: the first [`ErrorKind::ProgramTooLarge`] diagnostic [`lower`] gives, above all a
/// per-tick instruction budget beyond `Limits::max_tick_instructions` as the verifier proves
/// it. The reference interpreter asks this before it runs a tree, so every engine refuses the
/// same trees and a tick of the reference is bounded as the vm's is; the bound is decided
/// once, by the verifier, never recomputed on the tree. Any other failure of the lowering is
/// a bug the differential tests must see, so the reference runs the tree regardless.
pub fn within_budget(tree: &Tree, limits: &Limits) -> Result<(), Diagnostic> {
    match lower_checked(tree, limits, None) {
        Err(diags) => match diags
            .into_iter()
            .find(|d| d.kind == ErrorKind::ProgramTooLarge)
        {
            Some(d) => Err(d),
            None => Ok(()),
        },
        Ok(_) => Ok(()),
    }
}

/// [`within_budget`] for the traced program ([`lower_traced`]): its first
/// [`ErrorKind::ProgramTooLarge`] or [`ErrorKind::Unsupported`]
/// diagnostic. The reference asks it before tracing nodes, so every engine traces the same
/// trees.
pub fn within_budget_traced(tree: &Tree, limits: &Limits) -> Result<(), Diagnostic> {
    match lower_traced(tree, limits, None) {
        Err(diags) => match diags
            .into_iter()
            .find(|d| matches!(d.kind, ErrorKind::ProgramTooLarge | ErrorKind::Unsupported))
        {
            Some(d) => Err(d),
            None => Ok(()),
        },
        Ok(_) => Ok(()),
    }
}

/// [`lower`] for a tree `check` accepted.
fn lower_checked(
    tree: &Tree,
    limits: &Limits,
    src: Option<&SourceMap>,
) -> Result<Program, Vec<Diagnostic>> {
    let span = tree.main_root().map_or(Span::DUMMY, |r| tree.node(r).span);
    let capacity = match tree.config.model {
        Model::RunningList { capacity } => capacity,
        Model::Cursor { runaway_limit } => {
            return cursor::lower(tree, limits, runaway_limit, (span, src), false);
        }
        Model::Decider { redecide_limit } => {
            return decider::lower(tree, limits, redecide_limit, (span, src), false);
        }
        Model::Lifecycle => return lifecycle::lower(tree, limits, (span, src), false),
        Model::Selection => return selection::lower(tree, limits, (span, src), false),
    };
    running_list(tree, limits, capacity, (span, src), false)
}

/// The running-list model's lowering; with `trace`, the traced program ([`lower_traced`]).
fn running_list(
    tree: &Tree,
    limits: &Limits,
    capacity: u32,
    (span, src): (Span, Option<&SourceMap>),
    trace: bool,
) -> Result<Program, Vec<Diagnostic>> {
    let strings = crate::ir::analysis::intern_strings(tree);
    let slots = Slots::new(tree, capacity);
    let mut lw = Lower::new(tree, &slots, &strings);
    lw.trace = trace;
    // Entries first (the main tree is function 0), then one function per subtree.
    let mut bounds = Vec::new();
    for e in &tree.roots {
        let start = lw.asm.here();
        lw.function(e.node, FunctionKind::Entry);
        bounds.push((e.name.clone(), FunctionKind::Entry, start, lw.asm.here()));
    }
    for s in &tree.subtrees {
        let start = lw.asm.here();
        lw.function(s.node, FunctionKind::Subtree);
        bounds.push((s.name.clone(), FunctionKind::Subtree, start, lw.asm.here()));
    }
    let mut table = nodes::table(tree, running_list_probes(tree, &slots), src);
    table.cells = cells::running_list(tree, &slots);
    stateful::finish(
        lw,
        bounds,
        ProgramModel::RunningList,
        (slots.layout, slots.temps),
        limits,
        (span, table),
    )
}

/// Where the running-list state shows a node active: its running-list bit, and for an action
/// its ordinal in the current-action slot.
fn running_list_probes(tree: &Tree, slots: &Slots) -> Vec<(u32, btvm::program::Probe)> {
    use btvm::program::Probe;
    let mut probes = Vec::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        if let Some(bit) = slots.bit(tree, NodeId(i as u32)) {
            probes.push((i as u32, Probe::Listed(bit)));
        }
        if matches!(node.kind, NodeKind::Action(_)) {
            probes.push((i as u32, Probe::Current(slots.action[i])));
        }
    }
    probes
}

/// The names of the events `tree` uses, in the order of the lowered program's event functions
/// (one [`FunctionKind::Event`] function each, named after its event): what a game can deliver
/// between ticks ([`btvm::Engine::event`]). Empty in the models without events and for a tree
/// without a main root.
pub fn event_names(tree: &Tree) -> Vec<String> {
    match tree.config.model {
        Model::Lifecycle => tree.main_root().map_or_else(Vec::new, |root| {
            lifecycle::event_names(tree, &records::Records::new(tree, root))
        }),
        Model::Selection => selection::event_names(tree),
        _ => Vec::new(),
    }
}

/// The string table in `StrId` order.
fn string_table(strings: &btvm::Strings) -> Vec<String> {
    (0..strings.len())
        .map(|i| strings.get(btvm::StrId(i as u32)).to_string())
        .collect()
}

/// The variables' initial values.
fn var_values(tree: &Tree, strings: &btvm::Strings) -> Vec<Value> {
    tree.vars
        .iter()
        .map(|v| match &v.default {
            Lit::Bool(b) => Value::Bool(*b),
            Lit::Int(i) => Value::Int(*i),
            Lit::Float(x) => Value::Float(*x),
            Lit::Str(s) => Value::Str(strings.lookup(s).unwrap_or(btvm::StrId(u32::MAX))),
        })
        .collect()
}

/// The variables' names.
fn var_names(tree: &Tree) -> Vec<String> {
    tree.vars.iter().map(|v| v.name.clone()).collect()
}

/// Runs the verifier over what the lowering produced.
fn verified(
    mut parts: ProgramParts,
    limits: &Limits,
    span: Span,
) -> Result<Program, Vec<Diagnostic>> {
    use btvm::ProgramErrorKind as K;
    nodes::fit(&mut parts.nodes, limits);
    Program::new(parts, limits).map_err(|e| {
        let d = match e.kind() {
            K::TooLarge | K::BudgetExceeded | K::StackOverflow => Diagnostic::new(
                ErrorKind::ProgramTooLarge,
                span,
                format!("the tree's program is beyond a limit: {}", e.message()),
            )
            .with_note("a smaller tree, fewer rule runs per step or larger `Limits` fit"),
            _ => Diagnostic::new(
                ErrorKind::InvalidProgram,
                span,
                format!("the compiled program was rejected: {}", e.message()),
            ),
        };
        vec![d]
    })
}

/// Where a node goes next.
#[derive(Clone, Copy)]
struct Cont {
    s: Label,
    f: Label,
    r: Label,
}

impl Cont {
    fn on(self, s: Status) -> Label {
        match s {
            Status::Success => self.s,
            Status::Failure => self.f,
            Status::Running => self.r,
        }
    }
}

struct Lower<'a> {
    tree: &'a Tree,
    slots: &'a Slots,
    strings: &'a btvm::Strings,
    asm: Asm,
    /// `@bound` asks the host at run time (cursor model); otherwise it is true.
    lazy_imports: bool,
    /// Variables live in the agent's state (lifecycle and selection models); otherwise they
    /// are the program's constants.
    state_vars: bool,
    /// Emit node-level trace events around every node ([`lower_traced`]).
    trace: bool,
}

/// The tree's main root; a tree without one is an [`ErrorKind::InvalidValue`] error at `span`.
fn main_root(tree: &Tree, span: Span) -> Result<NodeId, Vec<Diagnostic>> {
    tree.main_root().ok_or_else(|| {
        vec![Diagnostic::new(
            ErrorKind::InvalidValue,
            span,
            "the tree has no root",
        )]
    })
}

impl<'a> Lower<'a> {
    /// A lowering of `tree` with constant variables and imports bound at load.
    fn new(tree: &'a Tree, slots: &'a Slots, strings: &'a btvm::Strings) -> Lower<'a> {
        Lower {
            tree,
            slots,
            strings,
            asm: Asm::default(),
            lazy_imports: false,
            state_vars: false,
            trace: false,
        }
    }
}

impl Lower<'_> {
    /// One function: the node, then its three exits (`finish` or `return`).
    fn function(&mut self, root: NodeId, kind: FunctionKind) {
        let k = Cont {
            s: self.asm.label(),
            f: self.asm.label(),
            r: self.asm.label(),
        };
        self.node(root, k);
        for s in [Status::Success, Status::Failure, Status::Running] {
            self.asm.place(k.on(s));
            self.asm.emit(match kind {
                FunctionKind::Entry => Instr::Finish { status: s },
                FunctionKind::Subtree | FunctionKind::Event | FunctionKind::Restart => {
                    Instr::Return { status: s }
                }
            });
        }
    }

    fn jump(&mut self, to: Label) {
        self.asm.emit(Instr::Jump { to });
    }

    /// [`Self::node_traced`], its instructions mapped to `id` in the code map.
    fn node(&mut self, id: NodeId, k: Cont) {
        let previous = self.asm.enter(id.0);
        self.node_traced(id, k);
        self.asm.leave(previous);
    }

    /// `evaluate(node)`, traced when asked: `node.enter`, the node, then one `node.exit` per
    /// status on the way to its continuation (the node finished when it returns to its
    /// parent: `spec/semantics.md`, "Node-level traces").
    fn node_traced(&mut self, id: NodeId, k: Cont) {
        if !self.trace {
            return self.evaluate(id, k);
        }
        self.asm.emit(Instr::NodeEnter { node: id.0 });
        let inner = Cont {
            s: self.asm.label(),
            f: self.asm.label(),
            r: self.asm.label(),
        };
        self.evaluate(id, inner);
        for s in [Status::Success, Status::Failure, Status::Running] {
            self.asm.place(inner.on(s));
            self.asm.emit(Instr::NodeExit {
                node: id.0,
                status: s,
            });
            self.jump(k.on(s));
        }
    }

    /// `evaluate(node)`: the node's run, with its running-list bookkeeping on the success and
    /// running edges (actions do theirs inside `act`).
    fn evaluate(&mut self, id: NodeId, k: Cont) {
        let node = self.tree.node(id);
        if let NodeKind::Action(call) = &node.kind {
            let (import, argc) = self.call_args(call);
            self.asm.emit(Instr::Act {
                import,
                argc,
                action: ActionNo(self.slots.action[id.index()]),
                bit: Bit(self.slots.bit(self.tree, id).unwrap_or(0)),
                success: k.s,
                failure: k.f,
                running: k.r,
            });
            return;
        }
        let Some(bit) = self.slots.bit(self.tree, id) else {
            return self.run(id, k);
        };
        let inner = Cont {
            s: self.asm.label(),
            f: k.f,
            r: self.asm.label(),
        };
        self.run(id, inner);
        self.asm.place(inner.s);
        self.asm.emit(Instr::OnSuccess {
            bit: Bit(bit),
            to: k.s,
        });
        self.asm.place(inner.r);
        self.asm.emit(Instr::OnRunning {
            bit: Bit(bit),
            to: k.r,
        });
    }

    /// The node kind's own semantics (`spec/semantics.md` 3), children through [`Self::node`].
    fn run(&mut self, id: NodeId, k: Cont) {
        let node = self.tree.node(id);
        let children = &node.children;
        match &node.kind {
            NodeKind::Sequence(c) | NodeKind::Selector(c) => {
                let seq = matches!(node.kind, NodeKind::Sequence(_));
                if children.is_empty() {
                    return self.jump(if seq { k.s } else { k.f });
                }
                let entry: Vec<Label> = children.iter().map(|_| self.asm.label()).collect();
                if c.resume == Resume::RunningList {
                    // Start at the highest listed child above 0 (spec 4.1); child 0 is never
                    // tested.
                    for i in (1..children.len()).rev() {
                        if let Some(bit) = self.slots.bit(self.tree, children[i]) {
                            self.asm.emit(Instr::JumpIfListed {
                                bit: Bit(bit),
                                to: entry[i],
                            });
                        }
                    }
                }
                for (i, &child) in children.iter().enumerate() {
                    self.asm.place(entry[i]);
                    let next = entry.get(i + 1).copied();
                    let ck = if seq {
                        Cont {
                            s: next.unwrap_or(k.s),
                            ..k
                        }
                    } else {
                        Cont {
                            f: next.unwrap_or(k.f),
                            ..k
                        }
                    };
                    self.node(child, ck);
                }
            }
            NodeKind::Parallel(p) => {
                let t = self.slots.temp[id.index()];
                let (succ, fail) = (Temp(t), Temp(t + 1));
                self.asm.emit(Instr::Zero { temp: succ });
                self.asm.emit(Instr::Zero { temp: fail });
                for &child in children {
                    let next = self.asm.label();
                    let (s, f) = (self.asm.label(), self.asm.label());
                    let f_target = if p.stop_on_failure { k.f } else { f };
                    self.node(
                        child,
                        Cont {
                            s,
                            f: f_target,
                            r: next,
                        },
                    );
                    self.asm.place(s);
                    self.asm.emit(Instr::Inc { temp: succ });
                    self.jump(next);
                    self.asm.place(f);
                    self.asm.emit(Instr::Inc { temp: fail });
                    self.asm.place(next);
                }
                self.asm.emit(Instr::Quorum {
                    succ,
                    fail,
                    n: children.len() as u32,
                    success_all: p.success == crate::ir::Quorum::All,
                    failure_all: p.failure == crate::ir::Quorum::All,
                    success: k.s,
                    failure: k.f,
                    running: k.r,
                });
            }
            NodeKind::Condition(e) => {
                self.branch(e, k.f, false);
                self.jump(k.s);
            }
            NodeKind::Guard(g) => {
                self.branch(&g.cond, k.f, false);
                self.node(children[0], k);
            }
            NodeKind::Invert => self.node(
                children[0],
                Cont {
                    s: k.f,
                    f: k.s,
                    r: k.r,
                },
            ),
            NodeKind::MapStatus(m) => self.node(
                children[0],
                Cont {
                    s: k.on(m.success),
                    f: k.on(m.failure),
                    r: k.on(m.running),
                },
            ),
            NodeKind::Cooldown(c) => {
                let timer = Timer(self.slots.timer[id.index()]);
                self.asm.emit(Instr::JumpIfCooling { timer, to: k.f });
                let arm = self.asm.label();
                self.node(children[0], Cont { f: arm, ..k });
                self.asm.place(arm);
                self.asm.emit(Instr::Arm { timer, ms: c.ms });
                self.jump(k.f);
            }
            NodeKind::Include(sub) => {
                let func = self.tree.roots.len() as u32 + sub.0;
                self.asm.emit(Instr::Call {
                    func: Func(func),
                    success: k.s,
                    failure: k.f,
                    running: k.r,
                });
            }
            NodeKind::Const(s) => self.jump(k.on(*s)),
            // `check` rejected every other kind before lowering started.
            _ => self.jump(k.f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    /// Found by the `compile` fuzz target: a cursor tree with a run-away limit near `u32::MAX`
    /// compiles to a program whose proven tick budget is beyond `Limits::max_tick_instructions`.
    /// The verifier is right to refuse it, but the lowering reported that as `InvalidProgram`,
    /// the kind that means "the lowering emitted bad code"; it is now `ProgramTooLarge`, and
    /// the same tree with a sane limit compiles.
    #[test]
    fn a_program_beyond_the_tick_budget_is_too_large_not_invalid() {
        let tree = |limit: u32| {
            let src = format!(
                "btvm 1;\ndialect dragengine;\nmodel cursor {limit};\n\
                 import action a 0..0;\n\
                 root main = sequence cursor loop {{ action a() action a() }}\n"
            );
            crate::syntax::canonical::parse(FileId(0), &src, &Limits::default()).unwrap()
        };
        let d = lower(&tree(u32::MAX), &Limits::default()).unwrap_err();
        assert_eq!(d[0].kind, ErrorKind::ProgramTooLarge, "{}", d[0].message);
        assert!(d[0].message.contains("budget"), "{}", d[0].message);
        assert!(lower(&tree(100), &Limits::default()).is_ok());
    }

    /// Found by the `compile` fuzz target (2026-11-25): a selection (BST) tree whose signal
    /// value queried a timestamp. Only the lifecycle model keeps timestamps, and the model
    /// check looked at the nodes' expressions only, so the lowering emitted a timestamp read
    /// the verifier refused ("timestamp 0 of 0"). The signal is now refused with a positioned
    /// `Unsupported` error, as a node querying a timestamp already was; the lifecycle model
    /// still accepts both.
    #[test]
    fn a_signal_querying_a_timestamp_outside_the_lifecycle_model_is_refused() {
        let tree = |model: &str, value: &str, case: &str| {
            let src = format!(
                "btvm 1;\ndialect bst;\nmodel {model};\nvar c: bool = false;\n\
                 timestamp T;\nsignal \"E\" c = {value};\n\
                 root main = priority every-tick {{ case ({case}) {{ select \"A\" }} }}\n"
            );
            crate::syntax::canonical::parse(FileId(0), &src, &Limits::default()).unwrap()
        };
        let limits = Limits::default();
        for (value, case, refused) in [
            ("@elapsed(T) > 1", "$c", "signal \"E\""),
            ("!@valid(T)", "$c", "signal \"E\""),
            ("!$c", "$c && @ever(T)", "`case`"),
        ] {
            let d = lower(&tree("selection", value, case), &limits).unwrap_err();
            assert_eq!(d[0].kind, ErrorKind::Unsupported, "{}", d[0].message);
            assert!(
                d[0].message.contains(refused) && d[0].message.contains("timestamp"),
                "{}",
                d[0].message
            );
        }
        assert!(lower(&tree("selection", "!$c", "$c"), &limits).is_ok());
        let lifecycle = "btvm 1;\ndialect mbt;\nmodel lifecycle;\nvar c: bool = false;\n\
                         timestamp T;\nsignal \"E\" c = @elapsed(T) > 1;\n\
                         root main = condition (@valid(T))\n";
        let t = crate::syntax::canonical::parse(FileId(0), lifecycle, &limits).unwrap();
        assert!(lower(&t, &limits).is_ok());
    }
}
