//! Expressions: operator levels, IR operators, bad primaries.

use super::*;

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
