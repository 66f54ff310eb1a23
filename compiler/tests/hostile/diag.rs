//! Errors in the library (issue 26, item 9): a load reports every independent error of a file,
//! in order, bounded by `Limits::max_errors`; a failed load is a `Report` that prints a snippet
//! and is a `std::error::Error`; and no library message names a command-line flag.
//!
//! The files of `many_errors/` each hold several independent mistakes and, in comments, one
//! `expect: LINE KIND [message substring]` line per error, in the order they must come.

use std::error::Error;
use std::path::{Path, PathBuf};

use btvm_compiler::diag::{Diagnostic, ErrorKind, Report};
use btvm_compiler::load::{load, load_path, LoadOptions};
use btvm_compiler::source::{RealFs, SourceMap};

use super::try_load;

/// The folder of files with several errors each.
fn many_errors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/many_errors")
}

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("the folder exists") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `expect:` lines of a file: (line, kind name, message substring).
fn expectations(text: &str) -> Vec<(usize, String, String)> {
    text.lines()
        .filter_map(|l| l.split_once("expect: ").map(|(_, e)| e.trim()))
        .map(|e| {
            let mut parts = e.splitn(3, ' ');
            let line = parts
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a line number");
            let kind = parts.next().expect("a kind").to_string();
            let text = parts.next().unwrap_or("").to_string();
            (line, kind, text)
        })
        .collect()
}

/// Loads `path` with `options`; the errors (warnings left out) and the sources.
fn errors_of(path: &Path, options: &LoadOptions) -> (Vec<Diagnostic>, SourceMap) {
    let mut sources = SourceMap::new();
    let diags = load(path, &RealFs, options, &mut sources)
        .expect_err("every file of many_errors/ fails to load");
    (diags, sources)
}

#[test]
fn every_independent_error_is_reported_in_order() {
    let files = files_under(&many_errors());
    assert!(files.len() >= 5, "one file per dialect at least: {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let expected = expectations(&text);
        assert!(
            expected.len() >= 2,
            "{}: expects several errors",
            path.display()
        );
        let (diags, sources) = errors_of(&path, &LoadOptions::default());
        let got: Vec<String> = diags
            .iter()
            .map(|d| format!("{} {}", d.display(&sources), d.kind_name()))
            .collect();
        assert_eq!(diags.len(), expected.len(), "{}: {got:#?}", path.display());
        for (d, (line, kind, message)) in diags.iter().zip(&expected) {
            let at = sources
                .get(d.span.file)
                .expect("positioned")
                .line_col(d.span.start);
            assert_eq!(
                (at.0, d.kind_name()),
                (*line, kind.clone()),
                "{}: {got:#?}",
                path.display()
            );
            assert!(
                d.message.contains(message.as_str()),
                "{}: {got:#?}",
                path.display()
            );
        }
    }
}

/// The kind's name as the case files write it.
trait KindName {
    fn kind_name(&self) -> String;
}

impl KindName for Diagnostic {
    fn kind_name(&self) -> String {
        format!("{:?}", self.kind)
    }
}

#[test]
fn the_first_error_alone_is_the_first_of_all() {
    // With room for one error, each file reports exactly its first one, with a note that
    // there were more; with room for all, the same one comes first.
    for path in files_under(&many_errors()) {
        let mut one = LoadOptions::default();
        one.limits.max_errors = 1;
        let (first, _) = errors_of(&path, &one);
        let (all, _) = errors_of(&path, &LoadOptions::default());
        assert_eq!(first.len(), 1, "{}", path.display());
        assert_eq!(
            (first[0].kind, first[0].span, &first[0].message),
            (all[0].kind, all[0].span, &all[0].message)
        );
        assert!(
            first[0].notes.iter().any(|n| n.contains("too many errors")),
            "{}: {:?}",
            path.display(),
            first[0].notes
        );
    }
}

#[test]
fn a_subtree_files_errors_are_all_reported_at_their_site() {
    // Drag[en]gine: the errors are in the subtree file, each labelled with the `<subtree>`
    // that includes it (line 10 of uses.debt).
    let (diags, sources) = errors_of(
        &many_errors().join("subtree/uses.debt"),
        &LoadOptions::default(),
    );
    assert_eq!(diags.len(), 3);
    for d in &diags {
        let file = sources.get(d.span.file).expect("positioned");
        assert!(file.path.ends_with("parts.debt"), "{}", file.path.display());
        let site = d.labels.first().expect("the include site");
        let uses = sources.get(site.span.file).expect("positioned");
        assert!(uses.path.ends_with("uses.debt"), "{}", uses.path.display());
        assert_eq!(uses.line_col(site.span.start).0, 10);
    }
}

/// `n` unknown actions in Unvanquished sequences of up to 20 (the game's most children) in
/// one selector, and `n` unknown nodes in MBT sequences of up to 200 (MBT's most: 255).
fn floods(n: usize) -> [(&'static str, String); 2] {
    let groups = |size: usize, open: &str, leaf: &str, close: &str| -> String {
        (0..n)
            .step_by(size)
            .map(|i| format!("{open}\n{}{close}\n", leaf.repeat((n - i).min(size))))
            .collect()
    };
    let bt = format!(
        "selector {{\n{}}}\n",
        groups(20, "sequence {", "action nope\n", "}")
    );
    let xml = format!(
        "<BehaviorTree><Root><Sequence>\n{}</Sequence></Root></BehaviorTree>",
        groups(200, "<Sequence>", "<Nope/>\n", "</Sequence>")
    );
    [("main.bt", bt), ("main.xml", xml)]
}

#[test]
fn errors_are_bounded() {
    for (name, text) in floods(20_000) {
        let (result, _) = try_load(&[(name, text.as_bytes())]);
        let diags = result.expect_err("a flood of unknown names fails");
        let bound = LoadOptions::default().limits.max_errors;
        assert_eq!(diags.len(), bound, "{name}: {:?}", diags.first());
        assert!(
            diags.iter().all(|d| d.kind == ErrorKind::UnknownName),
            "{name}"
        );
        let last = diags.last().expect("errors");
        assert!(
            last.notes.iter().any(|n| n.contains("too many errors")),
            "{name}"
        );
        // Below the bound every error is there, and no note says otherwise.
        let (result, _) = try_load(&[(
            name,
            floods(7)[usize::from(name.ends_with(".xml"))].1.as_bytes(),
        )]);
        let diags = result.expect_err("unknown names fail");
        assert_eq!(diags.len(), 7, "{name}");
        assert!(diags
            .iter()
            .all(|d| d.notes.iter().all(|n| !n.contains("too many"))));
    }
}

/// `n` syntax errors in the canonical syntax (one per node), in Spore (one per item) and `n`
/// unknown node types in a BST Priority.
fn syntax_floods(n: usize) -> [(&'static str, String); 3] {
    let btn = format!(
        "btvm 1;\ndialect unvanquished;\nimport action a 0..0 long;\n\
         root main = sequence restart {{\n{}}}\n",
        "action a(,)\n".repeat(n)
    );
    let spore = format!("spore 1;\n{}", "behavior 7;\n".repeat(n));
    let bst = format!(
        "<SelectionTrees><SelectionTree name='T' type='t'><Priority name='P'>\n{}\
         </Priority></SelectionTree></SelectionTrees>",
        "<Nope name='x'/>\n".repeat(n)
    );
    [("main.btn", btn), ("main.spore", spore), ("main.xml", bst)]
}

#[test]
fn recovered_errors_are_bounded() {
    let bound = LoadOptions::default().limits.max_errors;
    for ((name, flood), (_, few)) in syntax_floods(5_000).into_iter().zip(syntax_floods(7)) {
        let (result, sources) = try_load(&[(name, flood.as_bytes())]);
        let diags = result.expect_err("a flood of errors fails");
        assert_eq!(diags.len(), bound, "{name}: {:?}", diags.first());
        // One error per broken line, in order, from the first broken line (5, 2 and 2: the
        // lines after each flood's header).
        let first = [5, 2, 2]
            [usize::from(name.ends_with(".spore")) + 2 * usize::from(name.ends_with(".xml"))];
        for (i, d) in diags.iter().enumerate() {
            let at = sources.get(d.span.file).expect("positioned");
            assert_eq!(
                at.line_col(d.span.start).0,
                first + i,
                "{name}: {}",
                d.message
            );
        }
        let last = diags.last().expect("errors");
        assert!(
            last.notes.iter().any(|n| n.contains("too many errors")),
            "{name}"
        );
        // Below the bound every error is there, and no note says otherwise.
        let (result, _) = try_load(&[(name, few.as_bytes())]);
        let diags = result.expect_err("broken statements fail");
        assert_eq!(diags.len(), 7, "{name}: {diags:?}");
        assert!(diags
            .iter()
            .all(|d| d.notes.iter().all(|n| !n.contains("too many"))));
    }
}

#[test]
fn recovery_survives_unbalanced_and_stray_delimiters() {
    // Recovery skips by braces and parentheses; input where they do not pair must still fail
    // with a few positioned errors, the same each time, never hang, panic or load.
    let head = "btvm 1;\ndialect unvanquished;\nimport action a 0..0 long;\n";
    let cases: Vec<(&str, String)> = vec![
        (
            "main.btn",
            format!("{head}root m = sequence restart {{ action a( }}\n"),
        ),
        (
            "main.btn",
            format!("{head}root m = sequence restart {{ ) ) action a() }}\n"),
        ),
        (
            "main.btn",
            format!("{head}root m = sequence restart {{ action a() }} }} }}\n"),
        ),
        (
            "main.btn",
            format!("{head}root m = {{ {{ action a()\nroot n = action a()\n"),
        ),
        (
            "main.btn",
            format!("{head}root m = action a() ) root n = (\n"),
        ),
        (
            "main.spore",
            "spore 1;\nroot R => prioritized { A => ( ; } }\n".to_string(),
        ),
        (
            "main.spore",
            "spore 1;\nbehavior a tick;\n} ) decider X => a;\n".to_string(),
        ),
        (
            "main.spore",
            "spore 1;\nroot R => prioritized { A => a; { B => a; }\n".to_string(),
        ),
    ];
    for (name, text) in cases {
        let (first, _) = try_load(&[(name, text.as_bytes())]);
        let (again, _) = try_load(&[(name, text.as_bytes())]);
        let diags = first.expect_err("broken input fails");
        assert!(!diags.is_empty() && diags.len() <= 4, "{text}: {diags:?}");
        assert!(
            diags.iter().all(|d| d.span.end as usize <= text.len()),
            "{text}"
        );
        assert_eq!(Some(diags), again.err(), "{text}");
    }
}

#[test]
fn a_report_shows_the_snippet() {
    let path = many_errors().join("bots/names.bt");
    let report = load_path(&path, &LoadOptions::default()).expect_err("three unknown names");
    assert_eq!(report.diagnostics().len(), 3);
    let shown = report.to_string();
    // The position, the source line (its tab shown as a space) and a caret under the name.
    let at = format!("{}:7:9", path.display());
    assert!(shown.contains(&format!("--> {at}")), "{shown}");
    assert!(shown.contains("7 |  action fihgt\n"), "{shown}");
    assert!(shown.contains("  |         ^^^^^\n"), "{shown}");
    assert!(
        shown.contains("error[UnknownName]: unknown action `fihgt`"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("{}:10:9", path.display())),
        "{shown}"
    );
}

#[test]
fn a_report_is_an_error() {
    fn start(path: &Path) -> Result<(), Box<dyn Error>> {
        let _tree = load_path(path, &LoadOptions::default())?;
        Ok(())
    }
    let err = start(&many_errors().join("nodes.xml")).expect_err("unknown nodes");
    let report = err
        .downcast_ref::<Report>()
        .expect("the error is the report");
    assert_eq!(report.diagnostics().len(), 3);
    assert!(err.to_string().contains("nodes.xml:10:13"), "{err}");
    assert!(start(&many_errors().join("absent.bt"))
        .expect_err("no such file")
        .to_string()
        .contains("error[Io]"));
}

/// Whether `text` names a command-line flag: ` --` followed by a letter, or one at the start.
fn names_a_flag(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(2)).any(|i| {
        (i == 0 || !b[i - 1].is_ascii_alphanumeric())
            && b[i] == b'-'
            && b[i + 1] == b'-'
            && b[i + 2].is_ascii_alphabetic()
    })
}

#[test]
fn no_library_message_names_a_flag() {
    assert!(names_a_flag("pass --dialect x") && names_a_flag("`--root DIR`"));
    assert!(!names_a_flag("a -- b") && !names_a_flag("<!-- x -->") && !names_a_flag("x--y"));
    let failing: [(&str, &[u8]); 8] = [
        ("main.txt", b"selector { action roam }"),
        (
            "main.debt",
            b"<behaviorTree>\n<subtree>../x.debt</subtree></behaviorTree>",
        ),
        (
            "main.xml",
            b"<BehaviorTree><Root><Move to=\"Cover\"/></Root></BehaviorTree>",
        ),
        ("main.bt", b"selector { action roma }"),
        ("main.bt", b"behavior missing"),
        (
            "main.btn",
            b"btvm 1; dialect unvanquished; root main = action nope()",
        ),
        ("main.spore", b"spore 1; root R => nothing;"),
        (
            "main.xml",
            b"<SelectionTrees><SelectionTree name=\"x\"><Nope/></SelectionTree></SelectionTrees>",
        ),
    ];
    let mut shown = Vec::new();
    for (name, bytes) in failing {
        let (result, sources) = try_load(&[(name, bytes)]);
        let diags = result.expect_err("each input fails");
        shown.push(Report::new(diags, &sources).to_string());
    }
    for path in files_under(&many_errors()) {
        let report = load_path(&path, &LoadOptions::default()).expect_err("fails");
        shown.push(report.to_string());
    }
    let tree = super::load_ok(&[(
        "main.debt",
        b"<behaviorTree><action name=\"not.standard\"/></behaviorTree>",
    )]);
    let strict = btvm_compiler::check::strict_names(&tree, &[]);
    assert_eq!(strict.len(), 1);
    shown.push(Report::new(strict, &SourceMap::new()).to_string());
    for text in shown {
        assert!(
            !names_a_flag(&text),
            "a library message names a flag:\n{text}"
        );
    }
}
