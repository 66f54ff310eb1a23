//! Hostile scenarios (issue 25, findings 5 and 12): sizes that would exhaust memory or time,
//! runs whose trace nobody can hold, and bytes that are not UTF-8. Every case ends in a
//! positioned error of the right kind, or a run that stops as soon as its output does, quickly.
//! Attacks on the `btvm` command itself are in `compiler/cli/tests/hostile.rs`.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use btvm::{Batch, EngineKind, Limits, VmError};
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::scenario::{
    self, load_scenario, parse_scenario, parse_scenario_with, run_session, stream_session,
    Scenario, Session, Trace, TraceSink,
};
use btvm_compiler::source::{FileId, SourceMap};

use super::load_ok;

/// Generous: CI runs debug builds on two shared cores.
const QUICK: Duration = Duration::from_secs(10);

/// The engines of `btvm run` that every build has (native code needs feature `jit`).
const ENGINES: [scenario::EngineKind; 2] =
    [scenario::EngineKind::Reference, scenario::EngineKind::Vm];

/// A one-action Unvanquished tree: one host call and one root status per agent and tick.
fn roam() -> btvm_compiler::ir::Tree {
    load_ok(&[("a.bt", b"selector {\n  action roam\n}\n")])
}

/// The kind and `line:col` of the first error parsing `text` within `limits`, and how long
/// parsing took.
fn parse_err(text: &str, limits: &Limits) -> (ErrorKind, String, Duration) {
    let mut sources = SourceMap::new();
    let file = sources.add("s.scn", text.to_string());
    let start = Instant::now();
    let d = parse_scenario_with(file, text, limits)
        .map(|_| ())
        .expect_err("the scenario parsed but should not have")
        .swap_remove(0);
    let took = start.elapsed();
    let at = sources.locate(d.span);
    (d.kind, at.trim_start_matches("s.scn:").to_string(), took)
}

#[test]
fn a_billion_agents_is_refused_at_the_number() {
    let (kind, at, took) = parse_err("ticks 1\nagents 1000000000\n", &Limits::default());
    assert_eq!((kind, at.as_str()), (ErrorKind::ScenarioTooLarge, "2:8"));
    assert!(took < QUICK, "{took:?}");
    // The default limit itself is fine.
    let max = Limits::default().max_agents;
    let scn = parse_scenario(FileId(0), &format!("agents {max}\nticks 1\n")).unwrap();
    assert_eq!(scn.agents, max);
}

#[test]
fn four_billion_ticks_is_refused_at_the_number() {
    let (kind, at, took) = parse_err("ticks 4294967295\n", &Limits::default());
    assert_eq!((kind, at.as_str()), (ErrorKind::ScenarioTooLarge, "1:7"));
    assert!(took < QUICK, "{took:?}");
}

#[test]
fn too_many_agent_ticks_is_refused_at_the_last_size() {
    // Each within its own limit; together 10^9 agent-ticks, ten times the default bound.
    let (kind, at, _) = parse_err(
        "agents 1000 # many\nticks 1000000\nanswer roam = success\n",
        &Limits::default(),
    );
    assert_eq!((kind, at.as_str()), (ErrorKind::ScenarioTooLarge, "2:7"));
}

#[test]
fn a_server_tightens_the_scenario_limits() {
    let tight = Limits {
        max_agents: 4,
        max_ticks: 100,
        max_agent_ticks: 200,
        ..Limits::default()
    };
    assert_eq!(parse_err("agents 5\n", &tight).1, "1:8");
    assert_eq!(parse_err("ticks 101\n", &tight).1, "1:7");
    assert_eq!(parse_err("agents 4\nticks 100\n", &tight).1, "2:7");
    assert!(parse_scenario_with(FileId(0), "agents 4\nticks 50\n", &tight).is_ok());
}

#[test]
fn scenarios_grown_after_parsing_are_refused_before_anything_is_allocated() {
    // As `btvm run --agents` or a program building its own scenario would grow them.
    let tree = roam();
    let grown = [
        Scenario {
            agents: 1_000_000_000,
            ..Scenario::default()
        },
        Scenario {
            ticks: u32::MAX,
            ..Scenario::default()
        },
        Scenario {
            agents: 1_000,
            ticks: 1_000_000,
            ..Scenario::default()
        },
    ];
    for scn in &grown {
        for engine in ENGINES {
            let start = Instant::now();
            let err = run_session(&tree, scn, engine, &Session::default()).unwrap_err();
            assert_eq!(err.kind, ErrorKind::ScenarioTooLarge, "{}", err.message);
            assert!(start.elapsed() < QUICK, "{:?}", start.elapsed());
        }
    }
}

/// A tree whose state is over 64 KiB per agent, so that `u32::MAX` agents need more than
/// 2^48 bytes: more than any address space, whatever the system's overcommit policy.
fn wide_state_program() -> btvm::Program {
    let mut src = String::from(
        "btvm 1;\ndialect unvanquished;\nimport action roam 0..0 long;\n\
         root main = selector running-list {\n",
    );
    for _ in 0..12_000 {
        src.push_str("  cooldown 100 { action roam() }\n");
    }
    src.push_str("}\n");
    let tree = load_ok(&[("a.btn", src.as_bytes())]);
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).unwrap();
    assert!(program.state_size() > 64 << 10, "{}", program.state_size());
    program
}

#[test]
fn agents_whose_memory_cannot_be_had_are_an_error_not_an_abort() {
    let program = wide_state_program();
    // The batch a server allocates.
    let start = Instant::now();
    match Batch::with_engine(&program, u32::MAX, EngineKind::Vm) {
        Err(VmError::OutOfMemory { agents }) => assert_eq!(agents, u32::MAX),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!(
            "a batch of u32::MAX agents of {} bytes",
            program.state_size()
        ),
    }
    assert!(start.elapsed() < QUICK, "{:?}", start.elapsed());
}

/// A sink that fails after `keep` lines, counting every line it is offered.
struct StopsAfter {
    keep: usize,
    offered: usize,
}

impl TraceSink for StopsAfter {
    fn line(&mut self, _line: &str) -> io::Result<()> {
        self.offered += 1;
        if self.offered > self.keep {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        Ok(())
    }
}

#[test]
fn a_million_tick_run_stops_as_soon_as_its_sink_does() {
    // 100 agents x a million ticks, the default limits: 3 x 10^8 lines, far more than a
    // debug build could run in the time bound. The sink takes a thousand and then fails; the
    // run must offer it exactly one more line and stop.
    let tree = roam();
    let scn = parse_scenario(FileId(0), "agents 100\nticks 1000000\n").unwrap();
    for engine in ENGINES {
        let mut sink = StopsAfter {
            keep: 1000,
            offered: 0,
        };
        let start = Instant::now();
        let err = stream_session(&tree, &scn, engine, &Session::default(), &mut sink).unwrap_err();
        let took = start.elapsed();
        assert_eq!(err.kind, ErrorKind::Io, "{}", err.message);
        assert_eq!(sink.offered, 1001, "{}", engine.name());
        assert!(took < QUICK, "{}: {took:?}", engine.name());
    }
}

#[test]
fn a_streamed_trace_is_the_kept_trace() {
    // Streaming changes where lines go, not which: two agents, entries, resets, inputs.
    let tree = load_ok(&[("a.bt", include_bytes!("../../../spec/examples/guard.bt"))]);
    let text = format!(
        "{}agents 2\nat 4 reset\nanswer fight agent 1 = success\n",
        include_str!("../../../spec/examples/guard.scn")
    );
    let scn = parse_scenario(FileId(0), &text).unwrap();
    for engine in ENGINES {
        let kept = run_session(&tree, &scn, engine, &Session::default()).unwrap();
        let mut streamed = Trace::new();
        let outcome = stream_session(&tree, &scn, engine, &Session::default(), &mut streamed)
            .expect("the run streams");
        assert!(outcome.trace.lines().is_empty());
        assert!(kept.trace.lines().len() > 2 * 12 * 2, "{}", kept.trace);
        assert_eq!(streamed, kept.trace, "{}", engine.name());
    }
}

#[test]
fn invalid_utf8_in_a_scenario_is_positioned_at_the_first_bad_byte() {
    let mut sources = SourceMap::new();
    let bytes = b"ticks 2\nanswer roam = \xff success\n".to_vec();
    let d = load_scenario(Path::new("s.scn"), bytes, &mut sources, &Limits::default())
        .unwrap_err()
        .swap_remove(0);
    assert_eq!(d.kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d.span), "s.scn:2:15");
    // A truncated sequence at the very end, too.
    let d = load_scenario(
        Path::new("t.scn"),
        b"ticks 2 # \xe2\x82".to_vec(),
        &mut sources,
        &Limits::default(),
    )
    .unwrap_err()
    .swap_remove(0);
    assert_eq!(sources.locate(d.span), "t.scn:1:11");
    // Valid bytes still parse.
    let scn = load_scenario(
        Path::new("u.scn"),
        "ticks 2 # ünïcödé\n".into(),
        &mut sources,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(scn.ticks, 2);
}

#[test]
fn oversized_scenario_files_are_refused_up_front() {
    let limits = Limits {
        max_source_bytes: 1 << 10,
        ..Limits::default()
    };
    let mut sources = SourceMap::new();
    let bytes = "ticks 2\n".repeat(1000).into_bytes();
    let d = load_scenario(Path::new("s.scn"), bytes, &mut sources, &limits)
        .unwrap_err()
        .swap_remove(0);
    assert_eq!(d.kind, ErrorKind::SourceTooLarge);
    assert_eq!(sources.locate(d.span), "s.scn:1:1");
}
