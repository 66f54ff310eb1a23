//! The one intermediate representation every dialect compiles to.
//!
//! A [`Tree`] is an arena of [`Node`]s plus the tables the nodes refer to (imports, variables,
//! timestamps, signal bindings). Dialects share node kinds where they agree and carry explicit
//! knobs where they differ (a composite's [`Resume`] policy, a guard's [`GuardEval`], the tree's
//! [`Model`], [`RootFinish`] and [`Abort`] policies, a subtree's [`Sharing`]); no engine may
//! switch behaviour on anything else. `spec/semantics.md` defines every kind and knob and maps
//! every dialect onto them.
//!
//! **Invariant:** the arena is canonical: it is the concatenation of the pre-order traversals of
//! `roots` and then `subtrees`, in declaration order, so every node's subtree is the contiguous
//! range `id .. id + size`, and every node except an entry's root has exactly one parent.
//! [`Tree::validate`] checks this; [`TreeBuilder`] produces it.

pub(crate) mod analysis;
mod build;
mod expr;
mod node;
mod tree;
mod validate;
mod visit;

pub use btvm::BinOp;
pub use build::{NodeBuf, TreeBuilder};
pub use expr::{Arg, CallExpr, Expr, Lit, TsQuery};
pub use node::{
    Arity, BehaviorRef, Composite, Cooldown, Decider, FlagTest, Group, GroupScope, Guard,
    GuardEval, Hooks, LogStatus, Loop, Node, NodeKind, Parallel, Policy, Precondition, Priority,
    Quorum, Resume, SendEvent, StateNode, StatusMap, Transition, Trigger, Wait, WaitForEvent,
};
pub use tree::{
    Abort, Dialect, Entry, Model, NodeId, Precision, RootFinish, Sharing, SignalBinding, Subtree,
    SubtreeId, TimestampDecl, TimestampId, Tree, TreeConfig, Type, Var, VarId,
};
