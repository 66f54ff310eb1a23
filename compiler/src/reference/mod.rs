//! The reference interpreter: the oracle every other engine is compared with.
//!
//! It walks the IR directly and mirrors each original engine's algorithm literally — for
//! Unvanquished, the per-agent running-nodes list, the current-action slot and the per-agent
//! timer data (see `running_list`); for MBT, each node's runtime data with its init, update
//! and terminate steps (`lifecycle`, `spec/mbt.md` section 2); for BST, the selection
//! re-evaluated when variables change (`selection`, `spec/bst.md` section 2) — so a reader
//! can check it against the specs line by line. It is never clever and never fast.
//!
//! An [`Interpreter`] is immutable and shared; each agent owns an [`AgentState`]. MBT's group
//! scopes are shared by the agents of one AI group: the caller owns the tables and the agents'
//! groups ([`Scopes`], [`Scopes::set_group`]) and passes them to
//! [`Interpreter::tick_with_scopes`] and [`Interpreter::reset_with_scopes`].
//!
//! **Invariant:** the interpreter only accepts trees that passed [`crate::check`], so recursion
//! depth is bounded by `Limits::max_depth` and `Limits::max_expr_depth`; it never panics.

mod blocks;
pub(crate) mod cursor;
pub(crate) mod decider;

pub use decider::{DeciderEvent, Observer};
pub(crate) mod eval;
pub(crate) mod lifecycle;
pub(crate) mod running_list;
pub(crate) mod selection;
#[cfg(test)]
pub(crate) mod testing;

pub use blocks::dont_care;
pub use lifecycle::Scopes;

use btvm::{
    AgentId, Call, CursorSnapshot, DeciderView, Halt, Host, Millis, Phase, Prng, SnapshotError,
    Status, Stimulus, Strings, Value,
};

use crate::diag::Diagnostic;
use crate::ir::{CallExpr, Expr, Lit, Model, NodeId, NodeKind, Tree};

/// A reference interpreter for one tree.
#[derive(Debug)]
pub struct Interpreter<'t> {
    tree: &'t Tree,
    strings: Strings,
    /// The rules of a cursor-model tree.
    rules: Option<crate::ir::analysis::Rules>,
    /// Tell the host every node entered and finished ([`Interpreter::with_node_trace`]).
    trace_nodes: bool,
}

/// One agent's state: everything the tree remembers between ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentState {
    agent: AgentId,
    /// Unvanquished `runningNodes`: node identities (see `running_list::identity`), bottom-up,
    /// bounded by the model capacity.
    running: Vec<NodeId>,
    /// Unvanquished `currentNode`: the action that returned running last.
    current: Option<NodeId>,
    /// Per-node cooldown expiry (Unvanquished timer data), indexed by node id.
    cooldowns: Vec<Millis>,
    /// Tree variables.
    vars: Vec<Value>,
    /// The agent's PRNG.
    rng: Prng,
    /// Drag\[en\]gine `currentRule`: the rule the cursor rests on (cursor model).
    cursor: u32,
    /// Drag\[en\]gine `actionFirstRun` (cursor model).
    first_run: bool,
    /// The context has no current rule (cursor model: a restored record named a rule id the
    /// tree lacks); the next step runs nothing, fails and stops the tree.
    no_rule: bool,
    /// Why the tree stopped, if it did (cursor model; lifecycle model: the root finished).
    halt: Option<Halt>,
    /// The decider model's state (empty tables in other models).
    decider: decider::DeciderState,
    /// Whether a variable changed (lifecycle and selection models; initially true).
    changed: bool,
    /// The timestamps (lifecycle model), one per declaration.
    stamps: Vec<lifecycle::Stamp>,
    /// The runtime data of each node, `Some` exactly while it is live (lifecycle model; empty
    /// in other models).
    live: Vec<Option<lifecycle::NodeData>>,
    /// Each StateMachine's and Sequence's `current` index, by node id (selection model; empty
    /// in other models).
    index: Vec<u32>,
    /// The current leaf (selection model).
    leaf: Option<NodeId>,
}

impl AgentState {
    /// The agent this state belongs to.
    pub fn agent(&self) -> AgentId {
        self.agent
    }

    /// The running-nodes list, bottom-up (Unvanquished model). Includes of a shared subtree
    /// appear as the id `tree.nodes.len() + subtree index`, their shared identity.
    pub fn running_nodes(&self) -> &[NodeId] {
        &self.running
    }

    /// The current-action slot (Unvanquished model).
    pub fn current_action(&self) -> Option<NodeId> {
        self.current
    }

    /// Bytes this agent's state occupies: the struct plus what its lists hold on the heap.
    pub fn footprint(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.running.capacity() * std::mem::size_of::<NodeId>()
            + self.cooldowns.capacity() * std::mem::size_of::<Millis>()
            + self.vars.capacity() * std::mem::size_of::<Value>()
            + self.decider.footprint()
            + self.stamps.capacity() * std::mem::size_of::<lifecycle::Stamp>()
            + self.live.capacity() * std::mem::size_of::<Option<lifecycle::NodeData>>()
            + self.index.capacity() * std::mem::size_of::<u32>()
    }

    /// The nodes that are live (lifecycle model: they have runtime data), in arena order;
    /// `case`, `state` and `logstatus` nodes, which have no data of their own, are not listed.
    pub fn live_nodes(&self) -> Vec<NodeId> {
        self.live
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_some())
            .map(|(i, _)| NodeId(i as u32))
            .collect()
    }

    /// Whether a variable changed since the last update (lifecycle) or since the last
    /// successful selection (selection); a fresh agent's flag is set.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Sets variable `index` to `value` (a boolean), marking `changed` only if the value
    /// differs (`spec/mbt.md` 2.3); `false` if there is no such variable.
    fn set_var(&mut self, index: usize, value: bool) -> bool {
        match self.vars.get_mut(index) {
            Some(v) => {
                if *v != Value::Bool(value) {
                    *v = Value::Bool(value);
                    self.changed = true;
                }
                true
            }
            None => false,
        }
    }

    /// Why the agent's tree no longer runs, if it is halted (cursor model; in the lifecycle
    /// model [`Halt::Stopped`] once the root finished, `spec/mbt.md` 2.3).
    pub fn halt(&self) -> Option<Halt> {
        self.halt
    }

    /// The rule the cursor rests on (cursor model; rule numbers as in the bytecode's rule
    /// table) and the `first_run` flag.
    pub fn cursor(&self) -> (u32, bool) {
        (self.cursor, self.first_run)
    }

    /// Resets the behaviour state as the game does on spawn or behaviour change: the running
    /// list and the current action are cleared; timer data is kept (the game never resets it).
    pub fn reset_behavior(&mut self) {
        self.running.clear();
        self.current = None;
    }
}

impl<'t> Interpreter<'t> {
    /// Prepares `tree` for interpretation under the default [`Limits`](btvm::Limits).
    ///
    /// Runs [`check`](crate::check::check), which alone decides whether the tree is valid, and
    /// fails with its first diagnostic (so include cycles, over-deep trees and node kinds the
    /// tree's model does not run are refused, never recursed into or guessed at). Then refuses,
    /// with [`ErrorKind::ProgramTooLarge`](crate::diag::ErrorKind), a tree the vm and native
    /// code refuse for a size limit, above all the per-tick instruction budget the verifier
    /// proves (`Limits::max_tick_instructions`): every engine runs the same trees, and no tick
    /// of the reference runs unbounded (see [`crate::lower::within_budget`]).
    pub fn new(tree: &'t Tree) -> Result<Self, Diagnostic> {
        Self::with_limits(tree, &btvm::Limits::default())
    }

    /// [`Interpreter::new`] with explicit limits.
    pub fn with_limits(tree: &'t Tree, limits: &btvm::Limits) -> Result<Self, Diagnostic> {
        if let Err(mut diags) = crate::check::check(tree, limits) {
            return Err(diags.swap_remove(0));
        }
        crate::lower::within_budget(tree, limits)?;
        let rules = matches!(tree.config.model, Model::Cursor { .. })
            .then(|| crate::ir::analysis::Rules::new(tree));
        Ok(Interpreter {
            tree,
            strings: crate::ir::analysis::intern_strings(tree),
            rules,
            trace_nodes: false,
        })
    }

    /// This interpreter telling the host every node entered and finished
    /// ([`Host::node`]; `spec/semantics.md`, "Node-level traces"), as the
    /// program of [`lower_traced`](crate::lower::lower_traced) does on the compiled engines,
    /// with the same node numbering (IR arena indices are node table indices). Fails as
    /// [`lower_traced`](crate::lower::lower_traced) would for a size limit, so every engine
    /// traces the same trees.
    pub fn with_node_trace(mut self, limits: &btvm::Limits) -> Result<Self, Diagnostic> {
        crate::lower::within_budget_traced(self.tree, limits)?;
        self.trace_nodes = true;
        Ok(self)
    }

    /// Tells `host` node event `event` of `agent`'s node `id`, if nodes are traced.
    pub(crate) fn node_event(
        &self,
        host: &mut dyn Host,
        agent: AgentId,
        id: NodeId,
        event: btvm::NodeEvent,
    ) {
        if self.trace_nodes {
            host.node(agent, id.0, event);
        }
    }

    /// The tree.
    pub fn tree(&self) -> &'t Tree {
        self.tree
    }

    /// The strings that `Value::Str` arguments passed to the host refer to.
    pub fn strings(&self) -> &Strings {
        &self.strings
    }

    /// A fresh agent.
    pub fn new_agent(&self, agent: AgentId) -> AgentState {
        let vars = self
            .tree
            .vars
            .iter()
            .map(|v| match &v.default {
                Lit::Bool(b) => Value::Bool(*b),
                Lit::Int(i) => Value::Int(*i),
                Lit::Float(x) => Value::Float(*x),
                Lit::Str(s) => Value::Str(self.strings.lookup(s).unwrap_or(btvm::StrId(u32::MAX))),
            })
            .collect();
        AgentState {
            agent,
            running: Vec::new(),
            current: None,
            cooldowns: vec![0; self.tree.nodes.len()],
            vars,
            rng: Prng::for_agent(agent.0),
            cursor: 0,
            first_run: true,
            no_rule: false,
            halt: None,
            decider: if matches!(self.tree.config.model, Model::Decider { .. }) {
                decider::DeciderState::new(self.tree)
            } else {
                decider::DeciderState::new_empty()
            },
            changed: true,
            stamps: vec![lifecycle::Stamp::default(); self.tree.timestamps.len()],
            live: if self.tree.config.model == Model::Lifecycle {
                vec![None; self.tree.nodes.len()]
            } else {
                Vec::new()
            },
            index: if self.tree.config.model == Model::Selection {
                vec![0; self.tree.nodes.len()]
            } else {
                Vec::new()
            },
            leaf: None,
        }
    }

    /// The index of the variable named `name`: an exact match first, else one that differs
    /// only in ASCII case (MBT and BST name variables case-insensitively).
    pub fn var_index(&self, name: &str) -> Option<u32> {
        let vars = &self.tree.vars;
        vars.iter()
            .position(|v| v.name == name)
            .or_else(|| vars.iter().position(|v| v.name.eq_ignore_ascii_case(name)))
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The value of variable `index` as a boolean (its truth value), or `None` if there is no
    /// such variable.
    pub fn var(&self, state: &AgentState, index: u32) -> Option<bool> {
        state.vars.get(index as usize).map(|v| v.truthy())
    }

    /// Sets variable `index` to `value`, as a game behaviour would (MBT/BST): `changed` is set
    /// only if the value differs. `false` if there is no such variable.
    pub fn set_var(&self, state: &mut AgentState, index: u32, value: bool) -> bool {
        state.set_var(index as usize, value)
    }

    /// Delivers event `event` to the agent between ticks, at time `now`: MBT signal bindings,
    /// timestamps and running nodes (`spec/mbt.md` 2.4; nothing for a stopped tree), BST
    /// signals (`spec/bst.md` 2.4). Other models have no events: nothing happens. An event
    /// never enters or leaves a group scope, so agents that share a [`Scopes`] table need no
    /// variant of this taking one.
    pub fn event(&self, state: &mut AgentState, host: &mut dyn Host, event: &str, now: Millis) {
        match self.tree.config.model {
            Model::Lifecycle => {
                let mut scopes = Scopes::new();
                lifecycle::Tick {
                    interp: self,
                    state,
                    host,
                    scopes: &mut scopes,
                    now,
                    changed_before: false,
                }
                .deliver(event);
            }
            Model::Selection => {
                for sig in self.tree.signals.iter().filter(|s| s.event == event) {
                    let value = {
                        let mut ctx = self.eval_ctx(state, now);
                        ctx.eval(&sig.value, host).truthy()
                    };
                    state.set_var(sig.var.0 as usize, value);
                }
            }
            _ => {}
        }
    }

    /// The behaviour the agent's selection tree selected last (selection model; `None` when
    /// no leaf is selected).
    pub fn selected(&self, state: &AgentState) -> Option<&'t str> {
        selection::selected(self.tree, state)
    }

    /// Sets the agent's DecisionFlags word (decider model; kept until changed).
    pub fn set_decision_flags(&self, state: &mut AgentState, word: u32) {
        state.decider.flags = word;
    }

    /// Adds stimulus `bit` (decider model), replacing a present one; `false` if the tree
    /// declares no such stimulus.
    pub fn add_stimulus(&self, state: &mut AgentState, bit: u32, stimulus: Stimulus) -> bool {
        match state.decider.stimuli.get_mut(bit as usize) {
            Some(slot) => {
                *slot = Some(stimulus);
                true
            }
            None => false,
        }
    }

    /// Removes stimulus `bit` (decider model).
    pub fn remove_stimulus(&self, state: &mut AgentState, bit: u32) {
        if let Some(slot) = state.decider.stimuli.get_mut(bit as usize) {
            *slot = None;
        }
    }

    /// The agent's decider-model state, as every engine reports it; `None` in other models.
    pub fn decider_view(&self, state: &AgentState) -> Option<DeciderView> {
        matches!(self.tree.config.model, Model::Decider { .. })
            .then(|| decider::view(self.tree, &state.decider))
    }

    /// Whether the agent's last tick ended with the decider model's loop guard.
    pub fn loop_guard(&self, state: &AgentState) -> bool {
        state.decider.guard
    }

    /// Resets `state` as the dialect's game does, exactly as [`btvm::Program::reset`]: in the
    /// running-list model only the running list and the current action
    /// ([`AgentState::reset_behavior`]); elsewhere the state becomes fresh (Drag\[en\]gine
    /// `reset()`: the cursor on the root, a stopped tree running again). Group scopes the agent
    /// holds are not left: use [`Interpreter::reset_with_scopes`] for trees that use them.
    pub fn reset(&self, state: &mut AgentState) {
        if matches!(self.tree.config.model, Model::RunningList { .. }) {
            state.reset_behavior();
        } else {
            *state = self.new_agent(state.agent);
        }
    }

    /// [`Interpreter::reset`] that first leaves every group scope the agent holds in `scopes`,
    /// without terminate calls (`spec/mbt.md` 2.6).
    pub fn reset_with_scopes(&self, state: &mut AgentState, scopes: &mut Scopes) {
        lifecycle::release(self.tree, state, scopes);
        self.reset(state);
    }

    /// Restarts the agent's tree as its game does, at time `now`, exactly as
    /// [`btvm::Engine::restart_agent`]: in the lifecycle (MBT) model the live tree is first
    /// terminated, innermost first, with its host calls (a running action's `exit`, a hooks
    /// exit call, a group scope left in `scopes`; `spec/mbt.md` 2.7); then the state is reset
    /// as [`Interpreter::reset_with_scopes`] does. `Host::before_tick` is not called.
    pub fn restart(
        &self,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
        scopes: &mut Scopes,
    ) {
        if let (Model::Lifecycle, Some(root)) = (self.tree.config.model, self.tree.main_root()) {
            lifecycle::Tick {
                interp: self,
                state: &mut *state,
                host,
                scopes: &mut *scopes,
                now,
                changed_before: false,
            }
            .terminate_tree(root);
        }
        self.reset_with_scopes(state, scopes);
    }

    /// The cursor model's rule id of rule `rule` (the name of the rule's top node).
    pub fn rule_id(&self, rule: u32) -> Option<&str> {
        let top = *self.rules.as_ref()?.tops.get(rule as usize)?;
        self.tree.node(top).name.as_deref()
    }

    /// The cursor model's rule whose id is `id`.
    pub fn rule_named(&self, id: &str) -> Option<u32> {
        self.rules.as_ref()?.named(self.tree, id)
    }

    /// Saves where the cursor of `state` rests, by rule id, and whether its tree is stopped
    /// (cursor model), exactly as [`btvm::Program::snapshot`] does for a compiled agent.
    pub fn snapshot(&self, state: &AgentState) -> Result<CursorSnapshot, SnapshotError> {
        if self.rules.is_none() {
            return Err(SnapshotError::NotCursorModel);
        }
        let rule = if state.no_rule {
            None
        } else {
            let id = self
                .rule_id(state.cursor)
                .ok_or(SnapshotError::NoRuleId { rule: state.cursor })?;
            Some(id.to_string())
        };
        Ok(CursorSnapshot {
            rule,
            first_run: state.first_run,
            failed: state.halt.is_some(),
        })
    }

    /// Restores a saved cursor into `state`, as [`btvm::Program::restore`] does: a known id
    /// becomes the cursor, an unknown one leaves no current rule, no id keeps the cursor;
    /// `first_run` and the stop are the record's.
    pub fn restore(
        &self,
        state: &mut AgentState,
        snap: &CursorSnapshot,
    ) -> Result<(), SnapshotError> {
        if self.rules.is_none() {
            return Err(SnapshotError::NotCursorModel);
        }
        if let Some(id) = &snap.rule {
            match self.rule_named(id) {
                Some(r) => {
                    state.cursor = r;
                    state.no_rule = false;
                }
                None => state.no_rule = true,
            }
        }
        state.first_run = snap.first_run;
        state.halt = snap.failed.then_some(Halt::Stopped);
        Ok(())
    }

    /// Whether `e` holds for the agent at `now`.
    pub(crate) fn test(
        &self,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
        e: &Expr,
    ) -> bool {
        self.eval_ctx(state, now).eval(e, host).truthy()
    }

    /// Calls action `call` with `phase` for the agent at `now`, its arguments evaluated left
    /// to right.
    pub(crate) fn call_action(
        &self,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
        call: &CallExpr,
        phase: Phase,
    ) -> Status {
        let args = self.eval_ctx(state, now).args(&call.args, host);
        let c = Call::new(state.agent, call.import, phase, &args, now, &self.strings);
        host.action(&c)
    }

    /// What expressions read for `state` at time `now` (shared by every model).
    pub(crate) fn eval_ctx<'a>(
        &'a self,
        state: &'a mut AgentState,
        now: Millis,
    ) -> eval::EvalCtx<'a> {
        eval::EvalCtx {
            tree: self.tree,
            strings: &self.strings,
            agent: state.agent,
            now,
            vars: &state.vars,
            stamps: &state.stamps,
            rng: &mut state.rng,
        }
    }

    /// Ticks the main tree once for one agent at time `now`.
    ///
    /// A lifecycle (MBT) tree that uses group scopes sees an empty scope table on every call:
    /// agents that compete for scopes must be ticked with
    /// [`Interpreter::tick_with_scopes`] and one shared [`Scopes`].
    pub fn tick(&self, state: &mut AgentState, host: &mut dyn Host, now: Millis) -> Status {
        self.tick_with_scopes(state, host, now, &mut Scopes::new())
    }

    /// Ticks the main tree once for one agent at time `now`, with the group-scope table
    /// `scopes` shared by every agent of the run (`spec/mbt.md` 2.6; only lifecycle trees
    /// use it).
    pub fn tick_with_scopes(
        &self,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
        scopes: &mut Scopes,
    ) -> Status {
        let Some(root) = self.tree.main_root() else {
            return Status::Failure;
        };
        host.before_tick(state.agent);
        match self.tree.config.model {
            Model::Lifecycle => lifecycle::Tick {
                interp: self,
                state,
                host,
                scopes,
                now,
                changed_before: false,
            }
            .update_agent(root),
            Model::Selection => selection::Update {
                interp: self,
                state,
                host,
                now,
                previous: None,
            }
            .run(root),
            _ => self.run_root(root, state, host, now),
        }
    }

    /// [`Interpreter::tick`] telling `observer` every decision of a decider (Spore) tree, as
    /// S11's debug output hooks do; other models tick without events.
    pub fn tick_observed(
        &self,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
        observer: &mut dyn Observer,
    ) -> Status {
        match (self.tree.config.model, self.tree.main_root()) {
            (Model::Decider { redecide_limit }, Some(root)) => {
                host.before_tick(state.agent);
                decider::Tick::begin(self, state, host, now, redecide_limit, Some(observer))
                    .run_observed(root)
            }
            _ => self.tick(state, host, now),
        }
    }

    /// Runs the named entry point once (Unvanquished `selectClass`); `None` if the tree has no
    /// such entry, and in the lifecycle and selection models, which run only the main tree.
    pub fn run_entry(
        &self,
        entry: &str,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
    ) -> Option<Status> {
        if matches!(self.tree.config.model, Model::Lifecycle | Model::Selection) {
            return None;
        }
        let root = self.tree.entry(entry)?;
        Some(self.run_root(root, state, host, now))
    }

    fn run_root(
        &self,
        root: NodeId,
        state: &mut AgentState,
        host: &mut dyn Host,
        now: Millis,
    ) -> Status {
        match self.tree.config.model {
            Model::RunningList { capacity } => running_list::Tick {
                interp: self,
                state,
                host,
                now,
                capacity: capacity as usize,
            }
            .evaluate(root),
            Model::Cursor { runaway_limit } => match &self.rules {
                Some(rules) => cursor::Step {
                    interp: self,
                    rules,
                    state,
                    host,
                    now,
                    limit: runaway_limit,
                }
                .step(),
                None => Status::Failure,
            },
            Model::Decider { redecide_limit } => {
                decider::Tick::begin(self, state, host, now, redecide_limit, None).run(root)
            }
            _ => Status::Failure,
        }
    }
}

/// Whether a node kind is a host action (for the running-list bookkeeping).
pub(crate) fn is_action(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::Action(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::ErrorKind;
    use crate::ir::{CallExpr, Composite, Dialect, NodeBuf, Resume, TreeBuilder};
    use crate::scenario::{parse_scenario, run, EngineKind};
    use crate::source::{FileId, Span};
    use btvm::{Import, ImportKind};

    fn action(b: &mut TreeBuilder, name: &str) -> NodeBuf {
        let import = b.import(Import {
            name: name.into(),
            kind: ImportKind::Action,
            min_args: 0,
            max_args: 0,
            long_running: true,
            claims: btvm::SlotClaims::default(),
            script: None,
        });
        NodeBuf::leaf(
            NodeKind::Action(CallExpr {
                import,
                args: vec![],
            }),
            Span::DUMMY,
        )
    }

    fn composite(seq: bool, resume: Resume, children: Vec<NodeBuf>) -> NodeBuf {
        let c = Composite {
            resume,
            looping: false,
            cond: None,
        };
        let kind = if seq {
            NodeKind::Sequence(c)
        } else {
            NodeKind::Selector(c)
        };
        NodeBuf::new(kind, Span::DUMMY, children)
    }

    /// The running list makes a sequence resume at its running child and, after that child
    /// fails, still skip the earlier children (the stale-list quirk).
    #[test]
    fn sequence_resumes_and_keeps_a_stale_list_after_failure() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        let (a, c) = (action(&mut b, "a"), action(&mut b, "b"));
        b.root("main", composite(true, Resume::RunningList, vec![a, c]));
        let tree = b.finish().unwrap();
        let scn =
            parse_scenario(FileId(0), "ticks 3\nanswer b = running, failure, success\n").unwrap();
        let trace = run(&tree, &scn, EngineKind::Reference).unwrap();
        let expected =
            "tick 0 now 0\n  a() enter -> success\n  b() enter -> running\n  root running\n\
                        tick 1 now 100\n  b() continue -> failure\n  root failure\n\
                        tick 2 now 200\n  b() enter -> success\n  root success\n";
        assert_eq!(trace.to_string(), expected);
    }

    #[test]
    fn selector_preempts_and_the_current_slot_survives() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        let (hi, lo) = (action(&mut b, "hi"), action(&mut b, "lo"));
        b.root("main", composite(false, Resume::Restart, vec![hi, lo]));
        let tree = b.finish().unwrap();
        let scn = parse_scenario(
            FileId(0),
            "ticks 3\nanswer hi = failure, failure, failure\nanswer lo = running\n",
        )
        .unwrap();
        let trace = run(&tree, &scn, EngineKind::Reference).unwrap();
        let lines: Vec<&str> = trace.lines().iter().map(String::as_str).collect();
        assert_eq!(lines[1], "hi() enter -> failure");
        assert_eq!(lines[2], "lo() enter -> running");
        assert_eq!(lines[6], "lo() continue -> running");
    }

    /// Caught by `tests/reference_props.rs`: a hand-built tree whose subtree includes itself
    /// made the interpreter recurse until the stack overflowed; `new` now runs `check` first.
    #[test]
    fn self_including_trees_are_rejected_not_recursed() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        let s = b.declare_subtree("s", crate::ir::Sharing::Shared, Span::DUMMY);
        b.root("main", NodeBuf::leaf(NodeKind::Include(s), Span::DUMMY));
        b.define_subtree(s, NodeBuf::leaf(NodeKind::Include(s), Span::DUMMY));
        let tree = b.finish().unwrap();
        assert_eq!(
            Interpreter::new(&tree).unwrap_err().kind,
            ErrorKind::IncludeCycle
        );
    }

    #[test]
    fn kinds_outside_a_model_are_reported_unsupported() {
        let mut b = TreeBuilder::new(Dialect::Mbt);
        b.root(
            "main",
            NodeBuf::new(
                NodeKind::Cooldown(crate::ir::Cooldown { ms: 5 }),
                Span::DUMMY,
                vec![NodeBuf::leaf(NodeKind::Const(Status::Success), Span::DUMMY)],
            ),
        );
        let tree = b.finish().unwrap();
        assert_eq!(
            Interpreter::new(&tree).unwrap_err().kind,
            ErrorKind::Unsupported
        );
    }
}
