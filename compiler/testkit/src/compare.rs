//! The differential check: one scenario run on the reference interpreter and on compiled
//! engines (the vm, native code, the two taking turns, native code in small chunks), their
//! traces compared. Shared by the equivalence tests and the fuzz targets, so
//! both judge "the engines agree" the same way (`spec/semantics.md` §1: two engines are
//! equivalent when their traces are identical, and they accept or reject a tree alike).
//!
//! This module only runs and compares; it never prints and never panics on any tree or
//! scenario.

use std::fmt;

#[cfg(feature = "jit")]
use btvm::native::{NativeCode, NativeConfig};

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::Tree;
use btvm_compiler::scenario::{run, run_taking_turns, EngineKind, Scenario, Trace};

/// The name [`Mismatch::engine`] gives the vm and native code taking turns.
pub const SWITCHING: &str = "vm+native";

/// An engine a test runs scenarios on: one of the library's engines, or the vm and native code
/// taking turns on the same state blocks (each call an agent gets, tick or entry, goes to the
/// other engine than its previous one), which proves the two share one state layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contender {
    /// One engine.
    Engine(EngineKind),
    /// The vm and native code taking turns.
    Switching,
}

impl Contender {
    /// Every engine and the switching pair, in the order the conformance runner tries them
    /// (without feature `jit`: the reference and the vm).
    #[cfg(feature = "jit")]
    pub const ALL: &'static [Contender] = &[
        Contender::Engine(EngineKind::Reference),
        Contender::Engine(EngineKind::Vm),
        Contender::Engine(EngineKind::Native),
        Contender::Switching,
    ];
    /// Every engine and the switching pair, in the order the conformance runner tries them
    /// (without feature `jit`: the reference and the vm).
    #[cfg(not(feature = "jit"))]
    pub const ALL: &'static [Contender] = &[
        Contender::Engine(EngineKind::Reference),
        Contender::Engine(EngineKind::Vm),
    ];

    /// The contender's name (`vm+native` for the switching pair).
    pub fn name(self) -> &'static str {
        match self {
            Contender::Engine(e) => e.name(),
            Contender::Switching => SWITCHING,
        }
    }

    /// Runs `scenario` on `tree` ([`run`], or [`run_taking_turns`] for the switching pair).
    pub fn run(self, tree: &Tree, scenario: &Scenario) -> Result<Trace, Diagnostic> {
        match self {
            Contender::Engine(e) => run(tree, scenario, e),
            Contender::Switching => run_taking_turns(
                tree,
                scenario,
                &[btvm::EngineKind::Vm, btvm::EngineKind::Native],
            ),
        }
    }
}

/// Which engines [`compare`] runs against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contenders {
    /// The bytecode vm.
    pub vm: bool,
    /// Native code.
    pub native: bool,
    /// The vm and native code taking turns on the same state blocks.
    pub switching: bool,
    /// Native code compiled as for very large programs: every function split into chunks of
    /// three instructions, the running-list bookkeeping out of line (chunk drivers and entry
    /// dispatch exercised on small trees).
    pub chunked_native: bool,
}

/// The compiled engines this build has: the vm, and native code with feature `jit`.
#[cfg(feature = "jit")]
pub const COMPILED: &[btvm::EngineKind] = &[btvm::EngineKind::Vm, btvm::EngineKind::Native];
/// The compiled engines this build has: the vm, and native code with feature `jit`.
#[cfg(not(feature = "jit"))]
pub const COMPILED: &[btvm::EngineKind] = &[btvm::EngineKind::Vm];

/// Whether this build has native code (feature `jit`).
const JIT: bool = cfg!(feature = "jit");

impl Contenders {
    /// Every compiled engine and variant this build has (native code only with feature `jit`).
    pub const ALL: Contenders = Contenders {
        vm: true,
        native: JIT,
        switching: JIT,
        chunked_native: JIT,
    };

    /// The bytecode vm only (no machine code is generated: fast).
    pub const VM: Contenders = Contenders {
        vm: true,
        native: false,
        switching: false,
        chunked_native: false,
    };
}

/// The first disagreement found by [`compare`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The engine that disagreed with the reference (`vm`, `native`, `vm+native`,
    /// `native/chunked`).
    pub engine: &'static str,
    /// What differs: the first differing trace line, or that only one of them ran the tree.
    pub what: String,
    /// The reference's trace, or its error.
    pub reference: String,
    /// The other engine's trace, or its error.
    pub other: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reference vs {}: {}\n--- reference ---\n{}\n--- {} ---\n{}",
            self.engine, self.what, self.reference, self.engine, self.other
        )
    }
}

impl std::error::Error for Mismatch {}

/// Runs `scenario` on the reference and on every engine `contenders` names, and returns the
/// first engine whose outcome differs: a different trace, a run where the other failed, or a
/// failure of a different [`ErrorKind`](btvm_compiler::diag::ErrorKind).
pub fn compare(tree: &Tree, scenario: &Scenario, contenders: Contenders) -> Result<(), Mismatch> {
    let reference = run(tree, scenario, EngineKind::Reference);
    let engines = [
        (contenders.vm, EngineKind::Vm),
        (contenders.native, EngineKind::Native),
    ];
    for (_, kind) in engines.iter().filter(|(on, _)| *on) {
        judge(kind.name(), &reference, &run(tree, scenario, *kind))?;
    }
    if contenders.switching {
        let switching = Contender::Switching;
        judge(SWITCHING, &reference, &switching.run(tree, scenario))?;
    }
    #[cfg(feature = "jit")]
    if contenders.chunked_native {
        judge("native/chunked", &reference, &run_chunked(tree, scenario))?;
    }
    Ok(())
}

fn judge(
    engine: &'static str,
    reference: &Result<Trace, Diagnostic>,
    other: &Result<Trace, Diagnostic>,
) -> Result<(), Mismatch> {
    let what = match (reference, other) {
        (Ok(a), Ok(b)) => match a.diff(b) {
            None => return Ok(()),
            Some(d) => d,
        },
        (Err(a), Err(b)) if a.kind == b.kind => return Ok(()),
        (Err(a), Err(b)) => format!("both fail, with {:?} and {:?}", a.kind, b.kind),
        _ => "one runs the tree and the other does not".to_string(),
    };
    Err(Mismatch {
        engine,
        what,
        reference: outcome(reference),
        other: outcome(other),
    })
}

fn outcome(r: &Result<Trace, Diagnostic>) -> String {
    match r {
        Ok(t) => t.to_string(),
        Err(d) => format!("error {:?}: {}", d.kind, d.message),
    }
}

/// Native code with tiny chunks and the bookkeeping out of line, run through `scenario`.
#[cfg(feature = "jit")]
fn run_chunked(tree: &Tree, scenario: &Scenario) -> Result<Trace, Diagnostic> {
    use btvm_compiler::scenario::run_engines;
    let limits = btvm::Limits::default();
    let program = if scenario.trace_nodes {
        btvm_compiler::lower::lower_traced(tree, &limits, None)
    } else {
        btvm_compiler::lower::lower(tree, &limits)
    }
    .map_err(|mut d| d.swap_remove(0))?;
    // Whatever the size: this contender exists to run native code.
    let config = NativeConfig {
        max_chunk: 3,
        inline_below: 0,
        max_instructions: usize::MAX,
        ..NativeConfig::default()
    };
    let failed = |why: String| {
        Diagnostic::new(
            btvm_compiler::diag::ErrorKind::InvalidProgram,
            btvm_compiler::source::Span::DUMMY,
            format!("chunked native code is not available: {why}"),
        )
    };
    let code = NativeCode::compile(&program, &config).map_err(|e| failed(e.to_string()))?;
    let engine = btvm::Engine::with_native(&program, code).map_err(|e| failed(e.to_string()))?;
    Ok(run_engines(tree, &program, scenario, engine))
}
