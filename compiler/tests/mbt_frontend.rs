//! The MBT front-end (`spec/mbt.md` sections 1 and 3), through `btvm_compiler::load::load`:
//! every section and node and its IR, attribute defaults, seconds to milliseconds, the GameSDK
//! profile (actions, wrappers, leniency), Lua snippet imports, the time conditions, status logs,
//! every load error with its kind and position, hostile input, a GameSDK-style tree of our own,
//! and the canonical-syntax round trip of what the front-end produces.

use std::path::Path;

use btvm::{ImportKind, Limits, Status};
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    Arg, BinOp, CallExpr, Dialect, Expr, Hooks, Lit, LogStatus, NodeKind, TimestampId, Tree,
    TsQuery, VarId,
};
use btvm_compiler::load::{load, Format, LoadOptions, Profile};
use btvm_compiler::source::{MemFs, SourceMap};
use btvm_compiler::syntax::canonical;

// ---- helpers ------------------------------------------------------------------------------

const PATH: &str = "/ai/BehaviorTrees/main.xml";

fn try_load_with(
    bytes: &[u8],
    gamesdk: bool,
    limits: Limits,
    format: Option<Format>,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    let mut fs = MemFs::new();
    fs.insert(PATH, bytes.to_vec());
    let options = LoadOptions {
        format,
        limits,
        profile: gamesdk.then_some(Profile::GameSdk),
        deny_warnings: false,
    };
    let mut sources = SourceMap::new();
    let r = load(Path::new(PATH), &fs, &options, &mut sources);
    (r, sources)
}

fn try_load(xml: &str, gamesdk: bool) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    try_load_with(
        xml.as_bytes(),
        gamesdk,
        Limits::default(),
        Some(Format::Dialect(Dialect::Mbt)),
    )
}

#[track_caller]
fn ok_with(xml: &str, gamesdk: bool) -> Tree {
    match try_load(xml, gamesdk).0 {
        Ok(t) => t,
        Err(d) => panic!("{:?}: {}", d[0].kind, d[0].message),
    }
}

#[track_caller]
fn ok(xml: &str) -> Tree {
    ok_with(xml, false)
}

#[track_caller]
fn ok_sdk(xml: &str) -> Tree {
    ok_with(xml, true)
}

/// A document with `body` as its Root node, after the declarations `decls`.
fn doc(decls: &str, body: &str) -> String {
    format!("<BehaviorTree>\n{decls}\n<Root>\n{body}\n</Root>\n</BehaviorTree>\n")
}

/// The `file:line:col` of the first occurrence of `needle` in `text`.
fn at(text: &str, needle: &str) -> String {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is not in the text"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    format!("{PATH}:{line}:{col}")
}

/// The first diagnostic loading `xml` gives, and where it points.
#[track_caller]
fn err_with(xml: &str, gamesdk: bool) -> (Diagnostic, String) {
    let (r, sources) = try_load(xml, gamesdk);
    match r {
        Ok(_) => panic!("loaded but should not have:\n{xml}"),
        Err(d) => {
            let at = sources.locate(d[0].span);
            (d[0].clone(), at)
        }
    }
}

/// Asserts that `xml` fails with `kind` at the first occurrence of `needle`, with a message
/// containing `says`.
#[track_caller]
fn assert_err_with(xml: &str, gamesdk: bool, kind: ErrorKind, needle: &str, says: &str) {
    let (d, where_) = err_with(xml, gamesdk);
    assert_eq!(d.kind, kind, "{where_}: {}", d.message);
    assert_eq!(where_, at(xml, needle), "{}", d.message);
    assert!(
        d.message.contains(says),
        "`{}` does not say `{says}`",
        d.message
    );
}

#[track_caller]
fn assert_err(xml: &str, kind: ErrorKind, needle: &str, says: &str) {
    assert_err_with(xml, false, kind, needle, says);
}

/// Asserts that `xml` loads, and that its first warning has `kind`, points at the first
/// occurrence of `needle` and says `says` (what CRYENGINE logs while loading the tree anyway).
#[track_caller]
fn assert_warn(xml: &str, kind: ErrorKind, needle: &str, says: &str) {
    ok(xml);
    let mut fs = MemFs::new();
    fs.insert(PATH, xml.as_bytes().to_vec());
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Mbt)),
        limits: Limits::default(),
        profile: None,
        deny_warnings: true,
    };
    let mut sources = SourceMap::new();
    let d = match load(Path::new(PATH), &fs, &options, &mut sources) {
        Ok(_) => panic!("no warning loading:\n{xml}"),
        Err(d) => d[0].clone(),
    };
    assert_eq!(d.kind, kind, "{}", d.message);
    assert_eq!(sources.locate(d.span), at(xml, needle), "{}", d.message);
    assert!(
        d.message.contains(says),
        "`{}` does not say `{says}`",
        d.message
    );
}

/// The tree printed in the canonical syntax, from its first `root` line.
fn body(t: &Tree) -> String {
    let text = canonical::print(t);
    let from = text.find("root main").expect("a main root");
    text[from..].to_string()
}

/// The canonical text of the tree's tables (imports, variables, timestamps, signals).
fn tables(t: &Tree) -> String {
    let text = canonical::print(t);
    let header = "precision double;\nclock 100;\n\n";
    let from = text.find(header).expect("the header") + header.len();
    let to = text.find("root main").expect("a main root");
    text[from..to].trim_end().to_string()
}

fn str_arg(name: &str, value: &str) -> Arg {
    Arg {
        name: Some(name.to_string()),
        value: Expr::Lit(Lit::Str(value.to_string())),
    }
}

/// Printing and parsing back gives the same tree, spans aside (`btvm fmt` round trip).
#[track_caller]
fn assert_round_trip(t: &Tree) {
    let text = canonical::print(t);
    let mut back = canonical::parse(btvm_compiler::source::FileId(0), &text, &Limits::default())
        .unwrap_or_else(|d| panic!("{}: {}\n{text}", d[0].message, d[0].span.start));
    let mut t = t.clone();
    back.strip_spans();
    t.strip_spans();
    assert_eq!(back, t, "{text}");
}

// ---- sections -----------------------------------------------------------------------------

#[test]
fn sections_fill_the_tables() {
    let xml = r#"<?xml version="1.0" encoding="utf-8"?>
<!-- any root tag -->
<AnyRootName>
    <Root><AssertCondition condition="alert and !DEAD"/></Root>
    <SignalVariables>
        <Signal name="OnSeen" variable="ALERT" value="!Dead"/>
        <Signal name="OnSeen" variable="dead" value="Alert xor hidden"/>
        <Signal name="OnLost" variable="dead" value="Ghost"/>
    </SignalVariables>
    <MetaExtensions><Whatever we="like"><Nested/></Whatever></MetaExtensions>
    <Timestamps>
        <Timestamp name="Seen" setOnEvent="OnSeen" exclusiveTo="Lost"/>
        <Timestamp name="Lost" setOnEvent="OnLost"/>
        <Timestamp name="Bare"/>
        <Timestamp name="Typo" setOnEvent="OnTypo" exlusiveTo="Seen"/>
    </Timestamps>
    <Variables>
        <Variable name="Alert" default="TRUE"/>
        <Variable name="Dead" default="false"/>
        <Variable name="Hidden"/>
    </Variables>
</AnyRootName>
"#;
    let t = ok(xml);
    assert_eq!(t.dialect, Dialect::Mbt);
    assert_eq!(
        tables(&t),
        "var Alert: bool = true;\n\
         var Dead: bool = false;\n\
         var Hidden: bool = false;\n\
         timestamp Seen on \"OnSeen\" exclusive Lost;\n\
         timestamp Lost on \"OnLost\";\n\
         timestamp Bare;\n\
         timestamp Typo on \"OnTypo\";\n\
         signal \"OnSeen\" Alert = !$Dead;\n\
         signal \"OnSeen\" Dead = $Alert ^^ $Hidden;\n\
         signal \"OnLost\" Dead = false;"
    );
    assert_eq!(body(&t), "root main = condition ($Alert && !$Dead)\n");
    assert_eq!(t.timestamps[0].exclusive_to, Some(TimestampId(1)));
    assert_eq!(t.timestamps[3].exclusive_to, None);
    assert_round_trip(&t);
}

#[test]
fn the_format_is_sniffed_from_the_root_element() {
    let xml = doc("", "<Halt/>");
    let (r, _) = try_load_with(xml.as_bytes(), false, Limits::default(), None);
    assert_eq!(r.unwrap().dialect, Dialect::Mbt);
}

#[test]
fn a_bom_is_accepted_and_positions_stay_right() {
    let xml = format!("\u{feff}{}", doc("", "<Nope/>"));
    let (d, where_) = err_with(&xml, false);
    assert_eq!(d.kind, ErrorKind::UnknownName);
    // Columns count characters, the BOM among them on line 1 only.
    assert_eq!(where_, at(&xml, "<Nope/>"));
    assert!(ok(&format!("\u{feff}{}", doc("", "<Halt/>"))).nodes.len() == 1);
}

// ---- nodes --------------------------------------------------------------------------------

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

// ---- Lua ----------------------------------------------------------------------------------

#[test]
fn lua_snippets_are_script_imports_numbered_by_distinct_text() {
    let xml = doc(
        "",
        r#"<Sequence>
  <ExecuteLua code="entity:Reload()"/>
  <AssertLua code="return entity.ammo &gt; 0"/>
  <LuaGate code="entity:Reload()"><Halt/></LuaGate>
  <LuaWrapper onExit="entity:Stop()" onEnter="entity:Start()"><Halt/></LuaWrapper>
  <LuaWrapper onEnter="entity:Start()"><Halt/></LuaWrapper>
  <LuaWrapper onEnter="" onExit="entity:Stop()"><Halt/></LuaWrapper>
  <LuaWrapper><Halt/></LuaWrapper>
</Sequence>"#,
    );
    let t = ok(&xml);
    let imports: Vec<_> = t
        .imports
        .iter()
        .map(|i| {
            (
                i.name.as_str(),
                i.kind,
                i.min_args,
                i.max_args,
                i.script.as_deref(),
            )
        })
        .collect();
    let f = ImportKind::Function;
    assert_eq!(
        imports,
        [
            ("lua_0", f, 0, 0, Some("entity:Reload()")),
            ("lua_1", f, 0, 0, Some("return entity.ammo > 0")),
            // Attributes in document order: onExit is met first here.
            ("lua_2", f, 0, 0, Some("entity:Stop()")),
            ("lua_3", f, 0, 0, Some("entity:Start()")),
        ]
    );
    let want = r#"root main = sequence remember {
    map success success running {
        condition (lua_0())
    }
    condition (lua_1())
    guard on-entry (lua_0()) {
        const running
    }
    hooks enter lua_3() exit lua_2() {
        const running
    }
    hooks enter lua_3() {
        const running
    }
    hooks exit lua_2() {
        const running
    }
    hooks {
        const running
    }
}
"#;
    assert_eq!(body(&t), want);
    assert!(tables(&t).contains("import function lua_1 0..0 script \"return entity.ammo > 0\";"));
    assert_round_trip(&t);
}

// ---- the GameSDK profile ------------------------------------------------------------------

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
    assert!(d.notes.iter().any(|n| n.contains("--profile gamesdk")));
}

// ---- errors -------------------------------------------------------------------------------

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

#[test]
fn attributes_unknown_missing_and_malformed() {
    let e = |body: &str, kind, needle: &str, says: &str| {
        assert_err(
            &doc(r#"<Timestamps><Timestamp name="T"/></Timestamps>"#, body),
            kind,
            needle,
            says,
        )
    };
    use ErrorKind::InvalidValue as IV;
    e(
        r#"<Sequence name="Main"><Halt/></Sequence>"#,
        IV,
        "name=\"Main",
        "name",
    );
    // Attribute names compare case-insensitively (CryXML), so these are known.
    ok(&doc("", r#"<Halt _startlog="x" _Comment="x"/>"#));
    e(r#"<Wait/>"#, IV, "<Wait/>", "`duration`");
    e(r#"<Timeout/>"#, IV, "<Timeout/>", "`duration`");
    // Log reads `message` with getAttr, "" when absent.
    ok(&doc("", r#"<Log/>"#));
    e(r#"<SendEvent/>"#, IV, "<SendEvent/>", "`name`");
    e(
        r#"<SendTransitionEvent/>"#,
        IV,
        "<SendTransitionEvent/>",
        "`name`",
    );
    e(r#"<WaitForEvent/>"#, IV, "<WaitForEvent/>", "`name`");
    e(
        r#"<AssertCondition/>"#,
        IV,
        "<AssertCondition/>",
        "`condition`",
    );
    e(
        r#"<MonitorCondition/>"#,
        IV,
        "<MonitorCondition/>",
        "`condition`",
    );
    e(
        r#"<IfCondition><Halt/></IfCondition>"#,
        IV,
        "<IfCondition>",
        "`condition`",
    );
    e(
        r#"<RandomGate><Halt/></RandomGate>"#,
        IV,
        "<RandomGate>",
        "`opensWithChance`",
    );
    e(r#"<ExecuteLua/>"#, IV, "<ExecuteLua/>", "`code`");
    e(r#"<AssertLua/>"#, IV, "<AssertLua/>", "`code`");
    e(r#"<LuaGate><Halt/></LuaGate>"#, IV, "<LuaGate>", "`code`");
    e(
        r#"<GroupScope><Halt/></GroupScope>"#,
        IV,
        "<GroupScope>",
        "`name`",
    );
    // IfTime and WaitUntilTime read an absent `since` as the empty name; AssertTime refuses
    // it, and an empty one (AssertTime::LoadFromXml).
    ok(&doc("", r#"<IfTime isMoreThan="1"><Halt/></IfTime>"#));
    ok(&doc("", r#"<WaitUntilTime isMoreThan="1"/>"#));
    e(
        r#"<AssertTime isMoreThan="1"/>"#,
        IV,
        "<AssertTime",
        "`since`",
    );
    e(
        r#"<AssertTime since="" isMoreThan="1"/>"#,
        IV,
        "\" isMoreThan",
        "non-empty `since`",
    );
    // Only an exactly empty Case condition is `true` (Case::LoadFromXml tests `empty()`).
    e(
        r#"<Priority><Case condition=" "><Halt/></Case></Priority>"#,
        ErrorKind::Syntax,
        " \"><Halt/>",
        "",
    );
    // SendEvent, SendTransitionEvent and WaitForEvent refuse an empty name.
    e(
        r#"<SendEvent name=""/>"#,
        IV,
        "\"/>\n</Root>",
        "non-empty `name`",
    );
    e(
        r#"<WaitForEvent name=""/>"#,
        IV,
        "\"/>\n</Root>",
        "non-empty `name`",
    );
    // Values. Numbers are read as C reads them (`atof`, `strtoul`): text after the number and
    // text without one load (with warnings, `mbt_numbers_read_as_c_reads_them`); what C++
    // leaves undefined or the platform decides is refused.
    ok(&doc("", r#"<Wait duration="1s"/>"#));
    ok(&doc("", r#"<Wait duration=" 1"/>"#));
    e(r#"<Wait duration="1e30"/>"#, IV, "1e30", "out of range");
    e(r#"<Wait duration="inf"/>"#, IV, "inf", "out of range");
    e(
        r#"<Wait duration="0x10"/>"#,
        IV,
        "0x10",
        "form btvm does not read",
    );
    e(
        r#"<Wait duration="1" variation="-1"/>"#,
        IV,
        "-1\"",
        "variation",
    );
    e(
        r#"<Wait duration="1" variation="5000000"/>"#,
        IV,
        "5000000",
        "variation",
    );
    e(
        r#"<Loop count="4294967296"><Halt/></Loop>"#,
        IV,
        "4294967296",
        "form btvm does not read",
    );
    e(
        r#"<GroupScope name="g" allowedConcurrentUsers="4294967296"><Halt/></GroupScope>"#,
        IV,
        "4294967296",
        "form btvm does not read",
    );
    // GroupScope::LoadFromXml refuses an empty name; the limit is strtoul's.
    e(
        r#"<GroupScope name=""><Halt/></GroupScope>"#,
        IV,
        "\"><Halt/>",
        "non-empty `name`",
    );
    let t = ok(&doc(
        "",
        r#"<GroupScope name="g" allowedConcurrentUsers="-1"><Halt/></GroupScope>"#,
    ));
    assert!(
        body(&t).contains("groupscope \"g\" 4294967295"),
        "{}",
        body(&t)
    );
    ok(&doc(
        "",
        r#"<RandomGate opensWithChance="half"><Halt/></RandomGate>"#,
    ));
    e(
        r#"<WaitForEvent name="E" result="Running"/>"#,
        IV,
        "Running",
        "Success",
    );
    // Booleans are `atoi(value) != 0`: any text loads.
    ok(&doc(
        r#"<Timestamps><Timestamp name="T"/></Timestamps>"#,
        r#"<IfTime since="T" isMoreThan="1" orNeverBeenSet="maybe"><Halt/></IfTime>"#,
    ));
    // Time conditions.
    // Both comparisons: isMoreThan is read first and wins (a warning names isLessThan).
    let t = ok(&doc(
        r#"<Timestamps><Timestamp name="T"/></Timestamps>"#,
        r#"<AssertTime since="T" isLessThan="1" isMoreThan="2"/>"#,
    ));
    assert!(body(&t).contains("@elapsed(T) > 200000"), "{}", body(&t));
    e(
        r#"<WaitUntilTime since="T"/>"#,
        IV,
        "<WaitUntilTime",
        "isMoreThan",
    );
    e(
        r#"<AssertTime since="T" isLessThan="nan"/>"#,
        IV,
        "nan",
        "seconds",
    );
    // WaitUntilTime has no orNeverBeenSet; IfTime no succeedIfNeverBeenSet.
    e(
        r#"<WaitUntilTime since="T" isLessThan="1" orNeverBeenSet="1"/>"#,
        IV,
        "orNeverBeenSet",
        "orNeverBeenSet",
    );
    e(
        r#"<IfTime since="T" isLessThan="1" succeedIfNeverBeenSet="1"><Halt/></IfTime>"#,
        IV,
        "succeedIfNeverBeenSet",
        "succeedIfNeverBeenSet",
    );
}

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

// ---- hostile input ------------------------------------------------------------------------

#[test]
fn malformed_xml_is_a_positioned_syntax_error() {
    for (xml, needle) in [
        (
            "<BehaviorTree>\n  <Root><Halt/></Rot>\n</BehaviorTree>",
            "Rot>",
        ),
        (
            "<BehaviorTree><Root><Halt a='1' a='2'/></Root></BehaviorTree>",
            "a='2'",
        ),
        (
            "<BehaviorTree><Root><Halt/></Root></BehaviorTree>trailing",
            "trailing",
        ),
        (
            "<BehaviorTree><Root><Log message=\"&unknown;\"/></Root></BehaviorTree>",
            "&unknown;",
        ),
    ] {
        let (d, where_) = err_with(xml, false);
        assert_eq!(d.kind, ErrorKind::Syntax, "{xml}: {}", d.message);
        let line = at(xml, needle);
        // The parser points at or inside the bad construct on its line.
        assert_eq!(
            where_.rsplit_once(':').unwrap().0,
            line.rsplit_once(':').unwrap().0,
            "{xml}: {} at {where_}",
            d.message
        );
    }
    for xml in ["", "   ", "<BehaviorTree>", "<?xml version='1.0'?>"] {
        assert_eq!(err_with(xml, false).0.kind, ErrorKind::Syntax, "{xml:?}");
    }
    let dtd = "<!DOCTYPE x [<!ENTITY a 'aaaa'>]><BehaviorTree><Root><Log message='&a;'/></Root></BehaviorTree>";
    assert_err(dtd, ErrorKind::Syntax, "<!DOCTYPE", "DOCTYPE");
}

#[test]
fn invalid_utf8_is_refused() {
    let mut bytes = doc("", "<Log message=\"x\"/>").into_bytes();
    let at = bytes.iter().position(|&b| b == b'x').unwrap();
    bytes[at] = 0xff;
    let (r, sources) = try_load_with(
        &bytes,
        false,
        Limits::default(),
        Some(Format::Dialect(Dialect::Mbt)),
    );
    let d = r.unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::InvalidUtf8);
    assert_eq!(d[0].span.start as usize, at);
    assert!(sources.locate(d[0].span).starts_with(PATH));
}

#[test]
fn deep_nesting_is_nest_too_deep_not_a_crash() {
    let n = 100_000;
    let xml = format!(
        "<BehaviorTree><Root>{}<Halt/>{}</Root></BehaviorTree>",
        "<Loop>".repeat(n),
        "</Loop>".repeat(n)
    );
    // On a small stack: the front-end does not recurse at all.
    let (d, where_) = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || err_with(&xml, false))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(d.kind, ErrorKind::NestTooDeep);
    // The first node past the limit (256 levels) is the 257th `<Loop>`.
    assert_eq!(where_, format!("{PATH}:1:{}", 21 + 256 * 6));

    // Exactly at the limit loads; one deeper does not, wrappers counted.
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let load = |body: &str| {
        try_load_with(
            doc("", body).as_bytes(),
            false,
            limits,
            Some(Format::Dialect(Dialect::Mbt)),
        )
        .0
    };
    assert!(load("<Loop><Loop><Loop><Halt/></Loop></Loop></Loop>").is_ok());
    let e = load("<Loop><Loop><Loop><Loop><Halt/></Loop></Loop></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    // A log wrapper is a level: depth 5.
    let e = load("<Loop><Loop><Loop _startLog=\"x\"><Halt/></Loop></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    // So are ExecuteLua's condition, Case and State.
    assert!(load("<Loop><Loop><ExecuteLua code=\"x\"/></Loop></Loop>").is_ok());
    let e = load("<Loop><Loop><Loop><ExecuteLua code=\"x\"/></Loop></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    let e =
        load("<Loop><Loop><Priority><Case><Halt/></Case></Priority></Loop></Loop>").unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
    let e = load(
        "<Loop><Loop><StateMachine><State name=\"s\"><BehaviorTree><Halt/></BehaviorTree></State></StateMachine></Loop></Loop>",
    )
    .unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::NestTooDeep);
}

#[test]
fn size_limits() {
    let fmt = Some(Format::Dialect(Dialect::Mbt));
    // A file over the source limit.
    let limits = Limits {
        max_source_bytes: 1000,
        ..Limits::default()
    };
    let big = doc("", &format!("<Log message=\"{}\"/>", "x".repeat(2000)));
    let (r, _) = try_load_with(big.as_bytes(), false, limits, fmt);
    assert_eq!(r.unwrap_err()[0].kind, ErrorKind::SourceTooLarge);
    // Too many nodes: counted while building, with the wrappers.
    let limits = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    let wide: String = (0..10).map(|_| "<Halt/>").collect();
    let (r, _) = try_load_with(
        doc("", &format!("<Parallel>{wide}</Parallel>")).as_bytes(),
        false,
        limits,
        fmt,
    );
    assert_eq!(r.unwrap_err()[0].kind, ErrorKind::TooManyNodes);
    let nine: String = (0..9).map(|_| "<Halt/>").collect();
    let (r, _) = try_load_with(
        doc("", &format!("<Parallel>{nine}</Parallel>")).as_bytes(),
        false,
        limits,
        fmt,
    );
    assert!(r.is_ok());
    // A big, valid file loads: 20,000 leaves under nested composites.
    let inner: String = (0..200)
        .map(|i| format!("<Log message=\"{i}\"/>"))
        .collect();
    let outer: String = (0..100)
        .map(|_| format!("<Sequence>{inner}</Sequence>"))
        .collect();
    let chunks: String = (0..1)
        .map(|_| format!("<Selector>{outer}</Selector>"))
        .collect();
    let t = ok(&doc("", &chunks));
    assert_eq!(t.nodes.len(), 1 + 100 + 20_000);
}

#[test]
fn long_and_deep_expressions_are_refused() {
    let decls = r#"<Variables><Variable name="A"/></Variables>"#;
    let long = vec!["A"; 200].join(" and ");
    let (d, _) = err_with(
        &doc(decls, &format!("<AssertCondition condition=\"{long}\"/>")),
        false,
    );
    assert_eq!(d.kind, ErrorKind::LimitExceeded, "{}", d.message);
    let deep = format!("{}A{}", "(".repeat(100_000), ")".repeat(100_000));
    let xml = doc(decls, &format!("<AssertCondition condition=\"{deep}\"/>"));
    let (d, _) = err_with(&xml, false);
    assert!(
        matches!(d.kind, ErrorKind::NestTooDeep | ErrorKind::LimitExceeded),
        "{:?}",
        d.kind
    );
}

#[test]
fn many_attributes_on_a_profile_node() {
    let attrs: String = (0..256).map(|i| format!(" a{i}=\"v\"")).collect();
    let xml = doc("", &format!("<Move{attrs}/>"));
    assert_err_with(&xml, true, ErrorKind::Arity, "<Move", "255");
    let attrs: String = (0..255).map(|i| format!(" a{i}=\"v\"")).collect();
    ok_sdk(&doc("", &format!("<Move{attrs} _startLog=\"s\"/>")));
}

// ---- a GameSDK-style tree -----------------------------------------------------------------

/// A scout written for these tests in the style of the GameSDK trees (seed-systems §C.6 tags).
const SCOUT: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<BehaviorTree>
    <MetaExtensions>
        <EditorLayout zoom="1.0"/>
    </MetaExtensions>
    <Variables>
        <Variable name="HasTarget" default="false"/>
        <Variable name="TargetVisible" default="false"/>
        <Variable name="UnderFire" default="false"/>
        <Variable name="CanSeeSquad" default="true"/>
    </Variables>
    <SignalVariables>
        <Signal name="OnEnemySeen" variable="HasTarget" value="true"/>
        <Signal name="OnEnemySeen" variable="TargetVisible" value="true"/>
        <Signal name="OnLostSightOfTarget" variable="TargetVisible" value="false"/>
        <Signal name="OnBulletRain" variable="UnderFire" value="true"/>
        <Signal name="OnCoverReached" variable="UnderFire" value="false"/>
        <Signal name="OnTargetDead" variable="HasTarget" value="false"/>
    </SignalVariables>
    <Timestamps>
        <Timestamp name="TargetSpotted" setOnEvent="OnEnemySeen" exclusiveTo="TargetLost"/>
        <Timestamp name="TargetLost" setOnEvent="OnLostSightOfTarget"/>
        <Timestamp name="ShotAt" setOnEvent="OnBulletRain" exlusiveTo="TargetSpotted"/>
    </Timestamps>
    <Root>
        <StateMachine>
            <State name="Scouting">
                <Transitions>
                    <Transition onEvent="OnEnemySeen" to="Engaging"/>
                    <Transition onEvent="OnNoiseHeard" to="Checking"/>
                </Transitions>
                <BehaviorTree>
                    <Loop>
                        <Sequence _startLog="scouting">
                            <LuaGate code="return entity.AI.scoutRoute ~= nil">
                                <Move to="RefPoint" speed="Walk" stance="Relaxed"/>
                            </LuaGate>
                            <Wait duration="2" variation="1.5"/>
                            <SuppressFailure>
                                <Timeout duration="0.5"/>
                            </SuppressFailure>
                        </Sequence>
                    </Loop>
                </BehaviorTree>
            </State>
            <State name="Checking">
                <Transitions>
                    <Transition onEvent="OnEnemySeen" to="Engaging"/>
                    <Transition onEvent="OnNothingFound" to="Scouting"/>
                </Transitions>
                <BehaviorTree>
                    <Sequence>
                        <Communicate name="Suspicious" channel="Search" expirity="2" waitUntilFinished="0"/>
                        <Parallel successMode="any">
                            <Move to="LastOp" speed="Walk" fireMode="Off"/>
                            <Look at="LastOp"/>
                        </Parallel>
                        <WaitForEvent name="OnArrived" result="Success"/>
                        <SendTransitionSignal name="OnNothingFound"/>
                    </Sequence>
                </BehaviorTree>
            </State>
            <State name="Engaging">
                <Transitions>
                    <Transition onEvent="OnTargetDead" to="Scouting"/>
                </Transitions>
                <BehaviorTree>
                    <Priority>
                        <Case condition="UnderFire">
                            <Sequence>
                                <Stance name="Crouch"/>
                                <AnimationTagWrapper name="Alerted">
                                    <Move to="Cover" speed="Run" stance="Crouch"/>
                                </AnimationTagWrapper>
                                <Halt/>
                            </Sequence>
                        </Case>
                        <Case condition="HasTarget and TargetVisible">
                            <Loop>
                                <Selector>
                                    <GroupScope name="GrenadeThrowers" allowedConcurrentUsers="2">
                                        <IfTime since="TargetSpotted" isMoreThan="3">
                                            <Sequence>
                                                <AssertLua code="return entity.inventory:GetGrenadeCount() &gt; 0"/>
                                                <ThrowGrenade type="frag" timeout="3"/>
                                            </Sequence>
                                        </IfTime>
                                    </GroupScope>
                                    <RandomGate opensWithChance="0.4">
                                        <Shoot at="Target" duration="2" stance="Stand" fireMode="Burst"/>
                                    </RandomGate>
                                    <SuppressFailure>
                                        <ShootFromCover duration="1.5" fireMode="Burst"/>
                                    </SuppressFailure>
                                </Selector>
                            </Loop>
                        </Case>
                        <Case condition="HasTarget">
                            <Sequence>
                                <LoopUntilSuccess attemptCount="3">
                                    <QueryTPS name="SDKGrunt_SearchTarget" register="RefPoint"/>
                                </LoopUntilSuccess>
                                <Move to="RefPoint" speed="Walk"/>
                                <WaitUntilTime since="TargetLost" isMoreThan="8" succeedIfNeverBeenSet="1"/>
                                <IfCondition condition="!TargetVisible">
                                    <SendTransitionSignal name="OnTargetDead"/>
                                </IfCondition>
                                <Halt/>
                            </Sequence>
                        </Case>
                        <Case>
                            <LuaWrapper onEnter="entity:EnableSearchModule()" onExit="entity:DisableSearchModule()">
                                <Sequence>
                                    <AssertCondition condition="CanSeeSquad"/>
                                    <Signal name="OnSquadLostTarget" filter="Group"/>
                                    <Halt/>
                                </Sequence>
                            </LuaWrapper>
                        </Case>
                    </Priority>
                </BehaviorTree>
            </State>
        </StateMachine>
    </Root>
</BehaviorTree>
"#;

#[test]
fn a_gamesdk_style_tree_loads_with_the_profile_only() {
    let t = ok_sdk(SCOUT);
    assert_eq!(t.vars.len(), 4);
    assert_eq!(t.signals.len(), 6);
    assert_eq!(t.timestamps.len(), 3);
    assert_eq!(t.timestamps[2].exclusive_to, None);
    let count = |kw: &str| t.nodes.iter().filter(|n| n.kind.keyword() == kw).count();
    assert_eq!(count("statemachine"), 1);
    assert_eq!(count("state"), 3);
    assert_eq!(count("case"), 4);
    assert_eq!(count("hooks"), 2);
    assert_eq!(count("logstatus"), 1);
    assert_eq!(count("groupscope"), 1);
    let actions: Vec<&str> = t
        .imports
        .iter()
        .filter(|i| i.kind == ImportKind::Action)
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(
        actions,
        [
            "Move",
            "Communicate",
            "Look",
            "SendTransitionSignal",
            "Stance",
            "AnimationTagWrapper",
            "ThrowGrenade",
            "Shoot",
            "ShootFromCover",
            "QueryTPS",
            "Signal",
        ]
    );
    let scripts: Vec<&str> = t
        .imports
        .iter()
        .filter_map(|i| i.script.as_deref())
        .collect();
    assert_eq!(
        scripts,
        [
            "return entity.AI.scoutRoute ~= nil",
            "return entity.inventory:GetGrenadeCount() > 0",
            "entity:EnableSearchModule()",
            "entity:DisableSearchModule()",
        ]
    );
    assert!(body(&t).contains(
        "action Communicate(name = \"Suspicious\", channel = \"Search\", expirity = \"2\", waitUntilFinished = \"0\")"
    ));
    assert_round_trip(&t);

    // Without the profile the first GameSDK tag is an unknown node type.
    assert_err(
        SCOUT,
        ErrorKind::UnknownName,
        "<Move to=\"RefPoint\" speed=\"Walk\" stance",
        "`Move`",
    );
}

#[test]
fn the_squad_soldier_example_loads_with_the_profile() {
    let xml = include_str!("../../spec/examples/squad_soldier.xml");
    let t = ok_sdk(xml);
    assert_eq!(t.dialect, Dialect::Mbt);
    assert!(t.imports.iter().any(|i| i.name == "lua_0"));
    assert_round_trip(&t);
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

#[test]
fn mbt_numbers_read_as_c_reads_them() {
    let warnings = |body: &str| -> Vec<String> {
        let mut fs = MemFs::new();
        fs.insert(PATH, doc("", body).into_bytes());
        let options = LoadOptions {
            format: Some(Format::Dialect(Dialect::Mbt)),
            limits: Limits::default(),
            profile: None,
            deny_warnings: false,
        };
        let mut sources = SourceMap::new();
        let loaded =
            btvm_compiler::load::load_reporting(Path::new(PATH), &fs, &options, &mut sources)
                .unwrap_or_else(|e| panic!("{e:?}"));
        loaded.warnings.iter().map(|w| w.message.clone()).collect()
    };
    let w = warnings(r#"<Wait duration="1.5s"/>"#);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("`s` is ignored"), "{w:?}");
    let w = warnings(r#"<Wait duration="soon"/>"#);
    assert!(w[0].contains("reads as 0"), "{w:?}");
    assert!(warnings(r#"<Wait duration=" 1 "/>"#).is_empty());
    let w = warnings(r#"<Loop count="3x"><Halt/></Loop>"#);
    assert!(
        w[0].contains("`x` is ignored") && w[0].contains("strtoul"),
        "{w:?}"
    );
    // The values, as the IR holds them.
    let t = ok(&doc("", r#"<Loop count="258"><Halt/></Loop>"#));
    assert!(body(&t).contains("loop 2 until failure"), "{}", body(&t));
    let t = ok(&doc("", r#"<Loop count="-1"><Halt/></Loop>"#));
    assert!(body(&t).contains("loop 255 until failure"), "{}", body(&t));
    let t = ok(&doc("", r#"<Loop count="256"><Halt/></Loop>"#));
    assert!(body(&t).contains("loop forever"), "{}", body(&t));
    let t = ok(&doc(
        "",
        r#"<RandomGate opensWithChance="0.1"><Halt/></RandomGate>"#,
    ));
    let p = f64::from(0.1f32);
    assert!(
        body(&t).contains(&format!("@random <= {p}")),
        "{}",
        body(&t)
    );
    let t = ok(&doc(
        "",
        r#"<RandomGate opensWithChance="nan"><Halt/></RandomGate>"#,
    ));
    assert!(body(&t).contains("@random <= -1.0"), "{}", body(&t));
}
