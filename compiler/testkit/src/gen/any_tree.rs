//! Any valid tree: every node kind, knob, expression form and literal form, under any dialect
//! and tree-wide configuration. For properties over whole trees that need not run (printer and
//! parser round trips, checker robustness).
//!
//! Everything is built in two steps, because node generators need to know what they may refer
//! to: first the tables ([`tables`]), then nodes drawn against a [`Scope`] describing those
//! tables ([`node`], [`entry_body`], [`expr`]). [`tree`] does both and assembles the result with
//! [`TreeBuilder`], so the arena is canonical.

use arbitrary::{Result, Unstructured};
use btvm::{Import, ImportId, ImportKind};

use super::draw::{maybe, one_of, pick, range, repeat, shuffle, weighted, Levels};
use super::scope::Scope;
use super::text::{int, lit, lit_of, name, status, text, unique_names, var_type};
use btvm_compiler::ir::{
    Abort, Arg, BehaviorRef, BinOp, CallExpr, Composite, Cooldown, Decider, Dialect, Expr,
    FlagTest, Group, GroupScope, Guard, GuardEval, Hooks, LogStatus, Loop, Model, NodeBuf,
    NodeKind, Parallel, Policy, Precision, Precondition, Priority, Quorum, Resume, RootFinish,
    SendEvent, Sharing, StateNode, StatusMap, SubtreeId, TimestampDecl, TimestampId, Transition,
    Tree, TreeBuilder, TreeConfig, Trigger, TsQuery, Var, VarId, Wait, WaitForEvent,
};
use btvm_compiler::source::Span;

/// Size bounds for [`tree`]. The defaults give trees of a few dozen nodes, which keep a few
/// hundred cases fast in debug builds while still reaching every kind and knob.
///
/// Generation recurses once per level of `node_depth` and `expr_depth` (each at most
/// [`MAX_DEPTH`](super::MAX_DEPTH)).
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Nesting levels of composite/decorator nodes above the leaves.
    pub node_depth: u32,
    /// The node count aimed for per entry (a soft bound: it sets the chance of branching at
    /// each level, as proptest's `prop_recursive` does).
    pub node_size: u32,
    /// Most children of one composite.
    pub max_children: usize,
    /// Nesting levels of unary/binary/call expressions above the leaves.
    pub expr_depth: u32,
    /// Most arguments of one call.
    pub max_args: usize,
    /// Most imports of each kind (there is always at least one of each).
    pub max_imports: usize,
    /// Most variables.
    pub max_vars: usize,
    /// Most timestamps.
    pub max_timestamps: usize,
    /// Most signal bindings (none when there are no variables).
    pub max_signals: usize,
    /// Most entry points (there is always at least one).
    pub max_roots: usize,
    /// Most subtrees.
    pub max_subtrees: usize,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            node_depth: 5,
            node_size: 48,
            max_children: 4,
            expr_depth: 3,
            max_args: 3,
            max_imports: 3,
            max_vars: 3,
            max_timestamps: 3,
            max_signals: 2,
            max_roots: 2,
            max_subtrees: 2,
        }
    }
}

// ---- expressions -------------------------------------------------------------------------

/// Expressions over `scope`: every variant, every operator, calls with positional and named
/// arguments, nested up to `cfg.expr_depth` levels.
pub fn expr(u: &mut Unstructured<'_>, scope: &Scope, cfg: &GenConfig) -> Result<Expr> {
    expr_at(u, scope, cfg, &Levels::new(cfg.expr_depth, 16, 3), 0)
}

fn expr_at(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &GenConfig,
    levels: &Levels,
    level: u32,
) -> Result<Expr> {
    let Some(l) = levels.branch(u, level)? else {
        return expr_leaf(u, scope);
    };
    let inner = |u: &mut Unstructured<'_>| expr_at(u, scope, cfg, levels, l + 1);
    let calls = u32::from(!scope.functions.is_empty());
    Ok(match weighted(u, &[1, 1, 2, calls])? {
        0 => Expr::Not(Box::new(inner(u)?)),
        1 => Expr::Neg(Box::new(inner(u)?)),
        2 => {
            let op = pick(u, &BinOp::ALL)?;
            let a = inner(u)?;
            Expr::binary(op, a, inner(u)?)
        }
        _ => {
            let import = pick(u, &scope.functions)?;
            let args = repeat(u, 0, cfg.max_args, |u| arg(u, inner))?;
            Expr::Call(CallExpr { import, args })
        }
    })
}

/// The leaves of [`expr`]: literals (twice as likely as the others), `@random`, variables,
/// bound imports, timestamp queries and argument-less calls, as far as `scope` has them.
fn expr_leaf(u: &mut Unstructured<'_>, scope: &Scope) -> Result<Expr> {
    let has = |n: usize| u32::from(n > 0);
    let weights = [
        2,
        1,
        has(scope.vars as usize),
        has(scope.imports as usize),
        has(scope.timestamps as usize),
        has(scope.functions.len()),
    ];
    Ok(match weighted(u, &weights)? {
        0 => Expr::Lit(lit(u)?),
        1 => Expr::Random,
        2 => Expr::Var(VarId(range(u, 0, scope.vars - 1)?)),
        3 => Expr::Bound(ImportId(range(u, 0, scope.imports - 1)?)),
        4 => {
            let t = TimestampId(range(u, 0, scope.timestamps - 1)?);
            Expr::Timestamp(
                t,
                pick(u, &[TsQuery::EverSet, TsQuery::Valid, TsQuery::Elapsed])?,
            )
        }
        _ => Expr::Call(CallExpr {
            import: pick(u, &scope.functions)?,
            args: Vec::new(),
        }),
    })
}

/// A call argument with a value from `value`, named a bit over a third of the time.
pub fn arg(
    u: &mut Unstructured<'_>,
    value: impl FnOnce(&mut Unstructured<'_>) -> Result<Expr>,
) -> Result<Arg> {
    let name = maybe(u, 35, 100, name)?;
    Ok(Arg {
        name,
        value: value(u)?,
    })
}

// ---- nodes -------------------------------------------------------------------------------

/// A node's optional name (a fifth of nodes have one).
fn node_name(u: &mut Unstructured<'_>) -> Result<Option<String>> {
    maybe(u, 1, 5, text)
}

/// A node from its parts, with a dummy span.
pub(super) fn mk(kind: NodeKind, name: Option<String>, children: Vec<NodeBuf>) -> NodeBuf {
    NodeBuf {
        kind,
        name,
        span: Span::DUMMY,
        children,
    }
}

/// An optional `u32`, present half the time.
fn opt_u32(u: &mut Unstructured<'_>) -> Result<Option<u32>> {
    maybe(u, 1, 2, |u| u.arbitrary())
}

/// Any guard evaluation rule.
fn guard_eval(u: &mut Unstructured<'_>) -> Result<GuardEval> {
    pick(
        u,
        &[
            GuardEval::EveryTick,
            GuardEval::OnEntry,
            GuardEval::OnChange,
        ],
    )
}

/// Any quorum.
pub(super) fn quorum(u: &mut Unstructured<'_>) -> Result<Quorum> {
    pick(u, &[Quorum::All, Quorum::Any])
}

/// Any status mapping.
pub(super) fn status_map(u: &mut Unstructured<'_>) -> Result<StatusMap> {
    Ok(StatusMap {
        failure: status(u)?,
        success: status(u)?,
        running: status(u)?,
    })
}

fn flag_test(u: &mut Unstructured<'_>) -> Result<FlagTest> {
    Ok(FlagTest {
        mask: u.arbitrary()?,
        all: u.arbitrary()?,
        set: u.arbitrary()?,
    })
}

/// Leaf nodes over `scope`, every leaf kind equally often (`include` and the action-based kinds
/// only when the scope has something to name).
pub fn leaf(u: &mut Unstructured<'_>, scope: &Scope, cfg: &GenConfig) -> Result<NodeBuf> {
    let e = |u: &mut Unstructured<'_>| expr(u, scope, cfg);
    let includes = u32::from(scope.subtrees > 0);
    let actions = u32::from(!scope.actions.is_empty());
    let weights = [1, 1, 1, 1, 1, 1, 1, 1, 1, includes, actions, actions];
    let kind = match weighted(u, &weights)? {
        0 => NodeKind::Condition(e(u)?),
        1 => NodeKind::Const(status(u)?),
        2 => NodeKind::Yield,
        3 => {
            let ms = match one_of(u, 2)? {
                0 => int(u)?,
                _ => range(u, -5, 4999)?,
            };
            let variation = match one_of(u, 2)? {
                0 => u.arbitrary()?,
                _ => range(u, 0, 99)?,
            };
            NodeKind::Wait(Wait {
                time: ms,
                variation,
                result: status(u)?,
            })
        }
        4 => NodeKind::WaitUntil(e(u)?),
        5 => NodeKind::SendEvent(SendEvent {
            event: text(u)?,
            then: status(u)?,
        }),
        6 => NodeKind::WaitForEvent(WaitForEvent {
            event: text(u)?,
            result: status(u)?,
        }),
        7 => NodeKind::Log(text(u)?),
        8 => NodeKind::Select(text(u)?),
        9 => NodeKind::Include(SubtreeId(range(u, 0, scope.subtrees - 1)?)),
        10 => {
            let import = pick(u, &scope.actions)?;
            let args = repeat(u, 0, cfg.max_args, |u| arg(u, e))?;
            NodeKind::Action(CallExpr { import, args })
        }
        _ => {
            let import = pick(u, &scope.actions)?;
            NodeKind::Behavior(behavior_ref(u, import)?)
        }
    };
    Ok(mk(kind, node_name(u)?, Vec::new()))
}

/// A hook's call: an action or a function of `scope` (`None` if it has neither) with any
/// arguments `e` draws.
fn hook_call(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    e: impl Fn(&mut Unstructured<'_>) -> Result<Expr>,
) -> Result<Option<CallExpr>> {
    let weights = [
        u32::from(!scope.actions.is_empty()),
        u32::from(!scope.functions.is_empty()),
    ];
    if weights == [0, 0] {
        return Ok(None);
    }
    let import = match weighted(u, &weights)? {
        0 => pick(u, &scope.actions)?,
        _ => pick(u, &scope.functions)?,
    };
    let args = repeat(u, 0, 3, |u| arg(u, &e))?;
    Ok(Some(CallExpr { import, args }))
}

/// A `case` arm around the node `child` draws.
pub fn case_arm(
    u: &mut Unstructured<'_>,
    e: impl FnOnce(&mut Unstructured<'_>) -> Result<Expr>,
    child: impl FnOnce(&mut Unstructured<'_>) -> Result<NodeBuf>,
) -> Result<NodeBuf> {
    let c = e(u)?;
    let name = node_name(u)?;
    Ok(mk(NodeKind::Case(c), name, vec![child(u)?]))
}

/// A raw transition (an event or a condition, equally often) whose target in `0..16` is
/// reduced modulo the number of states later.
fn transition(
    u: &mut Unstructured<'_>,
    e: impl FnOnce(&mut Unstructured<'_>) -> Result<Expr>,
) -> Result<Transition> {
    let on = match one_of(u, 2)? {
        0 => Trigger::Event(text(u)?),
        _ => Trigger::When(e(u)?),
    };
    Ok(Transition {
        on,
        to: range(u, 0, 15)?,
    })
}

/// A `state` around the node `child` draws, with up to two transitions to targets in `0..16`
/// (unchecked: a state machine reduces them modulo its number of states).
pub fn state(
    u: &mut Unstructured<'_>,
    e: impl Fn(&mut Unstructured<'_>) -> Result<Expr>,
    child: impl FnOnce(&mut Unstructured<'_>) -> Result<NodeBuf>,
) -> Result<NodeBuf> {
    let name = node_name(u)?;
    let transitions = repeat(u, 0, 2, |u| transition(u, &e))?;
    Ok(mk(
        NodeKind::State(StateNode { transitions }),
        name,
        vec![child(u)?],
    ))
}

/// A `decider` around the node `child` draws, with every precondition present half the time.
pub fn decider(
    u: &mut Unstructured<'_>,
    e: impl FnOnce(&mut Unstructured<'_>) -> Result<Expr>,
    child: impl FnOnce(&mut Unstructured<'_>) -> Result<NodeBuf>,
) -> Result<NodeBuf> {
    let pre = Precondition {
        every_ms: opt_u32(u)?,
        decision: maybe(u, 1, 2, flag_test)?,
        stimuli: maybe(u, 1, 2, flag_test)?,
    };
    let d = Decider {
        pre,
        decide: maybe(u, 1, 2, e)?,
        decide_on_redecide: u.arbitrary()?,
    };
    let name = node_name(u)?;
    Ok(mk(NodeKind::Decider(d), name, vec![child(u)?]))
}

/// Nodes over `scope`: every kind, with `case`, `state` and `decider` only under their parents,
/// nested up to `cfg.node_depth` levels.
pub fn node(u: &mut Unstructured<'_>, scope: &Scope, cfg: &GenConfig) -> Result<NodeBuf> {
    node_at(
        u,
        scope,
        cfg,
        &Levels::new(cfg.node_depth, cfg.node_size, 3),
        0,
    )
}

fn node_at(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &GenConfig,
    levels: &Levels,
    level: u32,
) -> Result<NodeBuf> {
    let Some(l) = levels.branch(u, level)? else {
        return leaf(u, scope, cfg);
    };
    let e = |u: &mut Unstructured<'_>| expr(u, scope, cfg);
    let inner = |u: &mut Unstructured<'_>| node_at(u, scope, cfg, levels, l + 1);
    let kids = |u: &mut Unstructured<'_>| repeat(u, 0, cfg.max_children, inner);
    let opt_action = |u: &mut Unstructured<'_>| -> Result<Option<ImportId>> {
        if scope.actions.is_empty() {
            Ok(None)
        } else {
            maybe(u, 1, 2, |u| pick(u, &scope.actions))
        }
    };
    let composite = |u: &mut Unstructured<'_>| -> Result<Composite> {
        let resume = pick(
            u,
            &[
                Resume::Restart,
                Resume::Remember,
                Resume::RunningList,
                Resume::Cursor,
            ],
        )?;
        Ok(Composite {
            resume,
            looping: u.arbitrary()?,
            cond: maybe(u, 3, 10, e)?,
        })
    };
    // Every choice is equally likely; the first three have any number of children, the next
    // three children of their own kind, the rest exactly one child.
    let choice = one_of(u, 14)?;
    let kind = match choice {
        0 => NodeKind::Sequence(composite(u)?),
        1 => NodeKind::Selector(composite(u)?),
        2 => NodeKind::Parallel(Parallel {
            success: quorum(u)?,
            failure: quorum(u)?,
            stop_on_failure: u.arbitrary()?,
            remember: u.arbitrary()?,
        }),
        3 => {
            let repick = guard_eval(u)?;
            let name = node_name(u)?;
            let cases = repeat(u, 0, cfg.max_children, |u| case_arm(u, e, inner))?;
            return Ok(mk(NodeKind::Priority(Priority { repick }), name, cases));
        }
        4 => {
            let name = node_name(u)?;
            let mut states = repeat(u, 0, cfg.max_children, |u| state(u, e, inner))?;
            let count = (states.len() as u32).max(1);
            for s in &mut states {
                if let NodeKind::State(st) = &mut s.kind {
                    for t in &mut st.transitions {
                        t.to %= count;
                    }
                }
            }
            return Ok(mk(NodeKind::StateMachine, name, states));
        }
        5 => {
            let policy = pick(
                u,
                &[
                    Policy::Prioritized,
                    Policy::Sequential,
                    Policy::Random,
                    Policy::Scored,
                ],
            )?;
            let behavior = match opt_action(u)? {
                Some(i) => Some(behavior_ref(u, i)?),
                None => None,
            };
            let name = node_name(u)?;
            let deciders = repeat(u, 0, cfg.max_children, |u| decider(u, e, inner))?;
            return Ok(mk(
                NodeKind::Group(Group { policy, behavior }),
                name,
                deciders,
            ));
        }
        6 => NodeKind::Invert,
        7 => NodeKind::MapStatus(status_map(u)?),
        8 => NodeKind::Cooldown(Cooldown {
            ms: match one_of(u, 2)? {
                0 => u.arbitrary()?,
                _ => range(u, 0, 9999)?,
            },
        }),
        9 => NodeKind::Guard(Guard {
            cond: e(u)?,
            eval: guard_eval(u)?,
        }),
        10 => NodeKind::Loop(Loop {
            count: opt_u32(u)?,
            exit_on: status(u)?,
        }),
        11 => NodeKind::GroupScope(GroupScope {
            scope: text(u)?,
            max_users: u.arbitrary()?,
        }),
        12 => NodeKind::Hooks(Hooks {
            enter: maybe(u, 1, 2, |u| hook_call(u, scope, e))?.flatten(),
            exit: maybe(u, 1, 2, |u| hook_call(u, scope, e))?.flatten(),
        }),
        _ => NodeKind::LogStatus(LogStatus {
            start: maybe(u, 1, 2, text)?,
            success: maybe(u, 1, 2, text)?,
            failure: maybe(u, 1, 2, text)?,
        }),
    };
    let name = node_name(u)?;
    let children = if choice < 3 {
        kids(u)?
    } else {
        vec![inner(u)?]
    };
    Ok(mk(kind, name, children))
}

/// The body of an entry point or subtree: usually (two thirds) any [`node`], sometimes a bare
/// `case`, `state` (with unchecked transition targets) or `decider`, which
/// [`Tree::validate`] allows where there is no parent.
pub fn entry_body(u: &mut Unstructured<'_>, scope: &Scope, cfg: &GenConfig) -> Result<NodeBuf> {
    let e = |u: &mut Unstructured<'_>| expr(u, scope, cfg);
    let n = |u: &mut Unstructured<'_>| node(u, scope, cfg);
    match weighted(u, &[6, 1, 1, 1])? {
        0 => n(u),
        1 => case_arm(u, e, n),
        2 => state(u, e, n),
        _ => decider(u, e, n),
    }
}

// ---- tables and trees --------------------------------------------------------------------

/// Any dialect with arbitrary tree-wide knobs (not necessarily the dialect's own).
pub fn tree_config(u: &mut Unstructured<'_>) -> Result<(Dialect, TreeConfig)> {
    let dialect = pick(u, &Dialect::ALL)?;
    let model = match one_of(u, 5)? {
        0 => Model::Lifecycle,
        1 => Model::Selection,
        2 => Model::RunningList {
            capacity: u.arbitrary()?,
        },
        3 => Model::Cursor {
            runaway_limit: u.arbitrary()?,
        },
        _ => Model::Decider {
            redecide_limit: u.arbitrary()?,
        },
    };
    let root_finish = pick(
        u,
        &[
            RootFinish::Rerun,
            RootFinish::RestartOrStop,
            RootFinish::Stop,
        ],
    )?;
    let config = TreeConfig {
        model,
        root_finish,
        abort: pick(u, &[Abort::Abandon, Abort::Terminate])?,
        precision: pick(u, &[Precision::Single, Precision::Double])?,
        // Only the lifecycle model may count time in another unit than milliseconds.
        clock: if model == Model::Lifecycle {
            pick(u, &[1, 100, btvm::MAX_CLOCK])?
        } else {
            1
        },
    };
    Ok((dialect, config))
}

/// 1 to `max` imports of one kind with distinct names and any argument counts and
/// long-running flag.
fn imports_of(u: &mut Unstructured<'_>, kind: ImportKind, max: usize) -> Result<Vec<Import>> {
    unique_names(u, 1, max)?
        .into_iter()
        .map(|name| {
            Ok(Import {
                name,
                kind,
                min_args: u.arbitrary()?,
                max_args: u.arbitrary()?,
                long_running: u.arbitrary()?,
                claims: super::running_list::slot_claims(u)?,
                script: maybe(u, 1, 4, text)?,
            })
        })
        .collect()
}

/// The tables of a tree: at least one import of each kind (interleaved in random order),
/// typed variables with defaults of their type, and timestamps with optional events and
/// `exclusive` links (possibly to later ones or to themselves).
#[derive(Clone, Debug)]
pub struct Tables {
    /// The import table.
    pub imports: Vec<Import>,
    /// The variables.
    pub vars: Vec<Var>,
    /// The timestamps.
    pub timestamps: Vec<TimestampDecl>,
}

/// Generates [`Tables`] within `cfg`'s bounds.
pub fn tables(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<Tables> {
    let mut imports = imports_of(u, ImportKind::Action, cfg.max_imports)?;
    imports.extend(imports_of(u, ImportKind::Function, cfg.max_imports)?);
    shuffle(u, &mut imports)?;
    let vars = unique_names(u, 0, cfg.max_vars)?
        .into_iter()
        .map(|name| {
            let ty = var_type(u)?;
            Ok(Var {
                name,
                ty,
                default: lit_of(u, ty)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let names = unique_names(u, 0, cfg.max_timestamps)?;
    let n = names.len() as u32;
    let timestamps = names
        .into_iter()
        .map(|name| {
            let set_on = maybe(u, 1, 2, text)?;
            let exclusive_to = maybe(u, 1, 2, |u| range(u, 0, n.saturating_sub(1)))?;
            Ok(TimestampDecl {
                name,
                set_on,
                exclusive_to: exclusive_to.map(TimestampId),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Tables {
        imports,
        vars,
        timestamps,
    })
}

/// Whole trees that pass [`Tree::validate`]: tables, signals, one or more entry points and
/// zero or more subtrees (both sharing modes) that nodes may `include`, under any dialect and
/// [`TreeConfig`].
pub fn tree(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<Tree> {
    let tables = tables(u, cfg)?;
    let roots = unique_names(u, 1, cfg.max_roots)?;
    let subs = unique_names(u, 0, cfg.max_subtrees)?;
    let (dialect, config) = tree_config(u)?;
    let scope = Scope::new(
        &tables.imports,
        tables.vars.len(),
        tables.timestamps.len(),
        subs.len(),
    );
    let mut b = TreeBuilder::new(dialect);
    b.config(config);
    for i in tables.imports {
        b.import(i);
    }
    for v in tables.vars {
        b.var(v);
    }
    for t in tables.timestamps {
        b.timestamp(t);
    }
    for k in 0..range(u, 0, 3)? {
        b.flag(format!("f{k}"));
    }
    for k in 0..range(u, 0, 3)? {
        b.stimulus(format!("s{k}"));
    }
    if scope.vars > 0 {
        for _ in 0..range(u, 0, cfg.max_signals)? {
            if u.is_empty() {
                break;
            }
            let event = text(u)?;
            let var = VarId(range(u, 0, scope.vars - 1)?);
            b.signal(event, var, expr(u, &scope, cfg)?);
        }
    }
    for name in roots {
        let body = entry_body(u, &scope, cfg)?;
        b.root(name, body);
    }
    for name in subs {
        let sharing = pick(u, &[Sharing::Shared, Sharing::PerSite])?;
        let body = entry_body(u, &scope, cfg)?;
        let id = b.declare_subtree(name, sharing, Span::DUMMY);
        b.define_subtree(id, body);
    }
    b.finish().map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// A behavior over `import` with arbitrary phases.
pub(crate) fn behavior_ref(u: &mut Unstructured<'_>, import: ImportId) -> Result<BehaviorRef> {
    Ok(BehaviorRef {
        import,
        activate: u.arbitrary()?,
        tick: u.arbitrary()?,
        deactivate: u.arbitrary()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_a_small_valid_tree() {
        let tree = tree(&mut Unstructured::new(&[]), &GenConfig::default()).unwrap();
        assert_eq!(tree.validate(), Ok(()));
        assert!(tree.nodes.len() <= 3, "{} nodes", tree.nodes.len());
    }

    #[test]
    fn any_bytes_give_a_valid_tree() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in [0, 1, 7, 100, 1000, 5000] {
            for _ in 0..20 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state as u8
                    })
                    .collect();
                let tree = tree(&mut Unstructured::new(&bytes), &GenConfig::default()).unwrap();
                assert_eq!(tree.validate(), Ok(()));
            }
        }
    }
}
