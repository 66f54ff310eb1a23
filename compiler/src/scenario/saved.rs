//! What a saved run holds and how it is taken and given back: Drag\[en\]gine's cursor records
//! (the original's format, cursor model, every engine) or btvm's snapshot (every model, every
//! engine: the reference converts its states to and from the blocks of the program its tree
//! lowers to, `spec/bytecode.md` §9).
//!
//! This module only converts between an engine's agents and saved data; it never ticks and
//! never reads files (the CLI does).

use btvm::{AgentId, CursorSnapshot, SnapshotError, Status};

use super::engines::Engine;
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

/// Which format a saved run is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaveFormat {
    /// Drag\[en\]gine's element records, one per agent (cursor-model trees only; every engine).
    Cursor,
    /// btvm's snapshot ([`btvm::Snapshot`]): every model, on every engine.
    Btvm,
}

impl SaveFormat {
    /// The format a run saves in unless told: cursor records for cursor-model trees (as the
    /// original saves them), btvm's snapshot for every other model.
    pub fn default_for(cursor_model: bool) -> SaveFormat {
        if cursor_model {
            SaveFormat::Cursor
        } else {
            SaveFormat::Btvm
        }
    }
}

/// A saved run: every agent, in one of the two formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saved {
    /// Drag\[en\]gine cursor records, one per agent, in agent order.
    Cursors(Vec<CursorSnapshot>),
    /// A btvm snapshot's bytes ([`btvm::Snapshot::encode`]); read back against the program
    /// the tree lowers to, so a snapshot of another program or a damaged one is an error.
    Btvm(Vec<u8>),
}

impl Saved {
    /// Tells the two formats apart by content: a btvm snapshot starts with
    /// [`btvm::Snapshot::MAGIC`], cursor records with a 0 version byte.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Saved, SnapshotError> {
        if bytes.starts_with(btvm::Snapshot::MAGIC) {
            return Ok(Saved::Btvm(bytes));
        }
        let mut snaps = Vec::new();
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            let (snap, r) = CursorSnapshot::decode(rest)?;
            snaps.push(snap);
            rest = r;
        }
        Ok(Saved::Cursors(snaps))
    }

    /// The bytes of the saved run (cursor records one after the other, or the snapshot).
    pub fn to_bytes(&self) -> Result<Vec<u8>, SnapshotError> {
        match self {
            Saved::Btvm(bytes) => Ok(bytes.clone()),
            Saved::Cursors(snaps) => {
                let mut out = Vec::new();
                for s in snaps {
                    s.encode(&mut out)?;
                }
                Ok(out)
            }
        }
    }
}

/// The error for an engine without a program asked for btvm's snapshot (the run did not
/// ask for one: [`program_for`]).
fn no_program() -> Diagnostic {
    Diagnostic::new(
        ErrorKind::InvalidProgram,
        Span::DUMMY,
        "the run has no program to save or restore btvm snapshots with",
    )
}

/// A snapshot that could not be taken or given back.
pub(super) fn snapshot_error(agent: Option<u32>, e: SnapshotError) -> Diagnostic {
    let text = match agent {
        Some(a) => format!("agent {a}: {e}"),
        None => format!("the saved state: {e}"),
    };
    Diagnostic::new(ErrorKind::InvalidValue, Span::DUMMY, text)
}

/// Saves agents `0..agents` of `engine` in `format`; `last` holds each agent's last status.
pub(super) fn save(
    engine: &dyn Engine,
    agents: u32,
    format: SaveFormat,
    last: &[Status],
) -> Result<Saved, Diagnostic> {
    if format == SaveFormat::Cursor {
        return (0..agents)
            .map(|a| engine.snapshot(a).map_err(|e| snapshot_error(Some(a), e)))
            .collect::<Result<Vec<_>, _>>()
            .map(Saved::Cursors);
    }
    let program = engine.program_of().ok_or_else(no_program)?;
    let mut snap = btvm::Snapshot::new(program);
    for a in 0..agents {
        let state = engine
            .state_block(a)
            .map_err(|e| snapshot_error(Some(a), e))?;
        let status = last.get(a as usize).copied().unwrap_or(Status::Running);
        snap.push(AgentId(a), status, &state);
    }
    Ok(Saved::Btvm(snap.encode()))
}

/// Gives `saved` back to agents `0..agents` of `engine`; returns each agent's saved status
/// (btvm snapshots; `None` for cursor records, which hold none).
pub(super) fn restore(
    engine: &mut dyn Engine,
    agents: u32,
    saved: &Saved,
    limits: &btvm::Limits,
) -> Result<Option<Vec<Status>>, Diagnostic> {
    let count_error = |n: usize| {
        Diagnostic::new(
            ErrorKind::InvalidValue,
            Span::DUMMY,
            format!("the saved state holds {n} agents; the scenario runs {agents}"),
        )
    };
    match saved {
        Saved::Cursors(snaps) => {
            if snaps.len() != agents as usize {
                return Err(count_error(snaps.len()));
            }
            for (a, snap) in (0..agents).zip(snaps) {
                engine
                    .restore(a, snap)
                    .map_err(|e| snapshot_error(Some(a), e))?;
            }
            Ok(None)
        }
        Saved::Btvm(bytes) => {
            let program = engine.program_of().ok_or_else(no_program)?;
            let snap = btvm::Snapshot::decode(bytes, program, limits)
                .map_err(|e| snapshot_error(None, e))?;
            if snap.agents.len() != agents as usize {
                return Err(count_error(snap.agents.len()));
            }
            let mut last = vec![Status::Running; agents as usize];
            for r in &snap.agents {
                let a = r.id.0;
                let slot = last.get_mut(a as usize).ok_or_else(|| {
                    snapshot_error(
                        None,
                        SnapshotError::InvalidState(format!(
                            "agent {a} is not one of the scenario's {agents}"
                        )),
                    )
                })?;
                *slot = r.status;
                engine
                    .restore_block(a, &r.state)
                    .map_err(|e| snapshot_error(Some(a), e))?;
            }
            Ok(Some(last))
        }
    }
}

/// The program the reference engine converts its states with: the one the tree lowers to (the
/// traced lowering for a run that traces nodes, as the compiled engines run it), when the run
/// saves or restores a btvm snapshot; `None` otherwise (nothing is lowered).
pub(super) fn program_for(
    tree: &crate::ir::Tree,
    saving: Option<SaveFormat>,
    restoring: Option<&Saved>,
    trace_nodes: bool,
    limits: &btvm::Limits,
) -> Result<Option<btvm::Program>, Diagnostic> {
    let btvm = saving == Some(SaveFormat::Btvm) || matches!(restoring, Some(Saved::Btvm(_)));
    if !btvm {
        return Ok(None);
    }
    let program = if trace_nodes {
        crate::lower::lower_traced(tree, limits, None)
    } else {
        crate::lower::lower(tree, limits)
    };
    program.map(Some).map_err(|mut d| d.swap_remove(0))
}
