//! The parsed `.spore` file, before any name is resolved: what [`super::grammar`] produces and
//! [`super::names`] and [`super::build`] read.
//!
//! Names keep their spans so every later error can point at them; options are kept as written
//! (in order, repeats included) so the resolver can report repeats.

use chumsky::span::SimpleSpan;

use crate::ir::{BinOp, Lit, Policy};

/// A name with the span of its identifier or string literal.
pub(super) type Name = (String, SimpleSpan);

/// The whole file.
#[derive(Clone)]
pub(super) struct File {
    /// The format version and its span.
    pub version: (u64, SimpleSpan),
    /// The items, in source order.
    pub items: Vec<Item>,
}

/// A behavior's functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// `activate`.
    Activate,
    /// `tick`.
    Tick,
    /// `deactivate`.
    Deactivate,
}

/// Which flag word a `when` tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Table {
    /// `when decision …`: the DecisionFlags.
    Decision,
    /// `when stimuli …`: the StimuliFlags.
    Stimuli,
}

/// A flag test's quantifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Test {
    /// `all`.
    All,
    /// `any`.
    Any,
    /// `none`.
    None,
    /// `notall`.
    NotAll,
}

/// A duration's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unit {
    /// `ms`.
    Ms,
    /// `s`.
    S,
}

/// A top-level item.
#[derive(Clone)]
pub(super) enum Item {
    /// `behavior NAME phase+;`
    Behavior(Name, Vec<(Phase, SimpleSpan)>),
    /// `decision flags NAME, …;`
    Flags(Vec<Name>),
    /// `stimuli NAME, …;`
    Stimuli(Vec<Name>),
    /// `root DEF` (the keyword's span, for "a second root").
    Root(SimpleSpan, Def),
    /// `decider DEF`.
    Decider(Def),
    /// `children NAME { entry* }`.
    Children(Name, Vec<Entry>),
}

/// A decider definition.
#[derive(Clone)]
pub(super) struct Def {
    /// The decider's name.
    pub name: Name,
    /// The options, as written.
    pub options: Vec<(Opt, SimpleSpan)>,
    /// What it decides for.
    pub target: Target,
    /// From the name to the end of the target.
    pub span: SimpleSpan,
}

/// One decider option.
#[derive(Clone)]
pub(super) enum Opt {
    /// `every NUMBER UNIT`: the number's source text and span, and the unit.
    Every(String, SimpleSpan, Unit),
    /// `when TABLE TEST(NAME, …)`.
    When(Table, Test, Vec<Name>),
    /// `decide EXPR`.
    Decide(SExpr),
    /// `redecide`.
    Redecide,
}

/// A decider's target.
#[derive(Clone)]
pub(super) enum Target {
    /// A behavior.
    Behavior(Name),
    /// A group: its policy, group behavior and child array.
    Group {
        /// The policy.
        policy: Policy,
        /// `with NAME`.
        with: Option<Name>,
        /// The children.
        children: Children,
        /// From the policy to the end of the target.
        span: SimpleSpan,
    },
}

/// A group's child array.
#[derive(Clone)]
pub(super) enum Children {
    /// `{ entry* }`.
    Inline(Vec<Entry>),
    /// A named `children` array.
    Named(Name),
}

/// One element of a child array.
#[derive(Clone)]
pub(super) enum Entry {
    /// A decider defined in place.
    Def(Def),
    /// `NAME;`: a reference to a decider defined elsewhere.
    Ref(Name),
}

impl Entry {
    /// The span of the entry (a definition's whole span, a reference's name).
    pub fn span(&self) -> SimpleSpan {
        match self {
            Entry::Def(d) => d.span,
            Entry::Ref((_, s)) => *s,
        }
    }
}

/// A Decide expression before its function names are resolved.
#[derive(Clone, Debug)]
pub(super) enum SExpr {
    /// A literal.
    Lit(Lit),
    /// `@random`.
    Random,
    /// `NAME(ARGS)`: the function's name, the arguments (each maybe named).
    Call(Name, Vec<(Option<String>, SExpr)>),
    /// `!x`.
    Not(Box<SExpr>),
    /// `-x`.
    Neg(Box<SExpr>),
    /// `a OP b`.
    Binary(BinOp, Box<SExpr>, Box<SExpr>),
}
