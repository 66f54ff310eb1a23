//! Generators of random IR trees and scenarios, for property tests, fuzzing and benchmarks.
//!
//! Every generator is a function from an [`Unstructured`] (a byte string read front to back)
//! to a value: the same bytes always give the same value. Property tests draw random bytes
//! ([`strategies`](crate::strategies) turns these functions into proptest strategies); fuzz
//! targets take the fuzzer's bytes through the [`Arbitrary`](arbitrary::Arbitrary) wrappers
//! [`AnyTree`], [`RunningListCase`], [`CursorCase`], [`DeciderCase`], [`LifecycleCase`] and
//! [`SelectionCase`].
//!
//! - [`tree`] draws any valid tree: every [`NodeKind`](btvm_compiler::ir::NodeKind), every knob value,
//!   every [`Expr`](btvm_compiler::ir::Expr) variant and every [`Lit`](btvm_compiler::ir::Lit) form (negative
//!   and extreme integers, `-0.0`, infinities, NaNs with any payload, strings with quotes,
//!   backslashes, control characters and non-ASCII), named arguments, both import kinds, all
//!   [`TreeConfig`](btvm_compiler::ir::TreeConfig) values, several roots and subtrees reached through
//!   `include`. Sizes are bounded by a [`GenConfig`].
//! - [`running_list_tree`] and [`cursor_tree`] draw trees of the running-list and cursor models
//!   that every engine runs, bounded by an [`RlConfig`]; [`scenario_spec`] draws a scenario
//!   that [`ScenarioSpec::render`] writes out for any tree; [`running_list_case`] and
//!   [`cursor_case`] do both. [`decider_tree`], [`lifecycle_tree`] and [`selection_tree`] do
//!   the same for the decider (Spore), lifecycle (MBT) and selection (BST) models, whose cases
//!   ([`decider_case`], [`lifecycle_case`], [`selection_case`]) add the models' scenario
//!   inputs (decision flags and stimuli; events and variable sets, [`event_input`]).
//! - Names come from [`name`], which mixes plain identifiers, words the canonical syntax uses as
//!   keywords and arbitrary text, and are made unique per table (imports per kind, so an action
//!   and a function may share a name).
//!
//! The distributions (weights of choices, chances of optional parts, ranges of lengths, the
//! branching schedule of recursive values) are those of the proptest strategies these
//! generators replaced, and tests check that they reach every feature.
//!
//! **Invariants**, for any bytes and any configuration:
//!
//! - a generator never panics; an `Err` comes only from a bug (the tests unwrap it);
//! - it always terminates: recursion is bounded by the configuration's depths, and every loop
//!   by a configured bound. When the bytes run out, every choice takes its first, smallest
//!   option (a leaf, no optional part, the least length), so exhausted input gives a small tree
//!   (a single leaf per body);
//! - every tree passes [`Tree::validate`](btvm_compiler::ir::Tree::validate); running-list and cursor
//!   trees are also accepted by their model's checks, so every engine runs them, and a
//!   rendered scenario always parses.

/// The deepest recursion any configuration gets: larger `node_depth`s and `expr_depth`s are
/// taken as this, so generation cannot exhaust the stack however it is configured.
pub const MAX_DEPTH: u32 = 64;

mod any_tree;
mod case;
mod cursor;
mod decider;
mod draw;
mod lifecycle;
mod running_list;
mod scenario;
mod scope;
mod selection;
mod text;

pub use arbitrary;
pub use arbitrary::Unstructured;

pub use any_tree::{
    arg, case_arm, decider, entry_body, expr, leaf, node, state, tables, tree, tree_config,
    GenConfig, Tables,
};
pub use case::{
    cursor_case, decider_case, lifecycle_case, running_list_case, selection_case, AnyTree,
    CursorCase, DeciderCase, LifecycleCase, RunningListCase, SelectionCase,
};
pub use cursor::{cursor_rule, cursor_tree};
pub use decider::decider_tree;
pub use lifecycle::{lifecycle_tree, EVENTS};
pub use running_list::{
    rl_body, rl_capacity, rl_composite, rl_cooldown_ms, rl_decorator, rl_expr, rl_node, rl_var,
    running_list_tree, wide, RlConfig,
};
pub use scenario::{
    answer, dt, event_input, float_text, input, int_text, lit_text, literal_value, quote,
    render_events, rule, scenario_spec, AnswerSpec, ArgsSpec, EventSpec, EventWhat, FnVal,
    InputSpec, RuleSpec, ScenarioSpec, Val, MAX_TICKS,
};
pub use scope::Scope;
pub use selection::selection_tree;
pub use text::{
    float, import_name, int, lit, lit_of, make_unique, name, rl_lit, rl_string, status, text,
    unique_names, var_type, RL_STRINGS, SYNTAX_WORDS,
};
