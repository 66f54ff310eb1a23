//! The lifecycle model (CRYENGINE MBT): `lc.*` and `scope.*`. Waits are tested inline; the
//! host calls (`lc.act`, `lc.call`, `lc.log`) and the other state operations run through the
//! vm's own code, and the generated code branches on what they answer.
//!
//! This file must never call the host directly: every lifecycle host call goes through the
//! `lc_host` trampoline, which does the records' bookkeeping around it.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder};

use super::{mem, misrouted, TranslateError, Tx};
use crate::program::Instr;
impl Tx<'_, '_, '_> {
    /// Translates a lifecycle-model instruction (`lc.*`, `scope.*`) at depth `d`; returns
    /// whether control falls through.
    pub(super) fn lifecycle_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
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
            Instr::LcLog { .. } => {
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
            _ if ins.is_lifecycle() => Ok(self.life_step(ins, pc)),
            _ => Err(misrouted(pc)),
        }
    }
}
