//! The interpreter's own instructions besides the stack's and the host calls: subtree calls and
//! returns, the parallel's counters, and the instructions it hands to a model's `step`
//! ([`model`](crate::model)) to learn where to continue.
//!
//! Nothing here calls the host; the state block is read and written only through the models.

use super::call::Env;
use super::stack::Stack;
use crate::model::decider::{self, DeciderScratch};
use crate::model::lifecycle::{self, LifeScratch};
use crate::model::running_list::climb;
use crate::model::{pick, quorum, target};
use crate::program::{Func, Instr, Label, Temp, Var};
use crate::{Status, Value};

/// `return` with `status`: continues at the calling `call`'s label for the status, climbing
/// through the caller's bookkeeping at once; the tick's status at the top level.
#[inline(always)]
pub(super) fn ret(
    env: &Env<'_>,
    rets: &mut Vec<u32>,
    state: &mut [u8],
    status: Status,
) -> Result<usize, Status> {
    let Some(call_pc) = rets.pop() else {
        return Err(status);
    };
    let next = match env.code.get(call_pc as usize) {
        Some(&Instr::Call {
            success,
            failure,
            running,
            ..
        }) => target(pick(status, [success, failure, running])),
        _ => return Err(status),
    };
    climb(env.code, state, env.l, next)
}

/// `call` at `pc - 1`: remembers it and enters function `func`.
#[inline(always)]
pub(super) fn call(env: &Env<'_>, rets: &mut Vec<u32>, func: Func, pc: usize) -> usize {
    rets.push((pc - 1) as u32);
    env.parts
        .functions
        .get(func.0 as usize)
        .map_or(usize::MAX, |g| g.start as usize)
}

/// `push.var`: variable `var`'s value.
#[inline(always)]
pub(super) fn var(env: &Env<'_>, var: Var) -> Value {
    env.parts
        .vars
        .get(var.0 as usize)
        .copied()
        .unwrap_or(Value::Bool(false))
}

/// `temp.zero`.
#[inline(always)]
pub(super) fn zero(temps: &mut [u32], temp: Temp) {
    if let Some(t) = temps.get_mut(temp.0 as usize) {
        *t = 0;
    }
}

/// `temp.inc`.
#[inline(always)]
pub(super) fn inc(temps: &mut [u32], temp: Temp) {
    if let Some(t) = temps.get_mut(temp.0 as usize) {
        *t = t.saturating_add(1);
    }
}

/// `quorum`: the parallel's status from its counters, and the label for it.
#[inline(always)]
pub(super) fn temp_quorum(
    temps: &[u32],
    [succ, fail]: [Temp; 2],
    n: u32,
    [success_all, failure_all]: [bool; 2],
    labels: [Label; 3],
) -> usize {
    let get = |t: Temp| temps.get(t.0 as usize).copied().unwrap_or(0);
    let status = quorum(get(succ), get(fail), n, success_all, failure_all);
    target(pick(status, labels))
}

/// The per-tick memory the models' instructions work on, and the tick's step counter (the
/// cursor model's rule runs, the decider model's redecides, the selection walk's transitions).
pub(super) struct Models<'a> {
    pub(super) decider: &'a mut DeciderScratch,
    pub(super) life: &'a mut LifeScratch,
    pub(super) steps: u32,
}

impl Models<'_> {
    /// A lifecycle or selection instruction through its one definition, [`lifecycle::step`]
    /// (inlined, so it is specialised to the instruction's variant).
    #[inline(always)]
    fn life(&mut self, env: &Env<'_>, state: &mut [u8], ins: &Instr, x: bool) -> u64 {
        let agent = env.agent.0;
        lifecycle::step(
            env.program,
            self.life,
            state,
            ins,
            env.now,
            agent,
            &mut self.steps,
            x,
        )
    }

    /// A decider instruction through its one definition, [`decider::step`] (inlined).
    #[inline(always)]
    fn dec(&mut self, env: &Env<'_>, state: &mut [u8], ins: &Instr, x: f64) -> u32 {
        let agent = env.agent.0;
        decider::step(
            env.program,
            self.decider,
            state,
            ins,
            env.now,
            agent,
            &mut self.steps,
            x,
        )
    }

    /// A lifecycle or selection operation that never jumps.
    #[inline(always)]
    pub(super) fn life_op(&mut self, env: &Env<'_>, state: &mut [u8], ins: &Instr) {
        self.life(env, state, ins, false);
    }

    /// A lifecycle or selection test: `to` if it holds, else `pc`.
    #[inline(always)]
    pub(super) fn life_jump(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        ins: &Instr,
        to: Label,
        pc: usize,
    ) -> usize {
        if self.life(env, state, ins, false) == lifecycle::FIRST {
            target(to)
        } else {
            pc
        }
    }

    /// `var.push` and `ts.push`: the value the instruction reads.
    #[inline(always)]
    pub(super) fn life_push(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        stack: &mut Stack<'_>,
        ins: &Instr,
    ) {
        let r = self.life(env, state, ins, false);
        stack.push(match *ins {
            Instr::TsPush { query: 2, .. } => Value::Int(r as i64),
            _ => Value::Bool(r != 0),
        });
    }

    /// `var.set`: the variable becomes the popped value's truthiness.
    #[inline(always)]
    pub(super) fn var_set(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        stack: &mut Stack<'_>,
        ins: &Instr,
    ) {
        let x = stack.pop().truthy();
        self.life(env, state, ins, x);
    }

    /// `lc.quorum`: the remembering parallel's status, and the label for it.
    #[inline(always)]
    pub(super) fn lc_quorum(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        ins: &Instr,
        labels: [Label; 3],
    ) -> usize {
        let r = self.life(env, state, ins, false);
        let status = Status::from_u8(r as u8).unwrap_or(Status::Failure);
        target(pick(status, labels))
    }

    /// `sel.visit`: back to `to` (an index) while the walk goes on, else `stop`.
    #[inline(always)]
    pub(super) fn sel_visit(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        ins: &Instr,
        stop: Label,
        to: usize,
    ) -> usize {
        if self.life(env, state, ins, false) == lifecycle::SECOND {
            to
        } else {
            target(stop)
        }
    }

    /// A decider operation that never jumps.
    #[inline(always)]
    pub(super) fn dec_op(&mut self, env: &Env<'_>, state: &mut [u8], ins: &Instr) {
        self.dec(env, state, ins, 0.0);
    }

    /// A decider test: `to` if it holds, else `pc`.
    #[inline(always)]
    pub(super) fn dec_jump(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        ins: &Instr,
        to: Label,
        pc: usize,
    ) -> usize {
        if self.dec(env, state, ins, 0.0) == decider::FIRST {
            target(to)
        } else {
            pc
        }
    }

    /// `dec.score`: the popped score; `reject` if the candidate is rejected.
    #[inline(always)]
    pub(super) fn dec_score(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        stack: &mut Stack<'_>,
        ins: &Instr,
        reject: Label,
        pc: usize,
    ) -> usize {
        let x = stack.pop().as_f64();
        if self.dec(env, state, ins, x) == decider::FIRST {
            target(reject)
        } else {
            pc
        }
    }

    /// `dec.redecide`: back to `to` (an index) to decide again, or `guard` past the limit.
    #[inline(always)]
    pub(super) fn dec_redecide(
        &mut self,
        env: &Env<'_>,
        state: &mut [u8],
        ins: &Instr,
        to: usize,
        guard: Label,
    ) -> usize {
        if self.dec(env, state, ins, 0.0) == decider::SECOND {
            target(guard)
        } else {
            to
        }
    }
}
