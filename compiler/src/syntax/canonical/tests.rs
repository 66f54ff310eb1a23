//! Unit tests of the canonical syntax: a hand-written file, the exact printed form, error kinds
//! and positions, and the nesting limits (on a normal-sized thread stack).

use std::path::Path;

use btvm::{Import, ImportId, ImportKind, Limits, Status};

use super::*;
use crate::diag::ErrorKind;
use crate::ir::{
    Abort, Arg, BinOp, CallExpr, Composite, Dialect, Expr, GuardEval, Hooks, Lit, Model, NodeBuf,
    NodeKind, Precision, Priority, Resume, RootFinish, Sharing, SubtreeId, TimestampDecl,
    TimestampId, TreeBuilder, TreeConfig, TsQuery, Type, Var, VarId, Wait,
};
use crate::source::{MemFs, SourceMap, Span};

const HEAD: &str = "btvm 1;\ndialect mbt;\n";

fn parse_with(text: &str, limits: &Limits) -> (crate::diag::Result<Tree>, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", text.to_string());
    (parse(file, text, limits), sources)
}

fn ok(text: &str) -> Tree {
    match parse_with(text, &Limits::default()) {
        (Ok(t), _) => t,
        (Err(ds), sources) => {
            let msgs: Vec<_> = ds.iter().map(|d| d.display(&sources).to_string()).collect();
            panic!(
                "unexpected errors:\n{}\n--- text ---\n{text}",
                msgs.join("\n")
            )
        }
    }
}

/// The first error's kind, `line:column` and message.
fn err_with(text: &str, limits: &Limits) -> (ErrorKind, String, String) {
    match parse_with(text, limits) {
        (Ok(_), _) => panic!("parsed but should not have:\n{text}"),
        (Err(ds), sources) => {
            let d = &ds[0];
            let loc = sources.locate(d.span);
            let loc = loc.strip_prefix("t.btn:").unwrap_or(&loc).to_string();
            (d.kind, loc, d.message.clone())
        }
    }
}

fn err(text: &str) -> (ErrorKind, String, String) {
    err_with(text, &Limits::default())
}

fn stripped(mut t: Tree) -> Tree {
    t.strip_spans();
    t
}

/// The expression of the root `condition` node.
fn cond_of(text: &str) -> Expr {
    let t = ok(&format!("{HEAD}{text}"));
    match &t.nodes[0].kind {
        NodeKind::Condition(e) => e.clone(),
        other => panic!("not a condition: {other:?}"),
    }
}

/// Runs `f` on a fresh thread with the default (2 MiB) stack.
fn on_normal_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::spawn(f).join().expect("the thread panicked");
}

fn lit(l: Lit) -> Expr {
    Expr::Lit(l)
}

fn int(i: i64) -> Expr {
    lit(Lit::Int(i))
}

const SAMPLE: &str = r#"// A hand-written file using most of the syntax.
btvm 1;
dialect mbt;
model lifecycle;
root-finish stop;
abort terminate;
precision double;

import action fight 0..0 long;
import function distanceTo 1..2;
import action "say hello" 1..1;
var hungry: bool = false;
var count: int = -3;
timestamp Seen on "EnemySeen" exclusive Lost;
timestamp Lost;
signal "OnSeen" hungry = !$hungry;

root main = selector @"top" remember {
    sequence restart loop when ($count < 10) {
        /* the guard */ condition (distanceTo(1.5, max = 2) <= -5 + 1 * 2 || @valid(Seen))
        action fight()
        action "say hello"("hi\n")
    }
    priority on-change {
        case (@elapsed(Seen) > 100) { wait 100 5 -> success }
    }
    include "helper"
}
root alt = const failure
subtree "helper" per-site = invert { yield }
"#;

fn sample_tree() -> Tree {
    let mut b = TreeBuilder::new(Dialect::Mbt);
    b.config(TreeConfig {
        model: Model::Lifecycle,
        root_finish: RootFinish::Stop,
        abort: Abort::Terminate,
        precision: Precision::Double,
        clock: 100,
    });
    let import = |name: &str, kind, min_args, max_args, long_running| Import {
        name: name.into(),
        kind,
        min_args,
        max_args,
        long_running,
        claims: btvm::SlotClaims::default(),
        script: None,
    };
    let fight = b.import(import("fight", ImportKind::Action, 0, 0, true));
    let dist = b.import(import("distanceTo", ImportKind::Function, 1, 2, false));
    let say = b.import(import("say hello", ImportKind::Action, 1, 1, false));
    let hungry = b.var(Var {
        name: "hungry".into(),
        ty: Type::Bool,
        default: Lit::Bool(false),
    });
    let count = b.var(Var {
        name: "count".into(),
        ty: Type::Int,
        default: Lit::Int(-3),
    });
    let seen = b.timestamp(TimestampDecl {
        name: "Seen".into(),
        set_on: Some("EnemySeen".into()),
        exclusive_to: Some(TimestampId(1)),
    });
    b.timestamp(TimestampDecl {
        name: "Lost".into(),
        set_on: None,
        exclusive_to: None,
    });
    b.signal(
        "OnSeen".into(),
        hungry,
        Expr::Not(Box::new(Expr::Var(hungry))),
    );
    let n = |kind, children| NodeBuf::new(kind, Span::DUMMY, children);
    let call = |import, args| CallExpr { import, args };
    let guard = Expr::binary(
        BinOp::Or,
        Expr::binary(
            BinOp::Le,
            Expr::Call(call(
                dist,
                vec![
                    Arg {
                        name: None,
                        value: lit(Lit::Float(1.5)),
                    },
                    Arg {
                        name: Some("max".into()),
                        value: int(2),
                    },
                ],
            )),
            Expr::binary(
                BinOp::Add,
                int(-5),
                Expr::binary(BinOp::Mul, int(1), int(2)),
            ),
        ),
        Expr::Timestamp(seen, TsQuery::Valid),
    );
    let seq = n(
        NodeKind::Sequence(Composite {
            resume: Resume::Restart,
            looping: true,
            cond: Some(Expr::binary(BinOp::Lt, Expr::Var(count), int(10))),
        }),
        vec![
            n(NodeKind::Condition(guard), vec![]),
            n(NodeKind::Action(call(fight, vec![])), vec![]),
            n(
                NodeKind::Action(call(
                    say,
                    vec![Arg {
                        name: None,
                        value: lit(Lit::Str("hi\n".into())),
                    }],
                )),
                vec![],
            ),
        ],
    );
    let case = n(
        NodeKind::Case(Expr::binary(
            BinOp::Gt,
            Expr::Timestamp(seen, TsQuery::Elapsed),
            int(100),
        )),
        vec![n(
            NodeKind::Wait(Wait {
                time: 100,
                variation: 5,
                result: Status::Success,
            }),
            vec![],
        )],
    );
    let priority = n(
        NodeKind::Priority(Priority {
            repick: GuardEval::OnChange,
        }),
        vec![case],
    );
    let mut top = n(
        NodeKind::Selector(Composite {
            resume: Resume::Remember,
            looping: false,
            cond: None,
        }),
        vec![seq, priority, n(NodeKind::Include(SubtreeId(0)), vec![])],
    );
    top.name = Some("top".into());
    b.root("main", top);
    b.root("alt", n(NodeKind::Const(Status::Failure), vec![]));
    let helper = b.declare_subtree("helper", Sharing::PerSite, Span::DUMMY);
    b.define_subtree(
        helper,
        n(NodeKind::Invert, vec![n(NodeKind::Yield, vec![])]),
    );
    b.finish().unwrap()
}

const SAMPLE_PRINTED: &str = r#"btvm 1;
dialect mbt;
model lifecycle;
root-finish stop;
abort terminate;
precision double;
clock 100;

import action fight 0..0 long;
import function distanceTo 1..2;
import action "say hello" 1..1;
var hungry: bool = false;
var count: int = -3;
timestamp Seen on "EnemySeen" exclusive Lost;
timestamp Lost;
signal "OnSeen" hungry = !$hungry;

root main = selector @"top" remember {
    sequence restart loop when ($count < 10) {
        condition ((distanceTo(1.5, max = 2) <= (-5 + (1 * 2))) || @valid(Seen))
        action fight()
        action "say hello"("hi\n")
    }
    priority on-change {
        case (@elapsed(Seen) > 100) {
            wait 100 5 -> success
        }
    }
    include "helper"
}

root alt = const failure

subtree "helper" per-site = invert {
    yield
}
"#;

#[test]
fn sample_file_parses_to_the_expected_tree() {
    let parsed = ok(SAMPLE);
    assert_eq!(stripped(parsed.clone()), stripped(sample_tree()));
    // Spans point into the file.
    let (l, c) = {
        let mut sources = SourceMap::new();
        let f = sources.add("t.btn", SAMPLE.to_string());
        sources.get(f).unwrap().line_col(parsed.nodes[1].span.start)
    };
    assert_eq!((l, c), (19, 5));
}

#[test]
fn printer_writes_the_canonical_form() {
    assert_eq!(print(&sample_tree()), SAMPLE_PRINTED);
    assert_eq!(stripped(ok(SAMPLE_PRINTED)), stripped(sample_tree()));
}

#[test]
fn header_knobs_default_to_the_dialect() {
    let t = ok("btvm 1; dialect unvanquished; root m = yield");
    assert_eq!(t.config, TreeConfig::for_dialect(Dialect::Unvanquished));
    let t = ok("btvm 1; dialect spore; precision single; root m = yield");
    assert_eq!(t.config.precision, Precision::Single);
    assert_eq!(t.config.model, Model::Decider { redecide_limit: 32 });
    assert_eq!(ok("btvm 1; dialect mbt; root m = yield").config.clock, 100);
    let t = ok("btvm 1; dialect mbt; precision single; clock 7; root m = yield");
    assert_eq!(t.config.clock, 7);
}

#[test]
fn the_clock_is_checked() {
    for (text, what) in [
        (
            "btvm 1; dialect mbt; clock 0; root m = yield",
            "a clock of 0",
        ),
        (
            "btvm 1; dialect mbt; clock 1000001; root m = yield",
            "a clock of 1000001",
        ),
        (
            "btvm 1; dialect bst; clock 100; root m = yield",
            "only the lifecycle model",
        ),
    ] {
        let (_, _, message) = err(text);
        assert!(message.contains(what), "{text}: {message}");
    }
}

#[test]
fn minus_before_a_number_is_part_of_the_literal() {
    let neg = |e| Expr::Neg(Box::new(e));
    assert_eq!(cond_of("root m = condition (-5)"), int(-5));
    assert_eq!(cond_of("root m = condition (- 5)"), int(-5));
    assert_eq!(cond_of("root m = condition (-(5))"), neg(int(5)));
    assert_eq!(cond_of("root m = condition (--5)"), neg(int(-5)));
    assert_eq!(
        cond_of("root m = condition (3 -5)"),
        Expr::binary(BinOp::Sub, int(3), int(5))
    );
    assert_eq!(
        cond_of("root m = condition (-9223372036854775808)"),
        int(i64::MIN)
    );
    let float = |s: &str| match cond_of(&format!("root m = condition ({s})")) {
        Expr::Lit(Lit::Float(f)) => f.to_bits(),
        other => panic!("{other:?}"),
    };
    assert_eq!(float("-inf"), f64::NEG_INFINITY.to_bits());
    assert_eq!(float("-0.0"), (-0.0f64).to_bits());
    assert_eq!(float("nan"), f64::NAN.to_bits());
    assert_eq!(float("-nan"), (-f64::NAN).to_bits());
    assert_eq!(float("nan(0x7ff0000000000001)"), 0x7ff0_0000_0000_0001);
    assert_eq!(float("1e20"), 1e20f64.to_bits());
}

#[test]
fn operators_follow_the_precedence_table() {
    use BinOp::*;
    let b = Expr::binary;
    let t = || lit(Lit::Bool(true));
    assert_eq!(
        cond_of("root m = condition (true || true ^^ true && 1 == 1 + 2 * 3)"),
        b(
            Or,
            t(),
            b(
                Xor,
                t(),
                b(
                    And,
                    t(),
                    b(Eq, int(1), b(Add, int(1), b(Mul, int(2), int(3))))
                )
            )
        )
    );
    assert_eq!(
        cond_of("root m = condition (1 - 2 - 3 / 4 / 5)"),
        b(
            Sub,
            b(Sub, int(1), int(2)),
            b(Div, b(Div, int(3), int(4)), int(5))
        )
    );
    assert_eq!(
        cond_of("root m = condition (!-@random < 1)"),
        b(
            Lt,
            Expr::Not(Box::new(Expr::Neg(Box::new(Expr::Random)))),
            int(1)
        )
    );
}

#[test]
fn keywords_can_be_names() {
    let t = ok(&format!(
        "{HEAD}import action exit 0..0;\nimport action enter 0..0;\nimport function \"true\" 0..1;\n\
         root m = hooks enter exit exit enter {{ condition (\"true\"(exit = 1)) }}"
    ));
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::Hooks(Hooks {
            enter: Some(CallExpr {
                import: ImportId(0),
                args: vec![],
            }),
            exit: Some(CallExpr {
                import: ImportId(1),
                args: vec![],
            }),
        })
    );
    let printed = print(&t);
    assert!(
        printed.contains("import function \"true\" 0..1;"),
        "{printed}"
    );
    assert!(
        printed.contains("condition (\"true\"(exit = 1))"),
        "{printed}"
    );
    assert_eq!(stripped(ok(&printed)), stripped(t));
}

/// Checks that each text's first error has the kind, `line:column` and message (a part of it)
/// given.
fn assert_first_errors(cases: &[(&str, ErrorKind, &str, &str)]) {
    for &(text, kind, at, msg) in cases {
        let (k, loc, message) = err(text);
        assert_eq!((k, loc.as_str()), (kind, at), "{text:?}: {message}");
        assert!(message.contains(msg), "{text:?}: {message:?} lacks {msg:?}");
    }
}

/// The header and the declarations.
#[test]
fn header_and_declaration_errors_have_kinds_and_positions() {
    assert_first_errors(&[
        (
            "",
            ErrorKind::Syntax,
            "1:1",
            "expected `btvm`, found end of file",
        ),
        (
            "btvm 2;\ndialect mbt;\nroot a = yield",
            ErrorKind::InvalidValue,
            "1:6",
            "version",
        ),
        (
            "btvm 1;\ndialect foo;",
            ErrorKind::Syntax,
            "2:9",
            "found `foo`",
        ),
        (
            "btvm 1; dialect mbt;\nimport action a 0..0\nroot m = yield",
            ErrorKind::Syntax,
            "3:1",
            "expected `long`, `claims`, `script` or `;`, found `root`",
        ),
        (
            "btvm 1; dialect mbt;\ntimestamp a exclusive b;\nroot m = yield",
            ErrorKind::UnknownName,
            "2:23",
            "unknown timestamp `b`",
        ),
        (
            "btvm 1; dialect mbt;\nvar v: int = 0;\nvar v: int = 1;\nroot m = yield",
            ErrorKind::InvalidValue,
            "3:5",
            "declared twice",
        ),
    ]);
}

/// Names: unknown, or declared twice.
#[test]
fn name_errors_have_kinds_and_positions() {
    assert_first_errors(&[
        (
            "btvm 1; dialect mbt;\nimport action a 0..0;\nroot m = action b()",
            ErrorKind::UnknownName,
            "3:17",
            "unknown action `b`",
        ),
        (
            "btvm 1; dialect mbt;\nimport action f 0..0;\nroot m = condition (f())",
            ErrorKind::UnknownName,
            "3:21",
            "unknown function `f`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = condition ($x)",
            ErrorKind::UnknownName,
            "2:22",
            "unknown variable `x`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = condition (@ever(t))",
            ErrorKind::UnknownName,
            "2:27",
            "unknown timestamp `t`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = include \"nope\"",
            ErrorKind::UnknownName,
            "2:10",
            "unknown subtree `nope`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = yield\nroot m = yield",
            ErrorKind::InvalidValue,
            "3:6",
            "declared twice",
        ),
    ]);
}

/// The node and expression grammar, and where nodes may sit.
#[test]
fn node_errors_have_kinds_and_positions() {
    assert_first_errors(&[
        (
            "btvm 1; dialect mbt;\nroot m = sequence {}",
            ErrorKind::Syntax,
            "2:19",
            "`restart`, `remember`, `running-list` or `cursor`, found `{`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = invert {}",
            ErrorKind::Syntax,
            "2:18",
            "expected node, found `}`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = condition (1 +)",
            ErrorKind::Syntax,
            "2:24",
            "expected expression, found `)`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = selector restart { case (1) { yield } }",
            ErrorKind::Syntax,
            "2:29",
            "`case` must be a child of `priority`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = priority on-entry { yield }",
            ErrorKind::Syntax,
            "2:30",
            "expected `case` inside `priority`, found `yield`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = statemachine { state on \"e\" -> 1 { yield } }",
            ErrorKind::InvalidValue,
            "2:41",
            "transition to state 1",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = yield extra",
            ErrorKind::Syntax,
            "2:16",
            "found `extra`",
        ),
    ]);
}

/// Numbers out of range, bad escapes, unterminated strings and comments, bad characters.
#[test]
fn literal_and_lexical_errors_have_kinds_and_positions() {
    assert_first_errors(&[
        (
            "btvm 1; dialect mbt;\nroot m = cooldown 4294967296 { yield }",
            ErrorKind::LiteralOverflow,
            "2:19",
            "out of range",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = condition (-9223372036854775809)",
            ErrorKind::LiteralOverflow,
            "2:22",
            "out of range",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = condition (99999999999999999999)",
            ErrorKind::LiteralOverflow,
            "2:21",
            "64 bits",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = condition (nan(0x5))",
            ErrorKind::InvalidValue,
            "2:25",
            "not a NaN",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = log \"a\\qb\"",
            ErrorKind::BadEscape,
            "2:16",
            "unknown escape `\\q`",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = log \"abc",
            ErrorKind::UnterminatedString,
            "2:14",
            "never closed",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = yield /* ",
            ErrorKind::UnterminatedComment,
            "2:16",
            "never closed",
        ),
        (
            "btvm 1; dialect mbt;\nroot m = yield #",
            ErrorKind::BadToken,
            "2:16",
            "unexpected character",
        ),
    ]);
}

#[test]
fn several_errors_are_reported_in_order() {
    let text =
        "btvm 1; dialect mbt;\nroot m = sequence restart { action a() action b() condition ($c) }";
    let (res, sources) = parse_with(text, &Limits::default());
    let locs: Vec<_> = res
        .unwrap_err()
        .iter()
        .map(|d| (d.kind, sources.locate(d.span)))
        .collect();
    assert_eq!(
        locs,
        [
            (ErrorKind::UnknownName, "t.btn:2:36".to_string()),
            (ErrorKind::UnknownName, "t.btn:2:47".to_string()),
            (ErrorKind::UnknownName, "t.btn:2:63".to_string()),
        ]
    );
}

fn limits(depth: u32, expr_depth: u32) -> Limits {
    let mut l = Limits::new();
    l.max_depth = depth;
    l.max_expr_depth = expr_depth;
    l
}

#[test]
fn node_depth_limit_is_exact() {
    let nest = |n: usize, leaf: &str| {
        format!(
            "{HEAD}root m = {}{leaf}{}",
            "invert { ".repeat(n - 1),
            " }".repeat(n - 1)
        )
    };
    let l = limits(4, 8);
    assert!(parse_with(&nest(4, "yield"), &l).0.is_ok());
    // An empty block at the deepest level holds no nodes, so it is fine.
    assert!(parse_with(&nest(4, "sequence restart {}"), &l).0.is_ok());
    let (kind, at, _) = err_with(&nest(5, "yield"), &l);
    assert_eq!((kind, at.as_str()), (ErrorKind::NestTooDeep, "3:44"));
}

#[test]
fn expression_depth_limit_is_exact() {
    let l = limits(8, 4);
    let text =
        |e: &str| format!("{HEAD}import function f 0..1;\ntimestamp t;\nroot m = condition ({e})");
    for e in [
        "!!!true",
        "((1 + 2) + 3) + 4",
        "f(f(f(f())))",
        "f(f(f(@ever(t))))",
        "(((-(1))))",
    ] {
        let t = match parse_with(&text(e), &l).0 {
            Ok(t) => t,
            Err(d) => panic!("{e}: {d:?}"),
        };
        // The printed form parses back under the same limits.
        assert!(parse_with(&print(&t), &l).0.is_ok(), "{e}");
    }
    // Parentheses may not nest more than `max_expr_depth + 1` deep, even redundant ones.
    for e in [
        "!!!!true",
        "(((1 + 2) + 3) + 4) + 5",
        "f(f(f(f(f()))))",
        "-!-(1) + 2",
        "((((-(1)))))",
    ] {
        assert_eq!(err_with(&text(e), &l).0, ErrorKind::NestTooDeep, "{e}");
    }
}

#[test]
fn deep_nesting_is_rejected_without_overflowing_the_stack() {
    on_normal_stack(|| {
        const N: usize = 100_000;
        let cases = [
            format!("{HEAD}root m = {}", "sequence restart {".repeat(N)),
            format!("{HEAD}root m = condition {}", "(".repeat(N)),
            format!("{HEAD}root m = condition ({}true)", "!".repeat(N)),
            format!("{HEAD}root m = condition ({}@random)", "- ".repeat(N)),
            format!("{HEAD}root m = condition (1{})", " + 1".repeat(N)),
            format!("{HEAD}root m = condition (1{})", " || 1 && 1".repeat(N)),
        ];
        for text in &cases {
            let (kind, at, _) = err(text);
            assert_eq!(kind, ErrorKind::NestTooDeep, "{}", &text[..60]);
            assert!(at.starts_with("3:"), "{at}");
        }
        // The first brace past the limit is the one reported.
        let (_, at, _) = err(&cases[0]);
        let col = "root m = ".len() + 255 * "sequence restart {".len() + "sequence restart ".len();
        assert_eq!(at, format!("3:{}", col + 1));
    });
}

#[test]
fn deepest_allowed_tree_parses_on_a_normal_stack() {
    on_normal_stack(|| {
        let l = Limits::default();
        let n = l.max_depth as usize;
        let e = format!("{}1{}", "(1 + ".repeat(254), ")".repeat(254));
        let text = format!(
            "{HEAD}root m = {}condition ({e}){}",
            "invert { ".repeat(n - 1),
            " }".repeat(n - 1)
        );
        let t = ok(&text);
        assert_eq!(t.nodes.len(), n);
        assert_eq!(stripped(ok(&print(&t))), stripped(t));
    });
}

#[test]
fn size_limits() {
    let mut l = Limits::new();
    l.max_source_bytes = 10;
    let (kind, at, _) = err_with(&format!("{HEAD}root m = yield"), &l);
    assert_eq!((kind, at.as_str()), (ErrorKind::SourceTooLarge, "1:1"));
    let mut l = Limits::new();
    l.max_nodes = 2;
    let (kind, ..) = err_with(
        &format!("{HEAD}root m = invert {{ invert {{ yield }} }}"),
        &l,
    );
    assert_eq!(kind, ErrorKind::TooManyNodes);
}

#[test]
fn load_reads_through_the_file_system() {
    let mut fs = MemFs::new();
    fs.insert("/t/ok.btn", format!("{HEAD}root m = yield"));
    fs.insert("/t/bad.btn", b"btvm 1;\n\xff\xfe root".to_vec());
    let l = Limits::default();
    let mut sources = SourceMap::new();
    let t = load(Path::new("/t/ok.btn"), &fs, &l, &mut sources).unwrap();
    assert_eq!(t.nodes[0].kind, NodeKind::Yield);
    assert_eq!(sources.locate(t.nodes[0].span), "/t/ok.btn:3:10");

    let d = load(Path::new("/t/bad.btn"), &fs, &l, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d[0].span), "/t/bad.btn:2:1");
    assert!(d[0].message.contains("offset 8"), "{}", d[0].message);

    let d = load(Path::new("/t/missing.btn"), &fs, &l, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Io);

    let mut small = Limits::new();
    small.max_source_bytes = 4;
    let d = load(Path::new("/t/ok.btn"), &fs, &small, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::SourceTooLarge);
    assert_eq!(sources.locate(d[0].span), "/t/ok.btn:1:1");
}

#[test]
fn printer_survives_invalid_trees() {
    let mut t = sample_tree();
    t.imports.clear();
    t.timestamps.clear();
    t.subtrees.clear();
    t.nodes[1].children.push(crate::ir::NodeId(0)); // a cycle
    t.nodes[1].children.push(crate::ir::NodeId(999));
    let text = print(&t);
    assert!(text.contains("<missing import 0>"), "{text}");
    assert!(text.contains("/* node 0 again */"), "{text}");
    assert!(text.contains("/* missing node 999 */"), "{text}");
}

#[test]
fn a_group_may_include_shared_deciders() {
    // The `.spore` round trip caught this: a group's children are `decider` nodes or includes
    // of shared deciders (as the IR allows), and the parser refused the includes.
    let t = ok("btvm 1;\ndialect spore;\nimport action b 0..0 long;\n\
                root main = decider { group prioritized { include \"D\" } }\n\
                subtree \"D\" shared = decider { behavior b tick }\n");
    assert_eq!(t.nodes[2].kind, NodeKind::Include(SubtreeId(0)));
    assert_eq!(
        err("btvm 1;\ndialect spore;\nroot main = group random { const success }").0,
        ErrorKind::Syntax
    );
}

#[test]
fn hooks_calls_and_script_imports_round_trip() {
    let src = format!(
        "{HEAD}import action Wrap 0..255;\nimport function Wrap 0..0;\n\
         import function \"lua#0\" 0..0 script \"return entity.x\\n\";\n\
         import function f 1..1;\n\
         root m = hooks enter Wrap(tag = \"a\", 1) exit function Wrap {{ \
         hooks enter \"lua#0\" exit f($v) {{ const running }} }}"
    )
    .replace("root m", "var v: bool = false;\nroot m");
    let t = ok(&src);
    let call = |i: u32, args: Vec<Arg>| {
        Some(CallExpr {
            import: ImportId(i),
            args,
        })
    };
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::Hooks(Hooks {
            enter: call(
                0,
                vec![
                    Arg {
                        name: Some("tag".into()),
                        value: lit(Lit::Str("a".into())),
                    },
                    Arg {
                        name: None,
                        value: int(1),
                    },
                ],
            ),
            exit: call(1, vec![]),
        })
    );
    assert_eq!(
        t.nodes[1].kind,
        NodeKind::Hooks(Hooks {
            enter: call(2, vec![]),
            exit: call(
                3,
                vec![Arg {
                    name: None,
                    value: Expr::Var(VarId(0)),
                }],
            ),
        })
    );
    assert_eq!(t.imports[2].script.as_deref(), Some("return entity.x\n"));
    assert_eq!(t.imports[0].script, None);
    let printed = print(&t);
    for want in [
        "import function \"lua#0\" 0..0 script \"return entity.x\\n\";",
        "hooks enter Wrap(tag = \"a\", 1) exit function Wrap() {",
        "hooks enter \"lua#0\"() exit f($v) {",
    ] {
        assert!(printed.contains(want), "{want}\n{printed}");
    }
    assert_eq!(print(&ok(&printed)), printed);
    assert_eq!(stripped(ok(&printed)), stripped(t));
    // A hook naming nothing declared.
    let (kind, _, msg) = err(&format!("{HEAD}root m = hooks enter nope {{ yield }}"));
    assert_eq!(kind, ErrorKind::UnknownName);
    assert!(msg.contains("action or function `nope`"), "{msg}");
}
