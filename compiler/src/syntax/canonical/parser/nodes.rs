//! The node grammar: one parser per node kind, grouped as composites, decorators and leaves,
//! and the assembly of a parsed node with the checks that need its children (which kinds may
//! sit under which, state-machine transition targets).
//!
//! Names are resolved against the tables as nodes are parsed; `include` gets a provisional id
//! from the parser state. This module never assembles the tree (see `body`) and never recurses
//! outside chumsky's `recursive`, whose depth the nesting pre-scan bounds.

use chumsky::prelude::*;

use super::atoms::{guard_eval, i64_lit, import_kind, int_tok, kw, name, overflow, quorum};
use super::atoms::{status, string, u32_lit, words};
use super::expr::resolve_import;
use super::expr::{action_ref, behavior_ref, call_args, expr_parser, resolve_hook};
use super::plumbing::{custom, Lbl, Mx, P};
use super::recover::{is_word, never, skip, Resync};
use super::{BodyE, Ex};
use crate::diag::ErrorKind;
use crate::ir::{
    CallExpr, Composite, Cooldown, Decider, Expr, FlagTest, Group, GroupScope, Guard, Hooks,
    LogStatus, Loop, NodeBuf, NodeKind, Parallel, Policy, Precondition, Priority, Quorum, Resume,
    SendEvent, StateNode, StatusMap, SubtreeId, Transition, Trigger, Wait, WaitForEvent,
};
use crate::source::{FileId, Span};

use super::super::lexer::Tok;

/// A parsed node, with what its parent needs to check it.
#[derive(Clone)]
pub(super) struct PNode {
    /// The node.
    pub buf: NodeBuf,
    /// The keyword's span.
    pub head: SimpleSpan,
    /// For a `state`: each transition target with its span.
    pub targets: Vec<(u32, SimpleSpan)>,
    /// Whether this stands for a node skipped after a syntax error (its parent checks
    /// nothing of it).
    pub skipped: bool,
}

/// Where a node skipped after a syntax error ends: after its braced block, or before the
/// next node's keyword (or a `root`, `subtree` or `signal`), or before the `}` of its parent.
/// `loop` and `behavior` also appear inside a node's header, and any word after `action`,
/// `behavior`, `enter` or `exit` is a name: those never begin a node here.
const NODE_RESYNC: Resync = Resync {
    begins: |prev, tok, _| {
        const NODE_WORDS: [&str; 30] = [
            "sequence",
            "selector",
            "parallel",
            "priority",
            "case",
            "statemachine",
            "state",
            "group",
            "decider",
            "invert",
            "map",
            "cooldown",
            "guard",
            "groupscope",
            "hooks",
            "logstatus",
            "include",
            "action",
            "condition",
            "const",
            "yield",
            "wait",
            "waituntil",
            "send",
            "waitevent",
            "log",
            "select",
            "root",
            "subtree",
            "signal",
        ];
        let named = ["action", "behavior", "enter", "exit"]
            .iter()
            .any(|w| is_word(prev, w));
        !named && NODE_WORDS.iter().any(|w| is_word(tok, w))
    },
    semi: false,
    block: true,
    refuses: never,
};

/// What stands for a skipped node.
fn skipped() -> PNode {
    PNode {
        buf: NodeBuf::leaf(NodeKind::Const(btvm::Status::Failure), Span::DUMMY),
        head: SimpleSpan::from(0..0),
        targets: Vec::new(),
        skipped: true,
    }
}

/// The kind a child must have under `parent`, if any.
fn required_child(parent: &NodeKind) -> Option<&'static str> {
    match parent {
        NodeKind::Priority(_) => Some("case"),
        NodeKind::StateMachine => Some("state"),
        NodeKind::Group(_) => Some("decider"),
        _ => None,
    }
}

/// The only parent kind a node of this kind may have, if restricted.
fn required_parent(child: &NodeKind) -> Option<&'static str> {
    match child {
        NodeKind::Case(_) => Some("priority"),
        NodeKind::State(_) => Some("statemachine"),
        NodeKind::Decider(_) => Some("group"),
        _ => None,
    }
}

/// Assembles a parsed node, checking its children's kinds and (for a state machine) the
/// transition targets of its states.
fn build<'t, 's: 't>(
    file: FileId,
    kind: NodeKind,
    (head, name): Head,
    children: Vec<PNode>,
    targets: Vec<(u32, SimpleSpan)>,
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
) -> PNode {
    check_children(&kind, &children, e);
    if matches!(kind, NodeKind::StateMachine) {
        check_transitions(&children, e);
    }
    let span = e.span();
    PNode {
        buf: NodeBuf {
            kind,
            name,
            span: Span::new(file, span.start, span.end),
            children: children.into_iter().map(|c| c.buf).collect(),
        },
        head,
        targets,
        skipped: false,
    }
}

/// Reports each child whose kind may not sit under `kind`.
fn check_children<'t, 's: 't>(
    kind: &NodeKind,
    children: &[PNode],
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
) {
    let want = required_child(kind);
    for c in children.iter().filter(|c| !c.skipped) {
        let ck = c.buf.kind.keyword();
        match (want, required_parent(&c.buf.kind)) {
            // A group's children may also be includes of shared deciders.
            (Some("decider"), _) if ck == "include" => {}
            // BST's forward-only priority: a `sequence` over `case` arms.
            (None, Some("priority")) if matches!(kind, NodeKind::Sequence(_)) => {}
            (Some(w), _) if w != ck => e.emit(custom(
                ErrorKind::Syntax,
                c.head,
                format!("expected `{w}` inside `{}`, found `{ck}`", kind.keyword()),
            )),
            (None, Some(p)) => e.emit(custom(
                ErrorKind::Syntax,
                c.head,
                format!(
                    "`{ck}` must be a child of `{p}`, not of `{}`",
                    kind.keyword()
                ),
            )),
            _ => {}
        }
    }
}

/// Reports each transition of a state machine's states to a state it does not have.
fn check_transitions<'t, 's: 't>(children: &[PNode], e: &mut Mx<'t, '_, 's, BodyE<'s>>) {
    let n = children.len();
    for c in children {
        for &(to, span) in &c.targets {
            if to as usize >= n {
                e.emit(custom(
                    ErrorKind::InvalidValue,
                    span,
                    format!(
                        "transition to state {to}, but this statemachine has {n} state{} (numbered from 0)",
                        if n == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
    }
}

/// A node's keyword span and optional `@"name"`.
type Head = (SimpleSpan, Option<String>);

/// The node grammar; `limit` is `Limits::max_expr_depth`.
pub(super) fn node_parser<'t, 's: 't>(file: FileId, limit: u64) -> P<'t, 's, PNode, BodyE<'s>> {
    let expr = expr_parser(limit);
    let pexpr: P<'t, 's, Expr, BodyE<'s>> = expr
        .clone()
        .delimited_by(just(Tok::LParen), just(Tok::RParen))
        .map(|x| x.e)
        .boxed();
    recursive(move |node| {
        let node = node.labelled(Lbl::What("node"));
        let many = node
            .clone()
            .repeated()
            .collect::<Vec<PNode>>()
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
            .boxed();
        let one = node
            .clone()
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
            .map(|n| vec![n])
            .boxed();
        let node_name = just(Tok::At).ignore_then(string()).or_not().boxed();
        let k = Kit {
            file,
            expr: expr.clone(),
            pexpr: pexpr.clone(),
            node_name,
            many,
            one,
        };
        choice((k.composites(), k.decorators(), k.leaves()))
            .labelled(Lbl::What("node"))
            .recover_with(via_parser(skip(NODE_RESYNC, skipped())))
            .boxed()
    })
    .boxed()
}

/// The pieces every node kind's parser is made of (all boxed, so clones are cheap).
struct Kit<'t, 's> {
    /// The file, for spans.
    file: FileId,
    /// An expression with its depth.
    expr: P<'t, 's, Ex, BodyE<'s>>,
    /// A parenthesized expression.
    pexpr: P<'t, 's, Expr, BodyE<'s>>,
    /// An optional `@"name"` after a node's keyword.
    node_name: P<'t, 's, Option<String>, BodyE<'s>>,
    /// `{ NODE* }`.
    many: P<'t, 's, Vec<PNode>, BodyE<'s>>,
    /// `{ NODE }`.
    one: P<'t, 's, Vec<PNode>, BodyE<'s>>,
}

impl<'t, 's: 't> Kit<'t, 's> {
    /// A node's keyword (its span) and optional name.
    fn head(&self, word: &'static str) -> P<'t, 's, Head, BodyE<'s>> {
        kw(word)
            .map_with(|_, e| e.span())
            .then(self.node_name.clone())
            .boxed()
    }

    fn pe(&self) -> P<'t, 's, Expr, BodyE<'s>> {
        self.pexpr.clone()
    }

    fn many(&self) -> P<'t, 's, Vec<PNode>, BodyE<'s>> {
        self.many.clone()
    }

    fn one(&self) -> P<'t, 's, Vec<PNode>, BodyE<'s>> {
        self.one.clone()
    }

    // ---- composites ----

    fn composites(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        choice((
            self.composite("sequence", NodeKind::Sequence),
            self.composite("selector", NodeKind::Selector),
            self.parallel(),
            self.priority(),
            self.case(),
            self.statemachine(),
            self.state(),
            self.group(),
            self.decider(),
        ))
        .boxed()
    }

    fn composite(
        &self,
        word: &'static str,
        make: fn(Composite) -> NodeKind,
    ) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head(word)
            .then(words(vec![
                ("restart", Resume::Restart),
                ("remember", Resume::Remember),
                ("running-list", Resume::RunningList),
                ("cursor", Resume::Cursor),
            ]))
            .then(kw("loop").or_not())
            .then(kw("when").ignore_then(self.pe()).or_not())
            .then(self.many())
            .map_with(move |((((h, resume), looping), cond), ch), e| {
                let c = Composite {
                    resume,
                    looping: looping.is_some(),
                    cond,
                };
                build(file, make(c), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn parallel(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("parallel")
            .then_ignore(kw("success"))
            .then_ignore(just(Tok::Assign))
            .then(quorum())
            .then_ignore(kw("failure"))
            .then_ignore(just(Tok::Assign))
            .then(quorum())
            .then(kw("stop-on-failure").or_not())
            .then(kw("remember").or_not())
            .then(self.many())
            .map_with(
                move |(((((h, success), failure), stop), remember), ch), e| {
                    let p = Parallel {
                        success,
                        failure,
                        stop_on_failure: stop.is_some(),
                        remember: remember.is_some(),
                    };
                    build(file, NodeKind::Parallel(p), h, ch, Vec::new(), e)
                },
            )
            .boxed()
    }

    fn priority(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("priority")
            .then(guard_eval())
            .then(self.many())
            .map_with(move |((h, repick), ch), e| {
                let p = Priority { repick };
                build(file, NodeKind::Priority(p), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn case(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("case")
            .then(self.pe())
            .then(self.one())
            .map_with(move |((h, c), ch), e| build(file, NodeKind::Case(c), h, ch, Vec::new(), e))
            .boxed()
    }

    fn statemachine(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("statemachine")
            .then(self.many())
            .map_with(move |(h, ch), e| build(file, NodeKind::StateMachine, h, ch, Vec::new(), e))
            .boxed()
    }

    fn state(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        let trigger = choice((
            kw("on").ignore_then(string()).map(Trigger::Event),
            kw("when").ignore_then(self.pe()).map(Trigger::When),
        ));
        let transition = trigger
            .then_ignore(just(Tok::Arrow))
            .then(int_tok().map_with(|(v, span), e| {
                let to = u32::try_from(v).unwrap_or_else(|_| {
                    e.emit(overflow(span, "state index", u32::MAX));
                    0
                });
                (to, span)
            }));
        self.head("state")
            .then(transition.repeated().collect::<Vec<_>>())
            .then(self.one())
            .map_with(move |((h, ts), ch), e| {
                let targets = ts.iter().map(|(_, t)| *t).collect();
                let transitions = ts
                    .into_iter()
                    .map(|(on, (to, _))| Transition { on, to })
                    .collect();
                let s = StateNode { transitions };
                build(file, NodeKind::State(s), h, ch, targets, e)
            })
            .boxed()
    }

    fn group(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("group")
            .then(words(vec![
                ("prioritized", Policy::Prioritized),
                ("sequential", Policy::Sequential),
                ("random", Policy::Random),
                ("scored", Policy::Scored),
            ]))
            .then(kw("behavior").ignore_then(behavior_ref()).or_not())
            .then(self.many())
            .map_with(move |(((h, policy), behavior), ch), e| {
                let g = Group { policy, behavior };
                build(file, NodeKind::Group(g), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn decider(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        let flag = quorum()
            .then(words(vec![("set", true), ("clear", false)]))
            .then(u32_lit("flag mask"))
            .map(|((q, set), mask)| FlagTest {
                mask,
                all: q == Quorum::All,
                set,
            })
            .boxed();
        self.head("decider")
            .then(kw("every").ignore_then(u32_lit("interval")).or_not())
            .then(kw("decision").ignore_then(flag.clone()).or_not())
            .then(kw("stimuli").ignore_then(flag).or_not())
            .then(kw("decide").ignore_then(self.pe()).or_not())
            .then(kw("redecide").or_not())
            .then(self.one())
            .map_with(
                move |((((((h, every_ms), decision), stimuli), decide), redecide), ch), e| {
                    let d = Decider {
                        pre: Precondition {
                            every_ms,
                            decision,
                            stimuli,
                        },
                        decide,
                        decide_on_redecide: redecide.is_some(),
                    };
                    build(file, NodeKind::Decider(d), h, ch, Vec::new(), e)
                },
            )
            .boxed()
    }

    // ---- decorators ----

    fn decorators(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        choice((
            self.invert(),
            self.map(),
            self.cooldown(),
            self.guard(),
            self.loop_(),
            self.groupscope(),
            self.hooks(),
            self.logstatus(),
        ))
        .boxed()
    }

    fn invert(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("invert")
            .then(self.one())
            .map_with(move |(h, ch), e| build(file, NodeKind::Invert, h, ch, Vec::new(), e))
            .boxed()
    }

    fn map(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("map")
            .then(status())
            .then(status())
            .then(status())
            .then(self.one())
            .map_with(move |((((h, failure), success), running), ch), e| {
                let m = StatusMap {
                    failure,
                    success,
                    running,
                };
                build(file, NodeKind::MapStatus(m), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn cooldown(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("cooldown")
            .then(u32_lit("cooldown"))
            .then(self.one())
            .map_with(move |((h, ms), ch), e| {
                let c = Cooldown { ms };
                build(file, NodeKind::Cooldown(c), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn guard(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("guard")
            .then(guard_eval())
            .then(self.pe())
            .then(self.one())
            .map_with(move |(((h, eval), cond), ch), e| {
                let g = Guard { cond, eval };
                build(file, NodeKind::Guard(g), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn loop_(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("loop")
            .then(u32_lit("loop count").map(Some).or(kw("forever").to(None)))
            .then_ignore(kw("until"))
            .then(status())
            .then(self.one())
            .map_with(move |(((h, count), exit_on), ch), e| {
                let l = Loop { count, exit_on };
                build(file, NodeKind::Loop(l), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn groupscope(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("groupscope")
            .then(string())
            .then(u32_lit("user limit"))
            .then(self.one())
            .map_with(move |(((h, scope), max_users), ch), e| {
                let g = GroupScope { scope, max_users };
                build(file, NodeKind::GroupScope(g), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    /// A hook call: `[action|function] NAME [(ARGS)]`; without the kind, an action of that
    /// name if there is one, else a function.
    fn hook_call(&self) -> P<'t, 's, CallExpr, BodyE<'s>> {
        let hook_args = call_args(self.expr.clone())
            .or_not()
            .map(Option::unwrap_or_default);
        choice((
            import_kind().then(name()).map(|(k, n)| (Some(k), n)),
            name().map(|n| (None, n)),
        ))
        .then(hook_args)
        .map_with(|((kind, (n, span)), args), e| {
            let import = match kind {
                Some(k) => resolve_import(e, k, &n, span),
                None => resolve_hook(e, &n, span),
            };
            CallExpr { import, args }
        })
        .boxed()
    }

    fn hooks(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        let hook_call = self.hook_call();
        self.head("hooks")
            .then(kw("enter").ignore_then(hook_call.clone()).or_not())
            .then(kw("exit").ignore_then(hook_call).or_not())
            .then(self.one())
            .map_with(move |(((h, enter), exit), ch), e| {
                let hooks = Hooks { enter, exit };
                build(file, NodeKind::Hooks(hooks), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    fn logstatus(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("logstatus")
            .then(kw("start").ignore_then(string()).or_not())
            .then(kw("success").ignore_then(string()).or_not())
            .then(kw("failure").ignore_then(string()).or_not())
            .then(self.one())
            .map_with(move |((((h, start), success), failure), ch), e| {
                let l = LogStatus {
                    start,
                    success,
                    failure,
                };
                build(file, NodeKind::LogStatus(l), h, ch, Vec::new(), e)
            })
            .boxed()
    }

    // ---- leaves ----

    fn leaves(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        choice((
            self.include(),
            self.action(),
            self.leaf_with("condition", self.pe(), NodeKind::Condition),
            self.leaf_with("const", status(), NodeKind::Const),
            self.yield_(),
            self.wait(),
            self.leaf_with("waituntil", self.pe(), NodeKind::WaitUntil),
            self.send(),
            self.waitevent(),
            self.leaf_with("log", string(), NodeKind::Log),
            self.leaf_with("select", string(), NodeKind::Select),
            self.leaf_with("behavior", behavior_ref(), NodeKind::Behavior),
        ))
        .boxed()
    }

    /// A leaf written `WORD ARG`, whose kind is `make(ARG)`.
    fn leaf_with<T: 't>(
        &self,
        word: &'static str,
        arg: P<'t, 's, T, BodyE<'s>>,
        make: fn(T) -> NodeKind,
    ) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head(word)
            .then(arg)
            .map_with(move |(h, a), e| leaf(file, make(a), h, e))
            .boxed()
    }

    fn include(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("include")
            .then(string())
            .map_with(move |(h, name), e| {
                let id = e.state().intern(name);
                leaf(file, NodeKind::Include(SubtreeId(id)), h, e)
            })
            .boxed()
    }

    fn action(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("action")
            .then(action_ref())
            .then(call_args(self.expr.clone()))
            .map_with(move |((h, import), args), e| {
                leaf(file, NodeKind::Action(CallExpr { import, args }), h, e)
            })
            .boxed()
    }

    fn yield_(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("yield")
            .map_with(move |h, e| leaf(file, NodeKind::Yield, h, e))
            .boxed()
    }

    fn wait(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("wait")
            .then(i64_lit())
            .then(u32_lit("wait variation"))
            .then_ignore(just(Tok::Arrow))
            .then(status())
            .map_with(move |(((h, time), variation), result), e| {
                let w = Wait {
                    time,
                    variation,
                    result,
                };
                leaf(file, NodeKind::Wait(w), h, e)
            })
            .boxed()
    }

    fn send(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("send")
            .then(string())
            .then_ignore(just(Tok::Arrow))
            .then(status())
            .map_with(move |((h, event), then), e| {
                leaf(file, NodeKind::SendEvent(SendEvent { event, then }), h, e)
            })
            .boxed()
    }

    fn waitevent(&self) -> P<'t, 's, PNode, BodyE<'s>> {
        let file = self.file;
        self.head("waitevent")
            .then(string())
            .then_ignore(just(Tok::Arrow))
            .then(status())
            .map_with(move |((h, event), result), e| {
                let w = WaitForEvent { event, result };
                leaf(file, NodeKind::WaitForEvent(w), h, e)
            })
            .boxed()
    }
}

/// A node without children.
fn leaf<'t, 's: 't>(
    file: FileId,
    kind: NodeKind,
    h: Head,
    e: &mut Mx<'t, '_, 's, BodyE<'s>>,
) -> PNode {
    build(file, kind, h, Vec::new(), Vec::new(), e)
}
