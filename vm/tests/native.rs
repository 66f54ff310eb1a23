//! The native engine's own contract, beyond trace equivalence (which `equivalence.rs`,
//! `conformance.rs` and `vm_batch.rs` prove): compiled code belongs to one program, a program
//! caches its compilation, a panicking host propagates its panic without corrupting the engine,
//! and compile statistics are reported. (That dropping code releases its memory is tested in
//! `native_memory.rs`, alone in its process so other tests cannot disturb the measurement.)
#![cfg(feature = "jit")] // native code only exists with feature `jit`

use std::panic::{catch_unwind, AssertUnwindSafe};

use btvm::native::{NativeCode, NativeConfig, NativeErrorKind, OptLevel, RegAlloc};
use btvm::{AgentId, Call, Engine, EngineKind, Host, Limits, Program, Status, Value};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;

const TREE_ALL: &str = include_str!("fixtures/vm_all.btn");

const TREE_SMALL: &str = r#"btvm 1;
dialect unvanquished;
import action say 1..2;
import function near 1..1;
root main = sequence running-list {
    condition (near(2) > 0.5)
    action say("a", near(1))
}
"#;

fn program(text: &str) -> Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("native.btn", text.to_string());
    let tree = canonical::parse(file, text, &limits)
        .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    btvm_compiler::lower::lower(&tree, &limits).unwrap_or_else(|d| panic!("{}", d[0].message))
}

/// Answers every call; panics on call number `panic_at` (counting from 1) if set.
#[derive(Default)]
struct Counter {
    calls: u32,
    panic_at: Option<u32>,
}

impl Counter {
    fn call(&mut self) {
        self.calls += 1;
        if self.panic_at == Some(self.calls) {
            panic!("host gave up at call {}", self.calls);
        }
    }
}

impl Host for Counter {
    fn action(&mut self, _: &Call<'_>) -> Status {
        self.call();
        Status::Running
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        self.call();
        Value::Float(f64::from(call.agent.0 % 3))
    }
}

#[test]
fn native_code_is_used_and_reported() {
    let p = program(TREE_ALL);
    let engine = Engine::new(&p, EngineKind::Native);
    assert_eq!(engine.kind(), EngineKind::Native);
    assert!(engine.fallback().is_none());
    let stats = p.native().expect("compiles on this machine").stats();
    assert_eq!(stats.instructions, p.code().len());
    assert!(stats.functions >= p.functions().len());
    assert!(stats.code_bytes > 0);
    // The cache: one compilation per program.
    assert!(std::ptr::eq(p.native().unwrap(), p.native().unwrap()));
    // Asking for the vm gives the vm.
    assert_eq!(Engine::new(&p, EngineKind::Vm).kind(), EngineKind::Vm);
}

#[test]
fn code_runs_only_the_program_it_was_compiled_from() {
    let a = program(TREE_ALL);
    let b = program(TREE_SMALL);
    let code = std::sync::Arc::new(NativeCode::compile(&a, &NativeConfig::default()).unwrap());
    assert!(Engine::with_native(&a, code.clone()).is_ok());
    let err = Engine::with_native(&b, code).unwrap_err();
    assert_eq!(err.kind(), NativeErrorKind::WrongProgram);
    assert!(err.to_string().contains("another program"), "{err}");
}

#[test]
fn every_config_gives_the_same_results() {
    let p = program(TREE_ALL);
    let configs = [
        NativeConfig::default(),
        NativeConfig {
            opt_level: OptLevel::Speed,
            regalloc: RegAlloc::SinglePass,
            max_chunk: 1,
            verify_ir: true,
            inline_below: 0,
            disassemble: true,
            max_instructions: usize::MAX,
            threads: 1,
        },
        NativeConfig {
            inline_below: 0,
            ..NativeConfig::default()
        },
        NativeConfig {
            max_chunk: 7,
            ..NativeConfig::default()
        },
        NativeConfig {
            max_chunk: 7,
            threads: 3,
            ..NativeConfig::default()
        },
    ];
    let codes: Vec<NativeCode> = configs
        .iter()
        .map(|c| NativeCode::compile(&p, c).expect("compiles"))
        .collect();
    assert!(
        codes[1].stats().functions > codes[0].stats().functions,
        "tiny chunks split the functions"
    );
    let mut engines: Vec<Engine> = codes
        .into_iter()
        .map(|c| Engine::with_native(&p, c).unwrap())
        .collect();
    engines.push(Engine::new(&p, EngineKind::Vm));
    let mut states: Vec<Vec<Vec<u8>>> = engines.iter().map(|_| vec![p.new_state(); 4]).collect();
    for tick in 0..60 {
        let mut seen = Vec::new();
        for (engine, states) in engines.iter_mut().zip(&mut states) {
            let mut host = Counter::default();
            let row: Vec<Status> = (0..4)
                .map(|a| {
                    engine
                        .tick(&mut states[a], AgentId(a as u32), &mut host, tick * 40)
                        .unwrap()
                })
                .collect();
            seen.push((row, host.calls));
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "tick {tick}: {seen:?}"
        );
    }
    assert!(
        states.windows(2).all(|w| w[0] == w[1]),
        "state blocks differ"
    );
}

#[test]
fn the_code_does_not_depend_on_the_number_of_threads() {
    let p = program(TREE_ALL);
    let compiled = |threads: usize| {
        let config = NativeConfig {
            max_chunk: 7,
            disassemble: true,
            threads,
            ..NativeConfig::default()
        };
        let code = NativeCode::compile(&p, &config).expect("compiles");
        let stats = code.stats();
        let listing = code.disassembly().unwrap_or_default().to_string();
        (stats.functions, stats.code_bytes, listing)
    };
    let alone = compiled(1);
    assert!(alone.0 > 8, "enough native functions to share: {}", alone.0);
    for threads in [2, 5, 0, 1_000] {
        let shared = compiled(threads);
        assert_eq!(shared.0, alone.0, "{threads} threads: functions");
        assert_eq!(shared.1, alone.1, "{threads} threads: code bytes");
        assert!(
            shared.2 == alone.2,
            "{threads} threads: the listings differ"
        );
    }
}

#[test]
fn a_panicking_host_panics_the_tick_and_the_engine_goes_on() {
    let p = program(TREE_ALL);
    // How many calls a clean first tick makes.
    let mut clean = Counter::default();
    let mut engine = Engine::new(&p, EngineKind::Native);
    let mut state = p.new_state();
    engine.tick(&mut state, AgentId(1), &mut clean, 0).unwrap();
    assert!(clean.calls >= 3, "{} calls", clean.calls);

    let mut host = Counter {
        calls: 0,
        panic_at: Some(2),
    };
    let mut state = p.new_state();
    let caught = catch_unwind(AssertUnwindSafe(|| {
        engine.tick(&mut state, AgentId(1), &mut host, 0)
    }));
    let payload = caught.expect_err("the host's panic reaches the caller");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(message, "host gave up at call 2");
    // No call was made after the one that panicked.
    assert_eq!(host.calls, 2);

    // The engine is still usable: a fresh agent ticks exactly as a clean one does.
    let mut again = Counter::default();
    let mut fresh = p.new_state();
    engine.tick(&mut fresh, AgentId(1), &mut again, 0).unwrap();
    assert_eq!(again.calls, clean.calls);
}
