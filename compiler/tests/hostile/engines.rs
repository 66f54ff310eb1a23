//! Engines' budgets (issue 25, findings 6 and 7): every engine refuses the trees whose ticks
//! the verifier cannot bound within `Limits::max_tick_instructions`, the reference included,
//! and native code is not compiled for programs too large to compile quickly (the engine runs
//! them on the vm and says why).

use std::time::{Duration, Instant};

use btvm::Limits;
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::reference::Interpreter;
use btvm_compiler::scenario::{self, parse_scenario};
use btvm_compiler::source::FileId;

use super::load_ok;

/// A Drag[en]gine cursor tree whose rule loop may run `limit` times a tick.
fn cursor_tree(limit: u32) -> String {
    format!(
        "btvm 1;\ndialect dragengine;\nmodel cursor {limit};\nimport action a 0..0;\n\
         root main = sequence cursor loop {{ action a() action a() }}\n"
    )
}

/// Finding 6: with a run-away limit of `u32::MAX` the vm and native code refuse the program
/// (its ticks may run ~2^33 instructions, beyond the 64 M budget the verifier proves), but
/// the reference ran it until it aborted at 4.6 GB. Now the reference refuses it first, with
/// the error `btvm run --engine vm` gives, quickly; under a sane limit all run alike.
#[test]
fn reference_with_a_huge_runaway_limit_is_refused_like_the_vm() {
    let src = cursor_tree(u32::MAX);
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    let scn = parse_scenario(FileId(0), "ticks 2\nanswer a = running\n").unwrap();
    let started = Instant::now();
    let vm = scenario::run(&tree, &scn, scenario::EngineKind::Vm).unwrap_err();
    let reference = scenario::run(&tree, &scn, scenario::EngineKind::Reference).unwrap_err();
    assert_eq!(vm.kind, ErrorKind::ProgramTooLarge, "{}", vm.message);
    assert_eq!(reference.kind, vm.kind);
    assert_eq!(reference.message, vm.message);
    assert!(
        reference.message.contains("budget"),
        "{}",
        reference.message
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "refusing took {:?}",
        started.elapsed()
    );
    // The interpreter itself refuses it, whoever builds it.
    let e = Interpreter::new(&tree).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ProgramTooLarge);

    // The same tree with a limit the budget allows runs, the reference and the vm alike.
    let src = cursor_tree(1000);
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    let trace = super::run_everywhere(&tree, "ticks 2\nanswer a = running\n");
    assert!(trace.contains("a()"), "{trace}");
}

/// The reference honours the limits it is given, as the verifier does: a budget a tick
/// exceeds refuses the tree, a larger one accepts it. The bound is the verifier's (the
/// program's `tick_budget`), not a second computation on the tree.
#[test]
fn reference_refuses_exactly_where_the_tick_budget_ends() {
    let src = cursor_tree(1000);
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
    let budget = program.tick_budget();
    let at = Limits {
        max_tick_instructions: budget,
        ..Limits::default()
    };
    assert!(Interpreter::with_limits(&tree, &at).is_ok());
    let below = Limits {
        max_tick_instructions: budget - 1,
        ..Limits::default()
    };
    let e = Interpreter::with_limits(&tree, &below).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ProgramTooLarge, "{}", e.message);
    let vm = btvm_compiler::lower::lower(&tree, &below).unwrap_err();
    assert_eq!(vm[0].message, e.message);
}

/// Finding 7: native compile time was unbounded on legal trees (a 7.6 M-instruction program
/// took 135 s and 1.2 GB). A program over `NativeConfig::max_instructions` is refused at once
/// with `TooLarge`, nothing compiled; at the threshold it compiles. A small threshold keeps
/// the test fast; the default is measured in `BENCHMARKS.md`.
#[cfg(feature = "jit")]
#[test]
fn native_code_over_the_size_threshold_is_not_compiled() {
    use btvm::native::{NativeCode, NativeConfig, NativeErrorKind};
    let src = cursor_tree(10);
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
    let size = program.code().len();
    let small = NativeConfig {
        max_instructions: size - 1,
        ..NativeConfig::default()
    };
    let started = Instant::now();
    let e = NativeCode::compile(&program, &small).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(e.kind(), NativeErrorKind::TooLarge);
    assert!(e.to_string().contains("max_instructions"), "{e}");
    assert_eq!(small.check_size(&program).unwrap_err(), e);
    let exact = NativeConfig {
        max_instructions: size,
        ..NativeConfig::default()
    };
    assert!(NativeCode::compile(&program, &exact).is_ok());
}

/// Finding 7, the engine's side: a program over the default threshold runs on the vm when
/// native code is asked for, and the engine (and `scenario::run_session`'s outcome, which
/// `btvm run` prints as a note) says why, as a value the caller can match on.
#[cfg(feature = "jit")]
#[test]
fn native_engine_over_the_size_threshold_falls_back_to_the_vm() {
    use btvm::native::NativeConfig;
    // Sequences of 16 children (Unvanquished takes at most 20), 16^4 actions in all: more
    // than one instruction per action, so over 65,536 instructions
    // (about 140,000; the default threshold is 100,000).
    fn nest(depth: u32, out: &mut String) {
        if depth == 0 {
            out.push_str("action a()\n");
            return;
        }
        out.push_str("sequence running-list {\n");
        for _ in 0..16 {
            nest(depth - 1, out);
        }
        out.push_str("}\n");
    }
    let mut src = format!("{}root main = ", super::BTN_HEADER);
    nest(4, &mut src);
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
    assert!(program.code().len() > NativeConfig::default().max_instructions);
    let started = Instant::now();
    let engine = btvm::Engine::new(&program, btvm::EngineKind::Native);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(engine.kind(), btvm::EngineKind::Vm);
    let why = engine.fallback().expect("a reason");
    assert_eq!(why.kind(), btvm::FallbackKind::TooLarge);

    let scn = parse_scenario(FileId(0), "ticks 1\nanswer a = success\n").unwrap();
    let native = scenario::run_session(
        &tree,
        &scn,
        scenario::EngineKind::Native,
        &scenario::Session::default(),
    )
    .expect("runs on the vm");
    let fallback = native
        .fallback
        .expect("the outcome says native code was not used");
    assert_eq!(fallback.kind(), btvm::FallbackKind::TooLarge);
    let vm = scenario::run(&tree, &scn, scenario::EngineKind::Vm).unwrap();
    assert_eq!(native.trace.to_string(), vm.to_string());
}
