//! The interpreter loop: fetches the instruction at the program counter and hands it to its
//! family's function, one call per arm.
//!
//! The loop owns the program counter, the operand stack's top and the tick's step counter; it
//! must never hold an instruction's semantics itself (they live with the instruction's family:
//! [`stack`](super::stack), [`call`](super::call), [`flow`](super::flow) and the
//! [`model`](crate::model) modules), and it must never allocate.

use super::call::{self, Env};
use super::flow::{self, Models};
use super::stack::Stack;
use super::Scratch;
use crate::model::{cursor, running_list};
use crate::program::{Instr, ProgramModel};
use crate::{AgentId, Host, Millis, Program, Status, StrId, Value};

/// The interpreter loop.
///
/// Always inlined into its two callers (one agent, and a batch's loop over agents): whether
/// the compiler inlined it otherwise depended on the crate instantiating it for its host, and
/// the batch loop is measurably faster with the loop's setup and the host's code in one body.
/// The families' functions are inlined into it too, so the loop compiles as one body.
#[inline(always)]
pub(crate) fn run<H: Host + ?Sized>(
    program: &Program,
    scratch: &mut Scratch,
    func: u32,
    state: &mut [u8],
    agent: AgentId,
    host: &mut H,
    now: Millis,
) -> Status {
    let parts = program.parts();
    let env = Env {
        program,
        parts,
        code: &parts.code[..],
        l: &parts.layout,
        strings: program.strings(),
        agent,
        now,
        limit: match parts.model {
            ProgramModel::Cursor { limit } => limit,
            _ => 0,
        },
    };
    let Some(f) = parts.functions.get(func as usize) else {
        return Status::Failure;
    };
    let mut pc = f.start as usize;
    let Scratch {
        stack,
        rets,
        temps,
        decider,
        life,
    } = scratch;
    let mut stack = Stack::new(stack);
    rets.clear();
    // The tick's step counter is owned here, never by the program.
    let mut models = Models {
        decider,
        life,
        steps: 0,
    };
    let (code, l, rules) = (env.code, env.l, &parts.rules[..]);
    // `go!(r)`: continue at `r`'s instruction, or end the tick with its status.
    macro_rules! go {
        ($r:expr) => {
            match $r {
                Ok(next) => pc = next,
                Err(status) => return status,
            }
        };
    }
    loop {
        let Some(ins) = code.get(pc) else {
            return Status::Failure;
        };
        pc += 1;
        match *ins {
            // ---- control flow and the running-list model --------------------------------
            Instr::Jump { .. } => go!(running_list::climb(code, state, l, pc - 1)),
            Instr::Finish { status } => return status,
            Instr::Return { status } => go!(flow::ret(&env, rets, state, status)),
            Instr::Call { func, .. } => pc = flow::call(&env, rets, func, pc),
            Instr::Act {
                import,
                argc,
                action,
                bit,
                success,
                failure,
                running,
            } => go!(call::act_stack(
                host,
                state,
                &env,
                &mut stack,
                import,
                argc,
                action,
                bit,
                [success, failure, running]
            )),
            Instr::JumpIfListed { bit, to } => {
                pc = running_list::resume(code, state, l, bit, to, pc)
            }
            Instr::OnSuccess { .. } => go!(running_list::climb(code, state, l, pc - 1)),
            Instr::OnRunning { .. } => go!(running_list::climb(code, state, l, pc - 1)),
            Instr::JumpIfCooling { timer, to } => {
                pc = running_list::jump_if_cooling(state, l, now, timer, to, pc)
            }
            Instr::Arm { timer, ms } => running_list::arm(state, l, now, timer, ms),
            Instr::Zero { temp } => flow::zero(temps, temp),
            Instr::Inc { temp } => flow::inc(temps, temp),
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
                pc = flow::temp_quorum(
                    temps,
                    [succ, fail],
                    n,
                    [success_all, failure_all],
                    [success, failure, running],
                )
            }
            // ---- expressions --------------------------------------------------------------
            Instr::PushBool { value } => stack.push(Value::Bool(value)),
            Instr::PushInt { value } => {
                go!(call::push_int(host, state, &env, &mut stack, value, pc))
            }
            Instr::PushFloat { value } => stack.push(Value::Float(value)),
            Instr::PushStr { value } => {
                stack.push(Value::Str(StrId(value.0)));
                // A run of constant strings (a cursor action's arguments) in one dispatch.
                while let Some(&Instr::PushStr { value }) = code.get(pc) {
                    stack.push(Value::Str(StrId(value.0)));
                    pc += 1;
                }
            }
            Instr::PushVar { var } => stack.push(flow::var(&env, var)),
            Instr::CallFn { import, argc } => {
                pc = call::call_fn(host, &env, &mut stack, import, argc, pc)
            }
            Instr::Random {} => stack.push(Value::Float(crate::model::draw(state, l, agent.0))),
            Instr::Not {} => stack.not(),
            Instr::Neg {} => stack.neg(),
            Instr::Truthy {} => stack.truthy(),
            Instr::Bin { op } => stack.bin(op),
            Instr::JumpIfCmp { op, when, to } => pc = stack.jump_if_cmp(op, when, to, pc),
            Instr::JumpIfCmpK { op, when, k, to } => pc = stack.jump_if_cmp_k(op, when, k, to, pc),
            Instr::CallFnCmpK {
                import,
                argc,
                op,
                when,
                k,
                to,
            } => {
                pc = call::call_fn_cmp_k(host, &env, &mut stack, import, argc, op, when, k, to, pc)
            }
            Instr::JumpIfFalse { to } => pc = stack.jump_if(false, to, pc),
            Instr::JumpIfTrue { to } => pc = stack.jump_if(true, to, pc),
            // ---- the cursor model ---------------------------------------------------------
            Instr::Dispatch {} => go!(cursor::dispatch(state, l, rules)),
            Instr::Move { rule } => {
                go!(cursor::move_to(
                    state,
                    l,
                    rules,
                    rule,
                    &mut models.steps,
                    env.limit
                ))
            }
            Instr::SetCursor { rule } => cursor::set(state, l, rule.0),
            Instr::Step {} => go!(cursor::count_step(
                state,
                l,
                &mut models.steps,
                env.limit,
                pc
            )),
            Instr::Stop {} => return cursor::stop_tree(state, l),
            Instr::ActCursor {
                import,
                argc,
                success,
                failure,
                running,
            } => {
                pc = call::act_cursor(
                    host,
                    state,
                    &env,
                    &mut stack,
                    import,
                    argc,
                    [success, failure, running],
                )
            }
            Instr::Yield { success, running } => pc = cursor::yield_to(state, l, success, running),
            Instr::PushBound { import } => {
                pc = call::push_bound(host, &env, &mut stack, import, pc)
            }
            // ---- the decider model --------------------------------------------------------
            Instr::Behave {
                import,
                phase,
                fail,
            } => pc = call::behave(host, &env, import, phase, fail, pc),
            Instr::DecScore { reject, .. } => {
                pc = models.dec_score(&env, state, &mut stack, ins, reject, pc)
            }
            Instr::DecRedecide { to, guard } => {
                pc = models.dec_redecide(&env, state, ins, to.0 as usize, guard)
            }
            // Each variant has its own arm, so the (inlined) `step` is specialised to it and
            // the label is known here. The match has no catch-all: a new instruction must be
            // given its arm.
            Instr::DecJumpRoot { to } => pc = models.dec_jump(&env, state, ins, to, pc),
            Instr::DecTest { to, .. } => pc = models.dec_jump(&env, state, ins, to, pc),
            Instr::DecWait { to, .. } => pc = models.dec_jump(&env, state, ins, to, pc),
            Instr::DecJumpActive { to, .. } => pc = models.dec_jump(&env, state, ins, to, pc),
            Instr::DecJumpPick { to, .. } => pc = models.dec_jump(&env, state, ins, to, pc),
            Instr::DecJumpMasked { to, .. } => pc = models.dec_jump(&env, state, ins, to, pc),
            Instr::DecDraw { none, .. } => pc = models.dec_jump(&env, state, ins, none, pc),
            Instr::DecBest { none, .. } => pc = models.dec_jump(&env, state, ins, none, pc),
            Instr::DecBegin {} => models.dec_op(&env, state, ins),
            Instr::DecRoot { .. } => models.dec_op(&env, state, ins),
            Instr::DecGuard {} => models.dec_op(&env, state, ins),
            Instr::DecStamp { .. } => models.dec_op(&env, state, ins),
            Instr::DecSet { .. } => models.dec_op(&env, state, ins),
            Instr::DecClear { .. } => models.dec_op(&env, state, ins),
            Instr::DecEnter { .. } => models.dec_op(&env, state, ins),
            Instr::DecPick { .. } => models.dec_op(&env, state, ins),
            Instr::DecMask { .. } => models.dec_op(&env, state, ins),
            Instr::DecMaskUpTo { .. } => models.dec_op(&env, state, ins),
            Instr::DecCandClear { .. } => models.dec_op(&env, state, ins),
            Instr::DecCand { .. } => models.dec_op(&env, state, ins),
            // ---- the lifecycle and selection models ---------------------------------------
            Instr::VarPush { .. } => models.life_push(&env, state, &mut stack, ins),
            Instr::TsPush { .. } => models.life_push(&env, state, &mut stack, ins),
            Instr::VarSet { .. } => models.var_set(&env, state, &mut stack, ins),
            Instr::LcAct {
                import,
                argc,
                live,
                success,
                failure,
                running,
            } => {
                pc = call::lc_act(
                    host,
                    state,
                    &env,
                    &mut stack,
                    import,
                    argc,
                    live,
                    [success, failure, running],
                )
            }
            Instr::LcCall {
                import,
                argc,
                phase,
            } => call::lc_call(host, &env, &mut stack, import, argc, phase),
            Instr::LcLog { msg } => call::lc_log(host, &env, msg),
            Instr::SelLeaf { leaf, name } => call::sel_leaf(host, state, &env, leaf, name),
            Instr::SelNone {} => call::sel_none(host, state, &env),
            Instr::LcQuorum {
                success,
                failure,
                running,
                ..
            } => pc = models.lc_quorum(&env, state, ins, [success, failure, running]),
            Instr::SelVisit { stop, to, .. } => {
                pc = models.sel_visit(&env, state, ins, stop, to.0 as usize)
            }
            // Jumps on the lifecycle and selection state, each with its own arm as above.
            Instr::VarJump { to, .. } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::JumpStopped { to } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::RecJump { to, .. } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::RecJumpEq { to, .. } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::RecJumpGe { to, .. } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::LcBegin { stopped } => pc = models.life_jump(&env, state, ins, stopped, pc),
            Instr::LcJumpChanged { to } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::LcJumpWait { to, .. } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::SelBegin { unchanged } => pc = models.life_jump(&env, state, ins, unchanged, pc),
            Instr::SelJumpPrev { to, .. } => pc = models.life_jump(&env, state, ins, to, pc),
            Instr::SelJumpLeaf { to } => pc = models.life_jump(&env, state, ins, to, pc),
            // Operations on the lifecycle and selection state that never jump.
            Instr::RecBit { .. } => models.life_op(&env, state, ins),
            Instr::RecZero { .. } => models.life_op(&env, state, ins),
            Instr::RecSet { .. } => models.life_op(&env, state, ins),
            Instr::RecInc { .. } => models.life_op(&env, state, ins),
            Instr::RecCopy { .. } => models.life_op(&env, state, ins),
            Instr::TsStamp { .. } => models.life_op(&env, state, ins),
            Instr::TsInvalidate { .. } => models.life_op(&env, state, ins),
            Instr::LcStop {} => models.life_op(&env, state, ins),
            Instr::LcWaitArm { .. } => models.life_op(&env, state, ins),
            Instr::ScopeEnter { .. } => models.life_op(&env, state, ins),
            Instr::ScopeLeave { .. } => models.life_op(&env, state, ins),
            Instr::SelSeen { .. } => models.life_op(&env, state, ins),
            // ---- node-level tracing (traced programs only) ----------------------------------
            Instr::NodeEnter { .. } | Instr::NodeExit { .. } => call::node_event(host, agent, ins),
        }
    }
}
