//! The external conformance corpus: the real Unvanquished bot trees in
//! `../shared/corpus/unvanquished/` (read in place, never copied into the project).
//!
//! Every file must load and check with the game profile, and `default.bt` must run 1,000 ticks
//! of `spec/scenarios/default-bot.scn` on every engine with identical traces. When the corpus
//! folder is absent the tests say so and pass.

use std::path::{Path, PathBuf};

use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{RealFs, SourceMap};
use btvm_testkit::compare::Contender;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/unvanquished");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: external corpus not found at {}", dir.display());
        None
    }
}

#[test]
fn every_real_file_checks() {
    let Some(dir) = corpus() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bt"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        22,
        "the corpus should hold the game's 22 trees"
    );
    for path in &files {
        let mut sources = SourceMap::new();
        let result = load(path, &RealFs, &LoadOptions::default(), &mut sources);
        if let Err(diags) = result {
            let msgs: Vec<String> = diags
                .iter()
                .map(|d| d.display(&sources).to_string())
                .collect();
            panic!("{} failed to load:\n{}", path.display(), msgs.join("\n"));
        }
    }
}

#[test]
fn default_bot_runs_a_thousand_ticks() {
    let Some(dir) = corpus() else { return };
    let mut sources = SourceMap::new();
    let tree = load(
        &dir.join("default.bt"),
        &RealFs,
        &LoadOptions::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    assert!(
        tree.subtrees.len() >= 10,
        "default.bt includes the subroutines"
    );
    let scn_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/scenarios/default-bot.scn");
    let text = std::fs::read_to_string(&scn_path).unwrap();
    let file = sources.add(scn_path, text.clone());
    let scenario = parse_scenario(file, &text).unwrap();
    assert_eq!(scenario.ticks, 1000);
    let traces: Vec<_> = Contender::ALL
        .iter()
        .map(|e| e.run(&tree, &scenario).unwrap())
        .collect();
    for t in &traces[1..] {
        assert!(
            traces[0].diff(t).is_none(),
            "engines disagree on default.bt"
        );
    }
    let roots = traces[0]
        .lines()
        .iter()
        .filter(|l| l.starts_with("root "))
        .count();
    assert_eq!(roots, 4000, "one root status per agent per tick");
    // The bots actually do things: both teams' subtrees are reached.
    let t = traces[0].to_string();
    for action in ["fight()", "roam()", "heal()", "rush()"] {
        assert!(t.contains(action), "{action} never called");
    }
}
