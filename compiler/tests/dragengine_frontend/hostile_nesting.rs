//! Hostile nesting.

use super::*;

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 100_000;
    let src = format!(
        "<behaviorTree>{}{}</behaviorTree>",
        "<sequence>".repeat(n),
        "</sequence>".repeat(n)
    );
    let (d, at) = err_with(&[("main.debt", &src)], &Limits::default());
    assert_eq!(d.kind, ErrorKind::NestTooDeep);
    // The 257th `<sequence>` starts at byte 14 + 256 * 10.
    assert_eq!(at, format!("/t/main.debt:1:{}", 14 + 256 * 10 + 1));

    // Unclosed, too: the XML error comes first and is positioned at the end.
    let src = format!("<behaviorTree>{}", "<choice>".repeat(n));
    let (d, _) = err_with(&[("main.debt", &src)], &Limits::default());
    assert_eq!(d.kind, ErrorKind::Syntax);

    // Deep non-rule elements are rejected at the first unknown one.
    let src = format!(
        "<behaviorTree><sequence>{}{}</sequence></behaviorTree>",
        "<x>".repeat(n),
        "</x>".repeat(n)
    );
    let (d, at) = err_with(&[("main.debt", &src)], &Limits::default());
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::UnknownName, "/t/main.debt:1:25")
    );
}

#[test]
fn nesting_up_to_the_limit_loads() {
    let limits = Limits::default();
    let n = limits.max_depth as usize;
    let src = format!(
        "<behaviorTree>{}{}</behaviorTree>",
        "<sequence>".repeat(n),
        "</sequence>".repeat(n)
    );
    let t = try_load_with(&[("main.debt", &src)], &limits).0.unwrap();
    assert_eq!(t.nodes.len(), n);
}
