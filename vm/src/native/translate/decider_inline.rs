//! The decider model's frequent instructions emitted inline: the flag and stimulus tests, the
//! `every` timers, the root and group records of the state block, and a group's choice
//! registers (`mask`, `cand`, `pick`, reached through the context's `dec_regs`). Each does
//! exactly what `model::decider::step` does for it, at the same offsets, with the same
//! out-of-range rule (a read outside the state gives zero, a write nothing); the
//! vm/native agreement tests and the conformance cases hold the two together.
//!
//! The rest — expiring stimuli at `dec.begin` when some may expire, `dec.score`, `dec.draw`,
//! `dec.best` (the scores, the PRNG) — runs through the vm's own code (the decider
//! trampoline, `translate/decider.rs`). This file must never call out of the generated code
//! nor address memory outside the state block and the choice registers.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value as Val};

use super::{mem, Tx};
use crate::model::decider::{DECISION, NEVER, NO_PICK, PRESENT, ROOT_SINCE};
use crate::native::abi::offsets;
use crate::program::GROUP_RECORD;
use crate::program::{every_encode, Instr, Label, FLAG_LOOP_GUARD, FLAG_ROOT_ACTIVE};

/// A choice register of a group.
#[derive(Clone, Copy)]
enum Reg {
    Mask,
    Cand,
}

impl Tx<'_, '_, '_> {
    /// Emits decider instruction `ins` at `pc` inline when it has an inline form: returns
    /// `Some(falls_through)`, or `None` (nothing emitted) for the vm's code to run it.
    pub(super) fn decider_inline(&mut self, ins: &Instr, pc: u32) -> Option<bool> {
        match *ins {
            Instr::DecJumpRoot { to } => self.jump_on_flag(FLAG_ROOT_ACTIVE, to, pc),
            Instr::DecTest {
                stimuli,
                mask,
                all,
                set,
                to,
            } => self.dec_test(stimuli, mask, all, set, to, pc),
            Instr::DecWait { timer, to } => self.dec_wait(timer.0, to, pc),
            Instr::DecJumpActive { group, active, to } => {
                let v = match self.group_byte(group.0) {
                    Some(at) => self.b.ins().uload8(types::I32, mem(), self.state, at),
                    None => self.i32c(0),
                };
                let c = self.b.ins().icmp_imm_u(IntCC::Equal, v, i64::from(active));
                self.branch(c, true, to, pc);
            }
            Instr::DecJumpPick { group, child, to } => {
                let c = match self.reg_addr(group.0) {
                    Some((p, at)) => {
                        let v = self
                            .b
                            .ins()
                            .load(types::I32, mem(), p, at + offsets::REG_PICK);
                        self.b.ins().icmp_imm_u(IntCC::Equal, v, i64::from(child))
                    }
                    None => self.b.ins().iconst(types::I8, 0),
                };
                self.branch(c, true, to, pc);
            }
            Instr::DecJumpMasked { group, child, to } => {
                let c = match self.reg_addr(group.0) {
                    Some((p, at)) => {
                        let v = self
                            .b
                            .ins()
                            .load(types::I64, mem(), p, at + offsets::REG_MASK);
                        let bit = self.b.ins().band_imm_u(v, 1i64 << (u32::from(child) & 63));
                        self.b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0)
                    }
                    None => self.b.ins().iconst(types::I8, 0),
                };
                self.branch(c, true, to, pc);
            }
            _ => return self.decider_op(ins).then_some(true),
        }
        Some(false)
    }

    /// Emits a decider instruction that never jumps inline, if it has an inline form; returns
    /// whether it did.
    fn decider_op(&mut self, ins: &Instr) -> bool {
        match *ins {
            Instr::DecBegin {} => return false,
            Instr::DecRoot { on } => {
                self.set_dec_flag(FLAG_ROOT_ACTIVE, on);
                if on {
                    let now = self.now();
                    self.store_u64(self.header(ROOT_SINCE), now);
                }
            }
            Instr::DecGuard {} => self.set_dec_flag(FLAG_LOOP_GUARD, true),
            Instr::DecStamp { timer, ms } => self.dec_stamp(timer.0, ms),
            Instr::DecSet { group, child } => {
                if let Some(at) = self.group_byte(group.0) {
                    let v = self.i32c(u32::from(child.saturating_add(1)));
                    self.b.ins().istore8(mem(), v, self.state, at);
                }
                let since = u64::from(self.layout.groups)
                    + u64::from(GROUP_RECORD) * u64::from(group.0)
                    + 1;
                let now = self.now();
                self.store_u64(since, now);
            }
            Instr::DecClear { group } => {
                if let Some(at) = self.group_byte(group.0) {
                    let v = self.i32c(0);
                    self.b.ins().istore8(mem(), v, self.state, at);
                }
            }
            Instr::DecEnter { group } => {
                if let Some((p, at)) = self.reg_addr(group.0) {
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.ins().store(mem(), zero, p, at + offsets::REG_MASK);
                    let none = self.i32c(NO_PICK);
                    self.b.ins().store(mem(), none, p, at + offsets::REG_PICK);
                }
            }
            Instr::DecPick { group, child } => {
                if let Some((p, at)) = self.reg_addr(group.0) {
                    let v = self.i32c(u32::from(child));
                    self.b.ins().store(mem(), v, p, at + offsets::REG_PICK);
                }
            }
            Instr::DecMask { group, child } => self.reg_or(
                group.0,
                Reg::Mask,
                1u64.checked_shl(child.into()).unwrap_or(0),
            ),
            Instr::DecMaskUpTo { group, child } => {
                let upper = 1u64.checked_shl(u32::from(child) + 1).unwrap_or(0);
                self.reg_or(group.0, Reg::Mask, upper.wrapping_sub(1));
            }
            Instr::DecCandClear { group } => {
                if let Some((p, at)) = self.reg_addr(group.0) {
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.ins().store(mem(), zero, p, at + offsets::REG_CAND);
                }
            }
            Instr::DecCand { group, child } => self.reg_or(
                group.0,
                Reg::Cand,
                1u64.checked_shl(child.into()).unwrap_or(0),
            ),
            _ => return false,
        }
        true
    }

    /// `dec.begin`: clears the loop-guard flag inline; only when some present stimulus can
    /// expire (`present & !never`), the vm's code runs the instruction (expiring them).
    pub(super) fn dec_begin(&mut self, pc: u32) {
        self.set_dec_flag(FLAG_LOOP_GUARD, false);
        let present = self.load_u32(self.header(PRESENT));
        let never = self.load_u32(self.header(NEVER));
        let can = self.b.ins().band_not(present, never);
        let slow = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(can, slow, &[], done, &[]);
        self.b.switch_to_block(slow);
        let zero = self.b.ins().f64const(0.0);
        self.decider_call(pc, zero);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// `dec.redecide`: counts a redecide on the context's step counter (saturating); past the
    /// program's limit continues at `guard`, else at `to`.
    pub(super) fn dec_redecide(&mut self, limit: u32, to: Label, guard: Label) {
        let n = self.load_ctx_ty(types::I32, offsets::STEPS);
        let max = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, n, i64::from(u32::MAX));
        let inc = self.b.ins().iadd_imm_u(n, 1);
        let n = self.b.ins().select(max, n, inc);
        self.b.ins().store(mem(), n, self.ctx, offsets::STEPS);
        let over = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, n, i64::from(limit));
        let (tg, tt) = (self.target(guard), self.target(to));
        self.b.ins().brif(over, tg, &[], tt, &[]);
    }

    /// `dec.test`: continues at `to` unless `flag_test(word & mask)` holds.
    fn dec_test(&mut self, stimuli: bool, mask: u32, all: bool, set: bool, to: Label, pc: u32) {
        let word = self.load_u32(self.header(if stimuli { PRESENT } else { DECISION }));
        let hit = self.b.ins().band_imm_u(word, i64::from(mask));
        // The test fails (and the jump is taken) when: all set: hit != mask; any set:
        // hit == 0; none set (all clear): hit != 0; not all set: hit == mask.
        let (cc, rhs) = match (all, set) {
            (true, true) => (IntCC::NotEqual, mask),
            (false, true) => (IntCC::Equal, 0),
            (true, false) => (IntCC::NotEqual, 0),
            (false, false) => (IntCC::Equal, mask),
        };
        let c = self.b.ins().icmp_imm_u(cc, hit, i64::from(rhs));
        self.branch(c, true, to, pc);
    }

    /// `dec.every.wait`: continues at `to` if `now < next[timer]`.
    fn dec_wait(&mut self, timer: u32, to: Label, pc: u32) {
        let c = match self.timer_at(timer) {
            Some(at) => {
                let stored = self.b.ins().load(types::I64, mem(), self.state, at);
                let next = self.b.ins().bxor_imm_u(stored, i64::MIN);
                let now = self.now();
                self.b.ins().icmp(IntCC::SignedLessThan, now, next)
            }
            // An absent timer reads as zero: `next` is the earliest time, never after `now`.
            None => self.b.ins().iconst(types::I8, 0),
        };
        self.branch(c, true, to, pc);
    }

    /// `dec.every.stamp`: `next[timer] = now + ms` (saturating).
    fn dec_stamp(&mut self, timer: u32, ms: u32) {
        let Some(at) = self.timer_at(timer) else {
            return;
        };
        let now = self.now();
        let sum = self.b.ins().iadd_imm_u(now, i64::from(ms));
        // `ms` is not negative: the sum overflowed exactly when it is below `now`.
        let over = self.b.ins().icmp(IntCC::SignedLessThan, sum, now);
        let max = self.b.ins().iconst(types::I64, i64::MAX);
        let t = self.b.ins().select(over, max, sum);
        let stored = self.b.ins().bxor_imm_u(t, every_encode(0) as i64);
        self.b.ins().store(mem(), stored, self.state, at);
    }

    /// Sets or clears decider flag `bit` of the state's flags (kept to its low byte, as the
    /// vm's `set_flag` writes it).
    fn set_dec_flag(&mut self, bit: u8, on: bool) {
        let f = self.read_field(self.layout.flags);
        let f = self.b.ins().band_imm_u(f, 0xff);
        let f = if on {
            self.b.ins().bor_imm_u(f, i64::from(bit))
        } else {
            self.b.ins().band_imm_u(f, i64::from(!bit))
        };
        self.write_field(self.layout.flags, f);
    }

    /// The byte offset of header word `at` of the decider record.
    fn header(&self, at: usize) -> u64 {
        u64::from(self.layout.decider) + at as u64
    }

    /// The `u32` at byte `at` of the state (zero outside it).
    fn load_u32(&mut self, at: u64) -> Val {
        if self.in_state(at, 4) {
            self.b.ins().load(types::I32, mem(), self.state, at as i32)
        } else {
            self.i32c(0)
        }
    }

    /// Stores `v` (an `i64`) at byte `at` of the state (nothing outside it).
    fn store_u64(&mut self, at: u64, v: Val) {
        if self.in_state(at, 8) {
            self.b.ins().store(mem(), v, self.state, at as i32);
        }
    }

    /// The active-child byte of group `group`, if inside the state.
    fn group_byte(&self, group: u32) -> Option<i32> {
        let at = u64::from(self.layout.groups) + u64::from(GROUP_RECORD) * u64::from(group);
        self.in_state(at, 1).then_some(at as i32)
    }

    /// The choice registers' base and group `group`'s offset from it, for a group of the
    /// program (the entry point guarantees `group_count` registers; others have none, as in
    /// the vm).
    fn reg_addr(&mut self, group: u32) -> Option<(Val, i32)> {
        if group >= self.layout.group_count {
            return None;
        }
        // With room for the fields' offsets (below 32) added to it.
        let at = i32::try_from(i64::from(group) * offsets::REGS_SIZE + 32).ok()? - 32;
        let p = self.load_ctx(offsets::DEC_REGS);
        Some((p, at))
    }

    /// `reg |= bits` on register `reg` of group `group`.
    fn reg_or(&mut self, group: u32, reg: Reg, bits: u64) {
        let Some((p, at)) = self.reg_addr(group) else {
            return;
        };
        let off = at
            + match reg {
                Reg::Mask => offsets::REG_MASK,
                Reg::Cand => offsets::REG_CAND,
            };
        let v = self.b.ins().load(types::I64, mem(), p, off);
        let v = self.b.ins().bor_imm_u(v, bits as i64);
        self.b.ins().store(mem(), v, p, off);
    }
}

/// The limit `dec.redecide` counts against (0 outside the decider model, as in the vm).
pub(super) fn redecide_limit(program: &crate::Program) -> u32 {
    match program.model() {
        crate::program::ProgramModel::Decider { limit } => limit,
        _ => 0,
    }
}
