//! Syntax-error recovery for the token grammars (the canonical syntax's and Spore's): a
//! statement that does not parse is skipped to its natural end, its error is kept, and parsing
//! goes on with the next statement, so one run reports the syntax errors of several
//! statements.
//!
//! [`skip`] is the recovery parser, used through chumsky's `recover_with(via_parser(..))`:
//! chumsky rewinds the failed statement (dropping every error emitted inside it, such as an
//! unknown name met before the syntax error, so a skipped statement never adds a follow-on
//! error), emits the statement's furthest error, and runs [`skip`] from the statement's first
//! token. [`skip`] consumes at least one token and takes every parenthesized or braced group
//! whole; it stops before the `}` or `)` that closes the enclosing group (a `}` even inside a
//! `(` the statement left open), before a token where a new statement begins
//! ([`Resync::begins`]), after a `;` ending the statement ([`Resync::semi`]), or after a
//! braced group at the statement's level ([`Resync::block`]). It fails, consuming nothing, where
//! the failed parser legitimately ended a repetition (a closing `}`, the end of the file, a
//! [`Resync::refuses`] token), so a list's normal end is never an error.
//!
//! The parsers that use it only emit diagnostics: a file with a syntax error is never
//! assembled (`parse_result` returns its errors), so the placeholders [`skip`] returns are
//! never built into a tree. The skip is linear in the tokens it passes and never recurses.
//! This module holds no grammar of its own and never builds IR.

use chumsky::extra::ParserExtra;
use chumsky::prelude::*;

use super::super::lexer::Tok;
use super::plumbing::{In, PErr, P};

/// Where a skipped statement ends, for one kind of statement.
#[derive(Clone, Copy)]
pub(in crate::syntax) struct Resync {
    /// Whether a new statement begins at `tok`, seen at the statement's level after `prev`
    /// and before `next`: the skip stops before it (never before the statement's first
    /// token).
    pub begins: fn(prev: Tok<'_>, tok: Tok<'_>, next: Option<Tok<'_>>) -> bool,
    /// Whether the statement ends after a `;` at its level (and a `;` right after a braced
    /// group that ends it is part of it).
    pub semi: bool,
    /// Whether the statement ends after a braced group at its level.
    pub block: bool,
    /// Whether a statement of this kind cannot begin at `tok`: the parser failed there
    /// because the list of such statements ended, so there is nothing to skip.
    pub refuses: fn(tok: Tok<'_>) -> bool,
}

/// Whether `tok` is the identifier `word`.
pub(in crate::syntax) fn is_word(tok: Tok<'_>, word: &str) -> bool {
    matches!(tok, Tok::Ident(w) if w == word)
}

/// Never: for [`Resync::refuses`].
pub(in crate::syntax) fn never(_: Tok<'_>) -> bool {
    false
}

/// The recovery parser: skips one statement as `r` says and returns `placeholder`.
pub(in crate::syntax) fn skip<'t, 's: 't, O, E>(r: Resync, placeholder: O) -> P<'t, 's, O, E>
where
    O: Clone + 't,
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    custom(move |inp| {
        let before = inp.cursor();
        let first = inp.peek();
        let startable = first.is_some_and(|t| !matches!(t, Tok::RBrace | Tok::RParen));
        if !startable || first.is_some_and(r.refuses) {
            return Err(PErr::Expected {
                span: inp.span_since(&before),
                expected: Vec::new(),
                found: first,
            });
        }
        // Braces opened by the statement, and parentheses opened at its level (outside its
        // braces): a `}` the statement did not open ends it even inside an unclosed `(`.
        let (mut braces, mut parens) = (0usize, 0usize);
        let mut prev: Option<Tok<'s>> = None;
        while let Some(tok) = inp.peek() {
            if braces == 0 {
                if tok == Tok::RBrace || (tok == Tok::RParen && parens == 0) {
                    break;
                }
                if let (Some(p), 0) = (prev, parens) {
                    let mark = inp.save();
                    inp.skip();
                    let next = inp.peek();
                    inp.rewind(mark);
                    if (r.begins)(p, tok, next) {
                        break;
                    }
                }
            }
            inp.skip();
            prev = Some(tok);
            match tok {
                Tok::LBrace => braces += 1,
                Tok::LParen if braces == 0 => parens += 1,
                Tok::RParen if braces == 0 => parens = parens.saturating_sub(1),
                Tok::RBrace => {
                    braces = braces.saturating_sub(1);
                    if braces == 0 && r.block {
                        if r.semi && inp.peek() == Some(Tok::Semi) {
                            inp.skip();
                        }
                        break;
                    }
                }
                Tok::Semi if braces == 0 && r.semi => break,
                _ => {}
            }
        }
        Ok(placeholder.clone())
    })
    .boxed()
}
