//! The running-list model's node bookkeeping: `act` (the host call, the current-action slot
//! and the running list, inline or through the vm's code), `jump.listed`, `list.success`,
//! `list.running`, cooldown timers (`jump.cooling`, `timer.arm`) and the per-tick counters
//! of parallels (`temp.zero`, `temp.inc`, `quorum`).
//!
//! Inlined bookkeeping must do exactly what the vm's `list.*` and `act` do, edge for edge;
//! this file must never emit a state access outside the running list, its count, the
//! current-action slot and the timers.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value as Val};

use super::{mem, misrouted, Sig, TranslateError, Tx};
use crate::model::running_list::claims_of;
use crate::native::abi::{self, offsets};
use crate::program::{Instr, Label};
use crate::Status;

impl Tx<'_, '_, '_> {
    /// Translates a running-list, timer or counter instruction at depth `d`; returns whether
    /// control falls through.
    pub(super) fn running_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match *ins {
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
                self.act(import.0, argc, me, bit.0, d, (success, failure, running));
            }
            Instr::JumpIfListed { bit, to } => {
                let c = self.listed(bit.0);
                self.branch(c, true, to, pc);
            }
            Instr::OnSuccess { bit, to } => {
                if self.env.inline_bookkeeping {
                    self.on_success(bit.0, to);
                } else {
                    self.list_call(offsets::LIST_SUCCESS, bit.0);
                    let t = self.target(to);
                    self.b.ins().jump(t, &[]);
                }
            }
            Instr::OnRunning { bit, to } => {
                if self.env.inline_bookkeeping {
                    self.add_to_list(bit.0);
                } else {
                    self.list_call(offsets::LIST_RUNNING, bit.0);
                }
                let t = self.target(to);
                self.b.ins().jump(t, &[]);
            }
            Instr::JumpIfCooling { timer, to } => {
                let until = match self.timer_at(timer.0) {
                    Some(at) => self.b.ins().load(types::I64, mem(), self.state, at),
                    None => self.b.ins().iconst(types::I64, 0),
                };
                let now = self.now();
                let c = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, now, until);
                self.branch(c, true, to, pc);
            }
            Instr::Arm { timer, ms } => {
                self.arm(timer.0, ms);
                return Ok(true);
            }
            Instr::Zero { temp } => {
                if let Some((p, off)) = self.temp_addr(temp.0) {
                    let zero = self.i32c(0);
                    self.b.ins().store(mem(), zero, p, off);
                }
                return Ok(true);
            }
            Instr::Inc { temp } => {
                self.inc(temp.0);
                return Ok(true);
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
            }
            _ => return Err(misrouted(pc)),
        }
        Ok(false)
    }

    /// `act`: inline when bookkeeping is, else the phase, the host call and the slot/list
    /// bookkeeping happen in the trampoline (the vm's own code) and only the branch on the
    /// status stays here. `me` is the value the current-action slot holds while it runs.
    fn act(
        &mut self,
        import: u32,
        argc: u8,
        me: u32,
        bit: u32,
        d: usize,
        (success, failure, running): (Label, Label, Label),
    ) {
        if self.env.inline_bookkeeping {
            self.act_inline(import, argc, me, bit, d, (success, failure, running));
            return;
        }
        let args = self.spill_args(d, argc);
        let sig = self.sig(Sig::Act);
        let f = self.load_ctx(offsets::ACT);
        let imp = self.i32c(import);
        let n = self.i32c(u32::from(argc));
        let mev = self.i32c(me);
        let bitv = self.i32c(bit);
        let call =
            self.b
                .ins()
                .call_indirect(sig, f, &[self.ctx, self.state, imp, n, args, mev, bitv]);
        let status = self.b.inst_results(call)[0];
        self.branch3(status, false, success, failure, running);
    }

    /// `timer.arm`: `until[timer] = now + ms`, saturating.
    fn arm(&mut self, timer: u32, ms: u32) {
        if let Some(at) = self.timer_at(timer) {
            let now = self.now();
            let sum = self.b.ins().iadd_imm_u(now, i64::from(ms));
            let over =
                self.b
                    .ins()
                    .icmp_imm_u(IntCC::SignedGreaterThan, now, i64::MAX - i64::from(ms));
            let max = self.b.ins().iconst(types::I64, i64::MAX);
            let until = self.b.ins().select(over, max, sum);
            self.b.ins().store(mem(), until, self.state, at);
        }
    }

    /// `temp.inc`: counter `temp` plus one, saturating.
    fn inc(&mut self, temp: u32) {
        if let Some((p, off)) = self.temp_addr(temp) {
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

    /// The byte holding running-list bit `bit`, if it is inside the state block.
    pub(super) fn list_byte(&self, bit: u32) -> Option<i32> {
        let at = u64::from(self.layout.list) + u64::from(bit / 8);
        self.in_state(at, 1).then_some(at as i32)
    }

    /// Whether running-list bit `bit` is set (`i8` 0/1).
    pub(super) fn listed(&mut self, bit: u32) -> Val {
        let Some(at) = self.list_byte(bit) else {
            return self.b.ins().iconst(types::I8, 0);
        };
        let byte = self.b.ins().uload8(types::I32, mem(), self.state, at);
        let masked = self.b.ins().band_imm_u(byte, 1i64 << (bit % 8));
        self.b.ins().icmp_imm_u(IntCC::NotEqual, masked, 0)
    }

    /// Empties the running list.
    pub(super) fn clear_list(&mut self) {
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
    pub(super) fn add_to_list(&mut self, bit: u32) {
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

    /// `act` with the phase and the slot/list bookkeeping inlined (small programs).
    pub(super) fn act_inline(
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
        let claims = claims_of(self.env.program.parts(), import);
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
    pub(super) fn list_call(&mut self, off: i32, bit: u32) {
        let sig = self.sig(Sig::List);
        let f = self.load_ctx(off);
        let b = self.i32c(bit);
        self.b
            .ins()
            .call_indirect(sig, f, &[self.ctx, self.state, b]);
    }

    /// `list.success`: an action or composite that succeeded drops the list when it was
    /// listed; then continues at `to`.
    pub(super) fn on_success(&mut self, bit: u32, to: Label) {
        let listed = self.listed(bit);
        let clear = self.b.create_block();
        let t = self.target(to);
        self.b.ins().brif(listed, clear, &[], t, &[]);
        self.b.switch_to_block(clear);
        self.clear_list();
        self.b.ins().jump(t, &[]);
    }
}
