//! The example.

use super::*;

#[test]
fn the_wanderer_example_loads() {
    let path = manifest_dir().join("../spec/examples/wanderer/wanderer.debt");
    let mut sources = SourceMap::new();
    let t = load::load(&path, &RealFs, &LoadOptions::default(), &mut sources)
        .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    assert_eq!(t.dialect, Dialect::Dragengine);
    let names: Vec<&str> = t.imports.iter().map(|i| i.name.as_str()).collect();
    for want in ["timer.start", "timer.wait", "enemy.near", "move.to"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // Every rule that can return running has an id.
    for n in &t.nodes {
        let leaf_runs = matches!(
            n.kind,
            NodeKind::Action(_) | NodeKind::Yield | NodeKind::Const(Status::Running)
        );
        if leaf_runs {
            let id = NodeId(t.nodes.iter().position(|m| std::ptr::eq(m, n)).unwrap() as u32);
            let named = n.name.is_some() || outer_named(&t, id);
            assert!(named, "a running rule without an id: {:?}", n.kind);
        }
    }
    let all = ids(&t);
    assert!(all.iter().any(|i| i == "wanderer.patrol.walk"), "{all:?}");
    assert!(all.len() >= 8, "{all:?}");
}

/// Whether a wrapper above `id` (a guard or map of the same rule) carries the rule's id.
fn outer_named(t: &Tree, id: NodeId) -> bool {
    let mut cur = id;
    loop {
        let Some(parent) = t.nodes.iter().position(|n| n.children.contains(&cur)) else {
            return false;
        };
        let p = &t.nodes[parent];
        if !matches!(p.kind, NodeKind::Guard(_) | NodeKind::MapStatus(_)) {
            return false;
        }
        if p.name.is_some() {
            return true;
        }
        cur = NodeId(parent as u32);
    }
}
