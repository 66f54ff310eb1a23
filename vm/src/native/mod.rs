//! The native engine: a verified [`Program`] compiled to machine code with Cranelift.
//!
//! [`NativeCode::compile`] lowers every bytecode function to one or more native functions
//! (long functions are split into chunks so compile time stays linear, see `plan`), using
//! **the same state layout as the vm**: an agent's state block can be ticked by either engine,
//! switching between ticks. The native functions are compiled on several threads (`build`,
//! [`NativeConfig::threads`]). Operand-stack values live in registers; the host is called
//! through `extern "C"` trampolines monomorphised for the host type (`abi`). Compiling needs a
//! target Cranelift supports; where it fails, [`NativeError`] says why and
//! [`Engine`](crate::Engine) falls back to the vm.
//!
//! Code memory is owned by [`NativeCode`] and released when it is dropped; a program caches its
//! default compilation ([`Program::native`]), so that code lives exactly as long as the program.
//!
//! **Invariant:** only verified programs are compiled (a [`Program`] cannot exist otherwise),
//! and every state offset the code touches is also checked against the state size at compile
//! time; `unsafe` is confined to `abi` (the trampolines) and the entry points below.
#![allow(unsafe_code)]

mod abi;
mod build;
mod plan;
mod translate;

use std::fmt;
use std::time::{Duration, Instant};

use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::default_libcall_names;

use crate::exec::Scratch;
use crate::{AgentId, Host, Millis, Program, Status};
use abi::{Ctx, STATUS_FLAG};

/// How much Cranelift optimises.
///
/// The default is [`OptLevel::None`]: on behavior trees Cranelift's optimisations (its e-graph
/// rewrites and alias analysis) took a fifth of the compile time and did not make the code
/// faster (measured: the native tick executes as many or fewer instructions without them on
/// the demo, fight-or-flight, the examples and a generated 1,000-node tree; `BENCHMARKS.md`,
/// "Compile times").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OptLevel {
    /// No optimisation: fastest compile (the default).
    #[default]
    None,
    /// Optimise for speed.
    Speed,
}

/// Which register allocator Cranelift runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RegAlloc {
    /// regalloc2's backtracking allocator, with live-range splitting: the best code, and
    /// about half of the compile time.
    #[default]
    Backtracking,
    /// regalloc2's single-pass allocator: a much faster compile, for code with more spills
    /// and register moves.
    SinglePass,
}

/// How programs are compiled to native code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeConfig {
    /// Cranelift's optimisation level.
    pub opt_level: OptLevel,
    /// Cranelift's register allocator.
    pub regalloc: RegAlloc,
    /// Most bytecode instructions per native function; longer functions are split into chunks
    /// (at points where the operand stack is empty), keeping compile time linear.
    pub max_chunk: u32,
    /// Run Cranelift's IR verifier on every function (slower compiles; on in debug builds).
    pub verify_ir: bool,
    /// Programs of at most this many instructions get the running-list bookkeeping of `act`
    /// and `list.*` inlined; larger ones call the vm's own code for it out of line, which
    /// costs a call per node at run time but roughly halves their code and compile time.
    pub inline_below: u32,
    /// Keep Cranelift's listing of every native function it compiles (its VCode: the machine
    /// instructions after register allocation), for [`NativeCode::disassembly`]. Off by
    /// default: producing the text slows compilation down and the listing costs memory for as
    /// long as the code lives.
    pub disassemble: bool,
    /// Largest program, in bytecode instructions, compiled to native code; a larger one is
    /// refused at once with [`NativeErrorKind::TooLarge`] (so [`Engine`](crate::Engine) runs
    /// it on the vm and says why). Compile time grows linearly with the instruction count
    /// and is large per instruction (about 10 µs of one core's time in a release build on an
    /// idle machine before issue 28, now about four fifths of that, shared between
    /// [`NativeConfig::threads`]; up to 70 µs on a busy machine), so without a bound a legal
    /// tree from untrusted input holds a server in the compiler for minutes (7.6 M
    /// instructions: 135 s and 1.2 GB). The default, 100,000, compiled in about a second on
    /// an idle machine before issue 28, on one thread; the demo bot is 265
    /// instructions and a generated 10,000-node tree 35,000. Measurements in `BENCHMARKS.md`
    /// ("Compile times").
    pub max_instructions: usize,
    /// Most threads one compilation uses, the caller's included; `0` (the default) means one
    /// per core the machine offers ([`std::thread::available_parallelism`]). The native
    /// functions (chunks) of a program are translated and compiled independently, so a
    /// program of several chunks compiles on several threads; linking stays on the caller's
    /// thread, and the code is the same whatever the number. `1` compiles on the caller's
    /// thread alone: the better choice where the cores are busy when programs are compiled,
    /// since the caller waits for the slowest helper's last function.
    pub threads: usize,
}

impl Default for NativeConfig {
    fn default() -> Self {
        NativeConfig {
            opt_level: OptLevel::None,
            regalloc: RegAlloc::Backtracking,
            max_chunk: 1500,
            verify_ir: cfg!(debug_assertions),
            inline_below: 2000,
            disassemble: false,
            max_instructions: 100_000,
            threads: 0,
        }
    }
}

impl NativeConfig {
    /// The number of threads a compilation may use ([`NativeConfig::threads`], resolved).
    fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }

    /// Whether `program` is small enough to compile ([`NativeConfig::max_instructions`]):
    /// [`NativeCode::compile`] asks this first, and callers may ask it without compiling.
    pub fn check_size(&self, program: &Program) -> Result<(), NativeError> {
        let size = program.code().len();
        if size > self.max_instructions {
            return Err(NativeError::new(
                NativeErrorKind::TooLarge,
                format!(
                    "{size} instructions, more than the {} native code is compiled for \
                     (`NativeConfig::max_instructions`)",
                    self.max_instructions
                ),
            ));
        }
        Ok(())
    }
}

/// What went wrong compiling to native code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NativeErrorKind {
    /// Cranelift has no backend for this machine.
    UnsupportedTarget,
    /// Cranelift rejected the generated code or could not map it.
    Codegen,
    /// The program has something the translator refuses (only a verifier bug can cause it).
    Program,
    /// The code was compiled for a different program.
    WrongProgram,
    /// The program has more instructions than [`NativeConfig::max_instructions`]: compiling
    /// it would take too long, so nothing was compiled.
    TooLarge,
}

/// Why a program could not be compiled (or run) natively. Callers that want a running engine
/// regardless use [`Engine`](crate::Engine), which falls back to the vm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeError {
    kind: NativeErrorKind,
    message: String,
}

impl NativeError {
    fn new(kind: NativeErrorKind, message: impl Into<String>) -> Self {
        NativeError {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> NativeErrorKind {
        self.kind
    }
}

impl fmt::Display for NativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            NativeErrorKind::UnsupportedTarget => "native code is not supported on this machine",
            NativeErrorKind::Codegen => "native code generation failed",
            NativeErrorKind::Program => "the program cannot be compiled to native code",
            NativeErrorKind::WrongProgram => "the native code belongs to another program",
            NativeErrorKind::TooLarge => "the program is too large to compile to native code",
        };
        write!(f, "{what}: {}", self.message)
    }
}

impl std::error::Error for NativeError {}

/// Figures about one compilation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NativeStats {
    /// Bytecode instructions compiled.
    pub instructions: usize,
    /// Native functions produced (chunks plus drivers).
    pub functions: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
    /// Wall-clock time of the whole compilation.
    pub compile_time: Duration,
}

/// A native entry: `(ctx, state, label) -> STATUS_FLAG | status`.
type EntryFn = unsafe extern "C" fn(*mut Ctx, *mut u8, u32) -> u32;

/// Owns the JIT module; frees its code memory on drop.
struct CodeMemory(Option<JITModule>);

// SAFETY: after `finalize_definitions` the module is never used again except to free it in
// `drop`, which has exclusive access; the code it owns is immutable and may run on any thread.
unsafe impl Send for CodeMemory {}
// SAFETY: as above: shared references never touch the module.
unsafe impl Sync for CodeMemory {}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        if let Some(module) = self.0.take() {
            // SAFETY: `NativeCode` owns the only function pointers into this memory and is
            // being dropped; executors borrow it, so none is running.
            unsafe { module.free_memory() };
        }
    }
}

/// A program compiled to machine code. Immutable, `Send + Sync`, shared by every agent and
/// thread; the code memory is released when it is dropped.
pub struct NativeCode {
    fingerprint: u64,
    /// The native function each bytecode function is entered through.
    entries: Vec<EntryFn>,
    stats: NativeStats,
    /// Cranelift's listing of every native function, with [`NativeConfig::disassemble`].
    disassembly: Option<String>,
    _memory: CodeMemory,
}

impl fmt::Debug for NativeCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativeCode")
            .field("fingerprint", &format_args!("{:016x}", self.fingerprint))
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl NativeCode {
    /// Compiles `program` for this machine.
    pub fn compile(program: &Program, config: &NativeConfig) -> Result<NativeCode, NativeError> {
        let started = Instant::now();
        config.check_size(program)?;
        let mut module = new_module(config)?;
        let mut stats = NativeStats::default();
        let mut disassembly = config.disassemble.then(String::new);
        let result = build::define_all(&mut module, program, config, &mut stats, &mut disassembly);
        let entries = match result {
            Ok(ids) => {
                if let Err(e) = module.finalize_definitions() {
                    // SAFETY: no pointer into the module's memory was handed out.
                    unsafe { module.free_memory() };
                    return Err(NativeError::new(NativeErrorKind::Codegen, e.to_string()));
                }
                ids.iter()
                    .map(|&id| {
                        let p = module.get_finalized_function(id);
                        // SAFETY: `id` was defined with the `EntryFn` signature (pointer,
                        // pointer, i32) -> i32 in the platform's C calling convention.
                        unsafe { std::mem::transmute::<*const u8, EntryFn>(p) }
                    })
                    .collect()
            }
            Err(e) => {
                // SAFETY: nothing was finalised, so no pointer into this memory exists.
                unsafe { module.free_memory() };
                return Err(e);
            }
        };
        stats.instructions = program.code().len();
        stats.compile_time = started.elapsed();
        Ok(NativeCode {
            fingerprint: program.fingerprint(),
            entries,
            stats,
            disassembly,
            _memory: CodeMemory(Some(module)),
        })
    }

    /// Figures about the compilation.
    pub fn stats(&self) -> NativeStats {
        self.stats
    }

    /// Cranelift's listing of the machine code, when compiled with
    /// [`NativeConfig::disassemble`] (else `None`): every native function in the order it was
    /// compiled, each preceded by a header line naming it (`; native function f3.1`). Function
    /// `f{n}` enters bytecode function `n`; a long function is split into chunks `f{n}.{k}`
    /// and entered through a driver `f{n}` that calls them. The text is Cranelift's VCode
    /// after register allocation: informative, not an assembler's input, and not stable
    /// across Cranelift versions.
    pub fn disassembly(&self) -> Option<&str> {
        self.disassembly.as_deref()
    }

    /// Whether this code was compiled from `program`.
    pub fn check(&self, program: &Program) -> Result<(), NativeError> {
        if self.fingerprint == program.fingerprint()
            && self.entries.len() == program.functions().len()
        {
            Ok(())
        } else {
            Err(NativeError::new(
                NativeErrorKind::WrongProgram,
                format!(
                    "compiled from program {:016x}, asked to run program {:016x}",
                    self.fingerprint,
                    program.fingerprint()
                ),
            ))
        }
    }

    /// The fingerprint of the program this code was compiled from.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

fn new_module(config: &NativeConfig) -> Result<JITModule, NativeError> {
    let codegen = |e: &dyn fmt::Display| NativeError::new(NativeErrorKind::Codegen, e.to_string());
    let mut flags = settings::builder();
    let opt = match config.opt_level {
        OptLevel::None => "none",
        OptLevel::Speed => "speed",
    };
    flags.set("opt_level", opt).map_err(|e| codegen(&e))?;
    let regalloc = match config.regalloc {
        RegAlloc::Backtracking => "backtracking",
        RegAlloc::SinglePass => "single_pass",
    };
    flags
        .set("regalloc_algorithm", regalloc)
        .map_err(|e| codegen(&e))?;
    flags
        .set(
            "enable_verifier",
            if config.verify_ir { "true" } else { "false" },
        )
        .map_err(|e| codegen(&e))?;
    flags
        .set("use_colocated_libcalls", "false")
        .map_err(|e| codegen(&e))?;
    flags.set("is_pic", "false").map_err(|e| codegen(&e))?;
    let isa = cranelift_native::builder()
        .map_err(|e| NativeError::new(NativeErrorKind::UnsupportedTarget, e))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| codegen(&e))?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        default_libcall_names(),
    )))
}

/// Runs bytecode function `func` natively for one agent. The caller checked the state size.
/// (Same parameters as the vm's `exec::run`, so the engines are interchangeable.)
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<H: Host + ?Sized>(
    code: &NativeCode,
    program: &Program,
    scratch: &mut Scratch,
    func: u32,
    state: &mut [u8],
    agent: AgentId,
    host: &mut H,
    now: Millis,
) -> Status {
    let mut status = [Status::Failure];
    run_many(
        code,
        program,
        scratch,
        func,
        state,
        std::slice::from_ref(&agent),
        &mut status,
        host,
        now,
        BeforeTick::Skip,
    );
    status[0]
}

/// Whether [`run_many`] tells the host before each agent ([`Host::before_tick`]): for the
/// ticks of a batch, not for one agent's entry or event (whose caller does it when it is a
/// tick).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BeforeTick {
    /// Call `Host::before_tick` before each agent.
    Call,
    /// Do not.
    Skip,
}

/// Runs bytecode function `func` natively for the agents `ids` whose state blocks are `states`
/// (one block and one id per entry of `statuses`, contiguous), writing each agent's status.
/// The context block is built once for the whole run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_many<H: Host + ?Sized>(
    code: &NativeCode,
    program: &Program,
    scratch: &mut Scratch,
    func: u32,
    states: &mut [u8],
    ids: &[AgentId],
    statuses: &mut [Status],
    host: &mut H,
    now: Millis,
    before: BeforeTick,
) {
    let size = program.state_size();
    let (Some(&entry), Some(f)) = (
        code.entries.get(func as usize),
        program.functions().get(func as usize),
    ) else {
        statuses.fill(Status::Failure);
        return;
    };
    let (temps, regs, life) = scratch.native_parts();
    let dec_regs = regs.regs_ptr(program.layout().group_count);
    if code.check(program).is_err()
        || dec_regs.is_none()
        || states.len() != size * statuses.len()
        || ids.len() != statuses.len()
        || temps.len() < program.temps() as usize
    {
        statuses.fill(Status::Failure);
        return;
    }
    let mut host_ref: &mut H = host;
    let mut ctx = Ctx {
        action: abi::action::<H>,
        act: abi::act::<H>,
        function: abi::function::<H>,
        function_f64: abi::function_f64::<H>,
        random: abi::random,
        zero: abi::zero,
        list_success: abi::list_success,
        list_running: abi::list_running,
        available: abi::available::<H>,
        decider: abi::decider,
        lifecycle: abi::lifecycle,
        lc_host: abi::lc_host::<H>,
        temps: temps.as_mut_ptr(),
        host: (&mut host_ref as *mut &mut H).cast(),
        strings: program.strings(),
        layout: program.layout(),
        program,
        dec_regs: dec_regs.unwrap_or(std::ptr::null_mut()),
        regs,
        life,
        now,
        time: crate::ids::in_units(now, program.clock()),
        agent: ids.first().map_or(0, |a| a.0),
        steps: 0,
        single_precision: program.single_precision(),
        panic: None,
    };
    let base = states.as_mut_ptr();
    for (i, (status, agent)) in statuses.iter_mut().zip(ids).enumerate() {
        ctx.agent = agent.0;
        ctx.steps = 0;
        if let BeforeTick::Call = before {
            host_ref.before_tick(AgentId(ctx.agent));
            // Taken again after the host was used directly.
            ctx.host = (&mut host_ref as *mut &mut H).cast();
        }
        // In bounds: `states` holds `size` bytes per status (checked above). With a zero-byte
        // state the pointer is never dereferenced (no offset passes the translator's checks).
        let state = base.wrapping_add(i * size);
        // SAFETY: `entry` was compiled from `program` (checked above), which is verified; the
        // state block at `state` has the program's size; `temps` holds `program.temps()`
        // counters; `ctx` points at live data for the whole call, and host panics are caught by
        // the trampolines.
        let r = unsafe { entry(&mut ctx, state, f.start) };
        if let Some(payload) = ctx.panic.take() {
            std::panic::resume_unwind(payload);
        }
        debug_assert!(r & STATUS_FLAG != 0, "a native function returned a label");
        *status = abi::status(r);
    }
}
