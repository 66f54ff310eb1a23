//! The expression grammar, with name resolution against the tables (imports, variables,
//! timestamps) and the exact depth check of every expression as it is built.
//!
//! The operator precedence table ([`operators`]) and [`deepen`] are shared with Spore. This
//! module never parses nodes or declarations.

use btvm::{ImportId, ImportKind};
use chumsky::extra::ParserExtra;
use chumsky::prelude::*;

use super::super::lexer::{unescape, Tok};
use super::atoms::{import_kind, kw, lit, name, words};
use super::plumbing::{custom, Deep, In, Lbl, Mx, PErr, P};
use super::{BodyE, Ex, EXPR_WORDS};
use crate::diag::ErrorKind;
use crate::ir::{Arg, BehaviorRef, BinOp, CallExpr, Expr, Lit, TimestampId, TsQuery, VarId};

pub(super) fn unknown<'s>(span: SimpleSpan, message: String) -> PErr<'s> {
    custom(ErrorKind::UnknownName, span, message)
}

pub(super) fn resolve_import<'t, 's: 't>(
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

pub(super) fn resolve_var<'t, 's: 't>(
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

pub(super) fn resolve_ts<'t, 's: 't>(
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
pub(super) fn action_ref<'t, 's: 't>() -> P<'t, 's, ImportId, BodyE<'s>> {
    name()
        .map_with(|(n, span), e| resolve_import(e, ImportKind::Action, &n, span))
        .boxed()
}

/// A Spore behavior: its action import and the phases it has, in the order
/// `activate tick deactivate` (each optional).
pub(super) fn behavior_ref<'t, 's: 't>() -> P<'t, 's, BehaviorRef, BodyE<'s>> {
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
pub(super) fn resolve_hook<'t, 's: 't>(
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
pub(super) fn call_args<'t, 's: 't>(
    expr: P<'t, 's, Ex, BodyE<'s>>,
) -> P<'t, 's, Vec<Arg>, BodyE<'s>> {
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
pub(super) fn deepen_expr<'t, 's: 't>(
    inner: u64,
    e: Expr,
    limit: u64,
    x: &mut Mx<'t, '_, 's, BodyE<'s>>,
) -> Ex {
    deepen(inner, e, Expr::too_deep(), limit, x)
}

/// An expression type the shared operator grammar builds: the canonical [`Expr`] or Spore's.
pub(in crate::syntax) trait OpTree: Sized {
    /// `!x` or `-x`.
    fn unary(op: Unary, x: Self) -> Self;
    /// `a OP b`.
    fn binary(op: BinOp, a: Self, b: Self) -> Self;
    /// The small placeholder that stands for a too-deep expression.
    fn too_deep() -> Self;
}

impl OpTree for Expr {
    fn unary(op: Unary, x: Self) -> Self {
        let inner = Box::new(x);
        match op {
            Unary::Not => Expr::Not(inner),
            Unary::Neg => Expr::Neg(inner),
        }
    }

    fn binary(op: BinOp, a: Self, b: Self) -> Self {
        Expr::binary(op, a, b)
    }

    fn too_deep() -> Self {
        Expr::Lit(Lit::Bool(false))
    }
}

/// [`operators`] over expressions with their depth: each operator's expression is built and
/// its depth checked against `limit` with [`deepen`].
pub(in crate::syntax) fn deep_operators<'t, 's: 't, T, E>(
    primary: P<'t, 's, Deep<T>, E>,
    limit: u64,
) -> P<'t, 's, Deep<T>, E>
where
    T: OpTree + 't,
    E: ParserExtra<'t, In<'t, 's>, Error = PErr<'s>> + 't,
{
    operators(
        primary,
        move |op, x: Deep<T>, e| deepen(x.d, T::unary(op, x.e), T::too_deep(), limit, e),
        move |op, a: Deep<T>, b: Deep<T>, e| {
            let inner = a.d.max(b.d);
            deepen(inner, T::binary(op, a.e, b.e), T::too_deep(), limit, e)
        },
    )
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

pub(super) fn expr_parser<'t, 's: 't>(limit: u64) -> P<'t, 's, Ex, BodyE<'s>> {
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
        deep_operators(primary, limit)
    })
    .boxed()
}
