//! The decider model (Spore decision trees): the dispatch of `dec.*` and `behave`. The
//! frequent instructions are emitted inline (`decider_inline`); the others (`dec.score`,
//! `dec.draw`, `dec.best`, and `dec.begin` when a stimulus may expire) run through the vm's
//! own code (the decider trampoline), and the generated code only branches on what it answers;
//! `behave` calls its behaviour action directly.
//!
//! This file must never reimplement a trampoline-run operation inline: the scores and draws
//! are the vm's, so the two engines cannot drift apart.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value as Val};

use super::{misrouted, Sig, TranslateError, Tx};
use crate::model::decider as decider_exec;
use crate::native::abi::{self, offsets};
use crate::program::{Instr, Label};
use crate::Status;

impl Tx<'_, '_, '_> {
    /// Translates a decider-model instruction (`dec.*`, `behave`) at depth `d`; returns
    /// whether control falls through.
    pub(super) fn decider_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
            Instr::Behave {
                import,
                phase,
                fail,
            } => Ok(self.behave(import.0, phase, fail, pc)),
            Instr::DecScore { reject, .. } => {
                let v = self.get(d - 1);
                let x = self.as_f64(v);
                let r = self.decider_call(pc, x);
                let c = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::Equal, r, i64::from(decider_exec::FIRST));
                self.branch(c, true, reject, pc);
                Ok(false)
            }
            Instr::DecRedecide { to, guard } => {
                let limit = super::decider_inline::redecide_limit(self.env.program);
                self.dec_redecide(limit, Label(to.0), guard);
                Ok(false)
            }
            Instr::DecBegin {} => {
                self.dec_begin(pc);
                Ok(true)
            }
            _ if ins.is_decider() => match self.decider_inline(ins, pc) {
                Some(falls) => Ok(falls),
                None => Ok(self.decider_step(ins, pc)),
            },
            _ => Err(misrouted(pc)),
        }
    }

    /// Runs decider instruction `ins` at `pc` through the vm's code, then continues at its
    /// first label when the code says so; returns whether control falls through.
    fn decider_step(&mut self, ins: &Instr, pc: u32) -> bool {
        let zero = self.b.ins().f64const(0.0);
        let r = self.decider_call(pc, zero);
        let Some(to) = decider_exec::first_label(ins) else {
            return true;
        };
        let c = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, r, i64::from(decider_exec::FIRST));
        self.branch(c, true, Label(to), pc);
        false
    }

    /// `behave`: calls behaviour action `import` (no arguments) with the phase for `phase`;
    /// unless it is a deactivation (whose result is ignored), continues at `fail` if it
    /// failed. Returns whether control falls through.
    fn behave(&mut self, import: u32, phase: u8, fail: Label, pc: u32) -> bool {
        let code = match phase {
            0 => 0,
            1 => abi::PHASE_CONTINUE,
            _ => abi::PHASE_EXIT,
        };
        let sig = self.sig(Sig::Action);
        let f = self.load_ctx(offsets::ACTION);
        let imp = self.i32c(import);
        let ph = self.b.ins().iconst(types::I32, code);
        let args = self.b.ins().iconst(self.env.ptr, 0);
        let n = self.i32c(0);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, imp, ph, args, n]);
        if phase >= 2 {
            return true;
        }
        let status = self.b.inst_results(call)[0];
        let failed = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, status, Status::Failure as i64);
        self.branch(failed, true, fail, pc);
        false
    }

    /// Runs decider instruction `pc` through the vm's own code (the decider trampoline);
    /// returns what it says to do next (`decider_exec::FALL`, `FIRST`, `SECOND`).
    pub(super) fn decider_call(&mut self, pc: u32, x: Val) -> Val {
        let sig = self.sig(Sig::Decider);
        let f = self.load_ctx(offsets::DECIDER);
        let p = self.i32c(pc);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, p, x]);
        self.b.inst_results(call)[0]
    }
}
