//! # btvm-testkit
//!
//! What btvm's tests, fuzz targets and benchmarks share, and nothing a server needs
//! (`publish = false`): random trees and scenarios ([`gen`], with proptest [`strategies`] over
//! them and a feature [`census`](features)), the differential check that runs one scenario on
//! every engine and compares the traces ([`compare`], including the vm and native code taking
//! turns), the conformance case format of `spec/cases` ([`case`]), hosts that answer anything
//! ([`hosts`]), in-memory front-end loading ([`front`]), canonical-syntax fixtures
//! ([`fixtures`]) and the shape of node-level traces ([`nodes`]).
//!
//! The library crates (`btvm`, `btvm-compiler`) never depend on this one.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod case;
pub mod compare;
pub mod features;
pub mod fixtures;
pub mod front;
pub mod gen;
pub mod hosts;
pub mod nodes;
pub mod strategies;
