//! Parameter lists `( … )` of actions, condition functions and decorators, and how number
//! tokens become literals.
//!
//! As in the game, a parameter list holds NUMBER, STRING, `,` and `-` tokens only: commas are
//! optional, the count is the number of values, and `-` negates the next value. A number is
//! boxed as an int when its (truncated) int value converts to the same `float` as its float
//! value (so `1.0` is the int 1), else as a float rounded to binary32, because the game stores
//! it in a C `float`.
//!
//! Deliberate strictness: integer spellings above `i32::MAX` are rejected (`LiteralOverflow`)
//! instead of being squeezed into the game's 32-bit `int` (which turns them into a different
//! number or a float depending on where they are used).
//!
//! This file never builds nodes; it only reads parameters for the parser.

use super::parser::{PResult, Parser};
use super::token::{Number, Punct, TokenKind};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Lit;
use crate::source::Span;

/// One parameter value.
pub(super) struct Param {
    /// The value.
    pub lit: Lit,
    /// Where it is (from a `-` to its number).
    pub span: Span,
}

impl Parser<'_> {
    /// Reads `( … )`; the current token must be the `(`. Returns the values and the span of the
    /// whole list.
    pub(super) fn params(&mut self) -> PResult<(Vec<Param>, Span)> {
        let open = self.here();
        self.pos += 1;
        let mut params = Vec::new();
        let mut minus: Option<Span> = None;
        loop {
            let Some(tok) = self.peek() else {
                return Err(Diagnostic::new(
                    ErrorKind::Syntax,
                    open,
                    "this `(` is never closed with `)`",
                ));
            };
            self.pos += 1;
            let negative = minus.is_some();
            let span = minus.map_or(tok.span, |m| m.to(tok.span));
            match &tok.kind {
                TokenKind::Punct(Punct::RParen) => return Ok((params, open.to(tok.span))),
                TokenKind::Punct(Punct::Comma) => {}
                TokenKind::Punct(Punct::Minus) => minus = Some(tok.span),
                TokenKind::Number(n) => {
                    params.push(Param {
                        lit: box_number(n, negative, tok.span)?,
                        span,
                    });
                    minus = None;
                }
                TokenKind::Str(s) => {
                    params.push(Param {
                        lit: Lit::Str(s.to_string()),
                        span,
                    });
                    minus = None;
                }
                _ => {
                    let mut d = Diagnostic::new(
                        ErrorKind::Syntax,
                        tok.span,
                        format!("{tok} is not allowed in a parameter list"),
                    )
                    .with_note("parameters are numbers and strings, optionally separated by `,`");
                    if let TokenKind::Name(n) = &tok.kind {
                        d = d.with_note(format!(
                            "`{n}` is not a predefined symbol or a macro defined before this line"
                        ));
                    }
                    return Err(d);
                }
            }
        }
    }
}

/// The literal the game boxes number token `n` into (negated if `negative`).
pub(super) fn box_number(n: &Number, negative: bool, span: Span) -> PResult<Lit> {
    let overflow = || {
        Diagnostic::new(
            ErrorKind::LiteralOverflow,
            span,
            format!("`{}` does not fit in a 32-bit int", n.text),
        )
        .with_note(format!(
            "the largest integer the game's `int` holds is {}; btvm rejects larger ones \
             instead of truncating them",
            i32::MAX
        ))
    };
    if !n.is_float {
        let v = n
            .int
            .filter(|&v| v <= i32::MAX as u64)
            .ok_or_else(overflow)? as i64;
        return Ok(Lit::Int(if negative { -v } else { v }));
    }
    // The game's token has `int intvalue = (int)(unsigned long)value` and `float floatvalue`.
    let Some(ul) = n.int else {
        return Err(overflow());
    };
    let iv = ul as u32 as i32;
    let fv = n.float as f32;
    if iv as f32 == fv {
        let v = i64::from(iv);
        Ok(Lit::Int(if negative { -v } else { v }))
    } else {
        Ok(Lit::Float(f64::from(if negative { -fv } else { fv })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn float(text: &str, value: f64) -> Number {
        Number {
            text: Rc::from(text),
            is_float: true,
            int: Some(value as u64),
            float: value,
        }
    }

    #[test]
    fn boxing() {
        let s = Span::DUMMY;
        assert_eq!(box_number(&Number::int(5), true, s).unwrap(), Lit::Int(-5));
        assert_eq!(
            box_number(&float("1.0", 1.0), false, s).unwrap(),
            Lit::Int(1)
        );
        assert_eq!(
            box_number(&float("0.5", 0.5), true, s).unwrap(),
            Lit::Float(-0.5)
        );
        assert_eq!(
            box_number(&float("0.1", 0.1), false, s).unwrap(),
            Lit::Float(f64::from(0.1f32))
        );
        // 16777217.5 rounds to the float 16777218 but truncates to the int 16777217.
        assert_eq!(
            box_number(&float("16777217.5", 16777217.5), false, s).unwrap(),
            Lit::Float(16777218.0)
        );
        assert_eq!(
            box_number(&float("3e9", 3e9), false, s).unwrap(),
            Lit::Float(3e9)
        );
        let big = Number::int(1 << 31);
        assert_eq!(
            box_number(&big, false, s).unwrap_err().kind,
            ErrorKind::LiteralOverflow
        );
        assert_eq!(
            box_number(&Number::int(i32::MAX as u64), true, s).unwrap(),
            Lit::Int(-(i32::MAX as i64))
        );
    }
}
