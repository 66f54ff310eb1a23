//! `btvm bench --workload fight-or-flight`: the workload shared with other libraries, on
//! btvm's engines and the hand-written baseline, checksums compared before anything is
//! reported.

use std::process::ExitCode;
use std::time::Duration;

use btvm_compiler::bench::fight;

use crate::render::Renderer;
use crate::EngineArg;

/// Untimed ticks before the timed ones (as the shared document specifies).
const WARMUP: u32 = 32;

struct Row {
    name: &'static str,
    threads: usize,
    ns: f64,
    bytes: usize,
    checksum: u64,
}

fn row(
    name: &'static str,
    threads: usize,
    agents: u32,
    ticks: u32,
    r: (u64, Duration),
    bytes: usize,
) -> Row {
    let n = f64::from(agents) * f64::from(ticks.max(1));
    Row {
        name,
        threads,
        ns: r.1.as_secs_f64() * 1e9 / n,
        bytes,
        checksum: r.0,
    }
}

pub fn bench(
    agents: u32,
    ticks: u32,
    engines: &[EngineArg],
    threads: &[usize],
    baseline: bool,
    json: bool,
    out: &mut Renderer,
) -> ExitCode {
    if threads.contains(&0) {
        out.error("--threads takes counts of 1 or more");
        return ExitCode::from(2);
    }
    let tree = match fight::tree() {
        Ok(t) => t,
        Err(d) => {
            out.error(&format!(
                "the fight-or-flight tree does not load: {}",
                d[0].message
            ));
            return ExitCode::FAILURE;
        }
    };
    let program = match btvm_compiler::lower::lower(&tree, &btvm::Limits::default()) {
        Ok(p) => p,
        Err(d) => {
            out.error(&format!(
                "the fight-or-flight tree does not lower: {}",
                d[0].message
            ));
            return ExitCode::FAILURE;
        }
    };
    let agent = std::mem::size_of::<fight::Agent>();
    let mut rows = Vec::new();
    if baseline {
        let r = fight::run_handwritten(agents, WARMUP, ticks);
        rows.push(row("hand-written", 1, agents, ticks, r, agent + 1));
    }
    for engine in engines {
        let result = match engine {
            EngineArg::Reference => fight::run_reference(&tree, agents, WARMUP, ticks)
                .map(|r| vec![row("reference", 1, agents, ticks, r, agent)]),
            EngineArg::Vm | EngineArg::Native => {
                let (name, kind) = if *engine == EngineArg::Vm {
                    ("vm", btvm::EngineKind::Vm)
                } else {
                    ("native", btvm::EngineKind::Native)
                };
                threads
                    .iter()
                    .map(|&t| {
                        fight::run_engine(&program, kind, agents, t, WARMUP, ticks)
                            .map(|r| row(name, t, agents, ticks, r, agent + program.state_size()))
                    })
                    .collect()
            }
        };
        match result {
            Ok(r) => rows.extend(r),
            Err(e) => {
                out.error(&e);
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(first) = rows.first() {
        if let Some(bad) = rows.iter().find(|r| r.checksum != first.checksum) {
            out.error(&format!(
                "checksums differ: {} {:016x}, {} {:016x}; the implementations did different work",
                first.name, first.checksum, bad.name, bad.checksum
            ));
            return ExitCode::FAILURE;
        }
    }
    let hand = rows.iter().find(|r| r.name == "hand-written").map(|r| r.ns);
    if json {
        let results: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"implementation\": \"{}\", \"threads\": {}, \"ns_per_agent_tick\": {:.3}, \"bytes_per_agent\": {}, \"checksum\": \"{:016x}\"}}",
                    r.name, r.threads, r.ns, r.bytes, r.checksum
                )
            })
            .collect();
        println!(
            "{{\"workload\": \"fight-or-flight\", \"agents\": {agents}, \"ticks\": {ticks}, \"warmup\": {WARMUP}, \"results\": [{}]}}",
            results.join(", ")
        );
        return ExitCode::SUCCESS;
    }
    println!(
        "fight-or-flight: {agents} agents x {ticks} ticks (after {WARMUP} untimed), checksum {:016x} on every row",
        rows.first().map_or(0, |r| r.checksum)
    );
    println!(
        "{:<14} {:>7} {:>14} {:>16} {:>14} {:>8}",
        "implementation", "threads", "ns/agent-tick", "agent-ticks/s", "bytes/agent", "vs hand"
    );
    for r in &rows {
        let vs = match hand {
            Some(h) if r.threads == 1 && h > 0.0 => format!("{:.2}x", r.ns / h),
            _ => "-".to_string(),
        };
        println!(
            "{:<14} {:>7} {:>14.1} {:>16.0} {:>14} {:>8}",
            r.name,
            r.threads,
            r.ns,
            1e9 / r.ns.max(1e-9),
            r.bytes,
            vs
        );
    }
    println!("(bytes/agent: the 32-byte agent plus the engine's per-agent state; the reference keeps its own state besides)");
    ExitCode::SUCCESS
}
