//! `btvm bench --suite`: the suite of real trees (issue 28) — every example of
//! `spec/examples/`, the shared corpus's `default.bt` when it is found, and a large generated
//! tree per execution model (`btvm_benches::suite`) — each timed on every engine against the
//! synthetic host with `btvm bench`'s machinery (`measure::run_bench`, [`Timed`]).
//!
//! Every engine of a tree runs the same agents and ticks; with `--runs N` the runs are
//! interleaved (round k times every engine once) so drift on the machine falls on all of
//! them alike. A tree whose engines' checksums differ makes the command fail (exit 1) after
//! the table. This module chooses what to time and in which order; `suite/report.rs` prints.
//! It never loads a file other than the corpus's `default.bt`.

mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use btvm_benches::measure::{native_too_large, run_bench, BenchConfig, BenchEngine, HostKind};
use btvm_benches::suite::{self, SuiteTree};
use btvm_compiler::diag::Diagnostic;
use btvm_compiler::source::SourceMap;

use crate::output::Output;
use crate::render::Renderer;
use crate::timed::{self, Timed};
use crate::EngineArg;

/// Ticks per run when `--ticks` is not given.
pub const DEFAULT_TICKS: u32 = 20;
/// Interleaved runs when `--runs` is not given.
pub const DEFAULT_RUNS: u32 = 1;
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
    /// Whether every row's checksum is the same.
    pub agreed: bool,
    /// Why native code was not timed, if it was asked for and refused.
    pub native_note: Option<String>,
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
    for (tree, (plan, native_note)) in trees.iter().zip(plans) {
        match time_tree(tree, &plan, &cfg, opts.runs, &bar) {
            Ok((rows, agreed)) => results.push(TreeRun {
                name: tree.name.clone(),
                model: tree.model(),
                nodes: tree.tree.nodes.len(),
                agreed,
                rows,
                native_note,
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
/// count; native code left out (with the reason) when the program is too large for it.
fn plan(opts: &SuiteOpts<'_>, tree: &SuiteTree) -> (Vec<(BenchEngine, usize)>, Option<String>) {
    let mut plan = Vec::new();
    let mut native_note = None;
    for engine in opts.engines {
        match engine {
            EngineArg::Reference => plan.push((BenchEngine::Reference, 1)),
            EngineArg::Vm => plan.extend(opts.threads.iter().map(|&t| (BenchEngine::Vm, t))),
            EngineArg::Native => match native_too_large(&tree.tree) {
                Ok(Some(why)) => {
                    note(&format!("{}: native code is not timed: {why}", tree.name));
                    native_note = Some(why);
                }
                _ => plan.extend(opts.threads.iter().map(|&t| (BenchEngine::Native, t))),
            },
        }
    }
    (plan, native_note)
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
