//! `enum { A, B = 5, C }` blocks, which the game's precompiler turns into integer macros.
//!
//! This module only reads the block's tokens and defines the macros; it never expands them.

use std::rc::Rc;

use super::super::macros::pp_error;
use super::super::token::{Punct, Token, TokenKind};
use super::Pp;
use crate::diag::Diagnostic;

impl Pp<'_> {
    /// `enum { A, B = 5, C }` after the `enum` name: defines `A` = 0, `B` = 5, `C` = 6.
    pub(super) fn enumeration(&mut self, kw: &Token) -> Result<(), Diagnostic> {
        let unterminated = |span| pp_error(span, "this `enum` block is not closed with `}`");
        match self.next_token()? {
            Some(t) if t.is(Punct::LBrace) => {}
            Some(t) => {
                return Err(pp_error(
                    t.span,
                    format!("expected `{{` after `enum`, found {t}"),
                ))
            }
            None => return Err(unterminated(kw.span)),
        }
        let mut value: i64 = 0;
        loop {
            let t = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
            if t.is(Punct::RBrace) {
                return self.end_enum();
            }
            let Some(name) = t.name().map(Rc::<str>::from) else {
                return Err(pp_error(
                    t.span,
                    format!("expected an enum member name, found {t}"),
                ));
            };
            let mut next = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
            if next.is(Punct::Assign) {
                let mut v = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
                let negative = v.is(Punct::Minus);
                if negative {
                    v = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
                }
                let n = match &v.kind {
                    TokenKind::Number(n) if !n.is_float => n.int.map(|i| i as i64),
                    _ => None,
                };
                let Some(n) = n else {
                    return Err(pp_error(v.span, format!("expected an integer, found {v}")));
                };
                value = if negative { n.wrapping_neg() } else { n };
                next = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
            }
            self.macros.define_int(name, value);
            if next.is(Punct::RBrace) {
                return self.end_enum();
            }
            if !next.is(Punct::Comma) {
                return Err(pp_error(
                    next.span,
                    format!("expected `,` or `}}` in the `enum` block, found {next}"),
                ));
            }
            value = value.wrapping_add(1);
        }
    }

    /// Skips an optional `;` after an `enum` block.
    pub(super) fn end_enum(&mut self) -> Result<(), Diagnostic> {
        if let Some(t) = self.next_token()? {
            if !t.is(Punct::Semi) {
                self.pending.push(t);
            }
        }
        Ok(())
    }
}
