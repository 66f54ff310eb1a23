//! The operand stack and the value operations of the translation: stack slot `k` is two SSA
//! variables (tag and payload), and `Value::as_f64`, `Value::truthy` and `BinOp::apply` are
//! emitted over them, specialised at translation time when a tag is a known constant.
//!
//! This file only builds pure IR over SSA values: it must never read or write the state
//! block or the context, nor call out of the generated code.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, InstBuilder, InstructionData, MemFlagsData, Opcode, Value as Val, ValueDef,
};
use cranelift_frontend::Variable;

use super::{Res, Tx};
use crate::native::abi::{TAG_BOOL, TAG_FLOAT, TAG_INT, TAG_STR};
use crate::{BinOp, Value};

impl Tx<'_, '_, '_> {
    /// The variables of operand-stack slot `k` (declared on first use).
    pub(super) fn var(&mut self, k: usize) -> (Variable, Variable) {
        while self.tags.len() <= k {
            let t = self.b.declare_var(types::I64);
            let v = self.b.declare_var(types::I64);
            self.tags.push(t);
            self.bits.push(v);
        }
        (self.tags[k], self.bits[k])
    }

    pub(super) fn get(&mut self, k: usize) -> (Val, Val) {
        let (t, v) = self.var(k);
        (self.b.use_var(t), self.b.use_var(v))
    }

    pub(super) fn set(&mut self, k: usize, tag: Val, bits: Val) {
        let (t, v) = self.var(k);
        self.b.def_var(t, tag);
        self.b.def_var(v, bits);
    }

    pub(super) fn set_const(&mut self, k: usize, v: Value) {
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

    pub(super) fn set_res(&mut self, k: usize, r: Res) {
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
    pub(super) fn constant(&self, v: Val) -> Option<i64> {
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
    pub(super) fn as_f64(&mut self, (tag, bits): (Val, Val)) -> Val {
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
    pub(super) fn truthy(&mut self, (tag, bits): (Val, Val)) -> Val {
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
    pub(super) fn compare(&mut self, op: BinOp, x: Val, y: Val) -> Val {
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
    pub(super) fn apply(&mut self, op: BinOp, l: (Val, Val), r: (Val, Val)) -> Res {
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

    pub(super) fn res_truthy(&mut self, r: Res) -> Val {
        match r {
            Res::Bool(c) => c,
            Res::Float(x) => {
                let zero = self.b.ins().f64const(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, zero)
            }
        }
    }
}
