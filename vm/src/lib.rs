//! # btvm — the runtime every engine shares
//!
//! This crate is what a game server links. It defines the vocabulary every btvm engine speaks:
//! node [`Status`], expression [`Value`]s, the interned [`Strings`] table, the ids of agents and
//! imports, the [`Host`] trait through which a tree calls the game, and the [`Limits`] that bound
//! every stage of the pipeline.
//!
//! On these types sit the bytecode [`Program`] (its instruction set, file format, disassembler
//! and verifier, in [`program`]), the [`Vm`] that runs a program for one agent's state block,
//! and [`Batch`] for many agents.
//!
//! **Invariant:** this crate knows nothing about source formats and never depends on
//! `btvm-compiler`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod batch;
mod binop;
mod exec;
mod host;
mod ids;
mod limits;
mod prng;
pub mod program;
mod status;
mod strings;
mod value;

pub use batch::Batch;
pub use binop::BinOp;
pub use exec::{Scratch, Vm, VmError};
pub use host::{Call, Host, Import, ImportKind, Phase};
pub use ids::{AgentId, ImportId, Millis, StrId};
pub use limits::Limits;
pub use prng::Prng;
pub use program::{Program, ProgramError, ProgramErrorKind};
pub use status::Status;
pub use strings::Strings;
pub use value::{fmt_float, write_quoted, Value};
