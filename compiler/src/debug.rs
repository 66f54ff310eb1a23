//! Debugging decider (Spore) trees, in the spirit of the original's S11 helpers.
//!
//! - [`dump_state`] writes an agent's active path, one decider per line, indented by depth
//!   (the original's `DebugPrintState`): from a [`btvm::DeciderView`], so every engine can be
//!   dumped the same way.
//! - [`DebugOutput`] is an [`Observer`] of the reference interpreter that keeps the lines of
//!   debug levels 1 to 5 (the original's `DebugOutputLevel`): 1 and 2 report transitions only,
//!   3 to 5 every tick in growing detail.
//!
//! This module formats; it never prints.

use std::fmt::Write as _;

use btvm::{AgentId, DeciderView, Millis, Phase};

use crate::ir::{NodeId, NodeKind, Policy, Tree};

use crate::reference::{DeciderEvent, Observer};

fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Prioritized => "prioritized",
        Policy::Sequential => "sequential",
        Policy::Random => "random",
        Policy::Scored => "scored",
    }
}

fn decider_name(tree: &Tree, d: NodeId) -> String {
    match &tree.node(d).name {
        Some(n) => n.clone(),
        None => format!("#{}", d.0),
    }
}

fn import_name(tree: &Tree, i: btvm::ImportId) -> &str {
    tree.imports.get(i.index()).map_or("?", |i| i.name.as_str())
}

/// The active path of a decider-model agent as text, one decider per line (`*NAME`, what it
/// runs, how long it has been active at `now`, the active child's index), then the agent's
/// DecisionFlags and stimuli. Empty paths say so.
pub fn dump_state(tree: &Tree, view: &DeciderView, now: Millis) -> String {
    let mut out = String::new();
    let group_ix: Vec<Option<usize>> = {
        let mut k = 0;
        tree.nodes
            .iter()
            .map(|n| {
                matches!(n.kind, NodeKind::Group(_)).then(|| {
                    k += 1;
                    k - 1
                })
            })
            .collect()
    };
    match (view.root_since, tree.main_root()) {
        (Some(since), Some(root)) => {
            let mut d = tree.through_includes(root);
            let mut since = since;
            // A path is at most as long as the tree is deep; the bound keeps this total.
            for depth in 0..=tree.nodes.len() {
                let indent = "  ".repeat(depth);
                let name = decider_name(tree, d);
                let target = tree
                    .node(d)
                    .children
                    .first()
                    .map(|&c| tree.through_includes(c));
                let Some(t) = target else { break };
                let time = now.saturating_sub(since);
                match &tree.node(t).kind {
                    NodeKind::Behavior(b) => {
                        let _ = writeln!(
                            out,
                            "{indent}*{name} (behavior {}) time {time} ms",
                            import_name(tree, b.import)
                        );
                        break;
                    }
                    NodeKind::Group(g) => {
                        let gb = g
                            .behavior
                            .map_or("no group behavior", |b| import_name(tree, b.import));
                        let gv = group_ix[t.index()].and_then(|k| view.groups.get(k));
                        let active = gv.and_then(|g| g.active);
                        let idx = active.map_or("none".to_string(), |a| a.to_string());
                        let _ = writeln!(
                            out,
                            "{indent}*{name} (group {}) time {time} ms [{gb}] idx {idx}",
                            policy_name(g.policy)
                        );
                        match (active, gv) {
                            (Some(a), Some(gv)) => {
                                match tree.node(t).children.get(a as usize) {
                                    Some(&c) => d = tree.through_includes(c),
                                    None => break,
                                }
                                since = gv.since;
                            }
                            _ => break,
                        }
                    }
                    _ => break,
                }
            }
        }
        _ => out.push_str("(no active path)\n"),
    }
    let names = |word: u32, table: &[String]| -> String {
        let set: Vec<&str> = (0..32)
            .filter(|b| word & (1 << b) != 0)
            .map(|b| table.get(b as usize).map_or("?", String::as_str))
            .collect();
        set.join(", ")
    };
    let _ = writeln!(
        out,
        "decision flags 0x{:08x} ({})",
        view.decision_flags,
        names(view.decision_flags, &tree.flags)
    );
    for (bit, s) in view.stimuli.iter().enumerate() {
        if let Some(s) = s {
            let name = tree.stimuli.get(bit).map_or("?", String::as_str);
            let expires = s.expires.map_or("never".to_string(), |e| e.to_string());
            let _ = writeln!(out, "stimulus {name} (expires {expires}, data {})", s.data);
        }
    }
    out
}

/// An [`Observer`] that keeps the debug lines of one level (1 to 5; 0 keeps nothing), each
/// written `BTDBO(n) agent A @ T: MESSAGE` with the message indented by the decider's depth.
#[derive(Debug)]
pub struct DebugOutput<'t> {
    tree: &'t Tree,
    level: u8,
    lines: Vec<String>,
}

impl<'t> DebugOutput<'t> {
    /// Output at `level` for `tree`.
    pub fn new(tree: &'t Tree, level: u8) -> Self {
        DebugOutput {
            tree,
            level,
            lines: Vec::new(),
        }
    }

    /// The lines so far.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Takes the lines so far.
    pub fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.lines)
    }

    fn is_behavior(&self, d: NodeId) -> bool {
        let t = self
            .tree
            .node(d)
            .children
            .first()
            .map(|&c| self.tree.through_includes(c));
        t.is_some_and(|t| matches!(self.tree.node(t).kind, NodeKind::Behavior(_)))
    }

    /// The level an event is reported at, and its message.
    fn describe(&self, event: &DeciderEvent) -> (u8, String) {
        let tree = self.tree;
        let name = |d: NodeId| decider_name(tree, d);
        match *event {
            DeciderEvent::TickStart {
                decision_flags,
                stimuli,
            } => (
                3,
                format!(
                    "starting tree, DecisionFlags: 0x{decision_flags:08x}, StimuliFlags: 0x{stimuli:08x}"
                ),
            ),
            DeciderEvent::TickEnd { status } => (3, format!("finished tree: {status}")),
            DeciderEvent::Precondition { decider, failed } => {
                (5, format!("{}...failed {failed} check", name(decider)))
            }
            DeciderEvent::Decided { decider, score } => (
                5,
                format!("{}...Decide returned {}", name(decider), btvm::Value::Float(score).display(&btvm::Strings::new())),
            ),
            DeciderEvent::Activate { decider } if self.is_behavior(decider) => {
                (1, format!("activating behavior decider {}", name(decider)))
            }
            DeciderEvent::Activate { decider } => {
                (2, format!("activating group decider {}", name(decider)))
            }
            DeciderEvent::Deactivate { decider } if self.is_behavior(decider) => {
                (1, format!("deactivating behavior decider {}", name(decider)))
            }
            DeciderEvent::Deactivate { decider } => {
                (2, format!("deactivating group decider {}", name(decider)))
            }
            DeciderEvent::Continue { decider } => {
                (4, format!("visiting current decider {}", name(decider)))
            }
            DeciderEvent::Behavior {
                decider,
                behavior,
                phase,
                ok,
            } => {
                let what = match phase {
                    Phase::Enter => "activate",
                    Phase::Continue => "tick",
                    Phase::Exit => "deactivate",
                };
                let level = if phase == Phase::Continue { 3 } else { 2 };
                let b = import_name(tree, behavior.import);
                let d = name(decider);
                let msg = if phase == Phase::Exit {
                    format!("{what} behavior {b} in decider {d}")
                } else {
                    format!("{what} behavior {b} in decider {d} returned {ok}")
                };
                (level, msg)
            }
            DeciderEvent::Redecide { decider, count } => (
                2,
                format!("masked redecide in {} (redecide {count} this tick)", name(decider)),
            ),
            DeciderEvent::Guard { limit } => (
                1,
                format!("redecide limit {limit} exceeded: the Subset Rule is broken"),
            ),
        }
    }
}

impl Observer for DebugOutput<'_> {
    fn event(&mut self, agent: AgentId, now: Millis, depth: u32, event: &DeciderEvent) {
        let (level, msg) = self.describe(event);
        if level <= self.level {
            let indent = "  ".repeat(depth as usize);
            self.lines.push(format!(
                "BTDBO({level}) agent {} @ {now}: {indent}{msg}",
                agent.0
            ));
        }
    }
}
