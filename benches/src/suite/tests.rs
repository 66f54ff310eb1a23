use super::*;

#[test]
fn every_example_loads_in_a_fixed_order_with_its_model() {
    let trees = examples(&mut SourceMap::new()).expect("the examples load");
    let got: Vec<(&str, &str)> = trees.iter().map(|t| (t.name.as_str(), t.model())).collect();
    assert_eq!(
        got,
        [
            ("guard.bt", "running-list"),
            ("wanderer/wanderer.debt", "cursor"),
            ("figure1.spore", "decider"),
            ("grunt/grunt.xml", "selection"),
            ("squad_soldier.xml", "lifecycle"),
            ("human_soldier.xml", "lifecycle"),
        ]
    );
    // The issue's "large MBT tree of our own": at least 400 nodes.
    assert!(
        trees[5].tree.nodes.len() >= 400,
        "{}",
        trees[5].tree.nodes.len()
    );
}

#[test]
fn one_generated_tree_per_model_of_about_the_size_asked() {
    let mut sources = SourceMap::new();
    let trees = match generated(GENERATED_NODES, SEED, &mut sources) {
        Ok(t) => t,
        Err(d) => panic!("{}", d[0].display(&sources)),
    };
    let models: Vec<&str> = trees.iter().map(SuiteTree::model).collect();
    assert_eq!(
        models,
        [
            "running-list",
            "cursor",
            "decider",
            "lifecycle",
            "selection"
        ]
    );
    let sizes: Vec<(&str, usize)> = trees
        .iter()
        .map(|t| (t.name.as_str(), t.tree.nodes.len()))
        .collect();
    for t in &trees {
        let n = t.tree.nodes.len();
        assert!((800..=1_250).contains(&n), "{sizes:?}");
        assert_eq!(t.name, format!("generated-{}", t.model()));
    }
}

#[test]
fn generated_sources_are_a_function_of_size_and_seed() {
    for model in [
        "running-list",
        "cursor",
        "decider",
        "lifecycle",
        "selection",
    ] {
        let a = generated_source(model, 300, 5).unwrap();
        assert_eq!(a, generated_source(model, 300, 5).unwrap(), "{model}");
        assert_ne!(a, generated_source(model, 300, 6).unwrap(), "{model}");
    }
    assert!(generated_source("nosuch", 300, 5).is_none());
}

#[test]
fn small_and_odd_sizes_still_load() {
    for nodes in [0, 1, 7, 60, 250] {
        let mut sources = SourceMap::new();
        if let Err(d) = generated(nodes, 3, &mut sources) {
            panic!("{nodes} nodes: {}", d[0].display(&sources));
        }
    }
}

#[test]
fn the_generated_mbt_tree_uses_what_the_issue_asks_of_it() {
    let text = generated_source("lifecycle", GENERATED_NODES, SEED).unwrap();
    for feature in [
        "<State ",
        "<Priority>",
        "<GroupScope ",
        "<IfTime ",
        "<Timestamp ",
        "<Parallel ",
        "<Wait ",
    ] {
        assert!(text.contains(feature), "{feature}");
    }
}

#[test]
fn the_corpus_is_none_when_no_candidate_is_a_file() {
    let missing = [PathBuf::from("/nonexistent/btvm/default.bt")];
    assert!(corpus_default(&missing, &mut SourceMap::new()).is_none());
    // The candidates are `default.bt` paths, the current directory's first.
    let c = corpus_candidates();
    assert!(c[0].ends_with("shared/corpus/unvanquished/default.bt"));
    assert!(c[0].is_relative() && c.len() == 2);
}

/// The corpus file is outside input: garbage, binary bytes, a directory in its place or a tree
/// including a file outside the corpus are errors (or `None`), never a panic.
#[test]
fn a_hostile_corpus_file_is_an_error_never_a_panic() {
    let dir = std::env::temp_dir().join(format!("btvm-suite-corpus-{}", std::process::id()));
    let unv = dir.join("corpus/unvanquished");
    std::fs::create_dir_all(unv.join("default.bt")).unwrap();
    // A directory where the file should be is no candidate.
    assert!(corpus_default(&[unv.join("default.bt")], &mut SourceMap::new()).is_none());
    let hostile: [&[u8]; 5] = [
        b"selector {",
        b"\xff\xfe\x00garbage\x00",
        b"behavior ../../../../etc/passwd",
        b"behavior /etc/passwd",
        b"",
    ];
    for (k, bytes) in hostile.iter().enumerate() {
        let path = unv.join(format!("hostile{k}.bt"));
        std::fs::write(&path, bytes).unwrap();
        let got = corpus_default(std::slice::from_ref(&path), &mut SourceMap::new());
        assert!(
            matches!(got, Some(Err(_))),
            "{k}: {:?}",
            got.map(|r| r.is_ok())
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
