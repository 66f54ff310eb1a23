//! Front-ends: one module per dialect, plus the canonical syntax.
//!
//! Each front-end turns source text into an [`ir::Tree`](crate::ir::Tree) or positioned
//! diagnostics. Front-ends read files only through a [`FileSystem`](crate::source::FileSystem)
//! and check nesting depth before recursing, so no input can overflow the stack.
//!
//! Shared by all of them: `files` (reading a file into the source map, with the one
//! I/O diagnostic), the game [`Profile`]s, and the XML helpers.

pub mod bst;
pub mod canonical;
pub mod cryexpr;
pub mod dragengine;
pub(crate) mod files;
pub mod mbt;
pub mod profile;
pub mod spore;
pub mod unvanquished;
pub(crate) mod xml;

pub use profile::Profile;
