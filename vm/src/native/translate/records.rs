//! State variables, node records and timestamps (shared by the lifecycle and selection
//! models): bit and field tests and writes are emitted inline, the rest (`rec.inc`,
//! `rec.copy`, `var.set`, `ts.*`) runs through the vm's own code. Also the two helpers the
//! lifecycle and selection models share with these: the generic step through the vm's code
//! and the jump on a state flag.
//!
//! This file must never address memory outside the records region and the variable bits:
//! an operand that leaves them reads as zero and writes nothing, as in the vm.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value as Val};

use super::{mem, misrouted, Res, Sig, TranslateError, Tx};
use crate::model::{decider as decider_exec, lifecycle as lifecycle_exec};
use crate::native::abi::{offsets, TAG_BOOL, TAG_INT};
use crate::program::{Field, Instr, Label, FLAG_STOPPED};
use crate::Value;

impl Tx<'_, '_, '_> {
    /// Translates a variable, record or timestamp instruction at depth `d`; returns whether
    /// control falls through.
    pub(super) fn records_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
            Instr::VarPush { var } => {
                let c = self.var_value(var.0);
                self.set_res(d, Res::Bool(c));
            }
            Instr::VarJump { var, when, to } => {
                let c = self.var_value(var.0);
                self.branch(c, when, to, pc);
                return Ok(false);
            }
            Instr::VarSet { .. } => {
                let v = self.get(d - 1);
                let t = self.truthy(v);
                let x = self.b.ins().uextend(types::I32, t);
                self.life_call(pc, x);
            }
            Instr::JumpStopped { to } => {
                self.jump_on_flag(FLAG_STOPPED, to, pc);
                return Ok(false);
            }
            Instr::RecJump { bit, when, to } => {
                let c = match self.rec_bit_byte(bit.0) {
                    Some(_) => self.test_bit(self.layout.records, bit.0),
                    None => self.b.ins().iconst(types::I8, 0),
                };
                self.branch(c, when, to, pc);
                return Ok(false);
            }
            Instr::RecBit { bit, value } => self.rec_bit(bit.0, value),
            Instr::RecZero { at, len } => self.rec_zero(at, len),
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
                return Ok(false);
            }
            Instr::RecSet { at, width, value } => {
                let v = self.i32c(value);
                self.write_field(self.rec_field(at, width), v);
            }
            Instr::TsPush { query, .. } => {
                let zero = self.i32c(0);
                let r = self.life_call(pc, zero);
                let tag = self
                    .b
                    .ins()
                    .iconst(types::I64, if query == 2 { TAG_INT } else { TAG_BOOL });
                self.set(d, tag, r);
            }
            _ if ins.is_record() => return Ok(self.life_step(ins, pc)),
            _ => return Err(misrouted(pc)),
        }
        Ok(true)
    }

    /// Runs record, lifecycle or selection instruction `ins` at `pc` (one without a
    /// translation of its own) through the vm's code, then continues at its first label when
    /// the code answers `FIRST`. Returns whether control falls through (when it has none).
    pub(super) fn life_step(&mut self, ins: &Instr, pc: u32) -> bool {
        let zero = self.i32c(0);
        let r = self.life_call(pc, zero);
        let Some(to) = decider_exec::first_label(ins) else {
            return true;
        };
        let c = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, r, lifecycle_exec::FIRST as i64);
        self.branch(c, true, Label(to), pc);
        false
    }

    /// Continues at `to` if flag `bit` of the state's flags is set, else at the next
    /// instruction (`jump.stopped`, `sel.begin`).
    pub(super) fn jump_on_flag(&mut self, bit: u8, to: Label, pc: u32) {
        let flags = self.read_field(self.layout.flags);
        let masked = self.b.ins().band_imm_u(flags, i64::from(bit));
        let c = self.b.ins().icmp_imm_u(IntCC::NotEqual, masked, 0);
        self.branch(c, true, to, pc);
    }

    /// `rec.bit`: record bit `bit` becomes `value`.
    fn rec_bit(&mut self, bit: u32, value: bool) {
        if let Some((at, mask)) = self.rec_bit_byte(bit) {
            let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
            let new = if value {
                self.b.ins().bor_imm_u(byte, mask)
            } else {
                self.b.ins().band_imm_u(byte, !mask & 0xff)
            };
            self.b.ins().istore8(mem(), new, self.state, at);
        }
    }

    /// `rec.zero`: record bytes `at .. at + len` become zero (nothing when they leave the
    /// records region): stores for up to 32 bytes, else the zeroing trampoline.
    fn rec_zero(&mut self, at: u32, len: u32) {
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
    }

    /// The record field at `at` (absent when it leaves the records region, as the vm's).
    pub(super) fn rec_field(&self, at: u32, width: u8) -> Field {
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
    pub(super) fn rec_bit_byte(&self, bit: u32) -> Option<(i32, i64)> {
        (bit < self.layout.records_len.saturating_mul(8))
            .then(|| self.bit_byte(self.layout.records, bit))
            .flatten()
    }

    /// Variable `var`'s value (`i8` 0/1): its state bit XOR its default, known here.
    pub(super) fn var_value(&mut self, var: u32) -> Val {
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
}
