//! Compile times of generated bot trees of 10, 100, 1,000 and 10,000 nodes, stage by stage:
//! parsing the tree's canonical-syntax text, checking it, lowering it to bytecode (the verifier
//! included) and compiling the bytecode to native code, with the default configuration (one
//! thread per core) as `native` and on the caller's thread alone as `native-1t`.
//!
//! The trees come from `btvm_benches::generate::generated_tree` (Unvanquished source
//! built from the demo's vocabulary, a pure function of size and seed); each is printed in
//! canonical syntax once, and that text is what the parse benchmark reads.

use std::time::{Duration, Instant};

use btvm::native::{NativeCode, NativeConfig};
use btvm::Limits;
use btvm_benches::generate::generated_tree;
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};

/// Requested tree sizes (the generator gets close; the benchmark ids use the real IR size).
const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

/// Measurement time of one benchmark (longer for native code of large trees).
const MEASUREMENT: Duration = Duration::from_secs(2);

fn compile(c: &mut Criterion) {
    let limits = Limits::default();
    let config = NativeConfig::default();
    let alone = NativeConfig {
        threads: 1,
        ..NativeConfig::default()
    };
    let mut sources = SourceMap::new();
    let cases: Vec<_> = SIZES
        .iter()
        .map(|&nodes| {
            let tree = generated_tree(nodes, 1, &mut sources).expect("the generated tree loads");
            let text = canonical::print(&tree);
            let file = sources.add(format!("generated-{nodes}.btn"), text.clone());
            // The round trip gives a tree that checks, lowers and compiles.
            let parsed = canonical::parse(file, &text, &limits).expect("the printed tree parses");
            btvm_compiler::check::check(&parsed, &limits).expect("the printed tree checks");
            let program =
                btvm_compiler::lower::lower(&parsed, &limits).expect("the printed tree lowers");
            let started = Instant::now();
            NativeCode::compile(&program, &config).expect("the program compiles to native code");
            let native_once = started.elapsed();
            (parsed.nodes.len(), file, text, parsed, program, native_once)
        })
        .collect();

    let mut group = c.benchmark_group("compile");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    for (nodes, file, text, tree, program, native_once) in &cases {
        group
            .throughput(Throughput::Elements(*nodes as u64))
            .measurement_time(MEASUREMENT);
        group.bench_with_input(BenchmarkId::new("parse", nodes), text, |b, text| {
            b.iter(|| canonical::parse(*file, text, &limits).expect("parses"))
        });
        group.bench_with_input(BenchmarkId::new("check", nodes), tree, |b, tree| {
            b.iter(|| btvm_compiler::check::check(tree, &limits).expect("checks"))
        });
        group.bench_with_input(BenchmarkId::new("lower", nodes), tree, |b, tree| {
            b.iter(|| btvm_compiler::lower::lower(tree, &limits).expect("lowers"))
        });
        // Ten samples of one compile each must fit (large trees take about half a second).
        group.measurement_time(MEASUREMENT.max(*native_once * 12));
        group.bench_with_input(BenchmarkId::new("native", nodes), program, |b, program| {
            b.iter(|| NativeCode::compile(program, &config).expect("compiles"))
        });
        group.bench_with_input(
            BenchmarkId::new("native-1t", nodes),
            program,
            |b, program| b.iter(|| NativeCode::compile(program, &alone).expect("compiles")),
        );
    }
    group.finish();
}

criterion_group!(benches, compile);
criterion_main!(benches);
