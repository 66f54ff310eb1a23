//! `btvm run --trace nodes`: node events among the host calls (`spec/cases/README.md`), the
//! same on every engine, and nothing else changed; a model without node traces is refused.

mod common;

use common::{btvm, spec, text};

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
        for engine in ["vm", "native"] {
            let other = run(&["--trace", "nodes", "--engine", engine]);
            assert!(other.status.success(), "{}", text(&other.stderr));
            assert_eq!(text(&other.stdout), out, "{tree} on {engine}");
        }
    }
}

#[test]
fn trace_nodes_is_refused_where_the_model_has_none_yet() {
    let tree = spec("examples/figure1.spore");
    for engine in ["reference", "vm"] {
        let r = btvm(&["run", &tree, "--trace", "nodes", "--engine", engine]);
        assert_eq!(r.status.code(), Some(1), "{engine}");
        let err = text(&r.stderr);
        assert!(
            err.contains("node-level traces are not implemented for the decider model"),
            "{engine}: {err}"
        );
    }
}
