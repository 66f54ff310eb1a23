//! The compile pipeline behind [`NativeCode::compile`](super::NativeCode::compile): plan and
//! declare every native function, translate and compile each one (on several threads when
//! [`NativeConfig::threads`] allows and the program has several functions), then hand the
//! machine code to the JIT module in one fixed order.
//!
//! Only the translation and Cranelift's `Context::compile` run on worker threads; whatever
//! touches the module (declaring, defining, linking) stays on the caller's thread, and the
//! functions are defined in the same order whatever the number of threads, so the code and its
//! listing do not depend on it. This module must never run the code it builds.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, ExtFuncData, ExternalName, FuncRef, Function, InstBuilder,
    Signature, UserExternalName, UserFuncName,
};
use cranelift_codegen::isa::{TargetFrontendConfig, TargetIsa};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module, ModuleReloc};

use super::{plan, translate, NativeConfig, NativeError, NativeErrorKind, NativeStats};
use crate::program::{Instr, ProgramModel, Rule};
use crate::Program;

/// One bytecode function, planned and declared.
struct Planned {
    plan: plan::Plan,
    /// Its chunks as `(start, end)` instruction ranges.
    chunks: Vec<(u32, u32)>,
    /// The labels each chunk may be entered at.
    entries: Vec<BTreeSet<u32>>,
    /// The native function of each chunk.
    ids: Vec<FuncId>,
    /// The native function the bytecode function is entered through (its driver when it has
    /// several chunks, else its one chunk).
    entry: FuncId,
}

/// One native function to compile: chunk `k` of bytecode function `f`, or its driver.
#[derive(Clone, Copy)]
struct Job {
    f: usize,
    chunk: Option<usize>,
    id: FuncId,
}

/// One compiled native function, ready to be defined in the module.
struct Compiled {
    id: FuncId,
    alignment: u64,
    bytes: Vec<u8>,
    relocs: Vec<ModuleReloc>,
    listing: Option<String>,
}

/// What every worker reads.
struct Shared<'a> {
    isa: &'a dyn TargetIsa,
    env: translate::Env<'a>,
    planned: &'a [Planned],
    jobs: &'a [Job],
    sig: &'a Signature,
    disassemble: bool,
    /// Whether split functions may continue in an earlier chunk (their drivers loop).
    looping: bool,
}

fn codegen(e: impl std::fmt::Display) -> NativeError {
    NativeError::new(NativeErrorKind::Codegen, e.to_string())
}

/// Declares, compiles and defines every native function; returns the entry of each bytecode
/// function.
pub(super) fn define_all(
    module: &mut JITModule,
    program: &Program,
    config: &NativeConfig,
    stats: &mut NativeStats,
    disassembly: &mut Option<String>,
) -> Result<Vec<FuncId>, NativeError> {
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr)]);
    sig.params.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I32));

    let planned = declare_all(module, program, config, &sig)?;
    let callees: Vec<FuncId> = planned.iter().map(|p| p.entry).collect();
    let jobs: Vec<Job> = jobs(&planned);
    let compiled = {
        let shared = Shared {
            isa: module.isa(),
            env: translate::Env {
                program,
                callees: &callees,
                ptr,
                frontend: module.target_config(),
                inline_bookkeeping: program.code().len() <= config.inline_below as usize,
            },
            planned: &planned,
            jobs: &jobs,
            sig: &sig,
            disassemble: disassembly.is_some(),
            // Backward control flow (the cursor model's moves, the decider model's redecides,
            // the selection model's reselections) may continue in an earlier chunk.
            looping: !program.rules().is_empty()
                || matches!(
                    program.model(),
                    ProgramModel::Decider { .. } | ProgramModel::Selection { .. }
                ),
        };
        compile_jobs(&shared, config.thread_count())?
    };
    for c in compiled {
        module
            .define_function_bytes(c.id, c.alignment, &c.bytes, &c.relocs)
            .map_err(|e| NativeError::new(NativeErrorKind::Codegen, format!("{e:?}")))?;
        if let (Some(out), Some(text)) = (disassembly.as_mut(), c.listing.as_deref()) {
            let name = module
                .declarations()
                .get_function_decl(c.id)
                .linkage_name(c.id);
            append_listing(out, &name, text);
        }
        stats.functions += 1;
        stats.code_bytes += c.bytes.len();
    }
    Ok(callees)
}

/// Plans every bytecode function and declares its native functions (calls may go to any).
fn declare_all(
    module: &mut JITModule,
    program: &Program,
    config: &NativeConfig,
    sig: &Signature,
) -> Result<Vec<Planned>, NativeError> {
    let code = program.code();
    let mut planned = Vec::with_capacity(program.functions().len());
    for (f, func) in program.functions().iter().enumerate() {
        let plan = plan::plan(code, program.rules(), func, config.max_chunk);
        let chunks: Vec<(u32, u32)> = plan.chunks().collect();
        let entries = chunk_entries(code, program.rules(), &plan, func.start, &chunks);
        let mut ids = Vec::with_capacity(chunks.len());
        for k in 0..chunks.len() {
            let id = module
                .declare_function(&format!("f{f}.{k}"), Linkage::Local, sig)
                .map_err(codegen)?;
            ids.push(id);
        }
        let entry = match ids[..] {
            [only] => only,
            _ => module
                .declare_function(&format!("f{f}"), Linkage::Local, sig)
                .map_err(codegen)?,
        };
        planned.push(Planned {
            plan,
            chunks,
            entries,
            ids,
            entry,
        });
    }
    Ok(planned)
}

/// Every native function to compile, in the order they are defined: each bytecode function's
/// chunks, then its driver if it has several.
fn jobs(planned: &[Planned]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (f, p) in planned.iter().enumerate() {
        for (k, &id) in p.ids.iter().enumerate() {
            jobs.push(Job {
                f,
                chunk: Some(k),
                id,
            });
        }
        if p.ids.len() > 1 {
            jobs.push(Job {
                f,
                chunk: None,
                id: p.entry,
            });
        }
    }
    jobs
}

/// Compiles every job on up to `threads` threads (the caller's included); the results come
/// back in job order. The first failure (in job order) is the error.
fn compile_jobs(shared: &Shared<'_>, threads: usize) -> Result<Vec<Compiled>, NativeError> {
    let next = AtomicUsize::new(0);
    let helpers = threads.min(shared.jobs.len()).saturating_sub(1);
    let mut done: Vec<(usize, Result<Compiled, NativeError>)> = Vec::new();
    std::thread::scope(|scope| {
        let spawned: Vec<_> = (0..helpers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("btvm-native".into())
                    .spawn_scoped(scope, || worker(shared, &next))
                    .ok()
            })
            .collect();
        // The caller's thread works too; a helper that could not start leaves its share here.
        done.extend(worker(shared, &next));
        for handle in spawned {
            match handle.join() {
                Ok(part) => done.extend(part),
                Err(_) => done.push((0, Err(codegen("a compiling thread panicked")))),
            }
        }
    });
    done.sort_by_key(|(i, r)| (*i, r.is_ok()));
    let mut out = Vec::with_capacity(shared.jobs.len());
    for (_, r) in done {
        out.push(r?);
    }
    if out.len() != shared.jobs.len() {
        return Err(codegen("a native function was not compiled"));
    }
    Ok(out)
}

/// Takes jobs until none is left (or one fails), reusing one context for all of them.
fn worker(shared: &Shared<'_>, next: &AtomicUsize) -> Vec<(usize, Result<Compiled, NativeError>)> {
    let mut ctx = Context::new();
    let mut fctx = FunctionBuilderContext::new();
    let mut out = Vec::new();
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(&job) = shared.jobs.get(i) else {
            break;
        };
        let r = compile_one(shared, job, &mut ctx, &mut fctx);
        ctx.clear();
        let failed = r.is_err();
        out.push((i, r));
        if failed {
            // No point compiling the rest: the compilation as a whole has failed.
            next.store(shared.jobs.len(), Ordering::Relaxed);
            break;
        }
    }
    out
}

/// Builds and compiles one native function in `ctx`.
fn compile_one(
    shared: &Shared<'_>,
    job: Job,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
) -> Result<Compiled, NativeError> {
    let p = &shared.planned[job.f];
    ctx.func.signature = shared.sig.clone();
    ctx.func.name = UserFuncName::user(0, job.id.as_u32());
    match job.chunk {
        Some(k) => {
            let program = shared.env.program;
            let start = program.functions()[job.f].start;
            let b = FunctionBuilder::new(&mut ctx.func, fctx);
            let mut declare =
                |id: FuncId, b: &mut FunctionBuilder<'_>| import(b.func, id, shared.sig);
            translate::chunk(
                b,
                &shared.env,
                &p.plan,
                start,
                p.chunks[k],
                &p.entries[k],
                &mut declare,
            )
            .map_err(|m| {
                NativeError::new(
                    NativeErrorKind::Program,
                    format!("function `{}`: {m}", program.functions()[job.f].name),
                )
            })?;
        }
        None => driver(
            FunctionBuilder::new(&mut ctx.func, fctx),
            shared.env.frontend,
            shared.sig,
            &p.ids,
            &p.chunks,
            shared.looping,
        ),
    }
    ctx.set_disasm(shared.disassemble);
    let alignment = ctx
        .compile(shared.isa, &mut ControlPlane::default())
        .map_err(|e| NativeError::new(NativeErrorKind::Codegen, format!("{:?}", e.inner)))?
        .buffer
        .alignment;
    let code = ctx
        .compiled_code()
        .ok_or_else(|| codegen("Cranelift returned no code"))?;
    let relocs = code
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, job.id))
        .collect();
    Ok(Compiled {
        id: job.id,
        alignment: u64::from(alignment),
        bytes: code.code_buffer().to_vec(),
        relocs,
        listing: shared
            .disassemble
            .then(|| code.vcode.clone().unwrap_or_default()),
    })
}

/// Makes native function `id` callable from `func` (what `Module::declare_func_in_func` does
/// for a function of this module, without the module, so it can run on any thread): every
/// native function has the signature `sig` and is local, so it is colocated.
fn import(func: &mut Function, id: FuncId, sig: &Signature) -> FuncRef {
    let signature = func.import_signature(sig.clone());
    let name = func.declare_imported_user_function(UserExternalName {
        namespace: 0,
        index: id.as_u32(),
    });
    func.import_function(ExtFuncData {
        name: ExternalName::user(name),
        signature,
        colocated: Linkage::Local.is_final(),
        patchable: false,
    })
}

/// Appends one function's listing to `out`: a header line naming it, then its text (ending in a
/// newline), separated from the function before by a blank line.
fn append_listing(out: &mut String, name: &str, text: &str) {
    use std::fmt::Write as _;
    if !out.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, "; native function {name}");
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
}

/// For each chunk, the labels it may be entered at: its start for the first chunk, and every
/// label of it that an earlier chunk jumps or falls through to.
fn chunk_entries(
    code: &[Instr],
    rules: &[Rule],
    plan: &plan::Plan,
    start: u32,
    chunks: &[(u32, u32)],
) -> Vec<BTreeSet<u32>> {
    let owner = |pc: u32| chunks.iter().position(|&(s, e)| (s..e).contains(&pc));
    let mut entries = vec![BTreeSet::new(); chunks.len()];
    if let Some(first) = entries.first_mut() {
        first.insert(start);
    }
    for (k, &(s, e)) in chunks.iter().enumerate() {
        for pc in s..e {
            if plan.depth_at(start, pc).is_none() {
                continue;
            }
            let ins = &code[pc as usize];
            let mut note = |t: u32| {
                if let Some(j) = owner(t).filter(|&j| j != k) {
                    entries[j].insert(t);
                }
            };
            plan::targets(ins, rules, &mut note);
            if ins.falls_through() {
                note(pc + 1);
            }
        }
    }
    entries
}

/// A driver calls a split function's chunks in order: each returns a status (done) or the
/// label to continue at, which (jumps going forward) belongs to a later chunk. With `looping`
/// (the cursor model, whose `cursor.move` may go back to an earlier rule) the driver starts
/// over after each chunk and calls the chunk that owns the label, until a status comes back.
fn driver(
    mut b: FunctionBuilder<'_>,
    frontend: TargetFrontendConfig,
    sig: &Signature,
    ids: &[FuncId],
    chunks: &[(u32, u32)],
    looping: bool,
) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let (cx, state) = (b.block_params(entry)[0], b.block_params(entry)[1]);
    let r = b.declare_var(types::I32);
    let first = b.ins().iconst(types::I32, i64::from(chunks[0].0));
    let f0 = import(b.func, ids[0], sig);
    let call = b.ins().call(f0, &[cx, state, first]);
    let v = b.inst_results(call)[0];
    b.def_var(r, v);
    let head = b.create_block();
    b.ins().jump(head, &[]);
    b.switch_to_block(head);
    let skip = usize::from(!looping);
    for (k, &(_, end)) in chunks.iter().enumerate().skip(skip) {
        let run = b.create_block();
        let next = b.create_block();
        let cur = b.use_var(r);
        // Labels are below `STATUS_FLAG`, so a status never selects a chunk.
        let here = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, cur, i64::from(end));
        b.ins().brif(here, run, &[], next, &[]);
        b.switch_to_block(run);
        let fk = import(b.func, ids[k], sig);
        let call = b.ins().call(fk, &[cx, state, cur]);
        let v = b.inst_results(call)[0];
        b.def_var(r, v);
        b.ins().jump(if looping { head } else { next }, &[]);
        b.switch_to_block(next);
    }
    let out = b.use_var(r);
    b.ins().return_(&[out]);
    b.seal_all_blocks();
    b.finalize(frontend);
}
