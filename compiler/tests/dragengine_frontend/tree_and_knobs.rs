//! The tree and its knobs.

use super::*;

#[test]
fn an_empty_behavior_tree_is_a_failure_rule_named_root() {
    for src in [
        "<behaviorTree/>",
        "<?xml version='1.0'?>\n<!-- nothing -->\n<behaviorTree>\n  text is ignored\n</behaviorTree>\n",
    ] {
        let t = load_files(&[("main.debt", src)]);
        assert_eq!(show_main(&t), "failure#root");
        assert!(t.imports.is_empty());
    }
}

#[test]
fn the_tree_has_the_dragengine_knobs_and_one_entry() {
    let t = load_tree("<success/>");
    assert_eq!(t.dialect, Dialect::Dragengine);
    assert_eq!(t.config.model, Model::Cursor { runaway_limit: 100 });
    assert_eq!(t.config.root_finish, RootFinish::RestartOrStop);
    assert_eq!(t.roots.len(), 1);
    assert_eq!(t.roots[0].name, "main");
    assert!(t.subtrees.is_empty());
}

#[test]
fn load_routes_debt_files_to_this_front_end() {
    let fs = memfs(&[(
        "main.debt",
        tree("<sequence id='s'><action name='a'/><yield/></sequence>").as_bytes(),
    )]);
    let mut sources = SourceMap::new();
    let t = load::load(
        Path::new("/t/main.debt"),
        &fs,
        &LoadOptions::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    assert_eq!(
        show_main(&t),
        "sequence#s { guard @bound(action a) { action a() }; yield }"
    );
}
