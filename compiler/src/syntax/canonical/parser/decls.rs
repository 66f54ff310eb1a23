//! The first stage of the grammar: the header (`btvm 1;`, the dialect, the tree options) and
//! the declaration tables (imports, variables, timestamps, flags, stimuli), checked for
//! duplicates and unknown `exclusive` links.
//!
//! The tables become the context the second stage resolves names against. This module never
//! parses nodes or expressions beyond a variable's literal default.

use std::collections::HashMap;

use btvm::{Import, SlotClaims};
use chumsky::prelude::*;

use super::super::lexer::Tok;
use super::atoms::{import_kind, int_tok, kw, lit, name, status, string, u32_lit, u8_lit, words};
use super::expr::unknown;
use super::plumbing::{custom, Mx, PErr, P};
use super::{DeclE, Tables};
use crate::diag::ErrorKind;
use crate::ir::{
    Abort, Dialect, Model, Precision, RootFinish, TimestampDecl, TimestampId, TreeConfig, Type, Var,
};

/// A declaration with the span of its name, for duplicate checks.
pub(super) type Named<T> = (T, SimpleSpan);

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

pub(super) fn duplicate<'s>(span: SimpleSpan, what: &str, name: &str) -> PErr<'s> {
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

/// The header and the declarations, in their fixed order, as [`Tables`].
pub(super) fn decls_parser<'t, 's: 't>() -> P<'t, 's, Tables, DeclE<'s>> {
    group((
        version(),
        dialect(),
        model().or_not(),
        root_finish().or_not(),
        abort().or_not(),
        precision().or_not(),
        clock().or_not(),
        import().repeated().collect::<Vec<_>>(),
        var().repeated().collect::<Vec<_>>(),
        timestamp().repeated().collect::<Vec<_>>(),
        named("flag").repeated().collect::<Vec<_>>(),
        named("stimulus").repeated().collect::<Vec<_>>(),
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

/// A declaration's closing `;`.
fn semi<'t, 's: 't>() -> P<'t, 's, Tok<'s>, DeclE<'s>> {
    just(Tok::Semi).boxed()
}

/// `btvm 1;`: any other version is reported.
fn version<'t, 's: 't>() -> P<'t, 's, (), DeclE<'s>> {
    kw("btvm")
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
        })
        .boxed()
}

/// `dialect NAME;`.
fn dialect<'t, 's: 't>() -> P<'t, 's, Dialect, DeclE<'s>> {
    kw("dialect")
        .ignore_then(words(Dialect::ALL.iter().map(|d| (d.name(), *d)).collect()))
        .then_ignore(semi())
        .boxed()
}

// ---- tree options ----

/// `model …;`.
fn model<'t, 's: 't>() -> P<'t, 's, Cfg, DeclE<'s>> {
    kw("model")
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
        .map(Cfg::Model)
        .boxed()
}

/// An option written `WORD VALUE;` with `VALUE` one of `values`.
fn option<'t, 's: 't, T: Clone + 't>(
    word: &'static str,
    values: Vec<(&'static str, T)>,
    make: fn(T) -> Cfg,
) -> P<'t, 's, Cfg, DeclE<'s>> {
    kw(word)
        .ignore_then(words(values))
        .then_ignore(semi())
        .map(make)
        .boxed()
}

/// `root-finish …;`.
fn root_finish<'t, 's: 't>() -> P<'t, 's, Cfg, DeclE<'s>> {
    let values = vec![
        ("rerun", RootFinish::Rerun),
        ("restart-or-stop", RootFinish::RestartOrStop),
        ("stop", RootFinish::Stop),
    ];
    option("root-finish", values, Cfg::RootFinish)
}

/// `abort …;`.
fn abort<'t, 's: 't>() -> P<'t, 's, Cfg, DeclE<'s>> {
    let values = vec![("abandon", Abort::Abandon), ("terminate", Abort::Terminate)];
    option("abort", values, Cfg::Abort)
}

/// `precision …;`.
fn precision<'t, 's: 't>() -> P<'t, 's, Cfg, DeclE<'s>> {
    let values = vec![("single", Precision::Single), ("double", Precision::Double)];
    option("precision", values, Cfg::Precision)
}

/// `clock N;`.
fn clock<'t, 's: 't>() -> P<'t, 's, Cfg, DeclE<'s>> {
    kw("clock")
        .ignore_then(u32_lit("clock"))
        .then_ignore(semi())
        .map(Cfg::Clock)
        .boxed()
}

// ---- declarations ----

/// `import KIND NAME MIN..MAX [long] [claims (STATUS, …)] [script "…"];`.
fn import<'t, 's: 't>() -> P<'t, 's, Named<Import>, DeclE<'s>> {
    kw("import")
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
        )
        .boxed()
}

/// `var NAME: TYPE = LITERAL;`.
fn var<'t, 's: 't>() -> P<'t, 's, Named<Var>, DeclE<'s>> {
    kw("var")
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
        .map(|(((name, span), ty), default)| (Var { name, ty, default }, span))
        .boxed()
}

/// `timestamp NAME [on "EVENT"] [exclusive NAME];`.
fn timestamp<'t, 's: 't>() -> P<'t, 's, Named<TsDecl>, DeclE<'s>> {
    kw("timestamp")
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
        })
        .boxed()
}

/// `WORD NAME;` (a flag or a stimulus).
fn named<'t, 's: 't>(word: &'static str) -> P<'t, 's, Named<String>, DeclE<'s>> {
    kw(word).ignore_then(name()).then_ignore(semi()).boxed()
}
