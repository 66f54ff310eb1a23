//! The generated trees of `btvm bench --compile-stats`: they load, have about the size asked
//! for, are reproducible, and run identically on every engine against the bench world.
// Without native code the tests that compare it are compiled out, and their helpers unused.
#![cfg_attr(not(feature = "jit"), allow(unused))]

use btvm_benches::generate::{generated_tree, unvanquished_tree};
use btvm_benches::measure::{run_bench, BenchConfig, BenchEngine, HostKind};
use btvm_compiler::source::SourceMap;

#[test]
fn generated_trees_have_the_requested_size() {
    for n in [10usize, 100, 1_000, 10_000] {
        let mut sources = SourceMap::new();
        let tree = generated_tree(n, 7, &mut sources)
            .unwrap_or_else(|d| panic!("{n} nodes: {}", d[0].display(&sources)));
        let got = tree.nodes.len();
        assert!(
            got * 2 >= n && got <= n * 2,
            "asked for {n} nodes, got {got}"
        );
    }
}

#[test]
fn generation_is_reproducible_and_seeded() {
    assert_eq!(unvanquished_tree(500, 1), unvanquished_tree(500, 1));
    assert_ne!(unvanquished_tree(500, 1), unvanquished_tree(500, 2));
}

#[test]
#[cfg(feature = "jit")] // compares native code with the vm
fn generated_trees_run_identically_on_every_engine() {
    let mut sources = SourceMap::new();
    let tree = generated_tree(1_000, 3, &mut sources).unwrap();
    assert_eq!(HostKind::for_tree(&tree), HostKind::World);
    let cfg = BenchConfig {
        agents: 64,
        ticks: 40,
        step_ms: 100,
        awake_percent: 100,
    };
    let sums: Vec<u64> = BenchEngine::ALL
        .iter()
        .map(|&e| {
            run_bench(&tree, e, 1, HostKind::World, &cfg)
                .unwrap()
                .checksum
        })
        .collect();
    assert!(sums.windows(2).all(|w| w[0] == w[1]), "{sums:x?}");
}

/// A tree that imports nothing never calls the world, so the bench does not claim to run it
/// against the world (it said "host: simulated world" for the BST Grunt).
#[test]
fn a_tree_without_imports_gets_the_synthetic_host() {
    let src = "btvm 1;\ndialect unvanquished;\nroot main = const success\n";
    let tree = btvm_compiler::syntax::canonical::parse(
        btvm_compiler::source::FileId(0),
        src,
        &btvm::Limits::default(),
    )
    .unwrap();
    assert!(tree.imports.is_empty());
    assert_eq!(HostKind::for_tree(&tree), HostKind::Synthetic);
}
