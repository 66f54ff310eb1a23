//! `btvm bench`: times the engines on the embedded demo or a tree and prints a table or JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use btvm_benches::measure::{
    compile_stats, generated_compile_stats, run_bench, BenchConfig, BenchEngine, BenchRow,
    CompileRow, HostKind,
};
use btvm_benches::{load_demo, DEMO_NAME};
use btvm_compiler::ir::Tree;
use btvm_compiler::source::SourceMap;

#[path = "bench_program.rs"]
mod program;

use crate::output::Output;
use crate::render::Renderer;
use crate::timed::{self, Timed};
use crate::{load_tree, EngineArg, InputArgs};

/// Options of `btvm bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The tree to time, or a program file written by `btvm compile` (the vm and native code
    /// only); without it, the embedded demo (a 78-node Unvanquished soldier bot ticking
    /// against a simulated world).
    file: Option<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Number of agents (1 to 1,000,000).
    #[arg(long, default_value_t = 100_000, value_parser = parse_agents)]
    agents: u32,
    /// Ticks per agent (100 ms apart; 1 to 1,000,000) [default: 50; with --suite 20].
    #[arg(long, value_parser = parse_ticks)]
    ticks: Option<u32>,
    /// The engines to time, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "reference,vm,native"
    )]
    engines: Vec<EngineArg>,
    /// Thread counts to time the vm and native code with, comma-separated (the reference runs on
    /// one); by default 1 and the number of cores (each 1 to 1,024).
    #[arg(long, value_delimiter = ',', value_parser = parse_threads)]
    threads: Vec<usize>,
    /// The percentage of agents awake (1 to 100, default 100): the others sleep through the
    /// whole run (`Batch::sleep_until`), to time what sleeping agents cost. Given, the table
    /// also shows the time spent inside `Batch::tick` alone (one thread).
    #[arg(long, value_parser = parse_awake)]
    awake: Option<u32>,
    /// Time each engine and thread count this many times (1 to 100): the table shows the
    /// median and the spread (min–max). The fight-or-flight workload times each once; the
    /// suite interleaves the runs (round k times every engine once).
    #[arg(long, default_value_t = 3, value_parser = parse_runs)]
    runs: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also draw the results as a bar chart into FILE (SVG): ns/agent-tick per engine and
    /// thread count, with each row's spread; a log scale when the figures span more than 20x.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// The host the tree calls: `world` (the simulated game; the default when it knows every
    /// name the tree calls) or `synthetic` (stateless hashed answers, much cheaper per call,
    /// so the engines' own costs dominate).
    #[arg(long, value_enum)]
    host: Option<HostArg>,
    /// Leave out the hand-written Rust baselines: the embedded demo's bot (timed only without
    /// FILE), and for fight-or-flight the tree written by hand, reading the agents directly and
    /// calling its leaves through `Host`.
    #[arg(long)]
    no_baseline: bool,
    /// Also report compile times: lowering to bytecode and compiling to native code, for the
    /// tree and for generated trees of 1,000 and 10,000 nodes (parsing included).
    #[arg(long)]
    compile_stats: bool,
    /// The workload: the embedded demo (or FILE), or `fight-or-flight`, the workload shared with
    /// other libraries (../shared/bench/fight-or-flight.md), timed against its hand-written
    /// baseline (and that tree calling its leaves through `Host`, the floor of any engine) with
    /// checksums compared.
    #[arg(long, value_enum, default_value_t = Workload::Demo)]
    workload: Workload,
    /// With `--workload fight-or-flight`: also time the vm and native code at 10^4, 10^5 and
    /// 10^6 agents on every `--threads` count (scaling with threads and with agents).
    #[arg(long)]
    scaling: bool,
    /// Time the suite of real trees instead (issue 28): every example of spec/examples/, the
    /// shared corpus's default.bt when found, and a generated tree of about 1,000 nodes per
    /// execution model, each on every engine (vm and native code on 1 and 2 threads unless
    /// `--threads`) against the synthetic host; fails if an engine's checksum differs.
    #[arg(long, conflicts_with_all = ["file", "awake", "compile_stats", "workload", "scaling", "no_baseline"])]
    suite: bool,
}

impl BenchArgs {
    /// `--ticks`, or the default (of `--suite` when given).
    fn ticks(&self) -> u32 {
        let default = if self.suite {
            crate::suite::DEFAULT_TICKS
        } else {
            50
        };
        self.ticks.unwrap_or(default)
    }
}

/// `--agents`: at least one agent (times per agent-tick need one), at most
/// `Limits::max_agents`.
fn parse_agents(s: &str) -> Result<u32, String> {
    let max = btvm::Limits::default().max_agents;
    crate::number_in(s, 1, max.into()).map(|n| n as u32)
}

/// `--ticks`: at least one, at most `Limits::max_ticks`.
fn parse_ticks(s: &str) -> Result<u32, String> {
    let max = btvm::Limits::default().max_ticks;
    crate::number_in(s, 1, max.into()).map(|n| n as u32)
}

/// `--awake`: a percentage, 1 to 100.
fn parse_awake(s: &str) -> Result<u32, String> {
    crate::number_in(s, 1, 100).map(|n| n as u32)
}

/// `--runs`: 1 to 100.
fn parse_runs(s: &str) -> Result<u32, String> {
    crate::number_in(s, 1, 100).map(|n| n as u32)
}

/// `--threads`: each count 1 to 1,024.
fn parse_threads(s: &str) -> Result<usize, String> {
    crate::number_in(s, 1, 1024).map(|n| n as usize)
}

/// `--workload`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// The embedded demo, or the tree given as FILE.
    Demo,
    /// The fight-or-flight agents.
    FightOrFlight,
}

/// `--host`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum HostArg {
    /// The simulated world.
    World,
    /// Hashed answers.
    Synthetic,
}

pub fn bench(args: &BenchArgs, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    if args.workload == Workload::FightOrFlight {
        return fight_or_flight(args, stdout, out);
    }
    if args.suite {
        return suite(args, stdout, out);
    }
    if let Some(path) = args
        .file
        .as_deref()
        .filter(|p| crate::loaded::is_program(p))
    {
        return match crate::loaded::read_program(path) {
            Ok(p) => program::bench(args, (&p, &path.display().to_string()), stdout, out),
            Err(e) => {
                out.error(&e);
                ExitCode::FAILURE
            }
        };
    }
    let (tree, name) = match load_bench_tree(args, out) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let threads = threads_or_default(&args.threads);
    if threads.contains(&0) {
        out.error("--threads takes counts of 1 or more");
        return ExitCode::from(2);
    }
    let cfg = BenchConfig {
        agents: args.agents,
        ticks: args.ticks(),
        awake_percent: args.awake.unwrap_or(100),
        ..BenchConfig::default()
    };
    let host = match bench_host(args, &tree, out) {
        Ok(host) => host,
        Err(code) => return code,
    };
    let rows = match time_engines(args, &tree, &threads, host, &cfg, out) {
        Ok(rows) => rows,
        Err(code) => return code,
    };
    let compiles = match time_compiles(args, &name, &tree, out) {
        Ok(compiles) => compiles,
        Err(code) => return code,
    };
    let agreed = timed::agreement(&rows, args.runs as usize);
    if args.json {
        print_json(&name, &cfg, host, &rows, &compiles, stdout);
    } else {
        print_table(&name, &tree, &cfg, host, &rows, stdout);
        if args.awake.is_some() {
            print_tick_alone(&rows, stdout);
        }
        if let Some(line) = &agreed {
            writeln!(stdout, "{line}");
        }
        if !compiles.is_empty() {
            print_compile_table(&compiles, stdout, out);
        }
    }
    if let Some(path) = &args.svg {
        if let Err(e) = write_chart(path, &name, &cfg, &rows) {
            out.error(&e);
            return ExitCode::FAILURE;
        }
    }
    if agreed.is_none() && !rows.is_empty() {
        out.error("the engines disagree: their checksums differ (run `btvm run` on each engine and compare the traces)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `--workload fight-or-flight`: hands over to [`crate::fight::bench`].
fn fight_or_flight(args: &BenchArgs, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    if args.file.is_some() {
        out.error("`--workload fight-or-flight` has its own tree; leave out FILE");
        return ExitCode::from(2);
    }
    let threads = threads_or_default(&args.threads);
    let opts = crate::fight::FightOpts {
        agents: args.agents,
        ticks: args.ticks(),
        engines: &args.engines,
        threads: &threads,
        baseline: !args.no_baseline,
        scaling: args.scaling,
        json: args.json,
    };
    crate::fight::bench(&opts, stdout, out)
}

/// `--suite`: hands over to [`crate::suite::run`] (the synthetic host only).
fn suite(args: &BenchArgs, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    if matches!(args.host, Some(HostArg::World)) {
        out.error("the suite runs every tree against the synthetic host; leave out `--host world`");
        return ExitCode::from(2);
    }
    let threads = if args.threads.is_empty() {
        crate::suite::DEFAULT_THREADS.to_vec()
    } else {
        args.threads.clone()
    };
    let opts = crate::suite::SuiteOpts {
        agents: args.agents,
        ticks: args.ticks(),
        runs: args.runs,
        threads: &threads,
        engines: &args.engines,
        json: args.json,
        svg: args.svg.as_deref(),
    };
    crate::suite::run(&opts, stdout, out)
}

/// The tree to time (FILE or the embedded demo) and its name.
fn load_bench_tree(args: &BenchArgs, out: &mut Renderer) -> Result<(Tree, String), ExitCode> {
    match &args.file {
        None => {
            let mut sources = SourceMap::new();
            match load_demo(&mut sources) {
                Ok(t) => Ok((t, DEMO_NAME.to_string())),
                Err(d) => {
                    out.emit(&sources, &d);
                    Err(ExitCode::FAILURE)
                }
            }
        }
        Some(path) => match load_tree(path, &args.input, out) {
            Some((t, _)) => Ok((t, path.display().to_string())),
            None => Err(ExitCode::FAILURE),
        },
    }
}

/// `--host`, or the world when it knows every name the tree calls.
fn bench_host(args: &BenchArgs, tree: &Tree, out: &mut Renderer) -> Result<HostKind, ExitCode> {
    match args.host {
        None => Ok(HostKind::for_tree(tree)),
        Some(HostArg::Synthetic) => Ok(HostKind::Synthetic),
        Some(HostArg::World) if HostKind::for_tree(tree) == HostKind::World => Ok(HostKind::World),
        Some(HostArg::World) => {
            out.error("the simulated world does not know every name this tree calls; use `--host synthetic`");
            Err(ExitCode::from(2))
        }
    }
}

/// Times every engine on every thread count, then the hand-written baseline when it applies,
/// each `--runs` times (a progress bar on a terminal's standard error).
fn time_engines(
    args: &BenchArgs,
    tree: &Tree,
    threads: &[usize],
    host: HostKind,
    cfg: &BenchConfig,
    out: &mut Renderer,
) -> Result<Vec<Timed>, ExitCode> {
    let mut plan: Vec<(BenchEngine, usize)> = Vec::new();
    for engine in &args.engines {
        let (engine, counts) = match engine {
            EngineArg::Reference => (BenchEngine::Reference, vec![1]),
            EngineArg::Vm => (BenchEngine::Vm, threads.to_vec()),
            EngineArg::Native => (BenchEngine::Native, threads.to_vec()),
        };
        if engine == BenchEngine::Native {
            if let Ok(Some(why)) = btvm_benches::measure::native_too_large(tree) {
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "note: native code is not timed: {why}; it would run on the vm"
                );
                continue;
            }
        }
        plan.extend(counts.into_iter().map(|t| (engine, t)));
    }
    if args.file.is_none() && !args.no_baseline && host == HostKind::World {
        plan.push((BenchEngine::HandWritten, 1));
    }
    let runs = args.runs as usize;
    let bar = timed::progress(plan.len() * runs);
    let mut rows = Vec::with_capacity(plan.len());
    for (engine, t) in plan {
        let mut each = Vec::with_capacity(runs);
        for k in 0..runs {
            bar.set_message(format!("{} x{t}, run {}/{runs}", engine.name(), k + 1));
            match run_bench(tree, engine, t, host, cfg) {
                Ok(r) => each.push(r),
                Err(d) => {
                    bar.finish_and_clear();
                    out.emit(&SourceMap::new(), &[d]);
                    return Err(ExitCode::FAILURE);
                }
            }
            bar.inc(1);
        }
        if each.windows(2).any(|w| w[0].checksum != w[1].checksum) {
            bar.finish_and_clear();
            out.error(&format!(
                "the runs of {} on {t} threads disagree: their checksums differ",
                engine.name()
            ));
            return Err(ExitCode::FAILURE);
        }
        rows.extend(Timed::of(each));
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// `--compile-stats`: the tree's compile times and the generated trees'.
fn time_compiles(
    args: &BenchArgs,
    name: &str,
    tree: &Tree,
    out: &mut Renderer,
) -> Result<Vec<CompileRow>, ExitCode> {
    let mut compiles = Vec::new();
    if args.compile_stats {
        let short = name.rsplit('/').next().unwrap_or(name).to_string();
        let runs = [
            compile_stats(&short, tree, 5),
            generated_compile_stats(1_000, 5),
            generated_compile_stats(10_000, 3),
        ];
        for r in runs {
            match r {
                Ok(r) => compiles.push(r),
                Err(d) => {
                    out.emit(&SourceMap::new(), &[d]);
                    return Err(ExitCode::FAILURE);
                }
            }
        }
    }
    Ok(compiles)
}

/// `--json`: one object with the runs and the compile times.
fn print_json(
    name: &str,
    cfg: &BenchConfig,
    host: HostKind,
    rows: &[Timed],
    compiles: &[CompileRow],
    stdout: &mut Output,
) {
    let results: Vec<String> = rows
        .iter()
        .map(|t| {
            let r = &t.row;
            let runs: Vec<String> = t.ns.iter().map(|ns| format!("{ns:.3}")).collect();
            format!(
                "{{\"engine\": \"{}\", \"threads\": {}, \"ns_per_agent_tick\": {:.3}, \"ns_min\": {:.3}, \"ns_max\": {:.3}, \"ns_runs\": [{}], \"agent_ticks_per_sec\": {:.0}, \"state_bytes_per_agent\": {}, \"checksum\": \"{:016x}\", \"tick_ns_per_agent_tick\": {}}}",
                r.engine.name(),
                r.threads,
                r.ns_per_agent_tick,
                t.min(),
                t.max(),
                runs.join(", "),
                r.agent_ticks_per_sec,
                r.state_bytes_per_agent,
                r.checksum,
                r.tick_ns_per_agent_tick
                    .map_or("null".to_string(), |ns| format!("{ns:.3}"))
            )
        })
        .collect();
    let compiles: Vec<String> = compiles.iter().map(compile_json).collect();
    writeln!(
        stdout,
        "{{\"tree\": \"{}\", \"agents\": {}, \"ticks\": {}, \"host\": \"{}\", \"machine\": \"{}\", \"results\": [{}], \"compile\": [{}]}}",
        json_escape(name),
        cfg.agents,
        cfg.ticks,
        host_name(host),
        json_escape(&timed::machine()),
        results.join(", "),
        compiles.join(", ")
    );
}

/// The table of runs, with speedups over the reference and the hand-written baseline.
fn print_table(
    name: &str,
    tree: &Tree,
    cfg: &BenchConfig,
    host: HostKind,
    rows: &[Timed],
    stdout: &mut Output,
) {
    let what = (tree.nodes.len(), tree.config.model);
    print_rows(name, what, cfg, host, rows, stdout);
}

/// [`print_table`] for `nodes` nodes of `model` (a tree's or a program's).
fn print_rows(
    name: &str,
    (nodes, model): (usize, btvm_compiler::ir::Model),
    cfg: &BenchConfig,
    host: HostKind,
    rows: &[Timed],
    stdout: &mut Output,
) {
    let baseline = rows
        .iter()
        .find(|t| t.row.engine == BenchEngine::HandWritten)
        .map(|t| t.row.ns_per_agent_tick);
    let reference = rows
        .iter()
        .find(|t| t.row.engine == BenchEngine::Reference)
        .map(|t| t.row.ns_per_agent_tick);
    writeln!(
        stdout,
        "{name}: {} nodes, {} agents x {} ticks, host: {}",
        nodes,
        cfg.agents,
        cfg.ticks,
        host_name(host)
    );
    let runs = rows.first().map_or(0, |t| t.ns.len());
    writeln!(
        stdout,
        "machine: {}; {runs} run{} each (ns/agent-tick: the median; min–max)",
        timed::machine(),
        if runs == 1 { "" } else { "s" }
    );
    if matches!(model, btvm_compiler::ir::Model::Cursor { .. }) {
        writeln!(
            stdout,
            "(an agent whose tree stops is reset after the tick, as a game restarts it)"
        );
    }
    if matches!(
        model,
        btvm_compiler::ir::Model::Lifecycle | btvm_compiler::ir::Model::Selection
    ) {
        writeln!(stdout, "(before each tick about an eighth of the agents get one of the tree's events, the same on every engine)");
    }
    writeln!(
        stdout,
        "{:<12} {:>7} {:>14} {:>15} {:>16} {:>14} {:>9} {:>8}",
        "engine",
        "threads",
        "ns/agent-tick",
        "min–max",
        "agent-ticks/s",
        "state B/agent",
        "speedup",
        "vs hand"
    );
    let ratio = |base: Option<f64>, r: &BenchRow, inverse: bool| {
        base.map_or("-".to_string(), |b| {
            let ns = r.ns_per_agent_tick.max(f64::MIN_POSITIVE);
            format!("{:.2}x", if inverse { ns / b } else { b / ns })
        })
    };
    for t in rows {
        let r = &t.row;
        writeln!(
            stdout,
            "{:<12} {:>7} {:>14.1} {:>15} {:>16.0} {:>14} {:>9} {:>8}",
            r.engine.name(),
            r.threads,
            r.ns_per_agent_tick,
            t.spread(),
            r.agent_ticks_per_sec,
            r.state_bytes_per_agent,
            ratio(reference, r, false),
            // The baseline runs on one thread; other rows are not comparable with it.
            ratio(baseline.filter(|_| r.threads == 1), r, true)
        );
    }
}

/// `--svg FILE`: the rows as a bar chart.
fn write_chart(
    path: &std::path::Path,
    name: &str,
    cfg: &BenchConfig,
    rows: &[Timed],
) -> Result<(), String> {
    let bars: Vec<crate::chart::Bar> = rows
        .iter()
        .map(|t| crate::chart::Bar {
            label: format!("{} x{}", t.row.engine.name(), t.row.threads),
            ns: t.row.ns_per_agent_tick,
            min: t.min(),
            max: t.max(),
        })
        .collect();
    let short = name.rsplit('/').next().unwrap_or(name);
    let title = format!("{short}: {} agents x {} ticks", cfg.agents, cfg.ticks);
    let svg = crate::chart::svg(&title, &bars)?;
    std::fs::write(path, svg).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// `--awake`: the time inside `Batch::tick` alone, per one-thread batch row (the engine's
/// share, without the harness's work between ticks).
fn print_tick_alone(rows: &[Timed], stdout: &mut Output) {
    let alone: Vec<String> = rows
        .iter()
        .map(|t| &t.row)
        .filter_map(|r| {
            let ns = r.tick_ns_per_agent_tick?;
            Some(format!("{} {ns:.1}", r.engine.name()))
        })
        .collect();
    if !alone.is_empty() {
        writeln!(
            stdout,
            "inside Batch::tick alone (one thread), ns/agent-tick: {}",
            alone.join(", ")
        );
    }
}

/// The table of compile times (after a blank line); warns of trees native code cannot compile.
fn print_compile_table(compiles: &[CompileRow], stdout: &mut Output, out: &mut Renderer) {
    writeln!(stdout);
    writeln!(
        stdout,
        "{:<16} {:>7} {:>8} {:>10} {:>12} {:>11} {:>9} {:>10}",
        "compile",
        "nodes",
        "instrs",
        "parse ms",
        "bytecode ms",
        "native ms",
        "functions",
        "code KiB"
    );
    for c in compiles {
        let ms = |d: std::time::Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
        let (native, funcs, kib) = match &c.native {
            Ok(s) => (
                ms(s.compile_time),
                s.functions.to_string(),
                format!("{:.1}", s.code_bytes as f64 / 1024.0),
            ),
            Err(_) => ("-".into(), "-".into(), "-".into()),
        };
        writeln!(
            stdout,
            "{:<16} {:>7} {:>8} {:>10} {:>12} {:>11} {:>9} {:>10}",
            c.label,
            c.nodes,
            c.instructions,
            c.load.map_or("-".to_string(), ms),
            ms(c.bytecode),
            native,
            funcs,
            kib
        );
        if let Err(e) = &c.native {
            out.warning(&format!("{}: {e}", c.label));
        }
    }
}

fn json_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn compile_json(c: &CompileRow) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let native = match &c.native {
        Ok(s) => format!(
            "{{\"ms\": {:.3}, \"functions\": {}, \"code_bytes\": {}}}",
            ms(s.compile_time),
            s.functions,
            s.code_bytes
        ),
        Err(e) => format!("{{\"error\": \"{}\"}}", json_escape(e)),
    };
    format!(
        "{{\"tree\": \"{}\", \"nodes\": {}, \"instructions\": {}, \"parse_ms\": {}, \"bytecode_ms\": {:.3}, \"native\": {native}}}",
        json_escape(&c.label),
        c.nodes,
        c.instructions,
        c.load.map_or("null".to_string(), |d| format!("{:.3}", ms(d))),
        ms(c.bytecode)
    )
}

/// `--threads`, or 1 and the number of cores.
fn threads_or_default(given: &[usize]) -> Vec<usize> {
    let mut threads = given.to_vec();
    if threads.is_empty() {
        threads.push(1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores > 1 {
            threads.push(cores);
        }
    }
    threads
}

fn host_name(h: HostKind) -> &'static str {
    match h {
        HostKind::World => "simulated world",
        HostKind::Synthetic => "synthetic (hashed answers)",
    }
}
