//! Condition expressions, parsed with the game's algorithm.
//!
//! Primaries: `!` primary, `(` expr `)`, a NUMBER, or a condition-function NAME with optional
//! `( params )` (optional only when the function takes none). Every binary operator has its own
//! precedence level, lower binding tighter: `<` 1, `<=` 2, `>` 3, `>=` 4, `==` 5, `!=` 6, `&&` 7,
//! `||` 8. After a primary, while the next token is a binary operator whose level is at most
//! the current limit, it is consumed and its right side parsed with that operator's level as
//! the limit (the top-level limit is 9, `!` uses 0). So operators of one level group to the
//! right (`a && b && c` is `a && (b && c)`), `a == b != c` is `(a == b) != c` and
//! `a != b == c` is `a != (b == c)`.
//!
//! The recursion of the game's algorithm is kept on an explicit stack, so nesting never grows
//! the call stack; nesting (parentheses, `!` and right operands) is checked against
//! `Limits::max_expr_depth` before each level starts. This file never reads files and never
//! builds nodes.

use super::params::box_number;
use super::parser::Game;
use super::parser::{lit_arg, PResult, Parser};
use super::token::{Punct, TokenKind};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{BinOp, CallExpr, Expr};
use crate::source::Span;
use crate::syntax::profile::{checked_against, closest};

/// The limit that admits every binary operator (the game's `OP_NONE`).
const TOP: u8 = 9;

/// The game's level of a binary operator token, and its IR operator.
fn binary_op(p: Punct) -> Option<(BinOp, u8)> {
    Some(match p {
        Punct::Lt => (BinOp::Lt, 1),
        Punct::Le => (BinOp::Le, 2),
        Punct::Gt => (BinOp::Gt, 3),
        Punct::Ge => (BinOp::Ge, 4),
        Punct::EqEq => (BinOp::Eq, 5),
        Punct::Ne => (BinOp::Ne, 6),
        Punct::AndAnd => (BinOp::And, 7),
        Punct::OrOr => (BinOp::Or, 8),
        _ => return None,
    })
}

/// Work the expression parser still has to do, innermost last (the game's recursion, made
/// explicit so that nesting never grows the call stack).
enum Frame {
    /// Parse an expression with this operator limit: a primary, then the operator loop.
    Start { limit: u8 },
    /// The operator loop of an expression with this limit; the result so far is the current
    /// value.
    Loop { limit: u8 },
    /// The current value is the right operand of `lhs op …`; then the loop with `limit` goes on.
    Rhs { op: BinOp, lhs: Expr, limit: u8 },
    /// The current value is the operand of `!`.
    Not,
    /// The current value is inside `(`; a `)` must follow.
    Paren { open: Span },
}

impl Parser<'_> {
    /// The expression after `condition`.
    pub(super) fn condition_expr(&mut self) -> PResult<Expr> {
        let mut stack = vec![Frame::Start { limit: TOP }];
        // Frames that nest one level deeper (`!`, `(`, right operands).
        let mut nested: u32 = 0;
        let mut value: Option<Expr> = None;
        while let Some(frame) = stack.pop() {
            match frame {
                Frame::Start { limit } => {
                    self.check_expr_depth(nested + 1)?;
                    stack.push(Frame::Loop { limit });
                    match self.primary()? {
                        Primary::Value(e) => value = Some(e),
                        Primary::Not => {
                            stack.push(Frame::Not);
                            stack.push(Frame::Start { limit: 0 });
                            nested += 1;
                        }
                        Primary::Paren(open) => {
                            stack.push(Frame::Paren { open });
                            stack.push(Frame::Start { limit: TOP });
                            nested += 1;
                        }
                    }
                }
                Frame::Loop { limit } => {
                    if let Some((op, level)) = self.peek_binary().filter(|&(_, l)| l <= limit) {
                        self.pos += 1;
                        let lhs = value.take().ok_or_else(|| self.internal())?;
                        stack.push(Frame::Rhs { op, lhs, limit });
                        stack.push(Frame::Start { limit: level });
                        nested += 1;
                    }
                }
                Frame::Rhs { op, lhs, limit } => {
                    nested -= 1;
                    let rhs = value.take().ok_or_else(|| self.internal())?;
                    value = Some(Expr::binary(op, lhs, rhs));
                    stack.push(Frame::Loop { limit });
                }
                Frame::Not => {
                    nested -= 1;
                    let e = value.take().ok_or_else(|| self.internal())?;
                    value = Some(Expr::Not(Box::new(e)));
                }
                Frame::Paren { open } => {
                    nested -= 1;
                    if !self.at(Punct::RParen) {
                        return Err(Diagnostic::new(
                            ErrorKind::Syntax,
                            self.here(),
                            format!("expected `)`, found {}", self.found()),
                        )
                        .with_label(open, "to close this `(`"));
                    }
                    self.pos += 1;
                }
            }
        }
        value.ok_or_else(|| self.internal())
    }

    /// Cannot happen: the frames always leave a value where one is taken.
    fn internal(&self) -> Diagnostic {
        Diagnostic::new(
            ErrorKind::Syntax,
            self.here(),
            "internal error: malformed expression state",
        )
    }

    fn check_expr_depth(&self, depth: u32) -> PResult<()> {
        if depth > self.limits.max_expr_depth {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                self.here(),
                format!(
                    "the expression is nested deeper than {} levels",
                    self.limits.max_expr_depth
                ),
            )
            .with_note(
                "operators of one precedence level group to the right, so each `&&` (or other \
                 repeated operator) in a chain nests one level deeper",
            ));
        }
        Ok(())
    }

    fn peek_binary(&self) -> Option<(BinOp, u8)> {
        match self.peek().map(|t| &t.kind) {
            Some(TokenKind::Punct(p)) => binary_op(*p),
            _ => None,
        }
    }

    /// One primary: a complete value, or the start of `!` / `(` (whose operand follows).
    fn primary(&mut self) -> PResult<Primary> {
        let Some(tok) = self.peek() else {
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                "expected an expression, found the end of the file",
            ));
        };
        match &tok.kind {
            TokenKind::Punct(Punct::Bang) => {
                self.pos += 1;
                Ok(Primary::Not)
            }
            // `Primary` in `sg_bot_parse.cpp` opens a group on any token whose text starts
            // with `(`, a string `"("` or `"(x"` too (and closes it on the text `)`).
            _ if tok.starts_paren() => {
                self.pos += 1;
                Ok(Primary::Paren(tok.span))
            }
            TokenKind::Number(n) => {
                self.pos += 1;
                Ok(Primary::Value(Expr::Lit(box_number(n, false, tok.span)?)))
            }
            TokenKind::Name(name) => {
                self.pos += 1;
                let game = self.game;
                let Some(def) = game.vocab.function(name) else {
                    return Err(unknown_function(tok.span, name, game));
                };
                let params = self.call_params(tok, &def.name, def.arity, def.arity)?;
                let import = self.env.import(def.import());
                Ok(Primary::Value(Expr::Call(CallExpr {
                    import,
                    args: params.into_iter().map(|p| lit_arg(p.lit)).collect(),
                })))
            }
            TokenKind::Str(_) => Err(Diagnostic::new(
                ErrorKind::Syntax,
                tok.span,
                format!("{tok} is not a valid expression"),
            )
            .with_note("strings are only allowed as function parameters, e.g. `cvar( \"name\" )`")),
            TokenKind::Punct(Punct::Minus) => Err(Diagnostic::new(
                ErrorKind::Syntax,
                tok.span,
                "unary minus is not allowed in a condition expression",
            )
            .with_note("negative numbers can only be written as function parameters")),
            _ => Err(Diagnostic::new(
                ErrorKind::Syntax,
                tok.span,
                format!("expected an expression, found {tok}"),
            )),
        }
    }
}

/// What [`Parser::primary`] read.
enum Primary {
    /// A number or a function call.
    Value(Expr),
    /// `!`: its operand follows.
    Not,
    /// `(` at this span: an expression and `)` follow.
    Paren(Span),
}

/// `UnknownName` for a name used as a condition function, with the most useful hint.
fn unknown_function(span: Span, name: &str, game: Game<'_>) -> Diagnostic {
    let d = Diagnostic::new(
        ErrorKind::UnknownName,
        span,
        format!("unknown condition function `{name}`"),
    );
    let known = game.vocab.functions().iter().map(|f| f.name.as_str());
    let d = checked_against(d, "condition functions", game.name, name, known);
    if let Some(a) = game.vocab.action(name) {
        return d.with_note(format!(
            "`{}` is an action; actions run as `action {}` nodes",
            a.name, a.name
        ));
    }
    let symbol_like = name.contains('_') || name.bytes().all(|b| !b.is_ascii_lowercase());
    if symbol_like {
        let d = d.with_note(format!(
            "`{name}` is not a predefined symbol or a macro defined before this line either"
        ));
        let symbols = game.vocab.symbols().iter().map(|s| s.name.as_str());
        if let Some(s) = closest(name, symbols) {
            return d.with_note(format!("did you mean the symbol `{s}`?"));
        }
        return d;
    }
    d
}
