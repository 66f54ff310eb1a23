//! Lua snippets are script imports.

use super::*;

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
