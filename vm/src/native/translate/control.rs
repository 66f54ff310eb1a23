//! Control flow: the block of each label, the ends of a tick, two- and three-way branches,
//! and the control instructions (`jump`, `finish`, `return`, `call` of a subtree function).
//!
//! Jumps inside a chunk become Cranelift jumps; a label past the chunk becomes an exit
//! returning it. This file must never touch the state block: a control instruction has no
//! effect but where execution continues.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, Value as Val};

use super::{misrouted, TranslateError, Tx};
use crate::native::abi::STATUS_FLAG;
use crate::program::{Func, Instr, Label};
use crate::Status;

impl Tx<'_, '_, '_> {
    /// Translates a control instruction (`jump`, `finish`, `return`, `call`); returns whether
    /// control falls through (never).
    pub(super) fn control_instr(&mut self, ins: &Instr, pc: u32) -> Result<bool, TranslateError> {
        match *ins {
            Instr::Jump { to } => {
                let t = self.target(to);
                self.b.ins().jump(t, &[]);
            }
            Instr::Finish { status } | Instr::Return { status } => self.finish(status),
            Instr::Call {
                func,
                success,
                failure,
                running,
            } => self.call(func, (success, failure, running))?,
            _ => return Err(misrouted(pc)),
        }
        Ok(false)
    }

    /// `call`: a direct call of the native function of subtree `func`, entered at its start,
    /// then a branch on the status it returns.
    fn call(
        &mut self,
        func: Func,
        (success, failure, running): (Label, Label, Label),
    ) -> Result<(), TranslateError> {
        let callee = *self
            .env
            .callees
            .get(func.0 as usize)
            .ok_or_else(|| format!("call of unknown function {}", func.0))?;
        let start = self.env.program.functions()[func.0 as usize].start;
        let fref = match self.funcs.get(&func.0) {
            Some(&f) => f,
            None => {
                let f = (self.declare)(callee, &mut self.b);
                self.funcs.insert(func.0, f);
                f
            }
        };
        let label = self.i32c(start);
        let call = self.b.ins().call(fref, &[self.ctx, self.state, label]);
        let r = self.b.inst_results(call)[0];
        self.branch3(r, true, success, failure, running);
        Ok(())
    }

    /// The block to jump to for `label`: inside the chunk, its instruction's block; past it, an
    /// exit returning the label. A label holding a `jump` to another label of the chunk is
    /// followed (jump threading: fewer blocks for Cranelift, same behaviour, since `jump` has no
    /// effect). Only jumps inside the chunk are followed, so the labels other chunks are entered
    /// at stay exactly the ones `chunk_entries` computed.
    pub(super) fn target(&mut self, label: Label) -> Block {
        let (start, end) = self.range;
        let mut l = label.0;
        while (start..end).contains(&l) {
            match self.env.program.code().get(l as usize) {
                Some(&Instr::Jump { to }) if to.0 > l && (start..end).contains(&to.0) => l = to.0,
                _ => break,
            }
        }
        if (start..end).contains(&l) {
            *self
                .blocks
                .entry(l)
                .or_insert_with(|| self.b.create_block())
        } else {
            *self.exits.entry(l).or_insert_with(|| self.b.create_block())
        }
    }

    pub(super) fn finish(&mut self, status: Status) {
        let r = self
            .b
            .ins()
            .iconst(types::I32, i64::from(STATUS_FLAG | status as u32));
        self.b.ins().return_(&[r]);
    }

    /// Continues at `to` when `cond` (an `i8`) equals `when`, else at the next instruction.
    pub(super) fn branch(&mut self, cond: Val, when: bool, to: Label, pc: u32) {
        let taken = self.target(to);
        let next = self.target(Label(pc + 1));
        if when {
            self.b.ins().brif(cond, taken, &[], next, &[]);
        } else {
            self.b.ins().brif(cond, next, &[], taken, &[]);
        }
    }

    /// Continues at the label for `status` (an `i32` holding a status number, or a chunk
    /// result with [`STATUS_FLAG`] when `flagged`).
    pub(super) fn branch3(&mut self, status: Val, flagged: bool, s: Label, f: Label, r: Label) {
        let flag = if flagged { STATUS_FLAG } else { 0 };
        let (bs, bf, br) = (self.target(s), self.target(f), self.target(r));
        let is_running = self.b.ins().icmp_imm_u(
            IntCC::Equal,
            status,
            i64::from(flag | Status::Running as u32),
        );
        let rest = self.b.create_block();
        self.b.ins().brif(is_running, br, &[], rest, &[]);
        self.b.switch_to_block(rest);
        let is_success = self.b.ins().icmp_imm_u(
            IntCC::Equal,
            status,
            i64::from(flag | Status::Success as u32),
        );
        self.b.ins().brif(is_success, bs, &[], bf, &[]);
    }
}
