//! # btvm — the runtime every engine shares
//!
//! This crate is what a game server links. It defines the vocabulary every btvm engine speaks:
//! node [`Status`], expression [`Value`]s, the interned [`Strings`] table, the ids of agents and
//! imports, the [`Host`] trait through which a tree calls the game, and the [`Limits`] that bound
//! every stage of the pipeline.
//!
//! The bytecode `Program`, its verifier, the `Vm` and the native engine build on these types.
//!
//! **Invariant:** this crate knows nothing about source formats and never depends on
//! `btvm-compiler`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod host;
mod ids;
mod limits;
mod prng;
mod status;
mod strings;
mod value;

pub use host::{Call, Host, Import, ImportKind, Phase};
pub use ids::{AgentId, ImportId, Millis, StrId};
pub use limits::Limits;
pub use prng::Prng;
pub use status::Status;
pub use strings::Strings;
pub use value::{fmt_float, write_quoted, Value};
