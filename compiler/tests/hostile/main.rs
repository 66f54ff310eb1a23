//! Hostile input, one test per kind of attack, each across every format btvm reads: the native
//! syntax (`.btn`), Unvanquished (`.bt`), Drag[en]gine (`.debt`), scenarios and program files;
//! the Spore syntax (`.spore`) has its own section at the end.
//! Every case ends in a positioned error of the right kind or in a bounded, correct run, never
//! a panic, a hang or a stack overflow. The tests run on the default test-thread stack on
//! purpose (2 MiB: smaller than a real main thread's).
//!
//! The fuzz targets (`fuzz/`) look for what these tests do not name; every crash they found
//! is a regression test in the file of the stage it broke, with a comment saying so.
//!
//! This file holds the first round's attacks (malformed and huge input) and the helpers; the
//! modules hold the second round's (issue 25), one module per kind of defence. Attacks on
//! the `btvm` command itself (closed pipes, numeric options) are in `compiler/cli/tests`.

use std::path::Path;

use btvm::{EngineKind, Limits, Program, ProgramErrorKind};
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::ir::{Dialect, Tree};
use btvm_compiler::load::{load, load_reporting, Format, LoadOptions};
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{FileId, MemFs, SourceMap};
use btvm_testkit::compare::{compare, Contenders};

mod diag;
mod diagnostics;
mod engines;
mod files;
mod profiles;
mod programs;
mod refsnap;
mod scale;
mod scenario;
mod trace;
mod viewer;

/// The three tree formats, by file extension.
const FORMATS: [(&str, Format); 3] = [
    ("btn", Format::Canonical),
    ("bt", Format::Dialect(Dialect::Unvanquished)),
    ("debt", Format::Dialect(Dialect::Dragengine)),
];

/// The header of a canonical-syntax file in the Unvanquished dialect with one long action `a`
/// (0–1 arguments) and one function `f` (0–1 arguments).
const BTN_HEADER: &str = "btvm 1;\ndialect unvanquished;\nimport action a 0..1 long;\n\
                          import function f 0..1;\n";

/// Loads the first file (its format from its extension) with the others beside it in `/t`.
fn try_load(
    files: &[(&str, &[u8])],
) -> (
    Result<Tree, Vec<btvm_compiler::diag::Diagnostic>>,
    SourceMap,
) {
    let mut fs = MemFs::new();
    for (name, bytes) in files {
        fs.insert(Path::new("/t").join(name), bytes.to_vec());
    }
    let mut sources = SourceMap::new();
    let main = Path::new("/t").join(files[0].0);
    let r = load(&main, &fs, &LoadOptions::default(), &mut sources);
    (r, sources)
}

/// The first error's kind and position (`file:line:col`) when loading `files` fails.
fn load_err(files: &[(&str, &[u8])]) -> (ErrorKind, String) {
    match try_load(files) {
        (Ok(_), _) => panic!("{} loaded but should not have", files[0].0),
        (Err(diags), sources) => {
            let d = &diags[0];
            // Every diagnostic renders, however large the input.
            let _ = d.display(&sources).to_string();
            (d.kind, sources.locate(d.span))
        }
    }
}

fn load_ok(files: &[(&str, &[u8])]) -> Tree {
    match try_load(files) {
        (Ok(t), _) => t,
        (Err(d), sources) => panic!("{} failed: {}", files[0].0, d[0].display(&sources)),
    }
}

/// Runs `scenario` on every engine and checks that they agree; returns the reference's trace.
fn run_everywhere(tree: &Tree, scenario: &str) -> String {
    let scn = parse_scenario(FileId(0), scenario).expect("the test's scenario parses");
    if let Err(m) = compare(tree, &scn, Contenders::ALL) {
        panic!("{m}");
    }
    btvm_compiler::scenario::run(tree, &scn, btvm_compiler::scenario::EngineKind::Reference)
        .expect("the reference runs the tree")
        .to_string()
}

// ---- nesting -------------------------------------------------------------------------------

#[test]
fn hundred_thousand_deep_nesting_in_every_format() {
    let n = 100_000;
    let deep: [(&str, String); 3] = [
        (
            "a.btn",
            format!("{BTN_HEADER}root main = {}", "invert {\n".repeat(n)),
        ),
        ("a.bt", "selector {\n".repeat(n)),
        (
            "a.debt",
            format!(
                "<behaviorTree>{}{}</behaviorTree>",
                "<sequence>".repeat(n),
                "</sequence>".repeat(n)
            ),
        ),
    ];
    for (name, src) in &deep {
        assert_eq!(
            load_err(&[(name, src.as_bytes())]).0,
            ErrorKind::NestTooDeep,
            "{name}"
        );
    }
    // Expressions: parentheses, prefix operators, in both text formats (Unvanquished has no
    // unary minus).
    for (name, prefix) in [("a.bt", "condition "), ("a.btn", "")] {
        let mut exprs = vec![format!("{}1", "(".repeat(n)), format!("{}1", "!".repeat(n))];
        if name.ends_with(".btn") {
            exprs.push(format!("{}1", "-".repeat(n)));
        }
        for deep_expr in exprs {
            let src = if name.ends_with(".btn") {
                format!("{BTN_HEADER}root main = condition ({deep_expr})")
            } else {
                format!("{prefix}{deep_expr}")
            };
            assert_eq!(
                load_err(&[(name, src.as_bytes())]).0,
                ErrorKind::NestTooDeep,
                "{name}: {}",
                &deep_expr[..3]
            );
        }
    }
    // Macros that expand into each other (Unvanquished's preprocessor).
    let mut macros = String::from("#define M0 1\n");
    for k in 1..5000 {
        macros.push_str(&format!("#define M{k} (M{})\n", k - 1));
    }
    macros.push_str("condition M4999\n");
    let (kind, _) = load_err(&[("a.bt", macros.as_bytes())]);
    assert_eq!(kind, ErrorKind::NestTooDeep);
}

// ---- size ----------------------------------------------------------------------------------

#[test]
fn fifty_megabyte_sources_are_rejected_up_front() {
    let big = vec![b' '; 50 << 20];
    for (ext, _) in FORMATS {
        let name = format!("a.{ext}");
        let (kind, at) = load_err(&[(&name, &big)]);
        assert_eq!(kind, ErrorKind::SourceTooLarge, "{name}");
        assert!(at.contains("a."), "{name}: the error names the file: {at}");
    }
    // Also when the big file is an included one.
    let (kind, at) = load_err(&[("a.bt", b"behavior big"), ("big.bt", &big)]);
    assert_eq!(kind, ErrorKind::SourceTooLarge);
    assert!(at.starts_with("/t/big.bt"), "{at}");
}

#[test]
fn too_many_nodes_is_an_error() {
    let limits = Limits {
        max_nodes: 1000,
        ..Limits::default()
    };
    let wide = format!("selector {{\n{}}}\n", "action roam\n".repeat(2000));
    let mut fs = MemFs::new();
    fs.insert("/t/a.bt", wide.into_bytes());
    let options = LoadOptions {
        limits,
        ..LoadOptions::default()
    };
    let r = load(Path::new("/t/a.bt"), &fs, &options, &mut SourceMap::new());
    assert_eq!(r.unwrap_err()[0].kind, ErrorKind::TooManyNodes);
}

// ---- cycles --------------------------------------------------------------------------------

#[test]
fn include_and_subtree_cycles_in_every_format() {
    let cases: [&[(&str, &[u8])]; 5] = [
        &[("a.bt", b"behavior a")],
        &[("a.bt", b"behavior b"), ("b.bt", b"selector { behavior a }")],
        &[(
            "a.btn",
            b"btvm 1;\ndialect unvanquished;\nroot main = include \"s\"\nsubtree \"s\" shared = include \"s\"\n",
        )],
        &[(
            "a.debt",
            b"<behaviorTree><subtree>a.debt</subtree></behaviorTree>",
        )],
        &[
            ("a.debt", b"<behaviorTree><subtree>b.debt</subtree></behaviorTree>"),
            ("b.debt", b"<behaviorTree><sequence><subtree>a.debt</subtree></sequence></behaviorTree>"),
        ],
    ];
    for files in cases {
        let (kind, at) = load_err(files);
        assert!(
            matches!(kind, ErrorKind::IncludeCycle),
            "{}: {kind:?} at {at}",
            files[0].0
        );
    }
}

// ---- long expressions ----------------------------------------------------------------------

/// `n` terms of `leaf` joined by `op` as a balanced tree: 10,000 terms nest only 15 deep.
fn balanced(n: usize, op: &str, leaf: &str) -> String {
    if n == 1 {
        leaf.into()
    } else {
        let l = n / 2;
        format!(
            "({} {op} {})",
            balanced(l, op, leaf),
            balanced(n - l, op, leaf)
        )
    }
}

#[test]
fn ten_thousand_term_expressions() {
    // Balanced: loads, and every engine computes it (Unvanquished has no arithmetic: a
    // conjunction of 10,000 comparisons, the last one false on the second tick).
    let src = format!(
        "condition {} && percentHealth( E_SELF ) > 0.5\n{{\n  action roam\n}}\n",
        balanced(10_000, "&&", "alertedToEnemy")
    );
    let tree = load_ok(&[("a.bt", src.as_bytes())]);
    let trace = run_everywhere(
        &tree,
        "ticks 2\nanswer roam = success\nanswer alertedToEnemy = 1\n\
         answer percentHealth = 1.0, 0.25\n",
    );
    assert_eq!(
        trace.matches("roam() enter -> success").count(),
        1,
        "{trace}"
    );
    assert_eq!(trace.matches("alertedToEnemy() = 1").count(), 20_000);
    let btn = format!(
        "{BTN_HEADER}root main = guard every-tick ({} == 10000) {{ action a() }}",
        balanced(10_000, "+", "1")
    );
    let tree = load_ok(&[("a.btn", btn.as_bytes())]);
    let trace = run_everywhere(&tree, "ticks 2\nanswer a = success\n");
    assert!(trace.contains("a() enter -> success"), "{trace}");

    // Flat chains nest one level per operator: a clear error at the 257th level, for
    // operators and for Drag[en]gine's per-rule conditions (one `&&` each).
    let chain = format!("condition 1{}", " && 1".repeat(10_000));
    let (kind, at) = load_err(&[("a.bt", chain.as_bytes())]);
    assert_eq!(kind, ErrorKind::NestTooDeep);
    assert!(at.starts_with("/t/a.bt:1:"), "{at}");
    let conditions: String = (0..10_000)
        .map(|k| format!("<condition>c{k}</condition>"))
        .collect();
    let debt = format!("<behaviorTree><action name=\"go\">{conditions}</action></behaviorTree>");
    assert_eq!(
        load_err(&[("a.debt", debt.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );

    // 10,000 arguments: an arity error where the arity is known; Drag[en]gine passes every
    // parameter to the action (as a name and a value), up to 127 of them.
    let args = vec!["1"; 10_000].join(", ");
    let (kind, _) = load_err(&[("a.bt", format!("action moveTo( {args} )").as_bytes())]);
    assert_eq!(kind, ErrorKind::Arity);
    let params = |n: usize| -> String {
        let p: String = (0..n)
            .map(|k| format!("<parameter name=\"p{k}\">{k}</parameter>"))
            .collect();
        format!("<behaviorTree><action name=\"go\">{p}</action></behaviorTree>")
    };
    assert_eq!(
        load_err(&[("a.debt", params(10_000).as_bytes())]).0,
        ErrorKind::Arity
    );
    let tree = load_ok(&[("a.debt", params(127).as_bytes())]);
    let trace = run_everywhere(&tree, "ticks 2\nanswer go = success\n");
    assert!(
        trace.contains("\"p126\", \"126\") enter -> success"),
        "{trace}"
    );
}

// ---- names ---------------------------------------------------------------------------------

#[test]
fn all_unknown_names() {
    let unknown: String = (0..20_000)
        .map(|k| format!("  action nosuch{k}( q{k} )\n"))
        .collect();
    let src = format!("selector {{\n{unknown}}}\n");
    let (kind, at) = load_err(&[("a.bt", src.as_bytes())]);
    assert_eq!(kind, ErrorKind::UnknownName);
    assert_eq!(at, "/t/a.bt:2:10");

    let calls: String = (0..20_000).map(|k| format!("g{k}() || ")).collect();
    let btn = format!("{BTN_HEADER}root main = condition ({calls}false)");
    assert_eq!(
        load_err(&[("a.btn", btn.as_bytes())]).0,
        ErrorKind::UnknownName
    );

    // Drag[en]gine binds actions at run time: unknown ones fail when they run (the host has
    // none of them here), and every engine agrees.
    let rules: String = (0..2000)
        .map(|k| format!("<action name=\"nosuch{k}\"/>"))
        .collect();
    let debt = format!("<behaviorTree><choice>{rules}</choice></behaviorTree>");
    let tree = load_ok(&[("a.debt", debt.as_bytes())]);
    let missing: String = (0..2000).map(|k| format!("missing nosuch{k}\n")).collect();
    let trace = run_everywhere(&tree, &format!("ticks 3\n{missing}"));
    // Each failure moves the cursor to the next rule: 2,000 of them exceed the run-away limit.
    assert!(
        trace.contains("error run-away after 100 rule runs"),
        "{trace}"
    );

    // Unknown elements and attributes are positioned errors.
    let (kind, at) = load_err(&[(
        "a.debt",
        b"<behaviorTree>\n<sequence><frobnicate/></sequence></behaviorTree>",
    )]);
    assert_eq!(kind, ErrorKind::UnknownName);
    assert_eq!(at, "/t/a.debt:2:11");
}

// ---- literals ------------------------------------------------------------------------------

#[test]
fn literals_at_and_past_every_integer_limit() {
    // (file, source, accepted?)
    let bt: &[(&str, bool)] = &[
        ("action moveTo( 2147483647 )", true),
        ("action moveTo( 2147483648 )", false),
        // No sign belongs to a number token, so this is -(2147483648), past the limit.
        ("action moveTo( -2147483648 )", false),
        ("action moveTo( -2147483647 )", true),
        ("action moveTo( 0x7fffffff )", true),
        ("action moveTo( 0x80000000 )", false),
        ("action moveTo( 017777777777 )", true),
        ("action moveTo( 020000000000 )", false),
        ("action moveTo( 99999999999999999999999999 )", false),
        ("decorator timer( 2147483647 ) { action roam }", true),
        ("decorator timer( 2147483648 ) { action roam }", false),
        ("decorator timer( 0 ) { action roam }", true),
        (
            "action moveTo( 0.000000000000000000000000000000000000000000000001 )",
            true,
        ),
        // (a condition cannot end a file: it needs the token after its expression)
        ("condition 2147483647.5 > 1 { action roam() }", true),
    ];
    for (src, ok) in bt {
        let r = try_load(&[("a.bt", src.as_bytes())]).0;
        match (r, ok) {
            (Ok(_), true) => {}
            (Err(d), false) => assert_eq!(d[0].kind, ErrorKind::LiteralOverflow, "{src}"),
            (r, _) => panic!("{src}: {:?}", r.map(|_| ()).map_err(|d| d[0].kind)),
        }
    }
    let btn: &[(&str, Option<ErrorKind>)] = &[
        ("action a(9223372036854775807)", None),
        ("action a(-9223372036854775808)", None),
        (
            "action a(9223372036854775808)",
            Some(ErrorKind::LiteralOverflow),
        ),
        (
            "action a(-9223372036854775809)",
            Some(ErrorKind::LiteralOverflow),
        ),
        ("action a(0x7fffffffffffffff)", None),
        ("action a(1.7976931348623157e308)", None),
        ("action a(1e309)", Some(ErrorKind::LiteralOverflow)),
        ("action a(-1e309)", Some(ErrorKind::LiteralOverflow)),
        ("action a(inf)", None),
        ("action a(5e-324)", None),
        ("cooldown 4294967295 { action a() }", None),
        (
            "cooldown 4294967296 { action a() }",
            Some(ErrorKind::LiteralOverflow),
        ),
        (
            "cooldown 18446744073709551616 { action a() }",
            Some(ErrorKind::LiteralOverflow),
        ),
    ];
    for (body, want) in btn {
        let src = format!("{BTN_HEADER}root main = {body}");
        let got = try_load(&[("a.btn", src.as_bytes())])
            .0
            .err()
            .map(|d| d[0].kind);
        assert_eq!(got, *want, "{body}");
    }
    // Extremes that load also run alike everywhere.
    let src = format!(
        "{BTN_HEADER}root main = sequence restart {{ action a(9223372036854775807) \
         action a(-9223372036854775808) action a(1.7976931348623157e308) \
         condition (f(-9223372036854775808) - 1 < 0) }}"
    );
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    run_everywhere(
        &tree,
        "ticks 3\nanswer a = success\nanswer f = cycle -9223372036854775808, 9223372036854775807, 1e308\n",
    );
}

// ---- encodings -----------------------------------------------------------------------------

#[test]
fn invalid_utf8_in_every_format() {
    let (kind, at) = load_err(&[("a.bt", b"selector {\n  action roam \xff\n}")]);
    assert_eq!(kind, ErrorKind::InvalidUtf8);
    assert!(at.ends_with(":2:15"), "{at}");
    assert_eq!(
        load_err(&[("a.btn", b"btvm 1; \xc3")]).0,
        ErrorKind::InvalidUtf8
    );
    let (kind, at) = load_err(&[(
        "a.debt",
        b"<behaviorTree>\n<action name=\"\xe2\x82\"/></behaviorTree>",
    )]);
    assert_eq!(kind, ErrorKind::InvalidUtf8);
    assert!(at.starts_with("/t/a.debt:2:"), "{at}");
    // In an included file, too.
    let (kind, at) = load_err(&[("a.bt", b"behavior b"), ("b.bt", b"action \x80roam")]);
    assert_eq!(kind, ErrorKind::InvalidUtf8);
    assert!(at.starts_with("/t/b.bt:1:"), "{at}");
}

// ---- ticks that would never end --------------------------------------------------------------

#[test]
fn a_tick_that_would_run_forever_is_bounded() {
    // Every rule succeeds at once and the sequence loops: without the run-away limit the
    // original engine would spin inside one tick forever.
    let tree = load_ok(&[(
        "a.debt",
        b"<behaviorTree><sequence loop=\"true\"><success/><success/></sequence></behaviorTree>",
    )]);
    let trace = run_everywhere(&tree, "ticks 3\n");
    assert!(trace.contains("error run-away after"), "{trace}");

    // A verified program's tick is bounded by its proven budget whatever the host answers.
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
    assert!(
        program.tick_budget() < 1_000_000,
        "{}",
        program.tick_budget()
    );
}

// ---- program files ---------------------------------------------------------------------------

#[test]
fn program_files_truncated_at_every_byte() {
    let sources: [(&str, &[u8]); 3] = [
        ("a.bt", include_bytes!("../../../spec/examples/guard.bt")),
        (
            "a.debt",
            b"<behaviorTree><sequence loop=\"true\"><action name=\"x\"/><yield/></sequence></behaviorTree>",
        ),
        (
            "a.btn",
            b"btvm 1;\ndialect unvanquished;\nimport action a 0..1 long;\nroot main = action a(\"text\")\nroot other = action a(2)\n",
        ),
    ];
    for (name, src) in sources {
        let tree = load_ok(&[(name, src)]);
        let program = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
        let bytes = program.encode();
        for len in 0..bytes.len() {
            let e = Program::decode(&bytes[..len], &Limits::default())
                .err()
                .unwrap_or_else(|| panic!("{name}: a {len}-byte prefix decoded"));
            let want = if len < 8 {
                ProgramErrorKind::BadMagic
            } else {
                ProgramErrorKind::Truncated
            };
            assert_eq!(e.kind(), want, "{name}: {len} bytes: {e}");
        }
        // And the whole file, with a byte appended, is rejected too.
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            Program::decode(&longer, &Limits::default()).is_err(),
            "{name}"
        );
        // The intact file runs.
        let p = Program::decode(&bytes, &Limits::default()).unwrap();
        let _ = btvm::Engine::new(&p, EngineKind::Vm);
    }
}

// ---- scenarios -------------------------------------------------------------------------------

#[test]
fn hostile_scenarios_are_positioned_errors() {
    let cases: [(&str, ErrorKind); 5] = [
        ("agents 99999999999999999999\n", ErrorKind::LiteralOverflow),
        ("ticks -1\n", ErrorKind::InvalidValue),
        ("answer \"abc = 1\n", ErrorKind::UnterminatedString),
        ("answer a = @99999999999 1\n", ErrorKind::InvalidValue),
        ("frobnicate\n", ErrorKind::Syntax),
    ];
    for (text, want) in cases {
        let d = &parse_scenario(FileId(0), text).unwrap_err()[0];
        assert_eq!(d.kind, want, "{text:?}: {}", d.message);
    }
}

// ---- lexical errors ----------------------------------------------------------------------------

#[test]
fn lexical_errors_and_missing_files() {
    let cases: [(&[u8], ErrorKind); 5] = [
        (b"action teleprot(1, 2, 3)", ErrorKind::UnknownName),
        (b"action teleport(1, 2)", ErrorKind::Arity),
        (b"condition nosuchfn > 1", ErrorKind::UnknownName),
        // The string ends the file (a warning), leaving `say(` without its `)`.
        (b"action say(\"abc", ErrorKind::Syntax),
        (b"behavior missing", ErrorKind::Io),
    ];
    for (src, want) in cases {
        assert_eq!(
            load_err(&[("a.bt", src)]).0,
            want,
            "{}",
            String::from_utf8_lossy(src)
        );
    }
    // What the game only logs loads with a warning: an unknown escape, an unterminated comment
    // (the end of the file), an `#include` of a file being included (skipped).
    let warned: [(&[u8], ErrorKind); 3] = [
        (b"action say(\"a\\qb\")", ErrorKind::BadEscape),
        (
            b"action roam()\n/* never closed",
            ErrorKind::UnterminatedComment,
        ),
        (
            b"#include \"t/a.bt\"\naction roam()",
            ErrorKind::IncludeCycle,
        ),
    ];
    for (src, want) in warned {
        let mut fs = MemFs::new();
        fs.insert("/t/a.bt", src.to_vec());
        let loaded = load_reporting(
            Path::new("/t/a.bt"),
            &fs,
            &LoadOptions::default(),
            &mut SourceMap::new(),
        )
        .unwrap_or_else(|e| panic!("{}: {e:?}", String::from_utf8_lossy(src)));
        let kinds: Vec<_> = loaded.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [want], "{}", String::from_utf8_lossy(src));
    }
}

// ---- spore ---------------------------------------------------------------------------------

/// The start of a `.spore` file with one behavior `b`.
const SPORE_HEADER: &str = "spore 1;\nbehavior b tick;\n";

#[test]
fn spore_hundred_thousand_deep_groups_and_expressions() {
    let n = 100_000;
    let groups: String = (0..n).map(|k| format!("prioritized {{ D{k} => ")).collect();
    let src = format!("{SPORE_HEADER}root R => {groups}");
    let (kind, at) = load_err(&[("a.spore", src.as_bytes())]);
    assert_eq!(kind, ErrorKind::NestTooDeep);
    assert!(at.starts_with("/t/a.spore:3:"), "{at}");
    for deep in [
        format!("{}1", "(".repeat(n)),
        format!("{}1", "!".repeat(n)),
        format!("{}1", "-".repeat(n)),
    ] {
        let src = format!("{SPORE_HEADER}root R decide {deep} => b;");
        assert_eq!(
            load_err(&[("a.spore", src.as_bytes())]).0,
            ErrorKind::NestTooDeep,
            "{}",
            &deep[..3]
        );
    }
}

#[test]
fn spore_ten_thousand_term_decide_expressions() {
    // Balanced: loads, with one function import however often it is called.
    let src = format!(
        "{SPORE_HEADER}root R decide {} > 0 => b;",
        balanced(10_000, "+", "f(1)")
    );
    let tree = load_ok(&[("a.spore", src.as_bytes())]);
    assert_eq!(tree.imports.len(), 2);
    // A flat chain nests one level per operator: an error at the 257th.
    let src = format!(
        "{SPORE_HEADER}root R decide 1{} => b;",
        " + 1".repeat(10_000)
    );
    let (kind, at) = load_err(&[("a.spore", src.as_bytes())]);
    assert_eq!(kind, ErrorKind::NestTooDeep);
    assert!(at.starts_with("/t/a.spore:3:"), "{at}");
    // 10,000 arguments: more than a call can take.
    let args = vec!["1"; 10_000].join(", ");
    let src = format!("{SPORE_HEADER}root R decide f({args}) => b;");
    assert_eq!(load_err(&[("a.spore", src.as_bytes())]).0, ErrorKind::Arity);
}

#[test]
fn spore_fifty_megabytes_cycles_encodings_and_names() {
    let big = vec![b' '; 50 << 20];
    let (kind, at) = load_err(&[("a.spore", &big)]);
    assert_eq!(kind, ErrorKind::SourceTooLarge);
    assert!(at.starts_with("/t/a.spore"), "{at}");

    // Deciders that contain each other through references, directly or through an array.
    let cycles = [
        format!("{SPORE_HEADER}root R => prioritized {{ A; }}\ndecider A => prioritized {{ A; }}"),
        format!(
            "{SPORE_HEADER}root R => prioritized {{ A; }}\n\
             decider A => prioritized {{ B; }}\ndecider B => random {{ C => scored {{ A; }} }}"
        ),
        format!("{SPORE_HEADER}root R => prioritized L;\nchildren L {{ A => random L; }}"),
        format!("{SPORE_HEADER}root R => prioritized {{ R; }}"),
    ];
    for src in &cycles {
        let (kind, at) = load_err(&[("a.spore", src.as_bytes())]);
        assert_eq!(kind, ErrorKind::IncludeCycle, "{src}\nat {at}");
    }
    // A chain of 50,000 shared deciders: too deep through its includes, not a stack overflow.
    let chain: String = (0..50_000)
        .map(|k| format!("decider D{k} => prioritized {{ D{}; }}\n", k + 1))
        .collect();
    let src =
        format!("{SPORE_HEADER}root R => prioritized {{ D0; }}\n{chain}decider D50000 => b;\n");
    assert_eq!(
        load_err(&[("a.spore", src.as_bytes())]).0,
        ErrorKind::NestTooDeep
    );

    // Invalid UTF-8, at its byte.
    let (kind, at) = load_err(&[("a.spore", b"spore 1;\nbehavior b\xff tick;")]);
    assert_eq!(kind, ErrorKind::InvalidUtf8);
    assert_eq!(at, "/t/a.spore:2:11");

    // 20,000 unknown names: every one reported, the first first.
    let unknown: String = (0..20_000)
        .map(|k| format!("  D{k} => nosuch{k};\n"))
        .collect();
    let src = format!("{SPORE_HEADER}root R => prioritized {{\n{unknown}}}\n");
    match try_load(&[("a.spore", src.as_bytes())]) {
        (Ok(_), _) => panic!("loaded"),
        (Err(d), sources) => {
            assert!(d
                .iter()
                .all(|d| matches!(d.kind, ErrorKind::UnknownName | ErrorKind::TooManyNodes)));
            assert_eq!(sources.locate(d[0].span), "/t/a.spore:4:9");
        }
    }
    let calls: String = (0..20_000).map(|k| format!("g{k}() || ")).collect();
    let src = format!("{SPORE_HEADER}decision flags f;\nroot R when decision any(nosuch) decide {calls}false => b;");
    let (kind, at) = load_err(&[("a.spore", src.as_bytes())]);
    assert_eq!(kind, ErrorKind::NestTooDeep, "{at}");
    let src = format!("{SPORE_HEADER}decision flags f;\nroot R when decision any(nosuch) => b;");
    let (kind, at) = load_err(&[("a.spore", src.as_bytes())]);
    assert_eq!(
        (kind, at.as_str()),
        (ErrorKind::UnknownName, "/t/a.spore:4:26")
    );
}
