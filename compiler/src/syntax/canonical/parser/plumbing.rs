//! The chumsky plumbing of the token grammars (the canonical syntax's and Spore's): the input
//! type, the error type with its "expected … found …" merging, and the boxed-parser aliases.
//!
//! This module holds no grammar: it never matches a keyword or builds IR.

use std::collections::HashMap;
use std::fmt;

use chumsky::error::{Error as ChumskyError, LabelError};
use chumsky::input::{MapExtra, MappedInput};
use chumsky::prelude::*;
use chumsky::util::MaybeRef;
use chumsky::DefaultExpected;

use super::super::lexer::{Spanned, Tok};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};

/// The parser input: the token slice, split into tokens and byte spans.
pub(in crate::syntax) type In<'t, 's> = MappedInput<'t, Tok<'s>, SimpleSpan, &'t [Spanned<'s>]>;

/// What a parser expected, for "expected …" messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::syntax) enum Lbl {
    /// A (possibly hyphenated) keyword, shown in backticks.
    Word(&'static str),
    /// A description such as "expression".
    What(&'static str),
}

/// One thing that would have fitted where a parse error happened. Kept as tokens and labels
/// and only turned into text for the final diagnostics: chumsky creates an error for every
/// alternative it tries, so this has to be cheap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::syntax) enum Exp<'s> {
    Tok(Tok<'s>),
    Label(Lbl),
    EndOfFile,
    More,
}

impl fmt::Display for Exp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exp::Tok(t) => t.fmt(f),
            Exp::Label(Lbl::Word(w)) => write!(f, "`{w}`"),
            Exp::Label(Lbl::What(w)) => f.write_str(w),
            Exp::EndOfFile => f.write_str("end of file"),
            Exp::More => f.write_str("more input"),
        }
    }
}

/// A parse error: chumsky's "expected … found …", or a precise diagnostic raised by the grammar.
#[derive(Clone, Debug)]
pub(in crate::syntax) enum PErr<'s> {
    /// The next token did not fit.
    Expected {
        /// Where the unexpected token (or the end of the file) is.
        span: SimpleSpan,
        /// What would have fitted.
        expected: Vec<Exp<'s>>,
        /// The token found; `None` at the end of the file.
        found: Option<Tok<'s>>,
    },
    /// Anything with its own kind and message.
    Custom {
        /// The kind.
        kind: ErrorKind,
        /// Where.
        span: SimpleSpan,
        /// The message.
        message: String,
    },
}

pub(in crate::syntax) fn custom<'s>(
    kind: ErrorKind,
    span: SimpleSpan,
    message: impl Into<String>,
) -> PErr<'s> {
    PErr::Custom {
        kind,
        span,
        message: message.into(),
    }
}

/// The result of a parse: its errors as diagnostics in source order, each once; else its
/// output (one "could not be parsed" error in the case, which chumsky does not produce, of
/// neither).
pub(in crate::syntax) fn parse_result<T>(
    file: FileId,
    out: Option<T>,
    mut errs: Vec<PErr<'_>>,
) -> crate::diag::Result<T> {
    if !errs.is_empty() {
        errs.sort_by_key(PErr::start);
        let mut diags: Vec<Diagnostic> = Vec::new();
        // Equal diagnostics have equal spans: compare only within a span's own group, so a
        // file with an error on every line is not quadratic.
        let mut by_span: HashMap<Span, Vec<usize>> = HashMap::new();
        for e in errs {
            let d = e.into_diagnostic(file);
            let same = by_span.entry(d.span).or_default();
            if !same.iter().any(|&i| diags[i] == d) {
                same.push(diags.len());
                diags.push(d);
            }
        }
        return Err(diags);
    }
    out.ok_or_else(|| {
        vec![Diagnostic::new(
            ErrorKind::Syntax,
            Span::new(file, 0, 0),
            "the file could not be parsed",
        )]
    })
}

impl PErr<'_> {
    pub(in crate::syntax) fn start(&self) -> usize {
        match self {
            PErr::Expected { span, .. } | PErr::Custom { span, .. } => span.start,
        }
    }

    /// The diagnostic for this error in `file`.
    pub(in crate::syntax) fn into_diagnostic(self, file: FileId) -> Diagnostic {
        match self {
            PErr::Custom {
                kind,
                span,
                message,
            } => Diagnostic::new(kind, Span::new(file, span.start, span.end), message),
            PErr::Expected {
                span,
                expected,
                found,
            } => {
                let found = found.map_or_else(|| "end of file".to_string(), |t| t.to_string());
                let expected: Vec<String> = expected.iter().map(Exp::to_string).collect();
                let message = match expected.split_last() {
                    None => format!("unexpected {found}"),
                    Some((last, [])) => format!("expected {last}, found {found}"),
                    Some((last, rest)) => {
                        format!("expected {} or {last}, found {found}", rest.join(", "))
                    }
                };
                Diagnostic::new(
                    ErrorKind::Syntax,
                    Span::new(file, span.start, span.end),
                    message,
                )
            }
        }
    }
}

fn push_unique<'s>(list: &mut Vec<Exp<'s>>, item: Exp<'s>) {
    if !list.contains(&item) {
        list.push(item);
    }
}

impl<'t, 's: 't> ChumskyError<'t, In<'t, 's>> for PErr<'s> {
    fn merge(self, other: Self) -> Self {
        match (self, other) {
            (
                PErr::Expected {
                    span,
                    mut expected,
                    found,
                },
                PErr::Expected { expected: more, .. },
            ) => {
                for e in more {
                    push_unique(&mut expected, e);
                }
                PErr::Expected {
                    span,
                    expected,
                    found,
                }
            }
            (e @ PErr::Custom { .. }, _) => e,
            (PErr::Expected { .. }, e @ PErr::Custom { .. }) => e,
        }
    }
}

impl<'t, 's: 't> LabelError<'t, In<'t, 's>, DefaultExpected<'t, Tok<'s>>> for PErr<'s> {
    fn expected_found<E: IntoIterator<Item = DefaultExpected<'t, Tok<'s>>>>(
        expected: E,
        found: Option<MaybeRef<'t, Tok<'s>>>,
        span: SimpleSpan,
    ) -> Self {
        let mut list = Vec::new();
        for e in expected {
            let item = match e {
                DefaultExpected::Token(t) => Exp::Tok(*t),
                DefaultExpected::EndOfInput => Exp::EndOfFile,
                DefaultExpected::Any => Exp::More,
                _ => continue,
            };
            push_unique(&mut list, item);
        }
        PErr::Expected {
            span,
            expected: list,
            found: found.map(|t| *t),
        }
    }
}

impl<'t, 's: 't> LabelError<'t, In<'t, 's>, Lbl> for PErr<'s> {
    fn expected_found<E: IntoIterator<Item = Lbl>>(
        expected: E,
        found: Option<MaybeRef<'t, Tok<'s>>>,
        span: SimpleSpan,
    ) -> Self {
        let mut list = Vec::new();
        for l in expected {
            push_unique(&mut list, Exp::Label(l));
        }
        PErr::Expected {
            span,
            expected: list,
            found: found.map(|t| *t),
        }
    }

    fn label_with(&mut self, label: Lbl) {
        if let PErr::Expected { expected, .. } = self {
            expected.clear();
            expected.push(Exp::Label(label));
        }
    }
}

/// A boxed parser over the token input.
pub(in crate::syntax) type P<'t, 's, O, E> = Boxed<'t, 't, In<'t, 's>, O, E>;
/// What a `map_with` closure gets: span, state and context.
pub(in crate::syntax) type Mx<'t, 'b, 's, E> = MapExtra<'t, 'b, In<'t, 's>, E>;

/// An expression with its depth (saturated at `limit + 1` once it is too deep); the native
/// syntax's expressions are [`Expr`]s, Spore's its own.
#[derive(Clone)]
pub(in crate::syntax) struct Deep<T> {
    /// The expression.
    pub e: T,
    /// Its depth (a literal is 1).
    pub d: u64,
}
