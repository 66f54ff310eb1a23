//! What a scenario run needs to know about what it runs, from a tree or from a compiled
//! program alike: the model, the imports, the entry, variable, event, decision-flag and
//! stimulus names, each node's kind (node-level trace lines) and the argument names calls are
//! written with. [`Outline::of_tree`] and [`Outline::of_program`] are the only two sources;
//! the driver, the scripted host and the lints read nothing else, so a program file runs a
//! scenario exactly as its tree does.
//!
//! This module only describes; it never runs or lowers anything.

use btvm::program::{ArgNames, FunctionKind, ProgramModel};
use btvm::{Import, Program};

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Model, Tree};
use crate::source::Span;

/// A tree's or a program's names and model, as a scenario run uses them.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    /// The execution model (with its limits).
    pub model: Model,
    /// The import table, in import order.
    pub imports: Vec<Import>,
    /// The entry points' names; the first is the main tree.
    pub entries: Vec<String>,
    /// The variables' names, in variable order.
    pub vars: Vec<String>,
    /// Decider model: the decision flags' names (flag `k` at bit `k`).
    pub flags: Vec<String>,
    /// Decider model: the stimuli's names (stimulus `k` at index `k`).
    pub stimuli: Vec<String>,
    /// The events the tree uses (lifecycle and selection models).
    pub events: Vec<String>,
    /// Each node's kind keyword, by node index (empty when unknown: trace lines show `?`).
    pub kinds: Vec<String>,
    /// The argument names calls are written with, per import and argument count.
    pub args: Vec<ArgNames>,
    /// A program's: whether it was compiled with node tracing (a tree's: `false`; its run
    /// lowers the traced program when the scenario says `trace nodes`).
    pub traced: bool,
    /// Whether this describes a compiled program (which only the compiled engines run).
    pub compiled: bool,
}

impl Outline {
    /// The outline of `tree`.
    pub fn of_tree(tree: &Tree) -> Outline {
        Outline {
            model: tree.config.model,
            imports: tree.imports.clone(),
            entries: tree.roots.iter().map(|e| e.name.clone()).collect(),
            vars: tree.vars.iter().map(|v| v.name.clone()).collect(),
            flags: tree.flags.clone(),
            stimuli: tree.stimuli.clone(),
            events: crate::lower::event_names(tree),
            kinds: tree
                .nodes
                .iter()
                .map(|n| n.kind.keyword().to_string())
                .collect(),
            args: crate::lower::arg_names(tree),
            traced: false,
            compiled: false,
        }
    }

    /// The outline of `program`: its names come from its body and its node table (whose
    /// [`btvm::program::TreeNames`] carry the flag, stimulus and argument names). Fails only
    /// for a model this build does not know.
    pub fn of_program(program: &Program) -> Result<Outline, Diagnostic> {
        let model = match program.model() {
            ProgramModel::RunningList => Model::RunningList {
                capacity: program.layout().capacity,
            },
            ProgramModel::Cursor { limit } => Model::Cursor {
                runaway_limit: limit,
            },
            ProgramModel::Decider { limit } => Model::Decider {
                redecide_limit: limit,
            },
            ProgramModel::Lifecycle => Model::Lifecycle,
            ProgramModel::Selection { .. } => Model::Selection,
            other => {
                return Err(Diagnostic::new(
                    ErrorKind::Unsupported,
                    Span::DUMMY,
                    format!("a program of an unknown model ({other:?})"),
                ))
            }
        };
        let named = |kind: FunctionKind| {
            program
                .functions()
                .iter()
                .filter(move |f| f.kind == kind)
                .map(|f| f.name.clone())
        };
        let table = program.nodes();
        Ok(Outline {
            model,
            imports: program.imports().to_vec(),
            entries: named(FunctionKind::Entry).collect(),
            vars: program.parts().var_names.clone(),
            flags: table.names.flags.clone(),
            stimuli: table.names.stimuli.clone(),
            events: named(FunctionKind::Event).collect(),
            kinds: table.nodes.iter().map(|n| n.kind.clone()).collect(),
            args: table.names.args.clone(),
            traced: program.traced(),
            compiled: true,
        })
    }

    /// Whether the tree has an entry point named `name`.
    pub fn has_entry(&self, name: &str) -> bool {
        self.entries.iter().any(|e| e == name)
    }
}
