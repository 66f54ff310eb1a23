//! The `#if` / `#elif` expression evaluator: integer constant expressions over the tokens of a
//! directive line, after `defined` was resolved and macros were expanded.
//!
//! Operators, loosest first: `?:`, `||`, `&&`, `|`, `^`, `&`, `== !=`, `< <= > >=`, `<< >>`,
//! `+ -`, `* / %`, then the unary `! ~ - +` and parentheses. Values are 64-bit signed with
//! wrapping arithmetic; a float token counts as its truncated value (as the game's integer
//! evaluation does). As in C, the side of `&&`, `||` and `?:` that is not taken cannot fail:
//! errors (division by zero, out-of-range shifts) travel with the value they spoil and are
//! reported only if that value decides the result. Names left after expansion are errors.
//!
//! The evaluator is an operator-precedence (shunting-yard) loop with explicit stacks: it never
//! recurses. Nesting of parentheses and unary operators is still bounded by `max_depth`, so
//! the limit means the same as for condition expressions.
//!
//! This file never expands macros and never reads tokens from a file.

use super::macros::pp_error;
use super::token::{Punct, Token, TokenKind};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

/// A value, or the index of the error that spoiled it.
type Val = Result<i64, usize>;

/// An operator waiting on the stack.
#[derive(Clone, Copy)]
enum Op {
    Unary(Punct),
    Binary(Punct, Span),
    /// `?` whose `:` has not come yet.
    Question(Span),
    /// `?:` with both branches read.
    Ternary,
    LParen(Span),
}

/// Binding strength of a binary operator (higher binds tighter); `?:` is 0, unary 11.
fn precedence(p: Punct) -> Option<u8> {
    use Punct::*;
    Some(match p {
        OrOr => 1,
        AndAnd => 2,
        Pipe => 3,
        Caret => 4,
        Amp => 5,
        EqEq | Ne => 6,
        Lt | Le | Gt | Ge => 7,
        Shl | Shr => 8,
        Plus | Minus => 9,
        Star | Slash | Percent => 10,
        _ => return None,
    })
}

const UNARY: u8 = 11;

/// Evaluates `tokens` (the whole expression of a `#if` line at `directive`).
pub(super) fn evaluate(
    tokens: &[Token],
    directive: Span,
    max_depth: u32,
) -> Result<i64, Diagnostic> {
    let mut ev = Eval {
        values: Vec::new(),
        ops: Vec::new(),
        errors: Vec::new(),
        nesting: 0,
        directive,
    };
    let mut want_value = true;
    for t in tokens {
        let TokenKind::Punct(p) = &t.kind else {
            if !want_value {
                return Err(unexpected(t));
            }
            match &t.kind {
                TokenKind::Number(n) => match n.int {
                    Some(v) => ev.values.push(Ok(v as i64)),
                    None => {
                        return Err(Diagnostic::new(
                            ErrorKind::LiteralOverflow,
                            t.span,
                            format!("`{}` does not fit in 64 bits", n.text),
                        ))
                    }
                },
                TokenKind::Name(name) => {
                    return Err(pp_error(
                        t.span,
                        format!("`{name}` is not a defined macro (in a `#if` expression)"),
                    ))
                }
                _ => return Err(unexpected(t)),
            }
            want_value = false;
            continue;
        };
        let p = *p;
        if want_value {
            match p {
                Punct::LParen => ev.open(Op::LParen(t.span), t.span, max_depth)?,
                Punct::Bang | Punct::Tilde | Punct::Minus | Punct::Plus => {
                    ev.open(Op::Unary(p), t.span, max_depth)?
                }
                _ => return Err(unexpected(t)),
            }
            continue;
        }
        match p {
            Punct::RParen => {
                loop {
                    match ev.ops.pop() {
                        Some(Op::LParen(_)) => break,
                        Some(Op::Question(q)) => return Err(missing_colon(q)),
                        Some(op) => ev.apply(op)?,
                        None => return Err(pp_error(t.span, "this `)` has no matching `(`")),
                    }
                }
                ev.nesting -= 1;
            }
            Punct::Question => {
                ev.reduce_above(0, false)?;
                ev.ops.push(Op::Question(t.span));
                want_value = true;
            }
            Punct::Colon => {
                loop {
                    match ev.ops.pop() {
                        Some(Op::Question(_)) => break,
                        Some(Op::LParen(_)) | None => {
                            return Err(pp_error(t.span, "`:` without `?` in a `#if` expression"))
                        }
                        Some(op) => ev.apply(op)?,
                    }
                }
                ev.ops.push(Op::Ternary);
                want_value = true;
            }
            _ => {
                let Some(q) = precedence(p) else {
                    return Err(unexpected(t));
                };
                ev.reduce_above(q, true)?;
                ev.ops.push(Op::Binary(p, t.span));
                want_value = true;
            }
        }
    }
    if want_value {
        let at = tokens.last().map_or(directive, |t| t.span);
        return Err(pp_error(
            at,
            "the `#if` expression ends where a value was expected",
        ));
    }
    while let Some(op) = ev.ops.pop() {
        match op {
            Op::LParen(span) => {
                return Err(pp_error(
                    span,
                    "this `(` in the `#if` expression is not closed",
                ))
            }
            Op::Question(span) => return Err(missing_colon(span)),
            op => ev.apply(op)?,
        }
    }
    match (ev.values.pop(), ev.values.is_empty()) {
        (Some(Ok(v)), true) => Ok(v),
        (Some(Err(i)), true) => Err(ev.errors.swap_remove(i)),
        _ => Err(pp_error(directive, "malformed `#if` expression")),
    }
}

struct Eval {
    values: Vec<Val>,
    ops: Vec<Op>,
    /// Errors carried by spoiled values.
    errors: Vec<Diagnostic>,
    /// Open parentheses and unary operators on the stack.
    nesting: u32,
    /// The `#if` line, for errors that have no better position.
    directive: Span,
}

impl Eval {
    /// Pushes a `(` or a unary operator, checking the nesting limit.
    fn open(&mut self, op: Op, at: Span, max_depth: u32) -> Result<(), Diagnostic> {
        self.nesting += 1;
        if self.nesting > max_depth {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                at,
                format!("the `#if` expression is nested deeper than {max_depth} levels"),
            ));
        }
        self.ops.push(op);
        Ok(())
    }

    /// Applies the stacked operators that bind at least as tightly as a new operator of
    /// precedence `q` (strictly tighter for the right-associative `?:`).
    fn reduce_above(&mut self, q: u8, left_assoc: bool) -> Result<(), Diagnostic> {
        while let Some(&top) = self.ops.last() {
            let p = match top {
                Op::Unary(_) => UNARY,
                Op::Binary(b, _) => precedence(b).unwrap_or(0),
                Op::Ternary => 0,
                Op::Question(_) | Op::LParen(_) => return Ok(()),
            };
            if p > q || (left_assoc && p == q) {
                self.ops.pop();
                self.apply(top)?;
            } else {
                return Ok(());
            }
        }
        Ok(())
    }

    fn pop(&mut self) -> Result<Val, Diagnostic> {
        self.values
            .pop()
            .ok_or_else(|| pp_error(self.directive, "malformed `#if` expression"))
    }

    fn apply(&mut self, op: Op) -> Result<(), Diagnostic> {
        let v = match op {
            Op::Unary(p) => {
                self.nesting -= 1;
                self.pop()?.map(|v| match p {
                    Punct::Bang => i64::from(v == 0),
                    Punct::Tilde => !v,
                    Punct::Minus => v.wrapping_neg(),
                    _ => v,
                })
            }
            Op::Binary(p, span) => {
                let b = self.pop()?;
                let a = self.pop()?;
                match (p, a) {
                    (Punct::AndAnd, Ok(0)) => Ok(0),
                    (Punct::AndAnd, Ok(_)) => b.map(|x| i64::from(x != 0)),
                    (Punct::OrOr, Ok(0)) => b.map(|x| i64::from(x != 0)),
                    (Punct::OrOr, Ok(_)) => Ok(1),
                    (_, Err(e)) => Err(e),
                    (_, Ok(a)) => match b {
                        Err(e) => Err(e),
                        Ok(b) => match binary(p, a, b, span) {
                            Ok(v) => Ok(v),
                            Err(d) => {
                                self.errors.push(d);
                                Err(self.errors.len() - 1)
                            }
                        },
                    },
                }
            }
            Op::Ternary => {
                let no = self.pop()?;
                let yes = self.pop()?;
                match self.pop()? {
                    Ok(c) if c != 0 => yes,
                    Ok(_) => no,
                    Err(e) => Err(e),
                }
            }
            Op::Question(_) | Op::LParen(_) => return Ok(()),
        };
        self.values.push(v);
        Ok(())
    }
}

fn binary(op: Punct, a: i64, b: i64, at: Span) -> Result<i64, Diagnostic> {
    use Punct::*;
    Ok(match op {
        Pipe => a | b,
        Caret => a ^ b,
        Amp => a & b,
        EqEq => i64::from(a == b),
        Ne => i64::from(a != b),
        Lt => i64::from(a < b),
        Le => i64::from(a <= b),
        Gt => i64::from(a > b),
        Ge => i64::from(a >= b),
        Shl | Shr => {
            let Some(n) = u32::try_from(b).ok().filter(|&n| n < 64) else {
                return Err(pp_error(at, format!("shift by {b} in a `#if` expression")));
            };
            if op == Shl {
                a.wrapping_shl(n)
            } else {
                a.wrapping_shr(n)
            }
        }
        Plus => a.wrapping_add(b),
        Minus => a.wrapping_sub(b),
        Star => a.wrapping_mul(b),
        Slash | Percent => {
            if b == 0 {
                return Err(pp_error(at, "division by zero in a `#if` expression"));
            }
            if op == Slash {
                a.wrapping_div(b)
            } else {
                a.wrapping_rem(b)
            }
        }
        _ => 0,
    })
}

fn unexpected(t: &Token) -> Diagnostic {
    pp_error(t.span, format!("unexpected {t} in the `#if` expression"))
}

fn missing_colon(q: Span) -> Diagnostic {
    pp_error(q, "this `?` has no `:` in the `#if` expression")
}

#[cfg(test)]
mod tests {
    use super::super::lexer::Lexer;
    use super::*;
    use crate::source::FileId;

    fn eval(src: &str) -> Result<i64, Diagnostic> {
        let mut l = Lexer::new(FileId(0), src.into());
        let mut toks = Vec::new();
        while let Some(t) = l.next_token().unwrap() {
            toks.push(t);
        }
        evaluate(&toks, Span::DUMMY, 256)
    }

    #[test]
    fn c_precedence_and_values() {
        assert_eq!(eval("1 + 2 * 3").unwrap(), 7);
        assert_eq!(eval("(1 + 2) * 3").unwrap(), 9);
        assert_eq!(eval("10 - 3 - 2").unwrap(), 5);
        assert_eq!(eval("1 << 4 | 1").unwrap(), 17);
        assert_eq!(eval("!0 && ~0 == -1").unwrap(), 1);
        assert_eq!(eval("1 ? 2 : 0 ? 3 : 4").unwrap(), 2);
        assert_eq!(eval("0 ? 1 ? 5 : 6 : 7").unwrap(), 7);
        assert_eq!(eval("1 ? 0 ? 5 : 6 : 7").unwrap(), 6);
        assert_eq!(eval("1 + 1 ? 2 + 2 : 3").unwrap(), 4);
        assert_eq!(eval("-(2 - 5) * -+3").unwrap(), -9);
        assert_eq!(eval("!!7 + ~0").unwrap(), 0);
        assert_eq!(eval("1 - 1 - 1").unwrap(), -1);
        assert_eq!(eval("2 * 3 % 4").unwrap(), 2);
        assert_eq!(eval("1 < 2 == 1").unwrap(), 1);
        assert_eq!(eval("0 ? 2 : 0 ? 3 : 4").unwrap(), 4);
        assert_eq!(eval("7 % 4 >= 3").unwrap(), 1);
        assert_eq!(eval("0x10 + 010").unwrap(), 24);
        assert_eq!(eval("2.9").unwrap(), 2);
    }

    #[test]
    fn errors_and_short_circuit() {
        assert_eq!(eval("1 / 0").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("1 % 0").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("0 && 1 / 0").unwrap(), 0);
        assert_eq!(eval("1 || 1 / 0").unwrap(), 1);
        assert_eq!(eval("1 ? 1 : 1 / 0").unwrap(), 1);
        assert_eq!(eval("0 ? 1 / 0 : 2").unwrap(), 2);
        assert_eq!(
            eval("(1 / 0) || 1").unwrap_err().kind,
            ErrorKind::Preprocessor
        );
        assert_eq!(eval("1 ? 2").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("1 : 2").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("1 )").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("* 1").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("1 << 64").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("FOO").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("(1").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("1 +").unwrap_err().kind, ErrorKind::Preprocessor);
        assert_eq!(eval("1 2").unwrap_err().kind, ErrorKind::Preprocessor);
        let deep = format!("{}1", "(".repeat(100_000));
        assert_eq!(eval(&deep).unwrap_err().kind, ErrorKind::NestTooDeep);
        let nots = format!("{}1", "!".repeat(100_000));
        assert_eq!(eval(&nots).unwrap_err().kind, ErrorKind::NestTooDeep);
        assert_eq!(eval("(-9223372036854775807 - 1) / -1").unwrap(), i64::MIN);
    }
}
