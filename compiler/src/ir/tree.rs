//! The tree: the node arena and the tables nodes refer to.

use btvm::Import;

use super::expr::{Expr, Lit};
use super::node::{Node, NodeKind};
use crate::source::Span;

/// Index of a node in [`Tree::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// Index of a subtree in [`Tree::subtrees`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SubtreeId(pub u32);

/// Index of a variable in [`Tree::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Index of a timestamp in [`Tree::timestamps`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimestampId(pub u32);

impl NodeId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The dialect a tree was written in; it names the original engine whose semantics the
/// tree's knobs reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Unvanquished `.bt`.
    Unvanquished,
    /// Drag\[en\]gine `.debt`.
    Dragengine,
    /// CRYENGINE / Lumberyard Modular Behavior Tree XML.
    Mbt,
    /// CryEngine 3 Behavior Selection Tree XML.
    Bst,
    /// Spore-style decider trees.
    Spore,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 5] = [
        Dialect::Unvanquished,
        Dialect::Dragengine,
        Dialect::Mbt,
        Dialect::Bst,
        Dialect::Spore,
    ];

    /// The dialect's name, as used by `--dialect` and the canonical syntax.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Unvanquished => "unvanquished",
            Dialect::Dragengine => "dragengine",
            Dialect::Mbt => "mbt",
            Dialect::Bst => "bst",
            Dialect::Spore => "spore",
        }
    }

    /// Parses a dialect name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// The execution model: how per-agent state tracks what is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Unvanquished: a bounded list of running nodes (by identity) plus one current-action
    /// slot; no lifecycle calls.
    RunningList {
        /// Capacity of the list (the game's `MAX_NODE_DEPTH`, 20).
        capacity: u32,
    },
    /// Drag\[en\]gine: one cursor on the current rule; a step runs it and bubbles up.
    Cursor {
        /// Rule runs per step before the step ends with a run-away error (100).
        runaway_limit: u32,
    },
    /// MBT: per-node runtime frames with initialise / update / terminate.
    Lifecycle,
    /// BST: a selection re-evaluated when variables change.
    Selection,
    /// Spore: an active path of deciders, redecided from the root each tick.
    Decider {
        /// Redecides per tick before the tick ends with an error (the Subset Rule guard).
        redecide_limit: u32,
    },
}

/// What happens when the root finishes with success or failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RootFinish {
    /// Nothing: the tree is simply ticked again next time (Unvanquished, BST, Spore).
    Rerun,
    /// Success restarts at the root next step; failure stops the tree until reset
    /// (Drag\[en\]gine).
    RestartOrStop,
    /// Either stops the tree (MBT: terminate the root and remove the instance).
    Stop,
}

/// What happens to running work that a tick abandons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Abort {
    /// It just stops being ticked; nobody is told (Unvanquished, Drag\[en\]gine).
    Abandon,
    /// It is terminated, innermost first, and running actions get an `exit` call (MBT
    /// `OnTerminate`, Spore `Deactivate`).
    Terminate,
}

/// How wide floats are where values cross the tree/host boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Float literals and host-function float results are rounded to binary32 before use, as
    /// Unvanquished boxes them in a C `float`; comparisons then happen in doubles.
    Single,
    /// Doubles throughout.
    Double,
}

/// Tree-wide knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TreeConfig {
    /// The execution model.
    pub model: Model,
    /// Root-finish behaviour.
    pub root_finish: RootFinish,
    /// Abort behaviour.
    pub abort: Abort,
    /// Float width at the host boundary.
    pub precision: Precision,
    /// The tree's time unit, in units per millisecond: every duration, timer and timestamp
    /// difference in the tree counts these units, and the engines multiply the host's `now`
    /// (milliseconds) by it. 1 (milliseconds) in every dialect but MBT, where it is 100:
    /// CRYENGINE's `CTimeValue` counts 1/100,000 s (`TIMEVALUE_PRECISION`,
    /// `Code/CryEngine/CryCommon/CrySystem/TimeValue.h`, commit 8b63f61c). Only the lifecycle
    /// model may use another unit than 1, and at most [`btvm::MAX_CLOCK`].
    pub clock: u32,
}

impl Tree {
    /// Follows `include`s from `id` to the node that runs there. [`crate::check::check`] rules
    /// out include cycles; the bound only keeps this total on unchecked trees.
    pub fn through_includes(&self, mut id: NodeId) -> NodeId {
        for _ in 0..=self.subtrees.len() {
            match self.nodes.get(id.index()).map(|n| &n.kind) {
                Some(NodeKind::Include(s)) => match self.subtrees.get(s.0 as usize) {
                    Some(sub) => id = sub.node,
                    None => return id,
                },
                _ => return id,
            }
        }
        id
    }
}

impl TreeConfig {
    /// The knobs that reproduce `dialect`'s original engine.
    pub fn for_dialect(dialect: Dialect) -> TreeConfig {
        match dialect {
            Dialect::Unvanquished => TreeConfig {
                model: Model::RunningList { capacity: 20 },
                root_finish: RootFinish::Rerun,
                abort: Abort::Abandon,
                precision: Precision::Single,
                clock: 1,
            },
            Dialect::Dragengine => TreeConfig {
                model: Model::Cursor { runaway_limit: 100 },
                root_finish: RootFinish::RestartOrStop,
                abort: Abort::Abandon,
                precision: Precision::Double,
                clock: 1,
            },
            Dialect::Mbt => TreeConfig {
                model: Model::Lifecycle,
                root_finish: RootFinish::Stop,
                abort: Abort::Terminate,
                precision: Precision::Double,
                clock: 100,
            },
            Dialect::Bst => TreeConfig {
                model: Model::Selection,
                root_finish: RootFinish::Rerun,
                abort: Abort::Abandon,
                precision: Precision::Double,
                clock: 1,
            },
            Dialect::Spore => TreeConfig {
                model: Model::Decider { redecide_limit: 32 },
                root_finish: RootFinish::Rerun,
                abort: Abort::Terminate,
                precision: Precision::Double,
                clock: 1,
            },
        }
    }
}

/// The type of a tree variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Boolean.
    Bool,
    /// Integer.
    Int,
    /// Float.
    Float,
}

/// A tree variable (MBT/BST `Variables`), per agent, initialised from its default.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// The initial value.
    pub default: Lit,
}

/// A timestamp (MBT `Timestamps`).
#[derive(Clone, Debug, PartialEq)]
pub struct TimestampDecl {
    /// The name.
    pub name: String,
    /// The event that stamps it.
    pub set_on: Option<String>,
    /// The timestamp a stamp of this one invalidates.
    pub exclusive_to: Option<TimestampId>,
}

/// A signal binding (MBT/BST `SignalVariables`): on `event`, `var = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct SignalBinding {
    /// The event name (case-sensitive).
    pub event: String,
    /// The variable set.
    pub var: VarId,
    /// The value, evaluated on the current variables.
    pub value: Expr,
}

/// A named entry point: `main`, and Unvanquished's `selectClass`.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The entry's name.
    pub name: String,
    /// Its root node.
    pub node: NodeId,
}

/// Whether the state of a subtree's nodes is shared between the places that include it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// One set of node state, reached from every include site (Unvanquished `behavior`, Spore
    /// shared child arrays).
    Shared,
    /// Each include site has its own state (Drag\[en\]gine `subtree`, loaded fresh each time).
    PerSite,
}

/// A subtree reached through `include` nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Subtree {
    /// The name (Unvanquished behavior name, Drag\[en\]gine file path).
    pub name: String,
    /// The subtree's root node.
    pub node: NodeId,
    /// State sharing between include sites.
    pub sharing: Sharing,
    /// Where it was defined.
    pub span: Span,
}

/// A behavior tree in the IR.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The dialect whose semantics the knobs reproduce.
    pub dialect: Dialect,
    /// Tree-wide knobs.
    pub config: TreeConfig,
    /// The import table: every action and function the tree calls.
    pub imports: Vec<Import>,
    /// Per-agent variables.
    pub vars: Vec<Var>,
    /// Timestamps.
    pub timestamps: Vec<TimestampDecl>,
    /// Signal bindings, in file order.
    pub signals: Vec<SignalBinding>,
    /// Names of the Spore DecisionFlags bits (bit `k` is `flags[k]`; at most 32).
    pub flags: Vec<String>,
    /// Names of the Spore stimuli (StimuliFlags bit `k` is `stimuli[k]`; at most 32).
    pub stimuli: Vec<String>,
    /// The node arena (canonical pre-order; see the module docs).
    pub nodes: Vec<Node>,
    /// Entry points; `roots[0]` is the tree ticked every tick.
    pub roots: Vec<Entry>,
    /// Subtrees reached through `include`.
    pub subtrees: Vec<Subtree>,
}

impl Tree {
    /// The node with id `id`.
    ///
    /// Panics if `id` is out of range, which [`Tree::validate`] rules out.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The main entry's root node (`None` for a tree without roots, which `validate` rejects).
    pub fn main_root(&self) -> Option<NodeId> {
        self.roots.first().map(|e| e.node)
    }

    /// Finds an entry by name.
    pub fn entry(&self, name: &str) -> Option<NodeId> {
        self.roots.iter().find(|e| e.name == name).map(|e| e.node)
    }

    /// Index of an import by exact name.
    pub fn import_named(&self, name: &str) -> Option<btvm::ImportId> {
        self.imports
            .iter()
            .position(|i| i.name == name)
            .map(|i| btvm::ImportId(i as u32))
    }
}
