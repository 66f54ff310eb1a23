//! Subtree files.

use super::*;

#[test]
fn subtree_paths_are_relative_to_the_including_file() {
    let mut fs = MemFs::new();
    let files = [
        (
            "/t/main.debt",
            tree("<sequence><subtree>ai/patrol.debt</subtree><subtree>ai/x.debt</subtree></sequence>"),
        ),
        (
            "/t/ai/patrol.debt",
            tree(
                "<action name='patrol'/><subtree>legs/leg.debt</subtree>\
                 <subtree>../common/rest.debt</subtree><subtree>./legs/../legs/leg.debt</subtree>",
            ),
        ),
        ("/t/ai/legs/leg.debt", tree("<action name='leg'/>")),
        ("/t/common/rest.debt", tree("<action name='rest'/>")),
        ("/t/ai/x.debt", tree("<action name='abs'/>")),
        // Decoys: the same names relative to the main file's directory.
        ("/t/legs/leg.debt", tree("<action name='wrong'/>")),
        ("/common/rest.debt", tree("<action name='wrong'/>")),
    ];
    for (name, text) in &files {
        fs.insert(*name, text.clone().into_bytes());
    }
    let mut sources = SourceMap::new();
    let t = load(
        Path::new("/t/main.debt"),
        &fs,
        &Limits::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    let a = |n: &str| format!("guard @bound(action {n}) {{ action {n}() }}");
    assert_eq!(
        show_main(&t),
        format!(
            "sequence {{ sequence {{ {}; sequence {{ {} }}; sequence {{ {} }}; sequence {{ {} }} }}; \
             sequence {{ {} }} }}",
            a("patrol"),
            a("leg"),
            a("rest"),
            a("leg"),
            a("abs")
        )
    );
    // Each file is read once, however often it is included.
    assert_eq!(sources.files().len(), 5);
}

#[test]
fn a_missing_subtree_file_is_an_io_error_at_its_path() {
    let files = [(
        "main.debt",
        "<behaviorTree>\n<subtree>ai/none.debt</subtree></behaviorTree>",
    )];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!(d.kind, ErrorKind::Io);
    assert_eq!(at, "/t/main.debt:2:10");
    assert!(d.message.contains("/t/ai/none.debt"), "{}", d.message);
}

#[test]
fn subtree_paths_are_cleaned_as_the_original_cleans_them() {
    // Alone in the element, the path is trimmed.
    load_files(&[
        (
            "main.debt",
            "<behaviorTree><subtree>\n  s.debt\n</subtree></behaviorTree>",
        ),
        ("s.debt", "<behaviorTree/>"),
    ]);
    // After an attribute (the element's first node) one leading space stays.
    let files = [
        (
            "main.debt",
            "<behaviorTree><subtree id='x'>\n  s.debt\n</subtree></behaviorTree>",
        ),
        ("s.debt", "<behaviorTree/>"),
    ];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!((d.kind, at.as_str()), (ErrorKind::Io, "/t/main.debt:1:31"));
    assert!(
        d.notes.iter().any(|n| n.contains("whitespace")),
        "{:?}",
        d.notes
    );
}

#[test]
fn errors_in_subtree_files_point_into_them_with_the_include_site() {
    let files = [
        (
            "main.debt",
            "<behaviorTree>\n<subtree>a/a.debt</subtree></behaviorTree>",
        ),
        (
            "a/a.debt",
            "<behaviorTree>\n<subtree>b.debt</subtree></behaviorTree>",
        ),
        ("a/b.debt", "<behaviorTree>\n\n  <Yield/></behaviorTree>"),
    ];
    let (r, sources) = try_load_with(&files, &Limits::default());
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::UnknownName);
    assert_eq!(sources.locate(d.span), "/t/a/b.debt:3:3");
    let sites: Vec<String> = d.labels.iter().map(|l| sources.locate(l.span)).collect();
    assert_eq!(sites, ["/t/a/a.debt:2:1", "/t/main.debt:2:1"]);
}

#[test]
fn a_subtree_including_itself_is_a_cycle() {
    let (d, at) = err_with(
        &[(
            "main.debt",
            "<behaviorTree>\n<subtree>main.debt</subtree></behaviorTree>",
        )],
        &Limits::default(),
    );
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeCycle, "/t/main.debt:2:1")
    );
    let files = [
        (
            "main.debt",
            "<behaviorTree><subtree>ai/a.debt</subtree></behaviorTree>",
        ),
        (
            "ai/a.debt",
            "<behaviorTree><subtree>../b.debt</subtree></behaviorTree>",
        ),
        (
            "b.debt",
            "<behaviorTree>\n\n<subtree>./ai/a.debt</subtree></behaviorTree>",
        ),
    ];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeCycle, "/t/b.debt:3:1")
    );
    assert!(
        d.message
            .contains("/t/ai/a.debt -> /t/b.debt -> /t/ai/a.debt"),
        "{}",
        d.message
    );
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("/t/main.debt -> /t/ai/a.debt")),
        "{:?}",
        d.notes
    );
}

#[test]
fn subtree_chains_are_limited_by_the_include_depth() {
    let mut files: Vec<(String, String)> =
        vec![("main.debt".into(), tree("<subtree>f1.debt</subtree>"))];
    for i in 1..=5 {
        files.push((
            format!("f{i}.debt"),
            tree(&format!("<subtree>f{}.debt</subtree>", i + 1)),
        ));
    }
    files.push(("f6.debt".into(), tree("<success/>")));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let limits = |n| Limits {
        max_include_depth: n,
        ..Limits::default()
    };
    try_load_with(&files, &limits(6)).0.unwrap();
    let (d, at) = err_with(&files, &limits(5));
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeTooDeep, "/t/f5.debt:1:15")
    );
}

#[test]
fn depth_counts_through_subtrees_and_wrappers() {
    let files = [
        (
            "main.debt",
            tree("<sequence><subtree>s.debt</subtree></sequence>"),
        ),
        ("s.debt", tree("<action name='a' doNotFail='true'/>")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (*a, b.as_str())).collect();
    // sequence, subtree sequence, map, guard, action: 5 deep.
    let limits = |n| Limits {
        max_depth: n,
        ..Limits::default()
    };
    try_load_with(&files, &limits(5)).0.unwrap();
    let (d, at) = err_with(&files, &limits(4));
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::NestTooDeep, "/t/s.debt:1:15")
    );
}
