//! The embedded bench demo: it loads, is big enough, and running it on the reference
//! interpreter against the simulated world reaches every root status, calls most of its
//! imports, and is deterministic; the bytecode VM leaves the world in the same state; binding
//! the world to an unknown import fails clearly. `btvm bench` on the example MBT and BST trees
//! delivers events, and every engine, on any number of threads, agrees on the checksum.
// Without native code the tests that compare it are compiled out, and their helpers unused.
#![cfg_attr(not(feature = "jit"), allow(unused))]

use btvm::{AgentId, Call, Host, Import, ImportKind, Status, Value};
use btvm_benches::world::World;
use btvm_benches::{demo_tree, load_demo, DEMO_NAME};
use btvm_compiler::ir::Tree;
use btvm_compiler::lower::lower;
use btvm_compiler::reference::Interpreter;
use btvm_compiler::source::SourceMap;

const AGENTS: u32 = 8;
const TICKS: i64 = 200;

fn tree() -> Tree {
    let mut sources = SourceMap::new();
    match load_demo(&mut sources) {
        Ok(t) => t,
        Err(d) => panic!("the demo does not load: {}", d[0].display(&sources)),
    }
}

/// Counts the calls of each import, then forwards to the world.
struct Counting<'w> {
    world: &'w mut World,
    calls: Vec<u64>,
}

impl Host for Counting<'_> {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.calls[call.import.index()] += 1;
        self.world.action(call)
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        self.calls[call.import.index()] += 1;
        self.world.function(call)
    }
}

/// What one run produced.
struct Run {
    /// How often the root returned each status, by `Status as usize`.
    roots: [u64; 3],
    /// Calls per import.
    calls: Vec<u64>,
    checksum: u64,
}

/// Runs the demo for `AGENTS` agents and `TICKS` ticks (`now = tick * 100`), agents interleaved
/// within each tick.
fn run(tree: &Tree) -> Run {
    let interp = Interpreter::new(tree).expect("the reference interpreter accepts the demo");
    let mut world = World::new(AGENTS as usize);
    world.bind(&tree.imports).expect("the world binds the demo");
    let mut host = Counting {
        world: &mut world,
        calls: vec![0; tree.imports.len()],
    };
    let mut states: Vec<_> = (0..AGENTS).map(|i| interp.new_agent(AgentId(i))).collect();
    let mut roots = [0; 3];
    for tick in 0..TICKS {
        for state in &mut states {
            let status = interp.tick(state, &mut host, tick * 100);
            roots[status as usize] += 1;
        }
    }
    let calls = host.calls;
    Run {
        roots,
        calls,
        checksum: world.checksum(),
    }
}

#[test]
fn the_demo_loads_with_at_least_60_nodes_and_two_behaviors() {
    let tree = tree();
    assert!(
        tree.nodes.len() >= 60,
        "the demo has only {} nodes",
        tree.nodes.len()
    );
    assert_eq!(tree.subtrees.len(), 2);
    assert_eq!(DEMO_NAME, "demo.bt");
    // `demo_tree` is the same load without a caller-supplied source map.
    assert_eq!(
        demo_tree().map(|t| t.nodes.len()).ok(),
        Some(tree.nodes.len())
    );
}

#[test]
fn the_demo_reaches_several_root_statuses() {
    let r = run(&tree());
    let seen = r.roots.iter().filter(|&&n| n > 0).count();
    assert!(
        seen >= 2,
        "root statuses (failure, success, running): {:?}",
        r.roots
    );
    assert_eq!(
        seen, 3,
        "root statuses (failure, success, running): {:?}",
        r.roots
    );
}

#[test]
fn the_demo_calls_most_of_its_imports() {
    let tree = tree();
    let r = run(&tree);
    let called = r.calls.iter().filter(|&&n| n > 0).count();
    let missed: Vec<&str> = tree
        .imports
        .iter()
        .zip(&r.calls)
        .filter(|(_, &n)| n == 0)
        .map(|(i, _)| i.name.as_str())
        .collect();
    assert!(
        called * 5 >= tree.imports.len() * 4,
        "only {called} of {} imports were called; never called: {missed:?}",
        tree.imports.len()
    );
}

#[test]
fn the_demo_runs_deterministically() {
    let tree = tree();
    let a = run(&tree);
    let b = run(&tree);
    assert_eq!(a.checksum, b.checksum);
    assert_eq!(a.roots, b.roots);
    assert_eq!(a.calls, b.calls);
    // The run changed the world.
    let mut fresh = World::new(AGENTS as usize);
    fresh.bind(&tree.imports).unwrap();
    assert_ne!(a.checksum, fresh.checksum());
}

#[test]
fn the_vm_leaves_the_world_as_the_reference_does() {
    let tree = tree();
    let reference = run(&tree);
    let program = lower(&tree, &btvm::Limits::default()).expect("the demo lowers");
    let mut world = World::new(AGENTS as usize);
    program
        .bind(&mut world)
        .expect("the world binds the program");
    let mut batch = btvm::Batch::new(&program, AGENTS).unwrap();
    let mut roots = [0; 3];
    for tick in 0..TICKS {
        for &status in batch.tick(&mut world, tick * 100) {
            roots[status as usize] += 1;
        }
    }
    assert_eq!(roots, reference.roots);
    assert_eq!(world.checksum(), reference.checksum);
}

#[test]
fn binding_an_unknown_import_names_it() {
    let mut imports = tree().imports;
    imports.push(Import {
        name: "danceWildly".to_string(),
        kind: ImportKind::Action,
        min_args: 0,
        max_args: 0,
        long_running: false,
        claims: btvm::SlotClaims::default(),
        script: None,
    });
    let err = World::new(1).bind(&imports).unwrap_err();
    assert!(err.contains("danceWildly"), "{err}");

    let wrong_kind = [Import {
        name: "fight".to_string(),
        kind: ImportKind::Function,
        min_args: 0,
        max_args: 0,
        long_running: false,
        claims: btvm::SlotClaims::default(),
        script: None,
    }];
    let err = World::new(1).bind(&wrong_kind).unwrap_err();
    assert!(err.contains("fight") && err.contains("function"), "{err}");

    // The same through the `Host` binding hook engines use.
    let mut world = World::new(1);
    assert!(!world.bind_import(btvm::ImportId(0), &imports[imports.len() - 1]));
    assert!(world.bind_import(btvm::ImportId(0), &imports[0]));
}

fn example(file: &str, profile: Option<btvm_compiler::load::Profile>) -> Tree {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/examples")
        .join(file);
    let options = btvm_compiler::load::LoadOptions {
        profile,
        ..Default::default()
    };
    let mut sources = SourceMap::new();
    btvm_compiler::load::load(
        &path,
        &btvm_compiler::source::RealFs,
        &options,
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{file} does not load: {}", d[0].display(&sources)))
}

/// The checksum of `tree` on each engine and thread count, named.
fn bench_checksums(tree: &Tree) -> Vec<(String, u64)> {
    use btvm_benches::measure::{run_bench, BenchConfig, BenchEngine, HostKind};
    let cfg = BenchConfig {
        agents: 400,
        ticks: 10,
        step_ms: 100,
        awake_percent: 100,
    };
    let host = HostKind::for_tree(tree);
    let runs = [
        (BenchEngine::Reference, 1),
        (BenchEngine::Vm, 1),
        (BenchEngine::Vm, 2),
        (BenchEngine::Vm, 3),
        (BenchEngine::Native, 1),
        (BenchEngine::Native, 3),
    ];
    runs.iter()
        .map(|&(engine, threads)| {
            let row = run_bench(tree, engine, threads, host, &cfg)
                .unwrap_or_else(|d| panic!("{} does not run: {}", engine.name(), d.message));
            (format!("{} x{threads}", engine.name()), row.checksum)
        })
        .collect()
}

#[test]
#[cfg(feature = "jit")] // compares native code with the vm
fn the_example_mbt_and_bst_trees_get_events_and_every_engine_agrees() {
    let grunt = example("grunt/grunt.xml", None);
    let soldier = example(
        "squad_soldier.xml",
        Some(btvm_compiler::load::Profile::builtin("gamesdk").unwrap()),
    );
    // The same Grunt without its signals: it has no events then, so it idles.
    let mut deaf = grunt.clone();
    deaf.signals.clear();
    let mut sums = Vec::new();
    for (name, tree) in [
        ("grunt", &grunt),
        ("squad soldier", &soldier),
        ("deaf grunt", &deaf),
    ] {
        let all = bench_checksums(tree);
        assert!(
            all.iter().all(|(_, c)| *c == all[0].1),
            "{name}: the engines disagree: {all:x?}"
        );
        sums.push(all[0].1);
    }
    assert_ne!(sums[0], sums[2], "the Grunt's events changed nothing");
}

/// The time inside `Batch::tick` alone is reported for one-thread batch runs only, and it is
/// a part of the whole run's time (the harness's work between ticks is outside it).
#[test]
fn the_tick_alone_is_timed_on_one_thread_and_is_part_of_the_run() {
    use btvm_benches::measure::{run_bench, BenchConfig, BenchEngine, HostKind};
    let tree = example("wanderer/wanderer.debt", None);
    let cfg = BenchConfig {
        agents: 2000,
        ticks: 5,
        step_ms: 100,
        awake_percent: 10,
    };
    let host = HostKind::for_tree(&tree);
    let run = |engine, threads| {
        run_bench(&tree, engine, threads, host, &cfg)
            .unwrap_or_else(|d| panic!("{} does not run: {}", engine.name(), d.message))
    };
    let one = run(BenchEngine::Vm, 1);
    let alone = one
        .tick_ns_per_agent_tick
        .expect("a one-thread vm run times its ticks alone");
    assert!(
        alone > 0.0 && alone <= one.ns_per_agent_tick,
        "tick alone {alone} ns against the run's {} ns",
        one.ns_per_agent_tick
    );
    assert_eq!(run(BenchEngine::Vm, 2).tick_ns_per_agent_tick, None);
    assert_eq!(run(BenchEngine::Reference, 1).tick_ns_per_agent_tick, None);
}
