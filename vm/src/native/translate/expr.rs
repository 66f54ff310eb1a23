//! Expressions: pushes, host functions, operators and the jumps on a value's truth or a
//! comparison (`push.*`, `call.fn`, `random`, `not`, `neg`, `truthy`, `bin`, `jump.*`,
//! `call.fn.cmpk`, `push.bound`), and the fusion of `call.fn` with the `jump.*` that tests it.
//!
//! Values live in the operand-stack variables of [`values`](super::values); this file must
//! never write the state block (only `random` reads and advances the agent's PRNG, through
//! its trampoline).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder};

use super::{misrouted, Res, Sig, TranslateError, Tx};
use crate::native::abi::{offsets, TAG_BOOL};
use crate::program::{Imp, Instr};
use crate::{StrId, Value};

impl Tx<'_, '_, '_> {
    /// Translates an expression instruction at depth `d`; returns whether control falls
    /// through (not after a jump).
    pub(super) fn expr_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
            Instr::PushBool { value } => self.set_const(d, Value::Bool(value)),
            Instr::PushInt { value } => self.set_const(d, Value::Int(value)),
            Instr::PushFloat { value } => self.set_const(d, Value::Float(value)),
            Instr::PushStr { value } => self.set_const(d, Value::Str(StrId(value.0))),
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
            Instr::CallFn { import, argc } => self.call_fn(import, argc, d),
            Instr::Random {} => self.random(d)?,
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
            Instr::PushBound { import } => self.push_bound(import, d),
            _ => return self.expr_jump(ins, pc, d),
        }
        Ok(true)
    }

    /// Translates a jump on a value at depth `d` (`jump.cmp`, `jump.cmpk`, `call.fn.cmpk`,
    /// `jump.false`, `jump.true`); control never falls through.
    fn expr_jump(&mut self, ins: &Instr, pc: u32, d: usize) -> Result<bool, TranslateError> {
        match *ins {
            Instr::JumpIfCmp { op, when, to } => {
                let r = self.get(d - 1);
                let l = self.get(d - 2);
                let v = self.apply(op, l, r);
                let c = self.res_truthy(v);
                self.branch(c, when, to, pc);
            }
            Instr::JumpIfCmpK { op, when, k, to } => {
                let v = self.get(d - 1);
                let x = self.as_f64(v);
                let kv = self.b.ins().f64const(k);
                let c = self.compare(op, x, kv);
                self.branch(c, when, to, pc);
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
            }
            Instr::JumpIfFalse { to } => {
                let v = self.get(d - 1);
                let c = self.truthy(v);
                self.branch(c, false, to, pc);
            }
            Instr::JumpIfTrue { to } => {
                let v = self.get(d - 1);
                let c = self.truthy(v);
                self.branch(c, true, to, pc);
            }
            _ => return Err(misrouted(pc)),
        }
        Ok(false)
    }

    /// `call.fn`: the top `argc` values (below depth `d`) are replaced by the function's
    /// result, which the trampoline writes to the out slot as a tagged value.
    fn call_fn(&mut self, import: Imp, argc: u8, d: usize) {
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

    /// `random`: a draw from the agent's PRNG (in the state block) pushed at depth `d`.
    fn random(&mut self, d: usize) -> Result<(), TranslateError> {
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
        Ok(())
    }

    /// `push.bound`: whether the host has import `import` right now, pushed at depth `d`.
    fn push_bound(&mut self, import: Imp, d: usize) {
        let sig = self.sig(Sig::Available);
        let f = self.load_ctx(offsets::AVAILABLE);
        let imp = self.i32c(import.0);
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, imp]);
        let has = self.b.inst_results(call)[0];
        let bits = self.b.ins().uextend(types::I64, has);
        let tag = self.b.ins().iconst(types::I64, TAG_BOOL);
        self.set(d, tag, bits);
    }

    /// `call.fn` directly followed by `jump.false`/`jump.true` (a function's truthiness decides a
    /// branch): the value never needs its tag, since for every value `truthy(v)` equals
    /// `as_f64(v) != 0`, so the call goes through the double-returning trampoline. Only when no
    /// jump lands on the `jump.*` (it then has this call as its only predecessor). Returns
    /// whether control falls through (never), or `None` when the pattern does not apply.
    pub(super) fn fused_truth_test(
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
}
