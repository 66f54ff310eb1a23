//! The cursor model's state operations (Drag\[en\]gine, `spec/semantics.md` §4.2), shared by
//! the vm and the native trampolines so the two engines cannot disagree on them.
//!
//! The state holds the rule the cursor rests on ([`Layout::cursor`]) and one flags byte
//! ([`Layout::flags`]): [`FLAG_STARTED`] (the inverse of `first_run`, so a fresh agent starts
//! with `first_run` true), [`FLAG_STOPPED`], [`FLAG_RUNAWAY`] and [`FLAG_NO_RULE`] (no current
//! rule: the next step fails and stops the tree). This module never calls the
//! host and never panics: a state block whose cursor holds no valid rule resumes at the root.

use super::target;
use crate::program::{
    read, write, Layout, ProgramModel, FLAG_NO_RULE, FLAG_RUNAWAY, FLAG_STARTED, FLAG_STOPPED,
};
use crate::program::{Label, Rule, RuleNo};
use crate::{CursorSnapshot, Program, SnapshotError, Status};

/// The rule to resume at: the cursor slot, or the root (0) if it holds no valid rule.
#[inline]
pub(crate) fn current(state: &[u8], l: &Layout, rules: usize) -> usize {
    let r = read(state, l.cursor) as usize;
    if r < rules {
        r
    } else {
        0
    }
}

#[inline]
fn flags(state: &[u8], l: &Layout) -> u8 {
    read(state, l.flags) as u8
}

#[inline]
fn set_flags(state: &mut [u8], l: &Layout, f: u8) {
    write(state, l.flags, u32::from(f));
}

/// Whether the agent's tree is halted (stopped or run-away).
#[inline]
pub(crate) fn halted(state: &[u8], l: &Layout) -> bool {
    flags(state, l) & (FLAG_STOPPED | FLAG_RUNAWAY) != 0
}

/// Whether the context has no current rule (a restored record named an unknown rule).
#[inline]
pub(crate) fn no_rule(state: &[u8], l: &Layout) -> bool {
    flags(state, l) & FLAG_NO_RULE != 0
}

/// Hot reload: the rule the cursor rested on is gone from the new tree. The context has no
/// current rule, as when a restored record names a rule id the tree lacks (`spec/semantics.md`
/// §4.2): the next step fails and stops the tree.
pub(crate) fn lose_rule(state: &mut [u8], l: &Layout) {
    write(state, l.cursor, 0);
    let f = flags(state, l);
    set_flags(state, l, f | FLAG_NO_RULE);
}

/// `move(rule)` without the jump: the cursor becomes `rule`, `first_run` true.
#[inline]
pub(crate) fn set(state: &mut [u8], l: &Layout, rule: u32) {
    write(state, l.cursor, rule);
    let f = flags(state, l);
    set_flags(state, l, f & !FLAG_STARTED);
}

/// Whether `first_run` is set.
#[inline]
pub(crate) fn first_run(state: &[u8], l: &Layout) -> bool {
    flags(state, l) & FLAG_STARTED == 0
}

/// Clears `first_run` (an action ran, or a yield yielded).
#[inline]
pub(crate) fn start(state: &mut [u8], l: &Layout) {
    let f = flags(state, l);
    set_flags(state, l, f | FLAG_STARTED);
}

/// Counts one rule run on the tick's step counter (which the engine, not the program, owns and
/// zeroes at the start of every tick); at the limit, halts the agent as a run-away and returns
/// `true`. `>=` rather than `==`, so no counter value can ever run past the limit.
#[inline]
pub(crate) fn step(count: &mut u32, limit: u32, state: &mut [u8], l: &Layout) -> bool {
    *count = count.saturating_add(1);
    if *count >= limit {
        let f = flags(state, l);
        set_flags(state, l, f | FLAG_RUNAWAY);
        true
    } else {
        false
    }
}

/// The root failed: the tree stops until a reset.
#[inline]
pub(crate) fn stop(state: &mut [u8], l: &Layout) {
    let f = flags(state, l);
    set_flags(state, l, f | FLAG_STOPPED);
}

/// The entry of rule `r` (past the code for a rule the table lacks).
#[inline]
fn rule_at(rules: &[Rule], r: usize) -> usize {
    rules.get(r).map_or(usize::MAX, |r| r.label as usize)
}

/// `cursor.dispatch`: the entry of the rule the cursor rests on; the tick fails on a halted
/// tree, and stops the tree if there is no current rule.
#[inline]
pub(crate) fn dispatch(state: &mut [u8], l: &Layout, rules: &[Rule]) -> Result<usize, Status> {
    // The flags read once: what `halted` and `no_rule` test.
    let f = flags(state, l);
    if f & (FLAG_STOPPED | FLAG_RUNAWAY) != 0 {
        return Err(Status::Failure);
    }
    if f & FLAG_NO_RULE != 0 {
        return Err(stop_tree(state, l));
    }
    Ok(rule_at(rules, current(state, l, rules.len())))
}

/// `cursor.move`: the cursor becomes `rule`, one rule run is counted (see [`step`]) and the
/// rule's entry is next, unless that was one run too many.
#[inline]
pub(crate) fn move_to(
    state: &mut [u8],
    l: &Layout,
    rules: &[Rule],
    rule: RuleNo,
    count: &mut u32,
    limit: u32,
) -> Result<usize, Status> {
    set(state, l, rule.0);
    if step(count, limit, state, l) {
        return Err(Status::Failure);
    }
    Ok(rule_at(rules, rule.0 as usize))
}

/// `cursor.step`: counts one rule run (see [`step`]); the tick fails past the limit, else
/// continues at `pc`.
#[inline]
pub(crate) fn count_step(
    state: &mut [u8],
    l: &Layout,
    count: &mut u32,
    limit: u32,
    pc: usize,
) -> Result<usize, Status> {
    if step(count, limit, state, l) {
        Err(Status::Failure)
    } else {
        Ok(pc)
    }
}

/// `cursor.stop`: the tree stops ([`stop`]); the tick's status.
#[inline]
pub(crate) fn stop_tree(state: &mut [u8], l: &Layout) -> Status {
    stop(state, l);
    Status::Failure
}

/// `yield`: on the rule's first run the rule yields (`running`), then it goes on (`success`).
#[inline]
pub(crate) fn yield_to(state: &mut [u8], l: &Layout, success: Label, running: Label) -> usize {
    if first_run(state, l) {
        start(state, l);
        target(running)
    } else {
        target(success)
    }
}

/// Fails unless `program` is a cursor program and `state` its agent's state block.
fn cursor_state(program: &Program, state: &[u8]) -> Result<(), SnapshotError> {
    if !matches!(program.model(), ProgramModel::Cursor { .. }) {
        return Err(SnapshotError::NotCursorModel);
    }
    if state.len() != program.state_size() {
        return Err(SnapshotError::StateSize {
            expected: program.state_size(),
            found: state.len(),
        });
    }
    Ok(())
}

/// Saves where the cursor of the agent with state `state` rests, and whether its tree is
/// stopped (cursor model).
pub(crate) fn snapshot(program: &Program, state: &[u8]) -> Result<CursorSnapshot, SnapshotError> {
    cursor_state(program, state)?;
    let l = program.layout();
    let flags = read(state, l.flags) as u8;
    let rule = if flags & FLAG_NO_RULE != 0 {
        None
    } else {
        let rule = current(state, l, program.rules().len());
        let id = program
            .rules()
            .get(rule)
            .and_then(|r| r.id.clone())
            .ok_or(SnapshotError::NoRuleId { rule: rule as u32 })?;
        Some(id)
    };
    Ok(CursorSnapshot {
        rule,
        first_run: first_run(state, l),
        failed: flags & (FLAG_STOPPED | FLAG_RUNAWAY) != 0,
    })
}

/// Restores a saved cursor into `state`, as the original's `readFromFile` does into an
/// existing context: a saved rule id becomes the cursor (an id the tree lacks leaves the
/// agent without a current rule, so its next tick runs nothing, fails and stops the tree);
/// without a saved rule the cursor stays as it is; `first_run` is the saved one; the agent
/// is stopped exactly if the record says it failed. Nothing else in `state` changes.
pub(crate) fn restore(
    program: &Program,
    state: &mut [u8],
    snap: &CursorSnapshot,
) -> Result<(), SnapshotError> {
    cursor_state(program, state)?;
    let l = *program.layout();
    if let Some(id) = &snap.rule {
        match program
            .rules()
            .iter()
            .position(|r| r.id.as_deref() == Some(id.as_str()))
        {
            Some(r) => {
                set(state, &l, r as u32);
                let f = read(state, l.flags) as u8;
                write(state, l.flags, u32::from(f & !FLAG_NO_RULE));
            }
            None => {
                let f = read(state, l.flags) as u8;
                write(state, l.flags, u32::from(f | FLAG_NO_RULE));
            }
        }
    }
    let mut f = read(state, l.flags) as u8;
    f &= !(FLAG_STARTED | FLAG_STOPPED | FLAG_RUNAWAY);
    if !snap.first_run {
        f |= FLAG_STARTED;
    }
    if snap.failed {
        f |= FLAG_STOPPED;
    }
    write(state, l.flags, u32::from(f));
    Ok(())
}

/// Introspection (`Program::active_path`): whether `probe` says its node is active in this
/// model: the cursor rests on its rule (a fresh agent's cursor rests on the root rule) and
/// the tree is neither halted nor without a current rule. Other probes are never active here.
pub(crate) fn probe(state: &[u8], l: &Layout, rules: usize, probe: crate::program::Probe) -> bool {
    match probe {
        crate::program::Probe::Rule(r) => {
            !halted(state, l) && !no_rule(state, l) && current(state, l, rules) == r as usize
        }
        _ => false,
    }
}
