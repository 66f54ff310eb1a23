//! The preprocessor: macros, conditionals, the include directive.

use super::*;

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
