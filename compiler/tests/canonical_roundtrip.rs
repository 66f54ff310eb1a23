//! Round trip of the canonical syntax over generated trees: for every valid tree `t`,
//! `strip_spans(parse(print(t))) == strip_spans(t)`, and printing is a fixed point. Also:
//! damaged printouts never panic, and the generators reach every feature.
//!
//! The number of cases defaults to [`DEFAULT_CASES`]; set `PROPTEST_CASES` to change it (as
//! with any proptest). Failing cases are persisted under `proptest-regressions/`.

use std::collections::BTreeSet;

use btvm::Limits;
use btvm_compiler::ir::Tree;
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};

use btvm_testkit::strategies::{self as gen, GenConfig};

/// Cases per run unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 1024;

fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = DEFAULT_CASES;
    }
    c
}

/// Parses `text` as a file of its own, rendering errors with their positions.
fn parse(text: &str) -> Result<Tree, String> {
    let mut sources = SourceMap::new();
    let file = sources.add("generated.btn", text.to_string());
    canonical::parse(file, text, &Limits::default()).map_err(|diags| {
        diags
            .iter()
            .map(|d| format!("{} [{:?}]", d.display(&sources), d.kind))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn stripped(mut t: Tree) -> Tree {
    t.strip_spans();
    t
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn print_then_parse_gives_back_the_tree(tree in gen::tree(GenConfig::default())) {
        prop_assert_eq!(tree.validate(), Ok(()));
        let text = canonical::print(&tree);
        let parsed = match parse(&text) {
            Ok(t) => t,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n--- text ---\n{text}"))),
        };
        let again = canonical::print(&parsed);
        prop_assert_eq!(&again, &text, "printing is not a fixed point");
        prop_assert_eq!(stripped(parsed), stripped(tree), "--- text ---\n{}", text);
    }
}

/// `text` with a comment on a line of its own before every line and one at the end of every
/// line that does not end inside a string, each numbered so it can be found again.
fn commented(text: &str) -> (String, usize) {
    let mut out = String::new();
    let mut n = 0;
    for line in text.lines() {
        out.push_str(&format!("// c{n}#\n"));
        n += 1;
        out.push_str(line);
        // A line that opens a string it does not close continues the string on the next.
        if line.matches('"').count() % 2 == 0 && !line.contains('\\') {
            out.push_str(&format!(" /* c{n}# */"));
            n += 1;
        }
        out.push('\n');
    }
    (out, n)
}

proptest! {
    #![proptest_config(config())]

    /// `btvm fmt`: formatting a commented printout keeps the tree and every comment, in
    /// order, and formatting it again changes nothing.
    #[test]
    fn formatting_keeps_the_tree_and_every_comment(tree in gen::tree(GenConfig::default())) {
        let (text, comments) = commented(&canonical::print(&tree));
        let mut sources = SourceMap::new();
        let file = sources.add("commented.btn", text.clone());
        let limits = Limits::default();
        let once = match canonical::format(file, &text, &limits) {
            Ok(t) => t,
            Err(d) => return Err(TestCaseError::fail(format!("{}\n--- text ---\n{text}", d[0].display(&sources)))),
        };
        let mut at = 0;
        for k in 0..comments {
            let found = once[at..].find(&format!(" c{k}#"));
            prop_assert!(found.is_some(), "comment c{} lost or out of order:\n{}", k, once);
            at += found.unwrap_or(0);
        }
        let again = canonical::format(file, &once, &limits).map_err(|d| TestCaseError::fail(d[0].message.clone()))?;
        prop_assert_eq!(&again, &once, "formatting is not a fixed point");
        let parsed = parse(&once).map_err(TestCaseError::fail)?;
        prop_assert_eq!(stripped(parsed), stripped(tree));
    }
}

/// Applies one edit to `text`: deletes `len` characters at `at` and inserts `insert` there.
fn mangle(text: &str, at: prop::sample::Index, len: usize, insert: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let start = at.index(chars.len() + 1);
    let end = (start + len).min(chars.len());
    chars[..start]
        .iter()
        .chain(insert.chars().collect::<Vec<_>>().iter())
        .chain(chars[end..].iter())
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// Damaged files never panic: they parse to a valid tree or give errors inside the file.
    #[test]
    fn damaged_text_gives_errors_not_panics(
        tree in gen::tree(GenConfig::default()),
        at in any::<prop::sample::Index>(),
        len in 0usize..6,
        insert in prop_oneof![
            Just(String::new()),
            "[ -~]{1,3}",
            prop::sample::select(vec!["{", "}", "(", ")", "\"", "-", "/*", "\\", "@", "$", ";"])
                .prop_map(str::to_string),
        ],
    ) {
        let text = mangle(&canonical::print(&tree), at, len, &insert);
        let mut sources = SourceMap::new();
        let file = sources.add("damaged.btn", text.clone());
        match canonical::parse(file, &text, &Limits::default()) {
            Ok(t) => prop_assert_eq!(t.validate(), Ok(())),
            Err(diags) => {
                prop_assert!(!diags.is_empty());
                for d in &diags {
                    prop_assert_eq!(d.span.file, file);
                    prop_assert!(d.span.start <= d.span.end && d.span.end as usize <= text.len());
                }
            }
        }
    }
}

/// Every node kind the generators promise, by keyword.
const PROMISED_NODES: &[&str] = &[
    "sequence",
    "selector",
    "parallel",
    "priority",
    "case",
    "statemachine",
    "state",
    "group",
    "decider",
    "invert",
    "map",
    "cooldown",
    "guard",
    "loop",
    "groupscope",
    "hooks",
    "logstatus",
    "include",
    "action",
    "condition",
    "const",
    "yield",
    "wait",
    "waituntil",
    "send",
    "waitevent",
    "log",
    "select",
    "behavior",
];

/// Every feature the generators promise, by the names [`btvm_testkit::features::features`] gives them.
fn promised_features() -> BTreeSet<String> {
    let mut f: BTreeSet<String> = PROMISED_NODES.iter().map(|k| format!("node:{k}")).collect();
    for d in ["unvanquished", "dragengine", "mbt", "bst", "spore"] {
        f.insert(format!("dialect:{d}"));
    }
    for m in [
        "running-list",
        "cursor",
        "lifecycle",
        "selection",
        "decider",
    ] {
        f.insert(format!("model:{m}"));
    }
    for r in ["restart", "remember", "running-list", "cursor"] {
        f.insert(format!("resume:{r}"));
    }
    for g in ["every-tick", "on-entry", "on-change"] {
        f.insert(format!("priority:{g}"));
        f.insert(format!("guard:{g}"));
    }
    for p in ["prioritized", "sequential", "random", "scored"] {
        f.insert(format!("policy:{p}"));
    }
    for s in ["failure", "success", "running"] {
        for k in [
            "map:failure",
            "map:success",
            "map:running",
            "loop:until",
            "const",
        ] {
            f.insert(format!("{k}:{s}"));
        }
        for k in ["wait", "send", "waitevent"] {
            f.insert(format!("{k}:{s}"));
        }
    }
    for q in ["all", "any"] {
        f.insert(format!("parallel:success:{q}"));
        f.insert(format!("parallel:failure:{q}"));
    }
    for b in ["true", "false"] {
        for k in [
            "parallel:stop",
            "parallel:remember",
            "flag:all",
            "flag:set",
            "loop:count",
        ] {
            f.insert(format!("{k}:{b}"));
        }
        f.insert(format!("lit:bool:{b}"));
    }
    for op in [
        "<", "<=", ">", ">=", "==", "!=", "&&", "||", "^^", "+", "-", "*", "/",
    ] {
        f.insert(format!("binop:{op}"));
    }
    for q in ["EverSet", "Valid", "Elapsed"] {
        f.insert(format!("expr:timestamp:{q}"));
    }
    for x in [
        "root-finish:Rerun",
        "root-finish:RestartOrStop",
        "root-finish:Stop",
        "abort:Abandon",
        "abort:Terminate",
        "precision:Single",
        "precision:Double",
        "import:action",
        "import:function",
        "import:long",
        "roots:several",
        "subtree:shared",
        "subtree:per-site",
        "timestamp:exclusive",
        "timestamp:on",
        "signal",
        "var:Bool",
        "var:Int",
        "var:Float",
        "node:named",
        "composite:loop",
        "composite:when",
        "transition:on",
        "transition:when",
        "group:behavior",
        "decider:every",
        "decider:decide",
        "decider:redecide",
        "hooks:enter",
        "hooks:exit",
        "logstatus:start",
        "logstatus:success",
        "logstatus:failure",
        "wait:negative",
        "arg:named",
        "expr:var",
        "expr:call",
        "expr:bound:action",
        "expr:bound:function",
        "expr:random",
        "expr:not",
        "expr:neg",
        "expr:neg-of-literal",
        "lit:int:negative",
        "lit:int:min",
        "lit:int:max",
        "lit:float:nan",
        "lit:float:nan-payload",
        "lit:float:inf",
        "lit:float:-inf",
        "lit:float:-0",
        "lit:float:large",
        "lit:str:quote",
        "lit:str:backslash",
        "lit:str:newline",
        "lit:str:unicode",
    ] {
        f.insert(x.to_string());
    }
    f
}

/// The generators reach every node kind, knob value, expression variant and literal form
/// within a fixed, deterministic sample (so the round trip above exercises all of them).
#[test]
fn generators_cover_every_feature() {
    let mut runner = TestRunner::deterministic();
    let strategy = gen::tree(GenConfig::default());
    let mut seen = BTreeSet::new();
    for _ in 0..400 {
        let tree = strategy
            .new_tree(&mut runner)
            .expect("the generator never rejects")
            .current();
        assert_eq!(tree.validate(), Ok(()));
        seen.extend(btvm_testkit::features::features(&tree));
    }
    let missing: Vec<_> = promised_features().difference(&seen).cloned().collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
