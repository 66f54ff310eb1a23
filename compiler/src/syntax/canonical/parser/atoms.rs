//! The small parsers every declaration, node and expression is made of: keywords, names,
//! strings, integers in range, literals, and the keyword sets (statuses, import kinds, guard
//! evaluation, quorums).
//!
//! They are generic over the parser extra, so both stages of the canonical grammar (and Spore)
//! use them. This module never resolves names.

use std::fmt;

use btvm::{ImportKind, Status};
use chumsky::extra::ParserExtra;
use chumsky::prelude::*;

use super::super::lexer::{unescape, Tok};
use super::plumbing::{custom, In, Lbl, Mx, PErr, P};
use crate::diag::ErrorKind;
use crate::ir::{GuardEval, Lit, Quorum};

/// A keyword; hyphenated keywords are matched as `word - word …`.
pub(in crate::syntax) fn kw<'t, 's: 't, E>(word: &'static str) -> P<'t, 's, (), E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    let mut parts = word.split('-');
    let first = parts.next().unwrap_or(word);
    let mut p = just(Tok::Ident(first)).ignored().boxed();
    let mut hyphenated = false;
    for part in parts {
        hyphenated = true;
        p = p
            .then_ignore(just(Tok::Minus))
            .then_ignore(just(Tok::Ident(part)))
            .boxed();
    }
    if hyphenated {
        p = p.labelled(Lbl::Word(word)).boxed();
    }
    p
}

/// One of several keywords, each standing for a value.
pub(in crate::syntax) fn words<'t, 's: 't, T, E>(list: Vec<(&'static str, T)>) -> P<'t, 's, T, E>
where
    T: Clone + 't,
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    let alternatives: Vec<_> = list.into_iter().map(|(w, v)| kw(w).to(v)).collect();
    choice(alternatives).boxed()
}

/// A name: an identifier or a string literal, with its span.
pub(super) fn name<'t, 's: 't, E>() -> P<'t, 's, (String, SimpleSpan), E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    select! {
        Tok::Ident(s) => s.to_string(),
        Tok::Str(s) => unescape(s),
    }
    .map_with(|n, e| (n, e.span()))
    .labelled(Lbl::What("name"))
    .boxed()
}

/// A string literal.
pub(super) fn string<'t, 's: 't, E>() -> P<'t, 's, String, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    select! { Tok::Str(s) => unescape(s) }
        .labelled(Lbl::What("string"))
        .boxed()
}

/// An unsigned integer token with its span.
pub(in crate::syntax) fn int_tok<'t, 's: 't, E>() -> P<'t, 's, (u64, SimpleSpan), E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    select! { Tok::Int(v) => v }
        .map_with(|v, e| (v, e.span()))
        .labelled(Lbl::What("integer"))
        .boxed()
}

pub(super) fn overflow<'s>(span: SimpleSpan, what: &str, max: impl fmt::Display) -> PErr<'s> {
    custom(
        ErrorKind::LiteralOverflow,
        span,
        format!("{what} is out of range: expected at most {max}"),
    )
}

/// An unsigned integer that must fit `T`, whose largest value is `max`; one that does not is
/// reported (as `what`) and read as 0.
fn unsigned_lit<'t, 's: 't, T, E>(what: &'static str, max: T) -> P<'t, 's, T, E>
where
    T: TryFrom<u64> + Default + fmt::Display + Copy + 't,
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    int_tok()
        .map_with(move |(v, span), e| {
            T::try_from(v).unwrap_or_else(|_| {
                e.emit(overflow(span, what, max));
                T::default()
            })
        })
        .boxed()
}

/// An integer in `0..=u32::MAX`.
pub(super) fn u32_lit<'t, 's: 't, E>(what: &'static str) -> P<'t, 's, u32, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    unsigned_lit(what, u32::MAX)
}

/// An integer in `0..=255`.
pub(super) fn u8_lit<'t, 's: 't, E>(what: &'static str) -> P<'t, 's, u8, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    unsigned_lit(what, u8::MAX)
}

/// Applies an optional minus sign to an integer magnitude, checking the `i64` range.
pub(super) fn signed_int<'t, 's: 't, E>(
    neg: bool,
    v: u64,
    span: SimpleSpan,
    e: &mut Mx<'t, '_, 's, E>,
) -> i64
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>>,
{
    let value = if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    };
    value.unwrap_or_else(|| {
        e.emit(custom(
            ErrorKind::LiteralOverflow,
            span,
            "integer literal is out of range: expected -9223372036854775808 ..= 9223372036854775807",
        ));
        0
    })
}

/// An `i64` with an optional minus sign.
pub(super) fn i64_lit<'t, 's: 't, E>() -> P<'t, 's, i64, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    just(Tok::Minus)
        .or_not()
        .then(int_tok())
        .map_with(|(neg, (v, span)), e| signed_int(neg.is_some(), v, span, e))
        .boxed()
}

#[derive(Clone, Copy)]
enum Num {
    Int(u64),
    Float(f64),
}

/// A literal: `true`, `false`, a string, or a number with an optional minus sign (`inf`,
/// `nan`, `nan(0xBITS)` included).
pub(in crate::syntax) fn lit<'t, 's: 't, E>() -> P<'t, 's, Lit, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    let nan = just(Tok::Ident("nan"))
        .ignore_then(
            int_tok()
                .delimited_by(just(Tok::LParen), just(Tok::RParen))
                .or_not(),
        )
        .map_with(|bits, e| match bits {
            None => Num::Float(f64::NAN),
            Some((bits, span)) => {
                let f = f64::from_bits(bits);
                if !f.is_nan() {
                    e.emit(custom(
                        ErrorKind::InvalidValue,
                        span,
                        format!("`nan({bits:#x})` is not a NaN bit pattern"),
                    ));
                }
                Num::Float(f)
            }
        });
    let number = select! {
        Tok::Int(v) => Num::Int(v),
        Tok::Float(f) => Num::Float(f),
        Tok::Ident("inf") => Num::Float(f64::INFINITY),
    }
    .or(nan);
    let signed = just(Tok::Minus)
        .or_not()
        .then(number.map_with(|n, e| (n, e.span())))
        .map_with(|(neg, (n, span)), e| match n {
            Num::Int(v) => Lit::Int(signed_int(neg.is_some(), v, span, e)),
            Num::Float(f) if neg.is_some() => Lit::Float(-f),
            Num::Float(f) => Lit::Float(f),
        });
    choice((
        signed,
        just(Tok::Ident("true")).to(Lit::Bool(true)),
        just(Tok::Ident("false")).to(Lit::Bool(false)),
        string().map(Lit::Str),
    ))
    .labelled(Lbl::What("literal"))
    .boxed()
}

pub(super) fn status<'t, 's: 't, E>() -> P<'t, 's, Status, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(Status::ALL.iter().map(|s| (s.name(), *s)).collect())
}

pub(super) fn import_kind<'t, 's: 't, E>() -> P<'t, 's, ImportKind, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(vec![
        ("action", ImportKind::Action),
        ("function", ImportKind::Function),
    ])
}

pub(super) fn guard_eval<'t, 's: 't, E>() -> P<'t, 's, GuardEval, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(vec![
        ("every-tick", GuardEval::EveryTick),
        ("on-entry", GuardEval::OnEntry),
        ("on-change", GuardEval::OnChange),
    ])
}

pub(super) fn quorum<'t, 's: 't, E>() -> P<'t, 's, Quorum, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(vec![("all", Quorum::All), ("any", Quorum::Any)])
}
