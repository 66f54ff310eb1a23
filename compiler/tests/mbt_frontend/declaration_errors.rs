//! Errors: declarations, priority and state machine structure, conditions.

use super::*;

#[test]
fn declaration_errors() {
    let root = "<Root><Halt/></Root>";
    let xml = |decls: &str| format!("<BehaviorTree>{decls}{root}</BehaviorTree>");
    use ErrorKind::{InvalidValue as IV, Syntax, UnknownName as UN};
    let cases: &[(&str, ErrorKind, &str, &str)] = &[
        (
            r#"<Variables><Variable name="A" value="true"/></Variables>"#,
            IV,
            "value=",
            "value",
        ),
        (
            r#"<Timestamps><Timestamp name="T"/><Timestamp name="T"/></Timestamps>"#,
            IV,
            "T\"/></",
            "declared twice",
        ),
        (r#"<Unknown/>"#, UN, "<Unknown/>", "Unknown"),
        (r#"<Roots/>"#, UN, "<Roots/>", "Roots"),
    ];
    for (decls, kind, needle, says) in cases {
        assert_err(&xml(decls), *kind, needle, says);
    }
    // A bad declaration in Variables or SignalVariables is a warning ending its section; a
    // timestamp without name is skipped, an exclusiveTo naming nothing invalidates nothing, and
    // a section twice reads the first, each with a warning (VariableCollection.h,
    // TimestampCollection.h, BehaviorTreeManager.cpp, 8b63f61c).
    let warnings: &[(&str, ErrorKind, &str, &str)] = &[
        (
            r#"<Variables><Variable name="A" default="maybe"/></Variables>"#,
            IV,
            "maybe",
            "maybe",
        ),
        (
            r#"<Variables><Variable name="A" default="1"/></Variables>"#,
            IV,
            "1\"",
            "`1`",
        ),
        (
            r#"<Variables><Variable default="true"/></Variables>"#,
            IV,
            "<Variable default",
            "`name`",
        ),
        (
            r#"<Variables><Variable name="Alive"/><Variable name="ALIVE"/></Variables>"#,
            IV,
            "ALIVE",
            "declared twice",
        ),
        (
            r#"<Variables><Var name="A"/></Variables>"#,
            UN,
            "<Var ",
            "`<Var>`",
        ),
        (
            r#"<Variables><Variable name="A"/></Variables><SignalVariables><Signal name="E" variable="Ghost" value="true"/></SignalVariables>"#,
            UN,
            "Ghost",
            "Ghost",
        ),
        (
            r#"<Variables><Variable name="A"/></Variables><SignalVariables><Signal name="E" variable="a"/></SignalVariables>"#,
            IV,
            "<Signal name",
            "`value`",
        ),
        (
            r#"<SignalVariables><Signal variable="a" value="true"/></SignalVariables>"#,
            IV,
            "<Signal variable",
            "`name`",
        ),
        (
            r#"<Variables><Variable name="A"/></Variables><SignalVariables><Signal name="E" variable="A" value="A and ="/></SignalVariables>"#,
            Syntax,
            "=\"/>",
            "",
        ),
        (
            r#"<Timestamps><Timestamp setOnEvent="E"/></Timestamps>"#,
            IV,
            "<Timestamp setOnEvent",
            "`name`",
        ),
        (
            r#"<Timestamps><Timestamp name="T" exclusiveTo="Nope"/></Timestamps>"#,
            UN,
            "Nope",
            "Nope",
        ),
        (
            r#"<Timestamps><Timestamp name="T" exclusiveTo="t"/></Timestamps>"#,
            UN,
            "t\"/>",
            "`t`",
        ),
        (
            r#"<Variables/><Variables/>"#,
            Syntax,
            "<Variables/><Root",
            "twice",
        ),
    ];
    for (decls, kind, needle, says) in warnings {
        assert_warn(&xml(decls), *kind, needle, says);
    }
    // Variables are case-insensitive and Timestamps may point forward; exclusiveTo="" is none.
    let t = ok(&xml(
        r#"<Timestamps><Timestamp name="A" exclusiveTo="B"/><Timestamp name="B" exclusiveTo=""/></Timestamps>
<Variables><Variable name="Alive" default="True"/></Variables>
<SignalVariables><Signal name="Die" variable="ALIVE" value="false"/></SignalVariables>"#,
    ));
    assert_eq!(t.signals[0].var, VarId(0));
    assert_eq!(t.timestamps[0].exclusive_to, Some(TimestampId(1)));
    assert_eq!(t.timestamps[1].exclusive_to, None);
    // No Root.
    assert_err(
        "<BehaviorTree><Variables/></BehaviorTree>",
        Syntax,
        "<BehaviorTree>",
        "no `<Root>`",
    );
}

#[test]
fn priority_and_state_machine_structure_errors() {
    use ErrorKind::{Syntax, UnknownName as UN};
    let e =
        |body: &str, kind, needle: &str, says: &str| assert_err(&doc("", body), kind, needle, says);
    e(
        "<Priority><Halt/></Priority>",
        Syntax,
        "<Halt/>",
        "only `<Case>`",
    );
    e(
        r#"<Priority><Case condition="a" cond="b"><Halt/></Case></Priority>"#,
        ErrorKind::InvalidValue,
        "cond=",
        "cond",
    );
    e(
        "<StateMachine><Halt/></StateMachine>",
        Syntax,
        "<Halt/>",
        "only `<State>`",
    );
    e(
        "<StateMachine><State><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>",
        ErrorKind::InvalidValue,
        "<State>",
        "`name`",
    );
    e(
        r#"<StateMachine><State name="S"/></StateMachine>"#,
        Syntax,
        "<State name",
        "`<BehaviorTree>`",
    );
    // A State finds its parts with findChild: the first of each is read, other elements are
    // ignored (State::LoadFromXml, 8b63f61c); btvm warns.
    assert_warn(
        &doc(
            "",
            r#"<StateMachine><State name="S"><BehaviorTree><Halt/></BehaviorTree><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>"#,
        ),
        Syntax,
        "<BehaviorTree><Halt/></BehaviorTree></State>",
        "the first is read",
    );
    assert_warn(
        &doc(
            "",
            r#"<StateMachine><State name="S"><Halt/><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>"#,
        ),
        Syntax,
        "<Halt/><BehaviorTree>",
        "`<Halt>` is ignored",
    );
    // Every child of `<Transitions>` is read as a transition, whatever its tag.
    e(
        r#"<StateMachine><State name="S"><Transitions><Go/></Transitions><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>"#,
        ErrorKind::InvalidValue,
        "<Go/>",
        "`to`",
    );
    e(
        r#"<StateMachine><State name="Idle"><Transitions><Transition onEvent="Alarm" to="Nowhere"/></Transitions><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>"#,
        UN,
        "Nowhere",
        "Nowhere",
    );
    e(
        r#"<StateMachine><State name="Idle"><Transitions><Transition to="Idle"/></Transitions><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>"#,
        ErrorKind::InvalidValue,
        "<Transition ",
        "`onEvent`",
    );
    e(
        r#"<StateMachine><State name="Idle"><Transitions><Transition onEvent="E"/></Transitions><BehaviorTree><Halt/></BehaviorTree></State></StateMachine>"#,
        ErrorKind::InvalidValue,
        "<Transition ",
        "`to`",
    );
    // Two states with one name: a transition goes to the first.
    let t = ok(&doc(
        "",
        r#"<StateMachine>
  <State name="A"><Transitions><Transition onEvent="E" to="b"/></Transitions><BehaviorTree><Halt/></BehaviorTree></State>
  <State name="B"><BehaviorTree><Halt/></BehaviorTree></State>
  <State name="b"><BehaviorTree><Halt/></BehaviorTree></State>
</StateMachine>"#,
    ));
    assert!(
        body(&t).contains("state @\"A\" on \"E\" -> 1 {"),
        "{}",
        body(&t)
    );
}

#[test]
fn condition_errors_point_into_the_attribute() {
    let decls = r#"<Variables><Variable name="A"/><Variable name="B"/></Variables>"#;
    let xml = doc(
        decls,
        r#"<IfCondition condition="(= B)"><Halt/></IfCondition>"#,
    );
    assert_err(&xml, ErrorKind::Syntax, "= B)", "");
    let xml = doc(decls, r#"<AssertCondition condition="   "/>"#);
    assert_err(&xml, ErrorKind::Syntax, "   \"", "empty");
    let xml = doc(decls, r#"<AssertCondition condition="!!A"/>"#);
    assert_err(&xml, ErrorKind::Syntax, "!A\"", "");
    let xml = doc(
        decls,
        r#"<Priority><Case condition="A and (B"><Halt/></Case></Priority>"#,
    );
    let (d, _) = err_with(&xml, false);
    assert_eq!(d.kind, ErrorKind::Syntax);
    // Undeclared names read as false; trailing text is ignored (the original's quirks).
    let t = ok(&doc(
        decls,
        r#"<AssertCondition condition="Ghost or a b"/>"#,
    ));
    assert_eq!(body(&t), "root main = condition (false || $A)\n");
}
