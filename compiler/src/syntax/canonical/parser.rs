//! The canonical-syntax grammar (chumsky over the token list) and the assembly of the parsed file
//! into a [`Tree`].
//!
//! Parsing happens in two chumsky stages glued with [`Parser::then_with_ctx`]: the header and
//! the tables (imports, variables, timestamps) are parsed first and become the *context* of the
//! second stage (signals, roots, subtrees), whose node and expression parsers resolve names
//! against them as they go. Subtrees may be used before they are declared, so `include` gets a
//! provisional id (interned in the parser state) that [`assemble`] maps to the declaration.
//!
//! Semantic problems (unknown names, out-of-range numbers, too-deep expressions, misplaced
//! `case`/`state`/`decider` nodes) are emitted as non-fatal errors so one run reports several;
//! chumsky drops those emitted on paths it backtracks out of.

use std::collections::HashMap;
use std::fmt;

use btvm::{Import, ImportId, ImportKind, Limits, SlotClaims, Status};
use chumsky::error::{Error as ChumskyError, LabelError};
use chumsky::extra::{self, ParserExtra, SimpleState};
use chumsky::input::{Input as _, MapExtra, MappedInput};
use chumsky::prelude::*;
use chumsky::util::MaybeRef;
use chumsky::DefaultExpected;

use super::lexer::{unescape, Spanned, Tok};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{
    Abort, Arg, BehaviorRef, BinOp, CallExpr, Composite, Cooldown, Decider, Dialect, Expr,
    FlagTest, Group, GroupScope, Guard, GuardEval, Hooks, Lit, LogStatus, Loop, Model, NodeBuf,
    NodeKind, Parallel, Policy, Precision, Precondition, Priority, Quorum, Resume, RootFinish,
    SendEvent, Sharing, SignalBinding, StateNode, StatusMap, SubtreeId, TimestampDecl, TimestampId,
    Transition, Tree, TreeBuilder, TreeConfig, Trigger, TsQuery, Type, Var, VarId, Wait,
    WaitForEvent,
};
use crate::source::{FileId, Span};

/// The words that are always literals inside expressions; a function import with one of these
/// names must be written as a string.
pub(in crate::syntax) const EXPR_WORDS: [&str; 4] = ["true", "false", "nan", "inf"];

// ---- chumsky plumbing ---------------------------------------------------------------------

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

/// Provisional subtree ids handed out by `include` before the subtrees are declared.
#[derive(Default)]
struct Refs {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Refs {
    fn intern(&mut self, name: String) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.clone());
        self.index.insert(name, i);
        i
    }
}

/// The header and tables: the context of the second stage.
struct Tables {
    dialect: Dialect,
    config: TreeConfig,
    imports: Vec<Import>,
    import_ix: HashMap<(ImportKind, String), u32>,
    vars: Vec<Var>,
    var_ix: HashMap<String, u32>,
    timestamps: Vec<TimestampDecl>,
    ts_ix: HashMap<String, u32>,
    flags: Vec<String>,
    stimuli: Vec<String>,
}

type St = SimpleState<Refs>;
type DeclE<'s> = extra::Full<PErr<'s>, St, ()>;
type BodyE<'s> = extra::Full<PErr<'s>, St, Tables>;
pub(in crate::syntax) type P<'t, 's, O, E> = Boxed<'t, 't, In<'t, 's>, O, E>;
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

/// A native expression with its depth.
type Ex = Deep<Expr>;

/// A parsed node, with what its parent needs to check it.
struct PNode {
    buf: NodeBuf,
    /// The keyword's span.
    head: SimpleSpan,
    /// For a `state`: each transition target with its span.
    targets: Vec<(u32, SimpleSpan)>,
}

// ---- small parsers ------------------------------------------------------------------------

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
fn name<'t, 's: 't, E>() -> P<'t, 's, (String, SimpleSpan), E>
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
fn string<'t, 's: 't, E>() -> P<'t, 's, String, E>
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

fn overflow<'s>(span: SimpleSpan, what: &str, max: impl fmt::Display) -> PErr<'s> {
    custom(
        ErrorKind::LiteralOverflow,
        span,
        format!("{what} is out of range: expected at most {max}"),
    )
}

/// An integer in `0..=u32::MAX`.
fn u32_lit<'t, 's: 't, E>(what: &'static str) -> P<'t, 's, u32, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    int_tok()
        .map_with(move |(v, span), e| {
            u32::try_from(v).unwrap_or_else(|_| {
                e.emit(overflow(span, what, u32::MAX));
                0
            })
        })
        .boxed()
}

/// An integer in `0..=255`.
fn u8_lit<'t, 's: 't, E>(what: &'static str) -> P<'t, 's, u8, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    int_tok()
        .map_with(move |(v, span), e| {
            u8::try_from(v).unwrap_or_else(|_| {
                e.emit(overflow(span, what, u8::MAX));
                0
            })
        })
        .boxed()
}

/// Applies an optional minus sign to an integer magnitude, checking the `i64` range.
fn signed_int<'t, 's: 't, E>(neg: bool, v: u64, span: SimpleSpan, e: &mut Mx<'t, '_, 's, E>) -> i64
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
fn i64_lit<'t, 's: 't, E>() -> P<'t, 's, i64, E>
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

fn status<'t, 's: 't, E>() -> P<'t, 's, Status, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(Status::ALL.iter().map(|s| (s.name(), *s)).collect())
}

fn import_kind<'t, 's: 't, E>() -> P<'t, 's, ImportKind, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(vec![
        ("action", ImportKind::Action),
        ("function", ImportKind::Function),
    ])
}

fn guard_eval<'t, 's: 't, E>() -> P<'t, 's, GuardEval, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(vec![
        ("every-tick", GuardEval::EveryTick),
        ("on-entry", GuardEval::OnEntry),
        ("on-change", GuardEval::OnChange),
    ])
}

fn quorum<'t, 's: 't, E>() -> P<'t, 's, Quorum, E>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    words(vec![("all", Quorum::All), ("any", Quorum::Any)])
}

// ---- name resolution ----------------------------------------------------------------------

fn unknown<'s>(span: SimpleSpan, message: String) -> PErr<'s> {
    custom(ErrorKind::UnknownName, span, message)
}

fn resolve_import<'t, 's: 't>(
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
    kind: ImportKind,
    name: &str,
    span: SimpleSpan,
) -> ImportId {
    if let Some(&i) = e.ctx().import_ix.get(&(kind, name.to_string())) {
        return ImportId(i);
    }
    let k = kind.name();
    e.emit(unknown(
        span,
        format!("unknown {k} `{name}`: expected a name declared with `import {k}`"),
    ));
    ImportId(0)
}

fn resolve_var<'t, 's: 't>(
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
    name: &str,
    span: SimpleSpan,
) -> VarId {
    if let Some(&i) = e.ctx().var_ix.get(name) {
        return VarId(i);
    }
    e.emit(unknown(
        span,
        format!("unknown variable `{name}`: expected a name declared with `var`"),
    ));
    VarId(0)
}

fn resolve_ts<'t, 's: 't>(
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
    name: &str,
    span: SimpleSpan,
) -> TimestampId {
    if let Some(&i) = e.ctx().ts_ix.get(name) {
        return TimestampId(i);
    }
    e.emit(unknown(
        span,
        format!("unknown timestamp `{name}`: expected a name declared with `timestamp`"),
    ));
    TimestampId(0)
}

/// An action import named at node level (`action`, `behavior`, `hooks`, group `behavior`).
fn action_ref<'t, 's: 't>() -> P<'t, 's, ImportId, BodyE<'s>> {
    name()
        .map_with(|(n, span), e| resolve_import(e, ImportKind::Action, &n, span))
        .boxed()
}

/// A Spore behavior: its action import and the phases it has, in the order
/// `activate tick deactivate` (each optional).
fn behavior_ref<'t, 's: 't>() -> P<'t, 's, BehaviorRef, BodyE<'s>> {
    action_ref()
        .then(kw("activate").or_not())
        .then(kw("tick").or_not())
        .then(kw("deactivate").or_not())
        .map(|(((import, a), t), d)| BehaviorRef {
            import,
            activate: a.is_some(),
            tick: t.is_some(),
            deactivate: d.is_some(),
        })
        .boxed()
}

/// The import a hook call names without its kind: the action of that name if there is one,
/// else the function.
fn resolve_hook<'t, 's: 't>(
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
    name: &str,
    span: SimpleSpan,
) -> ImportId {
    for kind in [ImportKind::Action, ImportKind::Function] {
        if let Some(&i) = e.ctx().import_ix.get(&(kind, name.to_string())) {
            return ImportId(i);
        }
    }
    e.emit(unknown(
        span,
        format!(
            "unknown action or function `{name}`: expected a name declared with `import action` or `import function`"
        ),
    ));
    ImportId(0)
}

/// The argument list of a node-level call: `(ARG, …)`, each `EXPR` or `NAME = EXPR`.
fn call_args<'t, 's: 't>(expr: P<'t, 's, Ex, BodyE<'s>>) -> P<'t, 's, Vec<Arg>, BodyE<'s>> {
    name()
        .then_ignore(just(Tok::Assign))
        .or_not()
        .then(expr.map(|x| x.e))
        .map(|(n, value)| Arg {
            name: n.map(|n| n.0),
            value,
        })
        .separated_by(just(Tok::Comma))
        .collect::<Vec<_>>()
        .delimited_by(just(Tok::LParen), just(Tok::RParen))
        .boxed()
}

// ---- expressions --------------------------------------------------------------------------

/// Wraps `e`, whose deepest operand has depth `inner`, checking the depth limit. A too-deep
/// expression is reported once and replaced by the small placeholder `too_deep`, so nothing
/// deep is built.
pub(in crate::syntax) fn deepen<'t, 's: 't, T, E>(
    inner: u64,
    e: T,
    too_deep: T,
    limit: u64,
    x: &mut Mx<'t, '_, 's, E>,
) -> Deep<T>
where
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    let d = inner + 1;
    if d <= limit {
        return Deep { e, d };
    }
    if inner <= limit {
        let span = x.span();
        x.emit(custom(
            ErrorKind::NestTooDeep,
            span,
            format!("expression is nested too deeply: the limit is {limit} levels"),
        ));
    }
    Deep {
        e: too_deep,
        d: limit + 1,
    }
}

/// [`deepen`] for a native expression (`false` stands for a too-deep one).
fn deepen_expr<'t, 's: 't>(
    inner: u64,
    e: Expr,
    limit: u64,
    x: &mut Mx<'t, '_, 's, BodyE<'s>>,
) -> Ex {
    deepen(inner, e, Expr::Lit(Lit::Bool(false)), limit, x)
}

/// A prefix operator.
#[derive(Clone, Copy)]
pub(in crate::syntax) enum Unary {
    /// `!`.
    Not,
    /// `-` (one right before a number belongs to the literal instead).
    Neg,
}

/// The operators over `primary`, with the native precedence table: prefix `!` and `-`, then
/// `*` `/`, `+` `-`, the comparisons, `&&`, `^^` and `||`, each binary level left-associative.
/// `mk_unary` and `mk_binary` build each operator's expression (and check its depth), so the
/// canonical syntax and Spore share the grammar over their own expression types.
pub(in crate::syntax) fn operators<'t, 's: 't, X, E>(
    primary: P<'t, 's, X, E>,
    mk_unary: impl Fn(Unary, X, &mut Mx<'t, '_, 's, E>) -> X + Clone + 't,
    mk_binary: impl Fn(BinOp, X, X, &mut Mx<'t, '_, 's, E>) -> X + Clone + 't,
) -> P<'t, 's, X, E>
where
    X: 't,
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    // A `-` right before a number belongs to the literal (`-5` is `Lit(-5)`).
    let numeric = select! {
        Tok::Int(_) => (),
        Tok::Float(_) => (),
        Tok::Ident("inf") => (),
        Tok::Ident("nan") => (),
    };
    let prefix = choice((
        just(Tok::Bang).to(Unary::Not),
        just(Tok::Minus).then_ignore(numeric.not()).to(Unary::Neg),
    ));
    let unary = prefix
        .repeated()
        .foldr_with(primary, move |op, x, e| mk_unary(op, x, e))
        .labelled(Lbl::What("expression"))
        .boxed();

    let level = |lower: P<'t, 's, X, E>, ops: Vec<(Tok<'s>, BinOp)>| {
        let op = choice(
            ops.into_iter()
                .map(|(t, b)| just(t).to(b))
                .collect::<Vec<_>>(),
        );
        let mk_binary = mk_binary.clone();
        lower
            .clone()
            .foldl_with(op.then(lower).repeated(), move |a, (op, b), e| {
                mk_binary(op, a, b, e)
            })
            .boxed()
    };
    let product = level(
        unary,
        vec![(Tok::Star, BinOp::Mul), (Tok::Slash, BinOp::Div)],
    );
    let sum = level(
        product,
        vec![(Tok::Plus, BinOp::Add), (Tok::Minus, BinOp::Sub)],
    );
    let cmp = level(
        sum,
        vec![
            (Tok::EqEq, BinOp::Eq),
            (Tok::NotEq, BinOp::Ne),
            (Tok::Lt, BinOp::Lt),
            (Tok::Le, BinOp::Le),
            (Tok::Gt, BinOp::Gt),
            (Tok::Ge, BinOp::Ge),
        ],
    );
    let and = level(cmp, vec![(Tok::AndAnd, BinOp::And)]);
    let xor = level(and, vec![(Tok::XorXor, BinOp::Xor)]);
    level(xor, vec![(Tok::OrOr, BinOp::Or)])
}

fn expr_parser<'t, 's: 't>(limit: u64) -> P<'t, 's, Ex, BodyE<'s>> {
    recursive(move |expr| {
        let arg = name()
            .then_ignore(just(Tok::Assign))
            .or_not()
            .then(expr.clone())
            .map(|(n, x): (Option<(String, SimpleSpan)>, Ex)| (n.map(|n| n.0), x));
        let args = arg
            .separated_by(just(Tok::Comma))
            .collect::<Vec<_>>()
            .delimited_by(just(Tok::LParen), just(Tok::RParen))
            .boxed();

        let fname = select! {
            Tok::Ident(s) if !EXPR_WORDS.contains(&s) => s.to_string(),
            Tok::Str(s) => unescape(s),
        }
        .map_with(|n, e| (n, e.span()));
        let call = fname.then(args).map_with(move |((n, span), args), e| {
            let import = resolve_import(e, ImportKind::Function, &n, span);
            let inner = args.iter().map(|(_, a)| a.d).max().unwrap_or(0);
            let args = args
                .into_iter()
                .map(|(name, a)| Arg { name, value: a.e })
                .collect();
            deepen_expr(inner, Expr::Call(CallExpr { import, args }), limit, e)
        });

        let literal = lit().map(|l| Ex {
            e: Expr::Lit(l),
            d: 1,
        });
        let var = just(Tok::Dollar)
            .ignore_then(name())
            .map_with(|(n, span), e| Ex {
                e: Expr::Var(resolve_var(e, &n, span)),
                d: 1,
            });
        let paren_name = name().delimited_by(just(Tok::LParen), just(Tok::RParen));
        let bound = kw("bound")
            .ignore_then(
                import_kind()
                    .then(name())
                    .delimited_by(just(Tok::LParen), just(Tok::RParen)),
            )
            .map_with(|(k, (n, span)), e| Expr::Bound(resolve_import(e, k, &n, span)));
        let ts = words(vec![
            ("ever", TsQuery::EverSet),
            ("valid", TsQuery::Valid),
            ("elapsed", TsQuery::Elapsed),
        ])
        .then(paren_name)
        .map_with(|(q, (n, span)), e| Expr::Timestamp(resolve_ts(e, &n, span), q));
        let builtin = just(Tok::At)
            .ignore_then(choice((kw("random").to(Expr::Random), bound, ts)))
            .map(|e| Ex { e, d: 1 });
        let paren = expr
            .clone()
            .delimited_by(just(Tok::LParen), just(Tok::RParen));
        let primary = choice((call, literal, var, builtin, paren))
            .labelled(Lbl::What("expression"))
            .boxed();
        operators(
            primary,
            move |op, x: Ex, e| {
                let inner = Box::new(x.e);
                let e2 = match op {
                    Unary::Not => Expr::Not(inner),
                    Unary::Neg => Expr::Neg(inner),
                };
                deepen_expr(x.d, e2, limit, e)
            },
            move |op, a: Ex, b: Ex, e| {
                let inner = a.d.max(b.d);
                deepen_expr(inner, Expr::binary(op, a.e, b.e), limit, e)
            },
        )
    })
    .boxed()
}

// ---- nodes --------------------------------------------------------------------------------

/// The kind a child must have under `parent`, if any.
fn required_child(parent: &NodeKind) -> Option<&'static str> {
    match parent {
        NodeKind::Priority(_) => Some("case"),
        NodeKind::StateMachine => Some("state"),
        NodeKind::Group(_) => Some("decider"),
        _ => None,
    }
}

/// The only parent kind a node of this kind may have, if restricted.
fn required_parent(child: &NodeKind) -> Option<&'static str> {
    match child {
        NodeKind::Case(_) => Some("priority"),
        NodeKind::State(_) => Some("statemachine"),
        NodeKind::Decider(_) => Some("group"),
        _ => None,
    }
}

/// Assembles a parsed node, checking its children's kinds and (for a state machine) the
/// transition targets of its states.
fn build<'t, 's: 't>(
    file: FileId,
    kind: NodeKind,
    (head, name): (SimpleSpan, Option<String>),
    children: Vec<PNode>,
    targets: Vec<(u32, SimpleSpan)>,
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
) -> PNode {
    let want = required_child(&kind);
    for c in &children {
        let ck = c.buf.kind.keyword();
        match (want, required_parent(&c.buf.kind)) {
            // A group's children may also be includes of shared deciders.
            (Some("decider"), _) if ck == "include" => {}
            // BST's forward-only priority: a `sequence` over `case` arms.
            (None, Some("priority")) if matches!(kind, NodeKind::Sequence(_)) => {}
            (Some(w), _) if w != ck => e.emit(custom(
                ErrorKind::Syntax,
                c.head,
                format!("expected `{w}` inside `{}`, found `{ck}`", kind.keyword()),
            )),
            (None, Some(p)) => e.emit(custom(
                ErrorKind::Syntax,
                c.head,
                format!(
                    "`{ck}` must be a child of `{p}`, not of `{}`",
                    kind.keyword()
                ),
            )),
            _ => {}
        }
    }
    if matches!(kind, NodeKind::StateMachine) {
        let n = children.len();
        for c in &children {
            for &(to, span) in &c.targets {
                if to as usize >= n {
                    e.emit(custom(
                        ErrorKind::InvalidValue,
                        span,
                        format!(
                            "transition to state {to}, but this statemachine has {n} state{} (numbered from 0)",
                            if n == 1 { "" } else { "s" }
                        ),
                    ));
                }
            }
        }
    }
    let span = e.span();
    PNode {
        buf: NodeBuf {
            kind,
            name,
            span: Span::new(file, span.start, span.end),
            children: children.into_iter().map(|c| c.buf).collect(),
        },
        head,
        targets,
    }
}

type Head = (SimpleSpan, Option<String>);

fn node_parser<'t, 's: 't>(file: FileId, limit: u64) -> P<'t, 's, PNode, BodyE<'s>> {
    let expr = expr_parser(limit);
    let pexpr: P<'t, 's, Expr, BodyE<'s>> = expr
        .clone()
        .delimited_by(just(Tok::LParen), just(Tok::RParen))
        .map(|x| x.e)
        .boxed();
    recursive(move |node| {
        let node = node.labelled(Lbl::What("node"));
        let many = node
            .clone()
            .repeated()
            .collect::<Vec<PNode>>()
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
            .boxed();
        let one = node
            .clone()
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
            .map(|n| vec![n])
            .boxed();
        let node_name = just(Tok::At).ignore_then(string()).or_not().boxed();
        let head = |word: &'static str| -> P<'t, 's, Head, BodyE<'s>> {
            kw(word)
                .map_with(|_, e| e.span())
                .then(node_name.clone())
                .boxed()
        };
        let pe = || pexpr.clone();
        let st = || status::<'t, 's, BodyE<'s>>();

        // Composites.
        let composite = |word: &'static str, make: fn(Composite) -> NodeKind| {
            head(word)
                .then(words(vec![
                    ("restart", Resume::Restart),
                    ("remember", Resume::Remember),
                    ("running-list", Resume::RunningList),
                    ("cursor", Resume::Cursor),
                ]))
                .then(kw("loop").or_not())
                .then(kw("when").ignore_then(pe()).or_not())
                .then(many.clone())
                .map_with(move |((((h, resume), looping), cond), ch), e| {
                    let c = Composite {
                        resume,
                        looping: looping.is_some(),
                        cond,
                    };
                    build(file, make(c), h, ch, Vec::new(), e)
                })
                .boxed()
        };
        let sequence = composite("sequence", NodeKind::Sequence);
        let selector = composite("selector", NodeKind::Selector);
        let parallel = head("parallel")
            .then_ignore(kw("success"))
            .then_ignore(just(Tok::Assign))
            .then(quorum())
            .then_ignore(kw("failure"))
            .then_ignore(just(Tok::Assign))
            .then(quorum())
            .then(kw("stop-on-failure").or_not())
            .then(kw("remember").or_not())
            .then(many.clone())
            .map_with(
                move |(((((h, success), failure), stop), remember), ch), e| {
                    let p = Parallel {
                        success,
                        failure,
                        stop_on_failure: stop.is_some(),
                        remember: remember.is_some(),
                    };
                    build(file, NodeKind::Parallel(p), h, ch, Vec::new(), e)
                },
            )
            .boxed();
        let priority = head("priority")
            .then(guard_eval())
            .then(many.clone())
            .map_with(move |((h, repick), ch), e| {
                build(
                    file,
                    NodeKind::Priority(Priority { repick }),
                    h,
                    ch,
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let case = head("case")
            .then(pe())
            .then(one.clone())
            .map_with(move |((h, c), ch), e| build(file, NodeKind::Case(c), h, ch, Vec::new(), e))
            .boxed();
        let statemachine = head("statemachine")
            .then(many.clone())
            .map_with(move |(h, ch), e| build(file, NodeKind::StateMachine, h, ch, Vec::new(), e))
            .boxed();
        let trigger = choice((
            kw("on").ignore_then(string()).map(Trigger::Event),
            kw("when").ignore_then(pe()).map(Trigger::When),
        ));
        let transition = trigger
            .then_ignore(just(Tok::Arrow))
            .then(int_tok().map_with(|(v, span), e| {
                let to = u32::try_from(v).unwrap_or_else(|_| {
                    e.emit(overflow(span, "state index", u32::MAX));
                    0
                });
                (to, span)
            }));
        let state = head("state")
            .then(transition.repeated().collect::<Vec<_>>())
            .then(one.clone())
            .map_with(move |((h, ts), ch), e| {
                let targets = ts.iter().map(|(_, t)| *t).collect();
                let transitions = ts
                    .into_iter()
                    .map(|(on, (to, _))| Transition { on, to })
                    .collect();
                build(
                    file,
                    NodeKind::State(StateNode { transitions }),
                    h,
                    ch,
                    targets,
                    e,
                )
            })
            .boxed();
        let group = head("group")
            .then(words(vec![
                ("prioritized", Policy::Prioritized),
                ("sequential", Policy::Sequential),
                ("random", Policy::Random),
                ("scored", Policy::Scored),
            ]))
            .then(kw("behavior").ignore_then(behavior_ref()).or_not())
            .then(many.clone())
            .map_with(move |(((h, policy), behavior), ch), e| {
                let g = Group { policy, behavior };
                build(file, NodeKind::Group(g), h, ch, Vec::new(), e)
            })
            .boxed();
        let flag = quorum()
            .then(words(vec![("set", true), ("clear", false)]))
            .then(u32_lit("flag mask"))
            .map(|((q, set), mask)| FlagTest {
                mask,
                all: q == Quorum::All,
                set,
            })
            .boxed();
        let decider = head("decider")
            .then(kw("every").ignore_then(u32_lit("interval")).or_not())
            .then(kw("decision").ignore_then(flag.clone()).or_not())
            .then(kw("stimuli").ignore_then(flag).or_not())
            .then(kw("decide").ignore_then(pe()).or_not())
            .then(kw("redecide").or_not())
            .then(one.clone())
            .map_with(
                move |((((((h, every_ms), decision), stimuli), decide), redecide), ch), e| {
                    let d = Decider {
                        pre: Precondition {
                            every_ms,
                            decision,
                            stimuli,
                        },
                        decide,
                        decide_on_redecide: redecide.is_some(),
                    };
                    build(file, NodeKind::Decider(d), h, ch, Vec::new(), e)
                },
            )
            .boxed();
        let composites = choice((
            sequence,
            selector,
            parallel,
            priority,
            case,
            statemachine,
            state,
            group,
            decider,
        ))
        .boxed();

        // Decorators.
        let invert = head("invert")
            .then(one.clone())
            .map_with(move |(h, ch), e| build(file, NodeKind::Invert, h, ch, Vec::new(), e))
            .boxed();
        let map = head("map")
            .then(st())
            .then(st())
            .then(st())
            .then(one.clone())
            .map_with(move |((((h, failure), success), running), ch), e| {
                let m = StatusMap {
                    failure,
                    success,
                    running,
                };
                build(file, NodeKind::MapStatus(m), h, ch, Vec::new(), e)
            })
            .boxed();
        let cooldown = head("cooldown")
            .then(u32_lit("cooldown"))
            .then(one.clone())
            .map_with(move |((h, ms), ch), e| {
                build(
                    file,
                    NodeKind::Cooldown(Cooldown { ms }),
                    h,
                    ch,
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let guard = head("guard")
            .then(guard_eval())
            .then(pe())
            .then(one.clone())
            .map_with(move |(((h, eval), cond), ch), e| {
                build(
                    file,
                    NodeKind::Guard(Guard { cond, eval }),
                    h,
                    ch,
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let loop_ = head("loop")
            .then(u32_lit("loop count").map(Some).or(kw("forever").to(None)))
            .then_ignore(kw("until"))
            .then(st())
            .then(one.clone())
            .map_with(move |(((h, count), exit_on), ch), e| {
                build(
                    file,
                    NodeKind::Loop(Loop { count, exit_on }),
                    h,
                    ch,
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let groupscope = head("groupscope")
            .then(string())
            .then(u32_lit("user limit"))
            .then(one.clone())
            .map_with(move |(((h, scope), max_users), ch), e| {
                let g = GroupScope { scope, max_users };
                build(file, NodeKind::GroupScope(g), h, ch, Vec::new(), e)
            })
            .boxed();
        // A hook call: `[action|function] NAME [(ARGS)]`; without the kind, an action of
        // that name if there is one, else a function.
        let hook_args = call_args(expr.clone())
            .or_not()
            .map(Option::unwrap_or_default);
        let hook_call = choice((
            import_kind().then(name()).map(|(k, n)| (Some(k), n)),
            name().map(|n| (None, n)),
        ))
        .then(hook_args)
        .map_with(|((kind, (n, span)), args), e| {
            let import = match kind {
                Some(k) => resolve_import(e, k, &n, span),
                None => resolve_hook(e, &n, span),
            };
            CallExpr { import, args }
        })
        .boxed();
        let hooks = head("hooks")
            .then(kw("enter").ignore_then(hook_call.clone()).or_not())
            .then(kw("exit").ignore_then(hook_call).or_not())
            .then(one.clone())
            .map_with(move |(((h, enter), exit), ch), e| {
                build(
                    file,
                    NodeKind::Hooks(Hooks { enter, exit }),
                    h,
                    ch,
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let logstatus = head("logstatus")
            .then(kw("start").ignore_then(string()).or_not())
            .then(kw("success").ignore_then(string()).or_not())
            .then(kw("failure").ignore_then(string()).or_not())
            .then(one.clone())
            .map_with(move |((((h, start), success), failure), ch), e| {
                let l = LogStatus {
                    start,
                    success,
                    failure,
                };
                build(file, NodeKind::LogStatus(l), h, ch, Vec::new(), e)
            })
            .boxed();
        let decorators = choice((
            invert, map, cooldown, guard, loop_, groupscope, hooks, logstatus,
        ))
        .boxed();

        // Leaves.
        let include = head("include")
            .then(string())
            .map_with(move |(h, name), e| {
                let id = e.state().intern(name);
                build(
                    file,
                    NodeKind::Include(SubtreeId(id)),
                    h,
                    Vec::new(),
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let args = call_args(expr.clone());
        let action = head("action")
            .then(action_ref())
            .then(args)
            .map_with(move |((h, import), args), e| {
                build(
                    file,
                    NodeKind::Action(CallExpr { import, args }),
                    h,
                    Vec::new(),
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let condition = head("condition")
            .then(pe())
            .map_with(move |(h, c), e| {
                build(file, NodeKind::Condition(c), h, Vec::new(), Vec::new(), e)
            })
            .boxed();
        let const_ = head("const")
            .then(st())
            .map_with(move |(h, s), e| {
                build(file, NodeKind::Const(s), h, Vec::new(), Vec::new(), e)
            })
            .boxed();
        let yield_ = head("yield")
            .map_with(move |h, e| build(file, NodeKind::Yield, h, Vec::new(), Vec::new(), e))
            .boxed();
        let wait = head("wait")
            .then(i64_lit())
            .then(u32_lit("wait variation"))
            .then_ignore(just(Tok::Arrow))
            .then(st())
            .map_with(move |(((h, time), variation), result), e| {
                let w = Wait {
                    time,
                    variation,
                    result,
                };
                build(file, NodeKind::Wait(w), h, Vec::new(), Vec::new(), e)
            })
            .boxed();
        let waituntil = head("waituntil")
            .then(pe())
            .map_with(move |(h, c), e| {
                build(file, NodeKind::WaitUntil(c), h, Vec::new(), Vec::new(), e)
            })
            .boxed();
        let send = head("send")
            .then(string())
            .then_ignore(just(Tok::Arrow))
            .then(st())
            .map_with(move |((h, event), then), e| {
                build(
                    file,
                    NodeKind::SendEvent(SendEvent { event, then }),
                    h,
                    Vec::new(),
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let waitevent = head("waitevent")
            .then(string())
            .then_ignore(just(Tok::Arrow))
            .then(st())
            .map_with(move |((h, event), result), e| {
                build(
                    file,
                    NodeKind::WaitForEvent(WaitForEvent { event, result }),
                    h,
                    Vec::new(),
                    Vec::new(),
                    e,
                )
            })
            .boxed();
        let log = head("log")
            .then(string())
            .map_with(move |(h, m), e| build(file, NodeKind::Log(m), h, Vec::new(), Vec::new(), e))
            .boxed();
        let select = head("select")
            .then(string())
            .map_with(move |(h, m), e| {
                build(file, NodeKind::Select(m), h, Vec::new(), Vec::new(), e)
            })
            .boxed();
        let behavior = head("behavior")
            .then(behavior_ref())
            .map_with(move |(h, i), e| {
                build(file, NodeKind::Behavior(i), h, Vec::new(), Vec::new(), e)
            })
            .boxed();
        let leaves = choice((
            include, action, condition, const_, yield_, wait, waituntil, send, waitevent, log,
            select, behavior,
        ))
        .boxed();

        choice((composites, decorators, leaves))
            .labelled(Lbl::What("node"))
            .boxed()
    })
    .boxed()
}

// ---- the file -----------------------------------------------------------------------------

/// A declaration with the span of its name, for duplicate checks.
type Named<T> = (T, SimpleSpan);

/// A timestamp and the name (with span) of the timestamp its `exclusive` link names.
type TsDecl = (TimestampDecl, Option<(String, SimpleSpan)>);

struct Decls {
    dialect: Dialect,
    config: [Option<Cfg>; 5],
    imports: Vec<Named<Import>>,
    vars: Vec<Named<Var>>,
    timestamps: Vec<Named<TsDecl>>,
    flags: Vec<Named<String>>,
    stimuli: Vec<Named<String>>,
}

#[derive(Clone, Copy)]
enum Cfg {
    Model(Model),
    RootFinish(RootFinish),
    Abort(Abort),
    Precision(Precision),
    Clock(u32),
}

fn duplicate<'s>(span: SimpleSpan, what: &str, name: &str) -> PErr<'s> {
    custom(
        ErrorKind::InvalidValue,
        span,
        format!("{what} `{name}` is declared twice: names must be unique"),
    )
}

/// Builds the tables from the declarations, reporting duplicates and unknown `exclusive` links.
fn tables<'t, 's: 't>(d: Decls, e: &mut Mx<'t, '_, 's, DeclE<'s>>) -> Tables {
    let mut config = TreeConfig::for_dialect(d.dialect);
    for c in d.config.into_iter().flatten() {
        match c {
            Cfg::Model(m) => config.model = m,
            Cfg::RootFinish(r) => config.root_finish = r,
            Cfg::Abort(a) => config.abort = a,
            Cfg::Precision(p) => config.precision = p,
            Cfg::Clock(c) => config.clock = c,
        }
    }
    let mut t = Tables {
        dialect: d.dialect,
        config,
        imports: Vec::new(),
        import_ix: HashMap::new(),
        vars: Vec::new(),
        var_ix: HashMap::new(),
        timestamps: Vec::new(),
        ts_ix: HashMap::new(),
        flags: Vec::new(),
        stimuli: Vec::new(),
    };
    let id = |len: usize| u32::try_from(len).unwrap_or(u32::MAX);
    for (import, span) in d.imports {
        let key = (import.kind, import.name.clone());
        if t.import_ix.contains_key(&key) {
            e.emit(duplicate(span, import.kind.name(), &import.name));
            continue;
        }
        t.import_ix.insert(key, id(t.imports.len()));
        t.imports.push(import);
    }
    for (var, span) in d.vars {
        if t.var_ix.contains_key(&var.name) {
            e.emit(duplicate(span, "variable", &var.name));
            continue;
        }
        t.var_ix.insert(var.name.clone(), id(t.vars.len()));
        t.vars.push(var);
    }
    let mut links = Vec::new();
    for ((ts, link), span) in d.timestamps {
        if t.ts_ix.contains_key(&ts.name) {
            e.emit(duplicate(span, "timestamp", &ts.name));
            continue;
        }
        t.ts_ix.insert(ts.name.clone(), id(t.timestamps.len()));
        links.push(link);
        t.timestamps.push(ts);
    }
    for (what, names, out) in [
        ("flag", d.flags, &mut t.flags),
        ("stimulus", d.stimuli, &mut t.stimuli),
    ] {
        for (name, span) in names {
            if out.contains(&name) {
                e.emit(duplicate(span, what, &name));
            } else if out.len() == 32 {
                e.emit(custom(
                    ErrorKind::InvalidValue,
                    span,
                    format!("more than 32 {what} names"),
                ));
            } else {
                out.push(name);
            }
        }
    }
    for (ts, link) in t.timestamps.iter_mut().zip(links) {
        if let Some((name, span)) = link {
            match t.ts_ix.get(&name) {
                Some(&i) => ts.exclusive_to = Some(TimestampId(i)),
                None => e.emit(unknown(
                    span,
                    format!(
                        "unknown timestamp `{name}`: expected a name declared with `timestamp`"
                    ),
                )),
            }
        }
    }
    t
}

fn decls_parser<'t, 's: 't>() -> P<'t, 's, Tables, DeclE<'s>> {
    let semi = || just(Tok::Semi);
    let version = kw("btvm")
        .ignore_then(int_tok())
        .then_ignore(semi())
        .validate(|(v, span), _, emitter| {
            if v != 1 {
                emitter.emit(custom(
                    ErrorKind::InvalidValue,
                    span,
                    format!("unsupported format version {v}: expected `btvm 1;`"),
                ));
            }
        });
    let dialect = kw("dialect")
        .ignore_then(words(Dialect::ALL.iter().map(|d| (d.name(), *d)).collect()))
        .then_ignore(semi());
    let model = kw("model")
        .ignore_then(choice((
            kw("running-list")
                .ignore_then(u32_lit("running-list capacity"))
                .map(|capacity| Model::RunningList { capacity }),
            kw("cursor")
                .ignore_then(u32_lit("run-away limit"))
                .map(|runaway_limit| Model::Cursor { runaway_limit }),
            kw("lifecycle").to(Model::Lifecycle),
            kw("selection").to(Model::Selection),
            kw("decider")
                .ignore_then(u32_lit("redecide limit"))
                .map(|redecide_limit| Model::Decider { redecide_limit }),
        )))
        .then_ignore(semi())
        .map(Cfg::Model);
    let root_finish = kw("root-finish")
        .ignore_then(words(vec![
            ("rerun", RootFinish::Rerun),
            ("restart-or-stop", RootFinish::RestartOrStop),
            ("stop", RootFinish::Stop),
        ]))
        .then_ignore(semi())
        .map(Cfg::RootFinish);
    let abort = kw("abort")
        .ignore_then(words(vec![
            ("abandon", Abort::Abandon),
            ("terminate", Abort::Terminate),
        ]))
        .then_ignore(semi())
        .map(Cfg::Abort);
    let precision = kw("precision")
        .ignore_then(words(vec![
            ("single", Precision::Single),
            ("double", Precision::Double),
        ]))
        .then_ignore(semi())
        .map(Cfg::Precision);
    let clock = kw("clock")
        .ignore_then(u32_lit("clock"))
        .then_ignore(semi())
        .map(Cfg::Clock);
    let import = kw("import")
        .ignore_then(import_kind())
        .then(name())
        .then(u8_lit("argument count"))
        .then_ignore(just(Tok::DotDot))
        .then(u8_lit("argument count"))
        .then(kw("long").or_not())
        .then(
            kw("claims")
                .ignore_then(
                    status()
                        .separated_by(just(Tok::Comma))
                        .collect::<Vec<_>>()
                        .delimited_by(just(Tok::LParen), just(Tok::RParen)),
                )
                .or_not(),
        )
        .then(kw("script").ignore_then(string()).or_not())
        .then_ignore(semi())
        .map(
            |((((((kind, (name, span)), min_args), max_args), long), claims), script)| {
                let claims = claims.map_or(SlotClaims::default(), |list| {
                    list.into_iter()
                        .fold(SlotClaims::NONE, |set, s| set.union(SlotClaims::of(s)))
                });
                let import = Import {
                    name,
                    kind,
                    min_args,
                    max_args,
                    long_running: long.is_some(),
                    claims,
                    script,
                };
                (import, span)
            },
        );
    let var = kw("var")
        .ignore_then(name())
        .then_ignore(just(Tok::Colon))
        .then(words(vec![
            ("bool", Type::Bool),
            ("int", Type::Int),
            ("float", Type::Float),
        ]))
        .then_ignore(just(Tok::Assign))
        .then(lit())
        .then_ignore(semi())
        .map(|(((name, span), ty), default)| (Var { name, ty, default }, span));
    let timestamp = kw("timestamp")
        .ignore_then(name())
        .then(kw("on").ignore_then(string()).or_not())
        .then(kw("exclusive").ignore_then(name()).or_not())
        .then_ignore(semi())
        .map(|(((name, span), set_on), link)| {
            let ts = TimestampDecl {
                name,
                set_on,
                exclusive_to: None,
            };
            ((ts, link), span)
        });
    let flag = kw("flag").ignore_then(name()).then_ignore(semi());
    let stimulus = kw("stimulus").ignore_then(name()).then_ignore(semi());
    group((
        version,
        dialect,
        model.or_not(),
        root_finish.or_not(),
        abort.or_not(),
        precision.or_not(),
        clock.or_not(),
        import.repeated().collect::<Vec<_>>(),
        var.repeated().collect::<Vec<_>>(),
        timestamp.repeated().collect::<Vec<_>>(),
        flag.repeated().collect::<Vec<_>>(),
        stimulus.repeated().collect::<Vec<_>>(),
    ))
    .map_with(
        |(_, dialect, m, r, a, p, c, imports, vars, timestamps, flags, stimuli), e| {
            let d = Decls {
                dialect,
                config: [m, r, a, p, c],
                imports,
                vars,
                timestamps,
                flags,
                stimuli,
            };
            tables(d, e)
        },
    )
    .boxed()
}

/// An entry point: its name (with span) and body.
type Root = (Named<String>, NodeBuf);
/// A subtree: its name (with span), sharing, whole span and body.
type Sub = (Named<String>, Sharing, SimpleSpan, NodeBuf);

struct Body {
    signals: Vec<SignalBinding>,
    roots: Vec<Root>,
    subtrees: Vec<Sub>,
}

fn body_parser<'t, 's: 't>(file: FileId, limits: &Limits) -> P<'t, 's, Body, BodyE<'s>> {
    let limit = u64::from(limits.max_expr_depth);
    let node = node_parser(file, limit);
    let signal = kw("signal")
        .ignore_then(string())
        .then(name().map_with(|(n, span), e| resolve_var(e, &n, span)))
        .then_ignore(just(Tok::Assign))
        .then(expr_parser(limit))
        .then_ignore(just(Tok::Semi))
        .map(|((event, var), value)| SignalBinding {
            event,
            var,
            value: value.e,
        });
    let root = kw("root")
        .ignore_then(name())
        .then_ignore(just(Tok::Assign))
        .then(node.clone())
        .map(|(n, body)| (n, body.buf));
    let subtree = kw("subtree")
        .ignore_then(string().map_with(|s, e| (s, e.span())))
        .then(words(vec![
            ("shared", Sharing::Shared),
            ("per-site", Sharing::PerSite),
        ]))
        .then_ignore(just(Tok::Assign))
        .then(node)
        .map_with(|((n, sharing), body), e| (n, sharing, e.span(), body.buf));
    group((
        signal.repeated().collect::<Vec<_>>(),
        root.repeated().at_least(1).collect::<Vec<_>>(),
        subtree.repeated().collect::<Vec<_>>(),
    ))
    .then_ignore(end())
    .map(|(signals, roots, subtrees)| Body {
        signals,
        roots,
        subtrees,
    })
    .boxed()
}

/// Parses the token list of `file` (already lexed and depth-checked) into a tree.
pub(super) fn parse_tokens(
    file: FileId,
    text_len: usize,
    tokens: &[Spanned<'_>],
    limits: &Limits,
) -> crate::diag::Result<Tree> {
    let eoi = SimpleSpan::from(text_len..text_len);
    let input = tokens.split_token_span(eoi);
    let mut state = SimpleState(Refs::default());
    let parser = decls_parser().then_with_ctx(body_parser(file, limits));
    let (out, errs) = parser
        .parse_with_state(input, &mut state)
        .into_output_errors();
    if !errs.is_empty() {
        let mut errs = errs;
        errs.sort_by_key(PErr::start);
        let mut diags: Vec<Diagnostic> = Vec::new();
        for e in errs {
            let d = e.into_diagnostic(file);
            if !diags.contains(&d) {
                diags.push(d);
            }
        }
        return Err(diags);
    }
    let Some((tables, body)) = out else {
        return Err(vec![Diagnostic::new(
            ErrorKind::Syntax,
            Span::new(file, 0, 0),
            "the file could not be parsed",
        )]);
    };
    assemble(file, tables, body, &state.0, limits)
}

/// Maps provisional include ids to subtree ids, checks entry names and the node count, and
/// builds and validates the tree.
fn assemble(
    file: FileId,
    t: Tables,
    mut body: Body,
    refs: &Refs,
    limits: &Limits,
) -> crate::diag::Result<Tree> {
    let span = |s: SimpleSpan| Span::new(file, s.start, s.end);
    let mut errors = Vec::new();
    let mut root_names: HashMap<&str, ()> = HashMap::new();
    for ((name, s), _) in &body.roots {
        if root_names.insert(name, ()).is_some() {
            errors.push(duplicate(*s, "root", name).into_diagnostic(file));
        }
    }
    let mut sub_ix: HashMap<String, u32> = HashMap::new();
    for (i, ((name, s), ..)) in body.subtrees.iter().enumerate() {
        if sub_ix.contains_key(name) {
            errors.push(duplicate(*s, "subtree", name).into_diagnostic(file));
        } else {
            sub_ix.insert(name.clone(), u32::try_from(i).unwrap_or(u32::MAX));
        }
    }
    // Resolve includes and count nodes, iteratively.
    let mut count = 0usize;
    let mut stack: Vec<&mut NodeBuf> = body
        .roots
        .iter_mut()
        .map(|r| &mut r.1)
        .chain(body.subtrees.iter_mut().map(|s| &mut s.3))
        .collect();
    while let Some(n) = stack.pop() {
        count += 1;
        if let NodeKind::Include(id) = &mut n.kind {
            let name = refs.names.get(id.0 as usize).map_or("", String::as_str);
            match sub_ix.get(name) {
                Some(&i) => *id = SubtreeId(i),
                None => errors.push(Diagnostic::new(
                    ErrorKind::UnknownName,
                    n.span,
                    format!("unknown subtree `{name}`: expected a name declared with `subtree`"),
                )),
            }
        }
        stack.extend(n.children.iter_mut());
    }
    if count > limits.max_nodes {
        errors.push(Diagnostic::new(
            ErrorKind::TooManyNodes,
            Span::new(file, 0, 0),
            format!(
                "the tree has {count} nodes, more than the limit of {}",
                limits.max_nodes
            ),
        ));
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| d.span.start);
        return Err(errors);
    }
    let mut b = TreeBuilder::new(t.dialect);
    b.config(t.config);
    for i in t.imports {
        b.import(i);
    }
    for v in t.vars {
        b.var(v);
    }
    for ts in t.timestamps {
        b.timestamp(ts);
    }
    for f in t.flags {
        b.flag(f);
    }
    for st in t.stimuli {
        b.stimulus(st);
    }
    for s in body.signals {
        b.signal(s.event, s.var, s.value);
    }
    for ((name, _), node) in body.roots {
        b.root(name, node);
    }
    for ((name, _), sharing, s, node) in body.subtrees {
        let id = b.declare_subtree(name, sharing, span(s));
        b.define_subtree(id, node);
    }
    let whole = Span::new(file, 0, 0);
    let tree = b
        .finish()
        .map_err(|m| vec![Diagnostic::new(ErrorKind::InvalidValue, whole, m)])?;
    tree.validate()
        .map_err(|m| vec![Diagnostic::new(ErrorKind::InvalidValue, whole, m)])?;
    Ok(tree)
}
