//! `btvm run OLD --reload-at N NEW`: the old tree runs ticks `0..N`, its agents are carried
//! into the new tree's program (hot reload, `btvm::Reload`), and the new tree runs ticks
//! `N..` (either version may be a program file); one trace on standard output, and on standard error what each agent kept running
//! and what was reset. Compiled engines only (the reference keeps no state blocks).

use std::io::Write as _;
use std::process::ExitCode;

use btvm_compiler::scenario::{EngineKind, Reloaded, SaveFormat, Scenario, Session};
use btvm_compiler::source::SourceMap;

use crate::loaded::Loaded;

use crate::output::{Output, TraceOut};
use crate::render::Renderer;

/// One version of a reload: a tree and its sources, or a program file (no sources).
pub(crate) struct Version<'a> {
    pub loaded: &'a Loaded,
    pub sources: &'a SourceMap,
}

/// Runs `old` to tick `at`, reloads into `new`, runs `new` on; see the module docs.
pub(crate) fn run(
    (old, new): (Version<'_>, Version<'_>),
    scenario: &Scenario,
    engine: EngineKind,
    at: u32,
    stdout: &mut Output,
    out: &mut Renderer,
) -> ExitCode {
    if engine == EngineKind::Reference {
        out.error("`--reload-at` needs `--engine vm` or `--engine native`: hot reload carries state blocks, which the reference does not keep");
        return ExitCode::from(2);
    }
    let limits = btvm::Limits::default();
    let programs = (
        old.loaded.program(old.sources),
        new.loaded.program(new.sources),
    );
    let (old_program, new_program) = match programs {
        (Ok(a), Ok(b)) => (a, b),
        (Err(d), _) => {
            out.emit(old.sources, &d);
            return ExitCode::FAILURE;
        }
        (_, Err(d)) => {
            out.emit(new.sources, &d);
            return ExitCode::FAILURE;
        }
    };
    let first = Session {
        save_at: Some(at),
        save_format: Some(SaveFormat::Btvm),
        limits,
        ..Session::default()
    };
    let saved = match old
        .loaded
        .stream(scenario, engine, &first, &mut TraceOut(stdout))
    {
        Ok(o) => o.saved,
        Err(_) if stdout.failed().is_some() => return ExitCode::SUCCESS,
        Err(d) => {
            out.emit(old.sources, &[d]);
            return ExitCode::FAILURE;
        }
    };
    let Some(saved) = saved else {
        return ExitCode::FAILURE;
    };
    let second = Session {
        from: at.min(scenario.ticks),
        reload: Some(Reloaded {
            old: old_program.clone(),
            old_tree: old.loaded.tree().cloned(),
            saved,
            cell_by_cell: false,
        }),
        limits,
        ..Session::default()
    };
    let outcome = match new
        .loaded
        .stream(scenario, engine, &second, &mut TraceOut(stdout))
    {
        Ok(o) => o,
        Err(_) if stdout.failed().is_some() => return ExitCode::SUCCESS,
        Err(d) => {
            out.emit(new.sources, &[d]);
            return ExitCode::FAILURE;
        }
    };
    let mut err = std::io::stderr().lock();
    for (agent, c) in outcome.carried.iter().enumerate() {
        let kept = names(&new_program, &c.kept);
        let reset = names(&old_program, &c.reset);
        let _ = writeln!(
            err,
            "reload at tick {at}: agent {agent} kept {} running node(s){kept}; reset {}{reset}",
            c.kept.len(),
            c.reset.len()
        );
    }
    ExitCode::SUCCESS
}

/// `: node, node` for the table nodes `which` (empty for none).
fn names(program: &btvm::Program, which: &[u32]) -> String {
    let t = program.nodes();
    let shown: Vec<String> = which
        .iter()
        .filter_map(|&i| {
            let n = t.nodes.get(i as usize)?;
            let mut s = n.kind.clone();
            if let Some(name) = &n.name {
                s.push_str(&format!(" {name:?}"));
            }
            if let Some(file) = n.file.and_then(|f| t.files.get(f as usize)) {
                s.push_str(&format!(" @ {file}:{}:{}", n.line, n.column));
            }
            Some(s)
        })
        .collect();
    if shown.is_empty() {
        String::new()
    } else {
        format!(" ({})", shown.join(", "))
    }
}
