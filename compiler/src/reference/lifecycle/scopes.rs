//! The group-scope table of one run (`spec/mbt.md` 2.6) and the host-less release of an
//! agent's scopes.
//!
//! It only counts members: it must never call the host or read the tree beyond the scope names
//! of GroupScope nodes (the lifecycle steps decide when to enter and leave).

use std::collections::{BTreeMap, BTreeSet};

use btvm::AgentId;

use super::NodeData;
use crate::ir::{NodeKind, Tree};
use crate::reference::AgentState;

/// The group-scope tables of one run (`spec/mbt.md` 2.6), as CRYENGINE's AI groups keep them
/// (`CAIGroup::m_groupScopes`, `CryAISystem/AIGroup.h`, 8b63f61c): per AI group, per scope id
/// (the CRC-32 of the lower-cased name, [`btvm::scope_id`]), the **set** of agents that are
/// members; and each agent's AI group (0 until set). Every agent ticked through one table
/// competes for the scopes of its group; agents are ticked in agent order, so the outcome is
/// deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes {
    members: BTreeMap<(u32, u32), BTreeSet<AgentId>>,
    groups: BTreeMap<AgentId, u32>,
}

impl Scopes {
    /// An empty table: every agent in group 0, no agent inside any scope.
    pub fn new() -> Scopes {
        Scopes::default()
    }

    /// How many agents of `group` are members of `scope` (`CAIGroup::GetAmountOfActorsInScope`).
    pub fn users(&self, group: u32, scope: &str) -> u32 {
        self.count(group, btvm::scope_id(scope))
    }

    fn count(&self, group: u32, id: u32) -> u32 {
        self.members
            .get(&(group, id))
            .map_or(0, |m| u32::try_from(m.len()).unwrap_or(u32::MAX))
    }

    /// The agent's AI group.
    pub fn group(&self, agent: AgentId) -> u32 {
        self.groups.get(&agent).copied().unwrap_or(0)
    }

    /// Puts the agent in AI group `group`. A change first takes the agent out of every scope
    /// of its old group (`CAIGroup::LeaveAllGroupScopesForActor`, which `CAIGroup::RemoveMember`
    /// runs); its GroupScope nodes keep their gates (**Definition**, 2.6).
    pub fn set_group(&mut self, agent: AgentId, group: u32) {
        let old = self.group(agent);
        if old == group {
            return;
        }
        for ((g, _), m) in self.members.iter_mut() {
            if *g == old {
                m.remove(&agent);
            }
        }
        self.members.retain(|_, m| !m.is_empty());
        self.groups.insert(agent, group);
    }

    /// Whether the agent is a member of scope `id` ([`btvm::scope_id`]) in its AI group.
    pub(in crate::reference) fn is_member(&self, agent: AgentId, id: u32) -> bool {
        self.members
            .get(&(self.group(agent), id))
            .is_some_and(|m| m.contains(&agent))
    }

    /// Makes the agent a member of scope `id` in its AI group, whatever the scope's limit (a
    /// restored agent was a member when it was saved).
    pub(in crate::reference) fn join(&mut self, agent: AgentId, id: u32) {
        let key = (self.group(agent), id);
        self.members.entry(key).or_default().insert(agent);
    }

    /// `CAIGroup::EnterGroupScope`: refused when `max` or more agents are members already
    /// (the agent itself included); else the agent is inserted into the set (a member stays
    /// one member). Whether it entered.
    pub(super) fn try_enter(&mut self, agent: AgentId, scope: &str, max: u32) -> bool {
        let key = (self.group(agent), btvm::scope_id(scope));
        if self.count(key.0, key.1) >= max {
            return false;
        }
        self.members.entry(key).or_default().insert(agent);
        true
    }

    /// `CAIGroup::LeaveGroupScope`: the agent is no longer a member (nothing if it was not).
    pub(super) fn leave(&mut self, agent: AgentId, scope: &str) {
        let key = (self.group(agent), btvm::scope_id(scope));
        if let Some(m) = self.members.get_mut(&key) {
            m.remove(&agent);
            if m.is_empty() {
                self.members.remove(&key);
            }
        }
    }
}

/// Leaves every scope the agent holds (the host-less reset, 2.7: no terminate calls).
pub(in crate::reference) fn release(tree: &Tree, state: &AgentState, scopes: &mut Scopes) {
    for (i, data) in state.live.iter().enumerate() {
        if let (Some(NodeData::GroupScope { entered: true }), Some(n)) = (data, tree.nodes.get(i)) {
            if let NodeKind::GroupScope(g) = &n.kind {
                scopes.leave(state.agent, &g.scope);
            }
        }
    }
}
