//! `btvm bench`: times the engines on the embedded demo or a tree and prints a table or JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use btvm_compiler::bench::measure::{run_bench, BenchConfig, BenchEngine, BenchRow, HostKind};
use btvm_compiler::bench::{load_demo, DEMO_NAME};
use btvm_compiler::source::SourceMap;

use crate::render::Renderer;
use crate::{load_tree, EngineArg, InputArgs};

/// Options of `btvm bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The tree to time; without it, the embedded demo (a 78-node Unvanquished soldier bot
    /// ticking against a simulated world).
    file: Option<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Number of agents.
    #[arg(long, default_value_t = 100_000)]
    agents: u32,
    /// Ticks per agent (100 ms apart).
    #[arg(long, default_value_t = 50)]
    ticks: u32,
    /// The engines to time, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "reference,vm,native"
    )]
    engines: Vec<EngineArg>,
    /// Thread counts to time the vm and native code with, comma-separated (the reference runs on
    /// one); by default 1 and the number of cores.
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn bench(args: &BenchArgs, out: &mut Renderer) -> ExitCode {
    let (tree, name) = match &args.file {
        None => {
            let mut sources = SourceMap::new();
            match load_demo(&mut sources) {
                Ok(t) => (t, DEMO_NAME.to_string()),
                Err(d) => {
                    out.emit(&sources, &d);
                    return ExitCode::FAILURE;
                }
            }
        }
        Some(path) => match load_tree(path, &args.input, out) {
            Some((t, _)) => (t, path.display().to_string()),
            None => return ExitCode::FAILURE,
        },
    };
    let mut threads = args.threads.clone();
    if threads.is_empty() {
        threads.push(1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores > 1 {
            threads.push(cores);
        }
    }
    if threads.contains(&0) {
        out.error("--threads takes counts of 1 or more");
        return ExitCode::from(2);
    }
    let cfg = BenchConfig {
        agents: args.agents,
        ticks: args.ticks,
        ..BenchConfig::default()
    };
    let host = HostKind::for_tree(&tree);
    let mut rows: Vec<BenchRow> = Vec::new();
    for engine in &args.engines {
        let (engine, counts) = match engine {
            EngineArg::Reference => (BenchEngine::Reference, vec![1]),
            EngineArg::Vm => (BenchEngine::Vm, threads.clone()),
            EngineArg::Native => (BenchEngine::Native, threads.clone()),
        };
        for t in counts {
            match run_bench(&tree, engine, t, host, &cfg) {
                Ok(r) => rows.push(r),
                Err(d) => {
                    out.emit(&SourceMap::new(), &[d]);
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let reference = rows
        .iter()
        .find(|r| r.engine == BenchEngine::Reference)
        .map(|r| r.ns_per_agent_tick);
    if args.json {
        let results: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"engine\": \"{}\", \"threads\": {}, \"ns_per_agent_tick\": {:.3}, \"agent_ticks_per_sec\": {:.0}, \"state_bytes_per_agent\": {}, \"checksum\": \"{:016x}\"}}",
                    r.engine.name(),
                    r.threads,
                    r.ns_per_agent_tick,
                    r.agent_ticks_per_sec,
                    r.state_bytes_per_agent,
                    r.checksum
                )
            })
            .collect();
        println!(
            "{{\"tree\": \"{}\", \"agents\": {}, \"ticks\": {}, \"host\": \"{}\", \"results\": [{}]}}",
            name.replace('\\', "\\\\").replace('"', "\\\""),
            cfg.agents,
            cfg.ticks,
            host_name(host),
            results.join(", ")
        );
    } else {
        println!(
            "{name}: {} nodes, {} agents x {} ticks, host: {}",
            tree.nodes.len(),
            cfg.agents,
            cfg.ticks,
            host_name(host)
        );
        println!(
            "{:<10} {:>7} {:>14} {:>16} {:>14} {:>9}",
            "engine", "threads", "ns/agent-tick", "agent-ticks/s", "state B/agent", "speedup"
        );
        for r in &rows {
            let speedup = reference.map_or("-".to_string(), |base| {
                format!("{:.1}x", base / r.ns_per_agent_tick.max(f64::MIN_POSITIVE))
            });
            println!(
                "{:<10} {:>7} {:>14.1} {:>16.0} {:>14} {:>9}",
                r.engine.name(),
                r.threads,
                r.ns_per_agent_tick,
                r.agent_ticks_per_sec,
                r.state_bytes_per_agent,
                speedup
            );
        }
    }
    if rows.windows(2).any(|w| w[0].checksum != w[1].checksum) {
        out.error("the engines disagree: their checksums differ (run `btvm run` on each engine and compare the traces)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn host_name(h: HostKind) -> &'static str {
    match h {
        HostKind::World => "simulated world",
        HostKind::Synthetic => "synthetic (hashed answers)",
    }
}
