//! MBT node elements to IR nodes (`spec/mbt.md` sections 1.3 and 3).
//!
//! [`Nodes::node`] reads a node and everything under it without recursing, keeping the elements
//! being read on a heap stack. For each element, [`Nodes::shell`] checks the IR depth the node
//! will have against `Limits::max_depth` and the node count against `Limits::max_nodes`
//! *before* anything else (so the stack is bounded by the depth limit whatever the input), then
//! the tag, the attributes, the number of children and the attribute values; its children are
//! read after it. Priority cases and state-machine states are read here too, as they are part of
//! their parent's grammar. The `_startLog` family wraps the node in a `logstatus`.
//!
//! Each element's error is the first one found in it, positioned at the element (its start
//! tag) or the attribute at fault. A child element with an error is reported and read past
//! (a placeholder takes its place, its own children are not read) so its siblings' errors are
//! reported too; a limit (depth, node count) stops the file. This file never reads files and
//! never prints.

use std::collections::HashMap;

use btvm::{BinOp, Limits, Status};
use roxmltree::Node;

use super::kinds::{Kind, Lookup, Shape, COMMENT, LOG_ATTRS};
use super::lua::Snippets;
use super::profile::{self, ProfileNode};
use super::sections::Names;
use super::time::{self, Compare, NumError};
use super::xml::{elements, Attr, PResult, Src};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{
    Arg, CallExpr, Composite, Expr, GroupScope, Guard, GuardEval, Hooks, Lit, LogStatus, Loop,
    NodeBuf, NodeKind, Parallel, Priority, Quorum, Resume, SendEvent, StateNode, StatusMap,
    Transition, TreeBuilder, Trigger, Wait, WaitForEvent,
};
use crate::source::Span;
use crate::syntax::cryexpr::{self, Undeclared};
use crate::syntax::profile::{checked_against, Profile};

/// The node builder of one file.
pub(super) struct Nodes<'a, 't> {
    /// The file.
    pub src: Src<'t>,
    /// The limits.
    pub limits: &'a Limits,
    /// The load's profile, when it declares MBT nodes.
    pub profile: Option<&'a Profile>,
    /// Declared variables and timestamps.
    pub names: &'a Names,
    /// The tree being built (for its import table).
    pub tree: &'a mut TreeBuilder,
    /// The Lua snippets met so far.
    pub lua: Snippets,
    /// IR nodes built so far.
    pub count: usize,
    /// What the original logs while loading the tree anyway, in document order.
    pub warnings: Vec<Diagnostic>,
    /// The errors of node elements read past (see [`Nodes::node`]), in document order.
    pub errors: Vec<Diagnostic>,
}

/// A `map` that turns failure into success (`SuppressFailure`, and `ExecuteLua` around its
/// snippet).
const SUPPRESS: StatusMap = StatusMap {
    failure: Status::Success,
    success: Status::Success,
    running: Status::Running,
};

/// One element read up to its child nodes (see [`Nodes::shell`]).
struct Shell<'a, 'i> {
    /// The node, with any children it makes itself (ExecuteLua's condition).
    node: NodeBuf,
    /// Its IR depth.
    depth: u32,
    /// The child node elements, in order.
    children: Vec<Child<'a, 'i>>,
    /// How many of them are built (and pushed onto `node`'s children).
    built: usize,
    /// Its status logs, wrapped around it once it is complete.
    log: Option<LogStatus>,
}

/// A child node element still to read, possibly inside a `case` or `state` of its parent's.
struct Child<'a, 'i> {
    /// The element.
    el: Node<'a, 'i>,
    /// The `case` or `state` (without children yet) it goes in.
    wrap: Option<NodeBuf>,
}

impl<'t> Nodes<'_, 't> {
    fn err(&self, kind: ErrorKind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(kind, span, message)
    }

    /// Whether reading goes on after `d`: not after a limit, nor past `Limits::max_errors`.
    fn recoverable(&self, d: &Diagnostic) -> bool {
        !matches!(d.kind, ErrorKind::NestTooDeep | ErrorKind::TooManyNodes)
            && self.errors.len() < self.limits.max_errors
    }

    /// Checks the IR depth and counts `n` more IR nodes, at `span`.
    fn room(&mut self, depth: u32, n: usize, span: Span) -> PResult<()> {
        if depth > self.limits.max_depth {
            return Err(self.err(
                ErrorKind::NestTooDeep,
                span,
                format!(
                    "nodes are nested more than {} levels deep",
                    self.limits.max_depth
                ),
            ));
        }
        self.count = self.count.saturating_add(n);
        if self.count > self.limits.max_nodes {
            return Err(self.err(
                ErrorKind::TooManyNodes,
                span,
                format!("the tree has more than {} nodes", self.limits.max_nodes),
            ));
        }
        Ok(())
    }

    /// Reads the node element `el`, whose parent IR node is at depth `parent_depth` (0 for
    /// the root), and all the nodes under it.
    ///
    /// Nothing recurses: the elements being read are kept on a heap stack of [`Shell`]s, each
    /// read by [`Nodes::shell`] (which checks the depth limit) before its children are.
    ///
    /// A child element whose own reading fails for anything but a limit is recorded in
    /// [`Nodes::errors`] and replaced by a placeholder leaf, so the rest of the file is read.
    pub fn node(&mut self, el: Node<'_, 't>, parent_depth: u32) -> PResult<NodeBuf> {
        let mut stack = vec![self.shell(el, parent_depth)?];
        while let Some(top) = stack.last_mut() {
            if let Some(c) = top.children.get(top.built) {
                let depth = top.depth.saturating_add(u32::from(c.wrap.is_some()));
                let child = c.el;
                let shell = match self.shell(child, depth) {
                    Ok(shell) => shell,
                    Err(d) if self.recoverable(&d) => {
                        self.errors.push(d);
                        Shell {
                            node: NodeBuf::leaf(
                                NodeKind::Const(Status::Failure),
                                self.src.start_tag(child),
                            ),
                            depth,
                            children: Vec::new(),
                            built: 0,
                            log: None,
                        }
                    }
                    Err(d) => return Err(d),
                };
                stack.push(shell);
                continue;
            }
            let Some(done) = stack.pop() else { break };
            let node = match done.log {
                None => done.node,
                Some(l) => NodeBuf::new(NodeKind::LogStatus(l), done.node.span, vec![done.node]),
            };
            let Some(parent) = stack.last_mut() else {
                return Ok(node);
            };
            let wrap = parent
                .children
                .get_mut(parent.built)
                .and_then(|c| c.wrap.take());
            let child = match wrap {
                None => node,
                Some(mut w) => {
                    w.children.push(node);
                    w
                }
            };
            parent.node.children.push(child);
            parent.built += 1;
        }
        // Not reached: the loop returns when it pops the last shell.
        Err(self.err(ErrorKind::Syntax, self.src.start_tag(el), "no node"))
    }

    /// Reads the element `el` up to its child nodes: depth and count, tag, attributes, child
    /// count, values; the children are left for [`Nodes::node`].
    fn shell<'a>(&mut self, el: Node<'a, 't>, parent_depth: u32) -> PResult<Shell<'a, 't>> {
        let span = self.src.start_tag(el);
        let tag = self.src.tag(el);
        let lookup = Kind::lookup(tag, self.profile.and_then(|p| p.mbt()));
        // Only nodes whose LoadFromXml reaches the base `Node::LoadFromXml` read the log
        // attributes (`Kind::reads_logs`). An empty message logs nothing, as `Node::Tick` tests
        // `!m_startLog.empty()`, so it is left out.
        let reads_logs = match lookup {
            Lookup::Found(k) => k.reads_logs(),
            _ => false,
        };
        let logs: Vec<Attr> = LOG_ATTRS
            .iter()
            .filter(|_| reads_logs)
            .filter_map(|name| self.src.find(el, name))
            .filter(|a| !a.value.is_empty())
            .collect();
        let logged = !logs.is_empty();
        let depth = parent_depth
            .saturating_add(1)
            .saturating_add(u32::from(logged));
        self.room(depth, 1 + usize::from(logged), span)?;
        let kind = match lookup {
            Lookup::Found(Kind::Graft) => {
                return Err(self.err(
                    ErrorKind::Unsupported,
                    span,
                    "`<Graft>` is not supported: it runs a tree the game supplies at run time",
                ))
            }
            Lookup::Found(k) => k,
            Lookup::NeedsProfile => {
                return Err(self
                    .err(
                        ErrorKind::UnknownName,
                        span,
                        format!("unknown node type `{tag}`"),
                    )
                    .with_note(format!(
                        "`{tag}` is a GameSDK node: load the tree with the GameSDK profile"
                    )))
            }
            Lookup::Unknown => {
                let d = self
                    .err(
                        ErrorKind::UnknownName,
                        span,
                        format!("unknown node type `{tag}`"),
                    )
                    .with_note("node types are case-sensitive");
                let d = match self.profile.and_then(|p| Some((p.name(), p.mbt()?))) {
                    Some((name, nodes)) => {
                        checked_against(d, "node tags", name, tag, nodes.tags().map(|(t, _)| t))
                    }
                    None => d,
                };
                return Err(d);
            }
        };
        if let Some(attrs) = kind.attrs() {
            let known: Vec<&str> = attrs
                .iter()
                .chain(LOG_ATTRS.iter())
                .copied()
                .chain([COMMENT])
                .collect();
            self.src.check_attrs(el, &known)?;
        }
        let elements: Vec<Node> = elements(el).collect();
        self.arity(el, tag, kind.shape(), &elements)?;
        let (node, children) = match kind {
            Kind::Priority => {
                let kind = NodeKind::Priority(Priority {
                    repick: GuardEval::OnChange,
                });
                (NodeBuf::leaf(kind, span), self.cases(&elements, depth)?)
            }
            Kind::StateMachine => (
                NodeBuf::leaf(NodeKind::StateMachine, span),
                self.states(&elements, depth)?,
            ),
            Kind::ExecuteLua => {
                // The snippet is a condition under a map: one level deeper, one node more.
                self.room(depth.saturating_add(1), 1, span)?;
                let code = self.src.required(el, "code")?;
                let call = self.lua.expr(self.tree, code.value);
                let cond = NodeBuf::leaf(NodeKind::Condition(call), span);
                let map = NodeBuf::new(NodeKind::MapStatus(SUPPRESS), span, vec![cond]);
                (map, Vec::new())
            }
            _ => {
                let node = NodeBuf::leaf(self.kind(el, kind)?, span);
                let children = elements
                    .into_iter()
                    .map(|el| Child { el, wrap: None })
                    .collect();
                (node, children)
            }
        };
        let log = logged.then(|| {
            let text = |name: &str| {
                logs.iter()
                    .find(|a| a.name.eq_ignore_ascii_case(name))
                    .map(|a| a.value.to_string())
            };
            LogStatus {
                start: text("_startLog"),
                success: text("_successLog"),
                failure: text("_failureLog"),
            }
        });
        Ok(Shell {
            node,
            depth,
            children,
            built: 0,
            log,
        })
    }

    /// Checks the number of child elements against the type's shape.
    fn arity(&self, el: Node, tag: &str, shape: Shape, children: &[Node]) -> PResult<()> {
        let span = self.src.start_tag(el);
        match shape {
            Shape::Composite(_) if children.is_empty() => Err(self.err(
                ErrorKind::Arity,
                span,
                format!("`<{tag}>` needs at least one child"),
            )),
            Shape::Composite(max) if children.len() > max => Err(self
                .err(
                    ErrorKind::LimitExceeded,
                    span,
                    format!(
                        "`<{tag}>` has {} children; it can have at most {max}",
                        children.len()
                    ),
                )
                .with_label(
                    self.src.start_tag(children[max]),
                    format!("child {}", max + 1),
                )),
            Shape::Decorator if children.len() != 1 => {
                let at = children.get(1).map_or(span, |c| self.src.start_tag(*c));
                Err(self.err(
                    ErrorKind::Arity,
                    at,
                    format!("`<{tag}>` takes exactly one child, not {}", children.len()),
                ))
            }
            Shape::Leaf if !children.is_empty() => Err(self.err(
                ErrorKind::Arity,
                self.src.start_tag(children[0]),
                format!("`<{tag}>` takes no children"),
            )),
            _ => Ok(()),
        }
    }

    /// The IR kind of a node that is not a Priority or StateMachine.
    fn kind(&mut self, el: Node<'_, 't>, kind: Kind) -> PResult<NodeKind> {
        let remember = Composite {
            resume: Resume::Remember,
            looping: false,
            cond: None,
        };
        Ok(match kind {
            Kind::Sequence => NodeKind::Sequence(remember),
            Kind::Selector => NodeKind::Selector(remember),
            Kind::Parallel => self.parallel(el),
            Kind::Loop | Kind::LoopUntilSuccess => self.loop_(el, kind)?,
            Kind::SendEvent | Kind::SendTransitionEvent => self.send_event(el, kind)?,
            Kind::IfCondition => self.if_condition(el)?,
            Kind::AssertCondition => NodeKind::Condition(self.condition_attr(el)?),
            Kind::MonitorCondition => NodeKind::WaitUntil(self.condition_attr(el)?),
            Kind::RandomGate => self.random_gate(el)?,
            Kind::Timeout | Kind::Wait => self.wait(el, kind)?,
            Kind::WaitForEvent => self.wait_for_event(el)?,
            Kind::IfTime => on_entry(self.time_condition(el, "orNeverBeenSet")?),
            Kind::AssertTime => NodeKind::Condition(self.time_condition(el, "orNeverBeenSet")?),
            Kind::WaitUntilTime => {
                NodeKind::WaitUntil(self.time_condition(el, "succeedIfNeverBeenSet")?)
            }
            Kind::Fail => NodeKind::Const(Status::Failure),
            Kind::Halt => NodeKind::Const(Status::Running),
            Kind::Breakpoint => NodeKind::Const(Status::Success),
            Kind::SuppressFailure => NodeKind::MapStatus(SUPPRESS),
            Kind::Log => self.log(el),
            Kind::AssertLua => NodeKind::Condition(self.lua_code(el)?),
            Kind::LuaGate => on_entry(self.lua_code(el)?),
            Kind::LuaWrapper => self.lua_wrapper(el),
            Kind::GroupScope => self.group_scope(el)?,
            Kind::Profile(p) => self.profile_node(el, p)?,
            Kind::Priority | Kind::StateMachine | Kind::ExecuteLua | Kind::Graft => {
                // Built by `node` itself; never reached.
                NodeKind::Const(Status::Failure)
            }
        })
    }

    fn parallel(&mut self, el: Node<'_, 't>) -> NodeKind {
        NodeKind::Parallel(Parallel {
            success: self.quorum(el, "successMode", Quorum::All),
            failure: self.quorum(el, "failureMode", Quorum::Any),
            stop_on_failure: false,
            remember: true,
        })
    }

    /// `Loop` (until failure, `count`) and `LoopUntilSuccess` (`attemptCount`).
    fn loop_(&mut self, el: Node<'_, 't>, kind: Kind) -> PResult<NodeKind> {
        let (attr, exit_on) = if kind == Kind::Loop {
            ("count", Status::Failure)
        } else {
            ("attemptCount", Status::Success)
        };
        let count = match self.src.find(el, attr) {
            None => 0,
            Some(a) => self.read(&a, time::uint8(a.value), "a count", "strtoul")?,
        };
        Ok(NodeKind::Loop(Loop {
            count: (count > 0).then_some(u32::from(count)),
            exit_on,
        }))
    }

    /// `SendEvent` and `SendTransitionEvent`.
    // SendEvent::LoadFromXml and WaitForEvent::LoadFromXml refuse an absent or empty
    // `name` (BehaviorTreeNodes_Core.cpp, 8b63f61c).
    fn send_event(&mut self, el: Node<'_, 't>, kind: Kind) -> PResult<NodeKind> {
        Ok(NodeKind::SendEvent(SendEvent {
            event: self.nonempty(el, "name")?.value.to_string(),
            then: if kind == Kind::SendEvent {
                Status::Success
            } else {
                Status::Running
            },
        }))
    }

    /// The required `condition` attribute, parsed.
    fn condition_attr(&mut self, el: Node<'_, 't>) -> PResult<Expr> {
        let a = self.src.required(el, "condition")?;
        self.condition(&a)
    }

    fn if_condition(&mut self, el: Node<'_, 't>) -> PResult<NodeKind> {
        let src = self.src;
        let cond = self.condition_attr(el)?;
        // IfCondition::LoadFromXml (BehaviorTreeNodes_Core.cpp, 8b63f61c) reads
        // `equalTo` with `getAttr(bool)` and logs a deprecation warning when present.
        let cond = match src.find(el, "equalTo") {
            Some(a) => {
                self.warnings.push(Diagnostic::warning(
                    ErrorKind::InvalidValue,
                    a.span,
                    "the attribute `equalTo` is deprecated: write the comparison in the \
                     condition",
                ));
                if time::boolean(a.value) {
                    cond
                } else {
                    Expr::Not(Box::new(cond))
                }
            }
            None => cond,
        };
        Ok(on_entry(cond))
    }

    fn random_gate(&mut self, el: Node<'_, 't>) -> PResult<NodeKind> {
        let a = self.src.required(el, "opensWithChance")?;
        let p = self.read(&a, time::chance(a.value), "a chance", "atof")?;
        // A NaN chance: no draw is `<=` it; -1 keeps the draw and never opens.
        Ok(on_entry(Expr::binary(
            BinOp::Le,
            Expr::Random,
            Expr::Lit(Lit::Float(p.unwrap_or(-1.0))),
        )))
    }

    /// `Timeout` and `Wait`.
    fn wait(&mut self, el: Node<'_, 't>, kind: Kind) -> PResult<NodeKind> {
        let src = self.src;
        let (units, negative) = self.seconds(&src.required(el, "duration")?)?;
        // `Wait::OnInitialize` starts the timer only if the float `m_duration >= 0.0f`
        // (`-0.000001` is 0 units but negative: never); `Timeout` always starts it.
        let time = if kind == Kind::Wait && negative {
            -1
        } else {
            units
        };
        let variation = match src.find(el, "variation").filter(|_| kind == Kind::Wait) {
            None => 0,
            Some(a) => {
                let (v, _) = self.seconds(&a)?;
                u32::try_from(v).map_err(|_| {
                    self.err(
                        ErrorKind::InvalidValue,
                        a.value_span,
                        format!(
                            "`variation` must be 0 to {} seconds, not `{}`",
                            u64::from(u32::MAX) / 100_000,
                            a.value
                        ),
                    )
                })?
            }
        };
        Ok(NodeKind::Wait(Wait {
            time,
            variation,
            result: if kind == Kind::Wait {
                Status::Success
            } else {
                Status::Failure
            },
        }))
    }

    fn wait_for_event(&mut self, el: Node<'_, 't>) -> PResult<NodeKind> {
        let event = self.nonempty(el, "name")?.value.to_string();
        let result = match self.src.find(el, "result") {
            None => Status::Success,
            // WaitForEvent::LoadFromXml (BehaviorTreeNodes_Core.cpp, 8b63f61c): an
            // empty value is the default; the names compare case-sensitively.
            Some(a) if a.value.is_empty() || a.value == "Success" => Status::Success,
            Some(a) if a.value == "Failure" => Status::Failure,
            Some(a) => {
                return Err(self.err(
                    ErrorKind::InvalidValue,
                    a.value_span,
                    format!(
                        "`result` is `Success` or `Failure` (case-sensitive), not `{}`",
                        a.value
                    ),
                ))
            }
        };
        Ok(NodeKind::WaitForEvent(WaitForEvent { event, result }))
    }

    // Log::LoadFromXml (BehaviorTreeNodes_Core.cpp, 8b63f61c) reads `message` with
    // `getAttr`, which gives "" when it is absent.
    fn log(&mut self, el: Node<'_, 't>) -> NodeKind {
        NodeKind::Log(
            self.src
                .find(el, "message")
                .map_or(String::new(), |a| a.value.to_string()),
        )
    }

    /// The required `code` attribute, as a Lua snippet's condition.
    fn lua_code(&mut self, el: Node<'_, 't>) -> PResult<Expr> {
        let code = self.src.required(el, "code")?;
        Ok(self.lua.expr(self.tree, code.value))
    }

    fn lua_wrapper(&mut self, el: Node<'_, 't>) -> NodeKind {
        let mut hooks = Hooks {
            enter: None,
            exit: None,
        };
        // The first `onEnter` and `onExit` in any case; snippets are numbered in
        // document order.
        let (mut seen_enter, mut seen_exit) = (false, false);
        for a in self.src.attrs(el) {
            let slot = if !seen_enter && a.name.eq_ignore_ascii_case("onEnter") {
                seen_enter = true;
                &mut hooks.enter
            } else if !seen_exit && a.name.eq_ignore_ascii_case("onExit") {
                seen_exit = true;
                &mut hooks.exit
            } else {
                continue;
            };
            if !a.value.is_empty() {
                *slot = Some(self.lua.call(self.tree, a.value));
            }
        }
        NodeKind::Hooks(hooks)
    }

    fn group_scope(&mut self, el: Node<'_, 't>) -> PResult<NodeKind> {
        // `GroupScope::LoadFromXml` (BehaviorTreeNodes_AI.cpp, 8b63f61c) refuses an
        // empty name and reads the limit into a `uint32` through `strtoul`.
        let scope = self.nonempty(el, "name")?.value.to_string();
        let max_users = match self.src.find(el, "allowedConcurrentUsers") {
            None => 1,
            Some(a) => self.read(&a, time::uint32(a.value), "a count", "strtoul")?,
        };
        Ok(NodeKind::GroupScope(GroupScope { scope, max_users }))
    }

    /// A game profile's node: an action, or a wrapper calling it on enter and exit.
    fn profile_node(&mut self, el: Node<'_, 't>, p: ProfileNode) -> PResult<NodeKind> {
        let call = self.profile_call(el)?;
        Ok(match p {
            ProfileNode::Leaf => NodeKind::Action(call),
            ProfileNode::Wrapper => NodeKind::Hooks(Hooks {
                enter: Some(call.clone()),
                exit: Some(call),
            }),
        })
    }

    /// A Priority's `<Case>` elements: each child node under its `case`.
    fn cases<'a>(&mut self, cases: &[Node<'a, 't>], depth: u32) -> PResult<Vec<Child<'a, 't>>> {
        let case_depth = depth.saturating_add(1);
        let mut out = Vec::with_capacity(cases.len());
        for &case in cases {
            let span = self.src.start_tag(case);
            if !self.src.is_tag(case, "Case") {
                return Err(self
                    .err(
                        ErrorKind::Syntax,
                        span,
                        format!(
                            "a `<Priority>` holds only `<Case>` elements, not `<{}>`",
                            self.src.tag(case)
                        ),
                    )
                    .with_note("write `<Case condition=\"...\">` around each child node"));
            }
            self.room(case_depth, 1, span)?;
            self.src.check_attrs(case, &["condition"])?;
            let children: Vec<Node> = elements(case).collect();
            // Case::LoadFromXml (BehaviorTreeNodes_Core.cpp, 8b63f61c) tests
            // `!xml->getChildCount() == 1`, which only rejects a Case without children, and
            // loads the first child: further children are never read.
            if children.is_empty() {
                self.arity(case, "Case", Shape::Decorator, &children)?;
            }
            if let Some(extra) = children.get(1) {
                self.warnings.push(Diagnostic::warning(
                    ErrorKind::Arity,
                    self.src.start_tag(*extra),
                    format!(
                        "a `<Case>` runs its first child only: this one and the {} after it \
                         are never loaded",
                        children.len() - 2
                    ),
                ));
            }
            // Only an absent or empty condition is `true`: Case::LoadFromXml tests
            // `conditionString.empty()`, and a blank one fails to parse (8b63f61c).
            let cond = match self.src.find(case, "condition") {
                Some(a) if !a.value.is_empty() => self.condition(&a)?,
                _ => Expr::Lit(Lit::Bool(true)),
            };
            out.push(Child {
                el: children[0],
                wrap: Some(NodeBuf::leaf(NodeKind::Case(cond), span)),
            });
        }
        Ok(out)
    }

    /// A StateMachine's `<State>` elements: each state's node under its `state`.
    fn states<'a>(&mut self, states: &[Node<'a, 't>], depth: u32) -> PResult<Vec<Child<'a, 't>>> {
        let state_depth = depth.saturating_add(1);
        // State names, case-insensitively; the first of two equal names wins, as a lookup by
        // name in the original finds the first.
        let mut index: HashMap<String, u32> = HashMap::new();
        for (i, &state) in states.iter().enumerate() {
            let span = self.src.start_tag(state);
            if !self.src.is_tag(state, "State") {
                return Err(self.err(
                    ErrorKind::Syntax,
                    span,
                    format!(
                        "a `<StateMachine>` holds only `<State>` elements, not `<{}>`",
                        self.src.tag(state)
                    ),
                ));
            }
            self.src.check_attrs(state, &["name"])?;
            let name = self.src.required(state, "name")?;
            index
                .entry(name.value.to_ascii_lowercase())
                .or_insert(i as u32);
        }
        let mut out = Vec::with_capacity(states.len());
        for &state in states {
            let span = self.src.start_tag(state);
            self.room(state_depth, 1, span)?;
            let mut transitions_el = None;
            let mut tree_el = None;
            // State::LoadFromXml (BehaviorTreeNodes_Core.cpp, 8b63f61c) finds its parts with
            // `findChild`: the first of each is read, other elements are never looked at. btvm
            // warns about them (**Definition**: the original is silent).
            for part in elements(state) {
                let tag = self.src.tag(part);
                let slot = match tag {
                    t if t.eq_ignore_ascii_case("Transitions") => &mut transitions_el,
                    t if t.eq_ignore_ascii_case("BehaviorTree") => &mut tree_el,
                    other => {
                        self.warnings.push(Diagnostic::warning(
                            ErrorKind::Syntax,
                            self.src.start_tag(part),
                            format!(
                                "a `<State>` reads only `<Transitions>` and `<BehaviorTree>`; \
                                 `<{other}>` is ignored"
                            ),
                        ));
                        continue;
                    }
                };
                if slot.is_some() {
                    self.warnings.push(Diagnostic::warning(
                        ErrorKind::Syntax,
                        self.src.start_tag(part),
                        format!("a second `<{tag}>` in a `<State>` is ignored; the first is read"),
                    ));
                    continue;
                }
                *slot = Some(part);
            }
            let mut transitions = Vec::new();
            if let Some(ts) = transitions_el {
                self.src.check_attrs(ts, &[])?;
                for t in elements(ts) {
                    // State::LoadFromXml (BehaviorTreeNodes_Core.cpp, 8b63f61c) reads every
                    // child of `<Transitions>` as a transition, whatever its tag.
                    // `to`, then `onEvent`, each absent or empty, fails the load
                    // (Transition::LoadFromXml).
                    self.src.check_attrs(t, &["onEvent", "to"])?;
                    let to = self.nonempty(t, "to")?;
                    let event = self.nonempty(t, "onEvent")?;
                    let Some(&target) = index.get(&to.value.to_ascii_lowercase()) else {
                        return Err(self
                            .err(
                                ErrorKind::UnknownName,
                                to.value_span,
                                format!("no state `{}` in this state machine", to.value),
                            )
                            .with_note("state names are case-insensitive"));
                    };
                    transitions.push(Transition {
                        on: Trigger::Event(event.value.to_string()),
                        to: target,
                    });
                }
            }
            let Some(body) = tree_el else {
                return Err(self.err(
                    ErrorKind::Syntax,
                    span,
                    "a `<State>` needs a `<BehaviorTree>` holding its node",
                ));
            };
            self.src.check_attrs(body, &[])?;
            let children: Vec<Node> = elements(body).collect();
            self.arity(body, "BehaviorTree", Shape::Decorator, &children)?;
            let name = self.src.find(state, "name").map(|a| a.value.to_string());
            out.push(Child {
                el: children[0],
                wrap: Some(NodeBuf {
                    kind: NodeKind::State(StateNode { transitions }),
                    name,
                    span,
                    children: Vec::new(),
                }),
            });
        }
        Ok(out)
    }

    /// Attribute `name` of `el`, which must be present and not empty.
    fn nonempty<'a>(&self, el: Node<'a, 't>, name: &str) -> PResult<Attr<'a>> {
        let a = self.src.required(el, name)?;
        if a.value.is_empty() {
            return Err(self.err(
                ErrorKind::InvalidValue,
                a.value_span,
                format!("`<{}>` needs a non-empty `{name}`", self.src.tag(el)),
            ));
        }
        Ok(a)
    }

    /// A profile node's call: its attributes, but the log ones, as named string arguments.
    fn profile_call(&mut self, el: Node<'_, 't>) -> PResult<CallExpr> {
        let tag = self.src.tag(el);
        let args: Vec<Arg> = self
            .src
            .attrs(el)
            .into_iter()
            .filter(|a| !LOG_ATTRS.contains(&a.name) && a.name != COMMENT)
            .map(|a| Arg {
                name: Some(a.name.to_string()),
                value: Expr::Lit(Lit::Str(a.value.to_string())),
            })
            .collect();
        if args.len() > 255 {
            return Err(self.err(
                ErrorKind::Arity,
                self.src.start_tag(el),
                format!(
                    "`<{tag}>` has {} attributes; an action takes at most 255 arguments",
                    args.len()
                ),
            ));
        }
        let import = self.tree.import(profile::import(tag));
        Ok(CallExpr { import, args })
    }

    /// A condition attribute (section 1.5; undeclared names read as false).
    fn condition(&mut self, a: &Attr) -> PResult<Expr> {
        let names = self.names;
        let lookup = |n: &str| names.var(n);
        cryexpr::parse_reporting(
            a.value,
            a.value_span,
            &lookup,
            Undeclared::False,
            self.limits,
            &mut self.warnings,
        )
    }

    /// The time condition of IfTime, AssertTime (`never` = `orNeverBeenSet`) and
    /// WaitUntilTime (`never` = `succeedIfNeverBeenSet`).
    ///
    /// AssertTime refuses an absent or empty `since` (`AssertTime::LoadFromXml`); IfTime and
    /// WaitUntilTime test the pointer `getAttr` returns, never null, so an absent `since` is
    /// the empty name (`IfTime::LoadFromXml`, `WaitUntilTime::LoadFromXml`,
    /// BehaviorTreeNodes_Core.cpp, 8b63f61c).
    fn time_condition(&mut self, el: Node<'_, 't>, never: &str) -> PResult<Expr> {
        let since = if self.src.tag(el) == "AssertTime" {
            self.nonempty(el, "since")?.value
        } else {
            self.src.find(el, "since").map_or("", |a| a.value)
        };
        let more = self.src.find(el, "isMoreThan");
        let less = self.src.find(el, "isLessThan");
        let (compare, limit) = match (more, less) {
            (Some(m), None) => (Compare::MoreThan, m),
            (None, Some(l)) => (Compare::LessThan, l),
            // `IfTime::LoadFromXml` (BehaviorTreeNodes_Core.cpp, 8b63f61c) reads `isMoreThan`
            // first and never looks at `isLessThan` then.
            (Some(m), Some(l)) => {
                self.warnings.push(Diagnostic::warning(
                    ErrorKind::InvalidValue,
                    l.span,
                    format!(
                        "`<{}>` has `isMoreThan` and `isLessThan`: `isLessThan` is ignored",
                        self.src.tag(el)
                    ),
                ));
                (Compare::MoreThan, m)
            }
            (None, None) => {
                return Err(self.err(
                    ErrorKind::InvalidValue,
                    self.src.start_tag(el),
                    format!(
                        "`<{}>` needs the attribute `isMoreThan` or `isLessThan`",
                        self.src.tag(el)
                    ),
                ))
            }
        };
        let (units, _) = self.seconds(&limit)?;
        let if_never = self
            .src
            .find(el, never)
            .is_some_and(|a| time::boolean(a.value));
        // A timestamp nobody declared is never set (as in the original, which accepts it):
        // the condition is the never-set answer.
        Ok(match self.names.timestamp(since) {
            Some(ts) => time::condition(ts, compare, units, if_never),
            None => Expr::Lit(Lit::Bool(if_never)),
        })
    }

    /// A Parallel mode: `all` or `any`, compared case-sensitively; absent or empty is the
    /// default. Any other value keeps the default with a warning, as `Parallel::LoadFromXml`
    /// (BehaviorTreeNodes_Core.cpp, 8b63f61c) logs an error and loads the node.
    fn quorum(&mut self, el: Node<'_, 't>, attr: &str, default: Quorum) -> Quorum {
        match self.src.find(el, attr) {
            Some(a) if a.value == "all" => Quorum::All,
            Some(a) if a.value == "any" => Quorum::Any,
            Some(a) if !a.value.is_empty() => {
                self.warnings.push(Diagnostic::warning(
                    ErrorKind::InvalidValue,
                    a.value_span,
                    format!(
                        "`{attr}` is `all` or `any` (case-sensitive), not `{}`: the default \
                         applies",
                        a.value
                    ),
                ));
                default
            }
            _ => default,
        }
    }

    /// A number parsed by one of the [`time`] functions, or an error naming what it should be.
    fn number<T>(&self, a: &Attr, parsed: Result<T, NumError>, what: &str) -> PResult<T> {
        parsed.map_err(|e| {
            let why = match e {
                NumError::Malformed => "is not",
                NumError::OutOfRange => "is out of range for",
                NumError::Unsupported => "is a form btvm does not read as",
            };
            self.err(
                ErrorKind::InvalidValue,
                a.value_span,
                format!("`{}` = `{}` {why} {what}", a.name, a.value),
            )
        })
    }

    /// A number the original reads from the start of the attribute (with C's `func`), warning
    /// about the text it ignores (**Definition**: the original is silent).
    fn read<T>(
        &mut self,
        a: &Attr,
        parsed: Result<time::Read<'_, T>, NumError>,
        what: &str,
        func: &str,
    ) -> PResult<T> {
        let r = self.number(a, parsed, what)?;
        if r.ignored.len() == a.value.len() && !a.value.is_empty() {
            self.warnings.push(Diagnostic::warning(
                ErrorKind::InvalidValue,
                a.value_span,
                format!(
                    "`{}` = `{}` is not {what}: it reads as 0, as C's `{func}` reads it",
                    a.name, a.value
                ),
            ));
        } else if !r.ignored.is_empty() {
            self.warnings.push(Diagnostic::warning(
                ErrorKind::InvalidValue,
                a.value_span,
                format!(
                    "`{}` = `{}`: `{}` is ignored, as C's `{func}` stops before it",
                    a.name, a.value, r.ignored
                ),
            ));
        }
        Ok(r.value)
    }

    /// Seconds, in `CTimeValue` units (1/100,000 s), and whether the float was negative.
    fn seconds(&mut self, a: &Attr) -> PResult<(i64, bool)> {
        self.read(a, time::seconds(a.value), "a number of seconds", "atof")
    }
}

/// A guard evaluated once, on entry.
fn on_entry(cond: Expr) -> NodeKind {
    NodeKind::Guard(Guard {
        cond,
        eval: GuardEval::OnEntry,
    })
}
