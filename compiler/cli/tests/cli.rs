//! The `btvm` binary behaves like a good Unix tool: exit codes, stdout for results, stderr for
//! rustc-style diagnostics.

mod common;
use common::*;

#[test]
fn check_accepts_a_valid_tree() {
    let out = btvm(&["check", &spec("examples/guard.bt")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("guard.bt: ok"));
    let out = btvm(&["check", "--quiet", &spec("examples/guard.bt")]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
}

#[test]
fn check_reports_errors_with_position_and_snippet() {
    let bad = temp("bad.bt", "selector\n{\n    action figth\n}\n");
    let out = btvm(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("error"), "{err}");
    assert!(err.contains("bad.bt:3:12"), "{err}");
    assert!(err.contains("action figth"), "snippet missing: {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn errors_on_very_long_lines_show_a_window_of_the_line() {
    // A one-line file of 200,000 bytes with an unknown action in the middle: the snippet shows
    // the name with some context and `…` where the line was cut, and the real column.
    let line = format!(
        "/* {} */ selector {{ action roam action figth }} /* {} */",
        "comment ".repeat(12_000),
        "comment ".repeat(12_000)
    );
    let bad = temp("long.bt", &line);
    let out = btvm(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.len() < 1000, "{} bytes of diagnostics", err.len());
    assert!(
        err.contains("comment  */ selector { action roam action figth } /* comment"),
        "{err}"
    );
    assert!(
        err.contains("1 │ …") && err.contains("comment co…"),
        "{err}"
    );
    assert!(
        err.contains(&format!("long.bt:1:{}", 3 + 12_000 * 8 + 35)),
        "{err}"
    );
    assert!(err.contains("^^^^^"), "{err}");
}

#[test]
fn warnings_are_printed_and_can_be_denied() {
    // The game loads `fight(1)` as `fight()`, logging "too many parameters": a warning.
    let warned = temp("warned.bt", "sequence\n{\n    action fight(1)\n}\n");
    let out = btvm(&["check", warned.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: too many parameters for `fight`"),
        "{err}"
    );
    assert!(err.contains("warned.bt:3:12"), "{err}");
    assert!(!err.contains("error"), "{err}");
    let out = btvm(&["check", "--deny-warnings", warned.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("error: too many parameters"));
    let scn = temp("warned.scn", "ticks 1\n");
    let out = btvm(&["run", warned.to_str().unwrap(), "-s", scn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("fight() enter -> success"));
    assert!(text(&out.stderr).contains("warning:"));
}

#[test]
fn a_scenario_naming_what_the_tree_never_uses_warns_and_can_be_denied() {
    // guard.bt calls alertedToEnemy; `alertedToEnemi` is a typo, `nosuch` calls nothing.
    let scn = temp(
        "typo.scn",
        "ticks 2\nanswer alertedToEnemy = 0\nanswer alertedToEnemi = 1\nmissing nosuch\n",
    );
    let args = [
        "run",
        &spec("examples/guard.bt"),
        "--scenario",
        scn.to_str().unwrap(),
    ];
    let out = btvm(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: the scenario answers `alertedToEnemi`, which the tree never calls"),
        "{err}"
    );
    assert!(err.contains("typo.scn:3:8"), "{err}");
    assert!(err.contains("did you mean `alertedToEnemy`?"), "{err}");
    assert!(err.contains("`nosuch` is missing"), "{err}");
    assert!(text(&out.stdout).contains("tick 1"), "the run still runs");
    let mut denied = args.to_vec();
    denied.push("--deny-warnings");
    let out = btvm(&denied);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("error: the scenario answers `alertedToEnemi`"));
    assert!(out.stdout.is_empty(), "nothing runs");
}

#[test]
fn check_walks_directories_for_tree_files_in_name_order() {
    // spec/examples/wanderer: the tree, its two versions and its subtree files.
    let out = btvm(&["check", &spec("examples/wanderer")]);
    let stdout = text(&out.stdout);
    let checked: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split(": ").next())
        .map(|p| p.rsplit('/').next().unwrap())
        .collect();
    // look.debt and patrol.debt hold several top-level rules: subtree files, not trees.
    assert_eq!(
        checked,
        [
            "rest.debt",
            "wanderer.debt",
            "wanderer_v2.debt",
            "wanderer_v3.debt"
        ],
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("2 of 6 files failed to check"));
    let empty = temp("readme.md", "").with_file_name("no-trees");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "").unwrap();
    let out = btvm(&["check", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no trees in"));
}

#[test]
fn check_reads_a_tree_from_standard_input_with_a_dialect() {
    let guard = std::fs::read(spec("examples/guard.bt")).unwrap();
    let out = btvm_fed(&["check", "-", "--dialect", "unvanquished"], &guard);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "<stdin>: ok (11 nodes, 0 included behaviors, 1 files)\n"
    );
    let out = btvm_fed(&["check", "-"], &guard);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(text(&out.stderr).contains("needs `--dialect`"));
    let out = btvm_fed(
        &["check", "-", "--dialect", "unvanquished"],
        b"selector {\n action figth\n}\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("<stdin>:2:9"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn check_of_several_files_fails_if_any_fails() {
    let bad = temp("bad2.bt", "sequence {");
    let out = btvm(&["check", &spec("examples/guard.bt"), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("guard.bt: ok"));
    assert!(text(&out.stderr).contains("1 of 2 files failed"));
}

#[test]
fn check_refuses_what_the_trees_model_refuses() {
    // A selection (BST) tree parses and passes the checker, but only the lifecycle model has
    // timestamps: `check` says so, with the position, as `compile` and `run` would.
    let bad = temp(
        "stamp.btn",
        "btvm 1;\ndialect bst;\nmodel selection;\nvar c: bool = false;\ntimestamp T;\n\
         root main = priority every-tick {\n    case ($c && @valid(T)) { select \"A\" }\n}\n",
    );
    let out = btvm(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("queries a timestamp"), "{err}");
    assert!(err.contains("stamp.btn:7:5"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn run_prints_the_trace() {
    let out = btvm(&[
        "run",
        &spec("examples/guard.bt"),
        "--scenario",
        &spec("examples/guard.scn"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("tick 0 now 1000\n"), "{stdout}");
    assert_eq!(stdout.matches("\n  root ").count(), 12);
    let out = btvm(&[
        "run",
        &spec("examples/guard.bt"),
        "--scenario",
        &spec("examples/guard.scn"),
        "--ticks",
        "3",
        "--summary",
    ]);
    assert!(
        text(&out.stdout).starts_with("3 ticks x 1 agents on reference"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn run_reports_scenario_errors() {
    let scn = temp("bad.scn", "ticks 3\nanswer = 1\n");
    let out = btvm(&[
        "run",
        &spec("examples/guard.bt"),
        "--scenario",
        scn.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("bad.scn:2:8"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn convert_prints_canonical_syntax_that_reads_back() {
    let out = btvm(&["convert", &spec("examples/guard.bt")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let native = text(&out.stdout);
    assert!(native.starts_with("btvm 1;"), "{native}");
    let p = temp("guard.btn", &native);
    let again = btvm(&["convert", p.to_str().unwrap()]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), native);
    // Already formatted: `fmt --check` passes and `fmt` leaves it as it is.
    let check = btvm(&["fmt", "--check", p.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(check.stdout.is_empty());
    // The native form runs exactly like the source.
    let a = btvm(&[
        "run",
        &spec("examples/guard.bt"),
        "--scenario",
        &spec("examples/guard.scn"),
    ]);
    let b = btvm(&[
        "run",
        p.to_str().unwrap(),
        "--scenario",
        &spec("examples/guard.scn"),
    ]);
    assert_eq!(text(&a.stdout), text(&b.stdout));
}

#[test]
fn fmt_formats_canonical_files_in_place_keeping_comments_and_check_fails_on_a_difference() {
    let messy = "btvm 1; dialect unvanquished; model running-list 20;\n\
                 import action fight 0..0 long; // swings\n\
                 root main = selector restart { // the body\n  action fight() }\n";
    let p = temp("messy.btn", messy);
    let path = p.to_str().unwrap();
    let check = btvm(&["fmt", "--check", path]);
    assert_eq!(check.status.code(), Some(1));
    let diff = text(&check.stdout);
    assert!(
        diff.contains("--- ") && diff.contains("+++ "),
        "a unified diff: {diff}"
    );
    assert!(diff.contains("+    action fight()"), "{diff}");
    assert!(text(&check.stderr).contains("1 of 1 files are not formatted"));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        messy,
        "--check writes nothing"
    );
    let fmt = btvm(&["fmt", path]);
    assert!(fmt.status.success(), "{}", text(&fmt.stderr));
    assert!(fmt.stdout.is_empty());
    let formatted = std::fs::read_to_string(&p).unwrap();
    assert!(
        formatted.contains("import action fight 0..0 long;  // swings\n"),
        "{formatted}"
    );
    assert!(
        formatted.contains("selector restart {  // the body\n    action fight()\n}\n"),
        "{formatted}"
    );
    assert!(btvm(&["fmt", "--check", path]).status.success());
    // Standard input to standard output.
    let piped = btvm_fed(&["fmt", "-"], messy.as_bytes());
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    assert_eq!(text(&piped.stdout), formatted);
    // Other dialects are converted, not formatted.
    let bt = btvm(&["fmt", &spec("examples/guard.bt")]);
    assert_eq!(bt.status.code(), Some(1));
    assert!(
        text(&bt.stderr).contains("btvm convert"),
        "{}",
        text(&bt.stderr)
    );
}

/// README's "Exit status": 0 success, 1 failure (bad input), 2 usage error, command by
/// command.
#[test]
fn exit_codes_are_the_documented_ones() {
    let guard = spec("examples/guard.bt");
    let scn = spec("examples/guard.scn");
    let bad = temp("exit-bad.bt", "selector {\n action figth\n}\n");
    let bad = bad.to_str().unwrap();
    let messy = temp(
        "exit-messy.btn",
        "btvm 1; dialect unvanquished;\nroot main = yield\n",
    );
    let messy = messy.to_str().unwrap();
    let cases: [(&[&str], i32); 16] = [
        (&["check", &guard], 0),
        (&["run", &guard, "--scenario", &scn, "--summary"], 0),
        (&["convert", &guard], 0),
        (&["disasm", &guard], 0),
        (&["check", bad], 1),
        (&["run", bad], 1),
        (&["convert", bad], 1),
        (&["compile", bad, "-o", "-"], 1),
        (&["run", &guard, "--scenario", "/nonexistent.scn"], 1),
        (&["fmt", "--check", messy], 1),
        (&["fmt", &guard], 1),
        (&["check"], 2),
        (&["run", &guard, "--no-such-option"], 2),
        (&["bench", "--agents", "0"], 2),
        (&["run", &guard, "--engine", "klingon"], 2),
        (&["no-such-command"], 2),
    ];
    for (args, code) in cases {
        let out = btvm(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "btvm {}: {}",
            args.join(" "),
            text(&out.stderr)
        );
    }
}

#[test]
fn help_lists_values_groups_dialect_options_and_ends_with_examples() {
    for command in [
        "check", "run", "compile", "disasm", "bench", "view", "dot", "fmt", "convert",
    ] {
        let help = text(&btvm(&[command, "--help"]).stdout);
        let examples = help
            .rfind("Examples:\n")
            .unwrap_or_else(|| panic!("{command}: {help}"));
        assert!(
            help[examples..]
                .lines()
                .skip(1)
                .all(|l| l.starts_with("  btvm ") || l.starts_with("  cat ")),
            "{command}: the help ends with examples of btvm commands:\n{help}"
        );
    }
    let run = text(&btvm(&["run", "--help"]).stdout);
    assert!(
        run.contains("[possible values: canonical, unvanquished, dragengine, mbt, bst, spore]"),
        "{run}"
    );
    // Dialect-specific options under their headings, after the general ones.
    let heading = |h: &str| {
        run.find(&format!("\n{h}:\n"))
            .unwrap_or_else(|| panic!("{h}: {run}"))
    };
    assert!(heading("Loading") < run.find("--dialect").unwrap());
    assert!(heading("Drag[en]gine") < run.find("--runaway-limit").unwrap());
    assert!(heading("Saving, restoring and reloading") < run.find("--save-at").unwrap());
    assert!(heading("Spore") < run.find("--debug-level").unwrap());
    assert!(run.find("--summary").unwrap() < heading("Loading"));
    let bad = btvm(&["check", "--dialect", "klingon", "x.bt"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("[possible values: canonical,"));
    // `native`, the canonical syntax's old name, still reads.
    let canonical = btvm(&["convert", &spec("examples/guard.bt")]).stdout;
    let native = btvm_fed(&["check", "-", "--dialect", "native"], &canonical);
    assert!(native.status.success(), "{}", text(&native.stderr));
}

#[test]
fn completions_and_man_pages_come_from_the_command_definition() {
    for (shell, needle) in [
        ("bash", "_btvm()"),
        ("zsh", "#compdef btvm"),
        ("fish", "complete -c btvm"),
    ] {
        let out = btvm(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains(needle), "{shell}: {script}");
        assert!(
            script.contains("reload-at"),
            "{shell}: every option is there"
        );
    }
    let man = text(&btvm(&["man"]).stdout);
    assert!(
        man.contains(".TH btvm 1") && man.contains("convert"),
        "{man}"
    );
    let run = text(&btvm(&["man", "run"]).stdout);
    assert!(
        run.contains(".TH btvm-run 1") && run.contains("reload\\-at"),
        "{run}"
    );
    let nosuch = btvm(&["man", "nosuch"]);
    assert_eq!(nosuch.status.code(), Some(2));
    assert!(text(&nosuch.stderr).contains("the commands: check, run"));
}

#[test]
fn unknown_extension_needs_a_dialect() {
    let p = temp("tree.txt", "selector { }");
    let out = btvm(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--dialect"));
    let out = btvm(&["check", "--dialect", "unvanquished", p.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(btvm(&["run"]).status.code(), Some(2));
    assert_eq!(
        btvm(&["check", "--dialect", "klingon", "x.bt"])
            .status
            .code(),
        Some(2)
    );
    let help = btvm(&["run", "--help"]);
    assert!(help.status.success());
    assert!(text(&help.stdout).contains("--scenario"));
}

#[test]
#[cfg(feature = "jit")] // runs `--engine native`
fn run_on_the_vm_prints_the_reference_trace() {
    let args = |engine: &'static str| {
        btvm(&[
            "run",
            &spec("examples/guard.bt"),
            "--scenario",
            &spec("examples/guard.scn"),
            "--engine",
            engine,
        ])
    };
    let r = args("reference");
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert!(!r.stdout.is_empty());
    for engine in ["vm", "native"] {
        let v = args(engine);
        assert!(v.status.success(), "{engine}: {}", text(&v.stderr));
        assert_eq!(text(&r.stdout), text(&v.stdout), "{engine}");
    }
}

#[test]
fn compile_writes_a_program_that_disasm_reads_back() {
    let dir = std::env::temp_dir().join(format!("btvm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("guard.btvm");
    let out = btvm(&[
        "compile",
        &spec("examples/guard.bt"),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "compile prints nothing on success");
    let bytes = std::fs::read(&out_path).unwrap();
    assert!(bytes.starts_with(b"BTVMPROG"));
    let from_file = btvm(&["disasm", out_path.to_str().unwrap()]);
    let from_tree = btvm(&["disasm", &spec("examples/guard.bt")]);
    assert!(from_file.status.success(), "{}", text(&from_file.stderr));
    assert_eq!(text(&from_file.stdout), text(&from_tree.stdout));
    let listing = text(&from_tree.stdout);
    assert!(listing.contains("fn0 entry"), "{listing}");
    assert!(listing.contains("act import"), "{listing}");
    // The code map heads each node's run of instructions: guard.bt writes `action moveTo(...)`
    // on line 24, so the `act` calling moveTo comes under that node's heading (its two
    // arguments pushed first, in the same run).
    let lines: Vec<&str> = listing.lines().collect();
    let act = lines
        .iter()
        .position(|l| l.contains(" act ") && l.ends_with("; moveTo"))
        .expect("moveTo's act");
    let heading = lines[..act]
        .iter()
        .rev()
        .find(|l| l.trim_start().starts_with("; node ") || l.trim() == "; (no node)")
        .expect("a heading before the act");
    assert!(
        heading.contains("action \"moveTo\" at ") && heading.ends_with("guard.bt:24"),
        "{heading}"
    );
    // A damaged program is rejected with a message, not run or printed.
    let mut bad = bytes.clone();
    bad.truncate(bytes.len() / 2);
    let bad_path = dir.join("bad.btvm");
    std::fs::write(&bad_path, bad).unwrap();
    let out = btvm(&["disasm", bad_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("invalid program"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
#[cfg(feature = "jit")] // runs `--engine native`
fn disasm_native_prints_the_bytecode_then_the_machine_code() {
    let tree = spec("examples/guard.bt");
    let out = btvm(&["disasm", "--native", &tree]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    // The bytecode listing comes first, exactly as without `--native`.
    let bytecode = text(&btvm(&["disasm", &tree]).stdout);
    assert!(listing.starts_with(&bytecode), "{listing}");
    let native = &listing[bytecode.len()..];
    assert!(
        native.starts_with("\n; native code (Cranelift VCode, "),
        "{native}"
    );
    assert!(native.contains("\n; native function f0"), "{native}");
    assert!(native.contains("ret"), "{native}");
    // A compiled program file gives the same listing.
    let dir = std::env::temp_dir().join(format!("btvm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("guard-native.btvm");
    let out = btvm(&["compile", &tree, "-o", program.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let from_file = btvm(&["disasm", "--native", program.to_str().unwrap()]);
    assert!(from_file.status.success(), "{}", text(&from_file.stderr));
    assert_eq!(text(&from_file.stdout), listing);
}

#[test]
fn bench_draws_its_rows_as_an_svg_bar_chart() {
    let svg = temp("bench.svg", "");
    let out = btvm(&[
        "bench",
        &spec("examples/guard.bt"),
        "--agents",
        "50",
        "--ticks",
        "2",
        "--engines",
        "reference,vm",
        "--threads",
        "1",
        "--runs",
        "2",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg"), "{drawn}");
    for label in ["reference x1", "vm x1", "guard.bt: 50 agents x 2 ticks"] {
        assert!(drawn.contains(label), "{label} missing");
    }
    let bad = btvm(&[
        "bench",
        "--agents",
        "5",
        "--ticks",
        "1",
        "--svg",
        "/nonexistent/dir/x.svg",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("cannot write"));
}

#[test]
#[cfg(feature = "jit")] // runs `--engine native`
fn bench_prints_a_table_and_json() {
    let out = btvm(&[
        "bench",
        "--agents",
        "200",
        "--ticks",
        "3",
        "--threads",
        "1,2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for needle in [
        "engine",
        "ns/agent-tick",
        "reference",
        "vm",
        "native",
        "hand-written",
        "speedup",
        "vs hand",
        "machine: ",
        "3 runs each",
        "min–max",
        "checksums agree: 18 engine runs (3 each) all gave ",
    ] {
        assert!(table.contains(needle), "{needle} missing: {table}");
    }
    // Compile statistics: the demo and the generated trees, each with its native compile time.
    let out = btvm(&[
        "bench",
        "--agents",
        "10",
        "--ticks",
        "1",
        "--engines",
        "native",
        "--threads",
        "1",
        "--no-baseline",
        "--compile-stats",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(!table.contains("hand-written"), "{table}");
    for needle in [
        "native ms",
        "bytecode ms",
        "demo.bt",
        "generated 1000",
        "generated 10000",
    ] {
        assert!(table.contains(needle), "{needle} missing: {table}");
    }
    let out = btvm(&[
        "bench",
        "--agents",
        "100",
        "--ticks",
        "2",
        "--engines",
        "vm",
        "--threads",
        "1",
        "--runs",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    for needle in [
        "\"tree\": \"demo.bt\"",
        "\"agents\": 100",
        "\"ticks\": 2",
        "\"engine\": \"vm\"",
        "\"threads\": 1",
        "\"ns_per_agent_tick\"",
        "\"agent_ticks_per_sec\"",
        "\"state_bytes_per_agent\": ",
        "\"machine\": ",
        "\"ns_min\": ",
        "\"ns_max\": ",
    ] {
        assert!(json.contains(needle), "{needle} missing: {json}");
    }
    // Two runs each: two figures per row.
    let runs = json
        .split("\"ns_runs\": [")
        .nth(1)
        .and_then(|r| r.split(']').next());
    assert_eq!(runs.map(|r| r.split(", ").count()), Some(2), "{json}");
    let out = btvm(&["bench", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A Drag[en]gine run saved at tick K and resumed from K (on another engine) prints the same
/// trace as one run; the saved file is the original's record format (ECBehaviorBehaviorTree's
/// element record around BTContext's).
#[test]
#[cfg(feature = "jit")] // runs `--engine native`
fn dragengine_runs_can_be_saved_and_resumed() {
    let tree = spec("examples/wanderer/wanderer.debt");
    let scn = spec("examples/wanderer/wanderer.scn");
    let whole = btvm(&["run", &tree, "-s", &scn]);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let whole = text(&whole.stdout);
    assert!(whole.contains("move.to(\"target\", \"away\", \"speed\", \"run\") enter -> running"));
    let dir = std::env::temp_dir().join(format!("btvm-cli-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let saved = dir.join("w.state");
    let saved = saved.to_str().unwrap();
    for (k, first, second) in [("13", "native", "vm"), ("5", "reference", "native")] {
        let a = btvm(&[
            "run",
            &tree,
            "-s",
            &scn,
            "--engine",
            first,
            "--save-at",
            k,
            "--save",
            saved,
        ]);
        assert!(a.status.success(), "{}", text(&a.stderr));
        let bytes = std::fs::read(saved).unwrap();
        assert_eq!(
            &bytes[..4],
            &[0, 1, 0, 1],
            "version 0, running, not failed; version 0, a current rule, first_run clear"
        );
        let b = btvm(&[
            "run",
            &tree,
            "-s",
            &scn,
            "--engine",
            second,
            "--restore",
            saved,
            "--from",
            k,
        ]);
        assert!(b.status.success(), "{}", text(&b.stderr));
        assert_eq!(text(&a.stdout) + &text(&b.stdout), whole, "saved at {k}");
    }
    // A saved rule id the tree lacks is accepted, as BTContext.readFromFile accepts it: the
    // context has no current rule, so the next step runs nothing and fails, which stops the tree.
    std::fs::write(saved, b"\x00\x01\x00\x03\x04nope").unwrap();
    let gone = btvm(&["run", &tree, "-s", &scn, "--restore", saved, "--from", "3"]);
    assert!(gone.status.success(), "{}", text(&gone.stderr));
    let lines: Vec<String> = text(&gone.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines[1].trim(), "root failure", "{lines:?}");
    assert_eq!(lines[3].trim(), "stopped", "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run saved after the tree stopped (a run-away, then a root failure) and resumed is still
/// stopped: the saved record carries the game element's "failed" flag.
#[test]
#[cfg(feature = "jit")] // runs `--engine native`
fn dragengine_halted_runs_stay_halted_when_resumed() {
    let dir = std::env::temp_dir().join(format!("btvm-cli-halt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tree = dir.join("spin.debt");
    std::fs::write(
        &tree,
        "<behaviorTree><sequence id='main'><action id='.wait' name='wait'/>\
         <sequence id='.spin' loop='true'><action id='.s' name='spin'/></sequence>\
         </sequence></behaviorTree>",
    )
    .unwrap();
    let scn = dir.join("spin.scn");
    std::fs::write(&scn, "ticks 5\nanswer wait = running, success\n").unwrap();
    let failing = dir.join("fail.debt");
    std::fs::write(
        &failing,
        "<behaviorTree><action id='a' name='a'/></behaviorTree>",
    )
    .unwrap();
    let fail_scn = dir.join("fail.scn");
    std::fs::write(&fail_scn, "ticks 4\nanswer a = failure, success\n").unwrap();
    let saved = dir.join("s.state");
    let saved = saved.to_str().unwrap();
    for (tree, scn, cut) in [(&tree, &scn, ["2", "3"]), (&failing, &fail_scn, ["1", "2"])] {
        let (tree, scn) = (tree.to_str().unwrap(), scn.to_str().unwrap());
        let whole = btvm(&["run", tree, "-s", scn]);
        assert!(whole.status.success(), "{}", text(&whole.stderr));
        let whole = text(&whole.stdout);
        assert!(whole.contains("stopped"), "{whole}");
        for k in cut {
            for (first, second) in [
                ("vm", "native"),
                ("reference", "vm"),
                ("native", "reference"),
            ] {
                let a = btvm(&[
                    "run",
                    tree,
                    "-s",
                    scn,
                    "--engine",
                    first,
                    "--save-at",
                    k,
                    "--save",
                    saved,
                ]);
                assert!(a.status.success(), "{}", text(&a.stderr));
                let bytes = std::fs::read(saved).unwrap();
                assert_eq!(&bytes[..2], &[0, 3], "version 0, running, failed");
                let b = btvm(&[
                    "run",
                    tree,
                    "-s",
                    scn,
                    "--engine",
                    second,
                    "--restore",
                    saved,
                    "--from",
                    k,
                ]);
                assert!(b.status.success(), "{}", text(&b.stderr));
                assert_eq!(text(&a.stdout) + &text(&b.stdout), whole, "saved at {k}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dragengine_strict_check_and_runaway_limit() {
    let tree = spec("examples/wanderer/wanderer.debt");
    let ok = btvm(&["check", &tree]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let strict = btvm(&["check", "--strict", &tree]);
    assert_eq!(strict.status.code(), Some(1));
    let err = text(&strict.stderr);
    assert!(
        err.contains("the game may have no action `move.to`"),
        "{err}"
    );
    assert!(err.contains("wanderer.debt:"), "positioned: {err}");
    let known = "move.to,destination.choose,look.turn,pose.sit,pose.stand,enemy.near,health.low";
    let strict_ok = btvm(&["check", "--strict", "--known", known, &tree]);
    assert!(strict_ok.status.success(), "{}", text(&strict_ok.stderr));
    // A run-away limit of 3 stops the wanderer on its first step.
    let run = btvm(&["run", &tree, "--ticks", "2", "--runaway-limit", "3"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    assert!(out.contains("error run-away after 3 rule runs"), "{out}");
    assert!(out.contains("  stopped"), "{out}");
    let wrong = btvm(&["run", &spec("examples/guard.bt"), "--runaway-limit", "3"]);
    assert_eq!(wrong.status.code(), Some(1));
    let zero = btvm(&["run", &tree, "--runaway-limit", "0"]);
    assert_eq!(zero.status.code(), Some(2), "a usage error");
}

#[test]
#[cfg(feature = "jit")] // runs `--engine native`
fn spore_runs_dump_state_and_debug_output() {
    let tree = spec("examples/figure1.spore");
    let scn = spec("examples/figure1.scn");
    // The final state of every agent follows the trace, the same on every engine.
    let reference = btvm(&["run", &tree, "-s", &scn, "--dump-state"]);
    assert!(reference.status.success(), "{}", text(&reference.stderr));
    let out = text(&reference.stdout);
    assert!(
        out.contains("state of agent 0 after tick 15 (now 1500)"),
        "{out}"
    );
    assert!(out.contains("  *ROOT (group prioritized)"), "{out}");
    assert!(out.contains("decision flags 0x"), "{out}");
    for engine in ["vm", "native"] {
        let other = btvm(&["run", &tree, "-s", &scn, "--dump-state", "--engine", engine]);
        assert!(other.status.success(), "{}", text(&other.stderr));
        assert_eq!(text(&other.stdout), out, "{engine}");
    }
    // Debug output goes to stderr; level 1 shows transitions only, level 5 every Decide.
    let l1 = btvm(&["run", &tree, "-s", &scn, "--debug-level", "1"]);
    assert!(l1.status.success(), "{}", text(&l1.stderr));
    let err1 = text(&l1.stderr);
    assert!(err1.contains("BTDBO(1) agent 0 @ 0:"), "{err1}");
    assert!(
        !err1.contains("BTDBO(2)") && !err1.contains("Decide returned"),
        "{err1}"
    );
    assert_eq!(
        text(&l1.stdout),
        text(&btvm(&["run", &tree, "-s", &scn]).stdout)
    );
    let l5 = btvm(&["run", &tree, "-s", &scn, "--debug-level", "5"]);
    let err5 = text(&l5.stderr);
    assert!(
        err5.contains("Decide returned") && err5.contains("BTDBO(3)"),
        "{err5}"
    );
    // Misuse is a clear error: debug output needs the reference; levels stop at 5.
    let vm = btvm(&[
        "run",
        &tree,
        "-s",
        &scn,
        "--debug-level",
        "2",
        "--engine",
        "vm",
    ]);
    assert_eq!(vm.status.code(), Some(1));
    assert!(
        text(&vm.stderr).contains("--engine reference"),
        "{}",
        text(&vm.stderr)
    );
    let six = btvm(&["run", &tree, "--debug-level", "6"]);
    assert_eq!(six.status.code(), Some(2));
}

/// `--dump-state` on every dialect: each agent's active path after the run, root first, with
/// kinds, names and file:line:column, `*` on what the state names itself; the same whichever
/// engine ran (the reference's path comes from a vm run of the same scenario).
#[test]
fn dump_state_shows_every_dialects_active_path() {
    let guard = spec("examples/guard.bt");
    let guard_scn = spec("examples/guard.scn");
    let wanderer = spec("examples/wanderer/wanderer.debt");
    let wanderer_scn = spec("examples/wanderer/wanderer.scn");
    let spore = spec("examples/figure1.spore");
    let spore_scn = spec("examples/figure1.scn");
    let mbt = spec("examples/squad_soldier.xml");
    let bst = spec("examples/grunt/grunt.xml");
    // (arguments, lines the dump must hold): what each tree runs at the end of its scenario,
    // read from the tree and the scenario.
    let cases: [(Vec<&str>, &[&str]); 5] = [
        (
            // guard.bt, 10 ticks: hurt at tick 9 and alerted, heal runs under the cooldown.
            vec![&guard, "-s", &guard_scn, "--ticks", "10"],
            &["guard.bt:5:1", "* action \"heal\" @ ", "guard.bt:16:6"],
        ),
        (
            // wanderer.debt, 14 ticks: the enemy is near from tick 12, the cursor rests on
            // the flee sequence's `.run` rule, moving away.
            vec![&wanderer, "-s", &wanderer_scn, "--ticks", "14"],
            &[
                "  selector \"wanderer\" @ ",
                "* guard \"wanderer.flee.run\" @ ",
                "* action \"move.to\" @ ",
            ],
        ),
        (
            // figure1.spore: the decider path and, as before, the decider view.
            vec![&spore, "-s", &spore_scn],
            &[
                "* decider \"ROOT\" @ ",
                "  *ROOT (group prioritized)",
                "decision flags 0x",
            ],
        ),
        (
            // squad_soldier.xml: the soldier idles in its state machine, waiting for noise.
            vec![&mbt, "--profile", "gamesdk", "--ticks", "3"],
            &["state \"Idle\" @ ", "* waitevent \"OnNoiseHeard\" @ "],
        ),
        (
            // grunt.xml: relaxed, no variable set: the Patrol leaf is selected.
            vec![&bst, "--ticks", "2"],
            &["priority \"Relaxed\" @ ", "* select \"Patrol\" @ "],
        ),
    ];
    for (args, want) in &cases {
        let mut run = vec!["run"];
        run.extend(args.iter().copied());
        run.push("--dump-state");
        let out = btvm(&run);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let dump = &stdout[stdout.find("state of agent 0 after tick").expect("a dump")..];
        assert!(dump.contains("  active path ("), "{dump}");
        for w in *want {
            assert!(dump.contains(w), "{args:?}: no `{w}` in\n{dump}");
        }
        let mut vm = run.clone();
        vm.extend(["--engine", "vm"]);
        assert_eq!(text(&btvm(&vm).stdout), stdout, "{args:?} on the vm");
    }
}
