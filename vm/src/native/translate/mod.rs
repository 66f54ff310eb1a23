//! Lowering a verified [`Program`] to Cranelift IR, one native function per chunk of a
//! bytecode function (see [`plan`](super::plan)).
//!
//! The translation is a single forward walk per chunk, because bytecode jumps only go forward:
//! every bytecode instruction becomes a few Cranelift instructions; a jump target starts a
//! block; operand-stack slot `k` becomes two SSA variables (tag and payload), so expressions live
//! in registers and a value whose tag is a constant is specialised at translation time. The
//! state block is addressed with the same offsets as the vm's (`Layout`), so the two engines
//! can take turns on one agent. Host calls go through the trampolines of [`abi`](super::abi).
//!
//! Every state offset is checked against the state size here as well as by the verifier: an
//! access the vm would skip as out of range is not emitted. This module must never call into
//! the host or run code; it only builds IR.
//!
//! This file holds the walk over a chunk and the dispatch of each instruction to its family,
//! as the instruction set groups them (`program/isa.rs`); the families and the helpers they
//! share have their own files:
//!
//! - `control`: labels and blocks, branches, `jump`, `finish`, `return`, `call`;
//! - `expr`: pushes, host functions, operators and jumps on values;
//! - `running`: the running-list model's `act` and `list.*`, cooldown timers, counters;
//! - `cursor`: the cursor model (`cursor.*`, `act.cursor`, `yield`);
//! - `decider`: the decider model (`dec.*`, `behave`), its frequent instructions inline in
//!   `decider_inline`;
//! - `records`: state variables, node records and timestamps (`var.*`, `rec.*`, `ts.*`);
//! - `lifecycle`: the lifecycle model (`lc.*`, `scope.*`);
//! - `selection`: the selection model (`sel.*`);
//! - `values`: the operand stack and value operations; `state`: state and context
//!   addressing; `calls`: trampoline signatures and calls.

use std::collections::{BTreeSet, HashMap};

use cranelift_codegen::ir::{
    types, Block, InstBuilder, MemFlagsData, SigRef, StackSlot, Type, Value as Val,
};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use cranelift_module::FuncId;

use super::plan::Plan;
use crate::program::{Instr, Label, Layout, OperandRef};
use crate::{Program, Status};

mod calls;
mod control;
mod cursor;
mod decider;
mod decider_inline;
mod expr;
mod lifecycle;
mod records;
mod running;
mod selection;
mod state;
mod trace;
mod values;

/// Why a chunk could not be translated (only for programs the verifier should have rejected).
pub(super) type TranslateError = String;

/// What a chunk's translation needs to know about the rest of the program.
pub(super) struct Env<'a> {
    pub program: &'a Program,
    /// The native function each bytecode function is called through.
    pub callees: &'a [FuncId],
    /// The pointer type.
    pub ptr: Type,
    /// Whether `act` and `list.*` bookkeeping is inlined (else called out of line).
    pub inline_bookkeeping: bool,
    /// What the frontend needs to know about the target.
    pub frontend: cranelift_codegen::isa::TargetFrontendConfig,
}

/// The memory flags of every state, context and stack access: the offsets are proven in range,
/// so no access traps; nothing is assumed aligned.
fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// A result of a binary operator: a boolean condition (`i8` 0/1) or a double.
#[derive(Clone, Copy)]
enum Res {
    Bool(Val),
    Float(Val),
}

/// Translates chunk `[start, end)` of a function planned as `plan`, whose entries (labels other
/// chunks may continue at) are `entries`, into the function being built by `b`.
pub(super) fn chunk(
    b: FunctionBuilder<'_>,
    env: &Env<'_>,
    plan: &Plan,
    func_start: u32,
    (start, end): (u32, u32),
    entries: &BTreeSet<u32>,
    declare: &mut dyn FnMut(FuncId, &mut FunctionBuilder<'_>) -> cranelift_codegen::ir::FuncRef,
) -> Result<(), TranslateError> {
    let max_stack = env.program.max_stack() as usize;
    let mut tx = Tx {
        b,
        env,
        layout: env.program.layout(),
        size: env.program.layout().size,
        ctx: Val::from_u32(0),
        state: Val::from_u32(0),
        tags: Vec::with_capacity(max_stack),
        bits: Vec::with_capacity(max_stack),
        blocks: HashMap::new(),
        exits: HashMap::new(),
        range: (start, end),
        sigs: HashMap::new(),
        funcs: HashMap::new(),
        args_slot: None,
        max_argc: (start..end)
            .filter_map(|pc| match env.program.code().get(pc as usize) {
                Some(
                    Instr::Act { argc, .. }
                    | Instr::ActCursor { argc, .. }
                    | Instr::CallFn { argc, .. }
                    | Instr::CallFnCmpK { argc, .. }
                    | Instr::LcAct { argc, .. }
                    | Instr::LcCall { argc, .. },
                ) => Some(u32::from(*argc)),
                _ => None,
            })
            .max()
            .unwrap_or(0),
        out_slot: None,
        declare,
    };
    tx.translate(plan, func_start, entries)?;
    tx.b.finalize(env.frontend);
    Ok(())
}

/// Which host trampoline a signature is for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Sig {
    Action,
    Act,
    Function,
    FunctionF64,
    Random,
    Zero,
    List,
    Available,
    Decider,
    Lifecycle,
    LcHost,
}

struct Tx<'a, 'b, 'd> {
    b: FunctionBuilder<'b>,
    env: &'a Env<'a>,
    layout: &'a Layout,
    size: u32,
    ctx: Val,
    state: Val,
    tags: Vec<Variable>,
    bits: Vec<Variable>,
    /// The block of each bytecode instruction some jump in this chunk lands on.
    blocks: HashMap<u32, Block>,
    /// Blocks that leave the chunk, returning the label to continue at.
    exits: HashMap<u32, Block>,
    range: (u32, u32),
    sigs: HashMap<Sig, SigRef>,
    funcs: HashMap<u32, cranelift_codegen::ir::FuncRef>,
    args_slot: Option<(StackSlot, u32)>,
    /// Most arguments any call of the chunk passes (sizes the argument slot).
    max_argc: u32,
    out_slot: Option<StackSlot>,
    declare: &'d mut dyn FnMut(FuncId, &mut FunctionBuilder<'_>) -> cranelift_codegen::ir::FuncRef,
}

impl Tx<'_, '_, '_> {
    fn translate(
        &mut self,
        plan: &Plan,
        func_start: u32,
        entries: &BTreeSet<u32>,
    ) -> Result<(), TranslateError> {
        let code = self.env.program.code();
        let (start, end) = self.range;
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.ctx = self.b.block_params(entry)[0];
        self.state = self.b.block_params(entry)[1];
        let label = self.b.block_params(entry)[2];
        // Dispatch on the label the chunk is entered at.
        if entries.len() <= 1 {
            // The one entry: usually the chunk's start, but not always (a `dec.redecide`
            // target that only unreachable code jumps to starts a chunk entered elsewhere).
            let only = entries.first().copied().unwrap_or(start);
            let first = self.target(Label(only));
            self.b.ins().jump(first, &[]);
        } else {
            let mut switch = Switch::new();
            for &l in entries {
                let blk = self.target(Label(l));
                switch.set_entry(u128::from(l), blk);
            }
            let bad = self.b.create_block();
            switch.emit(&mut self.b, label, bad);
            self.b.switch_to_block(bad);
            self.finish(Status::Failure);
        }
        // Rules of the chunk may be entered backwards (`cursor.move`): their blocks must exist
        // before the walk passes them.
        for r in self.env.program.rules() {
            if (start..end).contains(&r.label) {
                self.target(Label(r.label));
            }
        }
        // So may the targets of `dec.redecide`.
        for pc in start..end {
            if let Some(ins) = code.get(pc as usize) {
                let mut back = None;
                ins.operands(|o| {
                    if let OperandRef::Back(t) = o {
                        back = Some(t);
                    }
                });
                if let Some(t) = back.filter(|t| (start..end).contains(t)) {
                    self.target(Label(t));
                }
            }
        }
        let mut open = false;
        for pc in start..end {
            if let Some(&blk) = self.blocks.get(&pc) {
                if open {
                    self.b.ins().jump(blk, &[]);
                }
                self.b.switch_to_block(blk);
                open = true;
            }
            if !open {
                continue; // no path reaches this instruction
            }
            let Some(d) = plan.depth_at(func_start, pc) else {
                return Err(format!(
                    "instruction {pc} is reached with no known stack depth"
                ));
            };
            let ins = code
                .get(pc as usize)
                .ok_or_else(|| format!("instruction {pc} is out of range"))?;
            if let Some(fused) =
                self.fused_truth_test(ins, code.get(pc as usize + 1), pc, d as usize)
            {
                open = fused;
                continue;
            }
            open = self.instr(ins, pc, d as usize)?;
        }
        if open {
            let exit = self.target(Label(end));
            self.b.ins().jump(exit, &[]);
        }
        let exits: Vec<(u32, Block)> = self.exits.iter().map(|(&l, &b)| (l, b)).collect();
        for (l, blk) in exits {
            self.b.switch_to_block(blk);
            let r = self.b.ins().iconst(types::I32, i64::from(l));
            self.b.ins().return_(&[r]);
        }
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Translates one instruction at depth `d`, by its family; returns whether control falls
    /// through.
    fn instr(&mut self, ins: &Instr, pc: u32, d: usize) -> Result<bool, TranslateError> {
        let (pop, _) = ins.stack_effect();
        if (d as u64) < u64::from(pop) {
            return Err(format!(
                "instruction {pc} pops {pop} values from a stack of {d}"
            ));
        }
        match ins {
            Instr::Jump { .. }
            | Instr::Finish { .. }
            | Instr::Return { .. }
            | Instr::Call { .. } => self.control_instr(ins, pc),
            Instr::Act { .. }
            | Instr::JumpIfListed { .. }
            | Instr::OnSuccess { .. }
            | Instr::OnRunning { .. }
            | Instr::JumpIfCooling { .. }
            | Instr::Arm { .. }
            | Instr::Zero { .. }
            | Instr::Inc { .. }
            | Instr::Quorum { .. } => self.running_instr(ins, pc, d),
            Instr::PushBool { .. }
            | Instr::PushInt { .. }
            | Instr::PushFloat { .. }
            | Instr::PushStr { .. }
            | Instr::PushVar { .. }
            | Instr::CallFn { .. }
            | Instr::Random {}
            | Instr::Not {}
            | Instr::Neg {}
            | Instr::Truthy {}
            | Instr::Bin { .. }
            | Instr::JumpIfCmp { .. }
            | Instr::JumpIfCmpK { .. }
            | Instr::CallFnCmpK { .. }
            | Instr::JumpIfFalse { .. }
            | Instr::JumpIfTrue { .. }
            | Instr::PushBound { .. } => self.expr_instr(ins, pc, d),
            Instr::Dispatch {}
            | Instr::Move { .. }
            | Instr::SetCursor { .. }
            | Instr::Step {}
            | Instr::Stop {}
            | Instr::ActCursor { .. }
            | Instr::Yield { .. } => self.cursor_instr(ins, pc, d),
            _ if ins.is_decider() => self.decider_instr(ins, pc, d),
            _ if ins.is_record() => self.records_instr(ins, pc, d),
            _ if ins.is_lifecycle() => self.lifecycle_instr(ins, pc, d),
            _ if ins.is_selection() => self.selection_instr(ins, pc, d),
            _ if ins.is_trace() => self.trace_instr(ins, pc, d),
            _ => Err(misrouted(pc)),
        }
    }
}

/// The error for an instruction handed to a family's translation it does not belong to (or
/// to none): a bug of the dispatch, reported rather than mistranslated.
fn misrouted(pc: u32) -> TranslateError {
    format!("instruction {pc} has no translation")
}
