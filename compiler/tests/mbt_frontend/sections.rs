//! Sections fill the tables; the format is sniffed; a BOM is accepted.

use super::*;

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
