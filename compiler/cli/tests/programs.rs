//! Program files are first-class (`btvm compile`, then the program wherever a tree goes): for
//! every example, `run` (vm, native, the default engine, `--trace nodes` from a traced
//! program) gives its tree's trace; `check` describes it; `view` and `dot` draw every node of
//! the node table, with the tree's timeline calls; the reference is refused with exit 2; an
//! untraced program refuses `--trace nodes`; a damaged file is exit 1 with a rendered error.

mod common;

use common::{btvm, compiled_engines, ok, spec, temp, text};
use serde_json::Value;

/// Each example with its scenario and loading options.
const EXAMPLES: &[(&str, &str, &[&str])] = &[
    ("examples/guard.bt", "examples/guard.scn", &[]),
    (
        "examples/wanderer/wanderer.debt",
        "examples/wanderer/wanderer.scn",
        &[],
    ),
    (
        "examples/squad_soldier.xml",
        "scenarios/squad_soldier.scn",
        &["--dialect", "mbt", "--profile", "gamesdk"],
    ),
    ("examples/grunt/grunt.xml", "scenarios/grunt.scn", &[]),
    ("examples/figure1.spore", "examples/figure1.scn", &[]),
];

/// `tree` compiled (with `more` options) to a program file named `name`.
fn compiled(tree: &str, opts: &[&str], name: &str, more: &[&str]) -> String {
    let target = temp(name, b"").to_string_lossy().into_owned();
    let mut args = vec!["compile", tree, "-o", &target];
    args.extend_from_slice(opts);
    args.extend_from_slice(more);
    ok(&args);
    target
}

/// The page's data element, parsed.
fn data(html: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"btvm-data\">";
    let start = html.find(open).unwrap() + open.len();
    let len = html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..start + len]).unwrap()
}

/// Every tick's host-call lines of a page's timeline.
fn calls(data: &Value) -> Vec<Value> {
    data["timeline"]["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["calls"].clone())
        .collect()
}

#[test]
fn a_program_runs_as_its_tree_on_every_compiled_engine() {
    for (i, &(tree, scn, opts)) in EXAMPLES.iter().enumerate() {
        let (tree, scn) = (spec(tree), spec(scn));
        let program = compiled(&tree, opts, &format!("p{i}.btvm"), &[]);
        for &engine in compiled_engines() {
            let mut args = vec!["run", &tree, "-s", &scn, "--engine", engine];
            args.extend_from_slice(opts);
            let want = ok(&args);
            let got = ok(&["run", &program, "-s", &scn, "--engine", engine]);
            assert!(want.contains("root "), "{tree}");
            assert_eq!(want, got, "{tree} on {engine}");
        }
        // Without `--engine`, a program runs on the vm.
        let vm = ok(&["run", &program, "-s", &scn, "--engine", "vm"]);
        assert_eq!(ok(&["run", &program, "-s", &scn]), vm, "{tree}");
        // Whatever its extension.
        let renamed = temp(&format!("p{i}.data"), std::fs::read(&program).unwrap());
        let renamed = renamed.to_string_lossy();
        assert_eq!(ok(&["run", &renamed, "-s", &scn]), vm, "{tree}");
    }
}

#[test]
fn a_traced_program_traces_nodes_and_an_untraced_one_refuses_to() {
    for (i, &(tree, scn, opts)) in EXAMPLES.iter().enumerate() {
        let (tree, scn) = (spec(tree), spec(scn));
        let traced = compiled(&tree, opts, &format!("t{i}.btvm"), &["--trace", "nodes"]);
        let mut args = vec![
            "run", &tree, "-s", &scn, "--engine", "vm", "--trace", "nodes",
        ];
        args.extend_from_slice(opts);
        let want = ok(&args);
        assert!(want.contains(" enter\n"), "{tree}");
        let got = ok(&["run", &traced, "-s", &scn, "--trace", "nodes"]);
        assert_eq!(want, got, "{tree}");
        let plain = compiled(&tree, opts, &format!("u{i}.btvm"), &[]);
        let out = btvm(&["run", &plain, "-s", &scn, "--trace", "nodes"]);
        assert_eq!(out.status.code(), Some(1), "{tree}");
        // The note names the command that makes a traced program.
        assert!(
            text(&out.stderr).contains("`btvm compile TREE --trace nodes`"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn the_reference_is_a_usage_error_naming_the_fix() {
    let program = compiled(&spec("examples/guard.bt"), &[], "ref.btvm", &[]);
    let out = btvm(&["run", &program, "--engine", "reference"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("--engine vm"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn check_describes_a_program_and_view_and_dot_draw_it() {
    for (i, &(tree, scn, opts)) in EXAMPLES.iter().enumerate() {
        let (tree, scn) = (spec(tree), spec(scn));
        let program = compiled(&tree, opts, &format!("c{i}.btvm"), &[]);
        let said = ok(&["check", &program]);
        assert!(said.contains(": ok (program: "), "{said}");
        assert!(said.contains("state bytes per agent"), "{said}");
        let mut args = vec!["view", &tree, "-s", &scn];
        args.extend_from_slice(opts);
        let from_tree = data(&ok(&args));
        let from_program = data(&ok(&["view", &program, "-s", &scn]));
        for (a, b) in [(&from_tree, &from_program)] {
            assert_eq!(
                a["nodes"].as_array().unwrap().len(),
                b["nodes"].as_array().unwrap().len()
            );
            assert_eq!(a["roots"], b["roots"], "{tree}");
            assert_eq!(a["dialect"], b["dialect"], "{tree}");
            for (x, y) in a["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .zip(b["nodes"].as_array().unwrap())
            {
                assert_eq!(
                    (&x["kind"], &x["name"], &x["line"], &x["children"]),
                    (&y["kind"], &y["name"], &y["line"], &y["children"]),
                    "{tree}"
                );
            }
            assert_eq!(calls(a), calls(b), "{tree}");
        }
        let dot = ok(&["dot", &program]);
        assert!(dot.starts_with("digraph"), "{dot}");
    }
}

#[test]
fn a_damaged_program_is_exit_1_with_a_rendered_error() {
    let program = compiled(&spec("examples/guard.bt"), &[], "bad.btvm", &[]);
    let mut bytes = std::fs::read(&program).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    let bad = temp("bad2.btvm", &bytes);
    let bad = bad.to_string_lossy();
    for cmd in ["check", "run", "view", "dot"] {
        let out = btvm(&[cmd, &bad]);
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let err = text(&out.stderr);
        assert!(
            err.contains("error") && err.contains("not a valid program"),
            "{cmd}: {err}"
        );
        assert!(out.stdout.is_empty(), "{cmd}");
    }
}

/// The `checksums agree` line of `btvm bench ARGS`.
fn agreed(args: &[&str]) -> String {
    let out = ok(args);
    out.lines()
        .find(|l| l.starts_with("checksums agree"))
        .unwrap_or_else(|| panic!("no agreement line in:\n{out}"))
        .to_string()
}

#[test]
fn bench_times_a_program_as_its_tree_on_the_vm_and_native_code() {
    for (i, &(tree, _, opts)) in EXAMPLES.iter().enumerate() {
        let tree = spec(tree);
        let program = compiled(&tree, opts, &format!("b{i}.btvm"), &[]);
        let size = [
            "--agents",
            "64",
            "--ticks",
            "5",
            "--runs",
            "1",
            "--host",
            "synthetic",
        ];
        let engines = compiled_engines().join(",");
        let mut args = vec!["bench", &tree, "--engines", &engines];
        args.extend_from_slice(&size);
        args.extend_from_slice(opts);
        let want = agreed(&args);
        let all = format!("reference,{engines}");
        let mut args = vec!["bench", &program, "--engines", &all];
        args.extend_from_slice(&size);
        let out = btvm(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("the reference is not timed"));
        let table = text(&out.stdout);
        assert!(!table.contains("\nreference "), "{table}");
        for engine in compiled_engines() {
            assert!(table.contains(&format!("\n{engine} ")), "{table}");
        }
        assert!(table.contains(&want), "{tree}: {table}");
    }
}

#[test]
fn reload_and_save_restore_work_between_programs_and_trees() {
    let (tree, v2) = (
        spec("examples/grunt/grunt.xml"),
        spec("examples/grunt/grunt_v2.xml"),
    );
    let scn = spec("scenarios/grunt.scn");
    let (p1, p2) = (
        compiled(&tree, &[], "r1.btvm", &[]),
        compiled(&v2, &[], "r2.btvm", &[]),
    );
    let reloaded = |old: &str, new: &str| {
        let out = btvm(&["run", old, "-s", &scn, "--reload-at", "5", new]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let want = reloaded(&tree, &v2);
    assert!(want.1.contains("reload at tick 5"), "{}", want.1);
    for (old, new) in [(&p1, &p2), (&p1, &v2), (&tree, &p2)] {
        assert_eq!(reloaded(old, new), want, "{old} into {new}");
    }
    // Saved from a program, resumed from its tree, and the other way round.
    let whole = ok(&["run", &tree, "-s", &scn, "--engine", "vm"]);
    let saved = temp("r.state", b"").to_string_lossy().into_owned();
    for (first, second) in [(&p1, &tree), (&tree, &p1)] {
        let head = ok(&[
            "run",
            first,
            "-s",
            &scn,
            "--engine",
            "vm",
            "--save-at",
            "6",
            "--save",
            &saved,
        ]);
        let tail = ok(&[
            "run",
            second,
            "-s",
            &scn,
            "--engine",
            "vm",
            "--restore",
            &saved,
            "--from",
            "6",
        ]);
        assert_eq!(format!("{head}{tail}"), whole, "{first} then {second}");
    }
}

#[test]
fn check_of_a_directory_checks_its_program_files_too() {
    let program = compiled(&spec("examples/guard.bt"), &[], "dir-src.btvm", &[]);
    let dir = std::path::Path::new(&program).with_file_name("checked");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&program, dir.join("guard.btvm")).unwrap();
    let said = ok(&["check", &dir.to_string_lossy()]);
    assert!(
        said.contains("guard.btvm: ok (program: running-list model"),
        "{said}"
    );
}
