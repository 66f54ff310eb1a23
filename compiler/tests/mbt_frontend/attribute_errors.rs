//! Errors: unknown, missing and malformed attributes.

use super::*;

use ErrorKind::InvalidValue as IV;

/// `body` in a document declaring the timestamp `T` is an error of `kind` at `needle`.
#[track_caller]
fn e(body: &str, kind: ErrorKind, needle: &str, says: &str) {
    assert_err(
        &doc(r#"<Timestamps><Timestamp name="T"/></Timestamps>"#, body),
        kind,
        needle,
        says,
    )
}

#[test]
fn attributes_unknown_and_missing() {
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
}

#[test]
fn absent_and_empty_names() {
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
}

#[test]
fn malformed_values() {
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
}

#[test]
fn time_condition_attributes() {
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
