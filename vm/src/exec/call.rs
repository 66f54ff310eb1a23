//! The instructions that call the host, for every model: the host call with its phase and
//! arguments, then the model's bookkeeping of the answer (through [`model`](crate::model)) and
//! where the tick continues.
//!
//! This is the only part of the interpreter that calls [`Host`]; it never reads or writes the
//! state block except through the model modules.

use super::stack::Stack;
use crate::model::running_list::{after_action, claims_of, climb};
use crate::model::{self, cursor, lifecycle, pick, selection, target};
use crate::program::{read, ActionNo, Bit, Imp, Instr, Label, Layout, ProgramParts, Str};
use crate::{
    AgentId, BinOp, Call, Host, ImportId, ImportKind, Millis, Phase, Status, StrId, Value,
};

/// What every instruction of a tick shares: the program's parts, the agent and the time.
pub(super) struct Env<'a> {
    pub(super) program: &'a crate::Program,
    pub(super) parts: &'a ProgramParts,
    pub(super) code: &'a [Instr],
    pub(super) l: &'a Layout,
    pub(super) strings: &'a crate::Strings,
    pub(super) agent: AgentId,
    pub(super) now: Millis,
    /// The cursor model's rule runs per tick (0 in other models).
    pub(super) limit: u32,
}

impl Env<'_> {
    /// The host call of import `import` with `phase` and `args`.
    #[inline(always)]
    fn call<'c>(&'c self, import: u32, phase: Phase, args: &'c [Value]) -> Call<'c> {
        Call::new(
            self.agent,
            ImportId(import),
            phase,
            args,
            self.now,
            self.strings,
        )
    }

    /// Host function `import` on `args`, as the tree sees its result (see [`rounded`]).
    #[inline(always)]
    fn function<H: Host + ?Sized>(&self, host: &mut H, import: Imp, args: &[Value]) -> Value {
        let v = host.function(&self.call(import.0, Phase::Enter, args));
        rounded(v, self.parts.single_precision)
    }
}

/// A host function's result as the tree sees it: floats rounded to binary32 under single
/// precision.
#[inline(always)]
fn rounded(v: Value, single: bool) -> Value {
    match v {
        Value::Float(x) if single => Value::Float(f64::from(x as f32)),
        v => v,
    }
}

/// If the instruction at `at` is `jump.false` or `jump.true`, where it sends `v` (which it
/// would pop): the caller then skips pushing `v` at all.
#[inline(always)]
fn branch_on(code: &[Instr], at: usize, v: Value) -> Option<usize> {
    match code.get(at) {
        Some(&Instr::JumpIfFalse { to }) => Some(if v.truthy() { at + 1 } else { target(to) }),
        Some(&Instr::JumpIfTrue { to }) => Some(if v.truthy() { target(to) } else { at + 1 }),
        _ => None,
    }
}

/// `act` with its arguments `args` (running-list model): the host call with its phase, the
/// node's bookkeeping and the climb through the ancestors' (see [`climb`]); the instruction to
/// continue at, or the tick's status if the climb reached `finish`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn act<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    env: &Env<'_>,
    args: &[Value],
    import: Imp,
    action: ActionNo,
    bit: Bit,
    labels: [Label; 3],
) -> Result<usize, Status> {
    let l = env.l;
    let me = action.0 + 1;
    let phase = if read(state, l.current) == me {
        Phase::Continue
    } else {
        Phase::Enter
    };
    let status = host.action(&env.call(import.0, phase, args));
    after_action(state, l, me, claims_of(env.parts, import.0), bit.0, status);
    climb(env.code, state, l, target(pick(status, labels)))
}

/// `act` taking its arguments from the stack.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn act_stack<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    argc: u8,
    action: ActionNo,
    bit: Bit,
    labels: [Label; 3],
) -> Result<usize, Status> {
    let r = act(
        host,
        state,
        env,
        stack.args(argc),
        import,
        action,
        bit,
        labels,
    );
    stack.drop_args(argc);
    r
}

/// `push.int` at `pc` (the next instruction's index). The common `f(CONSTANT)`: a call of one
/// argument right after its push takes the argument from here, not from the stack (the same
/// call, one dispatch).
#[inline(always)]
pub(super) fn push_int<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    value: i64,
    pc: usize,
) -> Result<usize, Status> {
    let arg = [Value::Int(value)];
    match env.code.get(pc) {
        Some(&Instr::CallFn { import, argc: 1 }) => {
            let v = env.function(host, import, &arg);
            Ok(match branch_on(env.code, pc + 1, v) {
                Some(next) => next,
                None => {
                    stack.push(v);
                    pc + 1
                }
            })
        }
        Some(&Instr::CallFnCmpK {
            import,
            argc: 1,
            op,
            when,
            k,
            to,
        }) => {
            let v = env.function(host, import, &arg).as_f64();
            Ok(if op.compare(v, k) == when {
                target(to)
            } else {
                pc + 1
            })
        }
        Some(&Instr::Act {
            import,
            argc: 1,
            action,
            bit,
            success,
            failure,
            running,
        }) => act(
            host,
            state,
            env,
            &arg,
            import,
            action,
            bit,
            [success, failure, running],
        ),
        _ => {
            stack.push(Value::Int(value));
            Ok(pc)
        }
    }
}

/// `call.fn` at `pc - 1`: a condition on the result alone (a `jump.false` or `jump.true` next)
/// is done here, not dispatched.
#[inline(always)]
pub(super) fn call_fn<H: Host + ?Sized>(
    host: &mut H,
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    argc: u8,
    pc: usize,
) -> usize {
    let v = env.function(host, import, stack.args(argc));
    match branch_on(env.code, pc, v) {
        Some(next) => {
            stack.drop_args(argc);
            next
        }
        None => {
            stack.replace_args(argc, v);
            pc
        }
    }
}

/// `call.fn.cmpk`: the call and the comparison of its result with `k`; `to` if it is `when`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn call_fn_cmp_k<H: Host + ?Sized>(
    host: &mut H,
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    argc: u8,
    op: BinOp,
    when: bool,
    k: f64,
    to: Label,
    pc: usize,
) -> usize {
    let v = env.function(host, import, stack.args(argc)).as_f64();
    stack.drop_args(argc);
    if op.compare(v, k) == when {
        target(to)
    } else {
        pc
    }
}

/// `push.bound` (cursor model): whether the host has a function for `import`; followed by
/// `jump.false`/`jump.true`, tested in place without pushing it (the instruction to continue
/// at).
#[inline(always)]
pub(super) fn push_bound<H: Host + ?Sized>(
    host: &mut H,
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    pc: usize,
) -> usize {
    let v = Value::Bool(host.available(ImportId(import.0)));
    branch_on(env.code, pc, v).unwrap_or_else(|| {
        stack.push(v);
        pc
    })
}

/// `act.cursor` (cursor model): the action with phase `enter` on the rule's first run.
#[inline(always)]
pub(super) fn act_cursor<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    argc: u8,
    labels: [Label; 3],
) -> usize {
    let l = env.l;
    let phase = if cursor::first_run(state, l) {
        Phase::Enter
    } else {
        Phase::Continue
    };
    let status = host.action(&env.call(import.0, phase, stack.args(argc)));
    stack.drop_args(argc);
    cursor::start(state, l);
    target(pick(status, labels))
}

/// `behave` (decider model): a behavior call; `fail` if it failed (except on `exit`).
#[inline(always)]
pub(super) fn behave<H: Host + ?Sized>(
    host: &mut H,
    env: &Env<'_>,
    import: Imp,
    phase: u8,
    fail: Label,
    pc: usize,
) -> usize {
    let phase = model::phase(phase);
    if host.action(&env.call(import.0, phase, &[])) == Status::Failure && phase != Phase::Exit {
        target(fail)
    } else {
        pc
    }
}

/// `lc.act` (lifecycle model): the action with the phase its node's liveness gives.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn lc_act<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    argc: u8,
    live: crate::program::RBit,
    labels: [Label; 3],
) -> usize {
    let l = env.l;
    let phase = lifecycle::act_phase(state, l, live.0);
    let status = host.action(&env.call(import.0, phase, stack.args(argc)));
    stack.drop_args(argc);
    lifecycle::act_after(state, l, live.0, status);
    target(pick(status, labels))
}

/// `lc.call` (lifecycle model): an action with the given phase, or a function (always phase
/// `enter`), whose result is dropped.
#[inline(always)]
pub(super) fn lc_call<H: Host + ?Sized>(
    host: &mut H,
    env: &Env<'_>,
    stack: &mut Stack<'_>,
    import: Imp,
    argc: u8,
    phase: u8,
) {
    let is_action = env
        .parts
        .imports
        .get(import.0 as usize)
        .is_some_and(|i| i.kind == ImportKind::Action);
    // Functions are always called with phase `enter`.
    let phase = if is_action {
        model::phase(phase)
    } else {
        Phase::Enter
    };
    let call = env.call(import.0, phase, stack.args(argc));
    if is_action {
        host.action(&call);
    } else {
        host.function(&call);
    }
    stack.drop_args(argc);
}

/// `lc.log` (lifecycle model): the message goes to the host's log.
#[inline(always)]
pub(super) fn lc_log<H: Host + ?Sized>(host: &mut H, env: &Env<'_>, msg: Str) {
    host.log(env.agent, env.strings.get(StrId(msg.0)));
}

/// `node.enter` and `node.exit` (traced programs only): the host's node observer is told.
/// One arm of the loop for both, out of line and cold: an untraced program never reaches it,
/// and the loop's hot arms compile as they did without it.
#[cold]
#[inline(never)]
pub(super) fn node_event<H: Host + ?Sized>(host: &mut H, agent: AgentId, ins: &Instr) {
    match *ins {
        Instr::NodeEnter { node } => host.node(agent, node, crate::NodeEvent::Enter),
        Instr::NodeExit { node, status } => {
            host.node(agent, node, crate::NodeEvent::Finish(status))
        }
        _ => {}
    }
}

/// `sel.leaf` (selection model): the host is told the leaf's behaviour when it changed.
#[inline(always)]
pub(super) fn sel_leaf<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    env: &Env<'_>,
    leaf: u32,
    name: Str,
) {
    if selection::select_leaf(state, env.l, leaf) {
        host.select(env.agent, env.strings.get(StrId(name.0)));
    }
}

/// `sel.none` (selection model): no leaf; the host is told `""`.
#[inline(always)]
pub(super) fn sel_none<H: Host + ?Sized>(host: &mut H, state: &mut [u8], env: &Env<'_>) {
    selection::select_none(state, env.l);
    host.select(env.agent, "");
}
