//! The invert quirk.

use super::*;

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
