//! The bytecode executor: runs a verified [`Program`] for one agent's state block.
//!
//! The loop decodes nothing (the program holds decoded [`Instr`]s), walks no tree and allocates
//! nothing: the operand stack, the return stack and the counters live in a [`Scratch`] sized
//! once from what the verifier proved. Every index it uses was range-checked by the verifier;
//! it still reads through checked accessors so a verifier bug degrades to a wrong answer, never
//! to a panic or undefined behaviour.
//!
//! This module must never accept an unverified program: [`Program`] can only be built through
//! the verifier.

use crate::model::decider::{self as decider_exec, DeciderScratch, FIRST, SECOND};
use crate::model::lifecycle::{self as lifecycle_exec, LifeScratch};
use crate::model::running_list::climb;
use crate::model::{cursor, target};
use crate::program::{read_u64, write_u64, Instr, Label, Layout, ProgramModel, ProgramParts};
use crate::{
    AgentId, Call, Engine, EngineKind, Host, ImportId, Millis, Phase, Prng, Program, Status, Value,
    VmError,
};

// Re-exported at their old paths, which the native trampolines still name.
#[cfg(feature = "jit")]
pub(crate) use crate::model::running_list::{add_to_list, clear_list};
pub(crate) use crate::model::running_list::{after_action, claims_of, listed};
pub(crate) use crate::program::read;

/// The per-thread working memory of the executor: operand stack, return stack and counters.
/// Sized once per program; reused by every tick. Aligned to two cache lines so the scratch
/// areas of different threads (kept side by side by `Batch`) never share a line.
///
/// It also holds the lifecycle model's group-scope counters, which are not per tick: they
/// belong to the engine that owns the scratch ([`Engine`], or [`Batch`](crate::Batch), whose
/// first scratch holds them) and are shared by every agent ticked through it.
#[derive(Clone, Debug)]
#[repr(align(128))]
pub struct Scratch {
    stack: Vec<Value>,
    rets: Vec<u32>,
    temps: Vec<u32>,
    decider: DeciderScratch,
    pub(crate) life: LifeScratch,
}

impl Scratch {
    /// Working memory for `program`.
    pub fn new(program: &Program) -> Scratch {
        Scratch {
            // One more than the deepest stack: `Stack` keeps a placeholder below the bottom.
            stack: Vec::with_capacity(program.max_stack() as usize + 1),
            rets: Vec::with_capacity(program.max_calls() as usize),
            temps: vec![0; program.temps() as usize],
            decider: DeciderScratch::new(program),
            life: LifeScratch::new(program),
        }
    }

    /// The counters, the decider registers and the lifecycle memory, for the native engine.
    #[cfg(feature = "jit")]
    pub(crate) fn native_parts(&mut self) -> (&mut [u32], &mut DeciderScratch, &mut LifeScratch) {
        (&mut self.temps, &mut self.decider, &mut self.life)
    }
}

/// Runs a program for agents whose state blocks the caller owns.
///
/// ```
/// # fn demo(program: &btvm::Program, host: &mut impl btvm::Host) -> Result<(), btvm::VmError> {
/// program.bind(host)?;
/// let mut vm = btvm::Vm::new(program);
/// let mut state = program.new_state();
/// let status = vm.tick(&mut state, btvm::AgentId(0), host, 0)?;
/// # let _ = status; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Vm<'p> {
    /// The facade, always on the vm (it owns the scratch and the entry lookup).
    engine: Engine<'p>,
}

impl<'p> Vm<'p> {
    /// An executor for `program`.
    pub fn new(program: &'p Program) -> Self {
        Vm {
            engine: Engine::new(program, EngineKind::Vm),
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.engine.program()
    }

    /// Ticks the main tree once for `agent`, whose state is `state`, at time `now`.
    pub fn tick<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<Status, VmError> {
        self.engine.tick(state, agent, host, now)
    }

    /// Runs the named entry once (Unvanquished `selectClass`).
    pub fn run_entry<H: Host + ?Sized>(
        &mut self,
        entry: &str,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<Status, VmError> {
        self.engine.run_entry(entry, state, agent, host, now)
    }

    /// Delivers event `event` to the agent between ticks (see [`Engine::event`]).
    pub fn event<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        event: &str,
        now: Millis,
    ) -> Result<(), VmError> {
        self.engine.event(state, agent, host, event, now)
    }

    /// Delivers an event resolved with [`Program::event_id`] (see [`Engine::event_by_id`]).
    pub fn event_by_id<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        event: crate::EventId,
        now: Millis,
    ) -> Result<(), VmError> {
        self.engine.event_by_id(state, agent, host, event, now)
    }

    /// Resets the agent, leaving the group scopes it holds (see [`Engine::reset_agent`]).
    pub fn reset_agent(&mut self, state: &mut [u8]) {
        self.engine.reset_agent(state);
    }

    /// Restarts the agent's tree as its game does (see [`Engine::restart_agent`]).
    pub fn restart_agent<H: Host + ?Sized>(
        &mut self,
        state: &mut [u8],
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Result<(), VmError> {
        self.engine.restart_agent(state, agent, host, now)
    }

    /// Puts the agent in AI group `group` (see [`Engine::set_group`]).
    pub fn set_group(&mut self, state: &mut [u8], group: u32) {
        self.engine.set_group(state, group);
    }
}

/// What every host call of a tick shares, for the helpers below.
struct Site<'a> {
    agent: AgentId,
    now: Millis,
    strings: &'a crate::Strings,
    code: &'a [Instr],
    parts: &'a ProgramParts,
}

/// `act` with its arguments `args`: the host call with its phase, the node's bookkeeping and
/// the climb through the ancestors' (see [`climb`]); the instruction to continue at, or the
/// tick's status if the climb reached `finish`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn act<H: Host + ?Sized>(
    host: &mut H,
    state: &mut [u8],
    l: &Layout,
    at: &Site<'_>,
    args: &[Value],
    import: crate::program::Imp,
    action: crate::program::ActionNo,
    bit: crate::program::Bit,
    labels: [Label; 3],
) -> Result<usize, Status> {
    let me = action.0 + 1;
    let phase = if read(state, l.current) == me {
        Phase::Continue
    } else {
        Phase::Enter
    };
    let call = Call::new(
        at.agent,
        ImportId(import.0),
        phase,
        args,
        at.now,
        at.strings,
    );
    let status = host.action(&call);
    after_action(state, l, me, claims_of(at.parts, import.0), bit.0, status);
    let [success, failure, running] = labels;
    climb(
        at.code,
        state,
        l,
        target(pick(status, success, failure, running)),
    )
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

/// A host function's result as the tree sees it: floats rounded to binary32 under single
/// precision.
#[inline(always)]
fn rounded(v: Value, single: bool) -> Value {
    match v {
        Value::Float(x) if single => Value::Float(f64::from(x as f32)),
        v => v,
    }
}

fn pick(status: Status, success: Label, failure: Label, running: Label) -> Label {
    match status {
        Status::Success => success,
        Status::Failure => failure,
        Status::Running => running,
    }
}

/// The interpreter loop.
///
/// Always inlined into its two callers (one agent, and a batch's loop over agents): whether
/// the compiler inlined it otherwise depended on the crate instantiating it for its host, and
/// the batch loop is measurably faster with the loop's setup and the host's code in one body.
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
    let code = &parts.code[..];
    let l = &parts.layout;
    let strings = program.strings();
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
    stack.clear();
    let mut stack = Stack {
        mem: stack,
        top: Value::Bool(false),
    };
    rets.clear();
    let limit = match parts.model {
        ProgramModel::Cursor { limit } => limit,
        _ => 0,
    };
    let rule_at = |r: usize| parts.rules.get(r).map_or(usize::MAX, |r| r.label as usize);
    // The cursor model's rule runs (or the decider model's redecides) this tick (owned here,
    // never by the program).
    let mut steps = 0u32;
    // A lifecycle or selection instruction through its one definition, `lifecycle_exec::step`
    // (inlined): `life_op!(ins)` for state operations, `life_jump!(ins, label)` for tests that jump;
    // `dec_op!`/`dec_jump!` likewise through `decider_exec::step`.
    macro_rules! life_op {
        ($ins:expr) => {{
            lifecycle_exec::step(program, life, state, $ins, now, agent.0, &mut steps, false);
        }};
    }
    macro_rules! life_jump {
        ($ins:expr, $to:expr) => {{
            let r =
                lifecycle_exec::step(program, life, state, $ins, now, agent.0, &mut steps, false);
            if r == lifecycle_exec::FIRST {
                pc = target($to);
            }
        }};
    }
    macro_rules! dec_op {
        ($ins:expr) => {{
            decider_exec::step(program, decider, state, $ins, now, agent.0, &mut steps, 0.0);
        }};
    }
    macro_rules! dec_jump {
        ($ins:expr, $to:expr) => {{
            let r =
                decider_exec::step(program, decider, state, $ins, now, agent.0, &mut steps, 0.0);
            if r == FIRST {
                pc = target($to);
            }
        }};
    }
    loop {
        let Some(ins) = code.get(pc) else {
            return Status::Failure;
        };
        pc += 1;
        match *ins {
            Instr::Jump { .. } => match climb(code, state, l, pc - 1) {
                Ok(next) => pc = next,
                Err(status) => return status,
            },
            Instr::Finish { status } => return status,
            Instr::Return { status } => {
                // Continue at the calling `call`'s label for the status.
                let Some(call_pc) = rets.pop() else {
                    return status;
                };
                let next = match code.get(call_pc as usize) {
                    Some(&Instr::Call {
                        success,
                        failure,
                        running,
                        ..
                    }) => target(pick(status, success, failure, running)),
                    _ => return status,
                };
                // The subtree's status climbs through the caller's bookkeeping at once.
                match climb(code, state, l, next) {
                    Ok(next) => pc = next,
                    Err(status) => return status,
                }
            }
            Instr::Call { func, .. } => {
                rets.push((pc - 1) as u32);
                pc = parts
                    .functions
                    .get(func.0 as usize)
                    .map_or(usize::MAX, |g| g.start as usize);
            }
            Instr::Act {
                import,
                argc,
                action,
                bit,
                success,
                failure,
                running,
            } => {
                let at = Site {
                    agent,
                    now,
                    strings,
                    code,
                    parts,
                };
                let r = act(
                    host,
                    state,
                    l,
                    &at,
                    stack.args(argc),
                    import,
                    action,
                    bit,
                    [success, failure, running],
                );
                stack.drop_args(argc);
                match r {
                    Ok(next) => pc = next,
                    Err(status) => return status,
                }
            }
            Instr::JumpIfListed { bit, to } => {
                // A composite's resume points: the first listed child's entry, tested in order.
                let (mut bit, mut to) = (bit, to);
                loop {
                    if listed(state, l, bit.0) {
                        pc = target(to);
                        break;
                    }
                    match code.get(pc) {
                        Some(&Instr::JumpIfListed { bit: b, to: t }) => {
                            (bit, to) = (b, t);
                            pc += 1;
                        }
                        _ => break,
                    }
                }
            }
            Instr::OnSuccess { .. } | Instr::OnRunning { .. } => {
                match climb(code, state, l, pc - 1) {
                    Ok(next) => pc = next,
                    Err(status) => return status,
                }
            }
            Instr::JumpIfCooling { timer, to } => {
                let until = read_u64(state, l.timers as usize + 8 * timer.0 as usize) as i64;
                if now <= until {
                    pc = target(to);
                }
            }
            Instr::Arm { timer, ms } => {
                let until = now.saturating_add(i64::from(ms));
                write_u64(
                    state,
                    l.timers as usize + 8 * timer.0 as usize,
                    until as u64,
                );
            }
            Instr::Zero { temp } => {
                if let Some(t) = temps.get_mut(temp.0 as usize) {
                    *t = 0;
                }
            }
            Instr::Inc { temp } => {
                if let Some(t) = temps.get_mut(temp.0 as usize) {
                    *t = t.saturating_add(1);
                }
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
                let get = |t: crate::program::Temp| temps.get(t.0 as usize).copied().unwrap_or(0);
                let reached = |all: bool, k: u32| if all { k == n } else { k > 0 };
                let status = if reached(success_all, get(succ)) {
                    Status::Success
                } else if reached(failure_all, get(fail)) {
                    Status::Failure
                } else if n == 0 {
                    Status::Success
                } else {
                    Status::Running
                };
                pc = target(pick(status, success, failure, running));
            }
            Instr::PushBool { value } => stack.push(Value::Bool(value)),
            Instr::PushInt { value } => {
                // The common `f(CONSTANT)`: a call of one argument right after its push takes
                // the argument from here, not from the stack (the same call, one dispatch).
                let arg = [Value::Int(value)];
                let at = Site {
                    agent,
                    now,
                    strings,
                    code,
                    parts,
                };
                match code.get(pc) {
                    Some(&Instr::CallFn { import, argc: 1 }) => {
                        let call =
                            Call::new(agent, ImportId(import.0), Phase::Enter, &arg, now, strings);
                        let v = rounded(host.function(&call), parts.single_precision);
                        match branch_on(code, pc + 1, v) {
                            Some(next) => pc = next,
                            None => {
                                stack.push(v);
                                pc += 1;
                            }
                        }
                    }
                    Some(&Instr::CallFnCmpK {
                        import,
                        argc: 1,
                        op,
                        when,
                        k,
                        to,
                    }) => {
                        let call =
                            Call::new(agent, ImportId(import.0), Phase::Enter, &arg, now, strings);
                        let v = rounded(host.function(&call), parts.single_precision).as_f64();
                        pc = if op.compare(v, k) == when {
                            target(to)
                        } else {
                            pc + 1
                        };
                    }
                    Some(&Instr::Act {
                        import,
                        argc: 1,
                        action,
                        bit,
                        success,
                        failure,
                        running,
                    }) => match act(
                        host,
                        state,
                        l,
                        &at,
                        &arg,
                        import,
                        action,
                        bit,
                        [success, failure, running],
                    ) {
                        Ok(next) => pc = next,
                        Err(status) => return status,
                    },
                    _ => stack.push(Value::Int(value)),
                }
            }
            Instr::PushFloat { value } => stack.push(Value::Float(value)),
            Instr::PushStr { value } => stack.push(Value::Str(crate::StrId(value.0))),
            Instr::PushVar { var } => stack.push(
                parts
                    .vars
                    .get(var.0 as usize)
                    .copied()
                    .unwrap_or(Value::Bool(false)),
            ),
            Instr::CallFn { import, argc } => {
                let call = Call::new(
                    agent,
                    ImportId(import.0),
                    Phase::Enter,
                    stack.args(argc),
                    now,
                    strings,
                );
                let v = rounded(host.function(&call), parts.single_precision);
                // A condition on the result alone: the test is done here, not dispatched.
                match branch_on(code, pc, v) {
                    Some(next) => {
                        stack.drop_args(argc);
                        pc = next;
                    }
                    None => stack.replace_args(argc, v),
                }
            }
            Instr::Random {} => {
                let at = l.rng.unwrap_or(0) as usize;
                let mut rng = match read_u64(state, at) {
                    0 => Prng::for_agent(agent.0),
                    s => Prng::from_state(s),
                };
                let x = rng.next_f64();
                write_u64(state, at, rng.state());
                stack.push(Value::Float(x));
            }
            Instr::Not {} => {
                stack.top = Value::Bool(!stack.top.truthy());
            }
            Instr::Neg {} => {
                stack.top = Value::Float(-stack.top.as_f64());
            }
            Instr::Truthy {} => {
                stack.top = Value::Bool(stack.top.truthy());
            }
            Instr::Bin { op } => {
                let r = stack.pop();
                stack.top = op.apply(stack.top, r);
            }
            Instr::JumpIfCmp { op, when, to } => {
                let r = stack.pop();
                let left = stack.pop();
                if op.apply(left, r).truthy() == when {
                    pc = target(to);
                }
            }
            Instr::JumpIfCmpK { op, when, k, to } => {
                let left = stack.pop();
                if op.compare(left.as_f64(), k) == when {
                    pc = target(to);
                }
            }
            Instr::CallFnCmpK {
                import,
                argc,
                op,
                when,
                k,
                to,
            } => {
                let call = Call::new(
                    agent,
                    ImportId(import.0),
                    Phase::Enter,
                    stack.args(argc),
                    now,
                    strings,
                );
                let v = rounded(host.function(&call), parts.single_precision).as_f64();
                stack.drop_args(argc);
                if op.compare(v, k) == when {
                    pc = target(to);
                }
            }
            Instr::JumpIfFalse { to } => {
                if !stack.pop().truthy() {
                    pc = target(to);
                }
            }
            Instr::JumpIfTrue { to } => {
                if stack.pop().truthy() {
                    pc = target(to);
                }
            }
            Instr::Dispatch {} => {
                if cursor::halted(state, l) {
                    return Status::Failure;
                }
                if cursor::no_rule(state, l) {
                    cursor::stop(state, l);
                    return Status::Failure;
                }
                pc = rule_at(cursor::current(state, l, parts.rules.len()));
            }
            Instr::Move { rule } => {
                cursor::set(state, l, rule.0);
                if cursor::step(&mut steps, limit, state, l) {
                    return Status::Failure;
                }
                pc = rule_at(rule.0 as usize);
            }
            Instr::SetCursor { rule } => cursor::set(state, l, rule.0),
            Instr::Step {} => {
                if cursor::step(&mut steps, limit, state, l) {
                    return Status::Failure;
                }
            }
            Instr::Stop {} => {
                cursor::stop(state, l);
                return Status::Failure;
            }
            Instr::ActCursor {
                import,
                argc,
                success,
                failure,
                running,
            } => {
                let phase = if cursor::first_run(state, l) {
                    Phase::Enter
                } else {
                    Phase::Continue
                };
                let call = Call::new(
                    agent,
                    ImportId(import.0),
                    phase,
                    stack.args(argc),
                    now,
                    strings,
                );
                let status = host.action(&call);
                stack.drop_args(argc);
                cursor::start(state, l);
                pc = target(pick(status, success, failure, running));
            }
            Instr::Yield { success, running } => {
                if cursor::first_run(state, l) {
                    cursor::start(state, l);
                    pc = target(running);
                } else {
                    pc = target(success);
                }
            }
            Instr::PushBound { import } => {
                stack.push(Value::Bool(host.available(ImportId(import.0))));
            }
            Instr::Behave {
                import,
                phase,
                fail,
            } => {
                let phase = decider_exec::phase(phase);
                let call = Call::new(agent, ImportId(import.0), phase, &[], now, strings);
                if host.action(&call) == Status::Failure && phase != Phase::Exit {
                    pc = target(fail);
                }
            }
            Instr::DecScore { reject, .. } => {
                let x = stack.pop().as_f64();
                let r =
                    decider_exec::step(program, decider, state, ins, now, agent.0, &mut steps, x);
                if r == FIRST {
                    pc = target(reject);
                }
            }
            Instr::VarPush { .. } | Instr::TsPush { .. } => {
                let r = lifecycle_exec::step(
                    program, life, state, ins, now, agent.0, &mut steps, false,
                );
                stack.push(match *ins {
                    Instr::TsPush { query: 2, .. } => Value::Int(r as i64),
                    _ => Value::Bool(r != 0),
                });
            }
            Instr::VarSet { .. } => {
                let x = stack.pop().truthy();
                lifecycle_exec::step(program, life, state, ins, now, agent.0, &mut steps, x);
            }
            Instr::LcAct {
                import,
                argc,
                live,
                success,
                failure,
                running,
            } => {
                let phase = lifecycle_exec::act_phase(state, l, live.0);
                let call = Call::new(
                    agent,
                    ImportId(import.0),
                    phase,
                    stack.args(argc),
                    now,
                    strings,
                );
                let status = host.action(&call);
                stack.drop_args(argc);
                lifecycle_exec::act_after(state, l, live.0, status);
                pc = target(pick(status, success, failure, running));
            }
            Instr::LcCall {
                import,
                argc,
                phase,
            } => {
                let phase = lifecycle_exec::phase(phase);
                let id = ImportId(import.0);
                let is_action = parts
                    .imports
                    .get(import.0 as usize)
                    .is_some_and(|i| i.kind == crate::ImportKind::Action);
                // Functions are always called with phase `enter`.
                let phase = if is_action { phase } else { Phase::Enter };
                let call = Call::new(agent, id, phase, stack.args(argc), now, strings);
                if is_action {
                    host.action(&call);
                } else {
                    host.function(&call);
                }
                stack.drop_args(argc);
            }
            Instr::LcLog { msg } => host.log(agent, strings.get(crate::StrId(msg.0))),
            Instr::SelLeaf { leaf, name } => {
                if lifecycle_exec::select_leaf(state, l, leaf) {
                    host.select(agent, strings.get(crate::StrId(name.0)));
                }
            }
            Instr::SelNone {} => {
                lifecycle_exec::select_none(state, l);
                host.select(agent, "");
            }
            Instr::LcQuorum {
                success,
                failure,
                running,
                ..
            } => {
                let r = lifecycle_exec::step(
                    program, life, state, ins, now, agent.0, &mut steps, false,
                );
                let status = Status::from_u8(r as u8).unwrap_or(Status::Failure);
                pc = target(pick(status, success, failure, running));
            }
            Instr::SelVisit { stop, to, .. } => {
                let r = lifecycle_exec::step(
                    program, life, state, ins, now, agent.0, &mut steps, false,
                );
                pc = if r == lifecycle_exec::SECOND {
                    to.0 as usize
                } else {
                    target(stop)
                };
            }
            // Jumps on the lifecycle and selection state. Each variant has its own arm, so the
            // (inlined) `step` is specialised to it and the label is known here.
            Instr::VarJump { to, .. } => life_jump!(ins, to),
            Instr::JumpStopped { to } => life_jump!(ins, to),
            Instr::RecJump { to, .. } => life_jump!(ins, to),
            Instr::RecJumpEq { to, .. } => life_jump!(ins, to),
            Instr::RecJumpGe { to, .. } => life_jump!(ins, to),
            Instr::LcBegin { stopped } => life_jump!(ins, stopped),
            Instr::LcJumpChanged { to } => life_jump!(ins, to),
            Instr::LcJumpWait { to, .. } => life_jump!(ins, to),
            Instr::SelBegin { unchanged } => life_jump!(ins, unchanged),
            Instr::SelJumpPrev { to, .. } => life_jump!(ins, to),
            Instr::SelJumpLeaf { to } => life_jump!(ins, to),
            // Operations on the lifecycle and selection state that never jump.
            Instr::RecBit { .. } => life_op!(ins),
            Instr::RecZero { .. } => life_op!(ins),
            Instr::RecSet { .. } => life_op!(ins),
            Instr::RecInc { .. } => life_op!(ins),
            Instr::RecCopy { .. } => life_op!(ins),
            Instr::TsStamp { .. } => life_op!(ins),
            Instr::TsInvalidate { .. } => life_op!(ins),
            Instr::LcStop {} => life_op!(ins),
            Instr::LcWaitArm { .. } => life_op!(ins),
            Instr::ScopeEnter { .. } => life_op!(ins),
            Instr::ScopeLeave { .. } => life_op!(ins),
            Instr::SelSeen { .. } => life_op!(ins),
            Instr::DecRedecide { to, guard } => {
                let r =
                    decider_exec::step(program, decider, state, ins, now, agent.0, &mut steps, 0.0);
                pc = if r == SECOND {
                    target(guard)
                } else {
                    to.0 as usize
                };
            }
            // The other decider instructions: jumps on the decider state and registers, then
            // updates that never jump, each with its own arm like the lifecycle ones above.
            // The match has no catch-all: a new instruction must be given its arm.
            Instr::DecJumpRoot { to } => dec_jump!(ins, to),
            Instr::DecTest { to, .. } => dec_jump!(ins, to),
            Instr::DecWait { to, .. } => dec_jump!(ins, to),
            Instr::DecJumpActive { to, .. } => dec_jump!(ins, to),
            Instr::DecJumpPick { to, .. } => dec_jump!(ins, to),
            Instr::DecJumpMasked { to, .. } => dec_jump!(ins, to),
            Instr::DecDraw { none, .. } => dec_jump!(ins, none),
            Instr::DecBest { none, .. } => dec_jump!(ins, none),
            Instr::DecBegin {} => dec_op!(ins),
            Instr::DecRoot { .. } => dec_op!(ins),
            Instr::DecGuard {} => dec_op!(ins),
            Instr::DecStamp { .. } => dec_op!(ins),
            Instr::DecSet { .. } => dec_op!(ins),
            Instr::DecClear { .. } => dec_op!(ins),
            Instr::DecEnter { .. } => dec_op!(ins),
            Instr::DecPick { .. } => dec_op!(ins),
            Instr::DecMask { .. } => dec_op!(ins),
            Instr::DecMaskUpTo { .. } => dec_op!(ins),
            Instr::DecCandClear { .. } => dec_op!(ins),
            Instr::DecCand { .. } => dec_op!(ins),
        }
    }
}

/// The operand stack with its top cached in a local (`top`); `mem` holds everything below it,
/// above a placeholder. A value consumed right after it is produced (a host result compared
/// with a constant) never goes through memory.
struct Stack<'s> {
    mem: &'s mut Vec<Value>,
    top: Value,
}

impl Stack<'_> {
    #[inline(always)]
    fn push(&mut self, v: Value) {
        self.mem.push(self.top);
        self.top = v;
    }

    #[inline(always)]
    fn pop(&mut self) -> Value {
        let v = self.top;
        self.top = self.mem.pop().unwrap_or(Value::Bool(false));
        v
    }

    /// The top `argc` values, contiguous in memory (oldest first); with none, the stack is
    /// left as it is (and [`Stack::drop_args`] and [`Stack::replace_args`] know it).
    #[inline(always)]
    fn args(&mut self, argc: u8) -> &[Value] {
        if argc == 0 {
            return &[];
        }
        self.mem.push(self.top);
        let base = self.mem.len().saturating_sub(usize::from(argc));
        &self.mem[base..]
    }

    /// After [`Stack::args`]: drops the arguments.
    #[inline(always)]
    fn drop_args(&mut self, argc: u8) {
        if argc == 0 {
            return;
        }
        let base = self.mem.len().saturating_sub(usize::from(argc));
        self.mem.truncate(base);
        self.top = self.mem.pop().unwrap_or(Value::Bool(false));
    }

    /// After [`Stack::args`]: replaces the arguments with a result.
    #[inline(always)]
    fn replace_args(&mut self, argc: u8, result: Value) {
        if argc == 0 {
            return self.push(result);
        }
        let base = self.mem.len().saturating_sub(usize::from(argc));
        self.mem.truncate(base);
        self.top = result;
    }
}
