//! The selection model (CRYENGINE BST): `sel.*`. The start-of-tick test is inline; the
//! leaf changes (`sel.leaf`, `sel.none`) go through the host trampoline and the state-machine
//! walk through the vm's own code.
//!
//! This file must never count a state-machine transition itself: `sel.visit` (which may jump
//! backwards) is counted by the vm's code, so a walk cannot loop without end.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;

use super::{misrouted, TranslateError, Tx};
use crate::model::lifecycle as lifecycle_exec;
use crate::program::{Instr, Label, FLAG_UNCHANGED};
impl Tx<'_, '_, '_> {
    /// Translates a selection-model instruction (`sel.*`) at depth `d`; returns whether
    /// control falls through.
    pub(super) fn selection_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
            Instr::SelBegin { unchanged } => {
                self.jump_on_flag(FLAG_UNCHANGED, unchanged, pc);
                Ok(false)
            }
            Instr::SelLeaf { .. } | Instr::SelNone {} => {
                self.lc_host_call(pc, 0, d);
                Ok(true)
            }
            Instr::SelVisit { stop, to, .. } => {
                let zero = self.i32c(0);
                let r = self.life_call(pc, zero);
                let c = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::Equal, r, lifecycle_exec::SECOND as i64);
                let (tt, ts) = (self.target(Label(to.0)), self.target(stop));
                self.b.ins().brif(c, tt, &[], ts, &[]);
                Ok(false)
            }
            _ if ins.is_selection() => Ok(self.life_step(ins, pc)),
            _ => Err(misrouted(pc)),
        }
    }
}
