//! Any bytes as a saved-cursor file (`btvm run --save` / `--restore`): the records decode or
//! the file is refused with an error; decoded records encode to records that decode to the
//! same; and a restore into a fixed Drag[en]gine tree is refused alike (the wrong number of
//! agents) or resumes with the same trace on the reference, the vm and native code (an unknown
//! rule id included: its first tick fails and stops the tree).
#![no_main]

use std::sync::OnceLock;

use btvm::{CursorSnapshot, Limits};
use btvm_compiler::ir::{Dialect, Tree};
use btvm_compiler::load::{load, Format, LoadOptions};
use btvm_compiler::scenario::{parse_scenario, run_session, EngineKind, Saved, Scenario, Session};
use btvm_compiler::source::{FileId, MemFs, SourceMap};
use libfuzzer_sys::fuzz_target;

/// A tree with rule ids at several depths, loops, a yield and a condition.
const TREE: &str = r#"<behaviorTree>
  <choice id="top" loop="true">
    <sequence id=".a">
      <action id=".go" name="go"><condition>ready</condition></action>
      <yield id=".y"/>
      <running id=".wait"/>
    </sequence>
    <sequence id=".b" loop="true">
      <action id=".rest" name="rest"/>
      <yield/>
    </sequence>
  </choice>
</behaviorTree>
"#;

const SCENARIO: &str = "agents 2\nticks 6\nanswer go = cycle running, success, failure\n\
                        answer ready = cycle true, false\nanswer rest = success, running\n";

fn fixture() -> &'static (Tree, Scenario) {
    static CELL: OnceLock<(Tree, Scenario)> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut fs = MemFs::new();
        fs.insert("/f/main.debt", TREE.as_bytes());
        let options = LoadOptions {
            format: Some(Format::Dialect(Dialect::Dragengine)),
            limits: Limits::default(),
            profile: None,
            deny_warnings: false,
            root: None,
        };
        let tree = load(
            "/f/main.debt".as_ref(),
            &fs,
            &options,
            &mut SourceMap::new(),
        )
        .expect("the fixed tree loads");
        let scenario = parse_scenario(FileId(0), SCENARIO).expect("the fixed scenario parses");
        (tree, scenario)
    })
}

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let mut snaps = Vec::new();
    while !rest.is_empty() && snaps.len() < 8 {
        match CursorSnapshot::decode(rest) {
            Ok((snap, more)) => {
                let mut bytes = Vec::new();
                if snap.encode(&mut bytes).is_ok() {
                    // Unknown flag bits are ignored, so compare what the records say.
                    let again = CursorSnapshot::decode(&bytes).map(|(s, _)| s);
                    assert_eq!(again, Ok(snap.clone()), "decode(encode(s)) != s");
                }
                snaps.push(snap);
                rest = more;
            }
            Err(e) => {
                let _ = e.to_string();
                return;
            }
        }
    }
    let (tree, scenario) = fixture();
    let session = Session {
        restore: Some(Saved::Cursors(snaps)),
        ..Session::default()
    };
    let outcome = |engine| {
        run_session(tree, scenario, engine, &session)
            .map(|o| o.trace.to_string())
            .map_err(|d| d.kind)
    };
    let reference = outcome(EngineKind::Reference);
    for engine in [EngineKind::Vm, EngineKind::Native] {
        assert_eq!(
            reference,
            outcome(engine),
            "reference vs {} after restoring {session:?}",
            engine.name()
        );
    }
});
