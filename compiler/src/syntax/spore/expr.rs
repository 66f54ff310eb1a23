//! Decide expressions: the native expression grammar's subtree that Spore allows (literals,
//! arithmetic, comparisons, `&&`/`||`/`^^`/`!`, unary `-`, `@random`, calls `NAME(ARGS)`),
//! with the native precedence table, over the native tokens.
//!
//! Function names stay names here ([`SExpr::Call`]): a function is declared by its first use,
//! so resolving them in the grammar would depend on chumsky's backtracking; [`super::build`]
//! resolves them afterwards in source order. Each expression's depth is checked exactly while
//! it is built (as in the canonical syntax), so long operator chains are a `NestTooDeep` error
//! without anything deep being built.

use chumsky::prelude::*;

use super::super::canonical::lexer::{unescape, Tok};
use super::super::canonical::parser::{
    self, deep_operators, kw, lit, Deep, Lbl, Mx, OpTree, Unary, EXPR_WORDS, P,
};
use super::ast::SExpr;
use super::grammar::{is_keyword, E};
use crate::ir::{BinOp, Lit};

/// A Spore expression with its depth (saturated at `limit + 1` once it is too deep).
pub(super) type Ex = Deep<SExpr>;

/// [`deepen`](super::super::canonical::parser::deepen) for a Spore expression (`false` stands for
/// a too-deep one).
fn deepen<'t, 's: 't>(inner: u64, e: SExpr, limit: u64, x: &mut Mx<'t, '_, 's, E<'s>>) -> Ex {
    parser::deepen(inner, e, SExpr::too_deep(), limit, x)
}

impl OpTree for SExpr {
    fn unary(op: Unary, x: Self) -> Self {
        let inner = Box::new(x);
        match op {
            Unary::Not => SExpr::Not(inner),
            Unary::Neg => SExpr::Neg(inner),
        }
    }

    fn binary(op: BinOp, a: Self, b: Self) -> Self {
        SExpr::Binary(op, Box::new(a), Box::new(b))
    }

    fn too_deep() -> Self {
        SExpr::Lit(Lit::Bool(false))
    }
}

/// The expression grammar; `limit` is `Limits::max_expr_depth`.
pub(super) fn expr_parser<'t, 's: 't>(limit: u64) -> P<'t, 's, Ex, E<'s>> {
    recursive(move |expr| {
        let arg = select! {
            Tok::Ident(s) if !is_keyword(s) => s.to_string(),
            Tok::Str(s) => unescape(s),
        }
        .then_ignore(just(Tok::Assign))
        .or_not()
        .then(expr.clone());
        let args = arg
            .separated_by(just(Tok::Comma))
            .collect::<Vec<(Option<String>, Ex)>>()
            .delimited_by(just(Tok::LParen), just(Tok::RParen))
            .boxed();
        let fname = select! {
            Tok::Ident(s) if !EXPR_WORDS.contains(&s) && !is_keyword(s) => s.to_string(),
            Tok::Str(s) => unescape(s),
        }
        .map_with(|n, e| (n, e.span()));
        let call = fname.then(args).map_with(move |(name, args), e| {
            let inner = args.iter().map(|(_, a)| a.d).max().unwrap_or(0);
            let args = args.into_iter().map(|(n, a)| (n, a.e)).collect();
            deepen(inner, SExpr::Call(name, args), limit, e)
        });
        let literal = lit().map(|l| Ex {
            e: SExpr::Lit(l),
            d: 1,
        });
        let random = just(Tok::At).ignore_then(kw("random")).to(Ex {
            e: SExpr::Random,
            d: 1,
        });
        let paren = expr
            .clone()
            .delimited_by(just(Tok::LParen), just(Tok::RParen));
        let primary = choice((call, literal, random, paren))
            .labelled(Lbl::What("expression"))
            .boxed();
        deep_operators(primary, limit)
    })
    .boxed()
}
