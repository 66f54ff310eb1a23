//! The nesting pre-scan over a token list: rejects blocks and parentheses nested past the
//! limits before the recursive grammar runs, so no input can make a parser (or anything after
//! it) recurse without bound.
//!
//! Shared by the canonical syntax and Spore, which differ only in how deep a block's contents
//! sit ([`Blocks`]). This module never parses and never checks exact depths: those are checked
//! afterwards, on the expressions and the tree.

use super::lexer::{Spanned, Tok};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};

/// How a syntax's brace nesting maps to tree depth.
pub(in crate::syntax) struct Blocks {
    /// The tree depth of what a non-empty block opened at brace depth `braces` (1 for the
    /// outermost block) holds.
    pub held_depth: fn(braces: u64) -> u64,
    /// The message for a block whose contents would sit at `depth`, past `limit`.
    pub too_deep: fn(depth: u64, limit: u32) -> String,
}

/// The canonical syntax's blocks: a `{` that opens a non-empty block at brace depth `d` holds
/// nodes at depth `d + 1`.
pub(in crate::syntax) const NODES: Blocks = Blocks {
    held_depth: |braces| braces + 1,
    too_deep: |depth, limit| {
        format!(
            "nodes are nested too deeply: this block would hold nodes at depth {depth}, but the limit is {limit}"
        )
    },
};

/// Checks bracket nesting before any recursive parsing, so no input can make the parser recurse
/// deeper than the limits allow.
///
/// * A non-empty block's contents sit at [`Blocks::held_depth`], which must not exceed
///   `max_depth` (nor 1, so a limit of 0 still admits the outermost node).
/// * Parentheses may nest at most `max_expr_depth + 1` deep: an expression within
///   `max_expr_depth` never needs more (its own grouping plus one argument list at the bottom).
pub(in crate::syntax) fn check(
    file: FileId,
    tokens: &[Spanned<'_>],
    limits: &btvm::Limits,
    blocks: &Blocks,
) -> Result<(), Diagnostic> {
    let max_depth = u64::from(limits.max_depth).max(1);
    let max_parens = u64::from(limits.max_expr_depth) + 1;
    let mut braces = 0u64;
    let mut parens = 0u64;
    for (i, (tok, span)) in tokens.iter().enumerate() {
        let at = || Span::new(file, span.start, span.end);
        match tok {
            Tok::LBrace => {
                braces += 1;
                let empty = matches!(tokens.get(i + 1), Some((Tok::RBrace, _)));
                let depth = (blocks.held_depth)(braces);
                if !empty && depth > max_depth {
                    return Err(Diagnostic::new(
                        ErrorKind::NestTooDeep,
                        at(),
                        (blocks.too_deep)(depth, limits.max_depth),
                    ));
                }
            }
            Tok::RBrace => braces = braces.saturating_sub(1),
            Tok::LParen => {
                parens += 1;
                if parens > max_parens {
                    return Err(Diagnostic::new(
                        ErrorKind::NestTooDeep,
                        at(),
                        format!(
                            "parentheses are nested too deeply: more than {max_parens} levels (expression depth limit {})",
                            limits.max_expr_depth
                        ),
                    ));
                }
            }
            Tok::RParen => parens = parens.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}
