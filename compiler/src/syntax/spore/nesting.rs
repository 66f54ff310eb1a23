//! The nesting pre-scan: rejects blocks and parentheses nested past the limits before the
//! recursive grammar runs, so no input can make the parser (or anything after it) recurse
//! without bound.

use super::super::canonical::lexer::{Spanned, Tok};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};

/// Checks bracket nesting over the token list.
///
/// * Each block level holds a group and its child deciders: the deciders of a non-empty block
///   opened at brace depth `d` sit at IR depth `2d + 1` (the root decider is depth 1, its group
///   2), which must not exceed `max_depth`. (The exact depth, through shared deciders, is
///   checked on the tree by [`crate::check`].)
/// * Parentheses may nest at most `max_expr_depth + 1` deep, as in the canonical syntax: an
///   expression within `max_expr_depth` never needs more.
pub(super) fn check(
    file: FileId,
    tokens: &[Spanned<'_>],
    limits: &btvm::Limits,
) -> Result<(), Diagnostic> {
    let max_depth = u64::from(limits.max_depth);
    let max_parens = u64::from(limits.max_expr_depth) + 1;
    let mut braces = 0u64;
    let mut parens = 0u64;
    for (i, (tok, span)) in tokens.iter().enumerate() {
        match tok {
            Tok::LBrace => {
                braces += 1;
                let empty = matches!(tokens.get(i + 1), Some((Tok::RBrace, _)));
                if !empty && 2 * braces + 1 > max_depth {
                    return Err(Diagnostic::new(
                        ErrorKind::NestTooDeep,
                        Span::new(file, span.start, span.end),
                        format!(
                            "deciders are nested too deeply: this block's deciders would be at depth {}, but the limit is {}",
                            2 * braces + 1,
                            limits.max_depth
                        ),
                    ));
                }
            }
            Tok::RBrace => braces = braces.saturating_sub(1),
            Tok::LParen => {
                parens += 1;
                if parens > max_parens {
                    return Err(Diagnostic::new(
                        ErrorKind::NestTooDeep,
                        Span::new(file, span.start, span.end),
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
