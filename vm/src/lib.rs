//! # btvm — the runtime every engine shares
//!
//! This crate is what a game server links. It defines the vocabulary every btvm engine speaks:
//! node [`Status`], expression [`Value`]s, the interned [`Strings`] table, the ids of agents and
//! imports, the [`Host`] trait through which a tree calls the game, and the [`Limits`] that bound
//! every stage of the pipeline.
//!
//! On these types sit the bytecode [`Program`] (its instruction set, file format, disassembler
//! and verifier, in [`program`]), the [`Vm`] that runs a program for one agent's state block,
//! [`Batch`] for many agents, and [`native`] (feature `jit`, on by default), which compiles a
//! program to machine code with Cranelift. [`Engine`] is the facade over the vm and native code;
//! it falls back to the vm where native code cannot be produced.
//!
//! **Invariant:** this crate knows nothing about source formats and never depends on
//! `btvm-compiler`.
#![deny(missing_docs)]
// `unsafe` is allowed only in `native` (the entry points into machine code and the host
// trampolines); everything else must stay safe.
#![deny(unsafe_code)]

mod batch;
mod binop;
pub mod decider;
mod engine;
mod error;
mod exec;
mod halt;
mod host;
mod ids;
mod limits;
mod model;
#[cfg(feature = "jit")]
pub mod native;
mod prng;
pub mod program;
mod reload;
mod snapshot;
mod status;
mod strings;
mod value;
mod vm;

pub use batch::Batch;
#[cfg(feature = "rayon")]
pub use batch::{ParTick, Shard, ShardTick};
pub use binop::BinOp;
pub use decider::{DeciderView, GroupView, Stimulus};
pub use engine::{Engine, EngineKind, Fallback, FallbackKind};
pub use error::VmError;
pub use exec::Scratch;
pub use halt::Halt;
pub use host::{Call, Host, Import, ImportKind, NodeEvent, Phase, SlotClaims};
pub use ids::{AgentId, EventId, ImportId, Millis, StrId, MAX_CLOCK};
pub use limits::Limits;
pub use model::active::ActiveNode;
pub use model::lifecycle::scope_id;
pub use prng::Prng;
pub use program::{Program, ProgramError, ProgramErrorKind};
pub use reload::{Carried, Reload};
pub use snapshot::{AgentRecord, CursorSnapshot, Snapshot, SnapshotError};
pub use status::Status;
pub use strings::Strings;
pub use value::{fmt_float, write_quoted, Value};
pub use vm::Vm;

// The model modules' old paths, which the native engine still names (kept until its files are
// next edited; nothing else may use them).
