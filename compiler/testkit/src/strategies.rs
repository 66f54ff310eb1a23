//! Proptest strategies over the library's generators ([`crate::gen`]): each draws a
//! random byte string and reads a value from it. The generators' docs say what they cover.
//!
//! Failing cases shrink by shrinking the bytes (dropping them, or lowering them towards zero,
//! which moves every choice towards its first, smallest option).

use std::fmt::Debug;

use crate::gen;
use arbitrary::Unstructured;
use btvm_compiler::ir::Tree;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

pub use crate::gen::{GenConfig, RlConfig};

/// Most bytes a strategy draws (the count is uniform below it). The default configurations
/// read about 0.5 KiB for a tree ([`tree`]) and 1.5 KiB for a running-list case (5 KiB at
/// most in 10,000), so all but a few percent of cases are read from bytes that do not run
/// out.
pub const MAX_BYTES: usize = 32 * 1024;

/// The values `f` reads from random byte strings shorter than `max_len`.
pub fn from_bytes<T: Debug + 'static>(
    max_len: usize,
    f: impl Fn(&mut Unstructured<'_>) -> arbitrary::Result<T> + 'static,
) -> BoxedStrategy<T> {
    vec(any::<u8>(), 0..max_len)
        .prop_map(move |bytes| f(&mut Unstructured::new(&bytes)).expect("generators never fail"))
        .boxed()
}

/// Any valid tree ([`gen::tree`]).
pub fn tree(cfg: GenConfig) -> BoxedStrategy<Tree> {
    from_bytes(MAX_BYTES, move |u| gen::tree(u, &cfg))
}

/// Running-list trees every engine runs ([`gen::running_list_tree`]).
pub fn running_list_tree(cfg: RlConfig) -> BoxedStrategy<Tree> {
    from_bytes(MAX_BYTES, move |u| gen::running_list_tree(u, &cfg))
}

/// Cursor-model trees every engine runs ([`gen::cursor_tree`]).
pub fn cursor_tree(cfg: RlConfig) -> BoxedStrategy<Tree> {
    from_bytes(MAX_BYTES, move |u| gen::cursor_tree(u, &cfg))
}

/// A running-list tree and a scenario for it, as text ([`gen::running_list_case`]).
pub fn running_list_case(cfg: RlConfig) -> BoxedStrategy<(Tree, String)> {
    from_bytes(MAX_BYTES, move |u| {
        gen::running_list_case(u, &cfg).map(|c| (c.tree, c.scenario))
    })
}

/// A cursor-model tree and a scenario for it, as text, with resets and missing imports
/// ([`gen::cursor_case`]).
pub fn cursor_case(cfg: RlConfig) -> BoxedStrategy<(Tree, String)> {
    from_bytes(MAX_BYTES, move |u| {
        gen::cursor_case(u, &cfg).map(|c| (c.tree, c.scenario))
    })
}

/// A decider-model (Spore) tree and a scenario for it, as text, with decision flags, stimuli
/// and resets ([`gen::decider_case`]).
pub fn decider_case(cfg: RlConfig) -> BoxedStrategy<(Tree, String)> {
    from_bytes(MAX_BYTES, move |u| {
        gen::decider_case(u, &cfg).map(|c| (c.tree, c.scenario))
    })
}
