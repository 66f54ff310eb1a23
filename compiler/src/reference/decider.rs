//! The Spore execution model (decider trees), written to follow `spec/spore.md` section 2 line
//! by line: deciding (2.3), the tick (2.4), activating, visiting, switching, choosing,
//! redeciding and deactivating (2.5), and the loop guard (2.7).
//!
//! Per agent ([`DeciderState`]): the active child of every group on the active path, when it
//! was chosen, each decider's `every` timer, the DecisionFlags word and the stimuli.
//!
//! Traced (`Interpreter::with_node_trace`), each Decide and each activation or visit of a
//! decider is a pair of node events (`spec/semantics.md` 4.7, Decider); the [`Observer`]'s
//! events are Spore's own debug output, separate from them.
//!
//! This module must stay a plain recursive walk over the IR: it is the oracle the vm and the
//! native code are compared with.

use btvm::decider::flag_test;
use btvm::{Call, DeciderView, GroupView, Host, Millis, Phase, Status, Stimulus};

use super::{AgentState, Interpreter};
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

    /// Heap bytes its tables hold.
    pub fn footprint(&self) -> usize {
        self.active.capacity() * std::mem::size_of::<Option<u32>>()
            + (self.since.capacity() + self.next.capacity()) * std::mem::size_of::<Millis>()
            + self.stimuli.capacity() * std::mem::size_of::<Option<Stimulus>>()
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

/// What the decider walk reports to an [`Observer`], in the order it happens (S11's debug
/// output hooks). `decider` is the decider's node; `depth` counts deciders from the root (0).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum DeciderEvent {
    /// A tick starts with these flag words.
    TickStart {
        /// The DecisionFlags word.
        decision_flags: u32,
        /// The StimuliFlags word (after expiry).
        stimuli: u32,
    },
    /// A precondition rejected `decider` before its Decide: `"every"`, `"decision flags"` or
    /// `"stimuli flags"`.
    Precondition {
        /// The decider.
        decider: NodeId,
        /// Which check failed.
        failed: &'static str,
    },
    /// `decider`'s score was computed.
    Decided {
        /// The decider.
        decider: NodeId,
        /// The score (1.0 without a Decide).
        score: f64,
    },
    /// `decider` became active (before its behaviors run).
    Activate {
        /// The decider.
        decider: NodeId,
    },
    /// The active `decider` is visited.
    Continue {
        /// The decider.
        decider: NodeId,
    },
    /// `decider` is deactivated (before its behaviors are told).
    Deactivate {
        /// The decider.
        decider: NodeId,
    },
    /// A behavior function was called.
    Behavior {
        /// The decider whose behavior (or group behavior) it is.
        decider: NodeId,
        /// The behavior.
        behavior: BehaviorRef,
        /// Activate, tick or deactivate.
        phase: Phase,
        /// What it returned.
        ok: bool,
    },
    /// A child of `decider`'s group failed: redecide number `count` of this tick.
    Redecide {
        /// The group decider.
        decider: NodeId,
        /// Redecides so far this tick.
        count: u32,
    },
    /// The loop guard tripped.
    Guard {
        /// The limit.
        limit: u32,
    },
    /// The tick ended.
    TickEnd {
        /// The tick's status.
        status: Status,
    },
}

/// Receives [`DeciderEvent`]s from the reference interpreter's decider walk
/// ([`Interpreter::tick_observed`](super::Interpreter::tick_observed)).
pub trait Observer {
    /// One event of `agent`'s tick at `now`, `depth` deciders below the root.
    fn event(&mut self, agent: btvm::AgentId, now: Millis, depth: u32, event: &DeciderEvent);
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
    /// Who is told what happens.
    pub observer: Option<&'a mut dyn Observer>,
    /// Deciders between the root and the current one.
    pub depth: u32,
}

impl<'a, 't> Tick<'a, 't> {
    /// A tick at its start: no redecide yet, no stimulus read, at the root.
    pub fn begin(
        interp: &'a Interpreter<'t>,
        state: &'a mut AgentState,
        host: &'a mut dyn Host,
        now: Millis,
        limit: u32,
        observer: Option<&'a mut dyn Observer>,
    ) -> Self {
        Tick {
            interp,
            state,
            host,
            now,
            limit,
            redecides: 0,
            stimuli: 0,
            observer,
            depth: 0,
        }
    }
}

impl Tick<'_, '_> {
    fn tree(&self) -> &Tree {
        self.interp.tree
    }

    fn tell(&mut self, event: DeciderEvent) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.event(self.state.agent, self.now, self.depth, &event);
        }
    }

    /// Runs `f` one decider deeper.
    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// 2.4 with the observer told where the tick starts and ends.
    pub fn run_observed(&mut self, root: NodeId) -> Status {
        let status = self.run(root);
        self.tell(DeciderEvent::TickEnd { status });
        status
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
        self.tell(DeciderEvent::TickStart {
            decision_flags: self.state.decider.flags,
            stimuli: word,
        });
        let root = self.tree().through_includes(root);
        let flow = if self.state.decider.root.is_some() {
            self.visit(root)
        } else if self.decide(root).is_some() {
            self.state.decider.root = Some(now);
            self.activate(root)
        } else {
            return Status::Failure;
        };
        if flow == Flow::Guard {
            self.tell(DeciderEvent::Guard { limit: self.limit });
        }
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
            // `check` guarantees deciders where this is called.
            _ => &NO_DECIDER,
        }
    }

    /// The node a decider runs (a group or a behavior).
    fn target(&self, d: NodeId) -> NodeId {
        crate::ir::analysis::decider_target(self.tree(), d)
    }

    /// The `i`-th child of group `g`, through includes.
    fn child(&self, g: NodeId, i: u32) -> NodeId {
        let tree = self.tree();
        tree.node(g)
            .children
            .get(i as usize)
            .map_or(g, |&c| tree.through_includes(c))
    }

    fn children(&self, g: NodeId) -> u32 {
        self.tree().node(g).children.len() as u32
    }

    /// Tells the host node event `event` of decider `d`, when nodes are traced.
    fn node(&mut self, d: NodeId, event: btvm::NodeEvent) {
        self.interp
            .node_event(self.host, self.state.agent, d, event);
    }

    /// 2.3 with its node events (`spec/semantics.md` 4.7, Decider): `d` entered, then finished
    /// with success when it accepts, failure when it rejects.
    fn decide(&mut self, d: NodeId) -> Option<f64> {
        self.node(d, btvm::NodeEvent::Enter);
        let r = self.decide_in(d);
        let status = if r.is_some() {
            Status::Success
        } else {
            Status::Failure
        };
        self.node(d, btvm::NodeEvent::Finish(status));
        r
    }

    /// 2.3: whether `d` accepts, and its score.
    fn decide_in(&mut self, d: NodeId) -> Option<f64> {
        let pre = self.knobs(d).pre;
        let test = |word: u32, t: Option<FlagTest>| {
            t.is_none_or(|t| flag_test(word, t.mask, t.all, t.set))
        };
        let failed = if pre.every_ms.is_some() && self.now < self.state.decider.next[d.index()] {
            Some("every")
        } else if !test(self.state.decider.flags, pre.decision) {
            Some("decision flags")
        } else if !test(self.stimuli, pre.stimuli) {
            Some("stimuli flags")
        } else {
            None
        };
        if let Some(failed) = failed {
            self.tell(DeciderEvent::Precondition { decider: d, failed });
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
        let score = match &self.interp.tree.node(d).kind {
            NodeKind::Decider(Decider {
                decide: Some(e), ..
            }) => {
                let mut ctx = self.interp.eval_ctx(self.state, now);
                ctx.eval(e, self.host).as_f64()
            }
            _ => 1.0,
        };
        self.tell(DeciderEvent::Decided { decider: d, score });
        score
    }

    /// Calls one function of `d`'s behavior `b`; a function it lacks counts as true.
    fn call(&mut self, d: NodeId, b: BehaviorRef, phase: Phase) -> bool {
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
        let ok = self.host.action(&call) != Status::Failure;
        self.tell(DeciderEvent::Behavior {
            decider: d,
            behavior: b,
            phase,
            ok,
        });
        ok
    }

    /// Activate then tick a behavior (a new behavior is ticked the tick it is activated).
    fn start(&mut self, d: NodeId, b: BehaviorRef) -> bool {
        self.call(d, b, Phase::Enter) && self.call(d, b, Phase::Continue)
    }

    /// Runs `d` (its activation or visit) inside its node events (`spec/semantics.md` 4.7,
    /// Decider): finished with running when it worked, failure otherwise (the loop guard
    /// included).
    fn run_node(&mut self, d: NodeId, run: fn(&mut Self, NodeId) -> Flow) -> Flow {
        self.node(d, btvm::NodeEvent::Enter);
        let flow = run(self, d);
        let status = if flow == Flow::Ok {
            Status::Running
        } else {
            Status::Failure
        };
        self.node(d, btvm::NodeEvent::Finish(status));
        flow
    }

    /// 2.5 Activate, with its node events.
    fn activate(&mut self, d: NodeId) -> Flow {
        self.run_node(d, Self::activate_in)
    }

    /// 2.5 Visit, with its node events.
    fn visit(&mut self, d: NodeId) -> Flow {
        self.run_node(d, Self::visit_in)
    }

    /// 2.5 Activate: `d` was just chosen.
    fn activate_in(&mut self, d: NodeId) -> Flow {
        self.tell(DeciderEvent::Activate { decider: d });
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => flow(self.start(d, b)),
            NodeKind::Group(g) => {
                if let Some(gb) = g.behavior {
                    if !self.start(d, gb) {
                        return Flow::Fail;
                    }
                }
                self.deeper(|me| me.choose(d, t, g, 0))
            }
            _ => Flow::Fail,
        }
    }

    /// 2.5 Visit: `d` is active.
    fn visit_in(&mut self, d: NodeId) -> Flow {
        self.tell(DeciderEvent::Continue { decider: d });
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => flow(self.call(d, b, Phase::Continue)),
            NodeKind::Group(g) => {
                if let Some(gb) = g.behavior {
                    if !self.call(d, gb, Phase::Continue) {
                        return Flow::Fail;
                    }
                }
                self.deeper(|me| me.visit_group(d, t, g))
            }
            _ => Flow::Fail,
        }
    }

    /// The group part of a visit: interruptions, the active child, the redecide.
    fn visit_group(&mut self, d: NodeId, t: NodeId, g: Group) -> Flow {
        let Some(a) = self.state.decider.active[t.index()] else {
            return self.choose(d, t, g, 0);
        };
        if g.policy == Policy::Prioritized {
            for i in 0..a {
                let c = self.child(t, i);
                if self.decide(c).is_some() {
                    return match self.switch(t, i) {
                        Flow::Fail => self.redecide(d, t, g, bit(i)),
                        other => other,
                    };
                }
            }
        }
        let c = self.child(t, a);
        match self.visit(c) {
            // Sequential: the children up to the failed one stay behind (a Definition).
            Flow::Fail if g.policy == Policy::Sequential => self.redecide(d, t, g, through(a)),
            Flow::Fail => self.redecide(d, t, g, bit(a)),
            other => other,
        }
    }

    /// 2.5 Redecide in group `t` of decider `d`, then choose with `mask`.
    fn redecide(&mut self, d: NodeId, t: NodeId, g: Group, mask: u64) -> Flow {
        match self.count(d) {
            Redecide::Go => self.choose(d, t, g, mask),
            Redecide::Reject => Flow::Fail,
            Redecide::Guard => Flow::Guard,
        }
    }

    /// Counts one redecide against the limit, then re-checks `d`'s Decide if it asks for it.
    fn count(&mut self, d: NodeId) -> Redecide {
        self.redecides += 1;
        self.tell(DeciderEvent::Redecide {
            decider: d,
            count: self.redecides,
        });
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

    /// 2.5 Choose in group `t` (of decider `d`), skipping the children in `mask`: pick a child,
    /// switch to it; if its activation fails, it joins the mask and the group redecides, which
    /// starts the choice over from the first child.
    fn choose(&mut self, d: NodeId, t: NodeId, g: Group, mut mask: u64) -> Flow {
        loop {
            let Some(i) = self.pick(t, g, mask) else {
                return Flow::Fail;
            };
            match self.switch(t, i) {
                Flow::Fail => {
                    mask |= bit(i);
                    match self.count(d) {
                        Redecide::Go => {}
                        Redecide::Reject => return Flow::Fail,
                        Redecide::Guard => return Flow::Guard,
                    }
                }
                other => return other,
            }
        }
    }

    /// The policy's pick among the children of group `t` not in `mask`, each decided in order.
    fn pick(&mut self, t: NodeId, g: Group, mask: u64) -> Option<u32> {
        let n = self.children(t);
        let considered = move |i: u32| mask & bit(i) == 0;
        match g.policy {
            Policy::Prioritized | Policy::Sequential => {
                (0..n).filter(|&i| considered(i)).find(|&i| {
                    let c = self.child(t, i);
                    self.decide(c).is_some()
                })
            }
            Policy::Random | Policy::Scored => {
                let mut cands = Vec::new();
                for i in (0..n).filter(|&i| considered(i)) {
                    let c = self.child(t, i);
                    if let Some(score) = self.decide(c) {
                        cands.push((i, score));
                    }
                }
                if cands.is_empty() {
                    return None;
                }
                let k = if g.policy == Policy::Random {
                    let r = self.state.rng.next_f64();
                    ((r * cands.len() as f64) as usize).min(cands.len() - 1)
                } else {
                    best(&cands)
                };
                Some(cands[k].0)
            }
        }
    }

    /// 2.5 Deactivate an active decider, innermost first.
    fn deactivate(&mut self, d: NodeId) {
        self.tell(DeciderEvent::Deactivate { decider: d });
        let t = self.target(d);
        match self.tree().node(t).kind.clone() {
            NodeKind::Behavior(b) => {
                self.call(d, b, Phase::Exit);
            }
            NodeKind::Group(g) => {
                if let Some(a) = self.state.decider.active[t.index()].take() {
                    let c = self.child(t, a);
                    self.deeper(|me| me.deactivate(c));
                }
                if let Some(gb) = g.behavior {
                    self.call(d, gb, Phase::Exit);
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

/// The mask of child `i` alone.
fn bit(i: u32) -> u64 {
    1u64.checked_shl(i).unwrap_or(0)
}

/// The mask of children `0..=i`.
fn through(i: u32) -> u64 {
    bit(i).wrapping_shl(1).wrapping_sub(1) | bit(i)
}

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
