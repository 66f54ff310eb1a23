//! The viewer's model: a loaded tree as a display tree (`btvm view`, `btvm dot`,
//! `spec/viewer.md`), and with a scenario its timeline (per tick the node events, the active
//! path and the host-call lines).
//!
//! [`display`] reads a checked [`Tree`](crate::ir::Tree) and its [`SourceMap`](crate::source::SourceMap),
//! [`display_program`] a compiled program's node table;
//! [`timeline`] runs a scenario on the vm through the scenario driver (`crate::scenario`),
//! never through a host of its own, so its lines are exactly `btvm run`'s; [`dot`] writes
//! Graphviz text. This module builds data and text only: it never prints, never writes a file
//! and never draws (the page and its layout belong to the CLI).

mod display;
mod dot;
mod program;
mod timeline;

pub use display::display;
pub use dot::dot;
pub use program::display_program;
pub use timeline::{timeline, timeline_program, MAX_VIEW_TICKS};

use btvm::NodeEvent;

/// A tree as the viewer shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// What the page calls the tree (the file name it was loaded from).
    pub title: String,
    /// The dialect whose semantics the tree has (`Dialect::name`).
    pub dialect: String,
    /// Every node of the tree, indexed by id (`nodes[i].id == i`): the IR arena order, which is
    /// the node table's and the node traces' numbering.
    pub nodes: Vec<ViewNode>,
    /// The ids drawn at the top level: each entry's root, the main tree first, then the root
    /// of every subtree no `include` reaches.
    pub roots: Vec<u32>,
    /// With a scenario: what one agent did, tick by tick.
    pub timeline: Option<Timeline>,
}

/// One node of a [`View`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewNode {
    /// Its index in the arena and the node table.
    pub id: u32,
    /// Its canonical keyword (`sequence`, `action`, `include`, ...).
    pub kind: String,
    /// Its name (own, or the action, subtree, selection or event it names); empty if none.
    pub name: String,
    /// Its knobs in canonical syntax (call, condition, policy ...); empty if none.
    pub args: String,
    /// The source file it was read from, as the load named it; empty if unknown.
    pub file: String,
    /// Its 1-based line in `file`; 0 if unknown.
    pub line: u32,
    /// Its children in order; an `include`'s child is the root of the subtree it includes.
    pub children: Vec<u32>,
}

/// One agent's run through a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// The agent shown.
    pub agent: u32,
    /// Whether the run traced node events (`false` for a model without node-level traces:
    /// every tick's `events` is then empty).
    pub traced: bool,
    /// The ticks, in order.
    pub ticks: Vec<TickView>,
}

/// One tick of a [`Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct TickView {
    /// The tick number.
    pub tick: u32,
    /// The time the tick ran at (milliseconds).
    pub now: i64,
    /// The node events of the agent's tick, in order.
    pub events: Vec<NodeStep>,
    /// The node ids on the agent's active path after the tick (`Program::active_path`).
    pub active: Vec<u32>,
    /// Every other line of the agent's part of the tick, as `btvm run` writes it, without the
    /// tick header and the indentation.
    pub calls: Vec<String>,
}

/// One node event of a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeStep {
    /// The node's id.
    pub node: u32,
    /// What it did.
    pub event: NodeEvent,
}

impl TickView {
    /// The status each node finished with last in this tick, as `(node, status)` in node order.
    pub fn last_statuses(&self) -> Vec<(u32, btvm::Status)> {
        let mut last = std::collections::BTreeMap::new();
        for step in &self.events {
            if let NodeEvent::Finish(s) = step.event {
                last.insert(step.node, s);
            }
        }
        last.into_iter().collect()
    }
}
