//! Compiled programs: the flat, resumable bytecode every fast engine runs.
//!
//! A [`Program`] is immutable and shared by every agent (`Send + Sync`); each agent owns only a
//! zero-initialised state block of [`Program::state_size`] bytes whose layout ([`Layout`]) the
//! compiler computed. The only ways to get a `Program` are [`Program::new`] (from
//! [`ProgramParts`], as the compiler's lowering builds them) and [`Program::decode`] (from a
//! program file); both run the verifier, so **every `Program` is verified**.
//!
//! The format and the semantics of every instruction are specified in `spec/bytecode.md`.

mod codec;
mod disasm;
mod error;
mod isa;
mod verify;

pub use codec::{fingerprint, Reader, MAGIC, VERSION};
pub use error::{ProgramError, ProgramErrorKind};
pub use isa::{
    ActionNo, Back, Bit, Func, Group, Imp, Instr, Label, Operand, OperandRef, RBit, RuleNo, Stamp,
    Str, Temp, Timer, Var,
};

use crate::{Import, Limits, Strings, Value};

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
    /// ([`ProgramParts::stimuli`]).
    pub stimuli: u32,
    /// Lifecycle and selection models: byte offset of the variable bits, one per variable
    /// (bit `k % 8` of byte `k / 8`), each stored as `value XOR default`, so a fresh (all-zero)
    /// agent holds every default.
    pub vars: u32,
    /// Lifecycle and selection models: how many variables live in the state (all of
    /// [`ProgramParts::vars`], which hold their defaults; 0 in other models).
    pub var_count: u32,
    /// Lifecycle and selection models: byte offset of the timestamp records
    /// ([`STAMP_RECORD`] bytes each: the time `i64`, then a byte with bit 0 *ever set* and
    /// bit 1 *valid*).
    pub stamps: u32,
    /// How many timestamp records there are.
    pub stamp_count: u32,
    /// Lifecycle and selection models: byte offset of the node records (each node's runtime
    /// data, in arena order, so a subtree's records are one contiguous byte range; record
    /// operands of instructions are offsets into this region).
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

/// What kind of code a function holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// A tree entry: ends its tick with `finish`.
    Entry,
    /// A subtree called by `call`: ends with `return`.
    Subtree,
    /// An event of the lifecycle or selection model (named after it): ends with `return`;
    /// reached by `call` from `send` nodes during a tick, and by
    /// [`Engine::event`](crate::Engine::event) between ticks.
    Event,
    /// The lifecycle model's restart (at most one per program): terminates the live tree,
    /// innermost first, with its host calls, and ends with `return`; run by
    /// [`Engine::restart_agent`](crate::Engine::restart_agent) before the state becomes fresh,
    /// never by `call`.
    Restart,
}

/// A contiguous range of code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Function {
    /// The entry or subtree name (for disassembly and errors).
    pub name: String,
    /// Entry or subtree.
    pub kind: FunctionKind,
    /// First instruction.
    pub start: u32,
    /// One past the last instruction.
    pub end: u32,
}

/// The execution model the program was compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProgramModel {
    /// Unvanquished's running list (`spec/semantics.md` 4.1).
    RunningList,
    /// Drag\[en\]gine's cursor (`spec/semantics.md` 4.2).
    Cursor {
        /// Rule runs per step before the step is a run-away.
        limit: u32,
    },
    /// Spore's decider trees (`spec/spore.md` 2).
    Decider {
        /// Redecides per tick before the tick ends with the loop guard.
        limit: u32,
    },
    /// MBT's node lifecycle (`spec/mbt.md` 2).
    Lifecycle,
    /// BST's selection (`spec/bst.md` 2).
    Selection {
        /// State-machine transitions one tick may take (counted by `sel.visit`; the lowering
        /// gives the total number of states, which no evaluation can exceed).
        limit: u32,
    },
}

/// One rule of the cursor model: where its code starts, and its id (for snapshots).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The first instruction of the rule's code.
    pub label: u32,
    /// The rule id, if the rule has one.
    pub id: Option<String>,
}

/// Everything a program is made of, as the lowering produces it. [`Program::new`] verifies it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramParts {
    /// The execution model.
    pub model: ProgramModel,
    /// Whether host float results are rounded to binary32.
    pub single_precision: bool,
    /// The tree's time unit in units per millisecond (1..=[`crate::MAX_CLOCK`]; not 1 only in
    /// the lifecycle model): timers, timestamps and durations count these units, and the
    /// engines multiply `now` by it where the tree reads the time. Hosts still see `now` in
    /// milliseconds ([`crate::Call::now`]).
    pub clock: u32,
    /// The state layout.
    pub layout: Layout,
    /// The string table (distinct strings; `StrId(i)` is entry `i`).
    pub strings: Vec<String>,
    /// The import table.
    pub imports: Vec<Import>,
    /// Variable values (read-only in the running-list model; the defaults of the state's
    /// variables in the lifecycle and selection models).
    pub vars: Vec<Value>,
    /// The variables' names (one per variable), for [`Program::var_index`].
    pub var_names: Vec<String>,
    /// Counter registers used by parallel nodes.
    pub temps: u32,
    /// The functions; entries first, in the tree's entry order (the first is the main tree).
    pub functions: Vec<Function>,
    /// The cursor model's rule table (empty in other models); rule 0 is the root.
    pub rules: Vec<Rule>,
    /// Decider model: how many stimuli the tree declared (0 in other models; at most 32).
    pub stimuli: u32,
    /// The code.
    pub code: Vec<Instr>,
}

/// A verified program.
#[derive(Clone, Debug)]
pub struct Program {
    parts: ProgramParts,
    strings: Strings,
    fingerprint: u64,
    facts: verify::Facts,
    /// The default native compilation, made on first use (`Program::native`).
    #[cfg(feature = "jit")]
    native: NativeCache,
}

/// The cached native compilation of a program.
#[cfg(feature = "jit")]
type NativeCache = std::sync::OnceLock<
    std::sync::Arc<Result<crate::native::NativeCode, crate::native::NativeError>>,
>;

impl Program {
    /// Verifies `parts` under `limits` and builds the program.
    pub fn new(parts: ProgramParts, limits: &Limits) -> Result<Program, ProgramError> {
        let facts = verify::verify(&parts, limits)?;
        let mut strings = Strings::new();
        for s in &parts.strings {
            strings.intern(s);
        }
        let fingerprint = codec::fingerprint(&codec::encode_body(&parts));
        Ok(Program {
            parts,
            strings,
            fingerprint,
            facts,
            #[cfg(feature = "jit")]
            native: NativeCache::new(),
        })
    }

    /// Reads and verifies a program file written by [`Program::encode`].
    pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Program, ProgramError> {
        let parts = codec::decode(bytes, limits)?;
        Program::new(parts, limits)
    }

    /// The program file: magic, version, fingerprint, then the parts.
    pub fn encode(&self) -> Vec<u8> {
        codec::encode(&self.parts, self.fingerprint)
    }

    /// The parts the program was built from.
    pub fn parts(&self) -> &ProgramParts {
        &self.parts
    }

    /// A 64-bit hash of the program's contents: snapshots of agent state are only valid for a
    /// program with the same fingerprint.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Bytes of state per agent.
    pub fn state_size(&self) -> usize {
        self.parts.layout.size as usize
    }

    /// A fresh agent's state block (all zeroes).
    pub fn new_state(&self) -> Vec<u8> {
        vec![0; self.state_size()]
    }

    /// The import table.
    pub fn imports(&self) -> &[Import] {
        &self.parts.imports
    }

    /// The strings `Value::Str` values refer to.
    pub fn strings(&self) -> &Strings {
        &self.strings
    }

    /// The entry functions' names, main first.
    pub fn entries(&self) -> impl Iterator<Item = &str> {
        self.parts
            .functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry)
            .map(|f| f.name.as_str())
    }

    /// The function index of the named entry.
    pub fn entry(&self, name: &str) -> Option<u32> {
        self.parts
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Entry && f.name == name)
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The main entry's function index (the first entry), if any.
    pub fn main(&self) -> Option<u32> {
        self.parts
            .functions
            .iter()
            .position(|f| f.kind == FunctionKind::Entry)
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The deepest operand stack any tick needs.
    pub fn max_stack(&self) -> u32 {
        self.facts.max_stack
    }

    /// The deepest chain of subtree calls.
    pub fn max_calls(&self) -> u32 {
        self.facts.max_calls
    }

    /// The most instructions one tick of any entry can execute (proved by the verifier).
    pub fn tick_budget(&self) -> u64 {
        self.facts.tick_cost
    }

    /// The code.
    pub fn code(&self) -> &[Instr] {
        &self.parts.code
    }

    /// The state layout.
    pub fn layout(&self) -> &Layout {
        &self.parts.layout
    }

    /// The execution model.
    pub fn model(&self) -> ProgramModel {
        self.parts.model
    }

    /// The tree's time unit, in units per millisecond ([`ProgramParts::clock`]).
    pub fn clock(&self) -> u32 {
        self.parts.clock
    }

    /// The functions.
    pub fn functions(&self) -> &[Function] {
        &self.parts.functions
    }

    /// The variable values.
    pub fn vars(&self) -> &[Value] {
        &self.parts.vars
    }

    /// Whether host float results are rounded to binary32.
    pub fn single_precision(&self) -> bool {
        self.parts.single_precision
    }

    /// Counter registers needed per tick.
    pub fn temps(&self) -> u32 {
        self.parts.temps
    }

    /// The cursor model's rule table (empty in other models).
    pub fn rules(&self) -> &[Rule] {
        &self.parts.rules
    }

    /// Why the agent whose state is `state` no longer runs, if it is halted (cursor model:
    /// stopped or run-away; lifecycle model: stopped after the root finished).
    pub fn halt(&self, state: &[u8]) -> Option<crate::Halt> {
        if !matches!(
            self.parts.model,
            ProgramModel::Cursor { .. } | ProgramModel::Lifecycle
        ) {
            return None;
        }
        let flags = crate::exec::read(state, self.parts.layout.flags) as u8;
        if flags & FLAG_RUNAWAY != 0 {
            Some(crate::Halt::RunAway)
        } else if flags & FLAG_STOPPED != 0 {
            Some(crate::Halt::Stopped)
        } else {
            None
        }
    }

    /// Resets an agent's behaviour state, as the dialect's game does.
    ///
    /// In the running-list model this is Unvanquished's `G_Bot_ResetBehaviorState`: the
    /// current-action slot and the running list are cleared, and everything else (cooldown
    /// timers, which the game keeps in the tree's nodes) survives. In every other model the
    /// state becomes fresh (all zeroes), as after [`Program::new_state`]; in the cursor model
    /// this is Drag\[en\]gine's `reset()`: the cursor returns to the root and a stopped tree
    /// runs again. A lifecycle agent keeps its AI group ([`Program::group`]); one holding group
    /// scopes should be reset with [`Engine::reset_agent`](crate::Engine::reset_agent), which
    /// also leaves them.
    pub fn reset(&self, state: &mut [u8]) {
        if self.parts.model == ProgramModel::RunningList {
            let l = &self.parts.layout;
            crate::exec::write(state, l.current, 0);
            crate::exec::clear_list(state, l);
        } else {
            let group = self.group(state);
            state.fill(0);
            if group != 0 {
                crate::lifecycle_exec::write_group(self, state, group);
            }
        }
    }

    #[cfg(feature = "jit")]
    pub(crate) fn native_cache(&self) -> &NativeCache {
        &self.native
    }
}
