//! The lifecycle (MBT, `spec/mbt.md` 2) and selection (BST, `spec/bst.md` 2) models' state
//! operations and instructions, shared by the vm and the native trampolines so the two engines
//! cannot disagree on them.
//!
//! An agent's state (its byte block) holds, besides the PRNG:
//!
//! - the flags byte ([`Layout::flags`]): [`FLAG_UNCHANGED`] (the inverse of `changed`, so a
//!   fresh agent starts changed), [`FLAG_CHANGED_BEFORE`] (`changed` when the tick began) and,
//!   in the lifecycle model, [`FLAG_STOPPED`];
//! - the variables ([`Layout::vars`]): one bit each, stored XOR the variable's default, so a
//!   fresh agent holds the defaults;
//! - the timestamps ([`Layout::stamps`]): the time, *ever set* and *valid*;
//! - the node records ([`Layout::records`]): each node's runtime data, addressed by byte
//!   offsets and bit numbers inside the region; the lowering decides what they mean;
//! - in the selection model, the current leaf ([`Layout::leaf`]).
//!
//! Per engine (not per agent) live the group-scope tables: for each AI group, how many of
//! its agents are members of each scope (indexed by the string id naming the scope), shared by
//! every agent of that group ticked through the engine (`spec/mbt.md` 2.6). An agent's own
//! part of a scope lives in its node records: its AI group (a `u32`), one *member* bit per
//! scope and one *held* bit per GroupScope node. Per tick lives the
//! selection walk's visited set. Both are in [`LifeScratch`]. Nothing here calls the host:
//! instructions that do (`lc.act`, `lc.call`, `lc.log`, `sel.leaf`, `sel.none`) are the
//! engines' own, around the helpers below. Out-of-range accesses read zero and write nothing,
//! as everywhere in the vm.

use super::{draw, quorum, selection};
use crate::ids::in_units;
use crate::program::{read, read_u64, write, write_u64};
use crate::program::{
    Field, Instr, Layout, ProgramModel, FLAG_CHANGED_BEFORE, FLAG_STOPPED, FLAG_UNCHANGED,
    STAMP_RECORD,
};
use crate::{Millis, Program, Status, Value, VmError};

// The phase operand's meaning, at the path the native trampolines name.

/// Fall through.
pub(crate) const FALL: u64 = 0;
/// Continue at the instruction's first label.
pub(crate) const FIRST: u64 = 1;
/// Continue at the instruction's second label (`sel.visit`'s `to`).
pub(crate) const SECOND: u64 = 2;

/// The per-engine memory of the lifecycle and selection models.
#[derive(Clone, Debug, Default)]
pub(crate) struct LifeScratch {
    /// Scope slots per group table (the program's string count when it uses group scopes,
    /// else 0).
    slots: usize,
    /// Per AI group (sorted by group id): how many of its agents are members of each scope
    /// (indexed by the string id naming the scope). These persist across ticks: they belong
    /// to the engine, shared by the agents of each group.
    groups: Vec<(u32, Vec<u32>)>,
    /// The selection walk's visited states (per tick; walks never nest).
    pub(super) visited: u32,
}

impl LifeScratch {
    /// The memory for `program` (no scope tables unless it uses group scopes; then the table of
    /// group 0, every agent's group until told otherwise).
    pub(crate) fn new(program: &Program) -> LifeScratch {
        let mut s = LifeScratch {
            slots: if program.uses_scopes() {
                program.strings().len()
            } else {
                0
            },
            groups: Vec::new(),
            visited: 0,
        };
        s.ensure_group(0);
        s
    }

    /// Makes the table of `group` exist (allocates once per group; nothing without scopes).
    pub(crate) fn ensure_group(&mut self, group: u32) {
        if self.slots == 0 {
            return;
        }
        if let Err(i) = self.groups.binary_search_by_key(&group, |g| g.0) {
            self.groups.insert(i, (group, vec![0; self.slots]));
        }
    }

    /// The member counts of `group`'s scopes, created if missing.
    fn users_mut(&mut self, group: u32) -> &mut [u32] {
        self.ensure_group(group);
        match self.groups.binary_search_by_key(&group, |g| g.0) {
            Ok(i) => &mut self.groups[i].1,
            Err(_) => &mut [],
        }
    }

    /// Agents of `group` that are members of the scope named by string `scope`.
    pub(crate) fn scope_users(&self, group: u32, scope: u32) -> u32 {
        self.groups
            .binary_search_by_key(&group, |g| g.0)
            .ok()
            .and_then(|i| self.groups[i].1.get(scope as usize).copied())
            .unwrap_or(0)
    }

    /// Moves the tables of the groups in `lo..=hi` into `into` (which must hold none of
    /// them), for a shard ticked on another thread.
    #[cfg(feature = "rayon")]
    pub(crate) fn lend_groups(&mut self, lo: u32, hi: u32, into: &mut LifeScratch) {
        into.slots = self.slots;
        into.groups.clear();
        let a = self.groups.partition_point(|g| g.0 < lo);
        let b = self.groups.partition_point(|g| g.0 <= hi);
        into.groups.extend(self.groups.drain(a..b));
    }

    /// Takes back every table lent to `from` (and any it created).
    #[cfg(feature = "rayon")]
    pub(crate) fn return_groups(&mut self, from: &mut LifeScratch) {
        if from.groups.is_empty() {
            return;
        }
        self.groups.append(&mut from.groups);
        self.groups.sort_unstable_by_key(|g| g.0);
    }
}

#[inline]
fn flags(state: &[u8], l: &Layout) -> u8 {
    read(state, l.flags) as u8
}

#[inline]
fn set_flag(state: &mut [u8], l: &Layout, bit: u8, on: bool) {
    let f = flags(state, l);
    let f = if on { f | bit } else { f & !bit };
    write(state, l.flags, u32::from(f));
}

/// Whether the lifecycle tree is stopped.
#[inline]
pub(crate) fn stopped(state: &[u8], l: &Layout) -> bool {
    flags(state, l) & FLAG_STOPPED != 0
}

/// `changed`.
#[inline]
pub(crate) fn changed(state: &[u8], l: &Layout) -> bool {
    flags(state, l) & FLAG_UNCHANGED == 0
}

#[inline]
pub(super) fn set_changed(state: &mut [u8], l: &Layout, on: bool) {
    set_flag(state, l, FLAG_UNCHANGED, !on);
}

/// A bit at bit number `bit` from byte offset `base`.
#[inline]
fn bit_at(state: &[u8], base: u32, bit: u32) -> bool {
    let at = base as usize + (bit / 8) as usize;
    state.get(at).is_some_and(|b| b >> (bit % 8) & 1 == 1)
}

#[inline]
fn set_bit_at(state: &mut [u8], base: u32, bit: u32, on: bool) {
    let at = base as usize + (bit / 8) as usize;
    if let Some(b) = state.get_mut(at) {
        if on {
            *b |= 1 << (bit % 8);
        } else {
            *b &= !(1 << (bit % 8));
        }
    }
}

/// Record bit `bit`.
#[inline]
pub(crate) fn rec_bit(state: &[u8], l: &Layout, bit: u32) -> bool {
    bit < l.records_len.saturating_mul(8) && bit_at(state, l.records, bit)
}

/// Record bit `bit` becomes `on`.
#[inline]
pub(crate) fn set_rec_bit(state: &mut [u8], l: &Layout, bit: u32, on: bool) {
    if bit < l.records_len.saturating_mul(8) {
        set_bit_at(state, l.records, bit, on);
    }
}

/// The record field at `at`, `width` bytes wide (0 if it leaves the region).
#[inline]
pub(super) fn rec_field(l: &Layout, at: u32, width: u8) -> Field {
    if u64::from(at) + u64::from(width) <= u64::from(l.records_len) {
        Field {
            offset: l.records + at,
            width,
        }
    } else {
        Field::default()
    }
}

/// The record `i64` at `at` (0 if it leaves the region).
#[inline]
fn rec_i64(state: &[u8], l: &Layout, at: u32) -> i64 {
    if u64::from(at) + 8 <= u64::from(l.records_len) {
        read_u64(state, (l.records + at) as usize) as i64
    } else {
        0
    }
}

#[inline]
fn set_rec_i64(state: &mut [u8], l: &Layout, at: u32, v: i64) {
    if u64::from(at) + 8 <= u64::from(l.records_len) {
        write_u64(state, (l.records + at) as usize, v as u64);
    }
}

/// The default of variable `k`.
#[inline]
fn default_of(program: &Program, k: u32) -> bool {
    matches!(program.vars().get(k as usize), Some(Value::Bool(true)))
}

/// Variable `k`'s value.
#[inline]
pub(crate) fn var_get(program: &Program, state: &[u8], k: u32) -> bool {
    let l = program.layout();
    let stored = k < l.var_count && bit_at(state, l.vars, k);
    stored ^ default_of(program, k)
}

/// Variable `k` becomes `v`; `changed` becomes true if that is a change.
#[inline]
pub(crate) fn var_set(program: &Program, state: &mut [u8], k: u32, v: bool) {
    let l = program.layout();
    if k >= l.var_count || var_get(program, state, k) == v {
        return;
    }
    set_bit_at(state, l.vars, k, v ^ default_of(program, k));
    set_changed(state, l, true);
}

#[inline]
fn stamp_at(l: &Layout, ts: u32) -> Option<usize> {
    (ts < l.stamp_count).then(|| l.stamps as usize + (STAMP_RECORD * ts) as usize)
}

const EVER: u8 = 1;
const VALID: u8 = 2;

fn stamp_flags(state: &[u8], l: &Layout, ts: u32) -> u8 {
    stamp_at(l, ts)
        .and_then(|at| state.get(at + 8).copied())
        .unwrap_or(0)
}

/// A timestamp query's value: 0 *ever set*, 1 *valid*, 2 the time since the stamp; `now` and
/// the result are in the program's clock units ([`Program::clock`]).
pub(crate) fn stamp_query(state: &[u8], l: &Layout, ts: u32, query: u8, now: i64) -> Value {
    match query {
        0 => Value::Bool(stamp_flags(state, l, ts) & EVER != 0),
        1 => Value::Bool(stamp_flags(state, l, ts) & VALID != 0),
        _ => {
            let time = stamp_at(l, ts).map_or(0, |at| read_u64(state, at) as i64);
            Value::Int(now.saturating_sub(time))
        }
    }
}

/// What an action's `lc.act` calls it with: `continue` if it is live (it returned running and
/// was not terminated since), else `enter`.
pub(crate) fn act_phase(state: &[u8], l: &Layout, live: u32) -> crate::Phase {
    if rec_bit(state, l, live) {
        crate::Phase::Continue
    } else {
        crate::Phase::Enter
    }
}

/// After `lc.act`'s call: the action stays live exactly when it returned running.
pub(crate) fn act_after(state: &mut [u8], l: &Layout, live: u32, status: Status) {
    set_rec_bit(state, l, live, status == Status::Running);
}

/// The succeeded and failed children of a remembering parallel whose masks are at `at`.
fn quorum_counts(state: &[u8], l: &Layout, at: u32, n: u8) -> (u32, u32) {
    let bytes = u32::from(n).div_ceil(8);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..u32::from(n) {
        let fin = rec_bit(state, l, at * 8 + i);
        let good = rec_bit(state, l, (at + bytes) * 8 + i);
        ok += u32::from(fin && good);
        failed += u32::from(fin && !good);
    }
    (ok, failed)
}

/// Executes record, lifecycle or selection instruction `ins` that does not call the host, on
/// `state` at `now` for `agent`; `steps` is the tick's step counter and `x` the popped value's
/// truthiness (`var.set`). Returns [`FALL`], [`FIRST`] or [`SECOND`] for jumps, the pushed
/// value's payload for `var.push` (0/1) and `ts.push` (0/1 or the `i64` bits), and the status
/// number for `lc.quorum`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn step(
    program: &Program,
    scratch: &mut LifeScratch,
    state: &mut [u8],
    ins: &Instr,
    now: Millis,
    agent: u32,
    steps: &mut u32,
    x: bool,
) -> u64 {
    match *ins {
        Instr::VarPush { .. }
        | Instr::VarJump { .. }
        | Instr::VarSet { .. }
        | Instr::JumpStopped { .. }
        | Instr::RecJump { .. }
        | Instr::RecBit { .. }
        | Instr::RecZero { .. }
        | Instr::RecJumpEq { .. }
        | Instr::RecJumpGe { .. }
        | Instr::RecSet { .. }
        | Instr::RecInc { .. }
        | Instr::RecCopy { .. } => records(program, state, ins, x),
        Instr::TsPush { .. }
        | Instr::TsStamp { .. }
        | Instr::TsInvalidate { .. }
        | Instr::LcBegin { .. }
        | Instr::LcStop {}
        | Instr::LcJumpChanged { .. }
        | Instr::LcWaitArm { .. }
        | Instr::LcJumpWait { .. }
        | Instr::LcQuorum { .. } => lifecycle(program, state, ins, now, agent),
        Instr::ScopeEnter { .. } | Instr::ScopeLeave { .. } => {
            scopes(scratch, state, program.layout(), ins)
        }
        Instr::SelBegin { .. }
        | Instr::SelJumpPrev { .. }
        | Instr::SelSeen { .. }
        | Instr::SelVisit { .. }
        | Instr::SelJumpLeaf { .. } => selection::step(program, scratch, state, ins, steps),
        _ => FALL,
    }
}

/// `jump`'s answer: [`FIRST`] if the test holds, else [`FALL`].
#[inline(always)]
pub(super) fn jump(c: bool) -> u64 {
    if c {
        FIRST
    } else {
        FALL
    }
}

/// The state variables and node records' instructions (see [`step`]; `x` is `var.set`'s
/// value).
#[inline(always)]
fn records(program: &Program, state: &mut [u8], ins: &Instr, x: bool) -> u64 {
    let l = program.layout();
    match *ins {
        Instr::VarPush { var } => u64::from(var_get(program, state, var.0)),
        Instr::VarJump { var, when, .. } => jump(var_get(program, state, var.0) == when),
        Instr::VarSet { var } => {
            var_set(program, state, var.0, x);
            FALL
        }
        Instr::JumpStopped { .. } => jump(stopped(state, l)),
        Instr::RecJump { bit, when, .. } => jump(rec_bit(state, l, bit.0) == when),
        Instr::RecBit { bit, value } => {
            set_rec_bit(state, l, bit.0, value);
            FALL
        }
        Instr::RecZero { at, len } => {
            if u64::from(at) + u64::from(len) <= u64::from(l.records_len) {
                let from = (l.records + at) as usize;
                if let Some(b) = state.get_mut(from..from + len as usize) {
                    b.fill(0);
                }
            }
            FALL
        }
        Instr::RecJumpEq {
            at, width, value, ..
        } => jump(read(state, rec_field(l, at, width)) == value),
        Instr::RecJumpGe {
            at, width, value, ..
        } => jump(read(state, rec_field(l, at, width)) >= value),
        Instr::RecSet { at, width, value } => {
            write(state, rec_field(l, at, width), value);
            FALL
        }
        Instr::RecInc { at, width } => {
            let f = rec_field(l, at, width);
            let v = u64::from(read(state, f));
            write(state, f, (v + 1).min(f.max()) as u32);
            FALL
        }
        Instr::RecCopy { dst, src, width } => {
            let v = read(state, rec_field(l, src, width));
            write(state, rec_field(l, dst, width), v);
            FALL
        }
        _ => FALL,
    }
}

/// The timestamps' and the lifecycle model's own instructions (see [`step`]).
#[inline(always)]
fn lifecycle(program: &Program, state: &mut [u8], ins: &Instr, now: Millis, agent: u32) -> u64 {
    let l = program.layout();
    // The time the tree reads, in its clock units: computed only in the arms that read it.
    let clock_now = || in_units(now, program.clock());
    match *ins {
        Instr::TsPush { ts, query } => match stamp_query(state, l, ts.0, query, clock_now()) {
            Value::Bool(b) => u64::from(b),
            Value::Int(i) => i as u64,
            _ => 0,
        },
        Instr::TsStamp { ts } => {
            if let Some(at) = stamp_at(l, ts.0) {
                write_u64(state, at, clock_now() as u64);
                if let Some(b) = state.get_mut(at + 8) {
                    *b = EVER | VALID;
                }
            }
            FALL
        }
        Instr::TsInvalidate { ts } => {
            if let Some(at) = stamp_at(l, ts.0) {
                if let Some(b) = state.get_mut(at + 8) {
                    *b &= !VALID;
                }
            }
            FALL
        }
        Instr::LcBegin { .. } => {
            if stopped(state, l) {
                return FIRST;
            }
            let before = changed(state, l);
            set_flag(state, l, FLAG_CHANGED_BEFORE, before);
            set_changed(state, l, false);
            FALL
        }
        Instr::LcStop {} => {
            set_flag(state, l, FLAG_STOPPED, true);
            FALL
        }
        Instr::LcJumpChanged { .. } => {
            jump(flags(state, l) & FLAG_CHANGED_BEFORE != 0 || changed(state, l))
        }
        Instr::LcWaitArm {
            at,
            time,
            variation,
        } => {
            let v = if variation == 0 {
                0
            } else {
                let r = draw(state, l, agent);
                ((r * (f64::from(variation) + 1.0)) as u64).min(u64::from(variation)) as i64
            };
            set_rec_i64(
                state,
                l,
                at,
                clock_now().saturating_add(time).saturating_add(v),
            );
            FALL
        }
        Instr::LcJumpWait { at, .. } => jump(clock_now() < rec_i64(state, l, at)),
        Instr::LcQuorum {
            at,
            n,
            success_all,
            failure_all,
            ..
        } => {
            let (ok, failed) = quorum_counts(state, l, at, n);
            quorum(ok, failed, u32::from(n), success_all, failure_all) as u64
        }
        _ => FALL,
    }
}

/// The group scopes' instructions (see [`step`]).
#[inline(always)]
fn scopes(scratch: &mut LifeScratch, state: &mut [u8], l: &Layout, ins: &Instr) -> u64 {
    match *ins {
        Instr::ScopeEnter {
            scope,
            max,
            held,
            member,
            group,
        } => {
            let g = read(state, rec_field(l, group, 4));
            if let Some(c) = scratch.users_mut(g).get_mut(scope.0 as usize) {
                // Refused when `max` or more members are in already (this agent included).
                if *c < max {
                    if !rec_bit(state, l, member.0) {
                        set_rec_bit(state, l, member.0, true);
                        *c = c.saturating_add(1);
                    }
                    set_rec_bit(state, l, held.0, true);
                }
            }
            FALL
        }
        Instr::ScopeLeave {
            scope,
            held,
            member,
            group,
        } => {
            if rec_bit(state, l, held.0) {
                set_rec_bit(state, l, held.0, false);
                leave_member(scratch, state, l, scope.0, member.0, group);
            }
            FALL
        }
        _ => FALL,
    }
}

/// Counts the agent out of scope `scope` of its group if record bit `member` says it is in.
fn leave_member(
    scratch: &mut LifeScratch,
    state: &mut [u8],
    l: &Layout,
    scope: u32,
    member: u32,
    group: u32,
) {
    if rec_bit(state, l, member) {
        set_rec_bit(state, l, member, false);
        let g = read(state, rec_field(l, group, 4));
        if let Some(c) = scratch.users_mut(g).get_mut(scope as usize) {
            *c = c.saturating_sub(1);
        }
    }
}

/// What `Engine::reset_agent` does before resetting the block: the agent leaves every group
/// scope it is a member of, and its GroupScope nodes hold nothing (no terminate calls).
pub(crate) fn leave_scopes(program: &Program, scratch: &mut LifeScratch, state: &mut [u8]) {
    let l = program.layout();
    for ins in program.code() {
        if let Instr::ScopeEnter {
            scope,
            held,
            member,
            group,
            ..
        } = *ins
        {
            set_rec_bit(state, l, held.0, false);
            leave_member(scratch, state, l, scope.0, member.0, group);
        }
    }
}

/// What `Engine::restore_agent` does after copying a saved block in: the agent is counted in
/// every group scope of its AI group its record's *member* bits say it is in (each member bit
/// once), so group counts are recomputed from the agents' states and a snapshot needs nothing
/// else. Allocates only the group's table the first time a group is named.
pub(crate) fn enter_scopes(program: &Program, scratch: &mut LifeScratch, state: &[u8]) {
    let l = program.layout();
    let mut counted: Vec<u32> = Vec::new();
    for ins in program.code() {
        if let Instr::ScopeEnter {
            scope,
            member,
            group,
            ..
        } = *ins
        {
            if !rec_bit(state, l, member.0) || counted.contains(&member.0) {
                continue;
            }
            counted.push(member.0);
            let g = read(state, rec_field(l, group, 4));
            if let Some(c) = scratch.users_mut(g).get_mut(scope.0 as usize) {
                *c = c.saturating_add(1);
            }
        }
    }
}

/// The index of the program's restart function (lifecycle model), if it has one.
pub(crate) fn restart_function(program: &Program) -> Option<u32> {
    program
        .functions()
        .iter()
        .position(|f| f.kind == crate::program::FunctionKind::Restart)
        .and_then(|i| u32::try_from(i).ok())
}

/// Where a program keeps an agent's AI group word and which group-scope memberships an agent
/// can hold: found once, when the program is made ([`Program::new`]), from its `scope.enter`
/// instructions, so [`set_group`] (once per agent when a server forms its squads) costs the
/// program's scopes, not its code.
#[derive(Debug, Default)]
pub(crate) struct GroupScopes {
    /// The record offset of the AI group word (the first `scope.enter`'s); `None`: the program
    /// uses no group scopes.
    word: Option<u32>,
    /// Every `scope.enter`'s scope, member bit and group word, in code order.
    members: Vec<(u32, u32, u32)>,
}

impl GroupScopes {
    /// The group scopes of `code`.
    pub(crate) fn of(code: &[Instr]) -> GroupScopes {
        let members: Vec<(u32, u32, u32)> = code
            .iter()
            .filter_map(|i| match *i {
                Instr::ScopeEnter {
                    scope,
                    member,
                    group,
                    ..
                } => Some((scope.0, member.0, group)),
                _ => None,
            })
            .collect();
        GroupScopes {
            word: members.first().map(|m| m.2),
            members,
        }
    }
}

/// The record offset of an agent's AI group word, if the program uses group scopes.
pub(crate) fn group_at(program: &Program) -> Option<u32> {
    program.group_scopes().word
}

/// Reads agents' AI groups (the code is searched once, not per agent).
pub(crate) fn group_reader(program: &Program) -> impl Fn(&[u8]) -> u32 + '_ {
    let at = group_at(program);
    let l = program.layout();
    move |state| at.map_or(0, |at| read(state, rec_field(l, at, 4)))
}

/// The agent's AI group (0 in a program without group scopes).
pub(crate) fn group_of(program: &Program, state: &[u8]) -> u32 {
    group_at(program).map_or(0, |at| read(state, rec_field(program.layout(), at, 4)))
}

/// Writes the agent's AI group word (no scope bookkeeping: for a state that holds none).
pub(crate) fn write_group(program: &Program, state: &mut [u8], group: u32) {
    if let Some(at) = group_at(program) {
        write(state, rec_field(program.layout(), at, 4), group);
    }
}

/// Moves the agent to AI group `group`: it first leaves every scope it is a member of in its
/// old group (its GroupScope nodes stay open), as `CAIGroup::RemoveMember` does
/// (`spec/mbt.md` 2.6). Nothing in a program without group scopes.
pub(crate) fn set_group(
    program: &Program,
    scratch: &mut LifeScratch,
    state: &mut [u8],
    group: u32,
) {
    let Some(at) = group_at(program) else {
        return;
    };
    let l = program.layout();
    if read(state, rec_field(l, at, 4)) == group {
        return;
    }
    for &(scope, member, g) in &program.group_scopes().members {
        leave_member(scratch, state, l, scope, member, g);
    }
    write(state, rec_field(l, at, 4), group);
    scratch.ensure_group(group);
}

/// The CRC-32 (polynomial `0xEDB88320`, reflected, initial and final XOR `0xFFFFFFFF`) of
/// `name` with ASCII `A`..`Z` lower-cased: CRYENGINE's group scope id
/// (`CAIGroup::GetGroupScopeId`, `CCrc32::ComputeLowercase`). Names with one id are one scope.
pub fn scope_id(name: &str) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for b in name.bytes() {
        crc ^= u32::from(b.to_ascii_lowercase());
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The index of event function `name`, if the program has one.
pub(crate) fn event_function(program: &Program, name: &str) -> Option<u32> {
    program
        .functions()
        .iter()
        .position(|f| f.kind == crate::program::FunctionKind::Event && f.name == name)
        .and_then(|i| u32::try_from(i).ok())
}

/// The function of event `id`, if `id` was resolved on `program`.
pub(crate) fn event_id_function(program: &Program, id: crate::EventId) -> Result<u32, VmError> {
    if id.program != program.fingerprint() {
        return Err(VmError::ForeignEvent);
    }
    Ok(id.function)
}

/// The event named `name`, resolved once for delivery with
/// [`Engine::event_by_id`](crate::Engine::event_by_id) or
/// [`Batch::event_by_id`](crate::Batch::event_by_id); `None` when the program never uses
/// that event (delivering it by name would do nothing).
pub(crate) fn event_id(program: &Program, name: &str) -> Option<crate::EventId> {
    event_function(program, name).map(|function| crate::EventId {
        program: program.fingerprint(),
        function,
    })
}

/// Whether the program uses group scopes (their member counts are shared by the agents of
/// one AI group ticked through one engine or batch).
pub(crate) fn uses_scopes(program: &Program) -> bool {
    program
        .code()
        .iter()
        .any(|i| matches!(i, Instr::ScopeEnter { .. }))
}

/// The string id of the scope called `name` in this program's group-scope tables: the
/// scope whose name has the same [`scope_id`] (CRC-32 of the lower-cased name).
pub(crate) fn scope_slot(program: &Program, name: &str) -> Option<u32> {
    let id = scope_id(name);
    program.code().iter().find_map(|i| match *i {
        Instr::ScopeEnter { scope, .. }
            if scope_id(program.strings().get(crate::StrId(scope.0))) == id =>
        {
            Some(scope.0)
        }
        _ => None,
    })
}

fn state_vars(program: &Program) -> bool {
    matches!(
        program.model(),
        ProgramModel::Lifecycle | ProgramModel::Selection { .. }
    )
}

/// The index of the variable named `name`: an exact match first, then one that differs
/// only in ASCII case.
pub(crate) fn var_index(program: &Program, name: &str) -> Option<u32> {
    let names = &program.parts().var_names;
    names
        .iter()
        .position(|n| n == name)
        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(name)))
        .and_then(|i| u32::try_from(i).ok())
}

/// Lifecycle and selection models: variable `index`'s value in the agent's state; `None`
/// for an unknown index, a state block of the wrong size or a program of another model.
pub(crate) fn var(program: &Program, state: &[u8], index: u32) -> Option<bool> {
    (state_vars(program)
        && index < program.layout().var_count
        && state.len() == program.state_size())
    .then(|| var_get(program, state, index))
}

/// Lifecycle and selection models: sets variable `index` in the agent's state, as a game
/// behaviour would between ticks; `changed` becomes true only if the value differs.
/// Fails for an unknown index (programs of other models have no state variables) or a
/// state block of the wrong size.
pub(crate) fn set_var(
    program: &Program,
    state: &mut [u8],
    index: u32,
    value: bool,
) -> Result<(), VmError> {
    if state.len() != program.state_size() {
        return Err(VmError::StateSize {
            expected: program.state_size(),
            found: state.len(),
        });
    }
    if !state_vars(program) || index >= program.layout().var_count {
        return Err(VmError::UnknownVariable(index));
    }
    var_set(program, state, index, value);
    Ok(())
}

#[cfg(test)]
mod tests;

/// Introspection (`Program::active_path`): whether `probe` says its node is active in this
/// model: its record's *live* bit is set (the node was entered and has not finished). Other
/// probes are never active here.
pub(crate) fn probe(state: &[u8], l: &Layout, probe: crate::program::Probe) -> bool {
    match probe {
        crate::program::Probe::Live(bit) => rec_bit(state, l, bit),
        _ => false,
    }
}
