//! `btvm run --trace nodes`: node events among the host calls (`spec/cases/README.md`), the
//! same on every engine, and nothing else changed, for every dialect.

mod common;

use common::{btvm, compiled_engines, spec, text};

#[test]
fn trace_nodes_adds_only_node_lines_and_every_engine_agrees() {
    for (tree, extra) in [
        ("examples/guard.bt", &[][..]),
        ("examples/wanderer/wanderer.debt", &[][..]),
        (
            "examples/squad_soldier.xml",
            &["--dialect", "mbt", "--profile", "gamesdk"][..],
        ),
        ("examples/grunt/grunt.xml", &["--dialect", "bst"][..]),
    ] {
        let tree = spec(tree);
        let run = |more: &[&str]| {
            let mut args = vec!["run", tree.as_str(), "--ticks", "4"];
            args.extend_from_slice(extra);
            args.extend_from_slice(more);
            btvm(&args)
        };
        let plain = run(&[]);
        assert!(plain.status.success(), "{}", text(&plain.stderr));
        let reference = run(&["--trace", "nodes"]);
        assert!(reference.status.success(), "{}", text(&reference.stderr));
        let out = text(&reference.stdout);
        assert!(out.contains("node 0 ") && out.contains(" enter\n"), "{out}");
        let stripped: String = out
            .lines()
            .filter(|l| !l.trim_start().starts_with("node "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(stripped, text(&plain.stdout), "{tree}");
        for &engine in compiled_engines() {
            let other = run(&["--trace", "nodes", "--engine", engine]);
            assert!(other.status.success(), "{}", text(&other.stderr));
            assert_eq!(text(&other.stdout), out, "{tree} on {engine}");
        }
    }
}

/// Spore (the decider model): figure 1's day in the life, traced, is the untraced trace with
/// node lines added, the same on every engine; each Decide and each run of a decider is a pair
/// of events (`spec/semantics.md` 4.7).
#[test]
fn trace_nodes_on_the_figure1_spore_tree_is_alike_on_every_engine() {
    let (tree, scn) = (spec("examples/figure1.spore"), spec("examples/figure1.scn"));
    let run = |more: &[&str]| {
        let mut args = vec!["run", tree.as_str(), "--scenario", scn.as_str()];
        args.extend_from_slice(more);
        let r = btvm(&args);
        assert!(r.status.success(), "{more:?}: {}", text(&r.stderr));
        text(&r.stdout)
    };
    let plain = run(&[]);
    let out = run(&["--trace", "nodes"]);
    // Tick 0: ROOT (node 0) is decided, then activated.
    assert!(
        out.contains("tick 0 now 0\n  node 0 decider enter\n  node 0 decider -> success\n  node 0 decider enter\n"),
        "{out}"
    );
    assert!(out.contains(" decider -> running\n") && out.contains(" decider -> failure\n"));
    let stripped: String = out
        .lines()
        .filter(|l| !l.trim_start().starts_with("node "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(stripped, plain);
    for &engine in ["reference"].iter().chain(compiled_engines()) {
        assert_eq!(
            run(&["--trace", "nodes", "--engine", engine]),
            out,
            "{engine}"
        );
    }
}
