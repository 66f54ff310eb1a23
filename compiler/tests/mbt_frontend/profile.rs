//! The GameSDK profile: leaves, wrappers, leniency.

use super::*;

#[test]
fn profile_leaves_are_actions_with_attribute_arguments_in_document_order() {
    let xml = doc(
        "",
        r#"<Sequence>
  <Move to="Target" speed="Run" _startLog="moving" stance="Crouch"/>
  <Shoot _comment="the editor's note"/>
  <Move speed="Walk" to="Cover"/>
  <Signal name="OnSpotted" filter="Group"/>
</Sequence>"#,
    );
    let t = ok_sdk(&xml);
    let mv = t.import_named("Move").expect("Move");
    let imp = &t.imports[mv.index()];
    assert_eq!(
        (imp.kind, imp.min_args, imp.max_args, imp.long_running),
        (ImportKind::Action, 0, 255, true)
    );
    assert_eq!(imp.script, None);
    // The log wrapper is node 1, the action node 2.
    assert_eq!(
        t.nodes[2].kind,
        NodeKind::Action(CallExpr {
            import: mv,
            args: vec![
                str_arg("to", "Target"),
                str_arg("speed", "Run"),
                str_arg("stance", "Crouch"),
            ],
        })
    );
    let want = r#"root main = sequence remember {
    logstatus start "moving" {
        action Move(to = "Target", speed = "Run", stance = "Crouch")
    }
    action Shoot()
    action Move(speed = "Walk", to = "Cover")
    action Signal(name = "OnSpotted", filter = "Group")
}
"#;
    assert_eq!(body(&t), want);
    assert_eq!(t.imports.len(), 3);
    assert_round_trip(&t);
}

#[test]
fn profile_wrappers_are_hooks_calling_their_action_on_enter_and_exit() {
    let xml = doc(
        "",
        r#"<AnimationTagWrapper name="Alerted">
  <SmartObjectStatesWrapper states="Busy" _failureLog="no">
    <Halt/>
  </SmartObjectStatesWrapper>
</AnimationTagWrapper>"#,
    );
    let t = ok_sdk(&xml);
    let w = t.import_named("AnimationTagWrapper").unwrap();
    let call = CallExpr {
        import: w,
        args: vec![str_arg("name", "Alerted")],
    };
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::Hooks(Hooks {
            enter: Some(call.clone()),
            exit: Some(call),
        })
    );
    assert_eq!(
        body(&t),
        "root main = hooks enter AnimationTagWrapper(name = \"Alerted\") exit \
         AnimationTagWrapper(name = \"Alerted\") {\n    \
         logstatus failure \"no\" {\n        \
         hooks enter SmartObjectStatesWrapper(states = \"Busy\") exit \
         SmartObjectStatesWrapper(states = \"Busy\") {\n            \
         const running\n        }\n    }\n}\n"
    );
    assert_round_trip(&t);
    // A wrapper takes exactly one child.
    assert_err_with(
        &doc(
            "",
            "<AnimationTagWrapper><Halt/><Fail/></AnimationTagWrapper>",
        ),
        true,
        ErrorKind::Arity,
        "<Fail/>",
        "exactly one child",
    );
    // A profile leaf takes none.
    assert_err_with(
        &doc("", "<Move><Halt/></Move>"),
        true,
        ErrorKind::Arity,
        "<Halt/>",
        "no children",
    );
}

#[test]
fn the_profile_ignores_unknown_sections_and_attributes() {
    let xml = r#"<BehaviorTree>
    <CustomGameData weight="3"><Anything/></CustomGameData>
    <Variables extra="1"><Variable name="A" note="x"/></Variables>
    <Root>
        <Loop name="Main" count="2"><Selector comment="c"><Fail/></Selector></Loop>
    </Root>
</BehaviorTree>"#;
    let t = ok_sdk(xml);
    assert_eq!(
        body(&t),
        "root main = loop 2 until failure {\n    selector remember {\n        const failure\n    }\n}\n"
    );
    assert_err(
        xml,
        ErrorKind::UnknownName,
        "<CustomGameData",
        "CustomGameData",
    );
    let no_section = xml.replace(
        "<CustomGameData weight=\"3\"><Anything/></CustomGameData>",
        "",
    );
    assert_err(&no_section, ErrorKind::InvalidValue, "extra=", "extra");
}

#[test]
fn profile_tags_are_unknown_without_the_profile() {
    let xml = doc(
        "",
        "<Sequence><Log message=\"x\"/><Move to=\"Cover\"/></Sequence>",
    );
    assert_err(
        &xml,
        ErrorKind::UnknownName,
        "<Move",
        "unknown node type `Move`",
    );
    let (d, _) = err_with(&xml, false);
    assert!(d.notes.iter().any(|n| n.contains("GameSDK profile")));
}
