//! What a command is given: a tree (loaded from its source and checked) or a compiled program
//! (a file written by `btvm compile`, told apart by its first bytes, `btvm::program::MAGIC`,
//! whatever its extension; decoded and verified by `btvm::Program::decode`). Each command
//! decides once, through [`Loaded`], what it does with either.
//!
//! This module only reads and dispatches; it never prints (its callers render what it
//! returns).

use std::io::Read as _;
use std::path::Path;

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::Tree;
use btvm_compiler::scenario::{
    stream_program, stream_session, EngineKind, Outcome, Outline, Scenario, Session, TraceSink,
};
use btvm_compiler::source::SourceMap;

/// A tree or a compiled program.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// A tree read from its source (boxed: a tree is much larger than a program handle).
    Tree(Box<Tree>),
    /// A verified program read from a program file.
    Program(btvm::Program),
}

/// Whether the file at `path` is a program file: it starts with `BTVMPROG`. A file that cannot
/// be read is not (the tree loader then says why).
pub fn is_program(path: &Path) -> bool {
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == btvm::program::MAGIC)
}

/// Reads and verifies the program file at `path` (at most `Limits::max_program_bytes`); the
/// error names the file.
pub fn read_program(path: &Path) -> Result<btvm::Program, String> {
    let limits = btvm::Limits::default();
    let bytes = btvm_compiler::source::read_file(path, limits.max_program_bytes as u64)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    btvm::Program::decode(&bytes, &limits)
        .map_err(|e| format!("`{}` is not a valid program: {e}", path.display()))
}

impl Loaded {
    /// The tree, if this is one.
    pub fn tree(&self) -> Option<&Tree> {
        match self {
            Loaded::Tree(t) => Some(t.as_ref()),
            Loaded::Program(_) => None,
        }
    }

    /// The names and model a scenario run uses.
    pub fn outline(&self) -> Result<Outline, Diagnostic> {
        match self {
            Loaded::Tree(t) => Ok(Outline::of_tree(t)),
            Loaded::Program(p) => Outline::of_program(p),
        }
    }

    /// The program: the tree lowered with the source positions of `sources`, or the program
    /// itself.
    pub fn program(&self, sources: &SourceMap) -> Result<btvm::Program, Vec<Diagnostic>> {
        match self {
            Loaded::Tree(t) => {
                btvm_compiler::lower::lower_with_sources(t, &btvm::Limits::default(), sources)
            }
            Loaded::Program(p) => Ok(p.clone()),
        }
    }

    /// Runs the scenario, handing the trace to `sink` (`stream_session` or `stream_program`).
    pub fn stream(
        &self,
        scenario: &Scenario,
        engine: EngineKind,
        session: &Session,
        sink: &mut dyn TraceSink,
    ) -> Result<Outcome, Diagnostic> {
        match self {
            Loaded::Tree(t) => stream_session(t, scenario, engine, session, sink),
            Loaded::Program(p) => stream_program(p, scenario, engine, session, sink),
        }
    }
}

/// What `btvm check` says of a valid program: its model, size and state per agent.
pub fn describe(program: &btvm::Program) -> String {
    use btvm::program::ProgramModel as M;
    let model = match program.model() {
        M::RunningList => "running-list",
        M::Cursor { .. } => "cursor",
        M::Decider { .. } => "decider",
        M::Lifecycle => "lifecycle",
        M::Selection { .. } => "selection",
        _ => "unknown",
    };
    let nodes = match program.nodes().nodes.len() {
        0 => "no node table".to_string(),
        n => format!("{n} nodes"),
    };
    let traced = match program.traced() {
        true => ", traced",
        false => "",
    };
    format!(
        "program: {model} model, {} instructions, {nodes}, {} state bytes per agent{traced}",
        program.code().len(),
        program.state_size()
    )
}
