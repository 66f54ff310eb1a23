//! Hostile input to node-level tracing (`spec/semantics.md` 4.7): a scenario's `trace` line
//! that names no level, a bogus one, one made of control characters or a huge one, and a tree whose
//! traced program is over a size limit its ordinary program fits. Each ends in a positioned
//! error of the right kind (the same on every engine), never a panic. Damaged trace
//! instructions in program files are in `vm/tests/node_trace.rs`.

use btvm::Limits;
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::scenario::{self, parse_scenario, run_session, Session};
use btvm_compiler::source::FileId;

use super::load_ok;

#[test]
fn a_trace_line_without_a_known_level_is_a_syntax_error() {
    for text in [
        "trace\n",
        "trace calls\n",
        "trace nodes nodes\n",
        "trace \u{1b}[2J\n",
        &format!("trace {}\n", "n".repeat(100_000)),
    ] {
        let d = parse_scenario(FileId(0), text).expect_err(text);
        // The lexer refuses a control character before the directive sees it.
        assert!(
            matches!(d[0].kind, ErrorKind::Syntax | ErrorKind::BadToken),
            "{text:?}: {:?} {}",
            d[0].kind,
            d[0].message
        );
        assert!(!d[0].message.contains('\u{1b}'), "{}", d[0].message);
        assert!(d[0].message.len() < 1_000, "{} bytes", d[0].message.len());
    }
    let scn = parse_scenario(FileId(0), "trace nodes\nticks 2\n").unwrap();
    assert!(scn.trace_nodes);
}

/// `Limits::max_tick_instructions` between the ordinary program's proven budget and the traced
/// one's: the ordinary run goes on, the traced one is refused with `ProgramTooLarge` by the
/// reference and the compiled engines alike (the reference asks the same verifier).
#[test]
fn a_traced_program_over_the_tick_budget_is_refused_by_every_engine() {
    let tree = load_ok(&[(
        "a.bt",
        b"sequence {\n  action roam\n  action fight\n  selector { action heal\n action flee }\n}\n",
    )]);
    let plain = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
    let traced = btvm_compiler::lower::lower_traced(&tree, &Limits::default(), None).unwrap();
    assert!(traced.tick_budget() > plain.tick_budget());
    let session = Session {
        limits: Limits {
            max_tick_instructions: plain.tick_budget(),
            ..Limits::default()
        },
        ..Session::default()
    };
    let mut scn = parse_scenario(FileId(0), "ticks 2\n").unwrap();
    let engines = scenario::EngineKind::ALL
        .into_iter()
        .filter(|&e| cfg!(feature = "jit") || e != scenario::EngineKind::Native);
    for engine in engines {
        scn.trace_nodes = false;
        let ran = run_session(&tree, &scn, engine, &session);
        assert!(ran.is_ok(), "{engine:?}: {:?}", ran.err());
        scn.trace_nodes = true;
        let d = run_session(&tree, &scn, engine, &session).expect_err("over the budget");
        assert_eq!(
            d.kind,
            ErrorKind::ProgramTooLarge,
            "{engine:?}: {}",
            d.message
        );
    }
}
