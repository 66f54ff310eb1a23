//! IR mapping: every node kind, child counts, case, parentheses.

use super::*;

#[test]
fn every_node_kind_maps_to_the_ir() {
    let t = load_ok(&[
        (
            "main.bt",
            "selectClass { spawnAs PCL_ALIEN_LEVEL0 }\n\
             selector {\n\
               fallback { action roam }\n\
               sequence { action fight }\n\
               concurrent { action flee action jump }\n\
               condition alertedToEnemy\n\
               condition team == TEAM_ALIENS { action rush }\n\
               decorator invert() { action jump }\n\
               decorator return(STATUS_RUNNING) { action heal }\n\
               decorator mapStatus(STATUS_SUCCESS, 0, 2) { action repair }\n\
               decorator timer(5000) { action suicide }\n\
               behavior sub\n\
               spawnAs 3\n\
             }",
        ),
        ("sub.bt", "action roamInRadius(E_GOAL, 250)"),
    ]);
    assert_eq!(t.roots.len(), 2);
    assert_eq!(t.roots[0].name, "main");
    assert_eq!(t.roots[1].name, "selectClass");
    assert_eq!(show(&t, t.roots[1].node), "spawnAs(3)");
    let r = root(&t);
    let kind = |i: usize| &t.node(r.children[i]).kind;
    assert_eq!(
        r.kind,
        NodeKind::Selector(Composite {
            resume: Resume::Restart,
            looping: false,
            cond: None
        })
    );
    assert_eq!(r.children.len(), 11);
    assert_eq!(
        *kind(0),
        NodeKind::Selector(Composite {
            resume: Resume::RunningList,
            looping: false,
            cond: None
        })
    );
    assert_eq!(
        *kind(1),
        NodeKind::Sequence(Composite {
            resume: Resume::RunningList,
            looping: false,
            cond: None
        })
    );
    assert_eq!(
        *kind(2),
        NodeKind::Parallel(Parallel {
            success: Quorum::All,
            failure: Quorum::Any,
            stop_on_failure: true,
            remember: false
        })
    );
    assert!(matches!(kind(3), NodeKind::Condition(Expr::Call(_))));
    match kind(4) {
        NodeKind::Guard(g) => assert_eq!(g.eval, GuardEval::EveryTick),
        k => panic!("{k:?}"),
    }
    assert_eq!(*kind(5), NodeKind::Invert);
    assert_eq!(
        show_main(&t),
        "selector { fallback { roam() }; sequence { fight() }; concurrent { flee(); jump() }; \
         cond alertedToEnemy(); guard (team() == 1) { rush() }; invert { jump() }; \
         map(running,running,running) { heal() }; map(success,failure,running) { repair() }; \
         timer(5000) { suicide() }; include sub; spawnAs(3) }"
    );
    // The include is a shared subtree.
    assert_eq!(t.subtrees.len(), 1);
    assert_eq!(t.subtrees[0].sharing, Sharing::Shared);
    assert_eq!(show(&t, t.subtrees[0].node), "roamInRadius(17, 250)");
    // Imports carry the game's spelling and the profile's arity and kind; they are deduplicated.
    let imp = |name: &str| t.imports.iter().find(|i| i.name == name).unwrap().clone();
    assert_eq!(t.imports.iter().filter(|i| i.name == "jump").count(), 1);
    let ri = imp("roamInRadius");
    assert_eq!(
        (ri.kind, ri.min_args, ri.max_args, ri.long_running),
        (ImportKind::Action, 2, 2, true)
    );
    let j = imp("jump");
    assert!(!j.long_running);
    let sp = imp("spawnAs");
    assert_eq!(
        (sp.kind, sp.min_args, sp.max_args, sp.long_running),
        (ImportKind::Action, 1, 1, false)
    );
    let team = imp("team");
    assert_eq!(
        (team.kind, team.min_args, team.max_args),
        (ImportKind::Function, 0, 0)
    );
    assert_eq!(t.dialect, btvm_compiler::ir::Dialect::Unvanquished);
}

#[test]
fn twenty_children_are_allowed_and_empty_lists_too() {
    let body: String = (0..20).map(|_| "action jump\n").collect();
    let t = load_src(&format!("sequence {{\n{body}}}"));
    assert_eq!(root(&t).children.len(), 20);
    let t = load_src("selector { sequence { } fallback {} concurrent{} }");
    assert_eq!(show_main(&t), "selector { sequence; fallback; concurrent }");
}

#[test]
fn keywords_and_names_are_case_insensitive_but_macros_are_not() {
    let t = load_src(
        "SELECTOR { Condition ALERTEDTOENEMY() { ACTION Fight } \
         Decorator INVERT() { action ROAM() } DECORATOR Return(1) { SpawnAs 2 } }",
    );
    assert_eq!(
        show_main(&t),
        "selector { guard alertedToEnemy() { fight() }; invert { roam() }; \
         map(success,success,success) { spawnAs(2) } }"
    );
    assert_eq!(err("action moveTo(e_goal)").0.kind, ErrorKind::Syntax);
}

#[test]
fn parentheses_are_optional_only_without_parameters() {
    assert_eq!(show_main(&load_src("action roam()")), "roam()");
    assert_eq!(expr_of("team() == team"), "(team() == team())");
    assert_err("action moveTo", ErrorKind::Arity, "1:8");
    assert_err("condition distanceTo > 5", ErrorKind::Arity, "1:11");
}
