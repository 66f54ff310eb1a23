//! `btvm bench PROGRAM.btvm`: a compiled program timed on the vm and native code, with the
//! inputs its tree would get and the host bound by its import names, as `btvm bench` times a
//! tree. The reference interprets trees, so it has no row (a note says so) and the speedup
//! column is empty; `--compile-stats` needs the tree.
//!
//! A child of `bench` (it reuses its options, table and JSON); it never loads a tree.

use std::process::ExitCode;

use btvm_benches::measure::{native_too_large_program, run_program_bench, BenchEngine, HostKind};

use super::{print_json, print_rows, threads_or_default, BenchArgs, HostArg};
use crate::output::Output;
use crate::render::Renderer;
use crate::timed::{self, Timed};
use crate::EngineArg;

/// Times `program` (read from `name`) as [`super::bench`] times a tree.
pub(super) fn bench(
    args: &BenchArgs,
    (program, name): (&btvm::Program, &str),
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    use std::io::Write as _;
    if args.compile_stats {
        out.error("`--compile-stats` compiles the tree; give its source, not a program file");
        return ExitCode::from(2);
    }
    let threads = threads_or_default(&args.threads);
    if threads.contains(&0) {
        out.error("--threads takes counts of 1 or more");
        return ExitCode::from(2);
    }
    let cfg = btvm_benches::measure::BenchConfig {
        agents: args.agents,
        ticks: args.ticks(),
        awake_percent: args.awake.unwrap_or(100),
        ..Default::default()
    };
    let fits = HostKind::for_imports(program.imports());
    let host = match args.host {
        None => fits,
        Some(HostArg::Synthetic) => HostKind::Synthetic,
        Some(HostArg::World) if fits == HostKind::World => HostKind::World,
        Some(HostArg::World) => {
            out.error("the simulated world does not know every name this program calls; use `--host synthetic`");
            return ExitCode::from(2);
        }
    };
    let mut plan = Vec::new();
    for engine in &args.engines {
        match engine {
            EngineArg::Reference => {
                let _ = writeln!(
                    std::io::stderr(),
                    "note: the reference is not timed: it interprets trees, and `{name}` is a compiled program"
                );
            }
            EngineArg::Vm => plan.extend(threads.iter().map(|&t| (BenchEngine::Vm, t))),
            EngineArg::Native => match native_too_large_program(program) {
                Some(why) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "note: native code is not timed: {why}; it would run on the vm"
                    );
                }
                None => plan.extend(threads.iter().map(|&t| (BenchEngine::Native, t))),
            },
        }
    }
    let rows = match time(program, &plan, host, &cfg, args.runs as usize) {
        Ok(rows) => rows,
        Err(e) => {
            out.error(&e);
            return ExitCode::FAILURE;
        }
    };
    let agreed = timed::agreement(&rows, args.runs as usize);
    if args.json {
        print_json(name, &cfg, host, &rows, &[], stdout);
    } else {
        let model = match btvm_compiler::scenario::Outline::of_program(program) {
            Ok(o) => o.model,
            Err(d) => {
                out.error(&d.message);
                return ExitCode::FAILURE;
            }
        };
        let nodes = program.nodes().nodes.len();
        print_rows(name, (nodes, model), &cfg, host, &rows, stdout);
        writeln!(
            stdout,
            "(a program file: no reference row, so no speedup; time its source for one)"
        );
        if let Some(line) = &agreed {
            writeln!(stdout, "{line}");
        }
    }
    if agreed.is_none() && !rows.is_empty() {
        out.error("the engines disagree: their checksums differ (run `btvm run` on each engine and compare the traces)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Each `(engine, threads)` of `plan`, `runs` times (a progress bar on a terminal).
fn time(
    program: &btvm::Program,
    plan: &[(BenchEngine, usize)],
    host: HostKind,
    cfg: &btvm_benches::measure::BenchConfig,
    runs: usize,
) -> Result<Vec<Timed>, String> {
    let bar = timed::progress(plan.len() * runs);
    let mut rows = Vec::with_capacity(plan.len());
    for &(engine, t) in plan {
        let mut each = Vec::with_capacity(runs);
        for k in 0..runs {
            bar.set_message(format!("{} x{t}, run {}/{runs}", engine.name(), k + 1));
            let r = run_program_bench(program, engine, t, host, cfg);
            each.push(r.map_err(|d| {
                bar.finish_and_clear();
                d.message
            })?);
            bar.inc(1);
        }
        if each.windows(2).any(|w| w[0].checksum != w[1].checksum) {
            bar.finish_and_clear();
            return Err(format!(
                "the runs of {} on {t} threads disagree: their checksums differ",
                engine.name()
            ));
        }
        rows.extend(Timed::of(each));
    }
    bar.finish_and_clear();
    Ok(rows)
}
