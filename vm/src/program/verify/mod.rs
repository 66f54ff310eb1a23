//! The verifier: decides whether a [`ProgramParts`] may run.
//!
//! It proves, without running anything:
//! - the state layout's fields lie inside the block and do not overlap;
//! - every function is a non-empty range of code, and functions do not overlap;
//! - every operand index (bit, timer, import, function, counter, variable, string, action) is in
//!   range, and every call passes an arity its import accepts, to an import of the right kind;
//! - every jump stays inside its function and goes **forward**, so each function is a DAG;
//! - the operand stack never underflows, never exceeds the limit, has one depth at every
//!   instruction, and is empty at node-level instructions;
//! - continuations are well formed: every node-level instruction names its successors
//!   explicitly; no code falls off the end of a function; `finish` only ends entries and
//!   `return` only ends subtrees;
//! - subtree calls form no cycle, so the call depth is bounded;
//! - cursor programs (`ProgramModel::Cursor`) have one entry function, a rule table whose
//!   labels lie in it, a cursor field wide enough for every rule and a flags byte; cursor
//!   instructions appear only in cursor programs. They start with their only
//!   `cursor.dispatch`, no rule label points at it, and their only other backward control
//!   flow is `cursor.move` through the rule table; every `cursor.move` counts a rule run on a
//!   counter the engine owns and zeroes per tick, halting at the run-away limit, so a tick runs
//!   at most `limit + 1` forward paths;
//! - decider programs (`ProgramModel::Decider`) have one entry function, a flags byte, at most
//!   32 stimuli and their header, group and stimulus regions inside the block; their only
//!   backward control flow is `dec.redecide`, which counts every jump on a counter the engine
//!   owns and zeroes per tick and leaves through its forward guard label past the limit, so a
//!   tick runs at most `limit + 1` forward paths; group, child, timer and phase operands are in
//!   range; decider instructions appear only in decider programs;
//! - lifecycle and selection programs (`ProgramModel::Lifecycle`, `ProgramModel::Selection`)
//!   have a flags byte, boolean variables stored in the state, and their variable, timestamp,
//!   record and leaf regions inside the block; record operands (bits, fields, ranges) lie inside
//!   the records region; event functions (`FunctionKind::Event`) appear only in them, with
//!   distinct names, and a lifecycle program has at most one restart function
//!   (`FunctionKind::Restart`), which no `call` reaches; record instructions appear only in them, lifecycle instructions only in
//!   lifecycle programs and selection instructions only in selection programs. A selection
//!   program's only backward control flow is `sel.visit`, counted like `dec.redecide`;
//! - the longest path through a tick (calls included) fits the per-tick instruction budget;
//! - the node table (`nodes`) is bounded and its indices and probes are in range (checked last).
//!
//! It never executes code and never panics, whatever the input.

use super::error::{ProgramError, ProgramErrorKind as K};
use super::isa::{Instr, OperandRef};
use super::{
    Function, FunctionKind, Layout, ProgramModel, ProgramParts, DECIDER_HEADER, GROUP_RECORD,
    MAX_CHILDREN, MAX_STATES, STAMP_RECORD, STIMULUS_RECORD,
};
use crate::{BinOp, ImportKind, Limits, Value};

mod code;
mod models;

use code::{body, calls, functions};
use models::{cursor, decider_layout, disjoint_in_block, record_operands, state_model};

/// What verification proved, kept by the program for the engines.
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts {
    /// Deepest operand stack.
    pub max_stack: u32,
    /// Deepest chain of subtree calls.
    pub max_calls: u32,
    /// Most instructions one tick can execute.
    pub tick_cost: u64,
}

fn err(kind: K, message: String) -> ProgramError {
    ProgramError::new(kind, message)
}

/// Verifies a program.
pub fn verify(p: &ProgramParts, limits: &Limits) -> Result<Facts, ProgramError> {
    if p.code.len() > limits.max_program_instructions {
        return Err(err(
            K::TooLarge,
            format!(
                "{} instructions; the limit is {}",
                p.code.len(),
                limits.max_program_instructions
            ),
        ));
    }
    if p.temps as usize > p.code.len() {
        // Each counter is zeroed by an instruction, so a program cannot need more counters
        // than instructions; this bounds the scratch memory by the program's size.
        return Err(err(
            K::TooLarge,
            format!("{} counters for {} instructions", p.temps, p.code.len()),
        ));
    }
    clock(p)?;
    layout(&p.layout, limits)?;
    decider_layout(p)?;
    tables(p)?;
    functions(p)?;
    cursor(p)?;
    state_model(p)?;
    let mut max_stack = 0;
    let mut targets = vec![false; p.code.len()];
    for (fi, f) in p.functions.iter().enumerate() {
        max_stack = max_stack.max(body(
            p,
            fi,
            f.start as usize,
            f.end as usize,
            &mut targets,
            limits,
        )?);
    }
    let (max_calls, tick_cost) = calls(p, limits)?;
    super::nodes::verify(p, limits)?;
    Ok(Facts {
        max_stack,
        max_calls,
        tick_cost,
    })
}

/// The time unit: 1 to [`crate::MAX_CLOCK`] units per millisecond, and 1 outside the
/// lifecycle model (only its time instructions scale `now`).
fn clock(p: &ProgramParts) -> Result<(), ProgramError> {
    let lifecycle = p.model == ProgramModel::Lifecycle;
    if p.clock == 0 || p.clock > crate::MAX_CLOCK || (p.clock != 1 && !lifecycle) {
        return Err(err(
            K::BadOperand,
            format!(
                "a clock of {} units per millisecond (1 to {} in the lifecycle model, else 1)",
                p.clock,
                crate::MAX_CLOCK
            ),
        ));
    }
    Ok(())
}

fn layout(l: &Layout, limits: &Limits) -> Result<(), ProgramError> {
    if l.size as usize > limits.max_state_bytes {
        return Err(err(
            K::TooLarge,
            format!(
                "{} bytes of state per agent; the limit is {}",
                l.size, limits.max_state_bytes
            ),
        ));
    }
    let bad = |m: String| Err(err(K::BadLayout, m));
    let mut regions: Vec<(&'static str, u64, u64)> = Vec::new();
    if !matches!(l.flags.width, 0 | 1) {
        return bad(format!("the flags field is {} bytes wide", l.flags.width));
    }
    regions.push(("flags", u64::from(l.flags.offset), u64::from(l.flags.width)));
    for (name, f) in [
        ("current", l.current),
        ("count", l.count),
        ("cursor", l.cursor),
        ("leaf", l.leaf),
    ] {
        if !matches!(f.width, 0 | 1 | 2 | 4) {
            return bad(format!("the {name} field is {} bytes wide", f.width));
        }
        regions.push((name, u64::from(f.offset), u64::from(f.width)));
    }
    if u64::from(l.actions) > l.current.max() {
        return bad(format!(
            "{} actions do not fit the current-action slot",
            l.actions
        ));
    }
    if l.bits > 0 && u64::from(l.capacity.min(l.bits)) > l.count.max() {
        return bad("the running-list count cannot hold the capacity".into());
    }
    if u64::from(l.leaves) > l.leaf.max() {
        return bad(format!(
            "{} leaves do not fit the current-leaf slot",
            l.leaves
        ));
    }
    regions.push(("list", u64::from(l.list), u64::from(l.list_bytes())));
    regions.push(("timers", u64::from(l.timers), 8 * u64::from(l.timer_count)));
    disjoint_in_block(regions, l)
}

fn tables(p: &ProgramParts) -> Result<(), ProgramError> {
    let mut seen = std::collections::HashSet::new();
    for s in &p.strings {
        if !seen.insert(s.as_str()) {
            return Err(err(
                K::BadOperand,
                format!("the string table lists {s:?} twice"),
            ));
        }
    }
    for v in &p.vars {
        if let Value::Str(s) = v {
            if s.0 as usize >= p.strings.len() {
                return Err(err(
                    K::IndexOutOfRange,
                    format!("a variable refers to string {}", s.0),
                ));
            }
        }
    }
    for i in &p.imports {
        if i.min_args > i.max_args {
            return Err(err(
                K::BadOperand,
                format!("import `{}` has min_args > max_args", i.name),
            ));
        }
    }
    Ok(())
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}
