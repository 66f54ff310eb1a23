//! Errors: unknown node types, child counts, composite limits.

use super::*;

#[test]
fn unknown_node_types_and_graft() {
    assert_err(
        &doc("", "<Selector><sequence><Halt/></sequence></Selector>"),
        ErrorKind::UnknownName,
        "<sequence>",
        "unknown node type `sequence`",
    );
    assert_err(
        &doc("", "<Selector><Graft/><Halt/></Selector>"),
        ErrorKind::Unsupported,
        "<Graft/>",
        "Graft",
    );
    // Graft stays refused under the profile.
    assert_err_with(
        &doc("", "<Graft/>"),
        true,
        ErrorKind::Unsupported,
        "<Graft/>",
        "Graft",
    );
    // A Case outside a Priority is not a node.
    assert_err(
        &doc("", "<Sequence><Case><Halt/></Case></Sequence>"),
        ErrorKind::UnknownName,
        "<Case>",
        "`Case`",
    );
}

#[test]
fn child_counts() {
    for (xml, needle, says) in [
        (
            "<Selector><Sequence/><Halt/></Selector>",
            "<Sequence/>",
            "at least one",
        ),
        ("<Parallel></Parallel>", "<Parallel>", "at least one"),
        ("<Priority/>", "<Priority/>", "at least one"),
        ("<StateMachine/>", "<StateMachine/>", "at least one"),
        (
            "<SuppressFailure><Fail/><Log message=\"x\"/></SuppressFailure>",
            "<Log",
            "exactly one",
        ),
        ("<Loop/>", "<Loop/>", "exactly one"),
        (
            "<Wait duration=\"1\"><Halt/></Wait>",
            "<Halt/>",
            "no children",
        ),
        ("<Priority><Case/></Priority>", "<Case/>", "exactly one"),
        (
            "<StateMachine><State name=\"S\"><BehaviorTree/></State></StateMachine>",
            "<BehaviorTree/>",
            "exactly one",
        ),
    ] {
        assert_err(&doc("", xml), ErrorKind::Arity, needle, says);
    }
    let empty_root = "<BehaviorTree><Root>  </Root></BehaviorTree>";
    assert_err(empty_root, ErrorKind::Arity, "<Root>", "exactly one node");
    let two = "<BehaviorTree><Root><Halt/><Fail/></Root></BehaviorTree>";
    assert_err(two, ErrorKind::Arity, "<Fail/>", "exactly one node");
}

#[test]
fn composite_limits() {
    let many = |tag: &str, child: &str, n: usize| {
        let children: String = (0..n).map(|_| child).collect();
        doc("", &format!("<{tag}>{children}</{tag}>"))
    };
    for tag in ["Sequence", "Selector"] {
        ok(&many(tag, "<Halt/>", 255));
        assert_err(
            &many(tag, "<Halt/>", 256),
            ErrorKind::LimitExceeded,
            &format!("<{tag}>"),
            "at most 255",
        );
    }
    ok(&many("Parallel", "<Halt/>", 32));
    assert_err(
        &many("Parallel", "<Halt/>", 33),
        ErrorKind::LimitExceeded,
        "<Parallel>",
        "at most 32",
    );
    let case = "<Case><Halt/></Case>";
    ok(&many("Priority", case, 254));
    assert_err(
        &many("Priority", case, 255),
        ErrorKind::LimitExceeded,
        "<Priority>",
        "at most 254",
    );
    let state = "<State name=\"S\"><BehaviorTree><Halt/></BehaviorTree></State>";
    ok(&many("StateMachine", state, 254));
    assert_err(
        &many("StateMachine", state, 255),
        ErrorKind::LimitExceeded,
        "<StateMachine>",
        "at most 254",
    );
}
