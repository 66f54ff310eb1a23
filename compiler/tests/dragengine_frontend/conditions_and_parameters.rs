//! Conditions and parameters.

use super::*;

/// The guard expression of `<success>` with conditions `a`, `b`, `c` and `mode`.
fn mode_expr(mode: Option<&str>) -> String {
    let mode = mode.map_or(String::new(), |m| {
        format!("<conditionMode>{m}</conditionMode>")
    });
    let t = load_tree(&format!(
        "<success><condition>a</condition>{mode}<condition>b</condition>\
         <condition>c</condition></success>"
    ));
    let r = t.node(t.main_root().unwrap());
    match &r.kind {
        NodeKind::Guard(g) => show_expr(&t, &g.cond),
        k => panic!("{k:?}"),
    }
}

#[test]
fn every_condition_mode_has_its_expression() {
    let (a, b, c) = (
        "(@bound(a) && a())",
        "(@bound(b) && b())",
        "(@bound(c) && c())",
    );
    let all_true = format!("(({a} && {b}) && {c})");
    assert_eq!(mode_expr(None), all_true);
    assert_eq!(mode_expr(Some("allTrue")), all_true);
    assert_eq!(mode_expr(Some("anyTrue")), format!("(({a} || {b}) || {c})"));
    assert_eq!(
        mode_expr(Some("anyFalse")),
        format!("((!{a} || !{b}) || !{c})")
    );
    assert_eq!(
        mode_expr(Some("allFalse")),
        format!("((!{a} && !{b}) && !{c})")
    );
}

#[test]
fn the_last_condition_mode_wins_and_one_condition_is_not_combined() {
    let t = load_tree(
        "<running><conditionMode>anyTrue</conditionMode><condition>a</condition>\
         <conditionMode>allFalse</conditionMode></running>",
    );
    assert_eq!(show_main(&t), "guard !(@bound(a) && a()) { running }");
}

#[test]
fn condition_expressions_use_and_or_not() {
    let t = load_tree("<yield><condition>a</condition><condition>b</condition></yield>");
    let NodeKind::Guard(g) = &t.node(t.main_root().unwrap()).kind else {
        panic!()
    };
    let Expr::Binary(BinOp::And, lhs, _) = &g.cond else {
        panic!("{:?}", g.cond)
    };
    let Expr::Binary(BinOp::And, bound, call) = &**lhs else {
        panic!("{lhs:?}")
    };
    assert!(matches!(**bound, Expr::Bound(_)));
    assert!(matches!(**call, Expr::Call(_)));
}

#[test]
fn parameters_go_to_the_action_and_every_condition() {
    let t = load_tree(
        "<action name='timer.wait'>\
           <parameter name='timer'>t1</parameter>\
           <condition>timer.running</condition>\
           <parameter name='timeout.lower'>1</parameter>\
           <parameter name='timer'>t2</parameter>\
           <parameter name='empty'/>\
           <parameter name='entity'>&lt;&amp;&gt; <![CDATA[<raw>]]></parameter>\
           <parameter name='spaced'>  a b  </parameter>\
         </action>",
    );
    // The first text node, cleaned as Drag[en]gine's CleanCharData cleans it (the `name`
    // attribute is the element's first node): text before CDATA is its own node, and a
    // trailing run of spaces is kept as one unless the text is the last node.
    let args =
        r#""timer", "t2", "timeout.lower", "1", "empty", "", "entity", "<&> ", "spaced", " a b""#;
    assert_eq!(
        show_main(&t),
        format!(
            "guard (@bound(action timer.wait) && (@bound(timer.running) && timer.running({args}))) \
             {{ action timer.wait({args}) }}"
        )
    );
}

#[test]
fn argument_counts_span_every_call_site() {
    let t = load_tree(
        "<sequence>\
           <action name='a'><condition>c</condition></action>\
           <action name='a'><parameter name='x'>1</parameter><parameter name='y'>2</parameter>\
             <condition>c</condition></action>\
           <success><parameter name='z'>3</parameter><condition>c</condition></success>\
         </sequence>",
    );
    let find = |name: &str, kind| {
        t.imports
            .iter()
            .find(|i| i.name == name && i.kind == kind)
            .map(|i| (i.min_args, i.max_args))
    };
    assert_eq!(find("a", ImportKind::Action), Some((0, 4)));
    assert_eq!(find("c", ImportKind::Function), Some((0, 4)));
    assert_eq!(t.imports.len(), 2);
}

#[test]
fn one_name_can_be_an_action_and_a_condition() {
    let t = load_tree("<action name='x'><condition>x</condition></action>");
    assert_eq!(t.imports.len(), 2);
    assert_eq!(t.imports[0].kind, ImportKind::Action);
    assert_eq!(t.imports[1].kind, ImportKind::Function);
    assert_eq!(
        show_main(&t),
        "guard (@bound(action x) && (@bound(x) && x())) { action x() }"
    );
}

#[test]
fn at_most_127_parameters_per_rule() {
    let params = |n: usize| {
        (0..n)
            .map(|i| format!("<parameter name='p{i}'>v</parameter>"))
            .collect::<String>()
    };
    let t = load_tree(&format!("<action name='a'>{}</action>", params(127)));
    assert_eq!((t.imports[0].min_args, t.imports[0].max_args), (254, 254));
    let repeated = format!("{}<parameter name='p0'>w</parameter>", params(127));
    load_tree(&format!("<action name='a'>{repeated}</action>"));
    let src = format!(
        "<behaviorTree><action name='a'>\n{}\n<parameter name='last'/></action></behaviorTree>",
        params(127)
    );
    let d = assert_err(&src, ErrorKind::Arity, "3:1");
    assert!(d.message.contains("127"), "{}", d.message);
}

#[test]
fn many_conditions_are_limited_by_expression_depth() {
    let conds = |n: usize| "<condition>c</condition>".repeat(n);
    let limits = Limits {
        max_expr_depth: 12,
        ..Limits::default()
    };
    // `@bound(action a) && (((c1 && c2) && c3) ...)` with `ci = @bound(c) && c()`: n
    // conditions make it n + 2 deep.
    let ok = tree(&format!("<action name='a'>{}</action>", conds(10)));
    try_load_with(&[("main.debt", &ok)], &limits).0.unwrap();
    let src = format!(
        "<behaviorTree>\n<action name='a'>{}</action></behaviorTree>",
        conds(11)
    );
    let (d, at) = err_with(&[("main.debt", &src)], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::NestTooDeep, "/t/main.debt:2:1")
    );
}
