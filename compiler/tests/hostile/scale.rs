//! Quadratic loading (issue 25, finding 4): every table a tree declares is checked for
//! duplicates, and looked up, in linear time. Each test loads a file with 200,000 entries in
//! one table, built in memory, under a generous time bound; before the fix these took 13 to
//! 35 s in a release build (hours in a debug one). `benches/benches/tables.rs` shows the
//! growth from 1,000 to 1,000,000 entries.
//!
//! Where the quadratic step was in the lowering (events), the test compiles the tree too.
//! What the fixed code takes (debug build, 2 shared cores) is noted on each test; the bound,
//! [`BOUND`], is several times the slowest of them.

use std::fmt::Write;
use std::time::{Duration, Instant};

use btvm::Limits;
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::ir::Tree;

use super::{load_err, load_ok, try_load};

/// Entries per table.
const N: usize = 200_000;

/// The time one file's load (and compile) may take in a debug build on a loaded machine: the
/// slowest (200,000 subtrees) takes 11 s on two shared cores; a quadratic step takes hours.
const BOUND: Duration = Duration::from_secs(30);

/// Runs `f`, failing if it takes longer than [`BOUND`].
fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < BOUND, "{what} took {took:?} (bound {BOUND:?})");
    out
}

/// `n` lines made by `line` from the index.
fn lines(n: usize, line: impl Fn(&mut String, usize)) -> String {
    let mut s = String::new();
    for i in 0..n {
        line(&mut s, i);
    }
    s
}

/// Loads `name` (its format from its extension) and checks it, under the bound.
fn load_timed(name: &str, src: &str) -> Tree {
    timed(name, || load_ok(&[(name, src.as_bytes())]))
}

/// Loads and compiles `name` under the bound.
fn compile_timed(name: &str, src: &str) -> Tree {
    timed(name, || {
        let tree = load_ok(&[(name, src.as_bytes())]);
        // 200,000 timestamps take 1.8 MB of state per agent: past the default limit.
        let limits = Limits {
            max_state_bytes: 16 << 20,
            ..Limits::default()
        };
        if let Err(d) = btvm_compiler::lower::lower(&tree, &limits) {
            panic!("{name} does not compile: {}", d[0].message);
        }
        tree
    })
}

const BTN: &str = "btvm 1;\ndialect unvanquished;\n";

// Fixed: 2.7 s in a debug build (0.8 s for `btvm check` in release; 35 s before).
#[test]
fn two_hundred_thousand_canonical_imports() {
    let src = format!(
        "{BTN}{}root main = const success\n",
        lines(N, |s, i| writeln!(s, "import action a{i} 0..0;").unwrap())
    );
    assert_eq!(load_timed("a.btn", &src).imports.len(), N);
}

// Fixed: 1.8, 2.1, 6.2 and 11 s in a debug build (release: 0.4, 0.3, 0.9 and 1.0 s; the
// entries are slow in the parser, not in a duplicate check: 50,000 take a quarter as long).
#[test]
fn two_hundred_thousand_canonical_variables_timestamps_and_entries() {
    let vars = lines(N, |s, i| writeln!(s, "var v{i}: int = 0;").unwrap());
    let src = format!("{BTN}{vars}root main = const success\n");
    assert_eq!(load_timed("a.btn", &src).vars.len(), N);
    // Timestamps belong to the lifecycle model (MBT).
    let stamps = lines(N, |s, i| {
        writeln!(s, "timestamp t{i} on \"e{i}\";").unwrap()
    });
    let src = format!("btvm 1;\ndialect mbt;\n{stamps}root main = const success\n");
    assert_eq!(load_timed("a.btn", &src).timestamps.len(), N);
    let roots = lines(N, |s, i| writeln!(s, "root r{i} = const success").unwrap());
    let subtrees = lines(N, |s, i| {
        writeln!(s, "subtree \"s{i}\" shared = const success").unwrap()
    });
    assert_eq!(load_timed("a.btn", &format!("{BTN}{roots}")).roots.len(), N);
    let src = format!("{BTN}root main = const success\n{subtrees}");
    assert_eq!(load_timed("a.btn", &src).subtrees.len(), N);
}

// Fixed: 1.6 and 1.1 s in a debug build (before: 8.7 s for 20,000 with `btvm check` in release).
#[test]
fn two_hundred_thousand_repeated_canonical_declarations() {
    // Every line an error: the parser keeps them all, and deduplicates them per position; the
    // load reports the first `Limits::max_errors` (issue 26). The error is at the repeated
    // name.
    for (what, line, at) in [
        ("import", "import action a 0..0;\n", "/t/a.btn:4:15"),
        ("var", "var v: int = 0;\n", "/t/a.btn:4:5"),
    ] {
        let src = format!("{BTN}{}root main = const success\n", line.repeat(N));
        let (r, sources) = timed(what, || try_load(&[("a.btn", src.as_bytes())]));
        let diags = r.err().unwrap_or_else(|| panic!("repeated {what}s loaded"));
        let bound = btvm_compiler::load::LoadOptions::default()
            .limits
            .max_errors;
        assert_eq!(diags.len(), bound.min(N - 1), "{what}");
        assert!(
            diags.iter().all(|d| d.kind == ErrorKind::InvalidValue),
            "{what}"
        );
        assert_eq!(sources.locate(diags[0].span), at, "{what}");
    }
}

/// A BST file with the given `<Variables>` and `<SignalVariables>` and a one-leaf tree.
fn bst(vars: &str, signals: &str) -> String {
    format!(
        "<SelectionTrees>\n<SelectionTree name=\"T\" type=\"BehaviorSelectionTree\">\n\
         <Variables>\n{vars}</Variables>\n<SignalVariables>\n{signals}</SignalVariables>\n\
         <Priority name=\"Root\">\n<Leaf name=\"L\"/>\n</Priority>\n</SelectionTree>\n\
         </SelectionTrees>\n"
    )
}

// Fixed: 2.3 s in a debug build (0.7 s in release; 80,000 took 31 s before).
#[test]
fn two_hundred_thousand_bst_variables() {
    let vars = lines(N, |s, i| writeln!(s, "<Variable name=\"V{i}\"/>").unwrap());
    assert_eq!(load_timed("a.xml", &bst(&vars, "")).vars.len(), N);
}

// Fixed: 4.4 s in a debug build, load and compile (80,000 took 23 s before).
#[test]
fn two_hundred_thousand_bst_signals() {
    // Each signal its own event: one event function each in the selection lowering.
    let signals = lines(N, |s, i| {
        writeln!(s, "<Signal name=\"S{i}\" variable=\"A\" value=\"true\"/>").unwrap()
    });
    let tree = compile_timed("a.xml", &bst("<Variable name=\"A\"/>\n", &signals));
    assert_eq!(tree.signals.len(), N);
}

/// An MBT file with the given sections and a root that logs.
fn mbt(vars: &str, signals: &str, stamps: &str) -> String {
    format!(
        "<BehaviorTree>\n<Variables>\n{vars}</Variables>\n<SignalVariables>\n{signals}\
         </SignalVariables>\n<Timestamps>\n{stamps}</Timestamps>\n<Root>\n\
         <Log message=\"x\"/>\n</Root>\n</BehaviorTree>\n"
    )
}

// Fixed: 1.8 s in a debug build (0.4 s in release; 40,000 took 7 s before).
#[test]
fn two_hundred_thousand_mbt_variables() {
    let vars = lines(N, |s, i| writeln!(s, "<Variable name=\"V{i}\"/>").unwrap());
    assert_eq!(load_timed("a.xml", &mbt(&vars, "", "")).vars.len(), N);
}

// Fixed: 6.1 and 5.7 s in a debug build, load and compile.
#[test]
fn two_hundred_thousand_mbt_signals_and_timestamps() {
    // Each signal and each timestamp its own event: one event function each.
    let signals = lines(N, |s, i| {
        writeln!(s, "<Signal name=\"S{i}\" variable=\"A\" value=\"true\"/>").unwrap()
    });
    let src = mbt("<Variable name=\"A\"/>\n", &signals, "");
    assert_eq!(compile_timed("a.xml", &src).signals.len(), N);
    let stamps = lines(N, |s, i| {
        writeln!(s, "<Timestamp name=\"T{i}\" setOnEvent=\"E{i}\"/>").unwrap()
    });
    assert_eq!(
        compile_timed("a.xml", &mbt("", "", &stamps))
            .timestamps
            .len(),
        N
    );
}

// Fixed: 3.0 s in a debug build (0.8 s in release; 100,000 took 13.6 s before).
#[test]
fn two_hundred_thousand_spore_behaviors() {
    let behaviors = lines(N, |s, i| writeln!(s, "behavior b{i} tick;").unwrap());
    let src = format!("spore 1;\n{behaviors}root R => b0;\n");
    assert_eq!(load_timed("a.spore", &src).imports.len(), N);
}

// 6.1 s in a debug build (0.9 s in release); linear before too (an index already).
#[test]
fn two_hundred_thousand_dragengine_ids_and_actions() {
    let rules = lines(N, |s, i| {
        writeln!(s, "<action id=\".a{i}\" name=\"a{i}\"/>").unwrap()
    });
    let src =
        format!("<behaviorTree>\n<sequence id=\"main\">\n{rules}</sequence>\n</behaviorTree>\n");
    assert_eq!(load_timed("a.debt", &src).imports.len(), N);
}

// 2.8 s in a debug build; linear before too (macros are a hash map).
#[test]
fn two_hundred_thousand_unvanquished_enum_members() {
    let members = lines(N, |s, i| writeln!(s, "  E{i},").unwrap());
    let src =
        format!("enum {{\n{members}}};\ncondition E199999 == 199999\n{{\n  action roam\n}}\n");
    load_timed("a.bt", &src);
}

// Fixed: 0.4 s in a debug build, refused at attribute 257 (35 s before, in roxmltree).
#[test]
fn two_hundred_thousand_attributes_on_one_xml_element() {
    let max = Limits::default().max_xml_attributes;
    let attrs = lines(N, |s, i| write!(s, " a{i}=\"\"").unwrap());
    for (name, src) in [
        (
            "a.xml",
            format!("<BehaviorTree{attrs}>\n<Root/>\n</BehaviorTree>\n"),
        ),
        (
            "b.xml",
            format!("<SelectionTrees{attrs}>\n</SelectionTrees>\n"),
        ),
        (
            "a.debt",
            format!("<behaviorTree>\n<action name=\"a\"{attrs}/>\n</behaviorTree>\n"),
        ),
    ] {
        let (kind, at) = timed(name, || load_err(&[(name, src.as_bytes())]));
        assert_eq!(kind, ErrorKind::TooManyNodes, "{name}");
        // At the first attribute past the limit, on the line of the element: `a{max}`, or
        // `a{max - 1}` after Drag[en]gine's `name`.
        let (line, first) = if name.ends_with(".debt") {
            (2, max - 1)
        } else {
            (1, max)
        };
        let text = src.lines().nth(line - 1).unwrap();
        let col = text.find(&format!(" a{first}=")).unwrap() + 2;
        assert_eq!(at, format!("/t/{name}:{line}:{col}"));
    }
    // At the limit, the file loads (the element's attributes are then the dialect's business).
    let attrs = lines(max - 1, |s, i| write!(s, " a{i}=\"\"").unwrap());
    let src = format!("<behaviorTree>\n<action name=\"a\"{attrs}/>\n</behaviorTree>\n");
    load_timed("a.debt", &src);
}
