//! `btvm bench --suite`: the suite of real trees (issue 28) — every example of
//! `spec/examples/`, the shared corpus's `default.bt` when it is found, and a large generated
//! tree per execution model (`btvm_benches::suite`) — each timed on every engine against the
//! synthetic host with `btvm bench`'s machinery (`measure::run_bench`, [`Timed`]).
//!
//! Every engine of a tree runs the same agents and ticks; with `--runs N` the runs are
//! interleaved (round k times every engine once) so drift on the machine falls on all of
//! them alike. A tree whose engines' checksums differ makes the command fail (exit 1) after
//! the table. This module chooses what to time and in which order; `suite/report.rs` prints.
//! It never reads a file other than the corpus's `default.bt` (and the behaviors it includes).

mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use btvm::AgentId;
use btvm_benches::measure::{native_too_large, run_bench, BenchConfig, BenchEngine, HostKind};
use btvm_benches::suite::{self, SuiteTree};
use btvm_compiler::diag::Diagnostic;
use btvm_compiler::reference::Interpreter;
use btvm_compiler::source::SourceMap;

use crate::output::Output;
use crate::render::Renderer;
use crate::timed::{self, Timed};
use crate::EngineArg;

/// Ticks per run when `--ticks` is not given.
pub const DEFAULT_TICKS: u32 = 20;
/// Thread counts when `--threads` is not given: the 1- vs 2-thread scaling the issue asks.
pub const DEFAULT_THREADS: [usize; 2] = [1, 2];

/// What `btvm bench --suite` was asked for (the `bench` options that apply to it).
pub struct SuiteOpts<'a> {
    /// Agents per run.
    pub agents: u32,
    /// Ticks per run.
    pub ticks: u32,
    /// Interleaved runs of every engine.
    pub runs: u32,
    /// Thread counts for the vm and native code (the reference runs on one).
    pub threads: &'a [usize],
    /// The engines.
    pub engines: &'a [EngineArg],
    /// JSON instead of a table.
    pub json: bool,
    /// Also draw a bar chart into this file.
    pub svg: Option<&'a Path>,
}

/// One tree of the suite, timed.
pub struct TreeRun {
    /// The tree's name (`squad_soldier.xml`, `generated-cursor`, ...).
    pub name: String,
    /// Its execution model.
    pub model: &'static str,
    /// Its IR node count.
    pub nodes: usize,
    /// One row per engine and thread count, in plan order.
    pub rows: Vec<Timed>,
    /// Whether every run of every row gave the same checksum.
    pub agreed: bool,
    /// Engines asked for and not timed on this tree, each with the reason.
    pub not_timed: Vec<String>,
}

/// Runs the suite and prints it.
pub fn run(opts: &SuiteOpts<'_>, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    let trees = match load_trees(out) {
        Ok(trees) => trees,
        Err(code) => return code,
    };
    let cfg = BenchConfig {
        agents: opts.agents,
        ticks: opts.ticks,
        ..BenchConfig::default()
    };
    let plans: Vec<_> = trees.iter().map(|t| plan(opts, t)).collect();
    let total: usize = plans.iter().map(|(p, _)| p.len()).sum::<usize>() * opts.runs as usize;
    let bar = timed::progress(total);
    let mut results = Vec::with_capacity(trees.len());
    for (tree, (plan, not_timed)) in trees.iter().zip(plans) {
        match time_tree(tree, &plan, &cfg, opts.runs, &bar) {
            Ok((rows, agreed)) => results.push(TreeRun {
                name: tree.name.clone(),
                model: tree.model(),
                nodes: tree.tree.nodes.len(),
                agreed,
                rows,
                not_timed,
            }),
            Err(d) => {
                bar.finish_and_clear();
                out.error(&format!("{}: {}", tree.name, d.message));
                return ExitCode::FAILURE;
            }
        }
    }
    bar.finish_and_clear();
    finish(opts, &cfg, &results, stdout, out)
}

/// Prints the results (table or JSON, and the chart), then fails if a tree's engines disagree.
fn finish(
    opts: &SuiteOpts<'_>,
    cfg: &BenchConfig,
    results: &[TreeRun],
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    if opts.json {
        report::print_json(opts, cfg, results, stdout);
    } else {
        report::print_table(opts, cfg, results, stdout);
    }
    if let Some(path) = opts.svg {
        if let Err(e) = report::write_chart(path, cfg, results) {
            out.error(&e);
            return ExitCode::FAILURE;
        }
    }
    let disagree: Vec<&str> = results
        .iter()
        .filter(|r| !r.agreed)
        .map(|r| r.name.as_str())
        .collect();
    if !disagree.is_empty() {
        out.error(&format!(
            "the engines disagree on {}: their checksums differ (run `btvm run` on each engine and compare the traces)",
            disagree.join(", ")
        ));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The examples, the corpus's `default.bt` (a note on standard error when it is not found)
/// and the generated trees, in that order.
fn load_trees(out: &mut Renderer) -> Result<Vec<SuiteTree>, ExitCode> {
    let mut sources = SourceMap::new();
    let mut fail = |sources: &SourceMap, d: Vec<Diagnostic>| {
        out.emit(sources, &d);
        ExitCode::FAILURE
    };
    let mut trees = suite::examples(&mut sources).map_err(|d| fail(&sources, d))?;
    let candidates = suite::corpus_candidates();
    match suite::corpus_default(&candidates, &mut sources) {
        Some(Ok(t)) => trees.push(t),
        Some(Err(d)) => return Err(fail(&sources, d)),
        None => note(&format!(
            "the shared corpus's default.bt is not in {}; the suite goes on without it",
            shown(&candidates)
        )),
    }
    let generated = suite::generated(suite::GENERATED_NODES, suite::SEED, &mut sources)
        .map_err(|d| fail(&sources, d))?;
    trees.extend(generated);
    Ok(trees)
}

/// The candidate paths, for a note.
fn shown(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| format!("`{}`", p.display())).collect();
    shown.join(" or ")
}

/// A note on standard error (not a diagnostic: nothing is wrong with the input).
fn note(message: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "note: {message}");
}

/// What to time on `tree`: each engine asked for, the vm and native code on every thread
/// count. Left out, with the reason (also on standard error): native code when the program
/// is too large for it, the reference when its states would not fit in memory.
fn plan(opts: &SuiteOpts<'_>, tree: &SuiteTree) -> (Vec<(BenchEngine, usize)>, Vec<String>) {
    let mut plan = Vec::new();
    let mut not_timed = Vec::new();
    for engine in opts.engines {
        let why = match engine {
            EngineArg::Reference => reference_too_large(tree, opts.agents)
                .map(|why| format!("the reference is not timed: {why}")),
            EngineArg::Vm => None,
            EngineArg::Native => native_too_large(&tree.tree)
                .ok()
                .flatten()
                .map(|why| format!("native code is not timed: {why}")),
        };
        if let Some(why) = why {
            note(&format!("{}: {why}", tree.name));
            not_timed.push(why);
            continue;
        }
        match engine {
            EngineArg::Reference => plan.push((BenchEngine::Reference, 1)),
            EngineArg::Vm => plan.extend(opts.threads.iter().map(|&t| (BenchEngine::Vm, t))),
            EngineArg::Native => {
                plan.extend(opts.threads.iter().map(|&t| (BenchEngine::Native, t)))
            }
        }
    }
    (plan, not_timed)
}

/// Why the reference cannot run `agents` agents of `tree`: their states would take more than
/// half the memory available (Linux's `MemAvailable`; never refused where it cannot be read).
/// The reference keeps per-node data for every agent, kilobytes on a large tree, where the vm
/// and native code keep bytes.
fn reference_too_large(tree: &SuiteTree, agents: u32) -> Option<String> {
    let interp = Interpreter::new(&tree.tree).ok()?;
    let per_agent = interp.new_agent(AgentId(0)).footprint() as u64;
    let need = per_agent.saturating_mul(u64::from(agents));
    let available = available_memory()?;
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    (need > available / 2).then(|| {
        format!(
            "{agents} agents x {per_agent} bytes of state need {:.1} GiB, more than half the {:.1} GiB available",
            gib(need),
            gib(available)
        )
    })
}

/// The memory available for new allocations (`MemAvailable` in `/proc/meminfo`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Times every entry of `plan` `runs` times, interleaved: round k runs every entry once.
/// Returns a row per entry and whether every run of every entry gave the same checksum.
fn time_tree(
    tree: &SuiteTree,
    plan: &[(BenchEngine, usize)],
    cfg: &BenchConfig,
    runs: u32,
    bar: &indicatif::ProgressBar,
) -> Result<(Vec<Timed>, bool), Diagnostic> {
    let mut each: Vec<Vec<_>> = vec![Vec::new(); plan.len()];
    for k in 0..runs {
        for (i, &(engine, t)) in plan.iter().enumerate() {
            bar.set_message(format!(
                "{} {} x{t}, run {}/{runs}",
                tree.name,
                engine.name(),
                k + 1
            ));
            each[i].push(run_bench(&tree.tree, engine, t, HostKind::Synthetic, cfg)?);
            bar.inc(1);
        }
    }
    let first = each.iter().flatten().next().map(|r| r.checksum);
    let agreed = each.iter().flatten().all(|r| Some(r.checksum) == first);
    Ok((each.into_iter().filter_map(Timed::of).collect(), agreed))
}
