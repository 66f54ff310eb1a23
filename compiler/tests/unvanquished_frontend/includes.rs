//! Included behaviors: sharing, name resolution, cycles, depth.

use super::*;

#[test]
fn a_behavior_included_twice_is_one_shared_subtree() {
    let t = load_ok(&[
        (
            "main.bt",
            "selector { behavior sub behavior a behavior SUB }",
        ),
        ("a.bt", "sequence { behavior Sub action jump }"),
        ("sub.bt", "action roam()"),
    ]);
    assert_eq!(t.subtrees.len(), 2);
    let names: Vec<&str> = t.subtrees.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["sub", "a"]);
    assert_eq!(
        show_main(&t),
        "selector { include sub; include a; include sub }"
    );
    assert_eq!(
        show(&t, t.subtrees[1].node),
        "sequence { include sub; jump() }"
    );
    let includes: Vec<_> = t
        .nodes
        .iter()
        .filter_map(|n| match n.kind {
            NodeKind::Include(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(includes.len(), 4);
    assert_eq!(includes[0], includes[2]);
    assert_eq!(includes[0], includes[3]);
    assert!(t.subtrees.iter().all(|s| s.sharing == Sharing::Shared));
}

#[test]
fn behavior_names_resolve_case_insensitively_in_the_includers_directory() {
    let t = load_ok(&[
        ("bots/main.bt", "behavior Subroutine_X"),
        ("bots/subroutine_x.bt", "action roam()"),
        ("subroutine_x.bt", "action jump"),
    ]);
    assert_eq!(show(&t, t.subtrees[0].node), "roam()");
}

#[test]
fn behaviors_start_with_only_the_global_defines_and_drop_select_class() {
    let t = load_ok(&[
        ("main.bt", "selectClass { spawnAs 1 }\nbehavior b"),
        ("b.bt", "selectClass { spawnAs 2 }\naction moveTo(E_SELF)"),
    ]);
    assert_eq!(t.roots.len(), 2);
    assert_eq!(show(&t, t.roots[1].node), "spawnAs(1)");
    assert_eq!(show(&t, t.subtrees[0].node), "moveTo(22)");
    // A macro of the includer is not visible in the behavior.
    let (d, at) = err_files(&[
        ("main.bt", "#define R roam\nbehavior b"),
        ("b.bt", "action R"),
    ]);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::UnknownName, "/t/b.bt:1:8")
    );
    // Errors in an included selectClass still count.
    let (d, _) = err_files(&[
        ("main.bt", "behavior b"),
        ("b.bt", "selectClass { action nope }\naction roam"),
    ]);
    assert_eq!(d.kind, ErrorKind::UnknownName);
}

#[test]
fn include_cycles_are_errors() {
    let (d, at) = err_files(&[
        ("main.bt", "selector {\n  behavior a\n  action roam\n}"),
        ("a.bt", "behavior b"),
        ("b.bt", "sequence {\n  behavior a\n}"),
    ]);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeCycle, "/t/b.bt:2:3")
    );
    assert!(
        d.message.contains("recursive behavior `a`"),
        "{}",
        d.message
    );
    assert!(
        d.notes[0].contains("main.bt -> /t/a.bt -> /t/b.bt -> a.bt"),
        "{:?}",
        d.notes
    );
    let (d, at) = err_files(&[("main.bt", "selector {\n  behavior MAIN\n}")]);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeCycle, "/t/main.bt:2:3")
    );
}

#[test]
fn a_missing_behavior_is_an_io_error_at_the_behavior_node() {
    let (d, at) = err_files(&[("main.bt", "selector {\n    behavior missing\n}")]);
    assert_eq!((d.kind, at.as_str()), (ErrorKind::Io, "/t/main.bt:2:5"));
    assert!(d.message.contains("/t/missing.bt"), "{}", d.message);
}

#[test]
fn errors_in_included_files_are_positioned_there() {
    let (r, sources) = try_load_with(
        &[
            ("main.bt", "selector {\n  behavior a\n}"),
            ("a.bt", "sequence {\n  behavior b\n}"),
            ("b.bt", "action\n  dance"),
        ],
        &Limits::default(),
    );
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::UnknownName);
    assert_eq!(sources.locate(d.span), "/t/b.bt:2:3");
    let labels: Vec<String> = d.labels.iter().map(|l| sources.locate(l.span)).collect();
    assert_eq!(labels, ["/t/a.bt:2:3", "/t/main.bt:2:3"]);
}

#[test]
fn include_depth_is_limited() {
    let mut files: Vec<(String, String)> = vec![("main.bt".into(), "behavior b0".into())];
    for i in 0..70 {
        files.push((format!("b{i}.bt"), format!("behavior b{}", i + 1)));
    }
    files.push(("b70.bt".into(), "action roam()".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (d, at) = err_files(&refs);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeTooDeep, "/t/b63.bt:1:1")
    );
    // Node depth counts across includes, also for a behavior already loaded.
    let mut limits = Limits::new();
    limits.max_depth = 4;
    let ok = [
        ("main.bt", "selector { behavior b }"),
        ("b.bt", "selector { action roam }"),
    ];
    let (r, _) = try_load_with(&ok, &limits);
    assert!(r.is_ok());
    let deep = [
        (
            "main.bt",
            "selector { behavior b selector { selector { behavior b } } }",
        ),
        ("b.bt", "selector { action roam }"),
    ];
    let (d, at) = err_with(&deep, &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::NestTooDeep, "/t/main.bt:1:45")
    );
}
