//! Literals: typing and strings.

use super::*;

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
