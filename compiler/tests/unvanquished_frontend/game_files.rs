//! The real game files.

use super::*;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/unvanquished");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: the Unvanquished corpus is not at {}",
            dir.display()
        );
        None
    }
}

// Loading and checking all 22 files is `tests/external_corpus.rs`; this file checks what the
// front-end makes of them.

#[test]
fn default_bt_includes_the_subroutines() {
    let Some(dir) = corpus() else { return };
    let mut sources = SourceMap::new();
    let tree = load(
        &dir.join("default.bt"),
        &RealFs,
        &Limits::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    let mut names: Vec<&str> = tree.subtrees.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "subroutine_become_builder_aliens",
            "subroutine_become_builder_humans",
            "subroutine_evolve",
            "subroutine_extinguish_fire",
            "subroutine_fight_or_flight_aliens",
            "subroutine_fight_or_flight_humans",
            "subroutine_heal_humans",
            "subroutine_reload",
            "subroutine_repair",
            "subroutine_throw_grenade",
            "subroutine_unstick",
            "subroutine_use_medkit",
        ]
    );
    assert_eq!(tree.roots.len(), 2);
    assert_eq!(tree.roots[1].name, "selectClass");
    // Every import is in the profile, with the profile's spelling.
    let profile = btvm_compiler::syntax::Profile::builtin("unvanquished").unwrap();
    let profile = profile.unvanquished().unwrap();
    for imp in &tree.imports {
        let known = match imp.kind {
            ImportKind::Action => {
                profile.action(&imp.name).map(|a| a.name.as_str()) == Some(imp.name.as_str())
                    || imp.name == "spawnAs"
            }
            ImportKind::Function => {
                profile.function(&imp.name).map(|f| f.name.as_str()) == Some(imp.name.as_str())
            }
        };
        assert!(known, "{imp:?}");
    }
    // The subroutines were read from the corpus directory and registered for diagnostics.
    assert!(sources.files().len() >= 11);
    // The selectClass entry spawns builders or fighters.
    let sc = show(&tree, tree.roots[1].node);
    assert!(
        sc.contains("spawnAs(2)") && sc.contains("spawnAs(22)"),
        "{sc}"
    );
    // Fight-or-flight keeps its condition idiom: a sequence whose second child is a guard.
    let fof = tree
        .subtrees
        .iter()
        .find(|s| s.name == "subroutine_fight_or_flight_aliens")
        .unwrap();
    assert!(show(&tree, fof.node)
        .starts_with("selector { sequence { cond alertedToEnemy(); selector { timer(5000)"));
}
