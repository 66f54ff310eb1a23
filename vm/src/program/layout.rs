//! The agent's state block: the [`Layout`] the compiler computed, the flag bits and record sizes
//! every model shares, and the byte accessors every model reads and writes it through.
//!
//! This is a leaf: it knows no instruction, no model's meaning of a field and no engine, and it
//! must never panic: out-of-range accesses read zero and write nothing.

/// A little-endian unsigned field of the state block; `width` 0 means absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Field {
    /// Byte offset in the state block.
    pub offset: u32,
    /// Width in bytes: 0, 1, 2 or 4.
    pub width: u8,
}

impl Field {
    /// The largest value the field can hold.
    pub fn max(self) -> u64 {
        match self.width {
            0 => 0,
            w => (1u64 << (8 * u32::from(w))) - 1,
        }
    }
}

/// Where each piece of per-agent state lives in the state block. A fresh agent is all zeroes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Total bytes per agent.
    pub size: u32,
    /// The current-action slot: 0 = none, `k + 1` = action ordinal `k` is running.
    pub current: Field,
    /// How many action ordinals exist.
    pub actions: u32,
    /// How many identities the running list holds.
    pub count: Field,
    /// The running list's capacity (the game's `MAX_NODE_DEPTH`).
    pub capacity: u32,
    /// Byte offset of the running-list bit set.
    pub list: u32,
    /// Bits in the running-list set.
    pub bits: u32,
    /// Byte offset of the cooldown timers (`i64` expiry times, little-endian).
    pub timers: u32,
    /// Number of timers.
    pub timer_count: u32,
    /// Byte offset of the PRNG state (`u64`, 0 = not yet seeded), if the program draws random
    /// numbers.
    pub rng: Option<u32>,
    /// Cursor model: the rule the cursor rests on (an index into the rule table).
    pub cursor: Field,
    /// One byte of model flags: cursor model [`FLAG_STARTED`], [`FLAG_STOPPED`],
    /// [`FLAG_RUNAWAY`], [`FLAG_NO_RULE`]; decider model [`FLAG_ROOT_ACTIVE`], [`FLAG_LOOP_GUARD`].
    pub flags: Field,
    /// Decider model: byte offset of the decider header ([`DECIDER_HEADER`] bytes: the
    /// DecisionFlags word `u32`, the present-stimuli word `u32`, the never-expiring-stimuli word
    /// `u32`, the root's `since` `i64`). In decider programs the `timers` hold each `every`
    /// decider's `next` time, biased so that 0 is minus infinity (see [`every_decode`]).
    pub decider: u32,
    /// Decider model: byte offset of the group records ([`GROUP_RECORD`] bytes each: the active
    /// child `u8`, 0 = none and `k + 1` = child `k`, then `since` `i64`), one per `group` node
    /// in arena order.
    pub groups: u32,
    /// Decider model: how many group records there are.
    pub group_count: u32,
    /// Decider model: byte offset of the stimulus records ([`STIMULUS_RECORD`] bytes each: the
    /// expiry `i64`, then the data `i64`), one per declared stimulus
    /// ([`ProgramParts::stimuli`](super::ProgramParts::stimuli)).
    pub stimuli: u32,
    /// Lifecycle and selection models: byte offset of the variable bits, one per variable
    /// (bit `k % 8` of byte `k / 8`), each stored as `value XOR default`, so a fresh (all-zero)
    /// agent holds every default.
    pub vars: u32,
    /// Lifecycle and selection models: how many variables live in the state (all of
    /// [`ProgramParts::vars`](super::ProgramParts::vars), which hold their defaults; 0 in other models).
    pub var_count: u32,
    /// Lifecycle and selection models: byte offset of the timestamp records
    /// ([`STAMP_RECORD`] bytes each: the time `i64`, then a byte with bit 0 *ever set* and
    /// bit 1 *valid*).
    pub stamps: u32,
    /// How many timestamp records there are.
    pub stamp_count: u32,
    /// Lifecycle and selection models: byte offset of the node records (each node's runtime
    /// data, in pre-order, so a subtree's records are one contiguous byte range; in the
    /// lifecycle model a state machine's or priority's children share one stretch, see
    /// [`NodeTable::overlays`](super::NodeTable::overlays); record operands of instructions
    /// are offsets into this region).
    pub records: u32,
    /// Bytes of node records.
    pub records_len: u32,
    /// Selection model: the current leaf (0 = none, `k + 1` = leaf `k`).
    pub leaf: Field,
    /// Selection model: how many leaves (`select` nodes) there are.
    pub leaves: u32,
}

/// Cursor-model flag: the current rule has run (`first_run` is false). Clear in a fresh agent,
/// so `first_run` starts true.
pub const FLAG_STARTED: u8 = 1;
/// Cursor-model flag: the root failed and the tree is stopped until a reset.
pub const FLAG_STOPPED: u8 = 2;
/// Cursor-model flag: a step hit the run-away limit and the tree is stopped until a reset.
pub const FLAG_RUNAWAY: u8 = 4;
/// Cursor-model flag: the context has no current rule (a restored record named a rule id the
/// tree lacks). The next step runs nothing, fails and stops the tree, as Drag\[en\]gine's
/// `BTContext.stepBehaviorTree` returns false without a current rule and its game integration
/// then stops the tree (`spec/semantics.md` §4.2).
pub const FLAG_NO_RULE: u8 = 128;

/// Decider-model flag: the root decider is active.
pub const FLAG_ROOT_ACTIVE: u8 = 8;
/// Decider-model flag: the last tick ended with the loop guard (redecide limit exceeded).
pub const FLAG_LOOP_GUARD: u8 = 16;
/// Lifecycle and selection flag: no variable changed (the inverse of `changed`, so a fresh
/// agent starts with `changed` true). The lifecycle model also uses [`FLAG_STOPPED`] (the root
/// finished and the tree stopped).
pub const FLAG_UNCHANGED: u8 = 32;
/// Lifecycle flag: `changed` as it was when the current tick began (`changed_before`).
pub const FLAG_CHANGED_BEFORE: u8 = 64;
/// Bytes of one timestamp record (see [`Layout::stamps`]).
pub const STAMP_RECORD: u32 = 9;
/// The most states a selection-model state machine may have (its visited set is 32 bits), and
/// the most children of a lifecycle parallel (its masks are at most 32 bits).
pub const MAX_STATES: u32 = 32;

/// Bytes of the decider header (see [`Layout::decider`]).
pub const DECIDER_HEADER: u32 = 20;
/// Bytes of one group record (see [`Layout::groups`]).
pub const GROUP_RECORD: u32 = 9;
/// Bytes of one stimulus record (see [`Layout::stimuli`]).
pub const STIMULUS_RECORD: u32 = 16;
/// The most children a decider-model group may have (child operands are below it).
pub const MAX_CHILDREN: u32 = crate::decider::MAX_GROUP_CHILDREN as u32;

/// An `every` timer as stored (biased by `i64::MIN`, so a fresh 0 is minus infinity) to the
/// time it holds.
pub fn every_decode(stored: u64) -> crate::Millis {
    (stored ^ (1 << 63)) as i64
}

/// A time to its stored `every` timer form (the inverse of [`every_decode`]).
pub fn every_encode(t: crate::Millis) -> u64 {
    (t as u64) ^ (1 << 63)
}

impl Layout {
    /// Bytes used by the running-list bit set.
    pub fn list_bytes(&self) -> u32 {
        self.bits.div_ceil(8)
    }
}

/// Reads field `f` (zero if it lies outside `state` or has no width).
#[inline]
pub(crate) fn read(state: &[u8], f: Field) -> u32 {
    let at = f.offset as usize;
    match f.width {
        1 => state.get(at).copied().map_or(0, u32::from),
        2 => state
            .get(at..at + 2)
            .map_or(0, |b| u32::from(u16::from_le_bytes([b[0], b[1]]))),
        4 => state
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => 0,
    }
}

/// Writes the low `f.width` bytes of `v` (one arm per width, so each is a plain store rather
/// than a variable-length copy).
#[inline]
pub(crate) fn write(state: &mut [u8], f: Field, v: u32) {
    let at = f.offset as usize;
    match f.width {
        1 => {
            if let Some(b) = state.get_mut(at) {
                *b = v as u8;
            }
        }
        2 => {
            if let Some(b) = state.get_mut(at..at + 2) {
                b.copy_from_slice(&(v as u16).to_le_bytes());
            }
        }
        4 => {
            if let Some(b) = state.get_mut(at..at + 4) {
                b.copy_from_slice(&v.to_le_bytes());
            }
        }
        _ => {}
    }
}

/// Reads the little-endian `u64` at byte `at` (zero if out of range).
#[inline]
pub(crate) fn read_u64(state: &[u8], at: usize) -> u64 {
    state.get(at..at + 8).map_or(0, |b| {
        let mut a = [0; 8];
        a.copy_from_slice(b);
        u64::from_le_bytes(a)
    })
}

/// Writes `v` as a little-endian `u64` at byte `at` (nothing if out of range).
#[inline]
pub(crate) fn write_u64(state: &mut [u8], at: usize, v: u64) {
    if let Some(b) = state.get_mut(at..at + 8) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}
