//! MBT numbers are read as C reads them.

use super::*;

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
            root: None,
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
