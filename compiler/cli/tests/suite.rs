//! `btvm bench --suite` (issue 28): every tree of the suite on every engine, the checksums
//! agreeing, ratios that follow from the figures printed beside them, and the usage errors.

mod common;

use common::{btvm, spec, temp, text};
use serde_json::Value;

/// The trees the suite always has (the corpus's `default.bt` only when `../shared` exists).
const TREES: [(&str, &str); 11] = [
    ("guard.bt", "running-list"),
    ("wanderer/wanderer.debt", "cursor"),
    ("figure1.spore", "decider"),
    ("grunt/grunt.xml", "selection"),
    ("squad_soldier.xml", "lifecycle"),
    ("human_soldier.xml", "lifecycle"),
    ("generated-running-list", "running-list"),
    ("generated-cursor", "cursor"),
    ("generated-decider", "decider"),
    ("generated-lifecycle", "lifecycle"),
    ("generated-selection", "selection"),
];

fn suite_json(extra: &[&str]) -> Value {
    let mut args = vec![
        "bench", "--suite", "--agents", "50", "--ticks", "3", "--runs", "1", "--json",
    ];
    args.extend_from_slice(extra);
    let out = btvm(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).expect("one JSON document")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn ns(results: &[Value], engine: &str, threads: u64) -> f64 {
    results
        .iter()
        .find(|r| r["engine"] == engine && r["threads"] == threads)
        .and_then(|r| r["ns_per_agent_tick"].as_f64())
        .unwrap_or_else(|| panic!("no {engine} x{threads} row"))
}

/// Checks one tree's summary against its rows: every engine present on 1 and 2 threads,
/// ratios and scaling computed from the ns figures, one checksum.
fn check_tree(t: &Value, engines: &[&str]) {
    let name = t["tree"].as_str().unwrap();
    assert_eq!(t["checksums_agree"], true, "{name}");
    let results = t["results"].as_array().unwrap();
    let sums: Vec<&Value> = results.iter().map(|r| &r["checksum"]).collect();
    assert!(sums.windows(2).all(|w| w[0] == w[1]), "{name}: {sums:?}");
    // The reference runs on one thread, the others on 1 and 2.
    let expected = 1 + 2 * (engines.len() - 1);
    assert_eq!(results.len(), expected, "{name}");
    let reference = ns(results, "reference", 1);
    for s in t["engines"].as_array().unwrap() {
        let engine = s["engine"].as_str().unwrap();
        assert!(engines.contains(&engine), "{name}: {engine}");
        let one = ns(results, engine, 1);
        assert!(
            close(s["ns_per_agent_tick"].as_f64().unwrap(), one),
            "{name}"
        );
        let vs_ref = s["vs_reference"].as_f64().unwrap();
        assert!(close(vs_ref, reference / one), "{name} {engine}: {vs_ref}");
        assert!(s["state_bytes_per_agent"].as_u64().unwrap() > 0, "{name}");
        if engine == "reference" {
            assert!(s["scaling"].is_null(), "{name}");
            continue;
        }
        let scaling = &s["scaling"];
        assert_eq!(
            (
                scaling["from_threads"].as_u64(),
                scaling["to_threads"].as_u64()
            ),
            (Some(1), Some(2))
        );
        let two = ns(results, engine, 2);
        assert!(
            close(scaling["speedup"].as_f64().unwrap(), one / two),
            "{name} {engine}"
        );
        let native_vs_vm = s["native_vs_vm"].as_f64();
        if engine == "native" {
            let vm = ns(results, "vm", 1);
            assert!(close(native_vs_vm.unwrap(), vm / one), "{name}");
        } else {
            assert_eq!(native_vs_vm, None, "{name}");
        }
    }
}

#[test]
#[cfg(feature = "jit")] // times native code
fn the_suite_times_every_tree_on_every_engine_and_the_checksums_agree() {
    let doc = suite_json(&[]);
    assert_eq!(doc["agents"], 50);
    assert_eq!(doc["ticks"], 3);
    assert_eq!(doc["runs"], 1);
    assert_eq!(doc["threads"], serde_json::json!([1, 2]));
    assert_eq!(doc["checksums_agree"], true);
    let trees = doc["trees"].as_array().unwrap();
    let names: Vec<&str> = trees.iter().map(|t| t["tree"].as_str().unwrap()).collect();
    for (name, model) in TREES {
        let t = trees
            .iter()
            .find(|t| t["tree"] == name)
            .unwrap_or_else(|| panic!("{name} missing from {names:?}"));
        assert_eq!(t["model"], model, "{name}");
        check_tree(t, &["reference", "vm", "native"]);
    }
    let corpus =
        std::path::Path::new(&spec("")).join("../../shared/corpus/unvanquished/default.bt");
    let has_corpus = names.contains(&"corpus/unvanquished/default.bt");
    assert_eq!(has_corpus, corpus.is_file(), "{names:?}");
    assert_eq!(trees.len(), TREES.len() + usize::from(has_corpus));
}

#[test]
fn the_table_shows_every_figure_and_ends_with_the_agreement() {
    let svg = temp("suite.svg", "");
    let out = btvm(&[
        "bench",
        "--suite",
        "--agents",
        "20",
        "--ticks",
        "2",
        "--engines",
        "reference,vm",
        "--runs",
        "2",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for needle in [
        "ns x1",
        "ns x2",
        "vs ref",
        "native/vm",
        "state B",
        "scaling",
        "generated-lifecycle",
        "human_soldier.xml",
        "machine: ",
        "2 interleaved runs",
    ] {
        assert!(table.contains(needle), "{needle} missing: {table}");
    }
    let last = table.lines().last().unwrap_or("");
    assert!(last.starts_with("checksums agree: "), "{table}");
    // Two engines, the vm on two thread counts: three rows per tree, two runs each.
    let trees = TREES.len() + usize::from(table.contains("corpus/unvanquished/default.bt"));
    let runs = format!("{} engine runs on {trees} trees (2 each)", 3 * 2 * trees);
    assert!(last.contains(&runs), "{last}");
    // The chart: a bar per tree and engine on one thread.
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg"), "{chart}");
    for needle in ["generated-selection vm x1", "guard.bt reference x1"] {
        assert!(chart.contains(needle), "{needle} missing");
    }
}

#[test]
fn the_engines_and_threads_asked_for_are_the_ones_timed() {
    let doc = suite_json(&["--engines", "reference,vm", "--threads", "1,2"]);
    for t in doc["trees"].as_array().unwrap() {
        check_tree(t, &["reference", "vm"]);
    }
}

#[test]
fn suite_with_a_file_or_another_workload_is_a_usage_error() {
    let guard = spec("examples/guard.bt");
    for args in [
        &["bench", "--suite", guard.as_str()][..],
        &["bench", "--suite", "--workload", "fight-or-flight"][..],
        &["bench", "--suite", "--compile-stats"][..],
        &["bench", "--suite", "--awake", "50"][..],
        &["bench", "--suite", "--host", "world"][..],
        &["bench", "--suite", "--agents", "0"][..],
    ] {
        let out = btvm(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
