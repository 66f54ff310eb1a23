//! The decider model's (Spore's, `spec/spore.md` 2) state operations and instructions, shared
//! by the vm and the native trampolines so the two engines cannot disagree on them.
//!
//! An agent's decider state lives in its block ([`Layout::decider`], [`Layout::groups`],
//! [`Layout::stimuli`], the `every` timers in [`Layout::timers`] and two bits of
//! [`Layout::flags`]); the per-tick choice registers of every group (the masked children, the
//! candidate set, the child being switched to, the candidates' scores) live in
//! [`DeciderScratch`], which the engines own and never carry between ticks. The redecide count
//! is the engine's per-tick step counter.
//!
//! Nothing here calls the host (behavior calls are the engines' own) or allocates during a
//! tick; out-of-range indices read as zero and write nothing, as everywhere in the vm.

use super::draw;
use crate::program::{
    every_decode, every_encode, Instr, Layout, ProgramModel, FLAG_LOOP_GUARD, FLAG_ROOT_ACTIVE,
    GROUP_RECORD, MAX_CHILDREN, STIMULUS_RECORD,
};
use crate::program::{read, read_u64, write, write_u64};
use crate::{DeciderView, GroupView, Millis, Program, Stimulus};

/// What a decider instruction does next: fall through, or continue at its first or second
/// label.
pub(crate) const FALL: u32 = 0;
/// Continue at the instruction's first label.
pub(crate) const FIRST: u32 = 1;
/// Continue at the instruction's second label (`dec.redecide`'s loop-guard exit).
pub(crate) const SECOND: u32 = 2;

/// `pick` when no child is being switched to.
pub(crate) const NO_PICK: u32 = MAX_CHILDREN;

/// One group's choice registers for the current tick. `repr(C)`: native code reads and writes
/// the fields at their offsets (`native::abi::offsets`).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct Regs {
    /// Children the group's choices skip until it is entered again (bit `k` = child `k`): the
    /// ones that failed since.
    pub(crate) mask: u64,
    /// The accepting candidates not tried yet (`random`, `scored`).
    pub(crate) cand: u64,
    /// The child being switched to ([`NO_PICK`] on a visit).
    pub(crate) pick: u32,
}

/// The per-tick choice registers of every group, and the candidates' scores (`scored`).
#[derive(Clone, Debug, Default)]
pub(crate) struct DeciderScratch {
    regs: Vec<Regs>,
    /// 64 per group, when the program scores.
    scores: Vec<f64>,
}

impl DeciderScratch {
    /// Registers for `program` (empty for other models).
    pub(crate) fn new(program: &Program) -> DeciderScratch {
        if !matches!(program.model(), ProgramModel::Decider { .. }) {
            return DeciderScratch::default();
        }
        let groups = program.layout().group_count as usize;
        let scores = program
            .code()
            .iter()
            .any(|i| matches!(i, Instr::DecScore { .. } | Instr::DecBest { .. }));
        DeciderScratch {
            regs: vec![Regs::default(); groups],
            scores: if scores {
                vec![0.0; groups * MAX_CHILDREN as usize]
            } else {
                Vec::new()
            },
        }
    }

    /// The first of `groups` choice registers, for native code, which addresses them
    /// directly; `None` when this scratch holds fewer (it was made for another program).
    #[cfg(feature = "jit")]
    pub(crate) fn regs_ptr(&mut self, groups: u32) -> Option<*mut Regs> {
        (self.regs.len() >= groups as usize).then_some(self.regs.as_mut_ptr())
    }
}

/// Header offsets (from [`Layout::decider`]): the DecisionFlags word, the present-stimuli
/// word, the never-expiring-stimuli word, the root's activation time.
pub(crate) const DECISION: usize = 0;
/// See [`DECISION`].
pub(crate) const PRESENT: usize = 4;
/// See [`DECISION`].
pub(crate) const NEVER: usize = 8;
/// See [`DECISION`].
pub(crate) const ROOT_SINCE: usize = 12;

fn header(l: &Layout, at: usize) -> usize {
    l.decider as usize + at
}

fn read_u32(state: &[u8], at: usize) -> u32 {
    state.get(at..at + 4).map_or(0, |b| {
        let mut a = [0; 4];
        a.copy_from_slice(b);
        u32::from_le_bytes(a)
    })
}

fn write_u32(state: &mut [u8], at: usize, v: u32) {
    if let Some(b) = state.get_mut(at..at + 4) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

fn group_at(l: &Layout, g: u32) -> usize {
    l.groups as usize + (GROUP_RECORD * g) as usize
}

fn stimulus_at(l: &Layout, bit: u32) -> usize {
    l.stimuli as usize + (STIMULUS_RECORD * bit) as usize
}

fn flags(state: &[u8], l: &Layout) -> u8 {
    read(state, l.flags) as u8
}

fn set_flag(state: &mut [u8], l: &Layout, bit: u8, on: bool) {
    let f = flags(state, l);
    let f = if on { f | bit } else { f & !bit };
    write(state, l.flags, u32::from(f));
}

/// The active-child byte of group `g` (0 = none, `k + 1` = child `k`).
pub(crate) fn active(state: &[u8], l: &Layout, g: u32) -> u32 {
    state.get(group_at(l, g)).copied().map_or(0, u32::from)
}

fn set_active(state: &mut [u8], l: &Layout, g: u32, v: u8) {
    if let Some(b) = state.get_mut(group_at(l, g)) {
        *b = v;
    }
}

/// Which flag word a flag test reads.
pub(crate) fn flag_word(state: &[u8], l: &Layout, stimuli: bool) -> u32 {
    read_u32(state, header(l, if stimuli { PRESENT } else { DECISION }))
}

/// The position of the `k`-th set bit of `set` (counting from 0, lowest first).
fn nth_bit(mut set: u64, k: u32) -> u32 {
    for _ in 0..k {
        set &= set.wrapping_sub(1);
    }
    set.trailing_zeros()
}

/// Executes decider instruction `ins` (anything else but `behave` falls through untouched) on
/// `state` at `now` for `agent`; `count` is the tick's redecide count and `x` the popped value
/// of `dec.score` as a double. Returns [`FALL`], [`FIRST`] or [`SECOND`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn step(
    program: &Program,
    regs: &mut DeciderScratch,
    state: &mut [u8],
    ins: &Instr,
    now: Millis,
    agent: u32,
    count: &mut u32,
    x: f64,
) -> u32 {
    match *ins {
        Instr::DecBegin {}
        | Instr::DecJumpRoot { .. }
        | Instr::DecRoot { .. }
        | Instr::DecGuard {}
        | Instr::DecTest { .. }
        | Instr::DecWait { .. }
        | Instr::DecStamp { .. }
        | Instr::DecJumpActive { .. }
        | Instr::DecSet { .. }
        | Instr::DecClear { .. }
        | Instr::DecRedecide { .. } => decision(program, state, ins, now, count),
        Instr::DecEnter { .. }
        | Instr::DecPick { .. }
        | Instr::DecJumpPick { .. }
        | Instr::DecMask { .. }
        | Instr::DecMaskUpTo { .. }
        | Instr::DecJumpMasked { .. }
        | Instr::DecCandClear { .. }
        | Instr::DecCand { .. }
        | Instr::DecScore { .. }
        | Instr::DecDraw { .. }
        | Instr::DecBest { .. } => choice(program.layout(), regs, state, ins, agent, x),
        _ => FALL,
    }
}

/// `jump`'s answer: [`FIRST`] if the test holds, else [`FALL`].
#[inline(always)]
fn jump(c: bool) -> u32 {
    if c {
        FIRST
    } else {
        FALL
    }
}

/// The instructions on the agent's decider state (stimuli, flags, `every` timers, the active
/// children) and the redecide count (see [`step`]).
#[inline(always)]
fn decision(program: &Program, state: &mut [u8], ins: &Instr, now: Millis, count: &mut u32) -> u32 {
    let l = program.layout();
    match *ins {
        Instr::DecBegin {} => {
            set_flag(state, l, FLAG_LOOP_GUARD, false);
            let present = read_u32(state, header(l, PRESENT));
            let never = read_u32(state, header(l, NEVER));
            let mut keep = present;
            let mut left = present & !never;
            while left != 0 {
                let bit = left.trailing_zeros();
                left &= left - 1;
                let expires = read_u64(state, stimulus_at(l, bit)) as i64;
                if expires <= now {
                    keep &= !(1 << bit);
                }
            }
            if keep != present {
                write_u32(state, header(l, PRESENT), keep);
            }
            FALL
        }
        Instr::DecJumpRoot { .. } => jump(flags(state, l) & FLAG_ROOT_ACTIVE != 0),
        Instr::DecRoot { on } => {
            set_flag(state, l, FLAG_ROOT_ACTIVE, on);
            if on {
                write_u64(state, header(l, ROOT_SINCE), now as u64);
            }
            FALL
        }
        Instr::DecGuard {} => {
            set_flag(state, l, FLAG_LOOP_GUARD, true);
            FALL
        }
        Instr::DecTest {
            stimuli,
            mask,
            all,
            set,
            ..
        } => jump(!crate::decider::flag_test(
            flag_word(state, l, stimuli),
            mask,
            all,
            set,
        )),
        Instr::DecWait { timer, .. } => {
            let at = l.timers as usize + 8 * timer.0 as usize;
            jump(now < every_decode(read_u64(state, at)))
        }
        Instr::DecStamp { timer, ms } => {
            let at = l.timers as usize + 8 * timer.0 as usize;
            write_u64(state, at, every_encode(now.saturating_add(i64::from(ms))));
            FALL
        }
        Instr::DecJumpActive {
            group, active: a, ..
        } => jump(active(state, l, group.0) == u32::from(a)),
        Instr::DecSet { group, child } => {
            set_active(state, l, group.0, child.saturating_add(1));
            write_u64(state, group_at(l, group.0) + 1, now as u64);
            FALL
        }
        Instr::DecClear { group } => {
            set_active(state, l, group.0, 0);
            FALL
        }
        Instr::DecRedecide { .. } => {
            let limit = match program.model() {
                ProgramModel::Decider { limit } => limit,
                _ => 0,
            };
            *count = count.saturating_add(1);
            if *count > limit {
                SECOND
            } else {
                FIRST
            }
        }
        _ => FALL,
    }
}

/// The instructions on a group's per-tick choice registers and scores (see [`step`]; `x` is
/// `dec.score`'s score).
#[inline(always)]
fn choice(
    l: &Layout,
    regs: &mut DeciderScratch,
    state: &mut [u8],
    ins: &Instr,
    agent: u32,
    x: f64,
) -> u32 {
    let reg = |regs: &mut DeciderScratch, g: u32| regs.regs.get_mut(g as usize).map(|r| *r);
    match *ins {
        Instr::DecEnter { group } => {
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                r.mask = 0;
                r.pick = NO_PICK;
            }
            FALL
        }
        Instr::DecPick { group, child } => {
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                r.pick = u32::from(child);
            }
            FALL
        }
        Instr::DecJumpPick { group, child, .. } => {
            jump(reg(regs, group.0).is_some_and(|r| r.pick == u32::from(child)))
        }
        Instr::DecMask { group, child } => {
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                r.mask |= 1u64.checked_shl(u32::from(child)).unwrap_or(0);
            }
            FALL
        }
        Instr::DecMaskUpTo { group, child } => {
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                let upper = 1u64.checked_shl(u32::from(child) + 1).unwrap_or(0);
                r.mask |= upper.wrapping_sub(1);
            }
            FALL
        }
        Instr::DecJumpMasked { group, child, .. } => {
            jump(reg(regs, group.0).is_some_and(|r| r.mask >> (u32::from(child) & 63) & 1 == 1))
        }
        Instr::DecCandClear { group } => {
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                r.cand = 0;
            }
            FALL
        }
        Instr::DecCand { group, child } => {
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                r.cand |= 1u64.checked_shl(u32::from(child)).unwrap_or(0);
            }
            FALL
        }
        Instr::DecScore { group, child, .. } => {
            // NaN and scores <= 0 reject.
            if x.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return FIRST;
            }
            if let Some(r) = regs.regs.get_mut(group.0 as usize) {
                r.cand |= 1u64.checked_shl(u32::from(child)).unwrap_or(0);
            }
            let at = group.0 as usize * MAX_CHILDREN as usize + usize::from(child);
            if let Some(s) = regs.scores.get_mut(at) {
                *s = x;
            }
            FALL
        }
        Instr::DecDraw { group, .. } => {
            let Some(r) = regs.regs.get_mut(group.0 as usize) else {
                return FIRST;
            };
            let n = r.cand.count_ones();
            if n == 0 {
                return FIRST;
            }
            let rr = draw(state, l, agent);
            let k = ((rr * f64::from(n)) as u32).min(n - 1);
            let i = nth_bit(r.cand, k);
            r.cand &= !(1u64 << i);
            r.pick = i;
            FALL
        }
        Instr::DecBest { group, .. } => {
            let base = group.0 as usize * MAX_CHILDREN as usize;
            let Some(r) = regs.regs.get_mut(group.0 as usize) else {
                return FIRST;
            };
            if r.cand == 0 {
                return FIRST;
            }
            let score = |i: u32| regs.scores.get(base + i as usize).copied().unwrap_or(0.0);
            let mut left = r.cand;
            let mut best = left.trailing_zeros();
            while left != 0 {
                let i = left.trailing_zeros();
                left &= left - 1;
                if score(i) > score(best) {
                    best = i;
                }
            }
            r.cand &= !(1u64 << best);
            r.pick = best;
            FALL
        }
        _ => FALL,
    }
}

/// The first jump target of an instruction (a label or a counted backward label).
#[cfg(feature = "jit")]
pub(crate) fn first_label(ins: &Instr) -> Option<u32> {
    use crate::program::OperandRef;
    let mut out = None;
    ins.operands(|o| {
        if let OperandRef::Label(t) | OperandRef::Back(t) = o {
            out.get_or_insert(t);
        }
    });
    out
}

fn decider_model(program: &Program) -> bool {
    matches!(program.model(), ProgramModel::Decider { .. })
}

/// Decider model: sets the agent's DecisionFlags word (kept until changed). Does nothing in
/// other models.
pub(crate) fn set_decision_flags(program: &Program, state: &mut [u8], word: u32) {
    if decider_model(program) {
        write_u32(state, header(program.layout(), DECISION), word);
    }
}

/// Decider model: adds stimulus `bit` to the agent, replacing a present one. `false` (and
/// nothing changes) when the program is not a decider program or `bit` is not a declared
/// stimulus.
pub(crate) fn add_stimulus(
    program: &Program,
    state: &mut [u8],
    bit: u32,
    stimulus: Stimulus,
) -> bool {
    if !decider_model(program) || bit >= program.parts().stimuli || bit >= 32 {
        return false;
    }
    let l = program.layout();
    let at = stimulus_at(l, bit);
    write_u64(state, at, stimulus.expires.unwrap_or(0) as u64);
    write_u64(state, at + 8, stimulus.data as u64);
    let m = 1u32 << bit;
    let present = read_u32(state, header(l, PRESENT));
    write_u32(state, header(l, PRESENT), present | m);
    let never = read_u32(state, header(l, NEVER));
    let never = if stimulus.expires.is_none() {
        never | m
    } else {
        never & !m
    };
    write_u32(state, header(l, NEVER), never);
    true
}

/// Decider model: removes stimulus `bit` from the agent (nothing if it is not present).
pub(crate) fn remove_stimulus(program: &Program, state: &mut [u8], bit: u32) {
    if !decider_model(program) || bit >= program.parts().stimuli || bit >= 32 {
        return;
    }
    let l = program.layout();
    let m = !(1u32 << bit);
    for w in [PRESENT, NEVER] {
        let v = read_u32(state, header(l, w));
        write_u32(state, header(l, w), v & m);
    }
    let at = stimulus_at(l, bit);
    write_u64(state, at, 0);
    write_u64(state, at + 8, 0);
}

/// Decider model: the agent's active path and inputs, as every engine reports them; `None`
/// in other models.
pub(crate) fn decider_view(program: &Program, state: &[u8]) -> Option<DeciderView> {
    if !decider_model(program) {
        return None;
    }
    let l = program.layout();
    let root_since = (flags(state, l) & FLAG_ROOT_ACTIVE != 0)
        .then(|| read_u64(state, header(l, ROOT_SINCE)) as i64);
    let groups = (0..l.group_count)
        .map(|g| {
            let a = active(state, l, g);
            GroupView {
                active: (1..=MAX_CHILDREN).contains(&a).then(|| a - 1),
                since: read_u64(state, group_at(l, g) + 1) as i64,
            }
        })
        .collect();
    let present = read_u32(state, header(l, PRESENT));
    let never = read_u32(state, header(l, NEVER));
    let stimuli = (0..program.parts().stimuli.min(32))
        .map(|bit| {
            (present >> bit & 1 == 1).then(|| {
                let at = stimulus_at(l, bit);
                Stimulus {
                    expires: (never >> bit & 1 == 0).then(|| read_u64(state, at) as i64),
                    data: read_u64(state, at + 8) as i64,
                }
            })
        })
        .collect();
    Some(DeciderView {
        root_since,
        groups,
        decision_flags: read_u32(state, header(l, DECISION)),
        stimuli,
    })
}

/// Decider model: whether the agent's last tick ended with the loop guard (the redecide
/// limit was exceeded); `false` in other models.
pub(crate) fn loop_guard(program: &Program, state: &[u8]) -> bool {
    decider_model(program) && flags(state, program.layout()) & FLAG_LOOP_GUARD != 0
}

/// Introspection (`Program::active_path`): whether `probe` says its node is active in this
/// model: the root decider is active, or (under an active root) a group's active child is the
/// probe's. Other probes are never active here.
pub(crate) fn probe(state: &[u8], l: &Layout, probe: crate::program::Probe) -> bool {
    use crate::program::Probe;
    let root = flags(state, l) & FLAG_ROOT_ACTIVE != 0;
    match probe {
        Probe::Root => root,
        Probe::Child { group, child } => {
            root && group < l.group_count && active(state, l, group) == child.saturating_add(1)
        }
        _ => false,
    }
}
