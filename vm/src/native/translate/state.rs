//! Addressing the agent's state block and the call context: fields, bits, timers and
//! counters at the same offsets as the vm's (`Layout`), so the two engines can take turns on
//! one agent.
//!
//! Every offset is checked against the state size here: an access the vm would skip as out
//! of range is never emitted (a read gives zero, a write nothing). This file must never
//! decide control flow or call out of the generated code.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value as Val};

use super::{mem, Tx};
use crate::native::abi::offsets;
use crate::program::Field;

impl Tx<'_, '_, '_> {
    /// Whether `len` bytes at `at` lie inside the state block.
    pub(super) fn in_state(&self, at: u64, len: u64) -> bool {
        at.checked_add(len)
            .is_some_and(|e| e <= u64::from(self.size))
    }

    pub(super) fn read_field(&mut self, f: Field) -> Val {
        let ok = self.in_state(u64::from(f.offset), u64::from(f.width));
        let at = f.offset as i32;
        match f.width {
            1 if ok => self.b.ins().uload8(types::I32, mem(), self.state, at),
            2 if ok => self.b.ins().uload16(types::I32, mem(), self.state, at),
            4 if ok => self.b.ins().load(types::I32, mem(), self.state, at),
            _ => self.b.ins().iconst(types::I32, 0),
        }
    }

    pub(super) fn write_field(&mut self, f: Field, v: Val) {
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

    pub(super) fn timer_at(&self, timer: u32) -> Option<i32> {
        let at = u64::from(self.layout.timers) + 8 * u64::from(timer);
        self.in_state(at, 8).then_some(at as i32)
    }

    pub(super) fn now(&mut self) -> Val {
        self.load_ctx_ty(types::I64, offsets::NOW)
    }

    /// `now` in the program's clock units (lifecycle timers).
    pub(super) fn time(&mut self) -> Val {
        self.load_ctx_ty(types::I64, offsets::TIME)
    }

    pub(super) fn temp_addr(&mut self, temp: u32) -> Option<(Val, i32)> {
        if temp >= self.env.program.temps() {
            return None;
        }
        let base = self.load_ctx(offsets::TEMPS);
        Some((base, (4 * temp) as i32))
    }

    pub(super) fn read_temp(&mut self, temp: u32) -> Val {
        match self.temp_addr(temp) {
            Some((p, off)) => self.b.ins().load(types::I32, mem(), p, off),
            None => self.b.ins().iconst(types::I32, 0),
        }
    }

    pub(super) fn load_ctx(&mut self, off: i32) -> Val {
        self.load_ctx_ty(self.env.ptr, off)
    }

    pub(super) fn load_ctx_ty(&mut self, ty: Type, off: i32) -> Val {
        self.b.ins().load(ty, mem(), self.ctx, off)
    }

    /// The byte and mask of bit `bit` counted from byte offset `base`, if inside the state.
    pub(super) fn bit_byte(&self, base: u32, bit: u32) -> Option<(i32, i64)> {
        let at = u64::from(base) + u64::from(bit / 8);
        self.in_state(at, 1)
            .then_some((at as i32, 1i64 << (bit % 8)))
    }

    /// Whether bit `bit` from byte offset `base` is set (`i8` 0/1; 0 outside the state).
    pub(super) fn test_bit(&mut self, base: u32, bit: u32) -> Val {
        let Some((at, mask)) = self.bit_byte(base, bit) else {
            return self.b.ins().iconst(types::I8, 0);
        };
        let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
        let masked = self.b.ins().band_imm_u(byte, mask);
        self.b.ins().icmp_imm_u(IntCC::NotEqual, masked, 0)
    }
}
