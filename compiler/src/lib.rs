//! # btvm-compiler
//!
//! Everything between a tree's source text and an engine: the dialect front-ends
//! ([`syntax`]), the one IR ([`ir`]), the reference interpreter ([`reference`](mod@reference)), scripted
//! scenarios and traces ([`scenario`]), and diagnostics ([`diag`]). The `btvm` command-line tool
//! is built on this library.
//!
//! **Invariant:** nothing in this library prints or panics on input; every failure is a
//! [`Diagnostic`](diag::Diagnostic) with a span.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod check;
pub mod debug;
pub mod diag;
pub mod ir;
pub mod load;
pub mod lower;
pub mod reference;
pub mod scenario;
pub mod source;
pub mod syntax;
pub mod view;
