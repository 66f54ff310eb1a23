//! Unit tests of the `.spore` front-end: every construct of spec/spore.md §1, every error kind
//! with its position, sharing of deciders and arrays, and the round trip through the native
//! syntax (print, parse, compare ignoring spans).

use std::path::Path;

use btvm::{Import, ImportId, ImportKind, Limits};

use super::*;
use crate::diag::ErrorKind;
use crate::ir::{
    Arg, BehaviorRef, BinOp, CallExpr, Decider, Expr, FlagTest, Group, Lit, Model, NodeId,
    NodeKind, Policy, Precondition, Sharing, SubtreeId,
};
use crate::source::{MemFs, SourceMap};

fn parse_with(text: &str, limits: &Limits) -> (crate::diag::Result<Tree>, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add("t.spore", text.to_string());
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

/// Every error as (kind, `line:column`, message).
fn errs_with(text: &str, limits: &Limits) -> Vec<(ErrorKind, String, String)> {
    match parse_with(text, limits) {
        (Ok(_), _) => panic!("parsed but should not have:\n{text}"),
        (Err(ds), sources) => ds
            .iter()
            .map(|d| {
                let loc = sources.locate(d.span);
                let loc = loc.strip_prefix("t.spore:").unwrap_or(&loc).to_string();
                (d.kind, loc, d.message.clone())
            })
            .collect(),
    }
}

fn errs(text: &str) -> Vec<(ErrorKind, String, String)> {
    errs_with(text, &Limits::default())
}

/// The first error's kind and `line:column`.
fn err(text: &str) -> (ErrorKind, String) {
    let e = errs(text).remove(0);
    (e.0, e.1)
}

/// Runs `f` on a fresh thread with the default (2 MiB) stack.
fn on_normal_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::spawn(f).join().expect("the thread panicked");
}

/// Prints `tree` in the canonical syntax, parses it back and checks it is the same tree.
fn round_trip(tree: &Tree) {
    let text = crate::syntax::canonical::print(tree);
    let mut sources = SourceMap::new();
    let file = sources.add("t.btn", text.clone());
    let back = match crate::syntax::canonical::parse(file, &text, &Limits::default()) {
        Ok(t) => t,
        Err(d) => panic!("{}\n--- printed ---\n{text}", d[0].display(&sources)),
    };
    let (mut a, mut b) = (tree.clone(), back);
    a.strip_spans();
    b.strip_spans();
    assert_eq!(a, b, "--- printed ---\n{text}");
}

const EXAMPLE: &str = r#"spore 1;

// Behaviors: what the host implements. The words after the name are the functions it has.
behavior flee activate tick deactivate;
behavior fight activate tick deactivate;
behavior patrol tick;
behavior guarding activate deactivate;       // a group behavior
behavior rest tick;

decision flags carnivore, night, dead;       // DecisionFlags bits 0, 1, 2
stimuli hit, play_invite;                    // StimuliFlags bits 0, 1

root ROOT => prioritized {
    FLEE  when stimuli any(hit) decide fear() => flee;
    GUARD decide threat() > 0.5 => prioritized with guarding {
        FIGHT;                               // the decider FIGHT, defined elsewhere
        PATROL => patrol;
    }
    FIGHT when decision none(dead) decide enemy_near() => fight;
    IDLE  => random IDLE_CHOICES;
}

children IDLE_CHOICES {
    REST every 2 s => rest;
    PATROL_SLOWLY => patrol;
}
"#;

fn node(t: &Tree, id: NodeId) -> &crate::ir::Node {
    &t.nodes[id.index()]
}

fn kids(t: &Tree, id: NodeId) -> Vec<NodeId> {
    node(t, id).children.clone()
}

fn behavior(import: u32, a: bool, t: bool, d: bool) -> BehaviorRef {
    BehaviorRef {
        import: ImportId(import),
        activate: a,
        tick: t,
        deactivate: d,
    }
}

fn call(import: u32, args: Vec<Expr>) -> Expr {
    Expr::Call(CallExpr {
        import: ImportId(import),
        args: args
            .into_iter()
            .map(|value| Arg { name: None, value })
            .collect(),
    })
}

fn decider_of(t: &Tree, id: NodeId) -> &Decider {
    match &node(t, id).kind {
        NodeKind::Decider(d) => d,
        other => panic!("not a decider: {other:?}"),
    }
}

#[test]
fn the_spec_example() {
    let t = ok(EXAMPLE);
    assert_eq!(t.dialect, Dialect::Spore);
    assert_eq!(t.config.model, Model::Decider { redecide_limit: 32 });
    let names: Vec<(&str, ImportKind, u8)> = t
        .imports
        .iter()
        .map(|i| (i.name.as_str(), i.kind, i.max_args))
        .collect();
    use ImportKind::{Action, Function};
    assert_eq!(
        names,
        [
            ("flee", Action, 0),
            ("fight", Action, 0),
            ("patrol", Action, 0),
            ("guarding", Action, 0),
            ("rest", Action, 0),
            ("fear", Function, 0),
            ("threat", Function, 0),
            ("enemy_near", Function, 0),
        ]
    );
    assert!(t.imports[..5]
        .iter()
        .all(|i| i.long_running && i.min_args == 0));
    assert!(t.imports[5..].iter().all(|i| !i.long_running));
    assert_eq!(t.flags, ["carnivore", "night", "dead"]);
    assert_eq!(t.stimuli, ["hit", "play_invite"]);
    assert_eq!(t.roots.len(), 1);
    assert_eq!(t.roots[0].name, "main");
    let subtrees: Vec<(&str, Sharing)> = t
        .subtrees
        .iter()
        .map(|s| (s.name.as_str(), s.sharing))
        .collect();
    assert_eq!(
        subtrees,
        [
            ("FIGHT", Sharing::Shared),
            ("REST", Sharing::Shared),
            ("PATROL_SLOWLY", Sharing::Shared)
        ]
    );

    let root = t.roots[0].node;
    assert_eq!(node(&t, root).name.as_deref(), Some("ROOT"));
    assert_eq!(
        decider_of(&t, root),
        &Decider {
            pre: Precondition::default(),
            decide: None,
            decide_on_redecide: false,
        }
    );
    let group = kids(&t, root)[0];
    assert_eq!(node(&t, group).name.as_deref(), Some("ROOT"));
    assert_eq!(
        node(&t, group).kind,
        NodeKind::Group(Group {
            policy: Policy::Prioritized,
            behavior: None
        })
    );
    let children = kids(&t, group);
    assert_eq!(children.len(), 4);
    // FLEE: a stimuli test and a Decide.
    let flee = children[0];
    assert_eq!(node(&t, flee).name.as_deref(), Some("FLEE"));
    assert_eq!(
        decider_of(&t, flee),
        &Decider {
            pre: Precondition {
                every_ms: None,
                decision: None,
                stimuli: Some(FlagTest {
                    mask: 1,
                    all: false,
                    set: true
                }),
            },
            decide: Some(call(5, vec![])),
            decide_on_redecide: false,
        }
    );
    assert_eq!(
        node(&t, kids(&t, flee)[0]).kind,
        NodeKind::Behavior(behavior(0, true, true, true))
    );
    // GUARD: a group with a group behavior, including FIGHT.
    let guard = children[1];
    assert_eq!(
        decider_of(&t, guard).decide,
        Some(Expr::binary(
            BinOp::Gt,
            call(6, vec![]),
            Expr::Lit(Lit::Float(0.5))
        ))
    );
    let guard_group = kids(&t, guard)[0];
    assert_eq!(node(&t, guard_group).name.as_deref(), Some("GUARD"));
    assert_eq!(
        node(&t, guard_group).kind,
        NodeKind::Group(Group {
            policy: Policy::Prioritized,
            behavior: Some(behavior(3, true, false, true))
        })
    );
    let gk = kids(&t, guard_group);
    assert_eq!(node(&t, gk[0]).kind, NodeKind::Include(SubtreeId(0)));
    assert_eq!(node(&t, gk[1]).name.as_deref(), Some("PATROL"));
    // FIGHT's definition site is an include too; its body is the subtree.
    assert_eq!(node(&t, children[2]).kind, NodeKind::Include(SubtreeId(0)));
    let fight = t.subtrees[0].node;
    assert_eq!(node(&t, fight).name.as_deref(), Some("FIGHT"));
    assert_eq!(
        decider_of(&t, fight).pre.decision,
        Some(FlagTest {
            mask: 0b100,
            all: true,
            set: false
        })
    );
    // IDLE: a random group over the array, whose deciders are shared subtrees.
    let idle_group = kids(&t, children[3])[0];
    assert_eq!(
        node(&t, idle_group).kind,
        NodeKind::Group(Group {
            policy: Policy::Random,
            behavior: None
        })
    );
    let ik: Vec<NodeKind> = kids(&t, idle_group)
        .iter()
        .map(|&k| node(&t, k).kind.clone())
        .collect();
    assert_eq!(
        ik,
        [
            NodeKind::Include(SubtreeId(1)),
            NodeKind::Include(SubtreeId(2))
        ]
    );
    assert_eq!(decider_of(&t, t.subtrees[1].node).pre.every_ms, Some(2000));
    round_trip(&t);
    crate::check::check(&t, &Limits::default()).unwrap();
}

const HEAD: &str = "spore 1;\nbehavior b tick;\n";

/// The root decider's knobs in `spore 1; behavior b tick; <decls> root R <options> => b;`.
fn root_decider(decls: &str, options: &str) -> Decider {
    let t = ok(&format!("{HEAD}{decls}\nroot R {options} => b;"));
    decider_of(&t, t.roots[0].node).clone()
}

#[test]
fn options() {
    let flags = "decision flags f0, f1, f2;\nstimuli s0, \"s 1\";";
    let test = |t: &str| {
        root_decider(flags, &format!("when decision {t}(f0, f2)"))
            .pre
            .decision
    };
    let mask = 0b101;
    assert_eq!(
        test("all"),
        Some(FlagTest {
            mask,
            all: true,
            set: true
        })
    );
    assert_eq!(
        test("any"),
        Some(FlagTest {
            mask,
            all: false,
            set: true
        })
    );
    assert_eq!(
        test("none"),
        Some(FlagTest {
            mask,
            all: true,
            set: false
        })
    );
    assert_eq!(
        test("notall"),
        Some(FlagTest {
            mask,
            all: false,
            set: false
        })
    );
    let d = root_decider(flags, "when stimuli all(\"s 1\") when decision any(f1)");
    assert_eq!(
        d.pre.stimuli,
        Some(FlagTest {
            mask: 2,
            all: true,
            set: true
        })
    );
    assert_eq!(
        d.pre.decision,
        Some(FlagTest {
            mask: 2,
            all: false,
            set: true
        })
    );
    // Durations.
    for (text, ms) in [
        ("250 ms", 250),
        ("250ms", 250),
        ("2 s", 2000),
        ("2s", 2000),
        ("0.5 s", 500),
        ("0.001s", 1),
        ("1.5e1 ms", 15),
        ("0 ms", 0),
        ("4294967295 ms", u32::MAX),
    ] {
        assert_eq!(
            root_decider("", &format!("every {text}")).pre.every_ms,
            Some(ms),
            "{text}"
        );
    }
    // Redecide, and options in any order.
    let d = root_decider("", "redecide decide 2 every 1 s");
    assert!(d.decide_on_redecide);
    assert_eq!(d.decide, Some(Expr::Lit(Lit::Int(2))));
    assert_eq!(d.pre.every_ms, Some(1000));
    assert!(!root_decider("", "").decide_on_redecide);
}

#[test]
fn decide_expressions() {
    let decide = |e: &str| root_decider("", &format!("decide {e}")).decide.unwrap();
    let int = |i| Expr::Lit(Lit::Int(i));
    // Precedence as in the canonical syntax.
    assert_eq!(
        decide("1 + 2 * 3"),
        Expr::binary(BinOp::Add, int(1), Expr::binary(BinOp::Mul, int(2), int(3)))
    );
    assert_eq!(
        decide("1 || 2 ^^ 3 && 4 < 5"),
        Expr::binary(
            BinOp::Or,
            int(1),
            Expr::binary(
                BinOp::Xor,
                int(2),
                Expr::binary(BinOp::And, int(3), Expr::binary(BinOp::Lt, int(4), int(5)))
            )
        )
    );
    assert_eq!(decide("-5"), int(-5));
    assert_eq!(decide("-(5)"), Expr::Neg(Box::new(int(5))));
    assert_eq!(
        decide("!true"),
        Expr::Not(Box::new(Expr::Lit(Lit::Bool(true))))
    );
    assert_eq!(decide("@random"), Expr::Random);
    assert_eq!(decide("((1))"), int(1));
    assert_eq!(decide("\"str\""), Expr::Lit(Lit::Str("str".into())));
    for (op, b) in [
        ("==", BinOp::Eq),
        ("!=", BinOp::Ne),
        ("<=", BinOp::Le),
        (">=", BinOp::Ge),
        (">", BinOp::Gt),
        ("-", BinOp::Sub),
        ("/", BinOp::Div),
    ] {
        assert_eq!(
            decide(&format!("1 {op} 2")),
            Expr::binary(b, int(1), int(2)),
            "{op}"
        );
    }
    // Functions: declared by first use, with that arity; named arguments; quoted names.
    let t = ok(&format!(
        "{HEAD}root R decide dist(1, to = \"x\") + dist(2, 3) * \"nan\"() => prioritized {{\n\
         A decide dist(0, 0) > @random => b;\n}}"
    ));
    let fns: Vec<(&str, u8, u8)> = t.imports[1..]
        .iter()
        .map(|i| (i.name.as_str(), i.min_args, i.max_args))
        .collect();
    assert_eq!(fns, [("dist", 2, 2), ("nan", 0, 0)]);
    match &decider_of(&t, t.roots[0].node).decide {
        Some(Expr::Binary(BinOp::Add, a, _)) => match &**a {
            Expr::Call(c) => {
                assert_eq!(c.import, ImportId(1));
                assert_eq!(c.args[1].name.as_deref(), Some("to"));
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    round_trip(&t);
}

#[test]
fn groups_arrays_and_sharing() {
    let src = r#"spore 1;
behavior b activate;
behavior "group behavior" tick deactivate;
root R => sequential with "group behavior" {
    A => scored LIST;
    B => random with "group behavior" LIST;
    C => prioritized { TOP; D => b; }
    E => prioritized {}
}
children LIST { X => b; TOP; Y => b; }
decider TOP => b;
"#;
    let t = ok(src);
    let subs: Vec<&str> = t.subtrees.iter().map(|s| s.name.as_str()).collect();
    // Subtrees in source order of their definitions.
    assert_eq!(subs, ["X", "Y", "TOP"]);
    let g = kids(&t, t.roots[0].node)[0];
    assert_eq!(
        node(&t, g).kind,
        NodeKind::Group(Group {
            policy: Policy::Sequential,
            behavior: Some(behavior(1, false, true, true))
        })
    );
    let ch = kids(&t, g);
    let inc = |id| NodeKind::Include(SubtreeId(id));
    for (k, policy) in [(0, Policy::Scored), (1, Policy::Random)] {
        let grp = kids(&t, ch[k])[0];
        match node(&t, grp).kind {
            NodeKind::Group(g) => assert_eq!(g.policy, policy),
            ref other => panic!("{other:?}"),
        }
        let incs: Vec<NodeKind> = kids(&t, grp)
            .iter()
            .map(|&c| node(&t, c).kind.clone())
            .collect();
        assert_eq!(incs, [inc(0), inc(2), inc(1)]);
    }
    let c = kids(&t, kids(&t, ch[2])[0]);
    assert_eq!(node(&t, c[0]).kind, inc(2));
    assert!(matches!(node(&t, c[1]).kind, NodeKind::Decider(_)));
    assert!(kids(&t, kids(&t, ch[3])[0]).is_empty());
    round_trip(&t);
    crate::check::check(&t, &Limits::default()).unwrap();

    // Names may be strings (keywords among them); `;` after `}` is optional; items in any
    // order; a decider used only by reference from a nested group.
    let t = ok(r#"spore 1;
root "root" => prioritized { "tick" => "s"; OUTER => prioritized { INNER; }; }
decider INNER => "s";
behavior "s" tick;
"#);
    assert_eq!(t.subtrees[0].name, "INNER");
    assert_eq!(node(&t, t.roots[0].node).name.as_deref(), Some("root"));
    round_trip(&t);
}

#[test]
fn example_file_loads_and_round_trips() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/examples/figure1.spore");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("{} is missing", path.display());
    };
    let t = ok(&text);
    let subs: Vec<&str> = t.subtrees.iter().map(|s| s.name.as_str()).collect();
    assert!(
        subs.contains(&"FIGHT") && subs.contains(&"REST"),
        "{subs:?}"
    );
    round_trip(&t);
    crate::check::check(&t, &Limits::default()).unwrap();
}

// ---- errors --------------------------------------------------------------------------------

#[test]
fn syntax_errors() {
    let cases: [(&str, &str); 9] = [
        ("", "1:1"),
        ("spore 1", "1:8"),
        ("spore 1;\nroot R => ;", "2:11"),
        ("spore 1;\nroot R = > b;", "2:8"),
        ("spore 1;\nroot R decide => b;", "2:15"),
        ("spore 1;\nbehavior b;", "2:11"),
        ("spore 1;\nbehavior tick tick;", "2:10"),
        ("spore 1;\nroot R => b", "2:12"),
        (
            "spore 1;\nbehavior b tick;\nroot R => prioritized X {}",
            "3:25",
        ),
    ];
    for (src, at) in cases {
        assert_eq!(err(src), (ErrorKind::Syntax, at.to_string()), "{src}");
    }
    // No root: at the end of the file.
    assert_eq!(
        err("spore 1;\nbehavior b tick;\n"),
        (ErrorKind::Syntax, "3:1".to_string())
    );
    // Lexical errors are the native lexer's.
    assert_eq!(err("spore 1;\n#"), (ErrorKind::BadToken, "2:1".into()));
    assert_eq!(
        err("spore 1;\nroot R every 2sec => b;"),
        (ErrorKind::BadToken, "2:14".into())
    );
    assert_eq!(
        err("spore 1;\n\"abc"),
        (ErrorKind::UnterminatedString, "2:1".into())
    );
}

#[test]
fn unknown_names() {
    let src = "spore 1;\nbehavior b tick;\ndecision flags f;\nstimuli st;\n\
               root R when decision any(g) when stimuli all(f) => prioritized with nob {\n\
               A => nob;\n  B;\n  C => random NOARRAY;\n  D => prioritized NOARRAY2;\n}\n";
    let e: Vec<(ErrorKind, String)> = errs(src).into_iter().map(|e| (e.0, e.1)).collect();
    let u = ErrorKind::UnknownName;
    assert_eq!(
        e,
        [
            (u, "5:26".into()),
            (u, "5:46".into()),
            (u, "5:69".into()),
            (u, "6:6".into()),
            (u, "7:3".into()),
            (u, "8:15".into()),
            (u, "9:20".into()),
        ]
    );
    // A decider where a behavior belongs gets a hint.
    let e = errs("spore 1;\nbehavior b tick;\nroot R => prioritized { A => b; B => A; }");
    assert!(e[0].2.contains("is a decider"), "{}", e[0].2);
}

#[test]
fn invalid_values() {
    let iv = ErrorKind::InvalidValue;
    let one = |src: &str, at: &str| {
        assert_eq!(err(&format!("{HEAD}{src}")), (iv, at.to_string()), "{src}");
    };
    one("behavior b tick;\nroot R => b;", "3:10");
    one("behavior c tick tick;\nroot R => b;", "3:17");
    one("decision flags f, f;\nroot R => b;", "3:19");
    one("stimuli f, g, f;\nroot R => b;", "3:15");
    one("root R => b;\nroot S => b;", "4:1");
    one("root R => prioritized { A => b; A => b; }", "3:33");
    one(
        "root R => prioritized L;\nchildren L { A => b; }\nchildren L { B => b; }",
        "5:10",
    );
    one("root R every 1 s every 2 s => b;", "3:18");
    one(
        "decision flags f;\nroot R when decision any(f) when decision all(f) => b;",
        "4:29",
    );
    one("root R decide 1 decide 2 => b;", "3:17");
    one("root R redecide redecide => b;", "3:17");
    one("root R => b;\ndecider UNUSED => b;", "4:9");
    one("root R => b;\nchildren UNUSED { A => b; }", "4:10");
    one("root R every 0.0005 s => b;", "3:14");
    one("root R every 1.5 ms => b;", "3:14");
    assert_eq!(
        err("spore 2;\nbehavior b tick;\nroot R => b;"),
        (iv, "1:7".to_string())
    );
    let many: Vec<String> = (0..33).map(|k| format!("f{k}")).collect();
    one(
        &format!("decision flags {};\nroot R => b;", many.join(", ")),
        "3:166",
    );
    // A too-long duration is an overflow.
    assert_eq!(
        err(&format!("{HEAD}root R every 4294967296 ms => b;")),
        (ErrorKind::LiteralOverflow, "3:14".to_string())
    );
    assert_eq!(
        err(&format!("{HEAD}root R every 4294968 s => b;")),
        (ErrorKind::LiteralOverflow, "3:14".to_string())
    );
}

#[test]
fn arity_and_cycles() {
    let e = errs(&format!(
        "{HEAD}root R decide f(1) => prioritized {{\n  A decide f() + f(1, 2) => b;\n}}"
    ));
    let e: Vec<(ErrorKind, String)> = e.into_iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(
        e,
        [
            (ErrorKind::Arity, "4:12".into()),
            (ErrorKind::Arity, "4:18".into())
        ]
    );
    let args = vec!["1"; 256].join(", ");
    assert_eq!(
        err(&format!("{HEAD}root R decide f({args}) => b;")),
        (ErrorKind::Arity, "3:15".to_string())
    );

    let cyc = ErrorKind::IncludeCycle;
    // Two deciders containing each other.
    assert_eq!(
        err(&format!(
            "{HEAD}root R => prioritized {{ A; }}\n\
             decider A => prioritized {{ B => prioritized {{ A; }} }}"
        )),
        (cyc, "4:47".to_string())
    );
    // Through an array.
    assert_eq!(
        err(&format!(
            "{HEAD}root R => prioritized L;\nchildren L {{ A => random L; }}"
        )),
        (cyc, "4:14".to_string())
    );
    // A decider containing itself directly.
    assert_eq!(
        err(&format!(
            "{HEAD}root R => prioritized {{ A => prioritized {{ A; }} }}"
        )),
        (cyc, "3:44".to_string())
    );
    // The root, used in a group.
    assert_eq!(
        err(&format!("{HEAD}root R => prioritized {{ R; }}")),
        (cyc, "3:25".to_string())
    );
}

#[test]
fn errors_are_all_reported_in_source_order() {
    let e = errs(&format!(
        "{HEAD}decider UNUSED => nob;\nroot R every 1.5 ms decide f() + f(1) => prioritized {{ X; }}\n"
    ));
    let kinds: Vec<ErrorKind> = e.iter().map(|e| e.0).collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::InvalidValue,
            ErrorKind::UnknownName,
            ErrorKind::InvalidValue,
            ErrorKind::Arity,
            ErrorKind::UnknownName
        ],
        "{e:?}"
    );
}

#[test]
fn limits() {
    // Children per group.
    let kids: String = (0..65).map(|k| format!("D{k} => b;\n")).collect();
    assert_eq!(
        err(&format!("{HEAD}root R => prioritized {{\n{kids}}}")),
        (ErrorKind::TooManyNodes, "68:1".to_string())
    );
    let kids64: String = (0..64).map(|k| format!("D{k} => b;\n")).collect();
    ok(&format!("{HEAD}root R => prioritized {{\n{kids64}}}"));
    // Nodes.
    let limits = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    let kids: String = (0..6).map(|k| format!("D{k} => b;\n")).collect();
    let e = errs_with(
        &format!("{HEAD}root R => prioritized {{\n{kids}}}"),
        &limits,
    );
    assert_eq!(e[0].0, ErrorKind::TooManyNodes);
    // Source size.
    let limits = Limits {
        max_source_bytes: 10,
        ..Limits::default()
    };
    assert_eq!(errs_with(EXAMPLE, &limits)[0].0, ErrorKind::SourceTooLarge);
    // Block nesting: deciders at depth 2d + 1 for a block at brace depth d.
    let limits = Limits {
        max_depth: 7,
        ..Limits::default()
    };
    let nest = |d: usize| {
        format!(
            "{HEAD}root R => {}X => b;{}",
            (1..d)
                .map(|k| format!("prioritized {{ A{k} => "))
                .collect::<String>()
                + "prioritized { ",
            "}".repeat(d)
        )
    };
    assert!(parse_with(&nest(3), &limits).0.is_ok());
    assert_eq!(errs_with(&nest(4), &limits)[0].0, ErrorKind::NestTooDeep);
    // Expression depth.
    let limits = Limits {
        max_expr_depth: 4,
        ..Limits::default()
    };
    assert!(
        parse_with(&format!("{HEAD}root R decide 1+1+1+1 => b;"), &limits)
            .0
            .is_ok()
    );
    let e = errs_with(&format!("{HEAD}root R decide 1+1+1+1+1 => b;"), &limits);
    assert_eq!((e[0].0, e[0].1.as_str()), (ErrorKind::NestTooDeep, "3:15"));
    let e = errs_with(&format!("{HEAD}root R decide ((((((1)))))) => b;"), &limits);
    assert_eq!((e[0].0, e[0].1.as_str()), (ErrorKind::NestTooDeep, "3:20"));
}

#[test]
fn hostile_sizes_on_a_normal_stack() {
    on_normal_stack(|| {
        let n = 100_000;
        let deep = format!("{HEAD}root R => {}", "prioritized { A => ".repeat(n));
        assert_eq!(errs(&deep)[0].0, ErrorKind::NestTooDeep);
        for e in [
            format!("{}1", "(".repeat(n)),
            format!("{}1", "!".repeat(n)),
            format!("{}1", "- ".repeat(n)),
            format!("1{}", " + 1".repeat(n)),
        ] {
            let src = format!("{HEAD}root R decide {e} => b;");
            assert_eq!(errs(&src)[0].0, ErrorKind::NestTooDeep, "{}", &e[..4]);
        }
    });
}

#[test]
fn load_reads_through_the_file_system() {
    let mut fs = MemFs::new();
    fs.insert("/t/a.spore", EXAMPLE.as_bytes().to_vec());
    fs.insert("/t/bad.spore", b"spore 1;\n\xff".to_vec());
    let mut sources = SourceMap::new();
    let limits = Limits::default();
    assert!(load(Path::new("/t/a.spore"), &fs, &limits, &mut sources).is_ok());
    let e = load(Path::new("/t/bad.spore"), &fs, &limits, &mut sources).unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(e[0].span), "/t/bad.spore:2:1");
    let e = load(Path::new("/t/none.spore"), &fs, &limits, &mut sources).unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::Io);
    // Through `load::load`, by extension.
    let opts = crate::load::LoadOptions::default();
    let t = crate::load::load(Path::new("/t/a.spore"), &fs, &opts, &mut sources).unwrap();
    assert_eq!(t.dialect, Dialect::Spore);
    let _ = Import {
        name: String::new(),
        kind: ImportKind::Action,
        min_args: 0,
        max_args: 0,
        long_running: true,
        claims: btvm::SlotClaims::default(),
        script: None,
    };
}

/// Every tree of the Spore conformance cases (`spec/cases/spore/*.case`) loads, or fails with
/// the kind its `--- error KIND` section names.
#[test]
fn conformance_case_trees() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/cases/spore");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
    {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let mut tree = None;
        let mut error = None;
        let mut in_tree = false;
        let mut body = String::new();
        for line in text.lines().chain(std::iter::once("--- end")) {
            if let Some(head) = line.strip_prefix("--- ") {
                if in_tree {
                    tree = Some(std::mem::take(&mut body));
                }
                in_tree = head == "tree spore";
                if let Some(kind) = head.strip_prefix("error ") {
                    error = Some(kind.trim().to_string());
                }
            } else if in_tree {
                body.push_str(line);
                body.push('\n');
            }
        }
        let Some(tree) = tree else { continue };
        let mut fs = MemFs::new();
        fs.insert("/c/main.spore", tree.into_bytes());
        let mut sources = SourceMap::new();
        let opts = crate::load::LoadOptions::default();
        let r = crate::load::load(Path::new("/c/main.spore"), &fs, &opts, &mut sources);
        let name = path.display();
        match (r, error) {
            (Ok(_), None) => {}
            (Ok(_), Some(k)) => panic!("{name}: loaded, but the case expects {k}"),
            (Err(d), None) => panic!("{name}: {}", d[0].display(&sources)),
            (Err(d), Some(k)) => assert!(
                d.iter().any(|d| format!("{:?}", d.kind) == k),
                "{name}: expected {k}, got {}",
                d[0].display(&sources)
            ),
        }
    }
}
