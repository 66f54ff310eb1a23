//! Spore's parameters for the nesting pre-scan (`syntax::canonical::nesting`): how deep the
//! deciders of a block sit. This file never scans tokens itself.

use super::super::canonical::lexer::Spanned;
use super::super::canonical::nesting::{self, Blocks};
use crate::diag::Diagnostic;
use crate::source::FileId;

/// Spore's blocks: each block level holds a group and its child deciders, so the deciders of a
/// non-empty block opened at brace depth `d` sit at IR depth `2d + 1` (the root decider is
/// depth 1, its group 2). (The exact depth, through shared deciders, is checked on the tree by
/// [`crate::check`].)
const DECIDERS: Blocks = Blocks {
    held_depth: |braces| 2 * braces + 1,
    too_deep: |depth, limit| {
        format!(
            "deciders are nested too deeply: this block's deciders would be at depth {depth}, but the limit is {limit}"
        )
    },
};

/// Checks bracket nesting over the token list (see [`nesting::check`]).
pub(super) fn check(
    file: FileId,
    tokens: &[Spanned<'_>],
    limits: &btvm::Limits,
) -> Result<(), Diagnostic> {
    nesting::check(file, tokens, limits, &DECIDERS)
}
