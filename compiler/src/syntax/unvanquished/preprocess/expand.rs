//! Macro expansion in the preprocessor's token stream: a macro name expands (a function-like
//! one with its arguments collected the way the game's precompiler collects them), and
//! `$evalint(…)` becomes one number token.
//!
//! The expansion itself ([`super::super::macros`]) is counted against the token limit; this
//! module never runs directives or opens files.

use std::rc::Rc;

use super::super::macros::{pp_error, substitute};
use super::super::token::{Number, Punct, Token, TokenKind};
use super::Pp;
use crate::diag::{Diagnostic, ErrorKind};

impl Pp<'_> {
    /// Expands `tok` if it names a macro it may expand; returns whether it did.
    pub(super) fn try_expand(&mut self, tok: &Token) -> Result<bool, Diagnostic> {
        let Some(name) = tok.name() else {
            return Ok(false);
        };
        let Some(m) = self.macros.get(name) else {
            return Ok(false);
        };
        if tok.hidden(m.id) {
            return Ok(false);
        }
        let args = match &m.params {
            // `#define F() …` has no parameters, and the game expands it like an object-like
            // macro (`Parse_ExpandDefine` reads arguments only when `numparms` is not zero).
            Some(params) if !params.is_empty() => {
                if !self.peek_is_lparen()? {
                    // `Parse_ReadDefineParms`: "define … missing parms" (the token after the
                    // name is put back), and the game's token stream ends here.
                    self.resumable = true;
                    self.stop(pp_error(
                        tok.span,
                        format!("function-like macro `{name}` is used without arguments"),
                    ))?;
                    return Ok(true);
                }
                self.next_raw()?;
                match self.collect_args(params.len(), tok)? {
                    Some(args) => args,
                    None => return Ok(true),
                }
            }
            _ => Vec::new(),
        };
        let out = substitute(&m, &args, tok)?;
        if out.is_empty() {
            // `Parse_ExpandDefineIntoSource` fails on an expansion without tokens, and with it
            // `PC_ReadToken`: the game's token stream ends at this use (its arguments read).
            self.resumable = true;
            self.stop(Diagnostic::new(
                ErrorKind::Preprocessor,
                tok.span,
                format!("`{name}` expands to nothing"),
            ))?;
            return Ok(true);
        }
        self.expanded = self.expanded.saturating_add(out.len());
        if self.expanded > self.ctx.limits.max_expanded_tokens {
            return Err(Diagnostic::new(
                ErrorKind::ExpansionTooLarge,
                tok.span,
                format!(
                    "macro expansion produced more than {} tokens",
                    self.ctx.limits.max_expanded_tokens
                ),
            )
            .with_note(format!("while expanding `{name}` here")));
        }
        self.pending.extend(out.into_iter().rev());
        Ok(true)
    }

    /// The arguments of a function-like macro call, after its `(`, read as the game's
    /// `Parse_ReadDefineParms` reads them: a `(` inside is dropped and counted, a `)` ends the
    /// list when the count falls to zero or below (so the `)` closing the first nested `(` ends
    /// it; other `)` are kept), and a `,` at count zero or below starts the next argument.
    /// Missing arguments are empty (a warning when the last one is); too many stop the game's
    /// token stream, and then `None` is returned.
    pub(super) fn collect_args(
        &mut self,
        nparams: usize,
        call: &Token,
    ) -> Result<Option<Vec<Vec<Token>>>, Diagnostic> {
        let name = call.name().unwrap_or_default().to_string();
        let mut args: Vec<Vec<Token>> = Vec::new();
        let mut indent: i64 = 0;
        let mut done = false;
        while !done {
            if args.len() >= nparams {
                // `Parse_ReadDefineParms` ("define … has too many parms") fails after the
                // comma that starts the extra argument; the rest is read as ordinary tokens.
                self.resumable = true;
                self.stop(pp_error(
                    call.span,
                    format!("macro `{name}` is given more than {nparams} argument(s)"),
                ))?;
                return Ok(None);
            }
            let mut arg = Vec::new();
            let mut last_comma = true;
            loop {
                let tok = match self.next_raw()? {
                    Some((t, _)) if t.kind != TokenKind::End => t,
                    _ => {
                        return Err(pp_error(
                            call.span,
                            format!("the arguments of macro `{name}` are not closed with `)`"),
                        ))
                    }
                };
                if tok.is(Punct::Comma) && indent <= 0 {
                    if last_comma {
                        self.warnings.push(Diagnostic::warning(
                            ErrorKind::Preprocessor,
                            tok.span,
                            format!("an empty argument of macro `{name}` (\"too many comma's\")"),
                        ));
                    }
                    break;
                }
                last_comma = false;
                if tok.is(Punct::LParen) {
                    indent += 1;
                    continue;
                }
                if tok.is(Punct::RParen) {
                    indent -= 1;
                    if indent <= 0 {
                        done = true;
                        break;
                    }
                }
                arg.push(tok);
            }
            args.push(arg);
        }
        if args.len() < nparams || args.last().is_some_and(Vec::is_empty) {
            self.warnings.push(Diagnostic::warning(
                ErrorKind::Preprocessor,
                call.span,
                format!(
                    "macro `{name}` is given fewer than {nparams} argument(s); the missing ones \
                     are empty"
                ),
            ));
        }
        args.resize_with(nparams, Vec::new);
        Ok(Some(args))
    }

    /// `$evalint( EXPR )` (the game's `Parse_DollarDirective_evalint`): the expression is
    /// evaluated as an `#if` expression and replaced by one number token. As in the game, the
    /// token after `evalint` is taken for the `(` without looking at it, and the expression runs
    /// to the matching `)`. `$evalfloat` is not supported: btvm's `#if` arithmetic is integral.
    pub(super) fn dollar(&mut self, dollar: &Token) -> Result<(), Diagnostic> {
        let name = match self.next_raw()? {
            Some((t, _)) => t,
            None => return Err(pp_error(dollar.span, "`$` without a directive name")),
        };
        let at = dollar.span.to(name.span);
        match name.name() {
            Some("evalint") => {}
            Some("evalfloat") => {
                return Err(Diagnostic::new(
                    ErrorKind::Unsupported,
                    at,
                    "`$evalfloat` is not supported",
                )
                .with_note("`$evalint` is; btvm evaluates preprocessor expressions as integers"))
            }
            _ => return Err(pp_error(at, format!("unknown `$` directive {name}"))),
        }
        if self.next_raw()?.is_none() {
            return Err(pp_error(at, "no leading `(` after `$evalint`"));
        }
        let mut expr = Vec::new();
        let mut depth = 1u32;
        loop {
            let Some((t, _)) = self.next_raw()? else {
                return Err(pp_error(at, "`$evalint(` is never closed with `)`"));
            };
            if t.is(Punct::LParen) {
                depth += 1;
            } else if t.is(Punct::RParen) {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            expr.push(t);
        }
        let v = self.eval_line(expr, at)?;
        if v < 0 {
            // The game pushes `-` and a number token that keeps the negative value, so a
            // parameter list negates it back; btvm refuses rather than mimic that.
            return Err(Diagnostic::new(
                ErrorKind::Unsupported,
                at,
                format!("`$evalint` gives the negative value {v}"),
            )
            .with_note(
                "the game emits `-` and a number that is itself negative, so a parameter list \
                 reads the absolute value; btvm refuses negative results",
            ));
        }
        let n = Number {
            text: v.to_string().into(),
            is_float: false,
            int: Some(v as u64),
            float: v as f64,
        };
        self.pending
            .push(Token::new(TokenKind::Number(Rc::new(n)), at));
        Ok(())
    }
}
