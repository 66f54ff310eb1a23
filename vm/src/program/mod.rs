//! Compiled programs: the flat, resumable bytecode every fast engine runs.
//!
//! A [`Program`] is immutable and shared by every agent (`Send + Sync`); each agent owns only a
//! zero-initialised state block of [`Program::state_size`] bytes whose layout ([`Layout`]) the
//! compiler computed. The only ways to get a `Program` are [`Program::new`] (from
//! [`ProgramParts`], as the compiler's lowering builds them) and [`Program::decode`] (from a
//! program file); both run the verifier, so **every `Program` is verified**.
//!
//! The format and the semantics of every instruction are specified in `spec/bytecode.md`.

mod access;
mod codec;
mod disasm;
mod error;
mod isa;
mod layout;
mod node_codec;
mod nodes;
mod verify;

pub use codec::{fingerprint, Reader, MAGIC, OLDEST_VERSION, VERSION};
pub use error::{ProgramError, ProgramErrorKind};
pub use isa::{
    ActionNo, Back, Bit, Func, Group, Imp, Instr, Label, Operand, OperandRef, RBit, RuleNo, Stamp,
    Str, Temp, Timer, Var,
};
pub use layout::{
    every_decode, every_encode, Field, Layout, DECIDER_HEADER, FLAG_CHANGED_BEFORE,
    FLAG_LOOP_GUARD, FLAG_NO_RULE, FLAG_ROOT_ACTIVE, FLAG_RUNAWAY, FLAG_STARTED, FLAG_STOPPED,
    FLAG_UNCHANGED, GROUP_RECORD, MAX_CHILDREN, MAX_STATES, STAMP_RECORD, STIMULUS_RECORD,
};
pub(crate) use layout::{read, read_u64, write, write_u64};
pub use node_codec::NODE_MAGIC;
pub use nodes::{
    ArgNames, Cell, CellKind, NodeInfo, NodeTable, Overlay, Probe, TreeNames, MAX_NODE_TEXT,
};

use crate::{Import, Strings, Value};

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
    /// The node table, for tools (empty: absent). Not part of the fingerprint.
    pub nodes: NodeTable,
}

/// A verified program: immutable, `Send + Sync`, and a cheap clone (its contents are shared
/// through an `Arc`), so engines, batches and servers own it without lifetimes:
///
/// ```
/// struct Server {
///     batch: btvm::Batch,
///     program: btvm::Program,
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    data: std::sync::Arc<Data>,
}

/// What a [`Program`] shares between its clones.
#[derive(Debug)]
struct Data {
    parts: ProgramParts,
    strings: Strings,
    fingerprint: u64,
    facts: verify::Facts,
    /// Where agents keep their AI group and the scope memberships they can hold (lifecycle
    /// model; empty elsewhere), found once so moving an agent between groups does not search
    /// the code.
    scopes: crate::model::lifecycle::GroupScopes,
    /// The default native compilation, made on first use (`Program::native`).
    #[cfg(feature = "jit")]
    native: NativeCache,
}

/// The cached native compilation of a program.
#[cfg(feature = "jit")]
type NativeCache = std::sync::OnceLock<
    Result<std::sync::Arc<crate::native::NativeCode>, crate::native::NativeError>,
>;
