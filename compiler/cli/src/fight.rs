//! `btvm bench --workload fight-or-flight`: the workload shared with other libraries, on
//! btvm's engines and the hand-written baseline, checksums compared before anything is
//! reported.

use std::process::ExitCode;
use std::time::Duration;

use btvm_benches::fight;
use btvm_compiler::ir::Tree;

use crate::output::Output;
use crate::render::Renderer;
use crate::EngineArg;

/// Untimed ticks before the timed ones (as the shared document specifies).
const WARMUP: u32 = 32;

/// The row of the hand-written tree that calls its leaves through the `Host` interface.
const HAND_HOST: &str = "hand-written, Host API";

struct Row {
    name: &'static str,
    threads: usize,
    agents: u32,
    ns: f64,
    bytes: usize,
    resident: Option<f64>,
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
        agents,
        ns: r.1.as_secs_f64() * 1e9 / n,
        bytes,
        resident: None,
        checksum: r.0,
    }
}

/// What `btvm bench --workload fight-or-flight` runs.
pub struct FightOpts<'a> {
    /// Agents of the main table.
    pub agents: u32,
    /// Timed ticks.
    pub ticks: u32,
    /// The engines to time.
    pub engines: &'a [EngineArg],
    /// Thread counts for the vm and native code.
    pub threads: &'a [usize],
    /// Time the hand-written baseline.
    pub baseline: bool,
    /// Also time 10^4, 10^5 and 10^6 agents on every thread count.
    pub scaling: bool,
    /// Print JSON.
    pub json: bool,
}

pub fn bench(opts: &FightOpts<'_>, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    let FightOpts {
        agents,
        ticks,
        engines,
        threads,
        baseline,
        scaling,
        json,
    } = *opts;
    if threads.contains(&0) {
        out.error("--threads takes counts of 1 or more");
        return ExitCode::from(2);
    }
    let (tree, program) = match load(out) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    // Resident memory per agent, measured first (before any timed run has touched memory the
    // allocator could reuse): one batch of `agents` on the vm, with its agents. Native code
    // uses the very same state blocks, so the figure holds for both.
    let resident = fight::resident_per_agent(&program, btvm::EngineKind::Vm, agents);
    let mut rows = Vec::new();
    if baseline {
        if let Err(code) = time_baselines(&program, agents, ticks, &mut rows, out) {
            return code;
        }
    }
    if let Err(code) = time_engines(opts, &tree, &program, resident, &mut rows, out) {
        return code;
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
    let mut scale: Vec<Row> = Vec::new();
    if scaling {
        if let Err(code) = time_scaling(engines, threads, &program, &mut scale, out) {
            return code;
        }
    }
    if json {
        print_json(agents, ticks, &rows, &scale, stdout);
        return ExitCode::SUCCESS;
    }
    print_table(agents, ticks, &rows, hand, stdout);
    if !scale.is_empty() {
        print_scaling(&scale, stdout);
    }
    ExitCode::SUCCESS
}

/// The fight-or-flight tree and its program.
fn load(out: &mut Renderer) -> Result<(Tree, btvm::Program), ExitCode> {
    let tree = match fight::tree() {
        Ok(t) => t,
        Err(d) => {
            out.error(&format!(
                "the fight-or-flight tree does not load: {}",
                d[0].message
            ));
            return Err(ExitCode::FAILURE);
        }
    };
    let program = match btvm_compiler::lower::lower(&tree, &btvm::Limits::default()) {
        Ok(p) => p,
        Err(d) => {
            out.error(&format!(
                "the fight-or-flight tree does not lower: {}",
                d[0].message
            ));
            return Err(ExitCode::FAILURE);
        }
    };
    Ok((tree, program))
}

/// The hand-written baseline, then the same logic through the `Host` interface.
fn time_baselines(
    program: &btvm::Program,
    agents: u32,
    ticks: u32,
    rows: &mut Vec<Row>,
    out: &mut Renderer,
) -> Result<(), ExitCode> {
    let agent = std::mem::size_of::<fight::Agent>();
    let r = fight::run_handwritten(agents, WARMUP, ticks);
    rows.push(row("hand-written", 1, agents, ticks, r, agent + 1));
    // The same logic calling its leaves through the Host interface, as engines do: the
    // floor of any engine on this workload.
    match fight::run_handwritten_host(program, agents, WARMUP, ticks) {
        Ok(r) => rows.push(row(HAND_HOST, 1, agents, ticks, r, agent + 2)),
        Err(e) => {
            out.error(&e);
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(())
}

/// Every engine of `--engines`, the vm and native code on every thread count.
fn time_engines(
    opts: &FightOpts<'_>,
    tree: &Tree,
    program: &btvm::Program,
    resident: Option<f64>,
    rows: &mut Vec<Row>,
    out: &mut Renderer,
) -> Result<(), ExitCode> {
    let FightOpts {
        agents,
        ticks,
        engines,
        threads,
        ..
    } = *opts;
    let agent = std::mem::size_of::<fight::Agent>();
    for engine in engines {
        let result = match engine {
            EngineArg::Reference => fight::run_reference(tree, agents, WARMUP, ticks)
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
                        fight::run_engine(program, kind, agents, t, WARMUP, ticks).map(|r| Row {
                            resident: resident.filter(|_| t == 1),
                            ..row(name, t, agents, ticks, r, agent + program.state_size())
                        })
                    })
                    .collect()
            }
        };
        match result {
            Ok(r) => rows.extend(r),
            Err(e) => {
                out.error(&e);
                return Err(ExitCode::FAILURE);
            }
        }
    }
    Ok(())
}

/// Scaling: the vm and native code at 10^4, 10^5, 10^6 agents on every thread count (the
/// checksums of equal agent counts must agree too).
fn time_scaling(
    engines: &[EngineArg],
    threads: &[usize],
    program: &btvm::Program,
    scale: &mut Vec<Row>,
    out: &mut Renderer,
) -> Result<(), ExitCode> {
    let agent = std::mem::size_of::<fight::Agent>();
    for n in [10_000u32, 100_000, 1_000_000] {
        let ticks = (5_000_000 / n).clamp(5, 500);
        for engine in engines {
            let (name, kind) = match engine {
                EngineArg::Vm => ("vm", btvm::EngineKind::Vm),
                EngineArg::Native => ("native", btvm::EngineKind::Native),
                EngineArg::Reference => continue,
            };
            for &t in threads {
                match fight::run_engine(program, kind, n, t, WARMUP.min(ticks), ticks) {
                    Ok(r) => scale.push(row(name, t, n, ticks, r, agent + program.state_size())),
                    Err(e) => {
                        out.error(&e);
                        return Err(ExitCode::FAILURE);
                    }
                }
            }
        }
        let same_n: Vec<&Row> = scale.iter().filter(|r| r.agents == n).collect();
        if same_n.windows(2).any(|w| w[0].checksum != w[1].checksum) {
            out.error(&format!("checksums differ between engines at {n} agents"));
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(())
}

/// `--json`: one object with the rows and the scaling runs.
fn print_json(agents: u32, ticks: u32, rows: &[Row], scale: &[Row], stdout: &mut Output) {
    let results: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{{\"implementation\": \"{}\", \"threads\": {}, \"ns_per_agent_tick\": {:.3}, \"bytes_per_agent\": {}, \"checksum\": \"{:016x}\"}}",
                r.name, r.threads, r.ns, r.bytes, r.checksum
            )
        })
        .collect();
    let scaling: Vec<String> = scale
        .iter()
        .map(|r| {
            format!(
                "{{\"engine\": \"{}\", \"agents\": {}, \"threads\": {}, \"ns_per_agent_tick\": {:.3}}}",
                r.name, r.agents, r.threads, r.ns
            )
        })
        .collect();
    writeln!(
        stdout,
        "{{\"workload\": \"fight-or-flight\", \"agents\": {agents}, \"ticks\": {ticks}, \"warmup\": {WARMUP}, \"results\": [{}], \"scaling\": [{}]}}",
        results.join(", "),
        scaling.join(", ")
    );
}

/// The main table, against the hand-written baseline's `hand` ns per agent-tick.
fn print_table(agents: u32, ticks: u32, rows: &[Row], hand: Option<f64>, stdout: &mut Output) {
    writeln!(
        stdout,
        "fight-or-flight: {agents} agents x {ticks} ticks (after {WARMUP} untimed), checksum {:016x} on every row",
        rows.first().map_or(0, |r| r.checksum)
    );
    writeln!(stdout, "machine: {}", crate::timed::machine());
    writeln!(
        stdout,
        "{:<22} {:>7} {:>14} {:>16} {:>12} {:>12} {:>8}",
        "implementation",
        "threads",
        "ns/agent-tick",
        "agent-ticks/s",
        "state B/ag",
        "resident B/ag",
        "vs hand"
    );
    for r in rows {
        let vs = match hand {
            Some(h) if r.threads == 1 && h > 0.0 => format!("{:.2}x", r.ns / h),
            _ => "-".to_string(),
        };
        writeln!(
            stdout,
            "{:<22} {:>7} {:>14.1} {:>16.0} {:>12} {:>12} {:>8}",
            r.name,
            r.threads,
            r.ns,
            1e9 / r.ns.max(1e-9),
            r.bytes,
            r.resident.map_or("-".to_string(), |b| format!("{b:.1}")),
            vs
        );
    }
    writeln!(stdout, "(state B/ag: the 32-byte agent plus the engine's state block; resident B/ag: measured growth of resident memory per agent for one batch, agents, states and statuses included)");
}

/// The scaling table: each run against the same engine and agents on one thread.
fn print_scaling(scale: &[Row], stdout: &mut Output) {
    writeln!(stdout, "\nscaling (ns/agent-tick):");
    writeln!(
        stdout,
        "{:<8} {:>10} {:>8} {:>14} {:>12}",
        "engine", "agents", "threads", "ns/agent-tick", "vs 1 thread"
    );
    for r in scale {
        let one = scale
            .iter()
            .find(|o| o.name == r.name && o.agents == r.agents && o.threads == 1)
            .map(|o| o.ns);
        let speedup = one.map_or("-".to_string(), |o| format!("{:.2}x", o / r.ns.max(1e-9)));
        writeln!(
            stdout,
            "{:<8} {:>10} {:>8} {:>14.1} {:>12}",
            r.name, r.agents, r.threads, r.ns, speedup
        );
    }
}
