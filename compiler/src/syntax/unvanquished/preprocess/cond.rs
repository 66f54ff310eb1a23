//! Conditional groups: `#if` / `#ifdef` / `#ifndef` open one, `#elif` and `#else` move through
//! it (rejecting the chains the game would read differently from C), and `#if` lines are
//! evaluated (`defined`, then macros, then the integer arithmetic).
//!
//! This module never reads a directive's line itself and never includes files.

use std::rc::Rc;

use super::super::cond_expr;
use super::super::macros::pp_error;
use super::super::token::{Number, Punct, Token, TokenKind};
use super::{game_diverges, no_more, Cond, Pp};
use crate::diag::Diagnostic;
use crate::source::Span;

impl Pp<'_> {
    /// Opens a conditional whose condition `eval` computes (not evaluated in skipped groups).
    pub(super) fn open_cond(
        &mut self,
        span: Span,
        eval: impl FnOnce(&mut Self) -> Result<bool, Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let cond = if self.skipping() {
            // The game evaluates the condition in a skipped group too (its errors count).
            eval(self)?;
            Cond {
                span,
                parent_active: false,
                active: false,
                taken: true,
                last: false,
                seen_else: false,
            }
        } else {
            let v = eval(self)?;
            Cond {
                span,
                parent_active: true,
                active: v,
                taken: v,
                last: v,
                seen_else: false,
            }
        };
        if let Some(f) = self.files.last_mut() {
            f.conds.push(cond);
        }
        Ok(())
    }

    pub(super) fn elif(&mut self, line: Vec<Token>, at: Span) -> Result<(), Diagnostic> {
        let (parent_active, taken) = match self.files.last().and_then(|f| f.conds.last()) {
            None => return Err(pp_error(at, "`#elif` without `#if`")),
            Some(c) if c.seen_else => return Err(pp_error(at, "`#elif` after `#else`")),
            Some(c) => (c.parent_active, c.taken),
        };
        let v = self.eval_condition(line, at)?;
        if !parent_active {
            // Evaluated anyway, as the game does (`Parse_Directive_elif`).
            return Ok(());
        }
        if taken && v {
            return Err(game_diverges(
                at,
                "this `#elif` condition holds but an earlier branch was already included",
                "the game's preprocessor evaluates every `#elif` on its own and would include \
                 both branches; make the conditions exclusive",
            ));
        }
        if let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) {
            c.active = v && !taken;
            c.taken |= v;
            c.last = v;
        }
        Ok(())
    }

    pub(super) fn else_(&mut self, line: Vec<Token>, at: Span) -> Result<(), Diagnostic> {
        no_more(&line, "#else")?;
        let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) else {
            return Err(pp_error(at, "`#else` without `#if`"));
        };
        if c.seen_else {
            return Err(pp_error(at, "a second `#else` for the same `#if`"));
        }
        if c.parent_active && c.taken && !c.last {
            return Err(game_diverges(
                at,
                "an earlier branch of this chain was included, but the `#elif` just before this \
                 `#else` was false",
                "the game's preprocessor ties `#else` to the branch just before it and would \
                 include this `#else` branch too; restructure the chain",
            ));
        }
        c.seen_else = true;
        c.active = c.parent_active && !c.taken;
        c.taken = true;
        Ok(())
    }

    /// Evaluates a `#if` / `#elif` line: `defined` first, then macro expansion, then the
    /// integer expression.
    pub(super) fn eval_condition(
        &mut self,
        line: Vec<Token>,
        at: Span,
    ) -> Result<bool, Diagnostic> {
        Ok(self.eval_line(line, at)? != 0)
    }

    /// The integer value of a preprocessor expression (`defined`, then macros, then the
    /// arithmetic).
    pub(super) fn eval_line(&mut self, line: Vec<Token>, at: Span) -> Result<i64, Diagnostic> {
        if line.is_empty() {
            return Err(pp_error(at, "this conditional has no expression"));
        }
        let mut toks = Vec::with_capacity(line.len());
        let mut i = 0;
        while i < line.len() {
            let t = &line[i];
            if t.name() != Some("defined") {
                toks.push(t.clone());
                i += 1;
                continue;
            }
            let paren = line.get(i + 1).is_some_and(|n| n.is(Punct::LParen));
            let name_at = if paren { i + 2 } else { i + 1 };
            let Some(name) = line.get(name_at).and_then(Token::name) else {
                return Err(pp_error(t.span, "`defined` needs a macro name"));
            };
            if paren && !line.get(name_at + 1).is_some_and(|n| n.is(Punct::RParen)) {
                return Err(pp_error(t.span, "`defined(` needs a closing `)`"));
            }
            let v = u64::from(self.macros.is_defined(name));
            toks.push(Token::new(
                TokenKind::Number(Rc::new(Number::int(v))),
                t.span,
            ));
            i = name_at + 1 + usize::from(paren);
        }
        self.pending.push(Token::new(TokenKind::End, at));
        self.pending.extend(toks.into_iter().rev());
        let mut expanded = Vec::new();
        while let Some((t, _)) = self.next_raw()? {
            if t.kind == TokenKind::End {
                break;
            }
            if !self.try_expand(&t)? {
                expanded.push(t);
            }
        }
        cond_expr::evaluate(&expanded, at, self.ctx.limits.max_expr_depth)
    }
}
