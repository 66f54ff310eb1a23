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
//! - the longest path through a tick (calls included) fits the per-tick instruction budget.
//!
//! It never executes code and never panics, whatever the input.

use super::error::{ProgramError, ProgramErrorKind as K};
use super::isa::{Instr, OperandRef};
use super::{
    FunctionKind, Layout, ProgramModel, ProgramParts, DECIDER_HEADER, GROUP_RECORD, MAX_CHILDREN,
    MAX_STATES, STAMP_RECORD, STIMULUS_RECORD,
};
use crate::{BinOp, ImportKind, Limits, Value};

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
    let mut regions: Vec<(&str, u64, u64)> = Vec::new();
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
    if let Some(at) = l.rng {
        regions.push(("rng", u64::from(at), 8));
    }
    regions.extend(state_regions(l));
    regions.retain(|r| r.2 > 0);
    for &(name, start, len) in &regions {
        if start + len > u64::from(l.size) {
            return bad(format!(
                "the {name} field ends past the {}-byte block",
                l.size
            ));
        }
    }
    regions.sort_by_key(|r| r.1);
    for w in regions.windows(2) {
        if w[0].1 + w[0].2 > w[1].1 {
            return bad(format!("the {} and {} fields overlap", w[0].0, w[1].0));
        }
    }
    Ok(())
}

/// The decider model's state regions (header, group records, stimulus records), inside the
/// block and clear of every other field; other models have none.
fn decider_layout(p: &ProgramParts) -> Result<(), ProgramError> {
    let l = &p.layout;
    let bad = |m: String| Err(err(K::BadLayout, m));
    if !matches!(p.model, ProgramModel::Decider { .. }) {
        if l.decider != 0 || l.groups != 0 || l.group_count != 0 || l.stimuli != 0 {
            return bad("decider-model state in a program of another model".into());
        }
        if p.stimuli != 0 {
            return Err(err(
                K::BadOperand,
                "stimuli declared in a program of another model".into(),
            ));
        }
        return Ok(());
    }
    if p.stimuli > crate::decider::MAX_FLAG_BITS {
        return Err(err(
            K::BadOperand,
            format!("{} stimuli; at most 32 may be declared", p.stimuli),
        ));
    }
    if l.flags.width != 1 {
        return bad("a decider program needs a flags byte".into());
    }
    let mut regions: Vec<(&str, u64, u64)> = vec![
        ("flags", u64::from(l.flags.offset), 1),
        (
            "current",
            u64::from(l.current.offset),
            u64::from(l.current.width),
        ),
        ("count", u64::from(l.count.offset), u64::from(l.count.width)),
        (
            "cursor",
            u64::from(l.cursor.offset),
            u64::from(l.cursor.width),
        ),
        ("list", u64::from(l.list), u64::from(l.list_bytes())),
        ("timers", u64::from(l.timers), 8 * u64::from(l.timer_count)),
        ("leaf", u64::from(l.leaf.offset), u64::from(l.leaf.width)),
        ("decider", u64::from(l.decider), u64::from(DECIDER_HEADER)),
        (
            "groups",
            u64::from(l.groups),
            u64::from(GROUP_RECORD) * u64::from(l.group_count),
        ),
        (
            "stimuli",
            u64::from(l.stimuli),
            u64::from(STIMULUS_RECORD) * u64::from(p.stimuli),
        ),
    ];
    if let Some(at) = l.rng {
        regions.push(("rng", u64::from(at), 8));
    }
    regions.extend(state_regions(l));
    regions.retain(|r| r.2 > 0);
    for &(name, start, len) in &regions {
        if start + len > u64::from(l.size) {
            return bad(format!(
                "the {name} field ends past the {}-byte block",
                l.size
            ));
        }
    }
    regions.sort_by_key(|r| r.1);
    for w in regions.windows(2) {
        if w[0].1 + w[0].2 > w[1].1 {
            return bad(format!("the {} and {} fields overlap", w[0].0, w[1].0));
        }
    }
    Ok(())
}

/// The regions of the lifecycle and selection models' state (empty in other programs).
fn state_regions(l: &Layout) -> [(&'static str, u64, u64); 3] {
    [
        (
            "vars",
            u64::from(l.vars),
            u64::from(l.var_count.div_ceil(8)),
        ),
        (
            "stamps",
            u64::from(l.stamps),
            u64::from(STAMP_RECORD) * u64::from(l.stamp_count),
        ),
        ("records", u64::from(l.records), u64::from(l.records_len)),
    ]
}

/// Whether the program keeps variables, records and timestamps in the state.
fn has_state_vars(p: &ProgramParts) -> bool {
    matches!(
        p.model,
        ProgramModel::Lifecycle | ProgramModel::Selection { .. }
    )
}

/// The lifecycle and selection models' tables and state, or their absence in other models.
fn state_model(p: &ProgramParts) -> Result<(), ProgramError> {
    let l = &p.layout;
    if !p.var_names.is_empty() && p.var_names.len() != p.vars.len() {
        return Err(err(
            K::BadOperand,
            format!(
                "{} variable names for {} variables",
                p.var_names.len(),
                p.vars.len()
            ),
        ));
    }
    let events = p
        .functions
        .iter()
        .any(|f| matches!(f.kind, FunctionKind::Event | FunctionKind::Restart));
    if !has_state_vars(p) {
        if l.vars != 0
            || l.var_count != 0
            || l.stamps != 0
            || l.stamp_count != 0
            || l.records != 0
            || l.records_len != 0
            || l.leaf != super::Field::default()
            || l.leaves != 0
        {
            return Err(err(
                K::BadLayout,
                "lifecycle or selection state in a program of another model".into(),
            ));
        }
        if events {
            return Err(err(
                K::BadContinuation,
                "an event or restart function in a program of another model".into(),
            ));
        }
        if let Some(pc) = p
            .code
            .iter()
            .position(|i| i.is_record() || i.is_lifecycle() || i.is_selection())
        {
            return Err(err(
                K::BadOperand,
                format!("lifecycle or selection instruction at {pc} in a program of another model"),
            ));
        }
        return Ok(());
    }
    if l.flags.width != 1 {
        return Err(err(
            K::BadLayout,
            "a lifecycle or selection program needs a flags byte".into(),
        ));
    }
    if l.var_count as usize != p.vars.len() {
        return Err(err(
            K::BadLayout,
            format!(
                "{} variables in the state, {} in the table",
                l.var_count,
                p.vars.len()
            ),
        ));
    }
    if let Some(k) = p.vars.iter().position(|v| !matches!(v, Value::Bool(_))) {
        return Err(err(K::BadOperand, format!("variable {k} is not a boolean")));
    }
    let lifecycle = p.model == ProgramModel::Lifecycle;
    if lifecycle && (l.leaf.width != 0 || l.leaves != 0) {
        return Err(err(
            K::BadLayout,
            "a lifecycle program with a current-leaf slot".into(),
        ));
    }
    let restarts = p
        .functions
        .iter()
        .filter(|f| f.kind == FunctionKind::Restart)
        .count();
    if restarts > usize::from(lifecycle) {
        return Err(err(
            K::BadContinuation,
            format!(
                "{restarts} restart functions in a {} program",
                if lifecycle { "lifecycle" } else { "selection" }
            ),
        ));
    }
    let mut names = std::collections::HashSet::new();
    for f in p.functions.iter().filter(|f| f.kind == FunctionKind::Event) {
        if !names.insert(f.name.as_str()) {
            return Err(err(
                K::BadOperand,
                format!("two event functions are named `{}`", f.name),
            ));
        }
    }
    let wrong = |i: &Instr| {
        if lifecycle {
            i.is_selection()
        } else {
            i.is_lifecycle()
        }
    };
    if let Some(pc) = p.code.iter().position(wrong) {
        return Err(err(
            K::BadOperand,
            format!(
                "`{}` at {pc} in a {} program",
                p.code[pc].mnemonic(),
                if lifecycle { "lifecycle" } else { "selection" }
            ),
        ));
    }
    Ok(())
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

/// The cursor model's tables and fields, or their absence in other models.
fn cursor(p: &ProgramParts) -> Result<(), ProgramError> {
    let l = &p.layout;
    match p.model {
        ProgramModel::Cursor { limit } => {
            if limit == 0 {
                return Err(err(K::BadOperand, "a run-away limit of 0".into()));
            }
            let [f] = &p.functions[..] else {
                return Err(err(
                    K::BadContinuation,
                    format!(
                        "a cursor program has one entry function, not {}",
                        p.functions.len()
                    ),
                ));
            };
            if f.kind != FunctionKind::Entry {
                return Err(err(
                    K::BadContinuation,
                    "a cursor program's function is not an entry".into(),
                ));
            }
            if p.rules.is_empty() {
                return Err(err(K::BadOperand, "a cursor program without rules".into()));
            }
            if l.flags.width != 1 || l.cursor.width == 0 {
                return Err(err(
                    K::BadLayout,
                    "a cursor program needs a cursor field and a flags byte".into(),
                ));
            }
            if (p.rules.len() - 1) as u64 > l.cursor.max() {
                return Err(err(
                    K::BadLayout,
                    format!("{} rules do not fit the cursor field", p.rules.len()),
                ));
            }
            // The step starts with the one `cursor.dispatch`, which no rule leads back to:
            // every backward jump is then a counted `cursor.move`.
            if p.code.get(f.start as usize) != Some(&Instr::Dispatch {})
                || p.code
                    .iter()
                    .skip(f.start as usize + 1)
                    .any(|i| *i == Instr::Dispatch {})
            {
                return Err(err(
                    K::BadContinuation,
                    "a cursor program starts with its only `cursor.dispatch`".into(),
                ));
            }
            if let Some(r) = p
                .rules
                .iter()
                .find(|r| r.label <= f.start || r.label >= f.end)
            {
                return Err(err(
                    K::BadJump,
                    format!("rule label {} lies outside `{}`'s rules", r.label, f.name),
                ));
            }
        }
        ProgramModel::Decider { .. } => {
            let [f] = &p.functions[..] else {
                return Err(err(
                    K::BadContinuation,
                    format!(
                        "a decider program has one entry function, not {}",
                        p.functions.len()
                    ),
                ));
            };
            if f.kind != FunctionKind::Entry {
                return Err(err(
                    K::BadContinuation,
                    "a decider program's function is not an entry".into(),
                ));
            }
            if !p.rules.is_empty() || l.cursor.width != 0 {
                return Err(err(
                    K::BadLayout,
                    "a decider program with cursor-model state".into(),
                ));
            }
            if let Some(pc) = p.code.iter().position(is_cursor_instr) {
                return Err(err(
                    K::BadOperand,
                    format!("cursor-model instruction at {pc} in a decider program"),
                ));
            }
        }
        ProgramModel::Lifecycle | ProgramModel::Selection { .. } => {
            if !p.rules.is_empty() || l.cursor.width != 0 {
                return Err(err(
                    K::BadLayout,
                    "a lifecycle or selection program with cursor-model state".into(),
                ));
            }
            if let Some(pc) = p.code.iter().position(is_cursor_instr) {
                return Err(err(
                    K::BadOperand,
                    format!("cursor-model instruction at {pc} in a lifecycle or selection program"),
                ));
            }
        }
        ProgramModel::RunningList => {
            if !p.rules.is_empty() || l.cursor.width != 0 || l.flags.width != 0 {
                return Err(err(
                    K::BadLayout,
                    "a running-list program with cursor-model state".into(),
                ));
            }
            if let Some(pc) = p.code.iter().position(is_cursor_instr) {
                return Err(err(
                    K::BadOperand,
                    format!("cursor-model instruction at {pc} in a running-list program"),
                ));
            }
        }
    }
    if !matches!(p.model, ProgramModel::Decider { .. }) {
        if let Some(pc) = p.code.iter().position(Instr::is_decider) {
            return Err(err(
                K::BadOperand,
                format!("decider-model instruction at {pc} in a program of another model"),
            ));
        }
    }
    Ok(())
}

/// Instructions that only cursor programs may hold.
fn is_cursor_instr(i: &Instr) -> bool {
    matches!(
        i,
        Instr::Dispatch {}
            | Instr::Move { .. }
            | Instr::SetCursor { .. }
            | Instr::Step { .. }
            | Instr::Stop {}
            | Instr::ActCursor { .. }
            | Instr::Yield { .. }
    )
}

fn functions(p: &ProgramParts) -> Result<(), ProgramError> {
    let mut ranges: Vec<(u32, u32, &str)> = Vec::with_capacity(p.functions.len());
    let mut names = std::collections::HashSet::new();
    for f in &p.functions {
        if f.start >= f.end || f.end as usize > p.code.len() {
            return Err(err(
                K::BadContinuation,
                format!(
                    "function `{}` covers {}..{} of {} instructions",
                    f.name,
                    f.start,
                    f.end,
                    p.code.len()
                ),
            ));
        }
        if f.kind == FunctionKind::Entry && !names.insert(f.name.as_str()) {
            return Err(err(
                K::BadOperand,
                format!("two entries are named `{}`", f.name),
            ));
        }
        ranges.push((f.start, f.end, &f.name));
    }
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if w[0].1 > w[1].0 {
            return Err(err(
                K::BadContinuation,
                format!("functions `{}` and `{}` overlap", w[0].2, w[1].2),
            ));
        }
    }
    Ok(())
}

/// Checks one function's code; returns its deepest operand stack.
fn body(
    p: &ProgramParts,
    fi: usize,
    start: usize,
    end: usize,
    targets: &mut [bool],
    limits: &Limits,
) -> Result<u32, ProgramError> {
    let f = &p.functions[fi];
    let at = |pc: usize, m: String| format!("in `{}` at instruction {pc}: {m}", f.name);
    // Operands, and which instructions are jump targets.
    for pc in start..end {
        let ins = &p.code[pc];
        let mut problem = None;
        ins.operands(|o| {
            if problem.is_some() {
                return;
            }
            let (what, idx, len) = match o {
                OperandRef::Label(t) => {
                    let t = t as usize;
                    if t <= pc || t >= end {
                        problem = Some((
                            K::BadJump,
                            format!("jump to {t} leaves the function or goes backwards"),
                        ));
                    } else {
                        targets[t] = true;
                    }
                    return;
                }
                OperandRef::Back(t) => {
                    // Any direction, inside the function: only `dec.redecide` has one, and it
                    // counts every jump (see `calls`).
                    let t = t as usize;
                    if t < start || t >= end {
                        problem = Some((K::BadJump, format!("jump to {t} leaves the function")));
                    } else {
                        targets[t] = true;
                    }
                    return;
                }
                OperandRef::Func(i) => {
                    match p.functions.get(i as usize) {
                        Some(g)
                            if !matches!(g.kind, FunctionKind::Entry | FunctionKind::Restart) => {}
                        Some(_) => {
                            problem = Some((
                                K::BadContinuation,
                                format!("call of entry or restart function {i}"),
                            ))
                        }
                        None => {
                            problem = Some((
                                K::IndexOutOfRange,
                                format!("call of function {i} of {}", p.functions.len()),
                            ))
                        }
                    }
                    return;
                }
                OperandRef::Bit(i) => ("bit", i, p.layout.bits),
                OperandRef::Timer(i) => ("timer", i, p.layout.timer_count),
                OperandRef::Import(i) => ("import", i, len32(p.imports.len())),
                OperandRef::Temp(i) => ("counter", i, p.temps),
                OperandRef::Var(i) => ("variable", i, len32(p.vars.len())),
                OperandRef::Str(i) => ("string", i, len32(p.strings.len())),
                OperandRef::Action(i) => ("action", i, p.layout.actions),
                OperandRef::Rule(i) => ("rule", i, len32(p.rules.len())),
                OperandRef::Group(i) => ("group", i, p.layout.group_count),
                OperandRef::RBit(i) => ("record bit", i, p.layout.records_len.saturating_mul(8)),
                OperandRef::Stamp(i) => ("timestamp", i, p.layout.stamp_count),
                OperandRef::Immediate => return,
            };
            if idx >= len {
                problem = Some((K::IndexOutOfRange, format!("{what} {idx} of {len}")));
            }
        });
        if let Some((kind, m)) = problem {
            return Err(err(kind, at(pc, m)));
        }
        let arity = |import: u32, argc: u8, want: ImportKind| {
            let imp = &p.imports[import as usize];
            if imp.kind != want {
                Some(format!("`{}` is not an {}", imp.name, want.name()))
            } else if argc < imp.min_args || argc > imp.max_args {
                Some(format!("`{}` called with {argc} arguments", imp.name))
            } else {
                None
            }
        };
        let problem = match *ins {
            Instr::Act { import, argc, .. } | Instr::ActCursor { import, argc, .. } => {
                arity(import.0, argc, ImportKind::Action).map(|m| (K::Arity, m))
            }
            Instr::CallFn { import, argc } => {
                arity(import.0, argc, ImportKind::Function).map(|m| (K::Arity, m))
            }
            Instr::CallFnCmpK {
                import, argc, op, ..
            } => arity(import.0, argc, ImportKind::Function)
                .map(|m| (K::Arity, m))
                .or_else(|| {
                    (!is_comparison(op)).then(|| {
                        (
                            K::BadOperand,
                            format!("`{}` is not a comparison", op.symbol()),
                        )
                    })
                }),
            Instr::JumpIfCmpK { op, .. } | Instr::JumpIfCmp { op, .. } if !is_comparison(op) => {
                Some((
                    K::BadOperand,
                    format!("`{}` is not a comparison", op.symbol()),
                ))
            }
            Instr::Random {} | Instr::DecDraw { .. } if p.layout.rng.is_none() => Some((
                K::BadLayout,
                format!("`{}` without a PRNG slot", ins.mnemonic()),
            )),
            Instr::Behave { import, phase, .. } => arity(import.0, 0, ImportKind::Action)
                .map(|m| (K::Arity, m))
                .or_else(|| {
                    (phase > 2).then(|| (K::BadOperand, format!("{phase} is not a phase")))
                }),
            Instr::DecJumpActive { active, .. } if u32::from(active) > MAX_CHILDREN => Some((
                K::IndexOutOfRange,
                format!("active child {active} of at most {MAX_CHILDREN}"),
            )),
            Instr::DecSet { child, .. }
            | Instr::DecPick { child, .. }
            | Instr::DecJumpPick { child, .. }
            | Instr::DecMask { child, .. }
            | Instr::DecMaskUpTo { child, .. }
            | Instr::DecJumpMasked { child, .. }
            | Instr::DecCand { child, .. }
            | Instr::DecScore { child, .. }
                if u32::from(child) >= MAX_CHILDREN =>
            {
                Some((
                    K::IndexOutOfRange,
                    format!("child {child} of at most {MAX_CHILDREN}"),
                ))
            }
            Instr::Finish { .. } if f.kind != FunctionKind::Entry => Some((
                K::BadContinuation,
                "`finish` in a subtree, event or restart function".into(),
            )),
            Instr::Return { .. } if f.kind == FunctionKind::Entry => {
                Some((K::BadContinuation, "`return` in an entry function".into()))
            }
            _ if ins.is_record() || ins.is_lifecycle() || ins.is_selection() => {
                record_operands(p, ins)
            }
            _ => None,
        };
        if let Some((kind, m)) = problem {
            return Err(err(kind, at(pc, m)));
        }
    }
    if p.code[end - 1].falls_through() {
        return Err(err(
            K::BadContinuation,
            at(
                end - 1,
                "the function's last instruction falls through".into(),
            ),
        ));
    }
    // Stack depths: jumps only go forward, so one pass in order sees every predecessor first.
    let mut depth: Vec<Option<u32>> = vec![None; end - start];
    depth[0] = Some(0);
    // Rules are entered by `cursor.dispatch` and `cursor.move`, and redecide targets by
    // `dec.redecide` (node-level, so at depth 0), with an empty stack.
    let mut entered: Vec<u32> = p.rules.iter().map(|r| r.label).collect();
    for ins in &p.code[start..end] {
        ins.operands(|o| {
            if let OperandRef::Back(t) = o {
                entered.push(t);
            }
        });
    }
    for t in entered {
        if let Some(slot) = (t as usize)
            .checked_sub(start)
            .and_then(|k| depth.get_mut(k))
        {
            *slot = Some(0);
        }
    }
    let mut max = 0;
    for pc in start..end {
        let Some(d) = depth[pc - start] else {
            continue; // unreachable
        };
        let ins = &p.code[pc];
        let (pop, push) = ins.stack_effect();
        if pop > d {
            return Err(err(
                K::StackUnderflow,
                at(pc, format!("pops {pop} of {d} values")),
            ));
        }
        let node_level = !matches!(
            ins,
            Instr::PushBool { .. }
                | Instr::PushInt { .. }
                | Instr::PushFloat { .. }
                | Instr::PushStr { .. }
                | Instr::PushVar { .. }
                | Instr::CallFn { .. }
                | Instr::Random {}
                | Instr::Not {}
                | Instr::Neg {}
                | Instr::Truthy {}
                | Instr::Bin { .. }
                | Instr::JumpIfFalse { .. }
                | Instr::JumpIfTrue { .. }
                | Instr::JumpIfCmp { .. }
                | Instr::JumpIfCmpK { .. }
                | Instr::CallFnCmpK { .. }
                | Instr::PushBound { .. }
                | Instr::Jump { .. }
                | Instr::VarPush { .. }
                | Instr::VarJump { .. }
                | Instr::TsPush { .. }
        );
        if node_level && d != pop {
            return Err(err(
                K::StackMismatch,
                at(pc, format!("{} values left on the stack", d - pop)),
            ));
        }
        let after = d - pop + push;
        if after > limits.max_stack {
            return Err(err(
                K::StackOverflow,
                at(pc, format!("the stack would hold {after} values")),
            ));
        }
        max = max.max(after);
        let mut flow = |t: usize| -> Result<(), ProgramError> {
            let slot = &mut depth[t - start];
            match *slot {
                None => *slot = Some(after),
                Some(x) if x != after => {
                    return Err(err(
                        K::StackMismatch,
                        at(t, format!("reached with {x} and with {after} values")),
                    ));
                }
                Some(_) => {}
            }
            Ok(())
        };
        if ins.falls_through() {
            flow(pc + 1)?;
        }
        let mut labels = [0usize; 3];
        let mut n = 0;
        ins.operands(|o| {
            if let OperandRef::Label(t) | OperandRef::Back(t) = o {
                if n < labels.len() {
                    labels[n] = t as usize;
                    n += 1;
                }
            }
        });
        for &t in &labels[..n] {
            flow(t)?;
        }
    }
    Ok(max)
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Orders functions callees-first, rejecting cycles; then computes each function's call depth
/// and worst-case cost.
fn calls(p: &ProgramParts, limits: &Limits) -> Result<(u32, u64), ProgramError> {
    let n = p.functions.len();
    let callees: Vec<Vec<usize>> = p
        .functions
        .iter()
        .map(|f| {
            p.code[f.start as usize..f.end as usize]
                .iter()
                .filter_map(|i| match i {
                    Instr::Call { func, .. } => Some(func.0 as usize),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // Kahn's algorithm on "calls": a function is ready once all its callees are done.
    let mut pending: Vec<usize> = callees.iter().map(Vec::len).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (f, cs) in callees.iter().enumerate() {
        for &c in cs {
            callers[c].push(f);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&f| pending[f] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(f) = ready.pop() {
        order.push(f);
        for &caller in &callers[f] {
            pending[caller] -= 1;
            if pending[caller] == 0 {
                ready.push(caller);
            }
        }
    }
    if order.len() != n {
        let f = (0..n).find(|&f| pending[f] > 0).unwrap_or(0);
        return Err(err(
            K::CallCycle,
            format!(
                "function `{}` takes part in a cycle of subtree calls",
                p.functions[f].name
            ),
        ));
    }
    let mut depth = vec![0u32; n];
    let mut cost = vec![0u64; n];
    let mut max_calls = 0;
    let mut tick_cost = 0;
    for &f in &order {
        let func = &p.functions[f];
        let (start, end) = (func.start as usize, func.end as usize);
        let mut longest = vec![0u64; end - start + 1];
        let mut calls_here = 0;
        for pc in (start..end).rev() {
            let ins = &p.code[pc];
            let mut best = if ins.falls_through() {
                longest[pc + 1 - start]
            } else {
                0
            };
            ins.operands(|o| {
                if let OperandRef::Label(t) = o {
                    best = best.max(longest[t as usize - start]);
                }
            });
            let own = match ins {
                Instr::Call { func, .. } => {
                    let c = func.0 as usize;
                    calls_here = calls_here.max(depth[c] + 1);
                    cost[c]
                }
                _ => 0,
            };
            longest[pc - start] = best.saturating_add(1).saturating_add(own);
        }
        depth[f] = calls_here;
        cost[f] = longest[0];
        if let ProgramModel::Cursor { limit } = p.model {
            // Each `cursor.move` counts a rule run, so a tick is at most `limit + 1` forward
            // paths, each starting at the function's start or at a rule.
            let seg = p
                .rules
                .iter()
                .filter_map(|r| longest.get((r.label as usize).checked_sub(start)?).copied())
                .fold(longest[0], u64::max);
            cost[f] = seg.saturating_mul(u64::from(limit) + 1);
        }
        if let ProgramModel::Decider { limit } | ProgramModel::Selection { limit } = p.model {
            // Each `dec.redecide` counts, and past `limit` leaves through its forward guard
            // label: a tick is at most `limit + 1` forward paths, each starting at the
            // function's start or at a redecide target (a redecide's own target is not
            // followed in `longest`, which ends its path there).
            let mut seg = longest[0];
            for ins in &p.code[start..end] {
                ins.operands(|o| {
                    if let OperandRef::Back(t) = o {
                        if let Some(&c) =
                            (t as usize).checked_sub(start).and_then(|k| longest.get(k))
                        {
                            seg = seg.max(c);
                        }
                    }
                });
            }
            cost[f] = seg.saturating_mul(u64::from(limit) + 1);
        }
        if func.kind != FunctionKind::Subtree {
            // Entries run as ticks, event functions as deliveries between ticks: both are
            // bounded by the per-tick budget.
            if cost[f] > limits.max_tick_instructions {
                return Err(err(
                    K::BudgetExceeded,
                    format!(
                        "a tick of `{}` may run {} instructions; the budget is {}",
                        func.name, cost[f], limits.max_tick_instructions
                    ),
                ));
            }
            max_calls = max_calls.max(calls_here);
            tick_cost = tick_cost.max(cost[f]);
        }
    }
    Ok((max_calls, tick_cost))
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// The immediate operands of record, lifecycle and selection instructions: record fields and
/// ranges inside the records region, widths of 1, 2 or 4 bytes, phases, queries, targets and
/// leaves in range, call arities, a PRNG slot for drawn waits.
fn record_operands(p: &ProgramParts, ins: &Instr) -> Option<(K, String)> {
    let l = &p.layout;
    let len = u64::from(l.records_len);
    let range = |at: u32, n: u64, what: &str| {
        (u64::from(at) + n > len).then(|| {
            (
                K::IndexOutOfRange,
                format!("{what} at record byte {at} (+{n}) of {len}"),
            )
        })
    };
    let field = |at: u32, width: u8| {
        if matches!(width, 1 | 2 | 4) {
            range(at, u64::from(width), "a field")
        } else {
            Some((K::BadOperand, format!("a record field {width} bytes wide")))
        }
    };
    let arity = |import: u32, argc: u8| {
        let imp = &p.imports[import as usize];
        (argc < imp.min_args || argc > imp.max_args).then(|| {
            (
                K::Arity,
                format!("`{}` called with {argc} arguments", imp.name),
            )
        })
    };
    match *ins {
        Instr::RecZero { at, len: n } => range(at, u64::from(n), "a range"),
        Instr::RecJumpEq { at, width, .. }
        | Instr::RecJumpGe { at, width, .. }
        | Instr::RecSet { at, width, .. }
        | Instr::RecInc { at, width } => field(at, width),
        Instr::RecCopy { dst, src, width } => field(dst, width).or_else(|| field(src, width)),
        Instr::TsPush { query, .. } if query > 2 => {
            Some((K::BadOperand, format!("{query} is not a timestamp query")))
        }
        Instr::LcAct { import, argc, .. } => {
            if p.imports[import.0 as usize].kind != ImportKind::Action {
                Some((
                    K::Arity,
                    format!("`{}` is not an action", p.imports[import.0 as usize].name),
                ))
            } else {
                arity(import.0, argc)
            }
        }
        Instr::LcCall {
            import,
            argc,
            phase,
        } => arity(import.0, argc)
            .or_else(|| (phase > 2).then(|| (K::BadOperand, format!("{phase} is not a phase")))),
        Instr::LcWaitArm { at, variation, .. } => range(at, 8, "a time").or_else(|| {
            (variation != 0 && l.rng.is_none()).then(|| {
                (
                    K::BadLayout,
                    "`lc.wait.arm` with a variation without a PRNG slot".into(),
                )
            })
        }),
        Instr::LcJumpWait { at, .. } => range(at, 8, "a time"),
        Instr::LcQuorum { at, n, .. } => {
            if u32::from(n) > MAX_STATES {
                Some((
                    K::IndexOutOfRange,
                    format!("a parallel of {n} children; at most {MAX_STATES}"),
                ))
            } else {
                range(at, 2 * u64::from(n).div_ceil(8), "a parallel's masks")
            }
        }
        Instr::SelSeen { at } => range(at, 1, "a state"),
        Instr::SelVisit { at, target, .. } => {
            if u32::from(target) >= MAX_STATES {
                Some((
                    K::IndexOutOfRange,
                    format!("state {target} of at most {MAX_STATES}"),
                ))
            } else {
                range(at, 1, "a state")
            }
        }
        Instr::SelLeaf { leaf, .. } if leaf >= l.leaves => {
            Some((K::IndexOutOfRange, format!("leaf {leaf} of {}", l.leaves)))
        }
        Instr::SelJumpPrev { lo, hi, .. } if lo > hi || hi > l.leaves => Some((
            K::IndexOutOfRange,
            format!("leaves {lo}..{hi} of {}", l.leaves),
        )),
        _ => None,
    }
}
