//! The engines on the embedded demo bot against the simulated world, beside the hand-written
//! Rust implementation of the same tree (the baseline native code is measured against).
//!
//! Each iteration ticks every agent of a fresh population once more; all implementations make
//! the same host calls (the checksums are compared before timing).

use std::hint::black_box;

use btvm::{AgentId, Batch, EngineKind, Limits};
use btvm_compiler::bench::demo_tree;
use btvm_compiler::bench::handwritten::{DemoState, HandWritten};
use btvm_compiler::bench::measure::{run_bench, BenchConfig, BenchEngine, HostKind};
use btvm_compiler::bench::world::World;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const AGENTS: u32 = 10_000;

fn engines(c: &mut Criterion) {
    let tree = demo_tree().expect("the demo loads");
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).expect("the demo lowers");

    // The same work first: every implementation ends with the same checksum.
    let cfg = BenchConfig {
        agents: 500,
        ticks: 40,
        step_ms: 100,
    };
    let sums: Vec<u64> = [
        BenchEngine::Reference,
        BenchEngine::Vm,
        BenchEngine::Native,
        BenchEngine::HandWritten,
    ]
    .into_iter()
    .map(|e| {
        run_bench(&tree, e, 1, HostKind::World, &cfg)
            .expect("runs")
            .checksum
    })
    .collect();
    assert!(
        sums.windows(2).all(|w| w[0] == w[1]),
        "checksums differ: {sums:x?}"
    );

    let mut group = c.benchmark_group("demo");
    group.throughput(Throughput::Elements(u64::from(AGENTS)));
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut world = World::new(AGENTS as usize);
        world
            .bind(program.imports())
            .expect("the world binds the demo");
        let mut batch = Batch::with_engine(&program, AGENTS, kind).expect("main entry");
        let mut now = 0;
        group.bench_function(kind.name(), |b| {
            b.iter(|| {
                now += 100;
                black_box(batch.tick(&mut world, now));
            })
        });
    }
    {
        let mut world = World::new(AGENTS as usize);
        world
            .bind(program.imports())
            .expect("the world binds the demo");
        let hw = HandWritten::from_program(&program).expect("the baseline binds");
        let mut states = vec![DemoState::default(); AGENTS as usize];
        let mut now = 0;
        group.bench_function("hand-written", |b| {
            b.iter(|| {
                now += 100;
                for (a, st) in states.iter_mut().enumerate() {
                    black_box(hw.tick(st, AgentId(a as u32), &mut world, now));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
