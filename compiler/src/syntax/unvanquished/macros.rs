//! Macro definitions and their expansion: the `#define` table, parameter substitution, `#`
//! stringizing, `##` pasting and hide sets.
//!
//! Expansion follows the game's precompiler (arguments are substituted unexpanded and the
//! result is rescanned) with one addition that makes it terminate: every token produced from a
//! macro body carries a hide set naming that macro (and the hide set of the token that invoked
//! it), and a token never expands a macro in its hide set. So a macro is never re-expanded
//! inside its own expansion, directly or through other macros, while nested calls in
//! arguments (`max(max(a, b), c)`) still expand. Body tokens take the span of the macro use
//! site; argument tokens keep their own (they are at the use site already).
//!
//! This file never reads files or directives; the preprocessor drives it.

use std::collections::HashMap;
use std::rc::Rc;

use super::token::{Number, Punct, Token, TokenKind};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;
use crate::syntax::profile::Symbol;

/// One macro.
#[derive(Clone, Debug)]
pub(super) struct Macro {
    /// Stable id of the macro's name (used in hide sets; survives `#undef`/`#define`).
    pub id: u32,
    /// Parameter names for a function-like macro; `None` for an object-like one.
    pub params: Option<Vec<Rc<str>>>,
    /// The replacement tokens.
    pub body: Vec<Token>,
}

/// The macros defined at one point of one file.
pub(super) struct MacroTable {
    macros: HashMap<Rc<str>, Rc<Macro>>,
    ids: HashMap<Rc<str>, u32>,
}

impl MacroTable {
    /// A table holding the game's predefined symbols, as every file starts with.
    pub(super) fn with_profile(symbols: &[Symbol]) -> MacroTable {
        let mut t = MacroTable {
            macros: HashMap::new(),
            ids: HashMap::new(),
        };
        for s in symbols {
            t.define_int(s.name.as_str().into(), i64::from(s.value));
        }
        t
    }

    fn intern(&mut self, name: &Rc<str>) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(name.clone()).or_insert(next)
    }

    /// The macro called `name` (case-sensitive).
    pub(super) fn get(&self, name: &str) -> Option<Rc<Macro>> {
        self.macros.get(name).cloned()
    }

    /// Whether `name` is defined.
    pub(super) fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name)
    }

    /// Removes a macro (no error if it is not defined).
    pub(super) fn undef(&mut self, name: &str) {
        self.macros.remove(name);
    }

    /// Defines `name` as an integer (predefined symbols, `enum` members).
    pub(super) fn define_int(&mut self, name: Rc<str>, value: i64) {
        let mut body = Vec::new();
        if value < 0 {
            body.push(Token::new(TokenKind::Punct(Punct::Minus), Span::DUMMY));
        }
        let number = Number::int(value.unsigned_abs());
        body.push(Token::new(TokenKind::Number(Rc::new(number)), Span::DUMMY));
        let id = self.intern(&name);
        self.macros.insert(
            name,
            Rc::new(Macro {
                id,
                params: None,
                body,
            }),
        );
    }

    /// Defines a macro from the tokens of a `#define` line (after the directive name).
    /// Redefinition replaces the old definition, as the game does.
    ///
    /// A `#` not followed by a parameter name is dropped from the body with a warning (pushed on
    /// `warnings`): the game's `Parse_ExpandDefine` warns "stringizing operator without define
    /// parameter" and skips it at each expansion; btvm warns once, here.
    pub(super) fn define(
        &mut self,
        line: Vec<Token>,
        directive: Span,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let mut toks = line.into_iter().peekable();
        let Some(name_tok) = toks.next() else {
            return Err(pp_error(directive, "`#define` needs a macro name"));
        };
        let Some(name) = name_tok.name().map(Rc::<str>::from) else {
            return Err(pp_error(
                name_tok.span,
                format!("expected a macro name after `#define`, found {name_tok}"),
            ));
        };
        let mut params = None;
        if toks
            .peek()
            .is_some_and(|t| t.is(Punct::LParen) && !t.space_before)
        {
            let open = toks.next().map_or(directive, |t| t.span);
            params = Some(parse_params(&mut toks, open)?);
        }
        let body: Vec<Token> = toks.collect();
        if let Some(t) = body
            .first()
            .filter(|t| t.is(Punct::Paste))
            .or_else(|| body.last().filter(|t| t.is(Punct::Paste)))
        {
            return Err(pp_error(
                t.span,
                "`##` cannot be at the start or end of a macro body",
            ));
        }
        let is_param = |t: Option<&Token>| match (&params, t.and_then(Token::name)) {
            (Some(ps), Some(n)) => ps.iter().any(|p: &Rc<str>| &**p == n),
            _ => false,
        };
        let mut kept = Vec::with_capacity(body.len());
        for (i, t) in body.iter().enumerate() {
            if t.is(Punct::Hash) && !is_param(body.get(i + 1)) {
                warnings.push(Diagnostic::warning(
                    ErrorKind::Preprocessor,
                    t.span,
                    "stringizing `#` without a macro parameter after it; dropped",
                ));
                continue;
            }
            kept.push(t.clone());
        }
        let body = kept;
        let id = self.intern(&name);
        self.macros
            .insert(name, Rc::new(Macro { id, params, body }));
        Ok(())
    }
}

/// Parses `a, b, c)` after the `(` of a function-like macro definition.
fn parse_params(
    toks: &mut impl Iterator<Item = Token>,
    open: Span,
) -> Result<Vec<Rc<str>>, Diagnostic> {
    let mut params: Vec<Rc<str>> = Vec::new();
    let mut t = toks.next();
    if t.as_ref().is_some_and(|t| t.is(Punct::RParen)) {
        return Ok(params);
    }
    loop {
        let Some(tok) = t else {
            return Err(pp_error(open, "this macro parameter list is not closed"));
        };
        if tok.is(Punct::Ellipsis) {
            return Err(Diagnostic::new(
                ErrorKind::Unsupported,
                tok.span,
                "variadic macros are not supported by the game's preprocessor",
            ));
        }
        let Some(name) = tok.name() else {
            return Err(pp_error(
                tok.span,
                format!("expected a parameter name, found {tok}"),
            ));
        };
        if params.iter().any(|p| &**p == name) {
            return Err(pp_error(
                tok.span,
                format!("duplicate macro parameter `{name}`"),
            ));
        }
        params.push(name.into());
        match toks.next() {
            Some(s) if s.is(Punct::RParen) => return Ok(params),
            Some(s) if s.is(Punct::Comma) => t = toks.next(),
            Some(s) => {
                return Err(pp_error(
                    s.span,
                    format!("expected `,` or `)` in the parameter list, found {s}"),
                ))
            }
            None => return Err(pp_error(open, "this macro parameter list is not closed")),
        }
    }
}

/// The replacement of one use of `m`: the body with `args` substituted, `#p` stringized and
/// `##` pasted. Body tokens get `use_site`'s span and its hide set plus `m`.
pub(super) fn substitute(
    m: &Macro,
    args: &[Vec<Token>],
    use_site: &Token,
) -> Result<Vec<Token>, Diagnostic> {
    let hide = hide_with(use_site.hide.as_deref(), m.id);
    let params: &[Rc<str>] = m.params.as_deref().unwrap_or(&[]);
    let param = |t: &Token| t.name().and_then(|n| params.iter().position(|p| &**p == n));
    let body_token = |t: &Token, kind: TokenKind| Token {
        kind,
        span: use_site.span,
        lines_before: 0,
        space_before: t.space_before,
        hide: Some(hide.clone()),
    };
    let mut out: Vec<Token> = Vec::with_capacity(m.body.len());
    let mut i = 0;
    while i < m.body.len() {
        let t = &m.body[i];
        if t.is(Punct::Hash) {
            // `define` checked that a parameter follows.
            if let Some(p) = m.body.get(i + 1).and_then(param) {
                let text = stringize(args.get(p).map_or(&[][..], Vec::as_slice));
                out.push(body_token(t, TokenKind::Str(text.into())));
                i += 2;
                continue;
            }
        }
        match param(t) {
            Some(p) => out.extend(args.get(p).into_iter().flatten().cloned()),
            None => out.push(body_token(t, t.kind.clone())),
        }
        i += 1;
    }
    if !out.iter().any(|t| t.is(Punct::Paste)) {
        return Ok(out);
    }
    let mut pasted: Vec<Token> = Vec::with_capacity(out.len());
    let mut iter = out.into_iter();
    while let Some(t) = iter.next() {
        if !t.is(Punct::Paste) {
            pasted.push(t);
            continue;
        }
        let (Some(lhs), Some(rhs)) = (pasted.pop(), iter.next()) else {
            return Err(pp_error(
                use_site.span,
                "`##` has nothing to paste on one side",
            ));
        };
        pasted.push(paste(lhs, &rhs, use_site.span)?);
    }
    Ok(pasted)
}

/// `#p`: the argument's tokens spelled one after the other, with no space between them (the
/// game's `Parse_StringizeTokens` concatenates the token strings: `S(hello world)` is
/// `"helloworld"`).
fn stringize(arg: &[Token]) -> String {
    arg.iter().map(Token::text).collect()
}

/// `a ## b`: name with name or number gives a name; string with string gives a string.
fn paste(lhs: Token, rhs: &Token, at: Span) -> Result<Token, Diagnostic> {
    let kind = match (&lhs.kind, &rhs.kind) {
        (TokenKind::Name(a), TokenKind::Name(_) | TokenKind::Number(_)) => {
            let joined = format!("{a}{}", rhs.text());
            if !joined
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
            {
                return Err(pp_error(
                    at,
                    format!("pasting gives `{joined}`, which is not a name"),
                ));
            }
            TokenKind::Name(joined.into())
        }
        (TokenKind::Str(a), TokenKind::Str(b)) => TokenKind::Str(format!("{a}{b}").into()),
        _ => {
            return Err(pp_error(
                at,
                format!("cannot paste {lhs} and {rhs} into one token"),
            ))
        }
    };
    Ok(Token { kind, ..lhs })
}

/// `hide ∪ {id}`, sorted.
fn hide_with(hide: Option<&[u32]>, id: u32) -> Rc<[u32]> {
    let mut v: Vec<u32> = hide.unwrap_or(&[]).to_vec();
    if let Err(pos) = v.binary_search(&id) {
        v.insert(pos, id);
    }
    v.into()
}

/// A preprocessor error.
pub(super) fn pp_error(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(ErrorKind::Preprocessor, span, msg)
}
