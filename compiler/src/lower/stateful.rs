//! What the lowerings of the two models with node records (lifecycle and selection) share:
//! refusing nodes with more states than the bytecode holds, writing
//! code within an instruction budget ([`Emit`]), and assembling and verifying the program.
//!
//! Nothing here knows a model's node kinds or emits an instruction of its own choosing: each
//! model's lowering decides what to emit and passes in what differs (its program model, the
//! words of its messages).

use btvm::program::{FunctionKind, Instr, Label, Layout, ProgramModel, ProgramParts};
use btvm::{Limits, Program};

use super::layout::Slots;
use super::{string_table, var_names, var_values, verified, Lower};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Precision, Tree};
use crate::source::Span;

/// One function of the program being written: its name, kind and code range (`start..end`,
/// as [`Asm::here`](super::asm::Asm::here) counts).
pub(super) type Bound = (String, FunctionKind, u32, u32);

/// A lowering that writes with state variables (they live in the agent's state) and no
/// running-list slots.
pub(super) fn state_lower<'a>(
    tree: &'a Tree,
    slots: &'a Slots,
    strings: &'a btvm::Strings,
) -> Lower<'a> {
    Lower {
        state_vars: true,
        ..Lower::new(tree, slots, strings)
    }
}

/// The most instructions a lowering may write, and whether it wrote more.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    /// The limit (`Limits::max_program_instructions`).
    max: u64,
    /// Set once the code outgrew the limit; from then on nothing more is emitted.
    pub exceeded: bool,
}

impl Budget {
    /// The budget of `limits`.
    pub fn new(limits: &Limits) -> Budget {
        Budget {
            max: limits.max_program_instructions as u64,
            exceeded: false,
        }
    }
}

/// The code-writing steps of a lowering that writes through a [`Lower`] within a [`Budget`].
pub(super) trait Emit<'a> {
    /// The lowering written through.
    fn lower(&mut self) -> &mut Lower<'a>;

    /// The budget written within.
    fn budget(&mut self) -> &mut Budget;

    /// Writes `i`.
    fn emit(&mut self, i: Instr) {
        self.lower().asm.emit(i);
    }

    /// A new label.
    fn label(&mut self) -> Label {
        self.lower().asm.label()
    }

    /// Places `l` here.
    fn place(&mut self, l: Label) {
        self.lower().asm.place(l);
    }

    /// Writes a jump to `to`.
    fn jump(&mut self, to: Label) {
        self.emit(Instr::Jump { to });
    }

    /// Whether the code has outgrown the budget (then nothing more is emitted).
    fn full(&mut self) -> bool {
        let here = u64::from(self.lower().asm.here());
        let budget = self.budget();
        if here > budget.max {
            budget.exceeded = true;
        }
        budget.exceeded
    }
}

/// The error for a program beyond [`Limits::max_program_instructions`].
pub(super) fn too_large(limits: &Limits, span: Span) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::ProgramTooLarge,
        span,
        format!(
            "the tree's program is beyond a limit: more than {} instructions",
            limits.max_program_instructions
        ),
    )
    .with_note("a smaller tree or larger `Limits` fit")
}

/// The program `lw` wrote, with its functions (`bounds`, in function order), `model`, the
/// state `layout` and the number of counter registers it uses, verified.
pub(super) fn finish(
    lw: Lower<'_>,
    bounds: Vec<Bound>,
    model: ProgramModel,
    (layout, temps): (Layout, u32),
    limits: &Limits,
    (span, mut nodes): (Span, btvm::program::NodeTable),
) -> Result<Program, Vec<Diagnostic>> {
    let (tree, strings) = (lw.tree, lw.strings);
    let super::asm::Assembled {
        code,
        index,
        nodes: map,
    } = lw.asm.finish();
    nodes.code = map;
    let functions = bounds
        .into_iter()
        .map(|(name, kind, start, end)| btvm::program::Function {
            name,
            kind,
            start: index[start as usize],
            end: index[end as usize],
        })
        .collect();
    let parts = ProgramParts {
        model,
        single_precision: tree.config.precision == Precision::Single,
        clock: tree.config.clock,
        layout,
        strings: string_table(strings),
        imports: tree.imports.clone(),
        vars: var_values(tree, strings),
        var_names: var_names(tree),
        temps,
        functions,
        rules: Vec::new(),
        stimuli: 0,
        code,
        nodes,
    };
    verified(parts, limits, span)
}
