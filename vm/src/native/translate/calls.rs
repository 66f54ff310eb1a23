//! Calls out of the generated code: the signatures of the host trampolines of
//! [`abi`](crate::native::abi), the spilling of stack arguments, and the calls that run a
//! host function or a record, lifecycle or selection instruction through the vm's own code.
//!
//! This file only emits calls through the function pointers the context holds; it must never
//! call into the host or run code itself, and never branch on what a call answers.

use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind,
    Value as Val,
};

use super::{Sig, Tx};
use crate::native::abi::{self, offsets};
use crate::program::Imp;

impl Tx<'_, '_, '_> {
    pub(super) fn sig(&mut self, which: Sig) -> SigRef {
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
    pub(super) fn spill_args(&mut self, d: usize, argc: u8) -> Val {
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

    pub(super) fn out_slot(&mut self) -> StackSlot {
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

    pub(super) fn i32c(&mut self, v: u32) -> Val {
        self.b.ins().iconst(types::I32, i64::from(v))
    }

    /// Calls function `import` with the top `argc` values (below depth `d`) through the
    /// trampoline returning the rounded result as a double.
    pub(super) fn call_f64(&mut self, import: Imp, argc: u8, d: usize) -> Val {
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

    /// Runs record, lifecycle or selection instruction `pc` (one that does not call the host)
    /// through the vm's own code; `x` (an `i32`) is `var.set`'s truthiness. Returns the `i64`
    /// the trampoline answers (`lifecycle_exec::step`).
    pub(super) fn life_call(&mut self, pc: u32, x: Val) -> Val {
        let sig = self.sig(Sig::Lifecycle);
        let f = self.load_ctx(offsets::LIFECYCLE);
        let p = self.i32c(pc);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, p, x]);
        self.b.inst_results(call)[0]
    }

    /// Runs host-calling lifecycle, selection or trace instruction `pc` with the top `argc` values
    /// (below depth `d`) as arguments; returns the `i32` status it answers.
    pub(super) fn lc_host_call(&mut self, pc: u32, argc: u8, d: usize) -> Val {
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
}
