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
/// float bits, string ids).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(super) struct RawValue {
    pub tag: u64,
    pub bits: u64,
}

/// Bytes of one [`RawValue`].
pub(super) const RAW_SIZE: u32 = 16;

impl RawValue {
    fn value(self) -> Value {
        match self.tag as i64 {
            TAG_BOOL => Value::Bool(self.bits != 0),
            TAG_INT => Value::Int(self.bits as i64),
            TAG_FLOAT => Value::Float(f64::from_bits(self.bits)),
            _ => Value::Str(crate::StrId(self.bits as u32)),
        }
    }

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

/// Calls an action: `(ctx, import, phase, args, argc) -> status`.
pub(super) type ActionFn = unsafe extern "C" fn(*mut Ctx, u32, u32, *const RawValue, u32) -> u32;
/// Calls a function, writing its (rounded) result: `(ctx, import, args, argc, out)`.
pub(super) type FunctionFn =
    unsafe extern "C" fn(*mut Ctx, u32, *const RawValue, u32, *mut RawValue);
/// Calls a function and converts its (rounded) result to a double.
pub(super) type FunctionF64Fn = unsafe extern "C" fn(*mut Ctx, u32, *const RawValue, u32) -> f64;
/// Draws the next random double from the agent's PRNG slot.
pub(super) type RandomFn = unsafe extern "C" fn(*mut Ctx, *mut u8) -> f64;
/// Zeroes `len` bytes at a pointer (a long running list).
pub(super) type ZeroFn = unsafe extern "C" fn(*mut u8, usize);

/// What native code receives with every call: the host (type-erased), its trampolines and the
/// tick's parameters. Native code reads the fields at their `offset_of!` offsets.
#[repr(C)]
pub(super) struct Ctx {
    pub action: ActionFn,
    pub function: FunctionFn,
    pub function_f64: FunctionF64Fn,
    pub random: RandomFn,
    pub zero: ZeroFn,
    /// The per-tick counter registers (`Program::temps` of them).
    pub temps: *mut u32,
    /// Points at a `&mut H` on the caller's stack.
    pub host: *mut (),
    pub strings: *const Strings,
    /// Argument buffer with capacity for the largest call, so conversion never allocates.
    pub args: *mut Vec<Value>,
    pub now: Millis,
    pub agent: u32,
    pub single_precision: bool,
    /// A panic caught in a host call, resumed by the entry point after native code returns.
    pub panic: Option<Box<dyn Any + Send>>,
}

/// Fills `buf` with the arguments native code spilled and returns them.
///
/// # Safety
/// `raw` points at `argc` initialised raw values.
unsafe fn fill_args(buf: &mut Vec<Value>, raw: *const RawValue, argc: u32) -> &[Value] {
    buf.clear();
    if argc > 0 {
        // SAFETY: native code passes a pointer to `argc` values it has just stored.
        let raw = unsafe { std::slice::from_raw_parts(raw, argc as usize) };
        buf.extend(raw.iter().map(|r| r.value()));
    }
    buf
}

/// Runs `f` against the host unless an earlier call of this tick panicked; a panic is caught
/// and parked in the context.
///
/// # Safety
/// `ctx` is the context of the running tick: `host` points at a live `&mut H`, `strings` at the
/// program's strings, `args` at the executor's argument buffer; `raw` holds `argc` values.
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
    // SAFETY: the buffer belongs to the executor, which outlives the call; nothing else uses it
    // during the call.
    let buf = unsafe { &mut *ctx.args };
    // SAFETY: `raw` holds `argc` values (the caller's contract).
    let values = unsafe { fill_args(buf, raw, argc) };
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

/// The action trampoline for host type `H`.
pub(super) unsafe extern "C" fn action<H: Host + ?Sized>(
    ctx: *mut Ctx,
    import: u32,
    phase: u32,
    raw: *const RawValue,
    argc: u32,
) -> u32 {
    let phase = if phase == 1 {
        Phase::Continue
    } else {
        Phase::Enter
    };
    // SAFETY: called by native code with the context of the running tick.
    let status = unsafe {
        with_host::<H, _>(ctx, import, phase, raw, argc, Status::Failure, |h, c| {
            h.action(c)
        })
    };
    status as u32
}

fn rounded(v: Value, single: bool) -> Value {
    match v {
        Value::Float(x) if single => Value::Float(f64::from(x as f32)),
        v => v,
    }
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

/// Zeroes a byte range of the state block.
pub(super) unsafe extern "C" fn zero(at: *mut u8, len: usize) {
    // SAFETY: native code passes a range it checked against the state size at compile time.
    unsafe { std::ptr::write_bytes(at, 0, len) };
}

/// The phase number native code passes for a continuing action (anything else is `enter`).
pub(super) const PHASE_CONTINUE: i64 = 1;

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
    pub const FUNCTION: i32 = offset_of!(Ctx, function) as i32;
    pub const FUNCTION_F64: i32 = offset_of!(Ctx, function_f64) as i32;
    pub const RANDOM: i32 = offset_of!(Ctx, random) as i32;
    pub const ZERO: i32 = offset_of!(Ctx, zero) as i32;
    pub const TEMPS: i32 = offset_of!(Ctx, temps) as i32;
    pub const NOW: i32 = offset_of!(Ctx, now) as i32;
}
