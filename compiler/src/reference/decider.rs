//! The Spore execution model (decider trees), written to follow `spec/spore.md` section 2 line
//! by line: deciding (2.3), the tick (2.4), activating, visiting, switching, choosing,
//! redeciding and deactivating (2.5), and the loop guard (2.7).
//!
//! Per agent ([`DeciderState`]): the active child of every group on the active path, when it
//! was chosen, each decider's `every` timer, the DecisionFlags word and the stimuli.
//!
//! This module must stay a plain recursive walk over the IR: it is the oracle the vm and the
//! native code are compared with.

use btvm::decider::{flag_test, MAX_GROUP_CHILDREN};
use btvm::{Call, DeciderView, GroupView, Host, Millis, Phase, Status, Stimulus};

use super::{AgentState, Interpreter};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{BehaviorRef, Decider, FlagTest, Group, NodeId, NodeKind, Policy, Tree};

/// A decider-model agent's state (`spec/spore.md` 2.2).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DeciderState {
    /// Whether the root decider is active, and since when.
    pub root: Option<Millis>,
    /// Per node (used for `group` nodes): the active child's index.
    pub active: Vec<Option<u32>>,
    /// Per node (used for `group` nodes): when the active child was chosen.
    pub since: Vec<Millis>,
    /// Per node (used for deciders with `every`): the earliest time the preconditions pass.
    pub next: Vec<Millis>,
    /// The DecisionFlags word.
    pub flags: u32,
    /// The declared stimuli.
    pub stimuli: Vec<Option<Stimulus>>,
    /// The last tick ended with the loop guard.
    pub guard: bool,
}

impl DeciderState {
    /// The state of an agent of another model: no tables.
    pub fn new_empty() -> DeciderState {
        DeciderState {
            root: None,
            active: Vec::new(),
            since: Vec::new(),
            next: Vec::new(),
            flags: 0,
            stimuli: Vec::new(),
            guard: false,
        }
    }

    /// A fresh agent's state for `tree`.
    pub fn new(tree: &Tree) -> DeciderState {
        let n = tree.nodes.len();
        DeciderState {
            root: None,
            active: vec![None; n],
            since: vec![0; n],
            next: vec![Millis::MIN; n],
            flags: 0,
            stimuli: vec![None; tree.stimuli.len()],
            guard: false,
        }
    }
}

/// Rejects trees that are not decider trees: the root must be a decider, a decider's child a
/// group or a behavior, a group's children deciders (each possibly through `include`s of shared
/// subtrees), and a group has at most [`MAX_GROUP_CHILDREN`] children.
pub(crate) fn check_supported(tree: &Tree) -> Result<(), Diagnostic> {
    super::check_kinds(tree, "decider (Spore)", |kind| {
        matches!(
            kind,
            NodeKind::Decider(_)
                | NodeKind::Group(_)
                | NodeKind::Behavior(_)
                | NodeKind::Include(_)
        )
    })?;
    let bad = |id: NodeId, msg: String| {
        Err(Diagnostic::new(
            ErrorKind::Unsupported,
            tree.node(id).span,
            msg,
        ))
    };
    for entry in &tree.roots {
        if !matches!(
            tree.node(resolve(tree, entry.node)).kind,
            NodeKind::Decider(_)
        ) {
            return bad(
                entry.node,
                format!(
                    "the entry `{}` of a decider tree must be a `decider`",
                    entry.name
                ),
            );
        }
    }
    for (i, n) in tree.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        match &n.kind {
            NodeKind::Decider(_) => {
                let t = n.children.first().map(|&c| resolve(tree, c));
                if !t.is_some_and(|t| {
                    matches!(
                        tree.node(t).kind,
                        NodeKind::Group(_) | NodeKind::Behavior(_)
                    )
                }) {
                    return bad(id, "a `decider` must run a `group` or a `behavior`".into());
                }
            }
            NodeKind::Group(_) => {
                if n.children.len() > MAX_GROUP_CHILDREN {
                    return bad(
                        id,
                        format!(
                            "a group has {} children; at most {MAX_GROUP_CHILDREN} are allowed",
                            n.children.len()
                        ),
                    );
                }
                for &c in &n.children {
                    if !matches!(tree.node(resolve(tree, c)).kind, NodeKind::Decider(_)) {
                        return bad(c, "a group's children must be deciders".into());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Follows `include`s to the node that runs. `check` rules out include cycles; the bound only
/// keeps this total on unchecked trees.
pub(crate) fn resolve(tree: &Tree, mut id: NodeId) -> NodeId {
    for _ in 0..=tree.subtrees.len() {
        match &tree.node(id).kind {
            NodeKind::Include(s) => match tree.subtrees.get(s.0 as usize) {
                Some(sub) => id = sub.node,
                None => return id,
            },
            _ => return id,
        }
    }
    id
}

/// The view every engine reports: groups in arena order.
pub(crate) fn view(tree: &Tree, st: &DeciderState) -> DeciderView {
    let groups = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.kind, NodeKind::Group(_)))
        .map(|(i, _)| GroupView {
            active: st.active[i],
            since: st.since[i],
        })
        .collect();
    DeciderView {
        root_since: st.root,
        groups,
        decision_flags: st.flags,
        stimuli: st.stimuli.clone(),
    }
}

/// How a step of the walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    /// It worked.
    Ok,
    /// It failed (a behavior returned false, or nothing could be chosen).
    Fail,
    /// The loop guard tripped: the tick stops at once.
    Guard,
}

/// What a redecide allows.
enum Redecide {
    /// Choose again.
    Go,
    /// The group's own Decide rejected (the `redecide` flag): the group fails.
    Reject,
    /// The loop guard tripped.
    Guard,
}

/// One tick of one agent.
pub(super) struct Tick<'a, 't> {
    pub interp: &'a Interpreter<'t>,
    pub state: &'a mut AgentState,
    pub host: &'a mut dyn Host,
    pub now: Millis,
    pub limit: u32,
    /// Redecides so far this tick.
    pub redecides: u32,
    /// The StimuliFlags word for this tick.
    pub stimuli: u32,
}

impl Tick<'_, '_> {
    fn tree(&self) -> &Tree {
        self.interp.tree
    }

    /// 2.4: one tick from `root` (a decider).
    pub fn run(&mut self, root: NodeId) -> Status {
        let now = self.now;
        let ds = &mut self.state.decider;
        ds.guard = false;
        let mut word = 0u32;
        for (bit, s) in ds.stimuli.iter_mut().enumerate() {
            if s.is_some_and(|s| s.expired(now)) {
                *s = None;
            }
            if s.is_some() {
                word |= 1 << bit;
            }
        }
        self.stimuli = word;
        let root = resolve(self.tree(), root);
        let flow = if self.state.decider.root.is_some() {
            self.visit(root)
        } else if self.decide(root).is_some() {
            self.state.decider.root = Some(now);
            self.activate(root)
        } else {
            return Status::Failure;
        };
        if flow != Flow::Ok {
            self.deactivate(root);
            self.state.decider.root = None;
            self.state.decider.guard = flow == Flow::Guard;
        }
        if self.state.decider.root.is_some() {
            Status::Running
        } else {
            Status::Failure
        }
    }

    fn knobs(&self, d: NodeId) -> &Decider {
        match &self.tree().node(d).kind {
            NodeKind::Decider(k) => k,
            // `check_supported` guarantees deciders where this is called.
            _ => &NO_DECIDER,
        }
    }

    /// The node a decider runs (a group or a behavior).
    fn target(&self, d: NodeId) -> NodeId {
        let tree = self.tree();
        tree.node(d)
            .children
            .first()
            .map_or(d, |&c| resolve(tree, c))
    }

    /// The `i`-th child of group `g`, through includes.
    fn child(&self, g: NodeId, i: u32) -> NodeId {
        let tree = self.tree();
        tree.node(g)
            .children
            .get(i as usize)
            .map_or(g, |&c| resolve(tree, c))
    }

    fn children(&self, g: NodeId) -> u32 {
        self.tree().node(g).children.len() as u32
    }

    /// 2.3: whether `d` accepts, and its score.
    fn decide(&mut self, d: NodeId) -> Option<f64> {
        let pre = self.knobs(d).pre;
        if pre.every_ms.is_some() && self.now < self.state.decider.next[d.index()] {
            return None;
        }
        let test = |word: u32, t: Option<FlagTest>| {
            t.is_none_or(|t| flag_test(word, t.mask, t.all, t.set))
        };
        if !test(self.state.decider.flags, pre.decision) || !test(self.stimuli, pre.stimuli) {
            return None;
        }
        let score = self.score(d);
        (score > 0.0).then_some(score)
    }

    /// The Decide value (1.0 without one); stamps the `every` timer.
    fn score(&mut self, d: NodeId) -> f64 {
        let now = self.now;
        if let Some(ms) = self.knobs(d).pre.every_ms {
            self.state.decider.next[d.index()] = now.saturating_add(Millis::from(ms));
        }
        match &self.interp.tree.node(d).kind {
            NodeKind::Decider(Decider {
                decide: Some(e), ..
            }) => {
                let mut ctx = self.interp.eval_ctx(self.state, now);
                ctx.eval(e, self.host).as_f64()
            }
            _ => 1.0,
        }
    }

    /// Calls one function of a behavior; a function it lacks counts as true.
    fn call(&mut self, b: BehaviorRef, phase: Phase) -> bool {
        let has = match phase {
            Phase::Enter => b.activate,
            Phase::Continue => b.tick,
            Phase::Exit => b.deactivate,
        };
        if !has {
            return true;
        }
        let call = Call::new(
            self.state.agent,
            b.import,
            phase,
            &[],
            self.now,
            &self.interp.strings,
        );
        self.host.action(&call) != Status::Failure
    }

    /// Activate then tick a behavior (a new behavior is ticked the tick it is activated).
    fn start(&mut self, b: BehaviorRef) -> bool {
        self.call(b, Phase::Enter) && self.call(b, Phase::Continue)
    }

    /// 2.5 Activate: `d` was just chosen.
    fn activate(&mut self, d: NodeId) -> Flow {
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => flow(self.start(b)),
            NodeKind::Group(g) => {
                if let Some(gb) = g.behavior {
                    if !self.start(gb) {
                        return Flow::Fail;
                    }
                }
                self.choose(d, t, g, 0, 0)
            }
            _ => Flow::Fail,
        }
    }

    /// 2.5 Visit: `d` is active.
    fn visit(&mut self, d: NodeId) -> Flow {
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => flow(self.call(b, Phase::Continue)),
            NodeKind::Group(g) => {
                if let Some(gb) = g.behavior {
                    if !self.call(gb, Phase::Continue) {
                        return Flow::Fail;
                    }
                }
                let Some(a) = self.state.decider.active[t.index()] else {
                    return self.choose(d, t, g, 0, 0);
                };
                if g.policy == Policy::Prioritized {
                    for i in 0..a {
                        let c = self.child(t, i);
                        if self.decide(c).is_some() {
                            return match self.switch(t, i) {
                                Flow::Fail => self.redecide(d, t, g, 0, i + 1),
                                other => other,
                            };
                        }
                    }
                }
                let c = self.child(t, a);
                match self.visit(c) {
                    Flow::Fail if g.policy == Policy::Sequential => {
                        self.redecide(d, t, g, 0, a + 1)
                    }
                    Flow::Fail => self.redecide(d, t, g, 1 << a, 0),
                    other => other,
                }
            }
            _ => Flow::Fail,
        }
    }

    /// 2.5 Redecide in group `t` of decider `d`, then choose with `mask` from `from`.
    fn redecide(&mut self, d: NodeId, t: NodeId, g: Group, mask: u64, from: u32) -> Flow {
        match self.count(d) {
            Redecide::Go => self.choose(d, t, g, mask, from),
            Redecide::Reject => Flow::Fail,
            Redecide::Guard => Flow::Guard,
        }
    }

    /// Counts one redecide against the limit, then re-checks `d`'s Decide if it asks for it.
    fn count(&mut self, d: NodeId) -> Redecide {
        self.redecides += 1;
        if self.redecides > self.limit {
            return Redecide::Guard;
        }
        if self.knobs(d).decide_on_redecide
            && self.score(d).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        {
            return Redecide::Reject;
        }
        Redecide::Go
    }

    /// 2.5 Switch group `t` to child `i`.
    fn switch(&mut self, t: NodeId, i: u32) -> Flow {
        if let Some(old) = self.state.decider.active[t.index()] {
            let c = self.child(t, old);
            self.deactivate(c);
        }
        self.state.decider.active[t.index()] = Some(i);
        self.state.decider.since[t.index()] = self.now;
        let c = self.child(t, i);
        self.activate(c)
    }

    /// 2.5 Choose in group `t` (of decider `d`), skipping the children in `mask`, from `from`.
    fn choose(&mut self, d: NodeId, t: NodeId, g: Group, mask: u64, from: u32) -> Flow {
        let n = self.children(t);
        let considered = move |i: u32| i >= from && mask & (1u64 << i) == 0;
        match g.policy {
            Policy::Prioritized | Policy::Sequential => {
                for i in (0..n).filter(|&i| considered(i)) {
                    let c = self.child(t, i);
                    if self.decide(c).is_none() {
                        continue;
                    }
                    match self.switch(t, i) {
                        Flow::Ok => return Flow::Ok,
                        Flow::Guard => return Flow::Guard,
                        Flow::Fail => match self.count(d) {
                            Redecide::Go => {}
                            Redecide::Reject => return Flow::Fail,
                            Redecide::Guard => return Flow::Guard,
                        },
                    }
                }
                Flow::Fail
            }
            Policy::Random | Policy::Scored => {
                let mut cands = Vec::new();
                for i in (0..n).filter(|&i| considered(i)) {
                    let c = self.child(t, i);
                    if let Some(score) = self.decide(c) {
                        cands.push((i, score));
                    }
                }
                while !cands.is_empty() {
                    let k = if g.policy == Policy::Random {
                        let r = self.state.rng.next_f64();
                        ((r * cands.len() as f64) as usize).min(cands.len() - 1)
                    } else {
                        best(&cands)
                    };
                    let (i, _) = cands.remove(k);
                    match self.switch(t, i) {
                        Flow::Ok => return Flow::Ok,
                        Flow::Guard => return Flow::Guard,
                        Flow::Fail => match self.count(d) {
                            Redecide::Go => {}
                            Redecide::Reject => return Flow::Fail,
                            Redecide::Guard => return Flow::Guard,
                        },
                    }
                }
                Flow::Fail
            }
        }
    }

    /// 2.5 Deactivate an active decider, innermost first.
    fn deactivate(&mut self, d: NodeId) {
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => {
                self.call(b, Phase::Exit);
            }
            NodeKind::Group(g) => {
                if let Some(a) = self.state.decider.active[t.index()].take() {
                    let c = self.child(t, a);
                    self.deactivate(c);
                }
                if let Some(gb) = g.behavior {
                    self.call(gb, Phase::Exit);
                }
            }
            _ => {}
        }
    }
}

/// A decider with no knobs, for the impossible case of a non-decider where one is expected.
static NO_DECIDER: Decider = Decider {
    pre: crate::ir::Precondition {
        every_ms: None,
        decision: None,
        stimuli: None,
    },
    decide: None,
    decide_on_redecide: false,
};

fn flow(ok: bool) -> Flow {
    if ok {
        Flow::Ok
    } else {
        Flow::Fail
    }
}

/// The index in `cands` of the highest score, the earliest on ties.
fn best(cands: &[(u32, f64)]) -> usize {
    let mut k = 0;
    for (j, c) in cands.iter().enumerate() {
        if c.1 > cands[k].1 {
            k = j;
        }
    }
    k
}
