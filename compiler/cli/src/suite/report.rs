//! What `btvm bench --suite` prints: per tree and engine the ns per agent-tick on every
//! thread count, the speed-up over the reference, native code's over the vm, the state bytes
//! per agent and the thread scaling — as a table, as JSON (serde_json), or as a bar chart.
//!
//! Ratios compare medians on the fewest threads timed (one by default: the reference runs on
//! one); scaling is the median on the fewest threads over the median on the most. This module
//! only computes ratios and prints; it never times anything.

use std::path::Path;

use btvm_benches::measure::{BenchConfig, BenchEngine};
use serde_json::{json, Value};

use super::{SuiteOpts, TreeRun};
use crate::output::Output;
use crate::timed::{self, Timed};

/// One engine on one tree, summarised.
#[derive(Debug, PartialEq)]
pub struct EngineSummary {
    /// The engine.
    pub engine: BenchEngine,
    /// Median ns per agent-tick per thread count, in the order timed.
    pub ns_by_threads: Vec<(usize, f64)>,
    /// The reference's ns over this engine's, on the fewest threads.
    pub vs_reference: Option<f64>,
    /// For native code: the vm's ns over native code's, on the fewest threads.
    pub native_vs_vm: Option<f64>,
    /// State bytes per agent.
    pub state_bytes: usize,
    /// ns on the fewest threads over ns on the most (`None` with one thread count).
    pub scaling: Option<(usize, usize, f64)>,
}

impl EngineSummary {
    /// The median on the fewest threads timed.
    pub fn ns(&self) -> f64 {
        self.ns_by_threads
            .iter()
            .min_by_key(|(t, _)| *t)
            .map_or(0.0, |&(_, ns)| ns)
    }
}

/// `a / b`, or `None` when either is missing or `b` is not positive.
fn ratio(a: Option<f64>, b: f64) -> Option<f64> {
    a.filter(|_| b > 0.0).map(|a| a / b)
}

/// The engines of one tree's rows, in table order, with their ratios.
pub fn summarize(rows: &[Timed]) -> Vec<EngineSummary> {
    let mut out: Vec<EngineSummary> = Vec::new();
    for engine in BenchEngine::ALL {
        let mine: Vec<&Timed> = rows.iter().filter(|t| t.row.engine == engine).collect();
        let Some(first) = mine.first() else { continue };
        let ns_by_threads: Vec<(usize, f64)> = mine
            .iter()
            .map(|t| (t.row.threads, t.row.ns_per_agent_tick))
            .collect();
        let lo = ns_by_threads.iter().min_by_key(|(t, _)| *t).copied();
        let hi = ns_by_threads.iter().max_by_key(|(t, _)| *t).copied();
        let scaling = match (lo, hi) {
            (Some((a, x)), Some((b, y))) if b > a && y > 0.0 => Some((a, b, x / y)),
            _ => None,
        };
        out.push(EngineSummary {
            engine,
            ns_by_threads,
            vs_reference: None,
            native_vs_vm: None,
            state_bytes: first.row.state_bytes_per_agent,
            scaling,
        });
    }
    let of = |out: &[EngineSummary], e: BenchEngine| {
        out.iter().find(|s| s.engine == e).map(EngineSummary::ns)
    };
    let reference = of(&out, BenchEngine::Reference);
    let vm = of(&out, BenchEngine::Vm);
    for s in &mut out {
        let ns = s.ns();
        s.vs_reference = ratio(reference, ns);
        if s.engine == BenchEngine::Native {
            s.native_vs_vm = ratio(vm, ns);
        }
    }
    out
}

/// `1.23x`, or `-`.
fn times(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |x| format!("{x:.2}x"))
}

/// The table: a header, then per tree one row per engine, then the agreement line.
pub fn print_table(opts: &SuiteOpts<'_>, cfg: &BenchConfig, results: &[TreeRun], out: &mut Output) {
    writeln!(
        out,
        "suite of real trees: {} agents x {} ticks per run, host: synthetic (hashed answers)",
        cfg.agents, cfg.ticks
    );
    let plural = if opts.runs == 1 { "" } else { "s" };
    writeln!(
        out,
        "machine: {}; {} interleaved run{plural} (ns/agent-tick: the median); ratios on the fewest threads",
        timed::machine(),
        opts.runs
    );
    let ns_cols: Vec<String> = opts.threads.iter().map(|t| format!("ns x{t}")).collect();
    let mut head = format!(
        "{:<30} {:<12} {:>5} {:<9}",
        "tree", "model", "nodes", "engine"
    );
    for c in &ns_cols {
        head.push_str(&format!(" {c:>9}"));
    }
    head.push_str(&format!(
        " {:>8} {:>9} {:>8} {:>8}",
        "vs ref", "native/vm", "state B", "scaling"
    ));
    writeln!(out, "{head}");
    for r in results {
        for (k, s) in summarize(&r.rows).iter().enumerate() {
            let (name, model, nodes) = if k == 0 {
                (r.name.as_str(), r.model, r.nodes.to_string())
            } else {
                ("", "", String::new())
            };
            let mut line = format!("{name:<30} {model:<12} {nodes:>5} {:<9}", s.engine.name());
            for t in opts.threads {
                let ns = s.ns_by_threads.iter().find(|(n, _)| n == t);
                line.push_str(&ns.map_or(format!(" {:>9}", "-"), |(_, ns)| format!(" {ns:>9.1}")));
            }
            line.push_str(&format!(
                " {:>8} {:>9} {:>8} {:>8}",
                times(s.vs_reference),
                times(s.native_vs_vm),
                s.state_bytes,
                times(s.scaling.map(|(_, _, x)| x))
            ));
            writeln!(out, "{line}");
        }
        for why in &r.not_timed {
            writeln!(out, "{:<30} ({why})", "");
        }
    }
    writeln!(out, "{}", agreement_line(opts, results));
}

/// The closing line: every tree's engines agreed, or which did not.
fn agreement_line(opts: &SuiteOpts<'_>, results: &[TreeRun]) -> String {
    let runs: usize = results.iter().map(|r| r.rows.len()).sum::<usize>() * opts.runs as usize;
    let bad: Vec<&str> = results
        .iter()
        .filter(|r| !r.agreed)
        .map(|r| r.name.as_str())
        .collect();
    if bad.is_empty() {
        format!(
            "checksums agree: {runs} engine runs on {} trees ({} each), every tree's engines gave one checksum",
            results.len(),
            opts.runs
        )
    } else {
        format!("checksums DISAGREE on {}", bad.join(", "))
    }
}

/// One tree as JSON.
fn tree_json(r: &TreeRun) -> Value {
    let results: Vec<Value> = r
        .rows
        .iter()
        .map(|t| {
            let row = &t.row;
            json!({
                "engine": row.engine.name(),
                "threads": row.threads,
                "ns_per_agent_tick": row.ns_per_agent_tick,
                "ns_min": t.min(),
                "ns_max": t.max(),
                "ns_runs": t.ns,
                "agent_ticks_per_sec": row.agent_ticks_per_sec,
                "state_bytes_per_agent": row.state_bytes_per_agent,
                "checksum": format!("{:016x}", row.checksum),
            })
        })
        .collect();
    let engines: Vec<Value> = summarize(&r.rows)
        .iter()
        .map(|s| {
            json!({
                "engine": s.engine.name(),
                "ns_per_agent_tick": s.ns(),
                "vs_reference": s.vs_reference,
                "native_vs_vm": s.native_vs_vm,
                "state_bytes_per_agent": s.state_bytes,
                "scaling": s.scaling.map(|(from, to, speedup)| json!({
                    "from_threads": from, "to_threads": to, "speedup": speedup
                })),
            })
        })
        .collect();
    json!({
        "tree": r.name,
        "model": r.model,
        "nodes": r.nodes,
        "checksums_agree": r.agreed,
        "not_timed": r.not_timed,
        "engines": engines,
        "results": results,
    })
}

/// `--json`: one object with the settings and every tree.
pub fn print_json(opts: &SuiteOpts<'_>, cfg: &BenchConfig, results: &[TreeRun], out: &mut Output) {
    let trees: Vec<Value> = results.iter().map(tree_json).collect();
    let doc = json!({
        "suite": true,
        "agents": cfg.agents,
        "ticks": cfg.ticks,
        "runs": opts.runs,
        "threads": opts.threads,
        "host": "synthetic",
        "machine": timed::machine(),
        "checksums_agree": results.iter().all(|r| r.agreed),
        "trees": trees,
    });
    writeln!(out, "{doc}");
}

/// `--svg FILE`: one bar per tree and engine on the fewest threads (log scale: the trees
/// differ by orders of magnitude).
pub fn write_chart(path: &Path, cfg: &BenchConfig, results: &[TreeRun]) -> Result<(), String> {
    let mut bars = Vec::new();
    for r in results {
        for t in &r.rows {
            let fewest = r
                .rows
                .iter()
                .filter(|u| u.row.engine == t.row.engine)
                .map(|u| u.row.threads)
                .min();
            if Some(t.row.threads) != fewest {
                continue;
            }
            bars.push(crate::chart::Bar {
                label: format!("{} {} x{}", r.name, t.row.engine.name(), t.row.threads),
                ns: t.row.ns_per_agent_tick,
                min: t.min(),
                max: t.max(),
            });
        }
    }
    let title = format!(
        "suite of real trees: {} agents x {} ticks",
        cfg.agents, cfg.ticks
    );
    let svg = crate::chart::svg(&title, &bars)?;
    std::fs::write(path, svg).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use btvm_benches::measure::BenchRow;

    fn timed(engine: BenchEngine, threads: usize, ns: f64) -> Timed {
        Timed::of(vec![BenchRow {
            engine,
            threads,
            ns_per_agent_tick: ns,
            agent_ticks_per_sec: 1e9 / ns,
            state_bytes_per_agent: 16,
            checksum: 1,
            tick_ns_per_agent_tick: None,
        }])
        .unwrap()
    }

    #[test]
    fn ratios_compare_medians_on_the_fewest_threads_and_scaling_is_fewest_over_most() {
        let rows = [
            timed(BenchEngine::Reference, 1, 400.0),
            timed(BenchEngine::Vm, 1, 100.0),
            timed(BenchEngine::Vm, 2, 50.0),
            timed(BenchEngine::Native, 1, 25.0),
            timed(BenchEngine::Native, 2, 20.0),
        ];
        let s = summarize(&rows);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].vs_reference, Some(1.0));
        assert_eq!(s[0].scaling, None);
        assert_eq!(s[1].vs_reference, Some(4.0));
        assert_eq!(s[1].native_vs_vm, None);
        assert_eq!(s[1].scaling, Some((1, 2, 2.0)));
        assert_eq!(s[2].vs_reference, Some(16.0));
        assert_eq!(s[2].native_vs_vm, Some(4.0));
        assert_eq!(s[2].scaling, Some((1, 2, 1.25)));
    }

    #[test]
    fn without_the_reference_or_the_vm_their_ratios_are_absent() {
        let s = summarize(&[timed(BenchEngine::Native, 2, 10.0)]);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].vs_reference, s[0].native_vs_vm), (None, None));
        assert_eq!(s[0].ns(), 10.0);
        assert_eq!(times(None), "-");
        assert_eq!(times(Some(2.0)), "2.00x");
    }
}
