//! The `.spore` grammar (spec/spore.md §1.2): chumsky over the native lexer's tokens, into
//! [`ast::File`]. Nothing is resolved here; names keep their spans for [`super::build`].
//!
//! The grammar only recurses through blocks (`{ entry* }`) and parentheses, both bounded by
//! the pre-scan in [`super::nesting`] before it runs.

use chumsky::extra;
use chumsky::input::Input as _;
use chumsky::prelude::*;

use super::super::canonical::lexer::{unescape, Spanned, Tok};
use super::super::canonical::parser::{custom, int_tok, kw, parse_result, words, Lbl, PErr, P};
use super::super::canonical::parser::{is_word, never, skip, Resync};
use super::ast::{Children, Def, Entry, File, Item, Name, Opt, Phase, Table, Target, Test, Unit};
use super::expr::expr_parser;
use crate::diag::ErrorKind;
use crate::ir::Policy;
use crate::source::FileId;

/// The parser extra: errors only (no state, no context).
pub(super) type E<'s> = extra::Err<PErr<'s>>;

/// The keywords of spec/spore.md §1.1: never a bare name.
pub(super) const KEYWORDS: [&str; 26] = [
    "spore",
    "behavior",
    "activate",
    "tick",
    "deactivate",
    "decision",
    "flags",
    "stimuli",
    "root",
    "decider",
    "children",
    "when",
    "any",
    "all",
    "none",
    "notall",
    "every",
    "ms",
    "s",
    "decide",
    "redecide",
    "prioritized",
    "sequential",
    "random",
    "scored",
    "with",
];

/// Where an item skipped after a syntax error ends: after its `;` or its braced block (and a
/// `;` right after it), or before the next item's keyword (`decision` only before `flags`,
/// `stimuli` not after `when`: both also begin a `when` option).
const ITEM_RESYNC: Resync = Resync {
    begins: |prev, tok, next| {
        ["spore", "behavior", "root", "decider", "children"]
            .iter()
            .any(|w| is_word(tok, w))
            || (is_word(tok, "decision") && next.is_some_and(|n| is_word(n, "flags")))
            || (is_word(tok, "stimuli") && !is_word(prev, "when"))
    },
    semi: true,
    block: true,
    refuses: never,
};

/// Where an entry of a `children` block skipped after a syntax error ends: after its `;`
/// or its braced block (and a `;` right after it), or before the `}` of the block.
const ENTRY_RESYNC: Resync = Resync {
    begins: |_, _, _| false,
    semi: true,
    block: true,
    refuses: never,
};

/// Whether `s` is a keyword (so it cannot be a bare name).
pub(super) fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// A name: an identifier that is not a keyword, or a string literal.
fn name<'t, 's: 't>() -> P<'t, 's, Name, E<'s>> {
    select! {
        Tok::Ident(s) if !is_keyword(s) => s.to_string(),
        Tok::Str(s) => unescape(s),
    }
    .map_with(|n, e| (n, e.span()))
    .labelled(Lbl::What("name"))
    .boxed()
}

/// `NAME (',' NAME)*`.
fn names<'t, 's: 't>() -> P<'t, 's, Vec<Name>, E<'s>> {
    name()
        .separated_by(just(Tok::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .boxed()
}

/// `=>`: the tokens `=` and `>`, written together.
fn arrow<'t, 's: 't>() -> P<'t, 's, (), E<'s>> {
    just(Tok::Assign)
        .map_with(|_, e| e.span())
        .then(just(Tok::Gt).map_with(|_, e| e.span()))
        .validate(|(a, b): (SimpleSpan, SimpleSpan), _, emitter| {
            if a.end != b.start {
                emitter.emit(custom(
                    ErrorKind::Syntax,
                    SimpleSpan::from(a.start..b.end),
                    "expected `=>`, found `=` and `>` apart: write `=>` without a space",
                ));
            }
        })
        .ignored()
        .labelled(Lbl::Word("=>"))
        .boxed()
}

/// What follows a decider's name: `option* '=>' target ';'?`, and the span of the target.
type Tail = (Vec<(Opt, SimpleSpan)>, Target, SimpleSpan);

fn make_def(name: Name, (options, target, end): Tail) -> Def {
    let span = SimpleSpan::from(name.1.start..end.end.max(name.1.start));
    Def {
        name,
        options,
        target,
        span,
    }
}

/// The grammar of a whole file; `text` is the source (durations keep their digits).
/// An entry of a `children` block: a reference to a decider (`NAME;`) or one defined in
/// place (`NAME … => …`).
fn make_entry((name, tail): (Name, Option<Tail>)) -> Entry {
    match tail {
        None => Entry::Ref(name),
        Some(t) => Entry::Def(make_def(name, t)),
    }
}

fn file_parser<'t, 's: 't>(text: &'s str, expr_limit: u64) -> P<'t, 's, File, E<'s>> {
    let semi = || just(Tok::Semi);
    let number = select! { Tok::Int(_) => (), Tok::Float(_) => () }
        .map_with(move |_, e| {
            let s: SimpleSpan = e.span();
            let digits = text.get(s.start..s.end).unwrap_or("0").to_string();
            (digits, s)
        })
        .labelled(Lbl::What("number"));
    let unit = words(vec![("ms", Unit::Ms), ("s", Unit::S)]);
    let every = kw("every")
        .ignore_then(number)
        .then(unit)
        .map(|((digits, s), u)| Opt::Every(digits, s, u));
    let table = words(vec![
        ("decision", Table::Decision),
        ("stimuli", Table::Stimuli),
    ]);
    let test = words(vec![
        ("all", Test::All),
        ("any", Test::Any),
        ("none", Test::None),
        ("notall", Test::NotAll),
    ]);
    let when = kw("when")
        .ignore_then(table)
        .then(test)
        .then(names().delimited_by(just(Tok::LParen), just(Tok::RParen)))
        .map(|((t, q), n)| Opt::When(t, q, n));
    let decide = kw("decide")
        .ignore_then(expr_parser(expr_limit))
        .map(|x| Opt::Decide(x.e));
    let redecide = kw("redecide").to(Opt::Redecide);
    let option = choice((every, when, decide, redecide))
        .map_with(|o, e| (o, e.span()))
        .boxed();
    let policy = words(vec![
        ("prioritized", Policy::Prioritized),
        ("sequential", Policy::Sequential),
        ("random", Policy::Random),
        ("scored", Policy::Scored),
    ]);
    let with = kw("with").ignore_then(name()).or_not();

    let tail = recursive(move |tail| {
        let entry = name()
            .then(choice((semi().to(None), tail.clone().map(Some))))
            .map(|e| Some(make_entry(e)))
            .recover_with(via_parser(skip(ENTRY_RESYNC, None)));
        let block = entry
            .repeated()
            .collect::<Vec<Option<Entry>>>()
            .map(flat)
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace));
        let inline = policy
            .clone()
            .then(with.clone())
            .then(block)
            .map_with(|((policy, with), entries), e| Target::Group {
                policy,
                with,
                children: Children::Inline(entries),
                span: e.span(),
            })
            .map_with(|t, e| (t, e.span()))
            .then_ignore(semi().or_not());
        let named = policy
            .clone()
            .then(with.clone())
            .then(name())
            .map_with(|((policy, with), array), e| Target::Group {
                policy,
                with,
                children: Children::Named(array),
                span: e.span(),
            })
            .map_with(|t, e| (t, e.span()))
            .then_ignore(semi());
        let behavior = name()
            .map_with(|n, e| (Target::Behavior(n), e.span()))
            .then_ignore(semi());
        option
            .clone()
            .repeated()
            .collect::<Vec<_>>()
            .then_ignore(arrow())
            .then(choice((inline, named, behavior)))
            .map(|(options, (target, span))| (options, target, span))
    })
    .boxed();

    let def = name()
        .then(tail.clone())
        .map(|(n, t)| make_def(n, t))
        .boxed();
    let entry = name()
        .then(choice((semi().to(None), tail.map(Some))))
        .map(|e| Some(make_entry(e)))
        .recover_with(via_parser(skip(ENTRY_RESYNC, None)));
    let block = entry
        .repeated()
        .collect::<Vec<Option<Entry>>>()
        .map(flat)
        .delimited_by(just(Tok::LBrace), just(Tok::RBrace));

    let phase = words(vec![
        ("activate", Phase::Activate),
        ("tick", Phase::Tick),
        ("deactivate", Phase::Deactivate),
    ])
    .map_with(|p, e| (p, e.span()));
    let behavior = kw("behavior")
        .ignore_then(name())
        .then(phase.repeated().at_least(1).collect::<Vec<_>>())
        .then_ignore(semi())
        .map(|(n, p)| Item::Behavior(n, p));
    let flags = kw("decision")
        .ignore_then(kw("flags"))
        .ignore_then(names())
        .then_ignore(semi())
        .map(Item::Flags);
    let stimuli = kw("stimuli")
        .ignore_then(names())
        .then_ignore(semi())
        .map(Item::Stimuli);
    let root = kw("root")
        .map_with(|_, e| e.span())
        .then(def.clone())
        .map(|(s, d)| Item::Root(s, d));
    let decider = kw("decider").ignore_then(def).map(Item::Decider);
    let children = kw("children")
        .ignore_then(name())
        .then(block)
        .map(|(n, entries)| Item::Children(n, entries));
    let item = choice((behavior, flags, stimuli, root, decider, children))
        .map(Some)
        .recover_with(via_parser(skip(ITEM_RESYNC, None)));

    kw("spore")
        .ignore_then(int_tok())
        .then_ignore(semi())
        .then(item.repeated().collect::<Vec<_>>().map(flat))
        .then_ignore(end())
        .map(|(version, items)| File { version, items })
        .boxed()
}

/// The entries or items that parsed: one skipped after a syntax error is `None` (with an
/// error, the file goes no further than the grammar).
fn flat<T>(list: Vec<Option<T>>) -> Vec<T> {
    list.into_iter().flatten().collect()
}

/// Parses the token list of `file` (already lexed and depth-checked) into the file's items.
///
/// A syntax error in an item or a `children` entry skips it (`ITEM_RESYNC`, `ENTRY_RESYNC`)
/// and parsing goes on, so each broken item or entry reports its error; with errors raised
/// while parsing (too-deep expressions, a spaced `= >`) they are reported in source order.
/// A syntax error in the `spore N;` header stops the file.
pub(super) fn parse_tokens(
    file: FileId,
    text: &str,
    tokens: &[Spanned<'_>],
    limits: &btvm::Limits,
) -> crate::diag::Result<File> {
    let eoi = SimpleSpan::from(text.len()..text.len());
    let input = tokens.split_token_span(eoi);
    let parser = file_parser(text, u64::from(limits.max_expr_depth));
    let (out, errs) = parser.parse(input).into_output_errors();
    parse_result(file, out, errs)
}
