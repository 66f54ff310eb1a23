//! Nodes and their IR: core nodes, composites, seconds, time conditions, status logs.

use super::*;

#[test]
fn core_nodes_map_to_the_ir() {
    let xml = doc(
        r#"<Variables><Variable name="A"/><Variable name="B" default="true"/></Variables>
<Timestamps><Timestamp name="T" setOnEvent="Mark"/></Timestamps>"#,
        r#"<Sequence>
  <Selector _comment="an editor's note, ignored">
    <Parallel successMode="any" failureMode="all"><Fail/><Halt/></Parallel>
    <Parallel><Breakpoint/></Parallel>
  </Selector>
  <Loop count="3"><Fail/></Loop>
  <Loop><Halt/></Loop>
  <Loop count="0"><Halt/></Loop>
  <LoopUntilSuccess attemptCount="2"><Fail/></LoopUntilSuccess>
  <LoopUntilSuccess><Fail/></LoopUntilSuccess>
  <Priority>
    <Case condition="a"><Halt/></Case>
    <Case condition=""><Fail/></Case>
    <Case><Breakpoint/></Case>
  </Priority>
  <StateMachine>
    <State name="Idle">
      <Transitions>
        <Transition onEvent="Go" to="busy"/>
        <Transition onEvent="Again" to="IDLE"/>
      </Transitions>
      <BehaviorTree><SendTransitionEvent name="Go"/></BehaviorTree>
    </State>
    <State name="Busy">
      <BehaviorTree><SendEvent name="Done"/></BehaviorTree>
    </State>
  </StateMachine>
  <IfCondition condition="A"><Halt/></IfCondition>
  <IfCondition condition="A or B" equalTo="false"><Halt/></IfCondition>
  <IfCondition condition="A" equalTo="1"><Halt/></IfCondition>
  <AssertCondition condition="!b"/>
  <MonitorCondition condition="a == b"/>
  <RandomGate opensWithChance="0.25"><Halt/></RandomGate>
  <RandomGate opensWithChance="3"><Halt/></RandomGate>
  <Timeout duration="1.5"/>
  <Wait duration="2" variation="0.5"/>
  <Wait duration="-1"/>
  <WaitForEvent name="Ping"/>
  <WaitForEvent name="Pong" result="Failure"/>
  <SuppressFailure><Fail/></SuppressFailure>
  <Log message="hello &quot;world&quot;"/>
  <GroupScope name="Grenades" allowedConcurrentUsers="2"><Halt/></GroupScope>
  <GroupScope name="Door"><Halt/></GroupScope>
  <AssertTime since="T" isLessThan="0.5"/>
</Sequence>"#,
    );
    let t = ok(&xml);
    let want = r#"root main = sequence remember {
    selector remember {
        parallel success=any failure=all remember {
            const failure
            const running
        }
        parallel success=all failure=any remember {
            const success
        }
    }
    loop 3 until failure {
        const failure
    }
    loop forever until failure {
        const running
    }
    loop forever until failure {
        const running
    }
    loop 2 until success {
        const failure
    }
    loop forever until success {
        const failure
    }
    priority on-change {
        case ($A) {
            const running
        }
        case (true) {
            const failure
        }
        case (true) {
            const success
        }
    }
    statemachine {
        state @"Idle" on "Go" -> 1 on "Again" -> 0 {
            send "Go" -> running
        }
        state @"Busy" {
            send "Done" -> success
        }
    }
    guard on-entry ($A) {
        const running
    }
    guard on-entry (!($A || $B)) {
        const running
    }
    guard on-entry ($A) {
        const running
    }
    condition (!$B)
    waituntil ($A == $B)
    guard on-entry (@random <= 0.25) {
        const running
    }
    guard on-entry (@random <= 1.0) {
        const running
    }
    wait 150000 0 -> failure
    wait 200000 50000 -> success
    wait -1 0 -> success
    waitevent "Ping" -> success
    waitevent "Pong" -> failure
    map success success running {
        const failure
    }
    log "hello \"world\""
    groupscope "Grenades" 2 {
        const running
    }
    groupscope "Door" 1 {
        const running
    }
    condition (@valid(T) && (@elapsed(T) < 50000))
}
"#;
    assert_eq!(body(&t), want);
    assert_round_trip(&t);
}

#[test]
fn composites_remember_and_parallels_remember_finished_children() {
    let t = ok(&doc("", "<Parallel><Halt/></Parallel>"));
    match &t.nodes[0].kind {
        NodeKind::Parallel(p) => {
            assert!(p.remember);
            assert!(!p.stop_on_failure);
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn seconds_become_truncated_ctimevalue_units_of_a_float() {
    // `CTimeValue::SetSeconds(float)`: (int64)(f * 100000) in float arithmetic.
    for (secs, units) in [
        ("0.0005", 50),
        ("0.0004", 40),
        ("0.00049", 49),
        ("0.000001", 0),
        ("2.5E-3", 250),
        ("1.3", 129_999),
        ("0.25", 25_000),
        ("-1", -1),
        ("-0.000001", -1),
        ("-0", 0),
        ("0", 0),
        ("1e3", 100_000_000),
        (".5", 50_000),
    ] {
        let t = ok(&doc("", &format!(r#"<Wait duration="{secs}"/>"#)));
        match &t.nodes[0].kind {
            NodeKind::Wait(w) => assert_eq!(w.time, units, "{secs}"),
            k => panic!("{k:?}"),
        }
    }
    let t = ok(&doc("", r#"<Wait duration="1" variation="0.0015"/>"#));
    assert!(
        body(&t).contains("wait 100000 150 -> success"),
        "{}",
        body(&t)
    );
    // Timeout starts its timer whatever the sign: -0.000001 s is 0 units, over at once.
    let t = ok(&doc("", r#"<Timeout duration="-0.000001"/>"#));
    assert!(body(&t).contains("wait 0 0 -> failure"), "{}", body(&t));
}

#[test]
fn time_conditions_follow_section_3() {
    let decls = r#"<Timestamps><Timestamp name="T" setOnEvent="E"/></Timestamps>"#;
    let ts = TimestampId(0);
    let q = |what| Expr::Timestamp(ts, what);
    let cmp = |op, ms| Expr::binary(op, q(TsQuery::Elapsed), Expr::Lit(Lit::Int(ms)));
    let valid_and = |op, ms| Expr::binary(BinOp::And, q(TsQuery::Valid), cmp(op, ms));
    let or_never = |e| Expr::binary(BinOp::Or, Expr::Not(Box::new(q(TsQuery::EverSet))), e);

    let t = ok(&doc(
        decls,
        r#"<IfTime since="T" isMoreThan="2"><Halt/></IfTime>"#,
    ));
    match &t.nodes[0].kind {
        NodeKind::Guard(g) => assert_eq!(g.cond, valid_and(BinOp::Gt, 200_000)),
        k => panic!("{k:?}"),
    }
    let t = ok(&doc(
        decls,
        r#"<IfTime since="T" isLessThan="0.1" orNeverBeenSet="1"><Halt/></IfTime>"#,
    ));
    match &t.nodes[0].kind {
        NodeKind::Guard(g) => assert_eq!(g.cond, or_never(valid_and(BinOp::Lt, 10_000))),
        k => panic!("{k:?}"),
    }
    let t = ok(&doc(
        decls,
        r#"<WaitUntilTime since="T" isMoreThan="1" succeedIfNeverBeenSet="1"/>"#,
    ));
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::WaitUntil(or_never(valid_and(BinOp::Gt, 100_000)))
    );
    let t = ok(&doc(
        decls,
        r#"<WaitUntilTime since="T" isLessThan="1" succeedIfNeverBeenSet="FALSE"/>"#,
    ));
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::WaitUntil(valid_and(BinOp::Lt, 100_000))
    );
    let t = ok(&doc(
        decls,
        r#"<AssertTime since="T" isMoreThan="0" orNeverBeenSet="0"/>"#,
    ));
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::Condition(valid_and(BinOp::Gt, 0))
    );
    // A `since` naming no declared timestamp (case-sensitive) is never set.
    for (xml, want) in [
        (
            r#"<AssertTime since="t" isLessThan="1" orNeverBeenSet="1"/>"#,
            NodeKind::Condition(Expr::Lit(Lit::Bool(true))),
        ),
        (
            r#"<WaitUntilTime since="Nope" isMoreThan="1"/>"#,
            NodeKind::WaitUntil(Expr::Lit(Lit::Bool(false))),
        ),
    ] {
        assert_eq!(ok(&doc(decls, xml)).nodes[0].kind, want, "{xml}");
    }
    let t = ok(&doc(
        "",
        r#"<IfTime since="T" isMoreThan="1"><Halt/></IfTime>"#,
    ));
    assert_eq!(
        body(&t),
        "root main = guard on-entry (false) {\n    const running\n}\n"
    );
    // The never-set flags default to false.
    for (xml, want) in [
        (
            r#"<WaitUntilTime since="T" isLessThan="1"/>"#,
            NodeKind::WaitUntil(valid_and(BinOp::Lt, 100_000)),
        ),
        (
            r#"<AssertTime since="T" isLessThan="1"/>"#,
            NodeKind::Condition(valid_and(BinOp::Lt, 100_000)),
        ),
    ] {
        assert_eq!(ok(&doc(decls, xml)).nodes[0].kind, want, "{xml}");
    }
}

#[test]
fn status_logs_wrap_the_node() {
    let xml = doc(
        "",
        r#"<Sequence _startLog="go" _failureLog="failed">
  <Fail _successLog="never" _startLog=""/>
  <Halt _startLog="" _successLog="" _failureLog=""/>
</Sequence>"#,
    );
    let t = ok(&xml);
    assert_eq!(
        t.nodes[0].kind,
        NodeKind::LogStatus(LogStatus {
            start: Some("go".into()),
            success: None,
            failure: Some("failed".into()),
        })
    );
    assert_eq!(
        body(&t),
        "root main = logstatus start \"go\" failure \"failed\" {\n    \
         sequence remember {\n        \
         logstatus success \"never\" {\n            const failure\n        }\n        \
         const running\n    }\n}\n"
    );
    // The wrapper points at the node's element.
    let (_, sources) = try_load(&xml, false);
    assert_eq!(sources.locate(t.nodes[0].span), at(&xml, "<Sequence"));
    assert_eq!(sources.locate(t.nodes[2].span), at(&xml, "<Fail"));
}

#[test]
fn every_mapped_status_is_the_spec_s() {
    // A spot check of the constants the mapping relies on.
    let t = ok(&doc(
        "",
        "<Sequence><Fail/><Halt/><Breakpoint/><SuppressFailure><Fail/></SuppressFailure></Sequence>",
    ));
    assert_eq!(t.nodes[1].kind, NodeKind::Const(Status::Failure));
    assert_eq!(t.nodes[2].kind, NodeKind::Const(Status::Running));
    assert_eq!(t.nodes[3].kind, NodeKind::Const(Status::Success));
    match &t.nodes[4].kind {
        NodeKind::MapStatus(m) => assert_eq!(
            (m.failure, m.success, m.running),
            (Status::Success, Status::Success, Status::Running)
        ),
        k => panic!("{k:?}"),
    }
}
