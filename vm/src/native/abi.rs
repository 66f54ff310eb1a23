//! The boundary between machine code and Rust: the context block native code receives, the
//! value representation it uses, and the `extern "C"` trampolines through which it calls the
//! host.
//!
//! Native code is compiled once per program and knows nothing about the host's type. Each tick
//! builds a [`Ctx`] holding a type-erased pointer to the host and the trampolines
//! monomorphised for that host type; native code calls them indirectly through the context.
//!
//! A host that panics must not unwind through machine code (Cranelift frames carry no unwind
//! information we rely on). The trampolines catch the panic, park it in the context and answer
//! `failure` to this and every later call of the tick; the tick runs to its (bounded) end and
//! the entry point resumes the panic in Rust.
//!
//! **Invariant:** every pointer in a [`Ctx`] is valid for the whole native call that receives it;
//! the trampolines are the only code that dereferences the host pointer.
#![allow(unsafe_code)]

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::{AgentId, Call, Host, ImportId, Millis, Phase, Prng, Status, Strings, Value};

/// Tags of [`RawValue`] (and of the tag half of a value native code keeps in registers).
pub(super) const TAG_BOOL: i64 = 0;
pub(super) const TAG_INT: i64 = 1;
pub(super) const TAG_FLOAT: i64 = 2;
pub(super) const TAG_STR: i64 = 3;

/// A [`Value`] as native code stores it: a tag and 64 payload bits (booleans 0/1, integers,
/// float bits, string ids). Its first bytes coincide with `Value`'s `repr(u64)` layout, which
/// the layout test below pins down.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(super) struct RawValue {
    pub tag: u64,
    pub bits: u64,
}

/// Bytes of one [`RawValue`].
pub(super) const RAW_SIZE: u32 = 16;

impl RawValue {
    fn from_value(v: Value) -> RawValue {
        let (tag, bits) = match v {
            Value::Bool(b) => (TAG_BOOL, u64::from(b)),
            Value::Int(i) => (TAG_INT, i as u64),
            Value::Float(x) => (TAG_FLOAT, x.to_bits()),
            Value::Str(s) => (TAG_STR, u64::from(s.0)),
        };
        RawValue {
            tag: tag as u64,
            bits,
        }
    }
}

/// Asks the host whether it has an import: `(ctx, import) -> 0/1` (`Host::available`).
pub(super) type AvailableFn = unsafe extern "C" fn(*mut Ctx, u32) -> u32;
/// Calls an action: `(ctx, import, phase, args, argc) -> status` (inlined bookkeeping).
pub(super) type ActionFn = unsafe extern "C" fn(*mut Ctx, u32, u32, *const RawValue, u32) -> u32;
/// Runs a whole `act` instruction: `(ctx, state, import, argc, args, me, bit) -> status` —
/// the phase from the current-action slot, the host call, then the slot and running-list
/// bookkeeping (the vm's own `after_action`).
pub(super) type ActFn =
    unsafe extern "C" fn(*mut Ctx, *mut u8, u32, u32, *const RawValue, u32, u32) -> u32;
/// Calls a function, writing its (rounded) result: `(ctx, import, args, argc, out)`.
pub(super) type FunctionFn =
    unsafe extern "C" fn(*mut Ctx, u32, *const RawValue, u32, *mut RawValue);
/// Calls a function and converts its (rounded) result to a double.
pub(super) type FunctionF64Fn = unsafe extern "C" fn(*mut Ctx, u32, *const RawValue, u32) -> f64;
/// Draws the next random double from the agent's PRNG slot.
pub(super) type RandomFn = unsafe extern "C" fn(*mut Ctx, *mut u8) -> f64;
/// Runs one decider-model instruction: `(ctx, state, pc, x) -> FALL / FIRST / SECOND` (the
/// vm's own `decider_exec::step`; `x` is `dec.score`'s popped value as a double).
pub(super) type DeciderFn = unsafe extern "C" fn(*mut Ctx, *mut u8, u32, f64) -> u32;
/// Runs one record, lifecycle or selection instruction that does not call the host:
/// `(ctx, state, pc, x) -> r` (the vm's own `lifecycle_exec::step`; `x` is `var.set`'s popped
/// truthiness, `r` a jump code, a pushed payload or a status number).
pub(super) type LifecycleFn = unsafe extern "C" fn(*mut Ctx, *mut u8, u32, u32) -> u64;
/// Runs one lifecycle or selection instruction that calls the host (`lc.act`, `lc.call`,
/// `lc.log`, `sel.leaf`, `sel.none`): `(ctx, state, pc, args, argc) -> status` (the status of
/// `lc.act`; 0 otherwise).
pub(super) type LcHostFn =
    unsafe extern "C" fn(*mut Ctx, *mut u8, u32, *const RawValue, u32) -> u32;
/// Zeroes `len` bytes at a pointer (a long running list).
pub(super) type ZeroFn = unsafe extern "C" fn(*mut u8, usize);
/// `list.success` / `list.running` out of line: `(ctx, state, bit)`.
pub(super) type ListFn = unsafe extern "C" fn(*mut Ctx, *mut u8, u32);

/// What native code receives with every call: the host (type-erased), its trampolines and the
/// tick's parameters. Native code reads the fields at their `offset_of!` offsets.
#[repr(C)]
pub(super) struct Ctx {
    pub action: ActionFn,
    pub act: ActFn,
    pub function: FunctionFn,
    pub function_f64: FunctionF64Fn,
    pub random: RandomFn,
    pub zero: ZeroFn,
    pub list_success: ListFn,
    pub list_running: ListFn,
    pub available: AvailableFn,
    pub decider: DeciderFn,
    pub lifecycle: LifecycleFn,
    pub lc_host: LcHostFn,
    /// The per-tick counter registers (`Program::temps` of them).
    pub temps: *mut u32,
    /// Points at a `&mut H` on the caller's stack.
    pub host: *mut (),
    pub strings: *const Strings,
    /// The program's state layout (the state block has `layout.size` bytes).
    pub layout: *const crate::program::Layout,
    /// The program (its code, for the decider trampoline).
    pub program: *const crate::Program,
    /// The decider model's per-tick choice registers.
    pub regs: *mut crate::model::decider::DeciderScratch,
    /// The same registers' first group (`Layout::group_count` of them), which native code
    /// reads and writes inline.
    pub dec_regs: *mut crate::model::decider::Regs,
    /// The lifecycle and selection models' memory (group scopes, the visited set).
    pub life: *mut crate::model::lifecycle::LifeScratch,
    pub now: Millis,
    /// `now` in the program's clock units ([`crate::Program::clock`]), what lifecycle timers
    /// compare.
    pub time: i64,
    pub agent: u32,
    /// The cursor model's rule runs (the decider model's redecides) this tick; zeroed before
    /// every agent's tick.
    pub steps: u32,
    pub single_precision: bool,
    /// A panic caught in a host call, resumed by the entry point after native code returns.
    pub panic: Option<Box<dyn Any + Send>>,
}

/// The arguments native code laid out for a call.
///
/// # Safety
/// `raw` points at `argc` values native code stored in [`Value`]'s `repr(u64)` layout: a tag
/// 0–3 at byte 0 and the payload at byte 8 (a boolean payload is 0 or 1). **Invariant:** native
/// code only ever holds tags and payloads that came from valid values (constants, operator
/// results, host results normalised by [`RawValue::from_value`]), so these are valid `Value`s.
unsafe fn args_of<'a>(raw: *const RawValue, argc: u32) -> &'a [Value] {
    if argc == 0 {
        return &[];
    }
    // SAFETY: the caller's contract: `argc` valid values, 8-aligned (a stack slot aligned to 8),
    // alive until the call returns.
    unsafe { std::slice::from_raw_parts(raw.cast::<Value>(), argc as usize) }
}

/// Runs `f` against the host unless an earlier call of this tick panicked; a panic is caught
/// and parked in the context.
///
/// # Safety
/// `ctx` is the context of the running tick: `host` points at a live `&mut H`, `strings` at the
/// program's strings; `raw` holds `argc` values laid out as [`args_of`] requires.
unsafe fn with_host<H: Host + ?Sized, R>(
    ctx: *mut Ctx,
    import: u32,
    phase: Phase,
    raw: *const RawValue,
    argc: u32,
    failed: R,
    f: impl FnOnce(&mut H, &Call<'_>) -> R,
) -> R {
    // SAFETY: native code passes back the context pointer the entry point gave it.
    let ctx = unsafe { &mut *ctx };
    if ctx.panic.is_some() {
        return failed;
    }
    // SAFETY: the entry point stored a pointer to a `&mut H` that lives across the native call.
    let host: &mut H = unsafe { &mut **(ctx.host as *mut &mut H) };
    // SAFETY: the strings belong to the program, which outlives the call.
    let strings = unsafe { &*ctx.strings };
    // SAFETY: `raw` holds `argc` values (the caller's contract).
    let values = unsafe { args_of(raw, argc) };
    let call = Call::new(
        AgentId(ctx.agent),
        ImportId(import),
        phase,
        values,
        ctx.now,
        strings,
    );
    match catch_unwind(AssertUnwindSafe(|| f(host, &call))) {
        Ok(r) => r,
        Err(payload) => {
            ctx.panic = Some(payload);
            failed
        }
    }
}

/// The action trampoline for host type `H` (the caller did the bookkeeping).
pub(super) unsafe extern "C" fn action<H: Host + ?Sized>(
    ctx: *mut Ctx,
    import: u32,
    phase: u32,
    raw: *const RawValue,
    argc: u32,
) -> u32 {
    let phase = match i64::from(phase) {
        PHASE_CONTINUE => Phase::Continue,
        PHASE_EXIT => Phase::Exit,
        _ => Phase::Enter,
    };
    // SAFETY: called by native code with the context of the running tick.
    let status = unsafe {
        with_host::<H, _>(ctx, import, phase, raw, argc, Status::Failure, |h, c| {
            h.action(c)
        })
    };
    status as u32
}

/// The phase number native code passes for a continuing action (anything else but
/// [`PHASE_EXIT`] is `enter`).
pub(super) const PHASE_CONTINUE: i64 = 1;
/// The phase number native code passes for a terminated action (`exit`).
pub(super) const PHASE_EXIT: i64 = 2;

/// The `act` trampoline for host type `H`: one whole `act` instruction.
pub(super) unsafe extern "C" fn act<H: Host + ?Sized>(
    ctx: *mut Ctx,
    state: *mut u8,
    import: u32,
    argc: u32,
    raw: *const RawValue,
    me: u32,
    bit: u32,
) -> u32 {
    // SAFETY: called by native code with the running tick's context and state block.
    let (state, layout) = unsafe { state_of(ctx, state) };
    let phase = if crate::program::read(state, layout.current) == me {
        Phase::Continue
    } else {
        Phase::Enter
    };
    // SAFETY: as above; `raw` holds `argc` values.
    let status = unsafe {
        with_host::<H, _>(ctx, import, phase, raw, argc, Status::Failure, |h, c| {
            h.action(c)
        })
    };
    // SAFETY: the context's program is the one whose code runs, alive for the whole tick.
    let claims =
        crate::model::running_list::claims_of(unsafe { (*(*ctx).program).parts() }, import);
    crate::model::running_list::after_action(state, layout, me, claims, bit, status);
    status as u32
}

fn rounded(v: Value, single: bool) -> Value {
    match v {
        Value::Float(x) if single => Value::Float(f64::from(x as f32)),
        v => v,
    }
}

/// The availability trampoline for host type `H` (`push.bound`).
pub(super) unsafe extern "C" fn available<H: Host + ?Sized>(ctx: *mut Ctx, import: u32) -> u32 {
    // SAFETY: called by native code with the context of the running tick; no arguments.
    let has = unsafe {
        with_host::<H, _>(
            ctx,
            import,
            Phase::Enter,
            std::ptr::null(),
            0,
            false,
            |h, c| h.available(c.import),
        )
    };
    u32::from(has)
}

/// The function trampoline for host type `H`.
pub(super) unsafe extern "C" fn function<H: Host + ?Sized>(
    ctx: *mut Ctx,
    import: u32,
    raw: *const RawValue,
    argc: u32,
    out: *mut RawValue,
) {
    // SAFETY: called by native code with the context of the running tick.
    let single = unsafe { (*ctx).single_precision };
    // SAFETY: as above.
    let v = unsafe {
        with_host::<H, _>(
            ctx,
            import,
            Phase::Enter,
            raw,
            argc,
            Value::Bool(false),
            |h, c| h.function(c),
        )
    };
    // SAFETY: `out` is a stack slot of the calling native frame.
    unsafe { *out = RawValue::from_value(rounded(v, single)) };
}

/// The function trampoline returning a double, for host type `H`.
pub(super) unsafe extern "C" fn function_f64<H: Host + ?Sized>(
    ctx: *mut Ctx,
    import: u32,
    raw: *const RawValue,
    argc: u32,
) -> f64 {
    // SAFETY: called by native code with the context of the running tick.
    let single = unsafe { (*ctx).single_precision };
    // SAFETY: as above.
    let v = unsafe {
        with_host::<H, _>(
            ctx,
            import,
            Phase::Enter,
            raw,
            argc,
            Value::Bool(false),
            |h, c| h.function(c),
        )
    };
    rounded(v, single).as_f64()
}

/// Draws from the PRNG whose 8-byte state is at `slot` (0 = not seeded yet).
pub(super) unsafe extern "C" fn random(ctx: *mut Ctx, slot: *mut u8) -> f64 {
    // SAFETY: native code passes its context and a pointer to the in-bounds PRNG slot.
    let (agent, bytes) = unsafe { ((*ctx).agent, &mut *(slot as *mut [u8; 8])) };
    let mut rng = match u64::from_le_bytes(*bytes) {
        0 => Prng::for_agent(agent),
        s => Prng::from_state(s),
    };
    let x = rng.next_f64();
    *bytes = rng.state().to_le_bytes();
    x
}

/// The state block and layout of the running tick.
///
/// # Safety
/// `ctx` is the running tick's context and `state` its agent's state block.
unsafe fn state_of<'a>(
    ctx: *mut Ctx,
    state: *mut u8,
) -> (&'a mut [u8], &'a crate::program::Layout) {
    // SAFETY: the context's layout is the program's; the block has `layout.size` bytes (checked
    // by the entry point) and nothing else accesses it during the call.
    unsafe {
        let layout = &*(*ctx).layout;
        (
            std::slice::from_raw_parts_mut(state, layout.size as usize),
            layout,
        )
    }
}

/// `list.success bit`: a node that succeeded drops the list if it was listed (the vm's code).
pub(super) unsafe extern "C" fn list_success(ctx: *mut Ctx, state: *mut u8, bit: u32) {
    // SAFETY: called by native code with the running tick's context and state block.
    let (state, layout) = unsafe { state_of(ctx, state) };
    if crate::model::running_list::listed(state, layout, bit) {
        crate::model::running_list::clear_list(state, layout);
    }
}

/// `list.running bit`: a node that is running lists itself (the vm's code).
pub(super) unsafe extern "C" fn list_running(ctx: *mut Ctx, state: *mut u8, bit: u32) {
    // SAFETY: called by native code with the running tick's context and state block.
    let (state, layout) = unsafe { state_of(ctx, state) };
    crate::model::running_list::add_to_list(state, layout, bit);
}

/// One decider-model instruction, executed by the vm's own code.
pub(super) unsafe extern "C" fn decider(ctx: *mut Ctx, state: *mut u8, pc: u32, x: f64) -> u32 {
    // SAFETY: called by native code with the running tick's context and state block.
    let (state, _) = unsafe { state_of(ctx, state) };
    // SAFETY: as above; the program and the registers outlive the native call, and nothing
    // else touches the registers while it runs.
    let (ctx, program, regs) = unsafe { (&mut *ctx, &*(*ctx).program, &mut *(*ctx).regs) };
    let Some(ins) = program.code().get(pc as usize) else {
        return crate::model::decider::FALL;
    };
    crate::model::decider::step(
        program,
        regs,
        state,
        ins,
        ctx.now,
        ctx.agent,
        &mut ctx.steps,
        x,
    )
}

/// One record, lifecycle or selection instruction that does not call the host, executed by the
/// vm's own code.
pub(super) unsafe extern "C" fn lifecycle(ctx: *mut Ctx, state: *mut u8, pc: u32, x: u32) -> u64 {
    // SAFETY: called by native code with the running tick's context and state block.
    let (state, _) = unsafe { state_of(ctx, state) };
    // SAFETY: as above; the program and the lifecycle memory outlive the native call, and
    // nothing else touches that memory while it runs.
    let (ctx, program, life) = unsafe { (&mut *ctx, &*(*ctx).program, &mut *(*ctx).life) };
    let Some(ins) = program.code().get(pc as usize) else {
        return crate::model::lifecycle::FALL;
    };
    crate::model::lifecycle::step(
        program,
        life,
        state,
        ins,
        ctx.now,
        ctx.agent,
        &mut ctx.steps,
        x != 0,
    )
}

/// Tells the host's node observer one trace event (`node.enter`, `node.exit`).
///
/// # Safety
///
/// `ctx` is the running tick's context (as for [`with_host`]).
unsafe fn node_event<H: Host + ?Sized>(ctx: *mut Ctx, node: u32, event: crate::NodeEvent) {
    // SAFETY: the caller's contract; no arguments.
    unsafe {
        with_host::<H, _>(ctx, 0, Phase::Enter, std::ptr::null(), 0, (), |h, c| {
            h.node(c.agent, node, event)
        })
    };
}

/// One lifecycle or selection instruction that calls the host, for host type `H`: the vm's
/// own helpers around the host call.
pub(super) unsafe extern "C" fn lc_host<H: Host + ?Sized>(
    ctx: *mut Ctx,
    state: *mut u8,
    pc: u32,
    raw: *const RawValue,
    argc: u32,
) -> u32 {
    use crate::model::lifecycle as lc;
    use crate::program::Instr;
    // SAFETY: called by native code with the running tick's context and state block.
    let (state, layout) = unsafe { state_of(ctx, state) };
    // SAFETY: the program outlives the native call.
    let program = unsafe { &*(*ctx).program };
    let Some(&ins) = program.code().get(pc as usize) else {
        return Status::Failure as u32;
    };
    match ins {
        Instr::LcAct { import, live, .. } => {
            let phase = lc::act_phase(state, layout, live.0);
            // SAFETY: as above; `raw` holds `argc` values.
            let status = unsafe {
                with_host::<H, _>(ctx, import.0, phase, raw, argc, Status::Failure, |h, c| {
                    h.action(c)
                })
            };
            lc::act_after(state, layout, live.0, status);
            status as u32
        }
        Instr::LcCall { import, phase, .. } => {
            let is_action = program
                .imports()
                .get(import.0 as usize)
                .is_some_and(|i| i.kind == crate::ImportKind::Action);
            let phase = if is_action {
                crate::model::phase(phase)
            } else {
                Phase::Enter
            };
            // SAFETY: as above.
            unsafe {
                with_host::<H, _>(ctx, import.0, phase, raw, argc, (), |h, c| {
                    if is_action {
                        h.action(c);
                    } else {
                        h.function(c);
                    }
                })
            };
            0
        }
        Instr::LcLog { msg } => {
            let text = program.strings().get(crate::StrId(msg.0));
            // SAFETY: as above; no arguments.
            unsafe {
                with_host::<H, _>(ctx, 0, Phase::Enter, std::ptr::null(), 0, (), |h, c| {
                    h.log(c.agent, text)
                })
            };
            0
        }
        Instr::SelLeaf { leaf, name } => {
            if crate::model::selection::select_leaf(state, layout, leaf) {
                let text = program.strings().get(crate::StrId(name.0));
                // SAFETY: as above; no arguments.
                unsafe {
                    with_host::<H, _>(ctx, 0, Phase::Enter, std::ptr::null(), 0, (), |h, c| {
                        h.select(c.agent, text)
                    })
                };
            }
            0
        }
        Instr::NodeEnter { node } => {
            // SAFETY: as above; no arguments.
            unsafe { node_event::<H>(ctx, node, crate::NodeEvent::Enter) };
            0
        }
        Instr::NodeExit { node, status } => {
            // SAFETY: as above; no arguments.
            unsafe { node_event::<H>(ctx, node, crate::NodeEvent::Finish(status)) };
            0
        }
        Instr::SelNone {} => {
            crate::model::selection::select_none(state, layout);
            // SAFETY: as above; no arguments.
            unsafe {
                with_host::<H, _>(ctx, 0, Phase::Enter, std::ptr::null(), 0, (), |h, c| {
                    h.select(c.agent, "")
                })
            };
            0
        }
        _ => 0,
    }
}

/// Zeroes a byte range of the state block.
pub(super) unsafe extern "C" fn zero(at: *mut u8, len: usize) {
    // SAFETY: native code passes a range it checked against the state size at compile time.
    unsafe { std::ptr::write_bytes(at, 0, len) };
}

/// Converts a status number returned by native code.
pub(super) fn status(code: u32) -> Status {
    Status::from_u8((code & 0xff) as u8).unwrap_or(Status::Failure)
}

/// Bit set in a chunk's result when it is a status rather than a label to continue at.
pub(super) const STATUS_FLAG: u32 = 0x8000_0000;

/// `Ctx` field offsets native code loads from.
pub(super) mod offsets {
    use super::Ctx;
    use std::mem::offset_of;

    pub const ACTION: i32 = offset_of!(Ctx, action) as i32;
    pub const ACT: i32 = offset_of!(Ctx, act) as i32;
    pub const FUNCTION: i32 = offset_of!(Ctx, function) as i32;
    pub const FUNCTION_F64: i32 = offset_of!(Ctx, function_f64) as i32;
    pub const RANDOM: i32 = offset_of!(Ctx, random) as i32;
    pub const ZERO: i32 = offset_of!(Ctx, zero) as i32;
    pub const LIST_SUCCESS: i32 = offset_of!(Ctx, list_success) as i32;
    pub const LIST_RUNNING: i32 = offset_of!(Ctx, list_running) as i32;
    pub const AVAILABLE: i32 = offset_of!(Ctx, available) as i32;
    pub const DECIDER: i32 = offset_of!(Ctx, decider) as i32;
    pub const LIFECYCLE: i32 = offset_of!(Ctx, lifecycle) as i32;
    pub const LC_HOST: i32 = offset_of!(Ctx, lc_host) as i32;
    pub const TEMPS: i32 = offset_of!(Ctx, temps) as i32;
    pub const NOW: i32 = offset_of!(Ctx, now) as i32;
    pub const TIME: i32 = offset_of!(Ctx, time) as i32;
    pub const STEPS: i32 = offset_of!(Ctx, steps) as i32;
    pub const DEC_REGS: i32 = offset_of!(Ctx, dec_regs) as i32;

    use crate::model::decider::Regs;
    /// Bytes of one group's choice registers, and the offsets of their fields.
    pub const REGS_SIZE: i64 = std::mem::size_of::<Regs>() as i64;
    pub const REG_MASK: i32 = offset_of!(Regs, mask) as i32;
    pub const REG_CAND: i32 = offset_of!(Regs, cand) as i32;
    pub const REG_PICK: i32 = offset_of!(Regs, pick) as i32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Native code writes arguments as `RawValue`s and the trampolines read them as `Value`s:
    /// the two layouts must agree on the tag and on every payload's first bytes.
    #[test]
    fn raw_values_read_back_as_values() {
        assert_eq!(std::mem::size_of::<Value>(), RAW_SIZE as usize);
        assert_eq!(std::mem::align_of::<Value>(), 8);
        let values = [
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(-7),
            Value::Int(i64::MAX),
            Value::Float(-0.5),
            Value::Float(f64::NAN),
            Value::Str(crate::StrId(u32::MAX)),
        ];
        let raw: Vec<RawValue> = values.iter().map(|&v| RawValue::from_value(v)).collect();
        // SAFETY: `raw` holds valid values in the layout `args_of` requires.
        let back = unsafe { args_of(raw.as_ptr(), raw.len() as u32) };
        for (a, b) in values.iter().zip(back) {
            match (a, b) {
                (Value::Float(x), Value::Float(y)) => assert_eq!(x.to_bits(), y.to_bits()),
                _ => assert_eq!(a, b),
            }
        }
    }
}
