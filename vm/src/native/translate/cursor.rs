//! The cursor model (Drag[en]gine): `cursor.dispatch`, `cursor.move`, `cursor.set`,
//! `cursor.step`, `cursor.stop`, `act.cursor` and `yield`, over the cursor slot, the flags
//! and the context's step counter, as the vm's cursor model does.
//!
//! This file must never let a rule run uncounted: every `cursor.move` and `cursor.step` goes
//! through [`step`](Tx::step), which halts a run-away agent at the program's limit.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value as Val};
use cranelift_frontend::Switch;

use super::{mem, misrouted, Sig, TranslateError, Tx};
use crate::native::abi::{self, offsets};
use crate::program::{
    Instr, Label, ProgramModel, FLAG_NO_RULE, FLAG_RUNAWAY, FLAG_STARTED, FLAG_STOPPED,
};
use crate::Status;

impl Tx<'_, '_, '_> {
    /// Translates a cursor-model instruction at depth `d`; returns whether control falls
    /// through.
    pub(super) fn cursor_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
            Instr::Dispatch {} => self.dispatch(),
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
            }
            Instr::SetCursor { rule } => {
                self.set_cursor(rule.0);
                return Ok(true);
            }
            Instr::Step {} => {
                self.step();
                return Ok(true);
            }
            Instr::Stop {} => {
                self.or_flags(FLAG_STOPPED);
                self.finish(Status::Failure);
            }
            Instr::ActCursor {
                import,
                argc,
                success,
                failure,
                running,
            } => self.act_cursor(import.0, argc, d, (success, failure, running)),
            Instr::Yield { success, running } => {
                let first = self.first_run();
                let (yes, no) = (self.b.create_block(), self.target(success));
                self.b.ins().brif(first, yes, &[], no, &[]);
                self.b.switch_to_block(yes);
                self.or_flags(FLAG_STARTED);
                let t = self.target(running);
                self.b.ins().jump(t, &[]);
            }
            _ => return Err(misrouted(pc)),
        }
        Ok(false)
    }

    /// `act.cursor`: the host call with phase `enter` on the rule's first run, else
    /// `continue`; `first_run` is cleared; then a branch on the status.
    fn act_cursor(
        &mut self,
        import: u32,
        argc: u8,
        d: usize,
        (success, failure, running): (Label, Label, Label),
    ) {
        let args = self.spill_args(d, argc);
        let first = self.first_run();
        let cont = self.i32c(abi::PHASE_CONTINUE as u32);
        let enter = self.i32c(0);
        let phase = self.b.ins().select(first, enter, cont);
        let sig = self.sig(Sig::Action);
        let f = self.load_ctx(offsets::ACTION);
        let imp = self.i32c(import);
        let n = self.i32c(u32::from(argc));
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, imp, phase, args, n]);
        let status = self.b.inst_results(call)[0];
        self.or_flags(FLAG_STARTED);
        self.branch3(status, false, success, failure, running);
    }

    /// `cursor.dispatch`: a halted agent fails at once; an agent without a current rule
    /// stops and fails; otherwise an indexed jump to the cursor's rule (the root when the slot
    /// holds no valid rule), as `cursor::current`.
    pub(super) fn dispatch(&mut self) {
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
    pub(super) fn set_cursor(&mut self, rule: u32) {
        let r = self.i32c(rule);
        self.write_field(self.layout.cursor, r);
        let flags = self.read_field(self.layout.flags);
        let cleared = self.b.ins().band_imm_u(flags, i64::from(!FLAG_STARTED));
        self.write_field(self.layout.flags, cleared);
    }

    pub(super) fn or_flags(&mut self, bits: u8) {
        let flags = self.read_field(self.layout.flags);
        let set = self.b.ins().bor_imm_u(flags, i64::from(bits));
        self.write_field(self.layout.flags, set);
    }

    /// Whether `first_run` is set (`i8` 0/1).
    pub(super) fn first_run(&mut self) -> Val {
        let flags = self.read_field(self.layout.flags);
        let started = self.b.ins().band_imm_u(flags, i64::from(FLAG_STARTED));
        self.b.ins().icmp_imm_u(IntCC::Equal, started, 0)
    }

    /// `cursor::step`: counts a rule run on the context's step counter (zeroed by the entry
    /// point before each agent's tick, and kept there because a tick may span several
    /// chunks); at the limit the agent halts as a run-away and the tick ends with failure.
    /// Continues in a fresh block otherwise.
    pub(super) fn step(&mut self) {
        let limit = match self.env.program.model() {
            ProgramModel::Cursor { limit } => limit,
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
}
