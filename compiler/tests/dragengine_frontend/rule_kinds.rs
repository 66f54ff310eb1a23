//! Rule kinds.

use super::*;

#[test]
fn an_action_is_guarded_by_its_presence() {
    let t = load_tree(
        "<action name='timer.start' id='t'>\
           <parameter name='timeout'>1.5</parameter>\
           <parameter name='timer'>rest</parameter>\
         </action>",
    );
    assert_eq!(
        show_main(&t),
        "guard @bound(action timer.start)#t { \
         action timer.start(\"timeout\", \"1.5\", \"timer\", \"rest\") }"
    );
    let i = &t.imports[0];
    assert_eq!(
        (i.kind, i.name.as_str()),
        (ImportKind::Action, "timer.start")
    );
    assert_eq!((i.min_args, i.max_args, i.long_running), (4, 4, true));
}

#[test]
fn an_action_with_conditions_tests_presence_first() {
    let t = load_tree(
        "<action name='walk'>\
           <condition>path.free</condition>\
           <parameter name='speed'>2</parameter>\
         </action>",
    );
    assert_eq!(
        show_main(&t),
        "guard (@bound(action walk) && (@bound(path.free) && path.free(\"speed\", \"2\"))) { \
         action walk(\"speed\", \"2\") }"
    );
    assert_eq!(t.imports[1].kind, ImportKind::Function);
    assert!(!t.imports[1].long_running);
}

#[test]
fn leaf_rules_are_guarded_only_when_they_have_conditions() {
    let t = load_tree(
        "<sequence>\
           <success id='a'/><running id='b'/><yield id='c'/><failure id='d'/>\
           <success id='e'><condition>x</condition></success>\
           <running id='f'><condition>x</condition></running>\
           <yield id='g'><condition>x</condition></yield>\
           <failure id='h'><condition>never.imported</condition></failure>\
         </sequence>",
    );
    let g = "guard (@bound(x) && x())";
    assert_eq!(
        show_main(&t),
        format!(
            "sequence {{ success#a; running#b; yield#c; failure#d; \
             {g}#e {{ success }}; {g}#f {{ running }}; {g}#g {{ yield }}; failure#h }}"
        )
    );
    assert_eq!(t.imports.len(), 1, "failure ignores its conditions");
}

#[test]
fn sequence_and_choice_are_cursor_lists_with_their_conditions() {
    let t = load_tree(
        "<choice id='c' loop='true'>\
           <condition>alive</condition>\
           <sequence id='.s'><success/></sequence>\
           <sequence loop='yes'/>\
         </choice>",
    );
    assert_eq!(
        show_main(&t),
        "choice loop when (@bound(alive) && alive())#c { sequence#c.s { success }; sequence }"
    );
}

#[test]
fn do_not_fail_wraps_the_whole_rule_and_carries_its_id() {
    let t = load_tree(
        "<sequence id='s' doNotFail='true'>\
           <action name='a' id='.a' doNotFail='true'><condition>c</condition></action>\
           <choice id='.c' doNotFail='true' loop='true'/>\
           <success doNotFail='true'/>\
           <action name='b' doNotFail='TRUE'/>\
         </sequence>",
    );
    assert_eq!(
        show_main(&t),
        "dnf#s { sequence { \
           dnf#s.a { guard (@bound(action a) && (@bound(c) && c())) { action a() } }; \
           dnf#s.c { choice loop }; \
           success; \
           guard @bound(action b) { action b() } } }"
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
}

#[test]
fn subtrees_are_built_in_place_as_sequences() {
    let t = load_files(&[
        (
            "main.debt",
            &tree(
                "<sequence><subtree id='p' loop='true' doNotFail='true'>sub.debt</subtree>\
                 <subTree>sub.debt</subTree></sequence>",
            ),
        ),
        ("sub.debt", &tree("<action name='walk'/><yield/>")),
    ]);
    let body = "guard @bound(action walk) { action walk() }; yield";
    assert_eq!(
        show_main(&t),
        format!("sequence {{ dnf#p {{ sequence loop {{ {body} }} }}; sequence {{ {body} }} }}")
    );
    assert!(t.subtrees.is_empty(), "subtrees are copied per site");
    assert_eq!(t.imports.len(), 1);
}

#[test]
fn unknown_attributes_and_text_are_ignored_and_booleans_need_exactly_true() {
    let t = load_tree(
        "<sequence colour='red' loop='True' doNotFail='1'>some text\
           <success doNotFail='true' loop='true'/>more text\
           <action name='a' loop='true'/>\
         </sequence>",
    );
    assert_eq!(
        show_main(&t),
        "sequence { success; guard @bound(action a) { action a() } }"
    );
}
