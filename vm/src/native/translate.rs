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

use std::collections::{BTreeSet, HashMap};

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, InstBuilder, InstructionData, MemFlagsData, Opcode, SigRef, Signature,
    StackSlot, StackSlotData, StackSlotKind, Type, Value as Val, ValueDef,
};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use cranelift_module::FuncId;

use super::abi::{self, offsets, STATUS_FLAG, TAG_BOOL, TAG_FLOAT, TAG_INT, TAG_STR};
use super::plan::Plan;
use crate::program::{
    Field, Instr, Label, Layout, FLAG_NO_RULE, FLAG_RUNAWAY, FLAG_STARTED, FLAG_STOPPED,
    FLAG_UNCHANGED,
};
use crate::{BinOp, Program, Status, Value};

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
                    if let crate::program::OperandRef::Back(t) = o {
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

    /// The block to jump to for `label`: inside the chunk, its instruction's block; past it, an
    /// exit returning the label. A label holding a `jump` to another label of the chunk is
    /// followed (jump threading: fewer blocks for Cranelift, same behaviour, since `jump` has no
    /// effect). Only jumps inside the chunk are followed, so the labels other chunks are entered
    /// at stay exactly the ones `chunk_entries` computed.
    fn target(&mut self, label: Label) -> Block {
        let (start, end) = self.range;
        let mut l = label.0;
        while (start..end).contains(&l) {
            match self.env.program.code().get(l as usize) {
                Some(&Instr::Jump { to }) if to.0 > l && (start..end).contains(&to.0) => l = to.0,
                _ => break,
            }
        }
        if (start..end).contains(&l) {
            *self
                .blocks
                .entry(l)
                .or_insert_with(|| self.b.create_block())
        } else {
            *self.exits.entry(l).or_insert_with(|| self.b.create_block())
        }
    }

    fn finish(&mut self, status: Status) {
        let r = self
            .b
            .ins()
            .iconst(types::I32, i64::from(STATUS_FLAG | status as u32));
        self.b.ins().return_(&[r]);
    }

    // ---- values --------------------------------------------------------------------------

    /// The variables of operand-stack slot `k` (declared on first use).
    fn var(&mut self, k: usize) -> (Variable, Variable) {
        while self.tags.len() <= k {
            let t = self.b.declare_var(types::I64);
            let v = self.b.declare_var(types::I64);
            self.tags.push(t);
            self.bits.push(v);
        }
        (self.tags[k], self.bits[k])
    }

    fn get(&mut self, k: usize) -> (Val, Val) {
        let (t, v) = self.var(k);
        (self.b.use_var(t), self.b.use_var(v))
    }

    fn set(&mut self, k: usize, tag: Val, bits: Val) {
        let (t, v) = self.var(k);
        self.b.def_var(t, tag);
        self.b.def_var(v, bits);
    }

    fn set_const(&mut self, k: usize, v: Value) {
        let (tag, bits) = match v {
            Value::Bool(x) => (TAG_BOOL, i64::from(x)),
            Value::Int(i) => (TAG_INT, i),
            Value::Float(x) => (TAG_FLOAT, x.to_bits() as i64),
            Value::Str(s) => (TAG_STR, i64::from(s.0)),
        };
        let t = self.b.ins().iconst(types::I64, tag);
        let v = self.b.ins().iconst(types::I64, bits);
        self.set(k, t, v);
    }

    fn set_res(&mut self, k: usize, r: Res) {
        let (tag, bits) = match r {
            Res::Bool(c) => (TAG_BOOL, self.b.ins().uextend(types::I64, c)),
            Res::Float(x) => (
                TAG_FLOAT,
                self.b.ins().bitcast(types::I64, MemFlagsData::new(), x),
            ),
        };
        let t = self.b.ins().iconst(types::I64, tag);
        self.set(k, t, bits);
    }

    /// The constant an SSA value was defined as, when it is one (lets a tag known at
    /// translation time pick the conversion statically).
    fn constant(&self, v: Val) -> Option<i64> {
        let dfg = &self.b.func.dfg;
        match dfg.value_def(v) {
            ValueDef::Result(inst, 0) => match dfg.insts[inst] {
                InstructionData::UnaryImm {
                    opcode: Opcode::Iconst,
                    imm,
                } => Some(imm.bits()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `Value::as_f64`.
    fn as_f64(&mut self, (tag, bits): (Val, Val)) -> Val {
        match self.constant(tag) {
            Some(TAG_FLOAT) => self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits),
            Some(TAG_BOOL | TAG_INT) => self.b.ins().fcvt_from_sint(types::F64, bits),
            Some(_) => self.b.ins().f64const(0.0),
            None => {
                let int = self.b.ins().fcvt_from_sint(types::F64, bits);
                let float = self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits);
                let is_float = self.b.ins().icmp_imm_u(IntCC::Equal, tag, TAG_FLOAT);
                let num = self.b.ins().select(is_float, float, int);
                let is_str = self.b.ins().icmp_imm_u(IntCC::Equal, tag, TAG_STR);
                let zero = self.b.ins().f64const(0.0);
                self.b.ins().select(is_str, zero, num)
            }
        }
    }

    /// `Value::truthy`, as an `i8` 0/1.
    fn truthy(&mut self, (tag, bits): (Val, Val)) -> Val {
        match self.constant(tag) {
            Some(TAG_BOOL | TAG_INT) => self.b.ins().icmp_imm_u(IntCC::NotEqual, bits, 0),
            Some(TAG_FLOAT) => {
                let x = self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits);
                let zero = self.b.ins().f64const(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, zero)
            }
            Some(_) => self.b.ins().iconst(types::I8, 0),
            None => {
                let int = self.b.ins().icmp_imm_u(IntCC::NotEqual, bits, 0);
                let x = self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits);
                let zero = self.b.ins().f64const(0.0);
                let float = self.b.ins().fcmp(FloatCC::NotEqual, x, zero);
                let is_float = self.b.ins().icmp_imm_u(IntCC::Equal, tag, TAG_FLOAT);
                let num = self.b.ins().select(is_float, float, int);
                let is_str = self.b.ins().icmp_imm_u(IntCC::Equal, tag, TAG_STR);
                let no = self.b.ins().iconst(types::I8, 0);
                self.b.ins().select(is_str, no, num)
            }
        }
    }

    /// `BinOp::compare` of two doubles (`false` for the other operators).
    fn compare(&mut self, op: BinOp, x: Val, y: Val) -> Val {
        let cc = match op {
            BinOp::Lt => FloatCC::LessThan,
            BinOp::Le => FloatCC::LessThanOrEqual,
            BinOp::Gt => FloatCC::GreaterThan,
            BinOp::Ge => FloatCC::GreaterThanOrEqual,
            BinOp::Eq => FloatCC::Equal,
            BinOp::Ne => FloatCC::NotEqual,
            _ => return self.b.ins().iconst(types::I8, 0),
        };
        self.b.ins().fcmp(cc, x, y)
    }

    /// `BinOp::apply`.
    fn apply(&mut self, op: BinOp, l: (Val, Val), r: (Val, Val)) -> Res {
        match op {
            BinOp::Eq | BinOp::Ne => {
                let (lt, rt) = (self.constant(l.0), self.constant(r.0));
                let both_str = match (lt, rt) {
                    (Some(a), Some(b)) => Some(a == TAG_STR && b == TAG_STR),
                    (Some(a), None) | (None, Some(a)) if a != TAG_STR => Some(false),
                    _ => None,
                };
                let cc = if op == BinOp::Eq {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                match both_str {
                    Some(true) => Res::Bool(self.b.ins().icmp(cc, l.1, r.1)),
                    Some(false) => {
                        let (x, y) = (self.as_f64(l), self.as_f64(r));
                        Res::Bool(self.compare(op, x, y))
                    }
                    None => {
                        let (x, y) = (self.as_f64(l), self.as_f64(r));
                        let num = self.compare(op, x, y);
                        let ids = self.b.ins().icmp(cc, l.1, r.1);
                        let ls = self.b.ins().icmp_imm_u(IntCC::Equal, l.0, TAG_STR);
                        let rs = self.b.ins().icmp_imm_u(IntCC::Equal, r.0, TAG_STR);
                        let both = self.b.ins().band(ls, rs);
                        Res::Bool(self.b.ins().select(both, ids, num))
                    }
                }
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (x, y) = (self.as_f64(l), self.as_f64(r));
                Res::Bool(self.compare(op, x, y))
            }
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let (x, y) = (self.truthy(l), self.truthy(r));
                Res::Bool(match op {
                    BinOp::And => self.b.ins().band(x, y),
                    BinOp::Or => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                })
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                let (x, y) = (self.as_f64(l), self.as_f64(r));
                Res::Float(match op {
                    BinOp::Add => self.b.ins().fadd(x, y),
                    BinOp::Sub => self.b.ins().fsub(x, y),
                    BinOp::Mul => self.b.ins().fmul(x, y),
                    _ => self.b.ins().fdiv(x, y),
                })
            }
        }
    }

    fn res_truthy(&mut self, r: Res) -> Val {
        match r {
            Res::Bool(c) => c,
            Res::Float(x) => {
                let zero = self.b.ins().f64const(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, zero)
            }
        }
    }

    // ---- state ---------------------------------------------------------------------------

    /// Whether `len` bytes at `at` lie inside the state block.
    fn in_state(&self, at: u64, len: u64) -> bool {
        at.checked_add(len)
            .is_some_and(|e| e <= u64::from(self.size))
    }

    fn read_field(&mut self, f: crate::program::Field) -> Val {
        let ok = self.in_state(u64::from(f.offset), u64::from(f.width));
        let at = f.offset as i32;
        match f.width {
            1 if ok => self.b.ins().uload8(types::I32, mem(), self.state, at),
            2 if ok => self.b.ins().uload16(types::I32, mem(), self.state, at),
            4 if ok => self.b.ins().load(types::I32, mem(), self.state, at),
            _ => self.b.ins().iconst(types::I32, 0),
        }
    }

    fn write_field(&mut self, f: crate::program::Field, v: Val) {
        if !self.in_state(u64::from(f.offset), u64::from(f.width)) {
            return;
        }
        let at = f.offset as i32;
        match f.width {
            1 => {
                self.b.ins().istore8(mem(), v, self.state, at);
            }
            2 => {
                self.b.ins().istore16(mem(), v, self.state, at);
            }
            4 => {
                self.b.ins().store(mem(), v, self.state, at);
            }
            _ => {}
        }
    }

    /// The byte holding running-list bit `bit`, if it is inside the state block.
    fn list_byte(&self, bit: u32) -> Option<i32> {
        let at = u64::from(self.layout.list) + u64::from(bit / 8);
        self.in_state(at, 1).then_some(at as i32)
    }

    /// Whether running-list bit `bit` is set (`i8` 0/1).
    fn listed(&mut self, bit: u32) -> Val {
        let Some(at) = self.list_byte(bit) else {
            return self.b.ins().iconst(types::I8, 0);
        };
        let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
        let masked = self.b.ins().band_imm_u(byte, 1i64 << (bit % 8));
        self.b.ins().icmp_imm_u(IntCC::NotEqual, masked, 0)
    }

    /// Empties the running list.
    fn clear_list(&mut self) {
        let (at, len) = (self.layout.list, self.layout.list_bytes());
        if len > 0 && self.in_state(u64::from(at), u64::from(len)) {
            if len <= 32 {
                let mut off = 0u32;
                let zero64 = self.b.ins().iconst(types::I64, 0);
                while off + 8 <= len {
                    self.b
                        .ins()
                        .store(mem(), zero64, self.state, (at + off) as i32);
                    off += 8;
                }
                let zero32 = self.b.ins().iconst(types::I32, 0);
                while off < len {
                    self.b
                        .ins()
                        .istore8(mem(), zero32, self.state, (at + off) as i32);
                    off += 1;
                }
            } else {
                let sig = self.sig(Sig::Zero);
                let f = self.load_ctx(offsets::ZERO);
                let p = self.b.ins().iadd_imm_u(self.state, i64::from(at));
                let n = self.b.ins().iconst(self.env.ptr, i64::from(len));
                self.b.ins().call_indirect(sig, f, &[p, n]);
            }
        }
        let zero = self.b.ins().iconst(types::I32, 0);
        self.write_field(self.layout.count, zero);
    }

    /// Lists `bit` unless it is listed or the list is full (branch-free: the byte and the
    /// count are rewritten with what they become).
    fn add_to_list(&mut self, bit: u32) {
        let Some(at) = self.list_byte(bit) else {
            return; // the vm skips the bit; the count would change only after listing it
        };
        let count = self.read_field(self.layout.count);
        let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
        let mask = 1i64 << (bit % 8);
        let masked = self.b.ins().band_imm_u(byte, mask);
        let fresh = self.b.ins().icmp_imm_u(IntCC::Equal, masked, 0);
        let room = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThan,
            count,
            i64::from(self.layout.capacity),
        );
        let ok = self.b.ins().band(room, fresh);
        let ok32 = self.b.ins().uextend(types::I32, ok);
        let more = self.b.ins().iadd(count, ok32);
        let bit_if_ok = self.b.ins().imul_imm_u(ok32, mask);
        let set = self.b.ins().bor(byte, bit_if_ok);
        self.b.ins().istore8(mem(), set, self.state, at);
        self.write_field(self.layout.count, more);
    }

    fn timer_at(&self, timer: u32) -> Option<i32> {
        let at = u64::from(self.layout.timers) + 8 * u64::from(timer);
        self.in_state(at, 8).then_some(at as i32)
    }

    fn now(&mut self) -> Val {
        self.load_ctx_ty(types::I64, offsets::NOW)
    }

    /// `now` in the program's clock units (lifecycle timers).
    fn time(&mut self) -> Val {
        self.load_ctx_ty(types::I64, offsets::TIME)
    }

    fn temp_addr(&mut self, temp: u32) -> Option<(Val, i32)> {
        if temp >= self.env.program.temps() {
            return None;
        }
        let base = self.load_ctx(offsets::TEMPS);
        Some((base, (4 * temp) as i32))
    }

    fn read_temp(&mut self, temp: u32) -> Val {
        match self.temp_addr(temp) {
            Some((p, off)) => self.b.ins().load(types::I32, mem(), p, off),
            None => self.b.ins().iconst(types::I32, 0),
        }
    }

    // ---- calls ---------------------------------------------------------------------------

    fn load_ctx(&mut self, off: i32) -> Val {
        self.load_ctx_ty(self.env.ptr, off)
    }

    fn load_ctx_ty(&mut self, ty: Type, off: i32) -> Val {
        self.b.ins().load(ty, mem(), self.ctx, off)
    }

    fn sig(&mut self, which: Sig) -> SigRef {
        if let Some(&s) = self.sigs.get(&which) {
            return s;
        }
        let p = AbiParam::new(self.env.ptr);
        let i32_ = AbiParam::new(types::I32);
        let f64_ = AbiParam::new(types::F64);
        let cc = self.b.func.signature.call_conv;
        let mut s = Signature::new(cc);
        match which {
            Sig::Action => {
                s.params.extend([p, i32_, i32_, p, i32_]);
                s.returns.push(i32_);
            }
            Sig::Act => {
                s.params.extend([p, p, i32_, i32_, p, i32_, i32_]);
                s.returns.push(i32_);
            }
            Sig::Function => s.params.extend([p, i32_, p, i32_, p]),
            Sig::FunctionF64 => {
                s.params.extend([p, i32_, p, i32_]);
                s.returns.push(f64_);
            }
            Sig::Random => {
                s.params.extend([p, p]);
                s.returns.push(f64_);
            }
            Sig::Zero => s.params.extend([p, p]),
            Sig::List => s.params.extend([p, p, i32_]),
            Sig::Available => {
                s.params.extend([p, i32_]);
                s.returns.push(i32_);
            }
            Sig::Decider => {
                s.params.extend([p, p, i32_, f64_]);
                s.returns.push(i32_);
            }
            Sig::Lifecycle => {
                s.params.extend([p, p, i32_, i32_]);
                s.returns.push(AbiParam::new(types::I64));
            }
            Sig::LcHost => {
                s.params.extend([p, p, i32_, p, i32_]);
                s.returns.push(i32_);
            }
        }
        let r = self.b.import_signature(s);
        self.sigs.insert(which, r);
        r
    }

    /// Stores the top `argc` stack values (below depth `d`) where the trampoline reads them,
    /// returning the pointer to pass (null when there are none).
    fn spill_args(&mut self, d: usize, argc: u8) -> Val {
        let argc = u32::from(argc);
        if argc == 0 {
            return self.b.ins().iconst(self.env.ptr, 0);
        }
        let slot = match self.args_slot {
            Some((s, n)) if n >= argc => s,
            _ => {
                let n = self.max_argc.max(argc);
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    n * abi::RAW_SIZE,
                    3,
                ));
                self.args_slot = Some((s, n));
                s
            }
        };
        let base = d - argc as usize;
        for k in 0..argc as usize {
            let (tag, bits) = self.get(base + k);
            let off = (k as u32 * abi::RAW_SIZE) as i32;
            self.b.ins().stack_store(self.env.ptr, tag, slot, off);
            self.b.ins().stack_store(self.env.ptr, bits, slot, off + 8);
        }
        self.b.ins().stack_addr(self.env.ptr, slot, 0)
    }

    fn out_slot(&mut self) -> StackSlot {
        if let Some(s) = self.out_slot {
            return s;
        }
        let s = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            abi::RAW_SIZE,
            3,
        ));
        self.out_slot = Some(s);
        s
    }

    fn i32c(&mut self, v: u32) -> Val {
        self.b.ins().iconst(types::I32, i64::from(v))
    }

    // ---- control -------------------------------------------------------------------------

    /// Continues at `to` when `cond` (an `i8`) equals `when`, else at the next instruction.
    fn branch(&mut self, cond: Val, when: bool, to: Label, pc: u32) {
        let taken = self.target(to);
        let next = self.target(Label(pc + 1));
        if when {
            self.b.ins().brif(cond, taken, &[], next, &[]);
        } else {
            self.b.ins().brif(cond, next, &[], taken, &[]);
        }
    }

    /// Continues at the label for `status` (an `i32` holding a status number, or a chunk
    /// result with [`STATUS_FLAG`] when `flagged`).
    fn branch3(&mut self, status: Val, flagged: bool, s: Label, f: Label, r: Label) {
        let flag = if flagged { STATUS_FLAG } else { 0 };
        let (bs, bf, br) = (self.target(s), self.target(f), self.target(r));
        let is_running = self.b.ins().icmp_imm_u(
            IntCC::Equal,
            status,
            i64::from(flag | Status::Running as u32),
        );
        let rest = self.b.create_block();
        self.b.ins().brif(is_running, br, &[], rest, &[]);
        self.b.switch_to_block(rest);
        let is_success = self.b.ins().icmp_imm_u(
            IntCC::Equal,
            status,
            i64::from(flag | Status::Success as u32),
        );
        self.b.ins().brif(is_success, bs, &[], bf, &[]);
    }

    /// `call.fn` directly followed by `jump.false`/`jump.true` (a function's truthiness decides a
    /// branch): the value never needs its tag, since for every value `truthy(v)` equals
    /// `as_f64(v) != 0`, so the call goes through the double-returning trampoline. Only when no
    /// jump lands on the `jump.*` (it then has this call as its only predecessor). Returns
    /// whether control falls through (never), or `None` when the pattern does not apply.
    fn fused_truth_test(
        &mut self,
        ins: &Instr,
        next: Option<&Instr>,
        pc: u32,
        d: usize,
    ) -> Option<bool> {
        let (
            &Instr::CallFn { import, argc },
            Some(&(Instr::JumpIfFalse { to } | Instr::JumpIfTrue { to })),
        ) = (ins, next)
        else {
            return None;
        };
        if pc + 1 >= self.range.1 || self.blocks.contains_key(&(pc + 1)) || d < usize::from(argc) {
            return None;
        }
        let when = matches!(next, Some(Instr::JumpIfTrue { .. }));
        let x = self.call_f64(import, argc, d);
        let zero = self.b.ins().f64const(0.0);
        let c = self.b.ins().fcmp(FloatCC::NotEqual, x, zero);
        self.branch(c, when, to, pc + 1);
        Some(false)
    }

    /// Calls function `import` with the top `argc` values (below depth `d`) through the
    /// trampoline returning the rounded result as a double.
    fn call_f64(&mut self, import: crate::program::Imp, argc: u8, d: usize) -> Val {
        let args = self.spill_args(d, argc);
        let sig = self.sig(Sig::FunctionF64);
        let f = self.load_ctx(offsets::FUNCTION_F64);
        let imp = self.i32c(import.0);
        let n = self.i32c(u32::from(argc));
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, imp, args, n]);
        self.b.inst_results(call)[0]
    }

    /// Translates one instruction at depth `d`; returns whether control falls through.
    fn instr(&mut self, ins: &Instr, pc: u32, d: usize) -> Result<bool, TranslateError> {
        let (pop, _) = ins.stack_effect();
        if (d as u64) < u64::from(pop) {
            return Err(format!(
                "instruction {pc} pops {pop} values from a stack of {d}"
            ));
        }
        match *ins {
            Instr::Jump { to } => {
                let t = self.target(to);
                self.b.ins().jump(t, &[]);
                return Ok(false);
            }
            Instr::Finish { status } | Instr::Return { status } => {
                self.finish(status);
                return Ok(false);
            }
            Instr::Call {
                func,
                success,
                failure,
                running,
            } => {
                let callee = *self
                    .env
                    .callees
                    .get(func.0 as usize)
                    .ok_or_else(|| format!("call of unknown function {}", func.0))?;
                let start = self.env.program.functions()[func.0 as usize].start;
                let fref = match self.funcs.get(&func.0) {
                    Some(&f) => f,
                    None => {
                        let f = (self.declare)(callee, &mut self.b);
                        self.funcs.insert(func.0, f);
                        f
                    }
                };
                let label = self.i32c(start);
                let call = self.b.ins().call(fref, &[self.ctx, self.state, label]);
                let r = self.b.inst_results(call)[0];
                self.branch3(r, true, success, failure, running);
                return Ok(false);
            }
            Instr::Act {
                import,
                argc,
                action,
                bit,
                success,
                failure,
                running,
            } => {
                let me = action.0.wrapping_add(1);
                if self.env.inline_bookkeeping {
                    self.act_inline(import.0, argc, me, bit.0, d, (success, failure, running));
                    return Ok(false);
                }
                // The phase, the host call and the slot/list bookkeeping happen in the
                // trampoline (the vm's own code); only the branch on the status stays here.
                let args = self.spill_args(d, argc);
                let sig = self.sig(Sig::Act);
                let f = self.load_ctx(offsets::ACT);
                let imp = self.i32c(import.0);
                let n = self.i32c(u32::from(argc));
                let mev = self.i32c(me);
                let bitv = self.i32c(bit.0);
                let call = self.b.ins().call_indirect(
                    sig,
                    f,
                    &[self.ctx, self.state, imp, n, args, mev, bitv],
                );
                let status = self.b.inst_results(call)[0];
                self.branch3(status, false, success, failure, running);
                return Ok(false);
            }
            Instr::JumpIfListed { bit, to } => {
                let c = self.listed(bit.0);
                self.branch(c, true, to, pc);
                return Ok(false);
            }
            Instr::OnSuccess { bit, to } => {
                if self.env.inline_bookkeeping {
                    self.on_success(bit.0, to);
                    return Ok(false);
                }
                self.list_call(offsets::LIST_SUCCESS, bit.0);
                let t = self.target(to);
                self.b.ins().jump(t, &[]);
                return Ok(false);
            }
            Instr::OnRunning { bit, to } => {
                if self.env.inline_bookkeeping {
                    self.add_to_list(bit.0);
                } else {
                    self.list_call(offsets::LIST_RUNNING, bit.0);
                }
                let t = self.target(to);
                self.b.ins().jump(t, &[]);
                return Ok(false);
            }
            Instr::JumpIfCooling { timer, to } => {
                let until = match self.timer_at(timer.0) {
                    Some(at) => self.b.ins().load(types::I64, mem(), self.state, at),
                    None => self.b.ins().iconst(types::I64, 0),
                };
                let now = self.now();
                let c = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, now, until);
                self.branch(c, true, to, pc);
                return Ok(false);
            }
            Instr::Arm { timer, ms } => {
                if let Some(at) = self.timer_at(timer.0) {
                    let now = self.now();
                    let sum = self.b.ins().iadd_imm_u(now, i64::from(ms));
                    let over = self.b.ins().icmp_imm_u(
                        IntCC::SignedGreaterThan,
                        now,
                        i64::MAX - i64::from(ms),
                    );
                    let max = self.b.ins().iconst(types::I64, i64::MAX);
                    let until = self.b.ins().select(over, max, sum);
                    self.b.ins().store(mem(), until, self.state, at);
                }
            }
            Instr::Zero { temp } => {
                if let Some((p, off)) = self.temp_addr(temp.0) {
                    let zero = self.i32c(0);
                    self.b.ins().store(mem(), zero, p, off);
                }
            }
            Instr::Inc { temp } => {
                if let Some((p, off)) = self.temp_addr(temp.0) {
                    let t = self.b.ins().load(types::I32, mem(), p, off);
                    let more = self.b.ins().iadd_imm_u(t, 1);
                    let full = self
                        .b
                        .ins()
                        .icmp_imm_u(IntCC::Equal, t, i64::from(u32::MAX));
                    let next = self.b.ins().select(full, t, more);
                    self.b.ins().store(mem(), next, p, off);
                }
            }
            Instr::Quorum {
                succ,
                fail,
                n,
                success_all,
                failure_all,
                success,
                failure,
                running,
            } => {
                let s = self.read_temp(succ.0);
                let f = self.read_temp(fail.0);
                let reached = |tx: &mut Self, all: bool, k: Val| {
                    if all {
                        tx.b.ins().icmp_imm_u(IntCC::Equal, k, i64::from(n))
                    } else {
                        tx.b.ins().icmp_imm_u(IntCC::NotEqual, k, 0)
                    }
                };
                let s_ok = reached(self, success_all, s);
                let f_ok = reached(self, failure_all, f);
                let fallback = if n == 0 {
                    Status::Success
                } else {
                    Status::Running
                };
                let fb = self.i32c(fallback as u32);
                let fv = self.i32c(Status::Failure as u32);
                let sv = self.i32c(Status::Success as u32);
                let st = self.b.ins().select(f_ok, fv, fb);
                let st = self.b.ins().select(s_ok, sv, st);
                self.branch3(st, false, success, failure, running);
                return Ok(false);
            }
            Instr::PushBool { value } => self.set_const(d, Value::Bool(value)),
            Instr::PushInt { value } => self.set_const(d, Value::Int(value)),
            Instr::PushFloat { value } => self.set_const(d, Value::Float(value)),
            Instr::PushStr { value } => self.set_const(d, Value::Str(crate::StrId(value.0))),
            Instr::PushVar { var } => {
                let v = self
                    .env
                    .program
                    .vars()
                    .get(var.0 as usize)
                    .copied()
                    .unwrap_or(Value::Bool(false));
                self.set_const(d, v);
            }
            Instr::CallFn { import, argc } => {
                let args = self.spill_args(d, argc);
                let out = self.out_slot();
                let outp = self.b.ins().stack_addr(self.env.ptr, out, 0);
                let sig = self.sig(Sig::Function);
                let f = self.load_ctx(offsets::FUNCTION);
                let imp = self.i32c(import.0);
                let n = self.i32c(u32::from(argc));
                self.b
                    .ins()
                    .call_indirect(sig, f, &[self.ctx, imp, args, n, outp]);
                let tag = self.b.ins().stack_load(self.env.ptr, types::I64, out, 0);
                let bits = self.b.ins().stack_load(self.env.ptr, types::I64, out, 8);
                self.set(d - usize::from(argc), tag, bits);
            }
            Instr::Random {} => {
                let at = self
                    .layout
                    .rng
                    .filter(|&at| self.in_state(u64::from(at), 8))
                    .ok_or("`random` in a program without a PRNG slot")?;
                let sig = self.sig(Sig::Random);
                let f = self.load_ctx(offsets::RANDOM);
                let p = self.b.ins().iadd_imm_u(self.state, i64::from(at));
                let call = self.b.ins().call_indirect(sig, f, &[self.ctx, p]);
                let x = self.b.inst_results(call)[0];
                self.set_res(d, Res::Float(x));
            }
            Instr::Not {} => {
                let v = self.get(d - 1);
                let t = self.truthy(v);
                let n = self.b.ins().bxor_imm_u(t, 1);
                self.set_res(d - 1, Res::Bool(n));
            }
            Instr::Neg {} => {
                let v = self.get(d - 1);
                let x = self.as_f64(v);
                let n = self.b.ins().fneg(x);
                self.set_res(d - 1, Res::Float(n));
            }
            Instr::Truthy {} => {
                let v = self.get(d - 1);
                let t = self.truthy(v);
                self.set_res(d - 1, Res::Bool(t));
            }
            Instr::Bin { op } => {
                let r = self.get(d - 1);
                let l = self.get(d - 2);
                let v = self.apply(op, l, r);
                self.set_res(d - 2, v);
            }
            Instr::JumpIfCmp { op, when, to } => {
                let r = self.get(d - 1);
                let l = self.get(d - 2);
                let v = self.apply(op, l, r);
                let c = self.res_truthy(v);
                self.branch(c, when, to, pc);
                return Ok(false);
            }
            Instr::JumpIfCmpK { op, when, k, to } => {
                let v = self.get(d - 1);
                let x = self.as_f64(v);
                let kv = self.b.ins().f64const(k);
                let c = self.compare(op, x, kv);
                self.branch(c, when, to, pc);
                return Ok(false);
            }
            Instr::CallFnCmpK {
                import,
                argc,
                op,
                when,
                k,
                to,
            } => {
                let x = self.call_f64(import, argc, d);
                let kv = self.b.ins().f64const(k);
                let c = self.compare(op, x, kv);
                self.branch(c, when, to, pc);
                return Ok(false);
            }
            Instr::JumpIfFalse { to } => {
                let v = self.get(d - 1);
                let c = self.truthy(v);
                self.branch(c, false, to, pc);
                return Ok(false);
            }
            Instr::JumpIfTrue { to } => {
                let v = self.get(d - 1);
                let c = self.truthy(v);
                self.branch(c, true, to, pc);
                return Ok(false);
            }
            Instr::Dispatch {} => {
                self.dispatch();
                return Ok(false);
            }
            Instr::Move { rule } => {
                self.set_cursor(rule.0);
                self.step();
                match self.env.program.rules().get(rule.0 as usize) {
                    Some(r) => {
                        let t = self.target(Label(r.label));
                        self.b.ins().jump(t, &[]);
                    }
                    None => self.finish(Status::Failure),
                }
                return Ok(false);
            }
            Instr::SetCursor { rule } => self.set_cursor(rule.0),
            Instr::Step {} => self.step(),
            Instr::Stop {} => {
                self.or_flags(FLAG_STOPPED);
                self.finish(Status::Failure);
                return Ok(false);
            }
            Instr::ActCursor {
                import,
                argc,
                success,
                failure,
                running,
            } => {
                let args = self.spill_args(d, argc);
                let first = self.first_run();
                let cont = self.i32c(abi::PHASE_CONTINUE as u32);
                let enter = self.i32c(0);
                let phase = self.b.ins().select(first, enter, cont);
                let sig = self.sig(Sig::Action);
                let f = self.load_ctx(offsets::ACTION);
                let imp = self.i32c(import.0);
                let n = self.i32c(u32::from(argc));
                let call = self
                    .b
                    .ins()
                    .call_indirect(sig, f, &[self.ctx, imp, phase, args, n]);
                let status = self.b.inst_results(call)[0];
                self.or_flags(FLAG_STARTED);
                self.branch3(status, false, success, failure, running);
                return Ok(false);
            }
            Instr::Yield { success, running } => {
                let first = self.first_run();
                let (yes, no) = (self.b.create_block(), self.target(success));
                self.b.ins().brif(first, yes, &[], no, &[]);
                self.b.switch_to_block(yes);
                self.or_flags(FLAG_STARTED);
                let t = self.target(running);
                self.b.ins().jump(t, &[]);
                return Ok(false);
            }
            Instr::Behave {
                import,
                phase,
                fail,
            } => {
                let code = match phase {
                    0 => 0,
                    1 => abi::PHASE_CONTINUE,
                    _ => abi::PHASE_EXIT,
                };
                let sig = self.sig(Sig::Action);
                let f = self.load_ctx(offsets::ACTION);
                let imp = self.i32c(import.0);
                let ph = self.b.ins().iconst(types::I32, code);
                let args = self.b.ins().iconst(self.env.ptr, 0);
                let n = self.i32c(0);
                let call = self
                    .b
                    .ins()
                    .call_indirect(sig, f, &[self.ctx, imp, ph, args, n]);
                if phase >= 2 {
                    return Ok(true);
                }
                let status = self.b.inst_results(call)[0];
                let failed = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::Equal, status, Status::Failure as i64);
                self.branch(failed, true, fail, pc);
                return Ok(false);
            }
            Instr::DecScore { reject, .. } => {
                let v = self.get(d - 1);
                let x = self.as_f64(v);
                let r = self.decider_call(pc, x);
                let c =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::Equal, r, i64::from(crate::decider_exec::FIRST));
                self.branch(c, true, reject, pc);
                return Ok(false);
            }
            Instr::DecRedecide { to, guard } => {
                let zero = self.b.ins().f64const(0.0);
                let r = self.decider_call(pc, zero);
                let c = self.b.ins().icmp_imm_u(
                    IntCC::Equal,
                    r,
                    i64::from(crate::decider_exec::SECOND),
                );
                let (tg, tt) = (self.target(guard), self.target(Label(to.0)));
                self.b.ins().brif(c, tg, &[], tt, &[]);
                return Ok(false);
            }
            Instr::DecBegin {}
            | Instr::DecJumpRoot { .. }
            | Instr::DecRoot { .. }
            | Instr::DecGuard {}
            | Instr::DecTest { .. }
            | Instr::DecWait { .. }
            | Instr::DecStamp { .. }
            | Instr::DecJumpActive { .. }
            | Instr::DecSet { .. }
            | Instr::DecClear { .. }
            | Instr::DecEnter { .. }
            | Instr::DecPick { .. }
            | Instr::DecJumpPick { .. }
            | Instr::DecMask { .. }
            | Instr::DecMaskUpTo { .. }
            | Instr::DecJumpMasked { .. }
            | Instr::DecCandClear { .. }
            | Instr::DecCand { .. }
            | Instr::DecDraw { .. }
            | Instr::DecBest { .. } => {
                let zero = self.b.ins().f64const(0.0);
                let r = self.decider_call(pc, zero);
                let Some(to) = crate::decider_exec::first_label(ins) else {
                    return Ok(true);
                };
                let c =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::Equal, r, i64::from(crate::decider_exec::FIRST));
                self.branch(c, true, Label(to), pc);
                return Ok(false);
            }
            Instr::PushBound { import } => {
                let sig = self.sig(Sig::Available);
                let f = self.load_ctx(offsets::AVAILABLE);
                let imp = self.i32c(import.0);
                let call = self.b.ins().call_indirect(sig, f, &[self.ctx, imp]);
                let has = self.b.inst_results(call)[0];
                let bits = self.b.ins().uextend(types::I64, has);
                let tag = self.b.ins().iconst(types::I64, TAG_BOOL);
                self.set(d, tag, bits);
            }
            // Every other instruction is a record, lifecycle or selection one.
            _ => return self.lifecycle_instr(ins, pc, d),
        }
        Ok(true)
    }

    // ---- the decider model ---------------------------------------------------------------

    /// Runs decider instruction `pc` through the vm's own code (the decider trampoline);
    /// returns what it says to do next (`decider_exec::FALL`, `FIRST`, `SECOND`).
    fn decider_call(&mut self, pc: u32, x: Val) -> Val {
        let sig = self.sig(Sig::Decider);
        let f = self.load_ctx(offsets::DECIDER);
        let p = self.i32c(pc);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, p, x]);
        self.b.inst_results(call)[0]
    }

    // ---- the lifecycle and selection models ----------------------------------------------

    /// Runs record, lifecycle or selection instruction `pc` (one that does not call the host)
    /// through the vm's own code; `x` (an `i32`) is `var.set`'s truthiness. Returns the `i64`
    /// the trampoline answers (`lifecycle_exec::step`).
    fn life_call(&mut self, pc: u32, x: Val) -> Val {
        let sig = self.sig(Sig::Lifecycle);
        let f = self.load_ctx(offsets::LIFECYCLE);
        let p = self.i32c(pc);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, p, x]);
        self.b.inst_results(call)[0]
    }

    /// Runs host-calling lifecycle or selection instruction `pc` with the top `argc` values
    /// (below depth `d`) as arguments; returns the `i32` status it answers.
    fn lc_host_call(&mut self, pc: u32, argc: u8, d: usize) -> Val {
        let args = self.spill_args(d, argc);
        let sig = self.sig(Sig::LcHost);
        let f = self.load_ctx(offsets::LC_HOST);
        let p = self.i32c(pc);
        let n = self.i32c(u32::from(argc));
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, p, args, n]);
        self.b.inst_results(call)[0]
    }

    /// The byte and mask of bit `bit` counted from byte offset `base`, if inside the state.
    fn bit_byte(&self, base: u32, bit: u32) -> Option<(i32, i64)> {
        let at = u64::from(base) + u64::from(bit / 8);
        self.in_state(at, 1)
            .then_some((at as i32, 1i64 << (bit % 8)))
    }

    /// Whether bit `bit` from byte offset `base` is set (`i8` 0/1; 0 outside the state).
    fn test_bit(&mut self, base: u32, bit: u32) -> Val {
        let Some((at, mask)) = self.bit_byte(base, bit) else {
            return self.b.ins().iconst(types::I8, 0);
        };
        let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
        let masked = self.b.ins().band_imm_u(byte, mask);
        self.b.ins().icmp_imm_u(IntCC::NotEqual, masked, 0)
    }

    /// The record field at `at` (absent when it leaves the records region, as the vm's).
    fn rec_field(&self, at: u32, width: u8) -> Field {
        if u64::from(at) + u64::from(width) <= u64::from(self.layout.records_len) {
            Field {
                offset: self.layout.records + at,
                width,
            }
        } else {
            Field::default()
        }
    }

    /// Record bit `bit`, if inside the records region.
    fn rec_bit_byte(&self, bit: u32) -> Option<(i32, i64)> {
        (bit < self.layout.records_len.saturating_mul(8))
            .then(|| self.bit_byte(self.layout.records, bit))
            .flatten()
    }

    /// Translates a record, lifecycle or selection instruction at depth `d`: bit and field
    /// operations inline, the rest through the trampolines; returns whether control falls
    /// through.
    fn lifecycle_instr(&mut self, ins: &Instr, pc: u32, d: usize) -> Result<bool, TranslateError> {
        match *ins {
            Instr::RecJump { bit, when, to } => {
                let c = match self.rec_bit_byte(bit.0) {
                    Some(_) => self.test_bit(self.layout.records, bit.0),
                    None => self.b.ins().iconst(types::I8, 0),
                };
                self.branch(c, when, to, pc);
                Ok(false)
            }
            Instr::RecBit { bit, value } => {
                if let Some((at, mask)) = self.rec_bit_byte(bit.0) {
                    let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
                    let new = if value {
                        self.b.ins().bor_imm_u(byte, mask)
                    } else {
                        self.b.ins().band_imm_u(byte, !mask & 0xff)
                    };
                    self.b.ins().istore8(mem(), new, self.state, at);
                }
                Ok(true)
            }
            Instr::VarJump { var, when, to } => {
                let c = self.var_value(var.0);
                self.branch(c, when, to, pc);
                Ok(false)
            }
            Instr::VarPush { var } => {
                let c = self.var_value(var.0);
                self.set_res(d, Res::Bool(c));
                Ok(true)
            }
            Instr::RecJumpEq {
                at,
                width,
                value,
                to,
            }
            | Instr::RecJumpGe {
                at,
                width,
                value,
                to,
            } => {
                let v = self.read_field(self.rec_field(at, width));
                let cc = if matches!(ins, Instr::RecJumpEq { .. }) {
                    IntCC::Equal
                } else {
                    IntCC::UnsignedGreaterThanOrEqual
                };
                let c = self.b.ins().icmp_imm_u(cc, v, i64::from(value));
                self.branch(c, true, to, pc);
                Ok(false)
            }
            Instr::RecSet { at, width, value } => {
                let v = self.i32c(value);
                self.write_field(self.rec_field(at, width), v);
                Ok(true)
            }
            Instr::RecZero { at, len } => {
                let from = u64::from(self.layout.records) + u64::from(at);
                let inside = u64::from(at) + u64::from(len) <= u64::from(self.layout.records_len)
                    && self.in_state(from, u64::from(len));
                if inside && len > 0 {
                    if len <= 32 {
                        let mut off = 0u32;
                        let zero64 = self.b.ins().iconst(types::I64, 0);
                        while off + 8 <= len {
                            let a = (from + u64::from(off)) as i32;
                            self.b.ins().store(mem(), zero64, self.state, a);
                            off += 8;
                        }
                        let zero32 = self.b.ins().iconst(types::I32, 0);
                        while off < len {
                            let a = (from + u64::from(off)) as i32;
                            self.b.ins().istore8(mem(), zero32, self.state, a);
                            off += 1;
                        }
                    } else {
                        let sig = self.sig(Sig::Zero);
                        let f = self.load_ctx(offsets::ZERO);
                        let p = self.b.ins().iadd_imm_u(self.state, from as i64);
                        let n = self.b.ins().iconst(self.env.ptr, i64::from(len));
                        self.b.ins().call_indirect(sig, f, &[p, n]);
                    }
                }
                Ok(true)
            }
            Instr::JumpStopped { to } | Instr::SelBegin { unchanged: to } => {
                let flags = self.read_field(self.layout.flags);
                let bit = if matches!(ins, Instr::JumpStopped { .. }) {
                    FLAG_STOPPED
                } else {
                    FLAG_UNCHANGED
                };
                let masked = self.b.ins().band_imm_u(flags, i64::from(bit));
                let c = self.b.ins().icmp_imm_u(IntCC::NotEqual, masked, 0);
                self.branch(c, true, to, pc);
                Ok(false)
            }
            Instr::LcJumpWait { at, to } => {
                let end = if u64::from(at) + 8 <= u64::from(self.layout.records_len)
                    && self.in_state(u64::from(self.layout.records) + u64::from(at), 8)
                {
                    let a = (self.layout.records + at) as i32;
                    self.b.ins().load(types::I64, mem(), self.state, a)
                } else {
                    self.b.ins().iconst(types::I64, 0)
                };
                let now = self.time();
                let c = self.b.ins().icmp(IntCC::SignedLessThan, now, end);
                self.branch(c, true, to, pc);
                Ok(false)
            }
            Instr::VarSet { .. } => {
                let v = self.get(d - 1);
                let t = self.truthy(v);
                let x = self.b.ins().uextend(types::I32, t);
                self.life_call(pc, x);
                Ok(true)
            }
            Instr::TsPush { query, .. } => {
                let zero = self.i32c(0);
                let r = self.life_call(pc, zero);
                let tag = self
                    .b
                    .ins()
                    .iconst(types::I64, if query == 2 { TAG_INT } else { TAG_BOOL });
                self.set(d, tag, r);
                Ok(true)
            }
            Instr::LcAct {
                argc,
                success,
                failure,
                running,
                ..
            } => {
                let status = self.lc_host_call(pc, argc, d);
                self.branch3(status, false, success, failure, running);
                Ok(false)
            }
            Instr::LcCall { argc, .. } => {
                self.lc_host_call(pc, argc, d);
                Ok(true)
            }
            Instr::LcLog { .. } | Instr::SelLeaf { .. } | Instr::SelNone {} => {
                self.lc_host_call(pc, 0, d);
                Ok(true)
            }
            Instr::LcQuorum {
                success,
                failure,
                running,
                ..
            } => {
                let zero = self.i32c(0);
                let r = self.life_call(pc, zero);
                let st = self.b.ins().ireduce(types::I32, r);
                self.branch3(st, false, success, failure, running);
                Ok(false)
            }
            Instr::SelVisit { stop, to, .. } => {
                let zero = self.i32c(0);
                let r = self.life_call(pc, zero);
                let c =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::Equal, r, crate::lifecycle_exec::SECOND as i64);
                let (tt, ts) = (self.target(Label(to.0)), self.target(stop));
                self.b.ins().brif(c, tt, &[], ts, &[]);
                Ok(false)
            }
            _ => {
                // State operations and jumps on the state, through the vm's code.
                let zero = self.i32c(0);
                let r = self.life_call(pc, zero);
                let Some(to) = crate::decider_exec::first_label(ins) else {
                    return Ok(true);
                };
                let c =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::Equal, r, crate::lifecycle_exec::FIRST as i64);
                self.branch(c, true, Label(to), pc);
                Ok(false)
            }
        }
    }

    /// Variable `var`'s value (`i8` 0/1): its state bit XOR its default, known here.
    fn var_value(&mut self, var: u32) -> Val {
        let default = matches!(
            self.env.program.vars().get(var as usize),
            Some(Value::Bool(true))
        );
        let bit = if var < self.layout.var_count {
            self.test_bit(self.layout.vars, var)
        } else {
            self.b.ins().iconst(types::I8, 0)
        };
        if default {
            self.b.ins().bxor_imm_u(bit, 1)
        } else {
            bit
        }
    }

    // ---- the cursor model ----------------------------------------------------------------

    /// `cursor.dispatch`: a halted agent fails at once; an agent without a current rule
    /// stops and fails; otherwise an indexed jump to the cursor's rule (the root when the slot
    /// holds no valid rule), as `cursor::current`.
    fn dispatch(&mut self) {
        let flags = self.read_field(self.layout.flags);
        let halted = self
            .b
            .ins()
            .band_imm_u(flags, i64::from(FLAG_STOPPED | FLAG_RUNAWAY));
        let (stop, check) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(halted, stop, &[], check, &[]);
        self.b.switch_to_block(stop);
        self.finish(Status::Failure);
        self.b.switch_to_block(check);
        let no_rule = self.b.ins().band_imm_u(flags, i64::from(FLAG_NO_RULE));
        let (none, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(no_rule, none, &[], go, &[]);
        self.b.switch_to_block(none);
        self.or_flags(FLAG_STOPPED);
        self.finish(Status::Failure);
        self.b.switch_to_block(go);
        let rules: Vec<u32> = self.env.program.rules().iter().map(|r| r.label).collect();
        let Some(&root) = rules.first() else {
            return self.finish(Status::Failure);
        };
        let cur = self.read_field(self.layout.cursor);
        let ok = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, cur, rules.len() as i64);
        let zero = self.i32c(0);
        let idx = self.b.ins().select(ok, cur, zero);
        let mut switch = Switch::new();
        for (i, &l) in rules.iter().enumerate() {
            let blk = self.target(Label(l));
            switch.set_entry(i as u128, blk);
        }
        let fallback = self.target(Label(root));
        switch.emit(&mut self.b, idx, fallback);
    }

    /// `cursor::set`: the cursor becomes `rule`, `first_run` true.
    fn set_cursor(&mut self, rule: u32) {
        let r = self.i32c(rule);
        self.write_field(self.layout.cursor, r);
        let flags = self.read_field(self.layout.flags);
        let cleared = self.b.ins().band_imm_u(flags, i64::from(!FLAG_STARTED));
        self.write_field(self.layout.flags, cleared);
    }

    fn or_flags(&mut self, bits: u8) {
        let flags = self.read_field(self.layout.flags);
        let set = self.b.ins().bor_imm_u(flags, i64::from(bits));
        self.write_field(self.layout.flags, set);
    }

    /// Whether `first_run` is set (`i8` 0/1).
    fn first_run(&mut self) -> Val {
        let flags = self.read_field(self.layout.flags);
        let started = self.b.ins().band_imm_u(flags, i64::from(FLAG_STARTED));
        self.b.ins().icmp_imm_u(IntCC::Equal, started, 0)
    }

    /// `cursor::step`: counts a rule run on the context's step counter (zeroed by the entry
    /// point before each agent's tick, and kept there because a tick may span several
    /// chunks); at the limit the agent halts as a run-away and the tick ends with failure.
    /// Continues in a fresh block otherwise.
    fn step(&mut self) {
        let limit = match self.env.program.model() {
            crate::program::ProgramModel::Cursor { limit } => limit,
            _ => 0,
        };
        let t = self.load_ctx_ty(types::I32, offsets::STEPS);
        let more = self.b.ins().iadd_imm_u(t, 1);
        let full = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, t, i64::from(u32::MAX));
        let next = self.b.ins().select(full, t, more);
        self.b.ins().store(mem(), next, self.ctx, offsets::STEPS);
        let hit =
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, next, i64::from(limit));
        let (runaway, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(hit, runaway, &[], go, &[]);
        self.b.switch_to_block(runaway);
        self.or_flags(FLAG_RUNAWAY);
        self.finish(Status::Failure);
        self.b.switch_to_block(go);
    }

    /// `act` with the phase and the slot/list bookkeeping inlined (small programs).
    fn act_inline(
        &mut self,
        import: u32,
        argc: u8,
        me: u32,
        bit: u32,
        d: usize,
        (success, failure, running): (Label, Label, Label),
    ) {
        let args = self.spill_args(d, argc);
        let current = self.read_field(self.layout.current);
        let is_me = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, current, i64::from(me));
        let cont = self.i32c(abi::PHASE_CONTINUE as u32);
        let enter = self.i32c(0);
        let phase = self.b.ins().select(is_me, cont, enter);
        let sig = self.sig(Sig::Action);
        let f = self.load_ctx(offsets::ACTION);
        let imp = self.i32c(import);
        let n = self.i32c(u32::from(argc));
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, imp, phase, args, n]);
        let status = self.b.inst_results(call)[0];
        let run_blk = self.b.create_block();
        let done_blk = self.b.create_block();
        let is_running = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, status, Status::Running as i64);
        self.b.ins().brif(is_running, run_blk, &[], done_blk, &[]);
        // The action's own claims are known here, so each edge writes the slot it leaves.
        let claims = crate::exec::claims_of(self.env.program.parts(), import);
        // running: a claim makes it the current action; it becomes the only listed node
        self.b.switch_to_block(run_blk);
        if claims.contains(Status::Running) {
            let mev = self.i32c(me);
            self.write_field(self.layout.current, mev);
        }
        self.clear_list();
        self.add_to_list(bit);
        let tr = self.target(running);
        self.b.ins().jump(tr, &[]);
        // finished: a claim on this outcome empties the slot, else it is emptied if it held
        // this action
        self.b.switch_to_block(done_blk);
        let is_success = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, status, Status::Success as i64);
        let (succ_blk, fail_blk) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(is_success, succ_blk, &[], fail_blk, &[]);
        for (blk, outcome) in [(fail_blk, Status::Failure), (succ_blk, Status::Success)] {
            self.b.switch_to_block(blk);
            if self.layout.current.width > 0 {
                let zero = self.i32c(0);
                let cleared = if claims.contains(outcome) {
                    zero
                } else {
                    self.b.ins().select(is_me, zero, current)
                };
                self.write_field(self.layout.current, cleared);
            }
            if outcome == Status::Failure {
                let tf = self.target(failure);
                self.b.ins().jump(tf, &[]);
            }
        }
        self.on_success(bit, success);
    }

    /// Calls the out-of-line `list.*` bookkeeping at context offset `off` for `bit`.
    fn list_call(&mut self, off: i32, bit: u32) {
        let sig = self.sig(Sig::List);
        let f = self.load_ctx(off);
        let b = self.i32c(bit);
        self.b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, b]);
    }

    /// `list.success`: an action or composite that succeeded drops the list when it was
    /// listed; then continues at `to`.
    fn on_success(&mut self, bit: u32, to: Label) {
        let listed = self.listed(bit);
        let clear = self.b.create_block();
        let t = self.target(to);
        self.b.ins().brif(listed, clear, &[], t, &[]);
        self.b.switch_to_block(clear);
        self.clear_list();
        self.b.ins().jump(t, &[]);
    }
}
