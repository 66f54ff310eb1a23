//! The rules of one `.debt` file, as read from its XML and before ids, imports and subtrees
//! are resolved.
//!
//! A file is parsed once into these types (see `xml`) and then built into IR at every site
//! that uses it (see `rules`), so a subtree included many times is read and parsed once. This
//! file only declares data; it never reads files or builds IR.

use crate::source::Span;

/// A string from the source with the span it came from.
#[derive(Clone, Debug)]
pub(super) struct Located {
    /// The text (after XML entity decoding).
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// The rules of one file.
#[derive(Debug)]
pub(super) struct FileRules {
    /// The start tag of the `behaviorTree` element.
    pub root_span: Span,
    /// The top-level rules, in file order.
    pub rules: Vec<Rule>,
}

/// How a rule combines its conditions (`<conditionMode>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Every condition holds (the default).
    AllTrue,
    /// At least one condition holds.
    AnyTrue,
    /// At least one condition does not hold.
    AnyFalse,
    /// No condition holds.
    AllFalse,
}

impl Mode {
    /// The mode spelled `name` in a `<conditionMode>` element (case-sensitive).
    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "allTrue" => Some(Mode::AllTrue),
            "anyTrue" => Some(Mode::AnyTrue),
            "anyFalse" => Some(Mode::AnyFalse),
            "allFalse" => Some(Mode::AllFalse),
            _ => None,
        }
    }
}

/// What a rule is.
#[derive(Debug)]
pub(super) enum RuleKind {
    /// `<action name="A">`.
    Action {
        /// The action's name.
        name: String,
    },
    /// `<success>`.
    Success,
    /// `<failure>`.
    Failure,
    /// `<running>`.
    Running,
    /// `<yield>`.
    Yield,
    /// `<sequence>` with its child rules.
    Sequence(Vec<Rule>),
    /// `<choice>` with its child rules.
    Choice(Vec<Rule>),
    /// `<subtree>` / `<subTree>`: the path as written.
    Subtree(Located),
}

/// One rule element.
#[derive(Debug)]
pub(super) struct Rule {
    /// What the rule is.
    pub kind: RuleKind,
    /// The element's start tag.
    pub span: Span,
    /// The `id` attribute as written (not yet prefixed), with the span of its value.
    pub id: Option<Located>,
    /// `loop="true"` (sequence, choice, subtree).
    pub looping: bool,
    /// `doNotFail="true"` (action, sequence, choice, subtree).
    pub do_not_fail: bool,
    /// The parameter dictionary: names in first-seen order, each with its last value.
    pub params: Vec<(String, String)>,
    /// The condition names, in order.
    pub conditions: Vec<Located>,
    /// How the conditions combine.
    pub mode: Mode,
}
