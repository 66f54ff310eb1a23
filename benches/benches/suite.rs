//! The suite of real trees (issue 28; `btvm bench --suite` at a small size): every example of
//! `spec/examples/`, the shared corpus's `default.bt` when `../shared` is beside the
//! repository, and the generated tree of each execution model, on the reference interpreter,
//! the vm and native code (one thread) against the synthetic host.
//!
//! Each iteration is one `measure::run_bench` run of `AGENTS` agents for `TICKS` ticks —
//! exactly what `btvm bench --suite` times, its inputs between ticks included — and the time
//! criterion records is the run's own (`iter_custom`), without building the population or
//! compiling native code. The engines' checksums are compared first.

use std::time::Duration;

use btvm_benches::measure::{run_bench, BenchConfig, BenchEngine, HostKind};
use btvm_benches::suite::{self, SuiteTree};
use btvm_compiler::source::SourceMap;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

const AGENTS: u32 = 2_000;
const TICKS: u32 = 5;

/// The suite's trees (the corpus's `default.bt` only when it is found).
fn trees() -> Vec<SuiteTree> {
    let mut sources = SourceMap::new();
    let mut trees = suite::examples(&mut sources).expect("the examples load");
    match suite::corpus_default(&suite::corpus_candidates(), &mut sources) {
        Some(t) => trees.push(t.expect("the corpus's default.bt loads")),
        None => println!("skipped corpus/unvanquished/default.bt: ../shared not found"),
    }
    trees.extend(
        suite::generated(suite::GENERATED_NODES, suite::SEED, &mut sources)
            .expect("the generated trees load"),
    );
    trees
}

fn suite_group(c: &mut Criterion) {
    let cfg = BenchConfig {
        agents: AGENTS,
        ticks: TICKS,
        ..BenchConfig::default()
    };
    let mut group = c.benchmark_group("suite");
    group
        .throughput(Throughput::Elements(u64::from(AGENTS) * u64::from(TICKS)))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for t in trees() {
        let sums: Vec<u64> = BenchEngine::ALL
            .into_iter()
            .map(|e| {
                run_bench(&t.tree, e, 1, HostKind::Synthetic, &cfg)
                    .expect("runs")
                    .checksum
            })
            .collect();
        assert!(
            sums.windows(2).all(|w| w[0] == w[1]),
            "{}: checksums differ: {sums:x?}",
            t.name
        );
        for engine in BenchEngine::ALL {
            group.bench_function(format!("{}/{}", t.name, engine.name()), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let row =
                            run_bench(&t.tree, engine, 1, HostKind::Synthetic, &cfg).expect("runs");
                        let ns = row.ns_per_agent_tick * f64::from(AGENTS) * f64::from(TICKS);
                        total += Duration::from_nanos(ns as u64);
                    }
                    total
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, suite_group);
criterion_main!(benches);
