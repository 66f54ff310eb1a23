//! Parameter lists `( … )` of actions, condition functions and decorators, and how number
//! tokens become literals.
//!
//! As in the game (`parseFunctionParameters` in `src/sgame/sg_bot_parse.cpp`, Unvanquished
//! `b11fa74849effcf00357665ae172cbc51c9d13fc`), a parameter list holds NUMBER, STRING, `,`
//! and `-`-punctuation tokens only: commas are optional, the count is the number of values, and
//! any punctuation starting with `-` negates the next value. A list the game gives up on is
//! [`ParamList::Dropped`]; the caller decides whether that fails the load. A number is
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

/// What the game makes of a parameter list.
pub(super) enum ParamList {
    /// The values, and the span of the whole list.
    Values(Vec<Param>, Span),
    /// The game's `parseFunctionParameters` gives up: a token that is neither a value, `,` nor
    /// punctuation starting with `-` (the list up to its `)` is skipped), or a `(` whose `)` is
    /// never found (reading goes on after the `(`). What the game logs, as a diagnostic.
    Dropped(Diagnostic),
}

impl Parser<'_> {
    /// Reads `( … )` as the game's `parseFunctionParameters` does; the current token must be
    /// the `(`. The matching `)` is found first by counting every token whose text starts
    /// with `(` or `)` (strings included, as in the game's `findCloseParen`); inside, numbers
    /// and strings are the values, `,` is skipped, and any punctuation starting with `-`
    /// (`-`, `--`, `-=`, `->`) negates the next value.
    pub(super) fn params(&mut self) -> PResult<ParamList> {
        let open = self.here();
        let Some(close) = self.close_paren() else {
            self.pos += 1;
            return Ok(ParamList::Dropped(
                Diagnostic::new(
                    ErrorKind::Syntax,
                    open,
                    "could not find the `)` matching this `(`",
                )
                .with_note(
                    "the game counts every token starting with `(` or `)`, strings included",
                ),
            ));
        };
        let list = open.to(self.toks[close].span);
        let body = self.pos + 1..close;
        self.pos = close + 1;
        let mut params = Vec::new();
        let mut minus: Option<Span> = None;
        for at in body {
            let tok = &self.toks[at];
            let negative = minus.is_some();
            let span = minus.map_or(tok.span, |m| m.to(tok.span));
            match &tok.kind {
                TokenKind::Punct(Punct::Comma) => {}
                TokenKind::Punct(p) if p.as_str().starts_with('-') => minus = Some(tok.span),
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
                    return Ok(ParamList::Dropped(d));
                }
            }
        }
        Ok(ParamList::Values(params, list))
    }

    /// The index of the `)` matching the `(` at the current position, by the game's rule.
    fn close_paren(&self) -> Option<usize> {
        let mut depth = 0usize;
        for at in self.pos.. {
            let tok = self.toks.get(at)?;
            let first = match &tok.kind {
                TokenKind::Punct(Punct::LParen) => Some('('),
                TokenKind::Punct(Punct::RParen) => Some(')'),
                TokenKind::Str(s) => s.chars().next(),
                _ => None,
            };
            match first {
                Some('(') => depth += 1,
                Some(')') => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 {
                return Some(at);
            }
        }
        None
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
