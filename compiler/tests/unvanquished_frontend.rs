//! The Unvanquished `.bt` front-end: IR mapping, expressions, literals, the preprocessor,
//! includes, every error kind with its position, hostile nesting, and the real game files in
//! `../shared/corpus/unvanquished/` (skipped with a message when that folder is absent).

use std::path::{Path, PathBuf};

use btvm::{ImportKind, Limits};
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    BinOp, Composite, Expr, GuardEval, Lit, Node, NodeId, NodeKind, Parallel, Quorum, Resume,
    Sharing, Tree,
};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};
use btvm_compiler::syntax::unvanquished::{load, profile};

use btvm_testkit::front;

// ---- helpers ------------------------------------------------------------------------------

fn try_load_with(
    files: &[(&str, &str)],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    front::try_load_with(load, files, limits)
}

fn load_ok(files: &[(&str, &str)]) -> Tree {
    front::load_ok(load, files)
}

fn load_src(src: &str) -> Tree {
    load_ok(&[("main.bt", src)])
}

/// The first diagnostic and its `file:line:col`.
fn err_with(files: &[(&str, &str)], limits: &Limits) -> (Diagnostic, String) {
    let (r, sources) = try_load_with(files, limits);
    match r {
        Ok(_) => panic!("{} loaded but should not have", files[0].0),
        Err(d) => {
            let at = sources.locate(d[0].span);
            (d[0].clone(), at)
        }
    }
}

fn err_files(files: &[(&str, &str)]) -> (Diagnostic, String) {
    err_with(files, &Limits::default())
}

fn err(src: &str) -> (Diagnostic, String) {
    err_files(&[("main.bt", src)])
}

/// Asserts the kind and the `line:col` of the error `src` produces.
#[track_caller]
fn assert_err(src: &str, kind: ErrorKind, line_col: &str) -> Diagnostic {
    let (d, at) = err(src);
    assert_eq!(d.kind, kind, "{}: {}", at, d.message);
    assert_eq!(at, format!("/t/main.bt:{line_col}"), "{}", d.message);
    d
}

/// Asserts the kind and the `line:col` of the first warning loading `src` gives (whether or not
/// the load then fails): what the game only logs.
#[track_caller]
fn assert_warns(src: &str, kind: ErrorKind, line_col: &str) -> Diagnostic {
    let mut fs = MemFs::new();
    fs.insert("/t/main.bt", src.as_bytes().to_vec());
    let mut sources = SourceMap::new();
    let mut warnings = Vec::new();
    let _ = btvm_compiler::syntax::unvanquished::load_with_warnings(
        Path::new("/t/main.bt"),
        &fs,
        &Limits::default(),
        &mut sources,
        &mut warnings,
    );
    let Some(d) = warnings.first() else {
        panic!("{src:?} gave no warning");
    };
    assert!(d.is_warning());
    assert_eq!(d.kind, kind, "{src:?}: {}", d.message);
    assert_eq!(
        sources.locate(d.span).to_string(),
        format!("/t/main.bt:{line_col}"),
        "{}",
        d.message
    );
    d.clone()
}

fn root(t: &Tree) -> &Node {
    t.node(t.main_root().unwrap())
}

fn import_name(t: &Tree, call: &btvm_compiler::ir::CallExpr) -> String {
    t.imports[call.import.0 as usize].name.clone()
}

fn lit(l: &Lit) -> String {
    match l {
        Lit::Int(i) => i.to_string(),
        Lit::Float(f) => format!("{f:?}f"),
        Lit::Str(s) => format!("{s:?}"),
        Lit::Bool(b) => b.to_string(),
    }
}

fn show_expr(t: &Tree, e: &Expr) -> String {
    match e {
        Expr::Lit(l) => lit(l),
        Expr::Not(a) => format!("!{}", show_expr(t, a)),
        Expr::Binary(op, a, b) => {
            format!("({} {} {})", show_expr(t, a), op.symbol(), show_expr(t, b))
        }
        Expr::Call(c) => format!("{}({})", import_name(t, c), show_args(t, c)),
        other => format!("{other:?}"),
    }
}

fn show_args(t: &Tree, c: &btvm_compiler::ir::CallExpr) -> String {
    c.args
        .iter()
        .map(|a| {
            assert!(a.name.is_none());
            show_expr(t, &a.value)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A compact rendering of a node and its children.
fn show(t: &Tree, id: NodeId) -> String {
    let n = t.node(id);
    let kids: Vec<String> = n.children.iter().map(|&c| show(t, c)).collect();
    let head = match &n.kind {
        NodeKind::Selector(c) if c.resume == Resume::Restart => "selector".to_string(),
        NodeKind::Selector(_) => "fallback".to_string(),
        NodeKind::Sequence(_) => "sequence".to_string(),
        NodeKind::Parallel(_) => "concurrent".to_string(),
        NodeKind::Action(c) => format!("{}({})", import_name(t, c), show_args(t, c)),
        NodeKind::Condition(e) => format!("cond {}", show_expr(t, e)),
        NodeKind::Guard(g) => format!("guard {}", show_expr(t, &g.cond)),
        NodeKind::Invert => "invert".to_string(),
        NodeKind::MapStatus(m) => format!("map({},{},{})", m.failure, m.success, m.running),
        NodeKind::Cooldown(c) => format!("timer({})", c.ms),
        NodeKind::Include(s) => format!("include {}", t.subtrees[s.0 as usize].name),
        other => format!("{other:?}"),
    };
    if kids.is_empty() {
        head
    } else {
        format!("{head} {{ {} }}", kids.join("; "))
    }
}

fn show_main(t: &Tree) -> String {
    show(t, t.main_root().unwrap())
}

/// The expression of `condition EXPR` (given a child: a condition cannot end a file).
fn expr_of(src: &str) -> String {
    let t = load_src(&format!("condition {src} {{ action roam() }}"));
    match &root(&t).kind {
        NodeKind::Guard(g) => show_expr(&t, &g.cond),
        k => panic!("{k:?}"),
    }
}

/// The arguments of `action NAME(ARGS)`.
fn args_of(call: &str) -> String {
    let t = load_src(&format!("action {call}"));
    match &root(&t).kind {
        NodeKind::Action(c) => show_args(&t, c),
        k => panic!("{k:?}"),
    }
}

// ---- IR mapping ----------------------------------------------------------------------------

#[test]
fn every_node_kind_maps_to_the_ir() {
    let t = load_ok(&[
        (
            "main.bt",
            "selectClass { spawnAs PCL_ALIEN_LEVEL0 }\n\
             selector {\n\
               fallback { action roam }\n\
               sequence { action fight }\n\
               concurrent { action flee action jump }\n\
               condition alertedToEnemy\n\
               condition team == TEAM_ALIENS { action rush }\n\
               decorator invert() { action jump }\n\
               decorator return(STATUS_RUNNING) { action heal }\n\
               decorator mapStatus(STATUS_SUCCESS, 0, 2) { action repair }\n\
               decorator timer(5000) { action suicide }\n\
               behavior sub\n\
               spawnAs 3\n\
             }",
        ),
        ("sub.bt", "action roamInRadius(E_GOAL, 250)"),
    ]);
    assert_eq!(t.roots.len(), 2);
    assert_eq!(t.roots[0].name, "main");
    assert_eq!(t.roots[1].name, "selectClass");
    assert_eq!(show(&t, t.roots[1].node), "spawnAs(3)");
    let r = root(&t);
    let kind = |i: usize| &t.node(r.children[i]).kind;
    assert_eq!(
        r.kind,
        NodeKind::Selector(Composite {
            resume: Resume::Restart,
            looping: false,
            cond: None
        })
    );
    assert_eq!(r.children.len(), 11);
    assert_eq!(
        *kind(0),
        NodeKind::Selector(Composite {
            resume: Resume::RunningList,
            looping: false,
            cond: None
        })
    );
    assert_eq!(
        *kind(1),
        NodeKind::Sequence(Composite {
            resume: Resume::RunningList,
            looping: false,
            cond: None
        })
    );
    assert_eq!(
        *kind(2),
        NodeKind::Parallel(Parallel {
            success: Quorum::All,
            failure: Quorum::Any,
            stop_on_failure: true,
            remember: false
        })
    );
    assert!(matches!(kind(3), NodeKind::Condition(Expr::Call(_))));
    match kind(4) {
        NodeKind::Guard(g) => assert_eq!(g.eval, GuardEval::EveryTick),
        k => panic!("{k:?}"),
    }
    assert_eq!(*kind(5), NodeKind::Invert);
    assert_eq!(
        show_main(&t),
        "selector { fallback { roam() }; sequence { fight() }; concurrent { flee(); jump() }; \
         cond alertedToEnemy(); guard (team() == 1) { rush() }; invert { jump() }; \
         map(running,running,running) { heal() }; map(success,failure,running) { repair() }; \
         timer(5000) { suicide() }; include sub; spawnAs(3) }"
    );
    // The include is a shared subtree.
    assert_eq!(t.subtrees.len(), 1);
    assert_eq!(t.subtrees[0].sharing, Sharing::Shared);
    assert_eq!(show(&t, t.subtrees[0].node), "roamInRadius(17, 250)");
    // Imports carry the game's spelling and the profile's arity and kind; they are deduplicated.
    let imp = |name: &str| t.imports.iter().find(|i| i.name == name).unwrap().clone();
    assert_eq!(t.imports.iter().filter(|i| i.name == "jump").count(), 1);
    let ri = imp("roamInRadius");
    assert_eq!(
        (ri.kind, ri.min_args, ri.max_args, ri.long_running),
        (ImportKind::Action, 2, 2, true)
    );
    let j = imp("jump");
    assert!(!j.long_running);
    let sp = imp("spawnAs");
    assert_eq!(
        (sp.kind, sp.min_args, sp.max_args, sp.long_running),
        (ImportKind::Action, 1, 1, false)
    );
    let team = imp("team");
    assert_eq!(
        (team.kind, team.min_args, team.max_args),
        (ImportKind::Function, 0, 0)
    );
    assert_eq!(t.dialect, btvm_compiler::ir::Dialect::Unvanquished);
}

#[test]
fn twenty_children_are_allowed_and_empty_lists_too() {
    let body: String = (0..20).map(|_| "action jump\n").collect();
    let t = load_src(&format!("sequence {{\n{body}}}"));
    assert_eq!(root(&t).children.len(), 20);
    let t = load_src("selector { sequence { } fallback {} concurrent{} }");
    assert_eq!(show_main(&t), "selector { sequence; fallback; concurrent }");
}

#[test]
fn keywords_and_names_are_case_insensitive_but_macros_are_not() {
    let t = load_src(
        "SELECTOR { Condition ALERTEDTOENEMY() { ACTION Fight } \
         Decorator INVERT() { action ROAM() } DECORATOR Return(1) { SpawnAs 2 } }",
    );
    assert_eq!(
        show_main(&t),
        "selector { guard alertedToEnemy() { fight() }; invert { roam() }; \
         map(success,success,success) { spawnAs(2) } }"
    );
    assert_eq!(err("action moveTo(e_goal)").0.kind, ErrorKind::Syntax);
}

#[test]
fn parentheses_are_optional_only_without_parameters() {
    assert_eq!(show_main(&load_src("action roam()")), "roam()");
    assert_eq!(expr_of("team() == team"), "(team() == team())");
    assert_err("action moveTo", ErrorKind::Arity, "1:8");
    assert_err("condition distanceTo > 5", ErrorKind::Arity, "1:11");
}

// ---- expressions ---------------------------------------------------------------------------

#[test]
fn every_operator_has_its_own_level_and_groups_to_the_right() {
    assert_eq!(expr_of("1 == 2 != 3"), "((1 == 2) != 3)");
    assert_eq!(expr_of("1 != 2 == 3"), "(1 != (2 == 3))");
    assert_eq!(expr_of("1 && 2 && 3"), "(1 && (2 && 3))");
    assert_eq!(expr_of("1 || 2 || 3"), "(1 || (2 || 3))");
    assert_eq!(expr_of("1 < 2 < 3"), "(1 < (2 < 3))");
    assert_eq!(expr_of("1 > 2 < 3"), "(1 > (2 < 3))");
    assert_eq!(expr_of("1 < 2 > 3"), "((1 < 2) > 3)");
    assert_eq!(expr_of("1 <= 2 >= 3"), "((1 <= 2) >= 3)");
    assert_eq!(expr_of("1 && 2 || 3"), "((1 && 2) || 3)");
    assert_eq!(expr_of("1 || 2 && 3"), "(1 || (2 && 3))");
    assert_eq!(expr_of("!1 == 2"), "(!1 == 2)");
    assert_eq!(expr_of("!(1 == 2)"), "!(1 == 2)");
    assert_eq!(expr_of("!!team"), "!!team()");
    assert_eq!(expr_of("(1 || 2) && 3"), "((1 || 2) && 3)");
    assert_eq!(
        expr_of("percentHealth(E_SELF) < 0.4 && percentHealth( E_GOAL ) > 0.3"),
        "((percentHealth(22) < 0.4000000059604645f) && (percentHealth(17) > 0.30000001192092896f))"
    );
    assert_eq!(expr_of("cvar(\"g_x\")"), "cvar(\"g_x\")");
    assert_eq!(expr_of("1"), "1");
}

#[test]
fn expression_mapping_uses_ir_operators() {
    let t = load_src("condition 1 < 2 && !3 { action roam() }");
    match &root(&t).kind {
        NodeKind::Guard(btvm_compiler::ir::Guard {
            cond: Expr::Binary(BinOp::And, a, b),
            ..
        }) => {
            assert!(matches!(**a, Expr::Binary(BinOp::Lt, _, _)));
            assert!(matches!(**b, Expr::Not(_)));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn bad_primaries_are_syntax_errors() {
    assert_err(
        "condition \"yes\" { action roam }",
        ErrorKind::Syntax,
        "1:11",
    );
    assert_err(
        "condition percentHealth(E_SELF) > -1",
        ErrorKind::Syntax,
        "1:35",
    );
    assert_err("condition 'c'", ErrorKind::Syntax, "1:11");
    assert_err("condition (1 == 2", ErrorKind::Syntax, "1:18");
    assert_err("condition", ErrorKind::Syntax, "1:10");
    assert_err("condition 1 ==", ErrorKind::Syntax, "1:15");
}

// ---- literals --------------------------------------------------------------------------------

#[test]
fn literal_typing_follows_the_game() {
    assert_eq!(args_of("moveTo(E_GOAL, 1.0)"), "17, 1");
    assert_eq!(args_of("moveTo(E_GOAL, 0.5)"), "17, 0.5f");
    assert_eq!(args_of("moveTo(.25, 2.50)"), "0.25f, 2.5f");
    assert_eq!(args_of("moveTo(0x11, 010)"), "17, 8");
    assert_eq!(args_of("moveTo(0XfF, 0)"), "255, 0");
    assert_eq!(args_of("moveTo(08, 019)"), "8, 19");
    assert_eq!(args_of("moveTo(12L, 7u)"), "12, 7");
    assert_eq!(args_of("moveTo(3Lu, 0x10UL)"), "3, 16");
    assert_eq!(args_of("moveTo(-5, -0.25)"), "-5, -0.25f");
    assert_eq!(args_of("moveTo(- 2.0, -010)"), "-2, -8");
    assert_eq!(args_of("moveTo(0.1)"), format!("{:?}f", f64::from(0.1f32)));
    assert_eq!(args_of("moveTo(E_GOAL 2)"), "17, 2");
    assert_eq!(args_of("moveTo(,,1,,)"), "1");
    assert_eq!(args_of("moveTo(2147483647)"), "2147483647");
    assert_eq!(args_of("say(-\"x\", 1)"), "\"x\", 1");
    assert_eq!(expr_of("1.0 == 1"), "(1 == 1)");
    assert_err(
        "action moveTo(2147483648)",
        ErrorKind::LiteralOverflow,
        "1:15",
    );
    assert_err(
        "action moveTo(1, 0xFFFFFFFF)",
        ErrorKind::LiteralOverflow,
        "1:18",
    );
    assert_err(
        "condition 99999999999 > 1",
        ErrorKind::LiteralOverflow,
        "1:11",
    );
}

#[test]
fn strings_resolve_escapes_and_concatenate() {
    assert_eq!(args_of(r#"say("\065\x42" "c", SAY_TEAM)"#), "\"ABc\", 1");
    assert_eq!(args_of("say(\"all\" /* gap */ \" ok\")"), "\"all ok\"");
    assert_eq!(args_of("say(\"a\"\n  // comment\n  \"b\")"), "\"ab\"");
    assert_eq!(
        args_of(r#"say("\\\"\'\?\n\t\r\a\b\f\v")"#),
        format!("{:?}", "\\\"'?\n\t\r\u{7}\u{8}\u{c}\u{b}")
    );
    assert_eq!(
        args_of(r#"say("\x41\x4a\999")"#),
        format!("{:?}", "AJ\u{ff}")
    );
    // Concatenation also joins strings produced by macros.
    let t = load_src("#define B \"b\"\naction say(\"a\" B \"c\")");
    assert_eq!(show_main(&t), "say(\"abc\")");
}

// ---- preprocessor ----------------------------------------------------------------------------

#[test]
fn object_function_and_multiline_macros() {
    let t = load_src(
        "#define LOW_HEALTH percentHealth( E_SELF ) < 0.5\n\
         #define HURT alertedToEnemy \\\n    && LOW_HEALTH\n\
         #define GOTO(ent) action moveTo( ent )\n\
         #define ACT(name, args) action name(args)\n\
         #define P(x) (x)\n\
         #define RADIUS 300\n\
         selector {\n\
           condition HURT { action flee }\n\
           GOTO(E_H_REACTOR)\n\
           ACT(roamInRadius, (E_H_REACTOR, RADIUS)\n\
           condition P(1 == 2)\n\
         }",
    );
    assert_eq!(
        show_main(&t),
        "selector { guard (alertedToEnemy() && (percentHealth(22) < 0.5f)) { flee() }; \
         moveTo(16); roamInRadius(16, 300); cond (1 == 2) }"
    );
}

#[test]
fn function_macro_arguments_may_nest_parentheses_and_commas() {
    // The game's argument reader drops a nested `(` and ends the list at its `)`: the
    // argument of `(E_GOAL, 100)` is `E_GOAL , 100`, and the last `)` is left over.
    let t = load_src("#define ACT(n, a) action n(a)\nACT(moveTo, (E_GOAL, 100)");
    assert_eq!(show_main(&t), "moveTo(17, 100)");
    assert_err(
        "#define ACT(n, a) action n a\nACT(moveTo, (E_GOAL, 100))",
        ErrorKind::Arity,
        "2:5",
    );
    // A function-like macro name without `(` ends the game's token stream.
    assert_err(
        "#define team(x) x\ncondition team == 1 { action roam() }",
        ErrorKind::Syntax,
        "2:11",
    );
    // `#define F (x)` (space before the parenthesis) is object-like.
    let t = load_src("#define F (1)\ncondition F { action roam() }");
    assert_eq!(show_main(&t), "guard 1 { roam() }");
    // Too few arguments: the missing ones are empty (the game logs it).
    let t = load_src("#define F(a, b) a b\ncondition F(1) { action roam() }");
    assert_eq!(show_main(&t), "guard 1 { roam() }");
    // Too many: the game's token stream ends there.
    assert_err(
        "#define F(a) a\ncondition F(1, 2)",
        ErrorKind::Syntax,
        "2:11",
    );
    assert_err(
        "#define F(a) a\ncondition F(1",
        ErrorKind::Preprocessor,
        "2:11",
    );
}

#[test]
fn stringize_paste_and_enum() {
    let t = load_src(
        "#define S(x) #x\n#define CAT(a, b) a ## b\nsequence { action say(S(hi there)) action CAT(ro, am) }",
    );
    assert_eq!(show_main(&t), "sequence { say(\"hithere\"); roam() }");
    let t = load_src("enum { A, B = 5, C, D = -2, E };\naction moveTo(C, E)");
    assert_eq!(show_main(&t), "moveTo(6, -1)");
    // A malformed `#define` stops the precompiler (a warning).
    assert_warns("#define X ## a", ErrorKind::Preprocessor, "1:11");
    assert_warns("#define X(a) # b", ErrorKind::Preprocessor, "1:14");
}

#[test]
fn undef_and_conditionals() {
    let t = load_src(
        "#define AGGRESSIVE 0\n\
         #ifdef AGGRESSIVE\n#define FIGHT rush\n#else\n#define FIGHT flee\n#endif\n\
         #if AGGRESSIVE\n#define IDLE roam\n#else\n#define IDLE jump\n#endif\n\
         #undef AGGRESSIVE\n\
         #ifndef AGGRESSIVE\n#define SHOUT say(\"calm\")\n#endif\n\
         sequence { action FIGHT action SHOUT action IDLE }",
    );
    assert_eq!(show_main(&t), "sequence { rush(); say(\"calm\"); jump() }");
}

#[test]
fn elif_else_and_nesting() {
    let src = |level: u32| {
        format!(
            "#define LEVEL {level}\n\
             #if LEVEL == 1\n  action roam()\n\
             #elif LEVEL == 2\n\
             # ifdef NOPE\n  action jump()\n\
             # else\n\
             #  if defined(LEVEL) && !defined NOPE && (LEVEL * 3 % 4) == 2\n  action rush()\n\
             #  else\n  action heal()\n\
             #  endif\n\
             # endif\n\
             #elif LEVEL == 3\n  action flee()\n\
             #endif\n"
        )
    };
    assert_eq!(show_main(&load_src(&src(1))), "roam()");
    assert_eq!(show_main(&load_src(&src(2))), "rush()");
    assert_eq!(show_main(&load_src(&src(3))), "flee()");
    let chain = |a: u32, b: u32| {
        format!("#if {a}\naction roam()\n#elif {b}\naction jump()\n#else\naction fight()\n#endif")
    };
    assert_eq!(show_main(&load_src(&chain(0, 0))), "fight()");
    assert_eq!(show_main(&load_src(&chain(0, 1))), "jump()");
    assert_eq!(
        show_main(&load_src(
            "#if 1\naction roam()\n#else\naction fight()\n#endif"
        )),
        "roam()"
    );
    assert_eq!(
        show_main(&load_src(
            "#if 0\naction roam()\n#else\naction fight()\n#endif"
        )),
        "fight()"
    );
    // Skipped groups are tokenized but their directives other than conditionals do nothing,
    // and their expressions are not evaluated.
    // In a skipped group `#define`, `#undef` and `#include` do nothing (the rest of their line
    // is skipped tokens); other directives run: `#error` stops the game's token stream.
    let t = load_src("#if 0\n#if 1\n#endif\n#define X flee\n#undef Y\n#endif\naction roam()");
    assert_eq!(show_main(&t), "roam()");
    assert_err(
        "#if 0\n#error no\n#endif\naction roam()",
        ErrorKind::Syntax,
        "2:1",
    );
    // `#pragma` is ignored; a directive may sit after other tokens on a line.
    let t = load_src("#pragma once\naction # define R roam\nR()");
    assert_eq!(show_main(&t), "roam()");
}

#[test]
fn conditional_chains_where_the_game_differs_are_rejected() {
    // The game includes both `roam` and `jump` here.
    let d = assert_err(
        "#if 1\naction roam\n#elif 1\naction jump\n#endif",
        ErrorKind::Unsupported,
        "3:1",
    );
    assert!(d.notes[0].contains("both branches"), "{:?}", d.notes);
    // The game includes the `#else` branch because the `#elif` before it was false.
    assert_err(
        "#if 1\naction roam\n#elif 0\naction jump\n#else\naction flee\n#endif",
        ErrorKind::Unsupported,
        "5:1",
    );
}

#[test]
fn self_referencing_macros_terminate() {
    // Direct self-reference: `team` stays a name and calls the function.
    let t = load_src("#define team team\ncondition team == TEAM_ALIENS { action roam() }");
    assert_eq!(show_main(&t), "guard (team() == 1) { roam() }");
    // Mutual recursion stops after one round.
    let d = assert_err(
        "#define A B\n#define B A\ncondition A",
        ErrorKind::UnknownName,
        "3:11",
    );
    assert!(d.message.contains("`A`"), "{}", d.message);
    // A function-like macro calling itself.
    let t = load_src(
        "#define distanceTo(x) distanceTo(x)\ncondition distanceTo(E_GOAL) > 5 { action roam() }",
    );
    assert_eq!(show_main(&t), "guard (distanceTo(17) > 5) { roam() }");
    // Nested calls do not expand in the game: its argument reader ends the list at the
    // first nested `)`, and the inner `P` without `(` ends the token stream.
    assert_err(
        "#define P(x) (x)\ncondition P(P(P(1))) { action roam() }",
        ErrorKind::Syntax,
        "2:13",
    );
    // Recursion through arguments is cut off by the expansion budget.
    let mut limits = Limits::new();
    limits.max_expanded_tokens = 10_000;
    let (d, at) = err_with(&[("main.bt", "#define F(x) x(x)\ncondition F(F)")], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::ExpansionTooLarge, "/t/main.bt:2:13")
    );
    // So is exponential growth.
    let mut src = String::from("#define A0 1 ||\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str("condition A39 1");
    let (d, _) = err_with(&[("main.bt", &src)], &limits);
    assert_eq!(d.kind, ErrorKind::ExpansionTooLarge);
}

#[test]
fn expanded_tokens_point_at_the_use_site() {
    let d = assert_err(
        "#define BAD nosuch\n\n  condition BAD",
        ErrorKind::UnknownName,
        "3:13",
    );
    assert!(d.message.contains("nosuch"));
    let d = assert_err(
        "#define F(x) action x\nsequence {\n F(dance) }",
        ErrorKind::UnknownName,
        "3:4",
    );
    assert!(d.message.contains("dance"));
}

#[test]
fn include_directive_reads_relative_files() {
    // `#include` names a path from the game's root, the directory above `bots/`, whichever
    // file includes it.
    let t = load_ok(&[
        (
            "bots/main.bt",
            "#include \"bots/inc/defs.h\"\n#include <bots/inc/more.h>\naction moveTo(TARGET, RANGE)",
        ),
        (
            "bots/inc/defs.h",
            "#define TARGET E_GOAL\n#include \"bots/inc/deeper.h\"",
        ),
        ("bots/inc/deeper.h", "#define RANGE 42"),
        ("bots/inc/more.h", "#ifndef TARGET\naction flee()\n#endif"),
    ]);
    assert_eq!(show_main(&t), "moveTo(17, 42)");
    // A name relative to the including file is not found there: the precompiler stops.
    let (d, _) = err_files(&[
        ("bots/main.bt", "#include \"defs.h\"\naction moveTo(TARGET)"),
        ("bots/defs.h", "#define TARGET 3"),
    ]);
    assert_eq!(d.kind, ErrorKind::Syntax);
    // A recursive `#include` is logged and skipped by the game's precompiler.
    let t = load_ok(&[
        ("main.bt", "#include \"t/a.h\"\naction roam()"),
        ("a.h", "#include \"t/main.bt\""),
    ]);
    assert_eq!(show_main(&t), "roam()");
    // A file it cannot read stops it: nothing was read, so no node.
    let (d, at) = err_files(&[("main.bt", "\n #include \"none.h\"")]);
    assert_eq!((d.kind, at.as_str()), (ErrorKind::Syntax, "/t/main.bt:2:2"));
}

// ---- includes ------------------------------------------------------------------------------

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

// ---- the invert quirk ----------------------------------------------------------------------

#[test]
fn invert_without_parentheses() {
    let d = assert_err(
        "selector\n{\n    decorator invert\n    {\n        action roam\n    }\n}",
        ErrorKind::Syntax,
        "4:5",
    );
    assert!(
        d.notes.iter().any(|n| n.contains("decorator invert() {")),
        "{:?}",
        d.notes
    );
    let d = assert_err(
        "selector { decorator invert action roam }",
        ErrorKind::Syntax,
        "1:22",
    );
    assert!(d.notes.iter().any(|n| n.contains("crash")), "{:?}", d.notes);
    assert_err("decorator invert", ErrorKind::Syntax, "1:11");
    // With parentheses it is an ordinary decorator.
    assert_eq!(
        show_main(&load_src("decorator invert ( ) { action roam }")),
        "invert { roam() }"
    );
}

// ---- errors, each with its position ----------------------------------------------------------

#[test]
fn lexical_errors() {
    // A character that starts no token ends the file (a warning): `roam` is then the last
    // token, without its `()`.
    assert_err("selector {\n  action roam @\n}", ErrorKind::Syntax, "2:10");
    assert_err("selector {\n  action roam é }", ErrorKind::Syntax, "2:10");
    assert_err("action moveTo(1.2.3)", ErrorKind::BadToken, "1:15");
    assert_warns(
        "action say(\"hello)\n",
        ErrorKind::UnterminatedString,
        "1:12",
    );
    assert_warns("action say(\n\"abc", ErrorKind::UnterminatedString, "2:1");
    assert_warns(
        "action roam\n  /* this comment never ends",
        ErrorKind::UnterminatedComment,
        "2:3",
    );
    assert_warns("action say(\"a\\qb\")", ErrorKind::BadEscape, "1:14");
}

#[test]
fn encoding_and_size_errors() {
    let fs = {
        let mut fs = MemFs::new();
        fs.insert("/t/main.bt", b"selector {\n  action roam \xff\n}".to_vec());
        fs
    };
    let mut sources = SourceMap::new();
    let d = load(
        Path::new("/t/main.bt"),
        &fs,
        &Limits::default(),
        &mut sources,
    )
    .unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d[0].span), "/t/main.bt:2:15");
    let mut limits = Limits::new();
    limits.max_source_bytes = 15;
    let (d, at) = err_with(&[("main.bt", "selector { action roam }")], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::SourceTooLarge, "/t/main.bt:1:1")
    );
    let (d, at) = err_with(
        &[
            ("main.bt", "behavior big"),
            ("big.bt", "selector { action roam }"),
        ],
        &limits,
    );
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::SourceTooLarge, "/t/big.bt:1:1")
    );
    // The main file missing entirely.
    let mut sources = SourceMap::new();
    let d = load(
        Path::new("/t/none.bt"),
        &MemFs::new(),
        &Limits::default(),
        &mut sources,
    )
    .unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Io);
}

#[test]
fn preprocessor_errors() {
    // A directive the game's precompiler fails on stops it (a warning); what was read before
    // is parsed: here nothing, then a bare `roam` at the end.
    assert_warns(
        "#error stop here\naction roam()",
        ErrorKind::Preprocessor,
        "1:1",
    );
    assert_err("action roam\n  #frobnicate", ErrorKind::Syntax, "1:8");
    assert_warns("action roam\n  #frobnicate", ErrorKind::Preprocessor, "2:4");
    assert_err("#line 5\naction roam", ErrorKind::Unsupported, "1:1");
    assert_err("#eval 1\naction roam", ErrorKind::Unsupported, "1:1");
    // `$evalint` is one number token; `$evalfloat` and negative results are refused.
    assert_eq!(
        show_main(&load_src("action moveTo($evalint(6 * 7))")),
        "moveTo(42)"
    );
    assert_err(
        "action moveTo($evalint(1 - 2))",
        ErrorKind::Unsupported,
        "1:15",
    );
    assert_err(
        "action moveTo($evalfloat(1))",
        ErrorKind::Unsupported,
        "1:15",
    );
    assert_warns("#if 1 / 0\n#endif", ErrorKind::Preprocessor, "1:7");
    assert_warns("#if UNKNOWN\n#endif", ErrorKind::Preprocessor, "1:5");
    assert_warns("#if 1\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns("#endif\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns(
        "#if 1\n#else\n#else\n#endif",
        ErrorKind::Preprocessor,
        "3:1",
    );
    assert_warns(
        "#if 1\n#else\n#elif 1\n#endif",
        ErrorKind::Preprocessor,
        "3:1",
    );
    assert_warns("#define\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns("#define 3 x", ErrorKind::Preprocessor, "1:9");
    assert_warns("#define F(a, a) a", ErrorKind::Preprocessor, "1:14");
    assert_warns("#undef\n", ErrorKind::Preprocessor, "1:1");
    assert_warns("#\naction roam", ErrorKind::Preprocessor, "1:1");
    assert_warns("#if 1\n#endif junk", ErrorKind::Preprocessor, "2:8");
    // A misplaced `#endif` fails before its line is read, as in the game.
    assert_warns("#endif junk", ErrorKind::Preprocessor, "1:1");
    assert_warns("#include nothing", ErrorKind::Preprocessor, "1:1");
    // A file included from inside a behavior counts towards the include depth too.
    let mut limits = Limits::new();
    limits.max_include_depth = 1;
    let (d, at) = err_with(
        &[
            ("main.bt", "behavior b"),
            ("b.bt", "#include \"c.h\"\naction roam"),
            ("c.h", ""),
        ],
        &limits,
    );
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeTooDeep, "/t/b.bt:1:1")
    );
}

#[test]
fn grammar_errors() {
    assert_err("action roam\naction fight", ErrorKind::Syntax, "2:1");
    assert_err(
        "condition alertedToEnemy\n{\n    action fight\n    action roam\n}",
        ErrorKind::Syntax,
        "4:5",
    );
    assert_err("selector { action roam()", ErrorKind::Syntax, "1:25");
    // A bare zero-parameter action cannot end a file (the game looks for its `(`).
    assert_err("selector { action roam", ErrorKind::Syntax, "1:19");
    assert_err("selector action roam", ErrorKind::Syntax, "1:10");
    assert_err("selector { roam }", ErrorKind::Syntax, "1:12");
    assert_err("", ErrorKind::Syntax, "1:1");
    assert_err(
        "selector { selectClass { action roam } }",
        ErrorKind::Syntax,
        "1:12",
    );
    assert_err("selectClass action roam", ErrorKind::Syntax, "1:13");
    assert_err("action 5", ErrorKind::Syntax, "1:8");
    assert_err("action moveTo(E_GOAL, x)", ErrorKind::Syntax, "1:23");
    assert_err("action moveTo(E_GOAL, (1))", ErrorKind::Syntax, "1:23");
    assert_err("action moveTo(E_GOAL", ErrorKind::Syntax, "1:14");
    assert_err("spawnAs PCL_NOPE", ErrorKind::Syntax, "1:9");
    assert_err("spawnAs 1.5", ErrorKind::InvalidValue, "1:9");
    // `behavior` takes any token's text: `behavior 5` reads `5.bt`.
    assert_err("behavior 5", ErrorKind::Io, "1:1");
    assert_err(
        "decorator timer(100) action roam",
        ErrorKind::Syntax,
        "1:22",
    );
}

#[test]
fn names_and_arity() {
    let d = assert_err(
        "selector {\n  action roam\n  action dance\n}",
        ErrorKind::UnknownName,
        "3:10",
    );
    assert!(d.notes.is_empty());
    let d = assert_err("action teleprot(1, 2, 3)", ErrorKind::UnknownName, "1:8");
    assert_eq!(d.notes, ["did you mean `teleport`?"]);
    let d = assert_err("action distanceTo(1)", ErrorKind::UnknownName, "1:8");
    assert!(d.notes.iter().any(|n| n.contains("condition function")));
    let d = assert_err(
        "condition isHappy\n{\n    action roam\n}",
        ErrorKind::UnknownName,
        "1:11",
    );
    assert!(d.message.contains("isHappy"));
    let d = assert_err("condition roam", ErrorKind::UnknownName, "1:11");
    assert!(d.notes.iter().any(|n| n.contains("is an action")));
    let d = assert_err("condition E_SLEF == 1", ErrorKind::UnknownName, "1:11");
    assert!(
        d.notes.iter().any(|n| n.contains("E_SELF")),
        "{:?}",
        d.notes
    );
    assert_err(
        "decorator repeat(3) { action roam }",
        ErrorKind::UnknownName,
        "1:11",
    );
    let d = assert_err("action roamInRadius(E_GOAL)", ErrorKind::Arity, "1:8");
    assert!(d.message.contains("2 parameters"), "{}", d.message);
    let d = assert_err("action buy(1, 2, 3, 4, 5)", ErrorKind::Arity, "1:8");
    assert!(d.message.contains("1 to 4 parameters"), "{}", d.message);
    // Too many parameters for an action that takes none: logged, and dropped.
    assert_warns("action roam(1)", ErrorKind::Arity, "1:8");
    assert_err(
        "condition percentHealth(E_SELF, 1) > 0.5",
        ErrorKind::Arity,
        "1:11",
    );
    assert_warns(
        "condition team(1) { action roam() }",
        ErrorKind::Arity,
        "1:11",
    );
    assert_err(
        "decorator timer() { action roam }",
        ErrorKind::Arity,
        "1:11",
    );
    assert_err("decorator timer { action roam }", ErrorKind::Arity, "1:11");
    assert_err(
        "decorator mapStatus(0, 1) { action roam }",
        ErrorKind::Arity,
        "1:11",
    );
    // `invert` takes none: its extra parameter is logged and dropped.
    assert_warns(
        "decorator invert(1) { action roam }",
        ErrorKind::Arity,
        "1:11",
    );
}

#[test]
fn invalid_values() {
    assert_err(
        "decorator return(5)\n{\n    action roam\n}",
        ErrorKind::InvalidValue,
        "1:18",
    );
    assert_err(
        "decorator return(1.5) { action roam }",
        ErrorKind::InvalidValue,
        "1:18",
    );
    assert_err(
        "decorator return(\"1\") { action roam }",
        ErrorKind::InvalidValue,
        "1:18",
    );
    assert_err(
        "decorator mapStatus(0, 1, -1) { action roam }",
        ErrorKind::InvalidValue,
        "1:27",
    );
    assert_err(
        "decorator timer(-1) { action roam }",
        ErrorKind::InvalidValue,
        "1:17",
    );
    assert_err(
        "decorator timer(0.5) { action roam }",
        ErrorKind::InvalidValue,
        "1:17",
    );
    let t = load_src(
        "decorator timer(2147483647) { decorator return(STATUS_FAILURE) { action jump } }",
    );
    assert_eq!(
        show_main(&t),
        "timer(2147483647) { map(failure,failure,failure) { jump() } }"
    );
}

#[test]
fn too_many_nodes() {
    let body: String = (1..=21)
        .map(|i| format!("    action say(\"{i}\")\n"))
        .collect();
    let d = assert_err(
        &format!("sequence\n{{\n{body}}}"),
        ErrorKind::TooManyNodes,
        "23:5",
    );
    assert!(d.notes[0].contains("MAX_NODE_LIST"));
    let mut limits = Limits::new();
    limits.max_nodes = 3;
    let (d, at) = err_with(
        &[(
            "main.bt",
            "sequence { action roam action jump action flee }",
        )],
        &limits,
    );
    // Nodes are counted as they are completed: the fourth is the sequence.
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::TooManyNodes, "/t/main.bt:1:1")
    );
}

// ---- hostile nesting ---------------------------------------------------------------------------

#[test]
fn deep_selectors() {
    let deep = "selector {\n".repeat(100_000);
    assert_err(&deep, ErrorKind::NestTooDeep, "257:1");
}

#[test]
fn deep_parens() {
    let parens = format!("condition {}1", "(".repeat(100_000));
    assert_err(&parens, ErrorKind::NestTooDeep, "1:267");
}

#[test]
fn deep_nots() {
    let nots = format!("condition {}1", "!".repeat(100_000));
    assert_err(&nots, ErrorKind::NestTooDeep, "1:267");
}

#[test]
fn deep_chain() {
    let chain = format!("condition 1{}", " && 1".repeat(10_000));
    assert_eq!(err(&chain).0.kind, ErrorKind::NestTooDeep);
}

#[test]
fn deep_pp() {
    let pp = format!("#if {}1\n#endif", "(".repeat(100_000));
    assert_eq!(err(&pp).0.kind, ErrorKind::NestTooDeep);
}

#[test]
fn deep_decorators() {
    let decorators = "decorator invert() {\n".repeat(100_000);
    assert_err(&decorators, ErrorKind::NestTooDeep, "257:1");
}

#[test]
fn deep_conditions() {
    let conditions = "condition 1 {\n".repeat(100_000);
    assert_err(&conditions, ErrorKind::NestTooDeep, "257:1");
}

#[test]
fn deep_macro_args() {
    // The first call's argument takes every nested level (the game drops each `(`); its
    // first token, `F` without `(`, ends the stream. Nothing recurses.
    let macro_args = format!(
        "#define F(x) x\ncondition {}1{}",
        "F(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(err(&macro_args).0.kind, ErrorKind::Syntax);
    // The game cannot nest calls: the inner `F` is read without `(` and ends the stream.
    assert_err(
        "#define F(x) x\ncondition F(F(F(1))) { action roam() }",
        ErrorKind::Syntax,
        "2:13",
    );
}

// ---- the real game files -----------------------------------------------------------------

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/unvanquished");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: the Unvanquished corpus is not at {}",
            dir.display()
        );
        None
    }
}

// Loading and checking all 22 files is `tests/external_corpus.rs`; this file checks what the
// front-end makes of them.

#[test]
fn default_bt_includes_the_subroutines() {
    let Some(dir) = corpus() else { return };
    let mut sources = SourceMap::new();
    let tree = load(
        &dir.join("default.bt"),
        &RealFs,
        &Limits::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    let mut names: Vec<&str> = tree.subtrees.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "subroutine_become_builder_aliens",
            "subroutine_become_builder_humans",
            "subroutine_evolve",
            "subroutine_extinguish_fire",
            "subroutine_fight_or_flight_aliens",
            "subroutine_fight_or_flight_humans",
            "subroutine_heal_humans",
            "subroutine_reload",
            "subroutine_repair",
            "subroutine_throw_grenade",
            "subroutine_unstick",
            "subroutine_use_medkit",
        ]
    );
    assert_eq!(tree.roots.len(), 2);
    assert_eq!(tree.roots[1].name, "selectClass");
    // Every import is in the profile, with the profile's spelling.
    for imp in &tree.imports {
        let known = match imp.kind {
            ImportKind::Action => {
                profile::action(&imp.name).map(|a| a.name) == Some(imp.name.as_str())
                    || imp.name == "spawnAs"
            }
            ImportKind::Function => {
                profile::function(&imp.name).map(|f| f.name) == Some(imp.name.as_str())
            }
        };
        assert!(known, "{imp:?}");
    }
    // The subroutines were read from the corpus directory and registered for diagnostics.
    assert!(sources.files().len() >= 11);
    // The selectClass entry spawns builders or fighters.
    let sc = show(&tree, tree.roots[1].node);
    assert!(
        sc.contains("spawnAs(2)") && sc.contains("spawnAs(22)"),
        "{sc}"
    );
    // Fight-or-flight keeps its condition idiom: a sequence whose second child is a guard.
    let fof = tree
        .subtrees
        .iter()
        .find(|s| s.name == "subroutine_fight_or_flight_aliens")
        .unwrap();
    assert!(show(&tree, fof.node)
        .starts_with("selector { sequence { cond alertedToEnemy(); selector { timer(5000)"));
}
