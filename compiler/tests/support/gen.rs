//! Proptest generators of IR trees that pass [`Tree::validate`].
//!
//! The generators are meant for any property over whole trees: printer/parser round trips,
//! equivalence of the reference interpreter and the engines, checker robustness. They cover
//! every [`NodeKind`], every knob value, every [`Expr`] variant and every [`Lit`] form (negative
//! and extreme integers, `-0.0`, infinities, NaNs with any payload, strings with quotes,
//! backslashes, control characters and non-ASCII), named arguments, both import kinds, all
//! [`TreeConfig`] values, several roots and subtrees reached through `include`.
//!
//! Everything is built in two steps, because node generators need to know what they may refer
//! to: first the tables ([`tables`]), then nodes drawn against a [`Scope`] describing those
//! tables ([`node`], [`entry_body`], [`expr`]). [`tree`] does both and assembles the result with
//! [`TreeBuilder`], so the arena is canonical. Sizes are bounded by a [`GenConfig`].
//!
//! Names are drawn from [`name`], which mixes plain identifiers, words the native syntax uses
//! as keywords and arbitrary text, and are made unique per table (imports per kind, so an action
//! and a function may share a name).

use btvm::{Import, ImportId, ImportKind, Status};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{BoxedStrategy, Just, Strategy, Union};

use btvm_compiler::ir::{
    Abort, Arg, BinOp, CallExpr, Composite, Cooldown, Decider, Dialect, Expr, FlagTest, Group,
    GroupScope, Guard, GuardEval, Hooks, Lit, LogStatus, Loop, Model, NodeBuf, NodeKind, Parallel,
    Policy, Precision, Precondition, Priority, Quorum, Resume, RootFinish, SendEvent, Sharing,
    StateNode, StatusMap, SubtreeId, TimestampDecl, TimestampId, Transition, Tree, TreeBuilder,
    TreeConfig, Trigger, TsQuery, Type, Var, VarId, Wait, WaitForEvent,
};
use btvm_compiler::source::Span;

/// Size bounds for generated trees. The defaults give trees of a few dozen nodes, which keep a
/// few hundred cases fast in debug builds while still reaching every kind and knob.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Nesting levels of composite/decorator nodes above the leaves.
    pub node_depth: u32,
    /// The node count proptest aims for per entry (a soft bound).
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

/// What node and expression generators may refer to: the tables of the tree being generated.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Ids of the action imports.
    pub actions: Vec<ImportId>,
    /// Ids of the function imports.
    pub functions: Vec<ImportId>,
    /// Number of imports of either kind.
    pub imports: u32,
    /// Number of variables.
    pub vars: u32,
    /// Number of timestamps.
    pub timestamps: u32,
    /// Number of subtrees.
    pub subtrees: u32,
}

impl Scope {
    /// The scope of an import table and the sizes of the other tables.
    pub fn new(imports: &[Import], vars: usize, timestamps: usize, subtrees: usize) -> Scope {
        let of_kind = |k: ImportKind| {
            imports
                .iter()
                .enumerate()
                .filter(|(_, i)| i.kind == k)
                .map(|(n, _)| ImportId(n as u32))
                .collect()
        };
        Scope {
            actions: of_kind(ImportKind::Action),
            functions: of_kind(ImportKind::Function),
            imports: imports.len() as u32,
            vars: vars as u32,
            timestamps: timestamps as u32,
            subtrees: subtrees as u32,
        }
    }
}

// ---- text and names ----------------------------------------------------------------------

/// Characters that stress quoting and lexing.
const TRICKY: &[char] = &[
    '"', '\\', '\n', '\t', '\r', '\0', '\u{7f}', '\u{1b}', ' ', 'é', 'ß', '😀', '\u{2028}', '{',
    '}', '(', ')', '/', '*', '$', '@', '-', '.', '0',
];

/// Arbitrary short strings, biased towards characters that need escaping.
pub fn text() -> BoxedStrategy<String> {
    let ch = prop_oneof![
        3 => proptest::char::range('a', 'z'),
        2 => select(TRICKY),
        1 => any::<char>(),
    ];
    vec(ch, 0..8)
        .prop_map(|cs| cs.into_iter().collect())
        .boxed()
}

/// Words the native syntax gives a meaning somewhere, to check names that collide with them.
pub const SYNTAX_WORDS: &[&str] = &[
    "true", "false", "nan", "inf", "action", "function", "root", "subtree", "state", "case",
    "loop", "on", "when", "exit", "enter", "random", "success", "failure", "running", "yield",
    "include", "behavior", "long", "every", "forever", "shared", "import", "var", "signal",
];

/// Names: identifiers (with dots), syntax words and arbitrary text.
pub fn name() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[A-Za-z_][A-Za-z0-9_.]{0,7}",
        1 => select(SYNTAX_WORDS).prop_map(str::to_string),
        1 => select(&["a", "b", "move", "x"][..]).prop_map(str::to_string),
        2 => text(),
    ]
    .boxed()
}

/// Makes names unique by suffixing repeats (`a`, `a_1`, …), keeping their order.
pub fn make_unique(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let mut candidate = n.clone();
        let mut k = 1;
        while out.contains(&candidate) {
            candidate = format!("{n}_{k}");
            k += 1;
        }
        out.push(candidate);
    }
    out
}

/// Between `min` and `max` distinct names.
pub fn unique_names(min: usize, max: usize) -> BoxedStrategy<Vec<String>> {
    vec(name(), min..=max.max(min))
        .prop_map(make_unique)
        .boxed()
}

// ---- literals ----------------------------------------------------------------------------

/// Any status.
pub fn status() -> BoxedStrategy<Status> {
    select(&Status::ALL[..]).boxed()
}

/// Integers, with the extremes and small negatives well represented.
pub fn int() -> BoxedStrategy<i64> {
    prop_oneof![
        2 => -1000i64..1000,
        1 => select(&[0, 1, -1, i64::MIN, i64::MAX, i64::MIN + 1, i32::MIN as i64][..]),
        2 => any::<i64>(),
    ]
    .boxed()
}

/// Floats: special values, ordinary values, and arbitrary bit patterns (so NaNs with any sign
/// and payload, subnormals and both zeros all occur).
pub fn float() -> BoxedStrategy<f64> {
    prop_oneof![
        2 => select(&[
            0.0,
            -0.0,
            1.0,
            0.1,
            0.25,
            -2.5,
            1e20,
            -1e20,
            1.5e-7,
            1e16,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ][..]),
        2 => any::<f64>(),
        1 => any::<u64>().prop_map(f64::from_bits),
        1 => any::<u64>().prop_map(|b| f64::from_bits((b & 0x800f_ffff_ffff_ffff) | 0x7ff0_0000_0000_0001)),
        1 => (-1000i32..1000).prop_map(|i| f64::from(i) / 8.0),
    ]
    .boxed()
}

/// Any literal.
pub fn lit() -> BoxedStrategy<Lit> {
    prop_oneof![
        any::<bool>().prop_map(Lit::Bool),
        int().prop_map(Lit::Int),
        float().prop_map(Lit::Float),
        text().prop_map(Lit::Str),
    ]
    .boxed()
}

/// A literal of the given variable type.
pub fn lit_of(ty: Type) -> BoxedStrategy<Lit> {
    match ty {
        Type::Bool => any::<bool>().prop_map(Lit::Bool).boxed(),
        Type::Int => int().prop_map(Lit::Int).boxed(),
        Type::Float => float().prop_map(Lit::Float).boxed(),
    }
}

// ---- expressions -------------------------------------------------------------------------

/// Expressions over `scope`: every variant, every operator, calls with positional and named
/// arguments.
pub fn expr(scope: &Scope, cfg: &GenConfig) -> BoxedStrategy<Expr> {
    let mut leaves: Vec<BoxedStrategy<Expr>> = vec![
        lit().prop_map(Expr::Lit).boxed(),
        lit().prop_map(Expr::Lit).boxed(),
        Just(Expr::Random).boxed(),
    ];
    if scope.vars > 0 {
        leaves.push((0..scope.vars).prop_map(|v| Expr::Var(VarId(v))).boxed());
    }
    if scope.imports > 0 {
        leaves.push(
            (0..scope.imports)
                .prop_map(|i| Expr::Bound(ImportId(i)))
                .boxed(),
        );
    }
    if scope.timestamps > 0 {
        let q = select(&[TsQuery::EverSet, TsQuery::Valid, TsQuery::Elapsed][..]);
        leaves.push(
            (0..scope.timestamps, q)
                .prop_map(|(t, q)| Expr::Timestamp(TimestampId(t), q))
                .boxed(),
        );
    }
    if !scope.functions.is_empty() {
        leaves.push(
            select(scope.functions.clone())
                .prop_map(|import| {
                    Expr::Call(CallExpr {
                        import,
                        args: Vec::new(),
                    })
                })
                .boxed(),
        );
    }
    let functions = scope.functions.clone();
    let max_args = cfg.max_args;
    Union::new(leaves)
        .prop_recursive(cfg.expr_depth, 16, 3, move |inner| {
            let mut ops: Vec<BoxedStrategy<Expr>> = vec![
                inner.clone().prop_map(|e| Expr::Not(Box::new(e))).boxed(),
                inner.clone().prop_map(|e| Expr::Neg(Box::new(e))).boxed(),
                (select(&BinOp::ALL[..]), inner.clone(), inner.clone())
                    .prop_map(|(op, a, b)| Expr::binary(op, a, b))
                    .boxed(),
                (select(&BinOp::ALL[..]), inner.clone(), inner.clone())
                    .prop_map(|(op, a, b)| Expr::binary(op, a, b))
                    .boxed(),
            ];
            if !functions.is_empty() {
                ops.push(
                    (
                        select(functions.clone()),
                        vec(arg(inner.clone()), 0..=max_args),
                    )
                        .prop_map(|(import, args)| Expr::Call(CallExpr { import, args }))
                        .boxed(),
                );
            }
            Union::new(ops)
        })
        .boxed()
}

/// A call argument, named a third of the time.
pub fn arg(value: BoxedStrategy<Expr>) -> BoxedStrategy<Arg> {
    (option::weighted(0.35, name()), value)
        .prop_map(|(name, value)| Arg { name, value })
        .boxed()
}

// ---- nodes -------------------------------------------------------------------------------

fn node_name() -> BoxedStrategy<Option<String>> {
    option::weighted(0.2, text()).boxed()
}

fn mk(kind: NodeKind, name: Option<String>, children: Vec<NodeBuf>) -> NodeBuf {
    NodeBuf {
        kind,
        name,
        span: Span::DUMMY,
        children,
    }
}

fn guard_eval() -> BoxedStrategy<GuardEval> {
    select(
        &[
            GuardEval::EveryTick,
            GuardEval::OnEntry,
            GuardEval::OnChange,
        ][..],
    )
    .boxed()
}

fn quorum() -> BoxedStrategy<Quorum> {
    select(&[Quorum::All, Quorum::Any][..]).boxed()
}

fn flag_test() -> BoxedStrategy<FlagTest> {
    (any::<u32>(), any::<bool>(), any::<bool>())
        .prop_map(|(mask, all, set)| FlagTest { mask, all, set })
        .boxed()
}

/// Leaf nodes over `scope` (`include` and action-based kinds only when the scope allows).
pub fn leaf(scope: &Scope, cfg: &GenConfig) -> BoxedStrategy<NodeBuf> {
    let e = expr(scope, cfg);
    let mut kinds: Vec<BoxedStrategy<NodeKind>> = vec![
        e.clone().prop_map(NodeKind::Condition).boxed(),
        status().prop_map(NodeKind::Const).boxed(),
        Just(NodeKind::Yield).boxed(),
        (
            prop_oneof![int(), -5i64..5000],
            prop_oneof![any::<u32>(), 0u32..100],
            status(),
        )
            .prop_map(|(ms, variation_ms, result)| {
                NodeKind::Wait(Wait {
                    ms,
                    variation_ms,
                    result,
                })
            })
            .boxed(),
        e.clone().prop_map(NodeKind::WaitUntil).boxed(),
        (text(), status())
            .prop_map(|(event, then)| NodeKind::SendEvent(SendEvent { event, then }))
            .boxed(),
        (text(), status())
            .prop_map(|(event, result)| NodeKind::WaitForEvent(WaitForEvent { event, result }))
            .boxed(),
        text().prop_map(NodeKind::Log).boxed(),
        text().prop_map(NodeKind::Select).boxed(),
    ];
    if scope.subtrees > 0 {
        kinds.push(
            (0..scope.subtrees)
                .prop_map(|s| NodeKind::Include(SubtreeId(s)))
                .boxed(),
        );
    }
    if !scope.actions.is_empty() {
        let actions = select(scope.actions.clone());
        kinds.push(
            (actions.clone(), vec(arg(e.clone()), 0..=cfg.max_args))
                .prop_map(|(import, args)| NodeKind::Action(CallExpr { import, args }))
                .boxed(),
        );
        kinds.push(actions.prop_map(NodeKind::Behavior).boxed());
    }
    (Union::new(kinds), node_name())
        .prop_map(|(kind, name)| mk(kind, name, Vec::new()))
        .boxed()
}

/// A `case` arm around `child`.
pub fn case(e: BoxedStrategy<Expr>, child: BoxedStrategy<NodeBuf>) -> BoxedStrategy<NodeBuf> {
    (e, node_name(), child)
        .prop_map(|(c, name, child)| mk(NodeKind::Case(c), name, vec![child]))
        .boxed()
}

/// A raw transition whose target is reduced modulo the number of states later.
fn transition(e: BoxedStrategy<Expr>) -> BoxedStrategy<Transition> {
    let on = prop_oneof![text().prop_map(Trigger::Event), e.prop_map(Trigger::When),];
    (on, 0u32..16)
        .prop_map(|(on, to)| Transition { on, to })
        .boxed()
}

/// A `state` around `child` with up to three transitions to targets in `0..16`.
pub fn state(e: BoxedStrategy<Expr>, child: BoxedStrategy<NodeBuf>) -> BoxedStrategy<NodeBuf> {
    (node_name(), vec(transition(e), 0..3), child)
        .prop_map(|(name, transitions, child)| {
            mk(
                NodeKind::State(StateNode { transitions }),
                name,
                vec![child],
            )
        })
        .boxed()
}

/// A `decider` around `child`, with every precondition optional.
pub fn decider(e: BoxedStrategy<Expr>, child: BoxedStrategy<NodeBuf>) -> BoxedStrategy<NodeBuf> {
    (
        (
            option::of(any::<u32>()),
            option::of(flag_test()),
            option::of(flag_test()),
        ),
        option::of(e),
        any::<bool>(),
        node_name(),
        child,
    )
        .prop_map(
            |((every_ms, decision, stimuli), decide, decide_on_redecide, name, child)| {
                let d = Decider {
                    pre: Precondition {
                        every_ms,
                        decision,
                        stimuli,
                    },
                    decide,
                    decide_on_redecide,
                };
                mk(NodeKind::Decider(d), name, vec![child])
            },
        )
        .boxed()
}

/// Nodes over `scope`: every kind, with `case`, `state` and `decider` only under their parents.
pub fn node(scope: &Scope, cfg: &GenConfig) -> BoxedStrategy<NodeBuf> {
    let scope = scope.clone();
    let cfg = cfg.clone();
    let e = expr(&scope, &cfg);
    leaf(&scope, &cfg)
        .prop_recursive(cfg.node_depth, cfg.node_size, 3, move |inner| {
            let kids = vec(inner.clone(), 0..=cfg.max_children);
            let resume = select(
                &[
                    Resume::Restart,
                    Resume::Remember,
                    Resume::RunningList,
                    Resume::Cursor,
                ][..],
            );
            let composite = (resume, any::<bool>(), option::weighted(0.3, e.clone())).prop_map(
                |(resume, looping, cond)| Composite {
                    resume,
                    looping,
                    cond,
                },
            );
            let actions = scope.actions.clone();
            let opt_action = move || -> BoxedStrategy<Option<ImportId>> {
                if actions.is_empty() {
                    Just(None).boxed()
                } else {
                    option::of(select(actions.clone())).boxed()
                }
            };
            let one = |kind: BoxedStrategy<NodeKind>| {
                (kind, node_name(), inner.clone())
                    .prop_map(|(k, name, child)| mk(k, name, vec![child]))
                    .boxed()
            };
            let many = |kind: BoxedStrategy<NodeKind>| {
                (kind, node_name(), kids.clone())
                    .prop_map(|(k, name, children)| mk(k, name, children))
                    .boxed()
            };
            let n = 0..=cfg.max_children;
            let options: Vec<BoxedStrategy<NodeBuf>> = vec![
                many(composite.clone().prop_map(NodeKind::Sequence).boxed()),
                many(composite.prop_map(NodeKind::Selector).boxed()),
                many(
                    (quorum(), quorum(), any::<bool>(), any::<bool>())
                        .prop_map(|(success, failure, stop_on_failure, remember)| {
                            NodeKind::Parallel(Parallel {
                                success,
                                failure,
                                stop_on_failure,
                                remember,
                            })
                        })
                        .boxed(),
                ),
                (
                    guard_eval(),
                    node_name(),
                    vec(case(e.clone(), inner.clone()), n.clone()),
                )
                    .prop_map(|(repick, name, cases)| {
                        mk(NodeKind::Priority(Priority { repick }), name, cases)
                    })
                    .boxed(),
                (node_name(), vec(state(e.clone(), inner.clone()), n.clone()))
                    .prop_map(|(name, mut states)| {
                        let count = states.len() as u32;
                        for s in &mut states {
                            if let NodeKind::State(st) = &mut s.kind {
                                for t in &mut st.transitions {
                                    t.to %= count.max(1);
                                }
                            }
                        }
                        mk(NodeKind::StateMachine, name, states)
                    })
                    .boxed(),
                (
                    select(
                        &[
                            Policy::Prioritized,
                            Policy::Sequential,
                            Policy::Random,
                            Policy::Scored,
                        ][..],
                    ),
                    opt_action(),
                    node_name(),
                    vec(decider(e.clone(), inner.clone()), n),
                )
                    .prop_map(|(policy, behavior, name, deciders)| {
                        mk(NodeKind::Group(Group { policy, behavior }), name, deciders)
                    })
                    .boxed(),
                one(Just(NodeKind::Invert).boxed()),
                one((status(), status(), status())
                    .prop_map(|(failure, success, running)| {
                        NodeKind::MapStatus(StatusMap {
                            failure,
                            success,
                            running,
                        })
                    })
                    .boxed()),
                one(prop_oneof![any::<u32>(), 0u32..10_000]
                    .prop_map(|ms| NodeKind::Cooldown(Cooldown { ms }))
                    .boxed()),
                one((e.clone(), guard_eval())
                    .prop_map(|(cond, eval)| NodeKind::Guard(Guard { cond, eval }))
                    .boxed()),
                one((option::of(any::<u32>()), status())
                    .prop_map(|(count, exit_on)| NodeKind::Loop(Loop { count, exit_on }))
                    .boxed()),
                one((text(), any::<u32>())
                    .prop_map(|(scope, max_users)| {
                        NodeKind::GroupScope(GroupScope { scope, max_users })
                    })
                    .boxed()),
                one((opt_action(), opt_action())
                    .prop_map(|(enter, exit)| NodeKind::Hooks(Hooks { enter, exit }))
                    .boxed()),
                one((option::of(text()), option::of(text()), option::of(text()))
                    .prop_map(|(start, success, failure)| {
                        NodeKind::LogStatus(LogStatus {
                            start,
                            success,
                            failure,
                        })
                    })
                    .boxed()),
            ];
            Union::new(options)
        })
        .boxed()
}

/// The body of an entry point or subtree: usually any [`node`], sometimes a bare `case`,
/// `state` (with unchecked transition targets) or `decider`, which [`Tree::validate`] allows
/// where there is no parent.
pub fn entry_body(scope: &Scope, cfg: &GenConfig) -> BoxedStrategy<NodeBuf> {
    let n = node(scope, cfg);
    let e = expr(scope, cfg);
    prop_oneof![
        6 => n.clone(),
        1 => case(e.clone(), n.clone()),
        1 => state(e.clone(), n.clone()),
        1 => decider(e, n),
    ]
    .boxed()
}

// ---- tables and trees --------------------------------------------------------------------

/// Every dialect with arbitrary tree-wide knobs (not necessarily the dialect's own).
pub fn tree_config() -> BoxedStrategy<(Dialect, TreeConfig)> {
    let model = prop_oneof![
        any::<u32>().prop_map(|capacity| Model::RunningList { capacity }),
        any::<u32>().prop_map(|runaway_limit| Model::Cursor { runaway_limit }),
        Just(Model::Lifecycle),
        Just(Model::Selection),
        any::<u32>().prop_map(|redecide_limit| Model::Decider { redecide_limit }),
    ];
    (
        select(&Dialect::ALL[..]),
        model,
        select(
            &[
                RootFinish::Rerun,
                RootFinish::RestartOrStop,
                RootFinish::Stop,
            ][..],
        ),
        select(&[Abort::Abandon, Abort::Terminate][..]),
        select(&[Precision::Single, Precision::Double][..]),
    )
        .prop_map(|(dialect, model, root_finish, abort, precision)| {
            (
                dialect,
                TreeConfig {
                    model,
                    root_finish,
                    abort,
                    precision,
                },
            )
        })
        .boxed()
}

/// Imports of one kind with distinct names.
fn imports_of(kind: ImportKind, max: usize) -> BoxedStrategy<Vec<Import>> {
    (
        unique_names(1, max),
        vec((any::<u8>(), any::<u8>(), any::<bool>()), max),
    )
        .prop_map(move |(names, knobs)| {
            names
                .into_iter()
                .zip(knobs)
                .map(|(name, (min_args, max_args, long_running))| Import {
                    name,
                    kind,
                    min_args,
                    max_args,
                    long_running,
                })
                .collect()
        })
        .boxed()
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

/// Generates [`Tables`].
pub fn tables(cfg: &GenConfig) -> BoxedStrategy<Tables> {
    let imports = (
        imports_of(ImportKind::Action, cfg.max_imports),
        imports_of(ImportKind::Function, cfg.max_imports),
    )
        .prop_flat_map(|(mut a, f)| {
            a.extend(f);
            Just(a).prop_shuffle()
        });
    let ty = select(&[Type::Bool, Type::Int, Type::Float][..]);
    let vars = unique_names(0, cfg.max_vars).prop_flat_map(move |names| {
        let n = names.len();
        (Just(names), vec(ty.clone(), n)).prop_flat_map(|(names, tys)| {
            let defaults: Vec<_> = tys.iter().map(|t| lit_of(*t)).collect();
            (Just(names), Just(tys), defaults).prop_map(|(names, tys, defaults)| {
                names
                    .into_iter()
                    .zip(tys)
                    .zip(defaults)
                    .map(|((name, ty), default)| Var { name, ty, default })
                    .collect::<Vec<_>>()
            })
        })
    });
    let timestamps = unique_names(0, cfg.max_timestamps).prop_flat_map(|names| {
        let n = names.len() as u32;
        let link = option::of(0..n.max(1));
        (
            Just(names.clone()),
            vec((option::of(text()), link), names.len()),
        )
            .prop_map(move |(names, knobs)| {
                names
                    .into_iter()
                    .zip(knobs)
                    .map(|(name, (set_on, link))| TimestampDecl {
                        name,
                        set_on,
                        exclusive_to: link.filter(|_| n > 0).map(TimestampId),
                    })
                    .collect::<Vec<_>>()
            })
    });
    (imports, vars, timestamps)
        .prop_map(|(imports, vars, timestamps)| Tables {
            imports,
            vars,
            timestamps,
        })
        .boxed()
}

/// Whole trees that pass [`Tree::validate`]: tables, signals, one or more entry points and
/// zero or more subtrees (both sharing modes) that nodes may `include`, under any dialect and
/// [`TreeConfig`].
pub fn tree(cfg: GenConfig) -> BoxedStrategy<Tree> {
    (
        tables(&cfg),
        unique_names(1, cfg.max_roots),
        unique_names(0, cfg.max_subtrees),
        tree_config(),
    )
        .prop_flat_map(move |(tables, roots, subs, config)| {
            let scope = Scope::new(
                &tables.imports,
                tables.vars.len(),
                tables.timestamps.len(),
                subs.len(),
            );
            let signals = if scope.vars == 0 {
                Just(Vec::new()).boxed()
            } else {
                vec(
                    (text(), 0..scope.vars, expr(&scope, &cfg)),
                    0..=cfg.max_signals,
                )
                .boxed()
            };
            let body = entry_body(&scope, &cfg);
            let sharing = select(&[Sharing::Shared, Sharing::PerSite][..]);
            (
                Just(tables),
                Just(config),
                signals,
                vec(body.clone(), roots.len())
                    .prop_map(move |b| roots.clone().into_iter().zip(b).collect::<Vec<_>>()),
                vec((sharing, body), subs.len())
                    .prop_map(move |b| subs.clone().into_iter().zip(b).collect::<Vec<_>>()),
            )
        })
        .prop_map(|(tables, (dialect, config), signals, roots, subs)| {
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
            for (event, var, value) in signals {
                b.signal(event, VarId(var), value);
            }
            for (name, body) in roots {
                b.root(name, body);
            }
            for (name, (sharing, body)) in subs {
                let id = b.declare_subtree(name, sharing, Span::DUMMY);
                b.define_subtree(id, body);
            }
            b.finish().expect("generated trees always have a root")
        })
        .boxed()
}

// ---- running-list (Unvanquished model) trees ----------------------------------------------

/// Size bounds for [`running_list_tree`]: trees the running-list model runs, for comparing
/// the engines that implement it.
#[derive(Clone, Debug)]
pub struct RlConfig {
    /// Nesting levels of composite/decorator nodes above the leaves.
    pub node_depth: u32,
    /// The node count proptest aims for per body (a soft bound).
    pub node_size: u32,
    /// Most children of an ordinary composite.
    pub max_children: usize,
    /// Most children of a wide composite (drawn now and then).
    pub wide_children: usize,
    /// Nesting levels of unary/binary/call expressions above the leaves.
    pub expr_depth: u32,
    /// Most arguments of one call (actions and functions).
    pub max_args: usize,
    /// Most entry points (there is always at least one).
    pub max_roots: usize,
    /// Most subtrees.
    pub max_subtrees: usize,
    /// Most action imports (at least one).
    pub max_actions: usize,
    /// Most function imports (at least one).
    pub max_functions: usize,
    /// Most variables.
    pub max_vars: usize,
}

impl Default for RlConfig {
    fn default() -> Self {
        RlConfig {
            node_depth: 8,
            node_size: 40,
            max_children: 4,
            wide_children: 10,
            expr_depth: 3,
            max_args: 3,
            max_roots: 3,
            max_subtrees: 4,
            max_actions: 5,
            max_functions: 4,
            max_vars: 3,
        }
    }
}

/// Strings that running-list trees use as literals most of the time, so that a scenario can
/// make a function answer a string the tree also has (and compare equal to it).
pub const RL_STRINGS: &[&str] = &[
    "",
    "a",
    "b",
    "two words",
    "q\"uote",
    "back\\slash",
    "é😀",
    "#",
];

/// A string literal: usually one of [`RL_STRINGS`], sometimes arbitrary text.
pub fn rl_string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(RL_STRINGS).prop_map(str::to_string),
        1 => text(),
    ]
    .boxed()
}

/// Any literal, strings mostly from [`RL_STRINGS`].
pub fn rl_lit() -> BoxedStrategy<Lit> {
    prop_oneof![
        any::<bool>().prop_map(Lit::Bool),
        int().prop_map(Lit::Int),
        float().prop_map(Lit::Float),
        rl_string().prop_map(Lit::Str),
    ]
    .boxed()
}

/// Expressions the running-list model evaluates: every variant but timestamp queries, every
/// operator, calls with 0 to `max_args` (sometimes named) arguments.
pub fn rl_expr(scope: &Scope, cfg: &RlConfig) -> BoxedStrategy<Expr> {
    let mut leaves: Vec<(u32, BoxedStrategy<Expr>)> = vec![
        (4, rl_lit().prop_map(Expr::Lit).boxed()),
        (1, Just(Expr::Random).boxed()),
    ];
    if scope.vars > 0 {
        leaves.push((2, (0..scope.vars).prop_map(|v| Expr::Var(VarId(v))).boxed()));
    }
    if scope.imports > 0 {
        leaves.push((
            1,
            (0..scope.imports)
                .prop_map(|i| Expr::Bound(ImportId(i)))
                .boxed(),
        ));
    }
    if !scope.functions.is_empty() {
        leaves.push((
            3,
            select(scope.functions.clone())
                .prop_map(|import| {
                    Expr::Call(CallExpr {
                        import,
                        args: Vec::new(),
                    })
                })
                .boxed(),
        ));
    }
    let functions = scope.functions.clone();
    let max_args = cfg.max_args;
    Union::new_weighted(leaves)
        .prop_recursive(cfg.expr_depth, 12, 3, move |inner| {
            let mut ops: Vec<(u32, BoxedStrategy<Expr>)> = vec![
                (
                    1,
                    inner.clone().prop_map(|e| Expr::Not(Box::new(e))).boxed(),
                ),
                (
                    1,
                    inner.clone().prop_map(|e| Expr::Neg(Box::new(e))).boxed(),
                ),
                (
                    4,
                    (select(&BinOp::ALL[..]), inner.clone(), inner.clone())
                        .prop_map(|(op, a, b)| Expr::binary(op, a, b))
                        .boxed(),
                ),
            ];
            if !functions.is_empty() {
                ops.push((
                    2,
                    (
                        select(functions.clone()),
                        vec(arg(inner.clone()), 0..=max_args),
                    )
                        .prop_map(|(import, args)| Expr::Call(CallExpr { import, args }))
                        .boxed(),
                ));
            }
            Union::new_weighted(ops)
        })
        .boxed()
}

/// Cooldown lengths: 0, short and long ones (against tick steps of tens to hundreds of ms),
/// and the largest.
pub fn rl_cooldown_ms() -> BoxedStrategy<u32> {
    prop_oneof![
        2 => Just(0u32),
        3 => 1u32..60,
        3 => 60u32..600,
        2 => 600u32..5000,
        1 => select(&[1u32, 100, 1000, u32::MAX][..]),
    ]
    .boxed()
}

/// Nodes of the running-list model over `scope`: every kind and knob `check_supported`
/// accepts (sequence/selector with `restart` or `running-list` resume, parallel with any
/// quorums and either `stop-on-failure`, every-tick guard, condition, invert, map, cooldown,
/// include, action with 0 to `max_args` arguments, const). `include` nodes name subtrees in
/// `includes` only, so a caller can rule out cycles.
pub fn rl_node(
    scope: &Scope,
    cfg: &RlConfig,
    includes: std::ops::Range<u32>,
) -> BoxedStrategy<NodeBuf> {
    let e = rl_expr(scope, cfg);
    let max_args = cfg.max_args;
    let mut leaves: Vec<(u32, BoxedStrategy<NodeBuf>)> = vec![
        (
            2,
            e.clone()
                .prop_map(|c| mk(NodeKind::Condition(c), None, Vec::new()))
                .boxed(),
        ),
        (
            1,
            status()
                .prop_map(|s| mk(NodeKind::Const(s), None, Vec::new()))
                .boxed(),
        ),
    ];
    if !scope.actions.is_empty() {
        leaves.push((
            6,
            (
                select(scope.actions.clone()),
                prop_oneof![
                    2 => Just(Vec::new()),
                    1 => vec(arg(e.clone()), 1..=max_args.max(1)),
                ],
            )
                .prop_map(|(import, args)| {
                    mk(
                        NodeKind::Action(CallExpr { import, args }),
                        None,
                        Vec::new(),
                    )
                })
                .boxed(),
        ));
    }
    if !includes.is_empty() {
        leaves.push((
            3,
            includes
                .prop_map(|s| mk(NodeKind::Include(SubtreeId(s)), None, Vec::new()))
                .boxed(),
        ));
    }
    let cfg = cfg.clone();
    let one_kind = rl_decorator(e);
    Union::new_weighted(leaves)
        .prop_recursive(cfg.node_depth, cfg.node_size, 4, move |inner| {
            let kids = prop_oneof![
                5 => vec(inner.clone(), 0..=cfg.max_children),
                1 => wide(inner.clone(), cfg.max_children + 1..=cfg.wide_children),
            ];
            prop_oneof![
                5 => (rl_composite(), kids).prop_map(|(k, children)| mk(k, None, children)),
                4 => (one_kind.clone(), inner).prop_map(|(k, child)| mk(k, None, vec![child])),
            ]
        })
        .boxed()
}

/// The kinds of running-list composites: sequence and selector with either resume rule, and
/// parallel with any quorums and either `stop-on-failure`.
pub fn rl_composite() -> BoxedStrategy<NodeKind> {
    let composite =
        select(&[Resume::Restart, Resume::RunningList][..]).prop_map(|resume| Composite {
            resume,
            looping: false,
            cond: None,
        });
    prop_oneof![
        2 => composite.clone().prop_map(NodeKind::Sequence),
        2 => composite.prop_map(NodeKind::Selector),
        1 => (quorum(), quorum(), any::<bool>()).prop_map(|(success, failure, stop_on_failure)| {
            NodeKind::Parallel(Parallel {
                success,
                failure,
                stop_on_failure,
                remember: false,
            })
        }),
    ]
    .boxed()
}

/// The kinds of running-list decorators: every-tick guard (over `e`), invert, map (any
/// mapping) and cooldown.
pub fn rl_decorator(e: BoxedStrategy<Expr>) -> BoxedStrategy<NodeKind> {
    prop_oneof![
        2 => e.prop_map(|cond| NodeKind::Guard(Guard {
            cond,
            eval: GuardEval::EveryTick,
        })),
        1 => Just(NodeKind::Invert),
        1 => (status(), status(), status()).prop_map(|(failure, success, running)| {
            NodeKind::MapStatus(StatusMap {
                failure,
                success,
                running,
            })
        }),
        2 => rl_cooldown_ms().prop_map(|ms| NodeKind::Cooldown(Cooldown { ms })),
    ]
    .boxed()
}

/// The body of an entry or subtree: usually an [`rl_node`], sometimes one wrapped in a chain of
/// up to seven more decorators and composites (the node at any position among a few small
/// siblings), so bodies nest eight levels and more, and rarely a composite of 300 or so leaves.
pub fn rl_body(
    scope: &Scope,
    cfg: &RlConfig,
    includes: std::ops::Range<u32>,
) -> BoxedStrategy<NodeBuf> {
    let node = rl_node(scope, cfg, includes.clone());
    let small_cfg = RlConfig {
        node_depth: 2,
        node_size: 3,
        ..cfg.clone()
    };
    let small = rl_node(scope, &small_cfg, includes.clone());
    let leaf_cfg = RlConfig {
        node_depth: 0,
        node_size: 1,
        ..cfg.clone()
    };
    // Mostly argument-less actions, more than 255 of them, so action ordinals (the current-
    // action slot) need two bytes; parallel half the time, so every one of them runs.
    let leaf = rl_node(scope, &leaf_cfg, includes);
    let big_child = if scope.actions.is_empty() {
        leaf
    } else {
        let action = select(scope.actions.clone()).prop_map(|import| {
            mk(
                NodeKind::Action(CallExpr {
                    import,
                    args: Vec::new(),
                }),
                None,
                Vec::new(),
            )
        });
        prop_oneof![9 => action, 1 => leaf].boxed()
    };
    let parallel = (quorum(), quorum(), any::<bool>()).prop_map(|(success, failure, stop)| {
        NodeKind::Parallel(Parallel {
            success,
            failure,
            stop_on_failure: stop,
            remember: false,
        })
    });
    let big = (
        prop_oneof![rl_composite(), parallel],
        wide(big_child, 300..=330),
    )
        .prop_map(|(kind, children)| mk(kind, None, children));
    let siblings = vec(small, 0..=2);
    let layer = prop_oneof![
        (
            rl_decorator(rl_expr(scope, cfg)),
            Just(Vec::new()),
            Just(Vec::new())
        ),
        (rl_composite(), siblings.clone(), siblings),
    ];
    prop_oneof![
        150 => node.clone(),
        1 => big,
        50 => (node, vec(layer, 1..=7)).prop_map(|(node, layers)| {
            layers.into_iter().fold(node, |inner, (kind, mut before, after)| {
                let arity_one = !matches!(
                    kind,
                    NodeKind::Sequence(_) | NodeKind::Selector(_) | NodeKind::Parallel(_)
                );
                if arity_one {
                    return mk(kind, None, vec![inner]);
                }
                before.push(inner);
                before.extend(after);
                mk(kind, None, before)
            })
        }),
    ]
    .boxed()
}

/// Between `size.start()` and `size.end()` elements, almost always; unlike `vec`, it shrinks to
/// fewer (each element shrinks to "absent" first), so a failing case with a wide composite can
/// lose the children that do not matter.
pub fn wide(
    element: BoxedStrategy<NodeBuf>,
    size: std::ops::RangeInclusive<usize>,
) -> BoxedStrategy<Vec<NodeBuf>> {
    vec(option::weighted(0.999, element), size)
        .prop_map(|v| v.into_iter().flatten().collect())
        .boxed()
}

/// Running-list capacities: the small ones that fill up, the game's 20, and odd extremes.
pub fn rl_capacity() -> BoxedStrategy<u32> {
    prop_oneof![
        4 => 1u32..=3,
        2 => 4u32..=8,
        2 => Just(20u32),
        1 => select(&[0u32, 300, u32::MAX][..]),
    ]
    .boxed()
}

/// Import names: identifiers mostly, sometimes anything [`name`] draws.
fn rl_import_name() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z][A-Za-z0-9_]{0,6}",
        1 => name(),
    ]
    .boxed()
}

/// A variable: its type, a default of that type or (now and then) a string default, which the
/// IR does not forbid and engines must intern.
fn rl_var() -> BoxedStrategy<(String, Type, Lit)> {
    (
        name(),
        select(&[Type::Bool, Type::Int, Type::Float][..]),
        (any::<bool>(), int(), float()),
        option::weighted(0.15, rl_string()),
    )
        .prop_map(|(name, ty, (b, i, x), s)| {
            let default = match (s, ty) {
                (Some(s), _) => Lit::Str(s),
                (None, Type::Bool) => Lit::Bool(b),
                (None, Type::Int) => Lit::Int(i),
                (None, Type::Float) => Lit::Float(x),
            };
            (name, ty, default)
        })
        .boxed()
}

/// Where the abstract references of generated bodies land in the assembled tree.
struct Remap {
    actions: Vec<ImportId>,
    functions: Vec<ImportId>,
    imports: u32,
    vars: u32,
}

impl Remap {
    fn expr(&self, e: &mut Expr) {
        match e {
            Expr::Call(c) => {
                c.import = self.functions[c.import.index() % self.functions.len()];
                for a in &mut c.args {
                    self.expr(&mut a.value);
                }
            }
            Expr::Bound(i) => *i = ImportId(i.0 % self.imports),
            Expr::Var(v) if self.vars == 0 => *e = Expr::Lit(Lit::Int(i64::from(v.0))),
            Expr::Var(v) => *v = VarId(v.0 % self.vars),
            Expr::Not(a) | Expr::Neg(a) => self.expr(a),
            Expr::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Lit(_) | Expr::Random | Expr::Timestamp(..) => {}
        }
    }

    /// Remaps a body whose `include` nodes may name the subtrees in `includes` (an include
    /// with nothing to name becomes a `const`).
    fn node(&self, n: &mut NodeBuf, includes: &std::ops::Range<u32>) {
        match &mut n.kind {
            NodeKind::Action(c) => {
                c.import = self.actions[c.import.index() % self.actions.len()];
                for a in &mut c.args {
                    self.expr(&mut a.value);
                }
            }
            NodeKind::Condition(e) => self.expr(e),
            NodeKind::Guard(g) => self.expr(&mut g.cond),
            NodeKind::Sequence(c) | NodeKind::Selector(c) => {
                if let Some(e) = &mut c.cond {
                    self.expr(e);
                }
            }
            NodeKind::Include(s) if includes.is_empty() => {
                n.kind = NodeKind::Const(Status::ALL[s.0 as usize % 3]);
            }
            NodeKind::Include(s) => s.0 = includes.start + s.0 % includes.len() as u32,
            _ => {}
        }
        for c in &mut n.children {
            self.node(c, includes);
        }
    }
}

/// Whole trees of the Unvanquished running-list model: 1 to `max_roots` entries (so scenario
/// `entry` lines have something to run), 0 to `max_subtrees` subtrees of either sharing mode
/// (subtree `i` may include only subtrees after it, so includes nest but never cycle; entries
/// may include any), 1 to `max_actions` actions and 1 to `max_functions` functions (in random
/// order), 0 to `max_vars` variables, random capacity (see [`rl_capacity`]) and precision.
///
/// There is no `prop_flat_map` here, so failing cases shrink well: bodies are drawn against the
/// largest tables and their references are mapped onto the actual ones (modulo their sizes)
/// when the tree is assembled.
pub fn running_list_tree(cfg: RlConfig) -> BoxedStrategy<Tree> {
    let scope = Scope {
        actions: (0..cfg.max_actions as u32).map(ImportId).collect(),
        functions: (0..cfg.max_functions as u32).map(ImportId).collect(),
        imports: (cfg.max_actions + cfg.max_functions) as u32,
        vars: cfg.max_vars as u32,
        timestamps: 0,
        subtrees: cfg.max_subtrees as u32,
    };
    let all = 0..cfg.max_subtrees as u32;
    let body = rl_body(&scope, &cfg, all);
    let import = (rl_import_name(), any::<bool>());
    (
        (
            vec(import.clone(), 1..=cfg.max_actions),
            vec(import, 1..=cfg.max_functions),
            vec(any::<u16>(), cfg.max_actions + cfg.max_functions),
        ),
        vec(rl_var(), 0..=cfg.max_vars),
        vec((name(), body.clone()), 1..=cfg.max_roots),
        vec(
            (
                name(),
                select(&[Sharing::Shared, Sharing::PerSite][..]),
                body,
            ),
            0..=cfg.max_subtrees,
        ),
        rl_capacity(),
        select(&[Precision::Single, Precision::Double][..]),
    )
        .prop_map(
            |((actions, functions, order), vars, roots, subs, capacity, precision)| {
                let mut b = TreeBuilder::new(Dialect::Unvanquished);
                b.config(TreeConfig {
                    model: Model::RunningList { capacity },
                    precision,
                    ..TreeConfig::for_dialect(Dialect::Unvanquished)
                });
                // Imports: unique names per kind, interleaved in the order of `order`.
                let of_kind = |list: Vec<(String, bool)>, kind: ImportKind| {
                    let (names, long): (Vec<_>, Vec<_>) = list.into_iter().unzip();
                    make_unique(names)
                        .into_iter()
                        .zip(long)
                        .map(move |(name, long_running)| Import {
                            name,
                            kind,
                            min_args: 0,
                            max_args: 3,
                            long_running,
                        })
                        .collect::<Vec<_>>()
                };
                let mut imports: Vec<(u16, Import)> = of_kind(actions, ImportKind::Action)
                    .into_iter()
                    .chain(of_kind(functions, ImportKind::Function))
                    .zip(order)
                    .map(|(i, k)| (k, i))
                    .collect();
                imports.sort_by_key(|(k, _)| *k);
                let imports: Vec<Import> = imports.into_iter().map(|(_, i)| i).collect();
                let scope = Scope::new(&imports, vars.len(), 0, subs.len());
                let remap = Remap {
                    actions: scope.actions,
                    functions: scope.functions,
                    imports: scope.imports,
                    vars: scope.vars,
                };
                for i in imports {
                    b.import(i);
                }
                let (names, vars): (Vec<_>, Vec<_>) =
                    vars.into_iter().map(|(n, t, d)| (n, (t, d))).unzip();
                for (name, (ty, default)) in make_unique(names).into_iter().zip(vars) {
                    b.var(Var { name, ty, default });
                }
                let n = subs.len() as u32;
                let (names, bodies): (Vec<_>, Vec<_>) = roots.into_iter().unzip();
                for (name, mut body) in make_unique(names).into_iter().zip(bodies) {
                    remap.node(&mut body, &(0..n));
                    b.root(name, body);
                }
                let (names, subs): (Vec<_>, Vec<_>) =
                    subs.into_iter().map(|(n, s, b)| (n, (s, b))).unzip();
                for (i, (name, (sharing, mut body))) in
                    make_unique(names).into_iter().zip(subs).enumerate()
                {
                    remap.node(&mut body, &(i as u32 + 1..n));
                    let id = b.declare_subtree(name, sharing, Span::DUMMY);
                    b.define_subtree(id, body);
                }
                b.finish().expect("generated trees always have a root")
            },
        )
        .boxed()
}

// ---- cursor (Drag[en]gine model) trees ------------------------------------------------------

/// The leaves of a cursor-model rule: actions (0 to `max_args` arguments), conditions, every
/// constant and `yield`.
fn cursor_leaf(scope: &Scope, cfg: &RlConfig) -> BoxedStrategy<NodeBuf> {
    let e = rl_expr(scope, cfg);
    let max_args = cfg.max_args;
    let mut leaves: Vec<(u32, BoxedStrategy<NodeBuf>)> = vec![
        (
            2,
            e.clone()
                .prop_map(|c| mk(NodeKind::Condition(c), None, Vec::new()))
                .boxed(),
        ),
        (
            2,
            status()
                .prop_map(|s| mk(NodeKind::Const(s), None, Vec::new()))
                .boxed(),
        ),
        (2, Just(mk(NodeKind::Yield, None, Vec::new())).boxed()),
    ];
    if !scope.actions.is_empty() {
        leaves.push((
            7,
            (
                select(scope.actions.clone()),
                prop_oneof![
                    2 => Just(Vec::new()),
                    1 => vec(arg(e), 1..=max_args.max(1)),
                ],
            )
                .prop_map(|(import, args)| {
                    mk(
                        NodeKind::Action(CallExpr { import, args }),
                        None,
                        Vec::new(),
                    )
                })
                .boxed(),
        ));
    }
    Union::new_weighted(leaves).boxed()
}

/// The decorators a cursor rule may carry: every-tick guard, invert, map (any mapping, so
/// also a running result from a finished list, and `doNotFail`'s failure → success).
fn cursor_decorator(e: BoxedStrategy<Expr>) -> BoxedStrategy<NodeKind> {
    prop_oneof![
        3 => e.prop_map(|cond| NodeKind::Guard(Guard {
            cond,
            eval: GuardEval::EveryTick,
        })),
        1 => Just(NodeKind::Invert),
        1 => Just(NodeKind::MapStatus(StatusMap {
            failure: Status::Success,
            success: Status::Success,
            running: Status::Running,
        })),
        1 => (status(), status(), status()).prop_map(|(failure, success, running)| {
            NodeKind::MapStatus(StatusMap { failure, success, running })
        }),
    ]
    .boxed()
}

/// A rule of the cursor model: up to two decorators over a leaf or over a `cursor` sequence or
/// selector (any `loop`, any `when` condition) whose children are rules; about half the rules
/// carry an id.
pub fn cursor_rule(scope: &Scope, cfg: &RlConfig) -> BoxedStrategy<NodeBuf> {
    let e = rl_expr(scope, cfg);
    let dec = cursor_decorator(e.clone());
    let wrap = move |core: BoxedStrategy<NodeBuf>| {
        let ids = option::weighted(0.5, select(&[".a", ".b", "x", ".run", "r.1"][..]));
        (vec(dec.clone(), 0..=2), core, ids)
            .prop_map(|(ds, core, id)| {
                let mut n = ds.into_iter().fold(core, |n, d| mk(d, None, vec![n]));
                n.name = id.map(str::to_string);
                n
            })
            .boxed()
    };
    let leaf = cursor_leaf(scope, cfg);
    let max_children = cfg.max_children;
    wrap(leaf.clone())
        .prop_recursive(cfg.node_depth.min(5), cfg.node_size, 4, move |inner| {
            let composite = (
                any::<bool>(),
                any::<bool>(),
                option::weighted(0.4, e.clone()),
            )
                .prop_map(|(seq, looping, cond)| {
                    let c = Composite {
                        resume: Resume::Cursor,
                        looping,
                        cond,
                    };
                    if seq {
                        NodeKind::Sequence(c)
                    } else {
                        NodeKind::Selector(c)
                    }
                });
            let list = (composite, vec(inner, 0..=max_children))
                .prop_map(|(k, children)| mk(k, None, children))
                .boxed();
            prop_oneof![
                1 => wrap(leaf.clone()),
                3 => wrap(list),
            ]
        })
        .boxed()
}

/// A Drag[en]gine-model tree: one `main` rule from [`cursor_rule`], 1 to `max_actions` actions
/// and 1 to `max_functions` functions, 0 to `max_vars` variables, a run-away limit from 1 to
/// 120 (small ones often, so steps hit it), either precision.
pub fn cursor_tree(cfg: RlConfig) -> BoxedStrategy<Tree> {
    let scope = Scope {
        actions: (0..cfg.max_actions as u32).map(ImportId).collect(),
        functions: (0..cfg.max_functions as u32).map(ImportId).collect(),
        imports: (cfg.max_actions + cfg.max_functions) as u32,
        vars: cfg.max_vars as u32,
        timestamps: 0,
        subtrees: 0,
    };
    (
        vec(rl_import_name(), 1..=cfg.max_actions),
        vec(rl_import_name(), 1..=cfg.max_functions),
        vec(rl_var(), 0..=cfg.max_vars),
        cursor_rule(&scope, &cfg),
        prop_oneof![2 => 1u32..12, 1 => 12u32..=120],
        select(&[Precision::Single, Precision::Double][..]),
    )
        .prop_map(|(actions, functions, vars, mut body, limit, precision)| {
            let mut b = TreeBuilder::new(Dialect::Dragengine);
            b.config(TreeConfig {
                model: Model::Cursor {
                    runaway_limit: limit,
                },
                precision,
                ..TreeConfig::for_dialect(Dialect::Dragengine)
            });
            let imports: Vec<Import> = make_unique(actions)
                .into_iter()
                .map(|name| (name, ImportKind::Action))
                .chain(
                    make_unique(functions)
                        .into_iter()
                        .map(|name| (name, ImportKind::Function)),
                )
                .map(|(name, kind)| Import {
                    name,
                    kind,
                    min_args: 0,
                    max_args: 3,
                    long_running: true,
                })
                .collect();
            let scope = Scope::new(&imports, vars.len(), 0, 0);
            let remap = Remap {
                actions: scope.actions,
                functions: scope.functions,
                imports: scope.imports,
                vars: scope.vars,
            };
            for i in imports {
                b.import(i);
            }
            let (names, vars): (Vec<_>, Vec<_>) =
                vars.into_iter().map(|(n, t, d)| (n, (t, d))).unzip();
            for (name, (ty, default)) in make_unique(names).into_iter().zip(vars) {
                b.var(Var { name, ty, default });
            }
            remap.node(&mut body, &(0..0));
            b.root("main", body);
            b.finish().expect("generated trees always have a root")
        })
        .boxed()
}
