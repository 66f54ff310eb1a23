//! What btvm's fuzz targets share: turning fuzzer bytes into source files, the checks every
//! accepted tree goes through, and a host that accepts any program.
//!
//! Every check here is an `assert!`: a failed assertion is a crash the fuzzer reports, exactly
//! like a panic inside btvm. Nothing here may reject input on its own; it only states what btvm
//! must guarantee for any input.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use btvm::{AgentId, EngineKind, ImportKind, Limits, Program};
use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::{Model, Tree};
use btvm_compiler::load::{load, Format, LoadOptions};
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{FileId, MemFs, SourceMap};
use btvm_testkit::compare::{compare, Contenders};
use btvm_testkit::gen::quote;
pub use btvm_testkit::hosts::Permissive;

/// The byte that separates files in a parser target's input. It can never occur in valid
/// UTF-8, so a seed file is always one source file.
pub const FILE_SEPARATOR: u8 = 0xFF;

/// The names the input's files get, in order, within the directory `/f`: the first is the
/// main file, the others can be included from it (and from each other) by these names.
pub const FILE_STEMS: [&str; 4] = ["main", "b", "c", "d"];

/// An in-memory file system holding the input's files (split at [`FILE_SEPARATOR`], at most
/// four, the last one taking the rest), each named by [`FILE_STEMS`] with extension `ext`, and
/// the main file's path.
pub fn files(data: &[u8], ext: &str) -> (MemFs, PathBuf) {
    let mut fs = MemFs::new();
    let mut rest = data;
    for (n, stem) in FILE_STEMS.iter().enumerate() {
        let end = if n + 1 == FILE_STEMS.len() {
            rest.len()
        } else {
            rest.iter()
                .position(|&b| b == FILE_SEPARATOR)
                .unwrap_or(rest.len())
        };
        fs.insert(Path::new("/f").join(format!("{stem}.{ext}")), &rest[..end]);
        if end == rest.len() {
            break;
        }
        rest = &rest[end + 1..];
    }
    (fs, Path::new("/f").join(format!("main.{ext}")))
}

/// Loads the input as a tree in `format`: the front-end and the checker, as `btvm check` does.
/// Every error must be well formed; an accepted tree goes through [`exercise`].
pub fn load_input(data: &[u8], format: Format, ext: &str) {
    let (fs, main) = files(data, ext);
    let options = LoadOptions {
        format: Some(format),
        limits: Limits::default(),
        profile: None,
        deny_warnings: false,
        root: None,
    };
    let mut sources = SourceMap::new();
    match load(&main, &fs, &options, &mut sources) {
        Ok(tree) => exercise(&tree),
        Err(diags) => check_diagnostics(&diags, &sources),
    }
}

/// A rejected input gets at least one diagnostic, and each renders (with its position, when it
/// has one) without panicking.
pub fn check_diagnostics(diags: &[Diagnostic], sources: &SourceMap) {
    assert!(!diags.is_empty(), "an error without a diagnostic");
    for d in diags {
        let _ = d.display(sources).to_string();
        let _ = sources.locate(d.span);
    }
}

/// What every tree that loads must survive: it validates, lowers to a program (or is refused
/// with a diagnostic), the program survives its own file format, and the reference and the vm
/// give the same trace for a short scenario answering every import with changing values.
pub fn exercise(tree: &Tree) {
    assert_eq!(tree.validate(), Ok(()), "a loaded tree does not validate");
    let limits = Limits::default();
    let program = match btvm_compiler::lower::lower(tree, &limits) {
        Ok(p) => p,
        Err(diags) => {
            assert!(!diags.is_empty(), "lowering failed without a diagnostic");
            return;
        }
    };
    round_trip(&program);
    let text = scenario_for(tree);
    let scenario = match parse_scenario(FileId(0), &text) {
        Ok(s) => s,
        Err(d) => panic!("the fuzz scenario does not parse: {d:?}\n{text}"),
    };
    if let Err(m) = compare(tree, &scenario, Contenders::VM) {
        panic!("{m}\n--- scenario ---\n{text}");
    }
}

/// A verified program's file decodes to a program with the same file, and it disassembles.
pub fn round_trip(program: &Program) {
    let limits = Limits::default();
    let bytes = program.encode();
    match Program::decode(&bytes, &limits) {
        // Compared as bytes: parts holding a NaN constant are never `==` to themselves.
        Ok(again) => assert!(
            again.encode() == bytes,
            "encode(decode(encode(p))) != encode(p)"
        ),
        Err(e) => panic!("a verified program's own file is rejected: {e}"),
    }
    let _ = program.to_string();
}

/// Runs `program` (verified) for a few ticks through the scenario driver's program path
/// (`scenario::run_program`, names from its `Outline`) with every decision flag and stimulus
/// its tree names give; it must end in a trace or an error, never a panic.
pub fn run_named(program: &Program) {
    let Ok(outline) = btvm_compiler::scenario::Outline::of_program(program) else {
        return;
    };
    let mut text = String::from("ticks 3\nagents 2\n");
    if !outline.flags.is_empty() {
        text.push_str(&format!("at 1 flags {}\n", outline.flags.join(", ")));
    }
    for s in &outline.stimuli {
        text.push_str(&format!("at 0 stimulus {s} for 100\n"));
    }
    // Names that do not lex as a scenario's are the parser's to refuse.
    let Ok(scn) = parse_scenario(FileId(0), &text) else {
        return;
    };
    let _ = btvm_compiler::scenario::run_program(
        program,
        &scn,
        btvm_compiler::scenario::EngineKind::Vm,
        &btvm_compiler::scenario::Session::default(),
    );
}

/// A scenario that runs every entry of `tree` for a few ticks on two agents and answers every
/// import with a cycle of different values (each status for actions; values of every type for
/// functions), so both outcomes of conditions and every action status are reached.
pub fn scenario_for(tree: &Tree) -> String {
    let mut s = String::from("agents 2\nticks 12\ntime 0 100\n");
    if let Model::Cursor { .. } = tree.config.model {
        s.push_str("at 7 reset\n");
    }
    for (k, e) in tree.roots.iter().enumerate().skip(1).take(4) {
        let _ = writeln!(s, "at {} entry {}", 2 * k, quote(&e.name));
    }
    for (n, import) in tree.imports.iter().enumerate() {
        let answers = match (import.kind, n % 3) {
            (ImportKind::Action, 0) => "cycle running, success, failure",
            (ImportKind::Action, 1) => "cycle success, running, running, failure",
            (ImportKind::Action, _) => "cycle failure, success",
            (ImportKind::Function, 0) => "cycle 0, 1, 2, -1",
            (ImportKind::Function, 1) => "cycle true, false, 0.5, \"x\"",
            (ImportKind::Function, _) => "cycle 1.5, -0.0, 3",
        };
        let _ = writeln!(s, "answer {} = {answers}", quote(&import.name));
    }
    s
}

/// Everything one run of a program on one engine produced: every tick's status (or error),
/// and every agent's state block at the end.
#[derive(Debug, PartialEq, Eq)]
pub struct RunRecord {
    /// One line per call: tick, agent, entry and its outcome.
    pub calls: Vec<String>,
    /// The agents' state blocks after the last tick.
    pub states: Vec<Vec<u8>>,
}

/// Runs `program` on `kind` for `agents` agents over `ticks` ticks (the main tree, then every
/// entry), with a [`Permissive`] host seeded with `seed`. Returns `None` when the engine is
/// not available (native code that could not be produced; the reason is not a bug).
pub fn run_program(
    program: &Program,
    kind: EngineKind,
    agents: u32,
    ticks: i64,
    seed: u64,
) -> Option<RunRecord> {
    let mut host = Permissive::new(seed);
    if program.bind(&mut host).is_err() {
        return None;
    }
    let mut engine = btvm::Engine::new(program, kind);
    if engine.fallback().is_some() && kind == EngineKind::Native {
        return None;
    }
    let entries: Vec<String> = program.entries().map(str::to_string).collect();
    let mut states: Vec<Vec<u8>> = (0..agents).map(|_| program.new_state()).collect();
    let mut calls = Vec::new();
    for tick in 0..ticks {
        let now = tick * 70 - 100;
        for (i, state) in states.iter_mut().enumerate() {
            let agent = AgentId(i as u32);
            let r = engine.tick(state, agent, &mut host, now);
            calls.push(format!("{tick} {i} main {r:?}"));
            for e in &entries {
                let r = engine.run_entry(e, state, agent, &mut host, now);
                calls.push(format!("{tick} {i} {e} {r:?}"));
            }
        }
    }
    Some(RunRecord { calls, states })
}
