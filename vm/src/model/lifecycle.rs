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
#[cfg(feature = "jit")]
pub(crate) use super::phase;
// The selection helpers, at the path the native trampolines name.
#[cfg(feature = "jit")]
pub(crate) use super::selection::{select_leaf, select_none};

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

/// The index of the program's restart function (lifecycle model), if it has one.
pub(crate) fn restart_function(program: &Program) -> Option<u32> {
    program
        .functions()
        .iter()
        .position(|f| f.kind == crate::program::FunctionKind::Restart)
        .and_then(|i| u32::try_from(i).ok())
}

/// The record offset of an agent's AI group word, if the program uses group scopes.
pub(crate) fn group_at(program: &Program) -> Option<u32> {
    program.code().iter().find_map(|i| match *i {
        Instr::ScopeEnter { group, .. } => Some(group),
        _ => None,
    })
}

/// Reads agents' AI groups (the code is searched once, not per agent).
#[cfg(feature = "rayon")]
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
    for ins in program.code() {
        if let Instr::ScopeEnter {
            scope,
            member,
            group: g,
            ..
        } = *ins
        {
            leave_member(scratch, state, l, scope.0, member.0, g);
        }
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
mod tests {
    use super::*;
    use crate::model::selection::{select_leaf, select_none};
    use crate::program::{
        Function, FunctionKind, Label, ProgramParts, RBit, Stamp, Var, FLAG_STOPPED,
    };
    use crate::{Limits, Prng};

    /// A lifecycle program with two variables (defaults false, true), a timestamp, 16 record
    /// bytes and a PRNG; its code is one `finish`.
    fn program(model: ProgramModel) -> Program {
        let mut code = vec![Instr::Finish {
            status: Status::Success,
        }];
        if model == ProgramModel::Lifecycle {
            code.insert(
                0,
                Instr::ScopeEnter {
                    scope: crate::program::Str(0),
                    max: 1,
                    held: RBit(3),
                    member: RBit(4),
                    group: 12,
                },
            );
        }
        let layout = Layout {
            size: 1 + 1 + 9 + 16 + 8 + 1,
            flags: Field {
                offset: 0,
                width: 1,
            },
            vars: 1,
            var_count: 2,
            stamps: 2,
            stamp_count: 1,
            records: 11,
            records_len: 16,
            rng: Some(27),
            leaf: if model == ProgramModel::Lifecycle {
                Field::default()
            } else {
                Field {
                    offset: 35,
                    width: 1,
                }
            },
            leaves: u32::from(model != ProgramModel::Lifecycle) * 3,
            ..Layout::default()
        };
        let parts = ProgramParts {
            model,
            single_precision: false,
            clock: 1,
            layout,
            strings: vec!["scope".into()],
            imports: Vec::new(),
            vars: vec![Value::Bool(false), Value::Bool(true)],
            var_names: vec!["Alive".into(), "alive".into()],
            temps: 0,
            functions: vec![Function {
                name: "main".into(),
                kind: FunctionKind::Entry,
                start: 0,
                end: code.len() as u32,
            }],
            rules: Vec::new(),
            stimuli: 0,
            code,
        };
        Program::new(parts, &Limits::default()).expect("a valid program")
    }

    fn run(p: &Program, s: &mut LifeScratch, state: &mut [u8], ins: Instr, now: Millis) -> u64 {
        step(p, s, state, &ins, now, 7, &mut 0, false)
    }

    #[test]
    fn variables_start_at_their_defaults_and_mark_changes_only() {
        let p = program(ProgramModel::Lifecycle);
        let mut st = p.new_state();
        assert_eq!(p.var(&st, 0), Some(false));
        assert_eq!(p.var(&st, 1), Some(true));
        assert_eq!(p.var(&st, 2), None);
        assert!(changed(&st, p.layout()), "a fresh agent has changed");
        let mut s = LifeScratch::new(&p);
        run(&p, &mut s, &mut st, Instr::LcBegin { stopped: Label(1) }, 0);
        assert!(!changed(&st, p.layout()));
        p.set_var(&mut st, 1, true).unwrap();
        assert!(
            !changed(&st, p.layout()),
            "setting the same value is no change"
        );
        p.set_var(&mut st, 1, false).unwrap();
        assert!(changed(&st, p.layout()));
        assert_eq!(p.var(&st, 1), Some(false));
        assert_eq!(
            p.set_var(&mut st, 5, true),
            Err(VmError::UnknownVariable(5))
        );
        assert_eq!(p.var_index("alive"), Some(1), "the exact match first");
        assert_eq!(p.var_index("ALIVE"), Some(0), "then any case");
        assert_eq!(p.var_index("dead"), None);
    }

    #[test]
    fn changed_before_survives_the_reset_of_changed() {
        let p = program(ProgramModel::Lifecycle);
        let mut st = p.new_state();
        let mut s = LifeScratch::new(&p);
        let jc = Instr::LcJumpChanged { to: Label(1) };
        run(&p, &mut s, &mut st, Instr::LcBegin { stopped: Label(1) }, 0);
        assert_eq!(
            run(&p, &mut s, &mut st, jc, 0),
            FIRST,
            "fresh: changed before"
        );
        run(&p, &mut s, &mut st, Instr::LcBegin { stopped: Label(1) }, 0);
        assert_eq!(run(&p, &mut s, &mut st, jc, 0), FALL);
        run(&p, &mut s, &mut st, Instr::VarSet { var: Var(0) }, 0);
        assert_eq!(run(&p, &mut s, &mut st, jc, 0), FALL, "false is no change");
        step(
            &p,
            &mut s,
            &mut st,
            &Instr::VarSet { var: Var(0) },
            0,
            7,
            &mut 0,
            true,
        );
        assert_eq!(
            run(&p, &mut s, &mut st, jc, 0),
            FIRST,
            "a change during the tick"
        );
        run(&p, &mut s, &mut st, Instr::LcStop {}, 0);
        assert_ne!(st[0] & FLAG_STOPPED, 0);
        let begin = Instr::LcBegin { stopped: Label(1) };
        assert_eq!(run(&p, &mut s, &mut st, begin, 0), FIRST, "a stopped tree");
        assert_eq!(p.halt(&st), Some(crate::Halt::Stopped));
    }

    #[test]
    fn records_bits_fields_and_ranges() {
        let p = program(ProgramModel::Lifecycle);
        let mut st = p.new_state();
        let mut s = LifeScratch::new(&p);
        let set = |v| Instr::RecSet {
            at: 2,
            width: 2,
            value: v,
        };
        run(&p, &mut s, &mut st, set(300), 0);
        let eq = |v| Instr::RecJumpEq {
            at: 2,
            width: 2,
            value: v,
            to: Label(1),
        };
        assert_eq!(run(&p, &mut s, &mut st, eq(300), 0), FIRST);
        assert_eq!(run(&p, &mut s, &mut st, eq(44), 0), FALL);
        run(&p, &mut s, &mut st, set(0xffff), 0);
        run(&p, &mut s, &mut st, Instr::RecInc { at: 2, width: 2 }, 0);
        assert_eq!(run(&p, &mut s, &mut st, eq(0xffff), 0), FIRST, "saturates");
        let copy = Instr::RecCopy {
            dst: 4,
            src: 2,
            width: 2,
        };
        run(&p, &mut s, &mut st, copy, 0);
        let ge = Instr::RecJumpGe {
            at: 4,
            width: 2,
            value: 0xfffe,
            to: Label(1),
        };
        assert_eq!(run(&p, &mut s, &mut st, ge, 0), FIRST);
        run(
            &p,
            &mut s,
            &mut st,
            Instr::RecBit {
                bit: RBit(9),
                value: true,
            },
            0,
        );
        let jb = |w| Instr::RecJump {
            bit: RBit(9),
            when: w,
            to: Label(1),
        };
        assert_eq!(run(&p, &mut s, &mut st, jb(true), 0), FIRST);
        run(&p, &mut s, &mut st, Instr::RecZero { at: 1, len: 4 }, 0);
        assert_eq!(run(&p, &mut s, &mut st, jb(false), 0), FIRST, "zeroed");
        assert_eq!(run(&p, &mut s, &mut st, eq(0), 0), FIRST);
        // The copy at 4..6 is outside the zeroed range only in its second byte.
        assert_eq!(st[11 + 5], 0xff);
        // Out of range: reads 0, writes nothing, never panics.
        let far = Instr::RecSet {
            at: 15,
            width: 4,
            value: 9,
        };
        run(&p, &mut s, &mut st, far, 0);
        assert!(st[11 + 15..].iter().all(|&b| b == 0 || b == st[11 + 15]));
    }

    #[test]
    fn timestamps_and_waits() {
        let p = program(ProgramModel::Lifecycle);
        let mut st = p.new_state();
        let mut s = LifeScratch::new(&p);
        let q = |k| Instr::TsPush {
            ts: Stamp(0),
            query: k,
        };
        assert_eq!(run(&p, &mut s, &mut st, q(0), 0), 0);
        run(&p, &mut s, &mut st, Instr::TsStamp { ts: Stamp(0) }, 100);
        assert_eq!(run(&p, &mut s, &mut st, q(0), 150), 1);
        assert_eq!(run(&p, &mut s, &mut st, q(1), 150), 1);
        assert_eq!(run(&p, &mut s, &mut st, q(2), 150), 50);
        run(&p, &mut s, &mut st, Instr::TsInvalidate { ts: Stamp(0) }, 0);
        assert_eq!(run(&p, &mut s, &mut st, q(0), 150), 1, "still ever set");
        assert_eq!(run(&p, &mut s, &mut st, q(1), 150), 0);
        let arm = Instr::LcWaitArm {
            at: 8,
            time: 100,
            variation: 0,
        };
        run(&p, &mut s, &mut st, arm, 1000);
        let wait = Instr::LcJumpWait {
            at: 8,
            to: Label(1),
        };
        assert_eq!(run(&p, &mut s, &mut st, wait, 1099), FIRST);
        assert_eq!(run(&p, &mut s, &mut st, wait, 1100), FALL);
        let drawn = Instr::LcWaitArm {
            at: 8,
            time: 0,
            variation: 10,
        };
        run(&p, &mut s, &mut st, drawn, 0);
        let end = i64::from_le_bytes(st[19..27].try_into().unwrap());
        assert!((0..=10).contains(&end), "{end}");
        let mut r = Prng::for_agent(7);
        assert_eq!(end, ((r.next_f64() * 11.0) as i64).min(10));
        let forever = Instr::LcWaitArm {
            at: 8,
            time: i64::MAX,
            variation: 0,
        };
        run(&p, &mut s, &mut st, forever, 5);
        assert_eq!(
            run(&p, &mut s, &mut st, wait, i64::MAX - 1),
            FIRST,
            "saturates"
        );
    }

    #[test]
    fn scopes_are_counted_per_group_and_left_on_reset() {
        let p = program(ProgramModel::Lifecycle);
        let mut s = LifeScratch::new(&p);
        let (mut a, mut b, mut c) = (p.new_state(), p.new_state(), p.new_state());
        let enter = p.code()[0];
        run(&p, &mut s, &mut a, enter, 0);
        run(&p, &mut s, &mut b, enter, 0);
        assert_eq!(
            s.scope_users(0, 0),
            1,
            "the second agent finds the scope full"
        );
        assert!(rec_bit(&a, p.layout(), 3) && rec_bit(&a, p.layout(), 4));
        assert!(!rec_bit(&b, p.layout(), 3));
        // Another group has its own scopes.
        set_group(&p, &mut s, &mut c, 7);
        assert_eq!(p.group(&c), 7);
        run(&p, &mut s, &mut c, enter, 0);
        assert_eq!((s.scope_users(0, 0), s.scope_users(7, 0)), (1, 1));
        leave_scopes(&p, &mut s, &mut b);
        assert_eq!(s.scope_users(0, 0), 1, "b held nothing");
        leave_scopes(&p, &mut s, &mut a);
        assert_eq!(s.scope_users(0, 0), 0);
        run(&p, &mut s, &mut b, enter, 0);
        assert_eq!(s.scope_users(0, 0), 1);
        let leave = Instr::ScopeLeave {
            scope: crate::program::Str(0),
            held: RBit(3),
            member: RBit(4),
            group: 12,
        };
        run(&p, &mut s, &mut b, leave, 0);
        run(&p, &mut s, &mut b, leave, 0);
        assert_eq!(s.scope_users(0, 0), 0, "leaving twice counts once");
        // A member entering again (a nested scope of one name, room for two) counts once, and
        // its first leave makes it no member at all.
        let twice = Instr::ScopeEnter {
            scope: crate::program::Str(0),
            max: 2,
            held: RBit(3),
            member: RBit(4),
            group: 12,
        };
        run(&p, &mut s, &mut c, twice, 0);
        assert_eq!(s.scope_users(7, 0), 1);
        run(&p, &mut s, &mut c, leave, 0);
        assert_eq!(s.scope_users(7, 0), 0);
        // Changing group leaves the old group's scopes; a reset keeps the group.
        run(&p, &mut s, &mut c, enter, 0);
        set_group(&p, &mut s, &mut c, 0);
        assert_eq!((s.scope_users(0, 0), s.scope_users(7, 0)), (0, 0));
        set_group(&p, &mut s, &mut c, 9);
        p.reset(&mut c);
        assert_eq!(p.group(&c), 9);
    }

    #[test]
    fn scope_ids_are_crc32_of_the_lower_cased_name() {
        assert_eq!(scope_id("123456789"), 0xCBF4_3926);
        assert_eq!(scope_id("Flank"), scope_id("fLANK"));
        assert_ne!(scope_id("Flank"), scope_id("Flank "));
    }

    #[test]
    fn quorum_counts_finished_children() {
        let p = program(ProgramModel::Lifecycle);
        let mut st = p.new_state();
        let mut s = LifeScratch::new(&p);
        let q = |sa, fa| Instr::LcQuorum {
            at: 0,
            n: 3,
            success_all: sa,
            failure_all: fa,
            success: Label(1),
            failure: Label(1),
            running: Label(1),
        };
        assert_eq!(
            run(&p, &mut s, &mut st, q(true, false), 0),
            Status::Running as u64
        );
        // Child 0 succeeded, child 2 failed.
        for bit in [0, 2, 8] {
            run(
                &p,
                &mut s,
                &mut st,
                Instr::RecBit {
                    bit: RBit(bit),
                    value: true,
                },
                0,
            );
        }
        assert_eq!(
            run(&p, &mut s, &mut st, q(false, true), 0),
            Status::Success as u64
        );
        assert_eq!(
            run(&p, &mut s, &mut st, q(true, false), 0),
            Status::Failure as u64
        );
        assert_eq!(
            run(&p, &mut s, &mut st, q(true, true), 0),
            Status::Running as u64
        );
    }

    #[test]
    fn selection_leaves_and_walks() {
        let p = program(ProgramModel::Selection { limit: 2 });
        let mut st = p.new_state();
        let mut s = LifeScratch::new(&p);
        assert!(select_leaf(&mut st, p.layout(), 1));
        assert!(!changed(&st, p.layout()));
        assert!(!select_leaf(&mut st, p.layout(), 1), "the same leaf again");
        let prev = |lo, hi| Instr::SelJumpPrev {
            lo,
            hi,
            to: Label(1),
        };
        assert_eq!(run(&p, &mut s, &mut st, prev(1, 2), 0), FIRST);
        assert_eq!(run(&p, &mut s, &mut st, prev(0, 1), 0), FALL);
        assert_eq!(run(&p, &mut s, &mut st, prev(2, 3), 0), FALL);
        select_none(&mut st, p.layout());
        assert_eq!(
            run(&p, &mut s, &mut st, prev(1, 2), 0),
            FALL,
            "no current leaf"
        );
        assert!(
            select_leaf(&mut st, p.layout(), 1),
            "a leaf after none is news"
        );
        // Walk: visited = {stored 1}; 0 -> 2 goes on, 2 -> 1 is taken and stops, and the
        // counter limits.
        run(
            &p,
            &mut s,
            &mut st,
            Instr::RecSet {
                at: 0,
                width: 1,
                value: 1,
            },
            0,
        );
        run(&p, &mut s, &mut st, Instr::SelSeen { at: 0 }, 0);
        let visit = |t| Instr::SelVisit {
            at: 0,
            target: t,
            stop: Label(1),
            to: crate::program::Back(0),
        };
        let mut steps = 0;
        let mut go = |st: &mut [u8], t| step(&p, &mut s, st, &visit(t), 0, 7, &mut steps, false);
        assert_eq!(go(&mut st, 2), SECOND);
        assert_eq!(st[11], 2);
        assert_eq!(go(&mut st, 1), FIRST, "visited: taken, then the chain ends");
        assert_eq!(st[11], 1);
        assert_eq!(go(&mut st, 0), FIRST, "past the limit");
    }
}
