//! The engines on the embedded demo bot against the simulated world, beside the hand-written
//! Rust implementation of the same tree (the baseline native code is measured against).
//!
//! Each iteration ticks every agent of a fresh population once more; all implementations make
//! the same host calls (the checksums are compared before timing).
//!
//! Two more trees run on the reference interpreter, the vm and native code against the
//! synthetic host (or the world, when it knows every call), restarting every agent whose tree
//! halted after each tick, as `btvm bench` does: the Drag[en]gine example
//! `spec/examples/wanderer/wanderer.debt`, and the game's real `default.bt` from the external
//! corpus (`../shared/corpus/unvanquished/`) when that folder is present. So do the example
//! trees of the other dialects (Spore's Figure 1, the MBT squad soldier, the BST Grunt); the
//! MBT and BST agents get events between ticks on `btvm bench`'s schedule
//! (`EventSchedule`), delivered to the vm and native code by `EventId`, and the Spore agents
//! their decision flags and stimuli (`DeciderSchedule`).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use btvm::{AgentId, Batch, EngineKind, Host, Limits, Status, Stimulus};
use btvm_benches::demo_tree;
use btvm_benches::handwritten::{DemoState, HandWritten};
use btvm_benches::measure::{
    restart_stopped, run_bench, BenchConfig, BenchEngine, DeciderSchedule, EventSchedule, HostKind,
};
use btvm_benches::synthetic::SyntheticHost;
use btvm_benches::world::World;
use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, LoadOptions, Profile};
use btvm_compiler::reference::{Interpreter, Scopes};
use btvm_compiler::source::{RealFs, SourceMap};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

const AGENTS: u32 = 10_000;

fn engines(c: &mut Criterion) {
    let tree = demo_tree().expect("the demo loads");
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).expect("the demo lowers");

    // The same work first: every implementation ends with the same checksum.
    let cfg = BenchConfig {
        agents: 500,
        ticks: 40,
        step_ms: 100,
        awake_percent: 100,
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

/// Loads a tree from a file, panicking with the rendered diagnostic if it does not load.
fn load_file(path: &Path) -> Tree {
    load_with(path, &LoadOptions::default())
}

fn load_with(path: &Path, options: &LoadOptions) -> Tree {
    let mut sources = SourceMap::new();
    load(path, &RealFs, options, &mut sources).unwrap_or_else(|d| {
        panic!(
            "{} does not load: {}",
            path.display(),
            d[0].display(&sources)
        )
    })
}

/// `tree` on the reference interpreter, the vm and native code, each iteration ticking every
/// agent once against a host made by `host` (agents whose tree halted are reset after the
/// tick). The engines' checksums are compared first.
fn tree_group<H: Host>(
    c: &mut Criterion,
    name: &str,
    tree: &Tree,
    kind: HostKind,
    host: impl Fn() -> H,
) {
    let cfg = BenchConfig {
        agents: 500,
        ticks: 40,
        step_ms: 100,
        awake_percent: 100,
    };
    let sums: Vec<u64> = BenchEngine::ALL
        .into_iter()
        .map(|e| run_bench(tree, e, 1, kind, &cfg).expect("runs").checksum)
        .collect();
    assert!(
        sums.windows(2).all(|w| w[0] == w[1]),
        "{name}: checksums differ: {sums:x?}"
    );
    let program = btvm_compiler::lower::lower(tree, &Limits::default()).expect("the tree lowers");

    // Between ticks, on `btvm bench`'s schedules: lifecycle (MBT) and selection (BST) agents
    // get events, decider (Spore) agents new decision flags and stimuli.
    let events = EventSchedule::for_tree(tree);
    let decider = DeciderSchedule::for_tree(tree);
    let mut group = c.benchmark_group(name);
    group
        .throughput(Throughput::Elements(u64::from(AGENTS)))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    {
        let interp = Interpreter::new(tree).expect("the reference runs the tree");
        let mut states: Vec<_> = (0..AGENTS).map(|a| interp.new_agent(AgentId(a))).collect();
        let mut h = host();
        let mut now = 0;
        let mut scopes = Scopes::new();
        let mut tick = 0u32;
        group.bench_function("reference", |b| {
            b.iter(|| {
                now += 100;
                tick += 1;
                for (a, st) in states.iter_mut().enumerate() {
                    let a = a as u32;
                    if let Some(e) = events.event(a, tick) {
                        interp.event(st, &mut h, &events.names()[e], now);
                    }
                    if let Some(inp) = decider {
                        if let Some(w) = inp.flags(a, tick) {
                            interp.set_decision_flags(st, w);
                        }
                        if let Some((bit, ms)) = inp.stimulus(a, tick) {
                            interp.add_stimulus(st, bit, Stimulus::new(now, Some(ms), 0));
                        }
                    }
                }
                for st in &mut states {
                    black_box(interp.tick_with_scopes(st, &mut h, now, &mut scopes));
                    // A game restarts a tree that stopped (Drag[en]gine `context.reset()`, an
                    // MBT root that finished).
                    if st.halt().is_some() {
                        interp.reset_with_scopes(st, &mut scopes);
                    }
                }
            })
        });
    }
    let cursor = !program.rules().is_empty();
    let lifecycle = matches!(tree.config.model, btvm_compiler::ir::Model::Lifecycle);
    let ids = events.ids(&program);
    for engine in [EngineKind::Vm, EngineKind::Native] {
        let mut batch = Batch::with_engine(&program, AGENTS, engine).expect("main entry");
        assert!(batch.fallback().is_none(), "native code is not available");
        let mut h = host();
        let mut now = 0;
        let mut tick = 0u32;
        group.bench_function(engine.name(), |b| {
            b.iter(|| {
                now += 100;
                tick += 1;
                for a in 0..batch.len() {
                    if let Some(Some(id)) = events.event(a as u32, tick).and_then(|e| ids.get(e)) {
                        batch
                            .event_by_id(AgentId(a as u32), &mut h, *id, now)
                            .expect("agent a exists");
                    }
                }
                if let Some(inp) = decider {
                    inp.apply_to_batch(&mut batch, &program, tick, now);
                }
                let failed = black_box(batch.tick(&mut h, now)).contains(&Status::Failure);
                // Only a failed tick can stop a cursor tree; an MBT tree stops when its root
                // finishes either way (as in `btvm bench`).
                if (cursor && failed) || lifecycle {
                    restart_stopped(&mut batch, &program, lifecycle, 0..AGENTS as usize);
                }
            })
        });
    }
    group.finish();
}

/// The Drag[en]gine example against the synthetic host.
fn wanderer(c: &mut Criterion) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/examples/wanderer/wanderer.debt");
    let tree = load_file(&path);
    tree_group(c, "wanderer", &tree, HostKind::Synthetic, || SyntheticHost);
}

/// The example trees of the other dialects against the synthetic host: Spore's Figure 1, the
/// MBT squad soldier (GameSDK profile) and the BST Grunt.
fn dialect_examples(c: &mut Criterion) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/examples");
    let figure1 = load_file(&examples.join("figure1.spore"));
    tree_group(c, "spore-figure1", &figure1, HostKind::Synthetic, || {
        SyntheticHost
    });
    let gamesdk = LoadOptions {
        profile: Some(Profile::builtin("gamesdk").unwrap()),
        ..LoadOptions::default()
    };
    let soldier = load_with(&examples.join("squad_soldier.xml"), &gamesdk);
    tree_group(
        c,
        "mbt-squad-soldier",
        &soldier,
        HostKind::Synthetic,
        || SyntheticHost,
    );
    let grunt = load_file(&examples.join("grunt/grunt.xml"));
    tree_group(c, "bst-grunt", &grunt, HostKind::Synthetic, || {
        SyntheticHost
    });
}

/// The game's `default.bt` (external corpus), when present.
fn unvanquished_default(c: &mut Criterion) {
    let path: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/unvanquished/default.bt");
    if !path.is_file() {
        println!(
            "skipped unvanquished-default: external corpus not found at {}",
            path.display()
        );
        return;
    }
    let tree = load_file(&path);
    match HostKind::for_tree(&tree) {
        HostKind::World => tree_group(c, "unvanquished-default", &tree, HostKind::World, || {
            let mut w = World::new(AGENTS as usize);
            w.bind(&tree.imports).expect("the world binds default.bt");
            w
        }),
        HostKind::Synthetic => tree_group(
            c,
            "unvanquished-default",
            &tree,
            HostKind::Synthetic,
            || SyntheticHost,
        ),
    }
}

criterion_group!(
    benches,
    engines,
    wanderer,
    dialect_examples,
    unvanquished_default
);
criterion_main!(benches);
