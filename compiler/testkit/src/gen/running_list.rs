//! Trees of the Unvanquished running-list model that every engine runs: for comparing the
//! reference interpreter, the vm and native code on them.

use arbitrary::{Result, Unstructured};
use btvm::{Import, ImportId, ImportKind, SlotClaims};

use super::any_tree::{arg, mk, quorum, status_map};
use super::draw::{maybe, one_of, pick, range, repeat, shuffle, weighted, Levels};
use super::scope::{Remap, Scope};
use super::text::{
    float, import_name, int, make_unique, name, rl_lit, rl_string, status, var_type,
};
use btvm_compiler::ir::{
    BinOp, CallExpr, Composite, Cooldown, Dialect, Expr, Guard, GuardEval, Lit, Model, NodeBuf,
    NodeKind, Parallel, Precision, Resume, Sharing, SubtreeId, Tree, TreeBuilder, TreeConfig, Type,
    Var, VarId,
};
use btvm_compiler::source::Span;

/// Size bounds for [`running_list_tree`] (and, where they apply,
/// [`cursor_tree`](super::cursor_tree)): trees the engines run, for comparing them.
///
/// Generation recurses once per level of `node_depth` and `expr_depth` (each at most
/// [`MAX_DEPTH`](super::MAX_DEPTH)).
#[derive(Clone, Debug)]
pub struct RlConfig {
    /// Nesting levels of composite/decorator nodes above the leaves.
    pub node_depth: u32,
    /// The node count aimed for per body (a soft bound: it sets the chance of branching at
    /// each level, as proptest's `prop_recursive` does).
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

/// Expressions the running-list and cursor models evaluate: every variant but timestamp
/// queries, every operator, calls with 0 to `max_args` (sometimes named) arguments. Leaves are
/// literals (4), `@random` (1), variables (2), bound imports (1) and argument-less calls (3);
/// inner nodes `!` (1), `-` (1), binary operators (4) and calls (2).
pub fn rl_expr(u: &mut Unstructured<'_>, scope: &Scope, cfg: &RlConfig) -> Result<Expr> {
    rl_expr_at(u, scope, cfg, &Levels::new(cfg.expr_depth, 12, 3), 0)
}

fn rl_expr_at(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &RlConfig,
    levels: &Levels,
    level: u32,
) -> Result<Expr> {
    let calls = !scope.functions.is_empty();
    let Some(l) = levels.branch(u, level)? else {
        let on = |yes: bool, w: u32| if yes { w } else { 0 };
        let weights = [
            4,
            1,
            on(scope.vars > 0, 2),
            on(scope.imports > 0, 1),
            on(calls, 3),
        ];
        return Ok(match weighted(u, &weights)? {
            0 => Expr::Lit(rl_lit(u)?),
            1 => Expr::Random,
            2 => Expr::Var(VarId(range(u, 0, scope.vars - 1)?)),
            3 => Expr::Bound(ImportId(range(u, 0, scope.imports - 1)?)),
            _ => Expr::Call(CallExpr {
                import: pick(u, &scope.functions)?,
                args: Vec::new(),
            }),
        });
    };
    let inner = |u: &mut Unstructured<'_>| rl_expr_at(u, scope, cfg, levels, l + 1);
    Ok(match weighted(u, &[1, 1, 4, if calls { 2 } else { 0 }])? {
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

/// Cooldown lengths: 0, short and long ones (against tick steps of tens to hundreds of ms),
/// and the largest.
pub fn rl_cooldown_ms(u: &mut Unstructured<'_>) -> Result<u32> {
    match weighted(u, &[2, 3, 3, 2, 1])? {
        0 => Ok(0),
        1 => range(u, 1, 59),
        2 => range(u, 60, 599),
        3 => range(u, 600, 4999),
        _ => pick(u, &[1, 100, 1000, u32::MAX]),
    }
}

/// An action call on one of `scope`'s actions: no arguments two thirds of the time, else 1 to
/// `max_args` arguments.
pub(super) fn action_call(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    max_args: usize,
    e: impl Fn(&mut Unstructured<'_>) -> Result<Expr>,
) -> Result<NodeBuf> {
    let import = pick(u, &scope.actions)?;
    let args = match weighted(u, &[2, 1])? {
        0 => Vec::new(),
        _ => repeat(u, 1, max_args.max(1), |u| arg(u, &e))?,
    };
    Ok(mk(
        NodeKind::Action(CallExpr { import, args }),
        None,
        Vec::new(),
    ))
}

/// Nodes of the running-list model over `scope`: every kind and knob the model accepts
/// (sequence/selector with `restart` or `running-list` resume, parallel with any quorums and
/// either `stop-on-failure`, every-tick guard, condition, invert, map, cooldown, include,
/// action with 0 to `max_args` arguments, const). `include` nodes name subtrees in `includes`
/// only, so a caller can rule out cycles.
pub fn rl_node(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &RlConfig,
    includes: std::ops::Range<u32>,
) -> Result<NodeBuf> {
    let levels = Levels::new(cfg.node_depth, cfg.node_size, 4);
    rl_node_at(u, scope, cfg, &includes, &levels, 0)
}

fn rl_node_at(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &RlConfig,
    includes: &std::ops::Range<u32>,
    levels: &Levels,
    level: u32,
) -> Result<NodeBuf> {
    let e = |u: &mut Unstructured<'_>| rl_expr(u, scope, cfg);
    let Some(l) = levels.branch(u, level)? else {
        let actions = if scope.actions.is_empty() { 0 } else { 6 };
        let include = if includes.is_empty() { 0 } else { 3 };
        return match weighted(u, &[2, 1, actions, include])? {
            0 => Ok(mk(NodeKind::Condition(e(u)?), None, Vec::new())),
            1 => Ok(mk(NodeKind::Const(status(u)?), None, Vec::new())),
            2 => action_call(u, scope, cfg.max_args, e),
            _ => {
                let s = range(u, includes.start, includes.end - 1)?;
                Ok(mk(NodeKind::Include(SubtreeId(s)), None, Vec::new()))
            }
        };
    };
    let inner = |u: &mut Unstructured<'_>| rl_node_at(u, scope, cfg, includes, levels, l + 1);
    match weighted(u, &[4, 5])? {
        0 => {
            let kind = rl_decorator(u, e)?;
            Ok(mk(kind, None, vec![inner(u)?]))
        }
        _ => {
            let kind = rl_composite(u)?;
            let children = match weighted(u, &[5, 1])? {
                0 => repeat(u, 0, cfg.max_children, inner)?,
                _ => wide(u, cfg.max_children + 1, cfg.wide_children, inner)?,
            };
            Ok(mk(kind, None, children))
        }
    }
}

/// The kinds of running-list composites: sequence and selector (2 each) with either resume
/// rule, and parallel (1) with any quorums and either `stop-on-failure`.
pub fn rl_composite(u: &mut Unstructured<'_>) -> Result<NodeKind> {
    Ok(match weighted(u, &[2, 2, 1])? {
        0 => NodeKind::Sequence(rl_composite_knobs(u)?),
        1 => NodeKind::Selector(rl_composite_knobs(u)?),
        _ => rl_parallel(u)?,
    })
}

fn rl_composite_knobs(u: &mut Unstructured<'_>) -> Result<Composite> {
    Ok(Composite {
        resume: pick(u, &[Resume::Restart, Resume::RunningList])?,
        looping: false,
        cond: None,
    })
}

fn rl_parallel(u: &mut Unstructured<'_>) -> Result<NodeKind> {
    Ok(NodeKind::Parallel(Parallel {
        success: quorum(u)?,
        failure: quorum(u)?,
        stop_on_failure: u.arbitrary()?,
        remember: false,
    }))
}

/// The kinds of running-list decorators: invert (1), every-tick guard over `e` (2), map with
/// any mapping (1) and cooldown (2).
pub fn rl_decorator(
    u: &mut Unstructured<'_>,
    e: impl FnOnce(&mut Unstructured<'_>) -> Result<Expr>,
) -> Result<NodeKind> {
    Ok(match weighted(u, &[1, 2, 1, 2])? {
        0 => NodeKind::Invert,
        1 => NodeKind::Guard(Guard {
            cond: e(u)?,
            eval: GuardEval::EveryTick,
        }),
        2 => NodeKind::MapStatus(status_map(u)?),
        _ => NodeKind::Cooldown(Cooldown {
            ms: rl_cooldown_ms(u)?,
        }),
    })
}

/// The body of an entry or subtree: usually (150 in 201) an [`rl_node`]; sometimes (50) one
/// wrapped in a chain of one to seven more decorators and composites (the node at any position
/// among up to four small siblings), so bodies nest eight levels and more; and rarely (1) a
/// sequence, selector or parallel of 300 to 330 leaves, mostly argument-less actions (so action
/// ordinals need two bytes).
pub fn rl_body(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &RlConfig,
    includes: std::ops::Range<u32>,
) -> Result<NodeBuf> {
    match weighted(u, &[150, 50, 1])? {
        0 => rl_node(u, scope, cfg, includes),
        1 => {
            let node = rl_node(u, scope, cfg, includes.clone())?;
            let small_cfg = RlConfig {
                node_depth: 2,
                node_size: 3,
                ..cfg.clone()
            };
            let small = |u: &mut Unstructured<'_>| rl_node(u, scope, &small_cfg, includes.clone());
            let layers = range(u, 1, 7)?;
            let mut inner = node;
            for _ in 0..layers {
                inner = match one_of(u, 2)? {
                    0 => {
                        let kind = rl_decorator(u, |u| rl_expr(u, scope, cfg))?;
                        mk(kind, None, vec![inner])
                    }
                    _ => {
                        let kind = rl_composite(u)?;
                        let mut children = repeat(u, 0, 2, small)?;
                        children.push(inner);
                        children.extend(repeat(u, 0, 2, small)?);
                        mk(kind, None, children)
                    }
                };
            }
            Ok(inner)
        }
        _ => {
            // Parallel half the time, so every one of the children runs.
            let kind = match one_of(u, 2)? {
                0 => rl_composite(u)?,
                _ => rl_parallel(u)?,
            };
            let leaf_cfg = RlConfig {
                node_depth: 0,
                node_size: 1,
                ..cfg.clone()
            };
            let child = |u: &mut Unstructured<'_>| {
                if !scope.actions.is_empty() && weighted(u, &[9, 1])? == 0 {
                    let call = CallExpr {
                        import: pick(u, &scope.actions)?,
                        args: Vec::new(),
                    };
                    return Ok(mk(NodeKind::Action(call), None, Vec::new()));
                }
                rl_node(u, scope, &leaf_cfg, includes.clone())
            };
            let children = wide(u, 300, 330, child)?;
            Ok(mk(kind, None, children))
        }
    }
}

/// Between `lo` and `hi` elements, fewer (down to none) only when the input runs out.
pub fn wide(
    u: &mut Unstructured<'_>,
    lo: usize,
    hi: usize,
    element: impl FnMut(&mut Unstructured<'_>) -> Result<NodeBuf>,
) -> Result<Vec<NodeBuf>> {
    let n = range(u, lo, hi)?;
    let mut element = element;
    let mut out = Vec::with_capacity(n.min(512));
    for _ in 0..n {
        if u.is_empty() {
            break;
        }
        out.push(element(u)?);
    }
    Ok(out)
}

/// Running-list capacities: the small ones that fill up (1–3, 4 in 9), 4–8 (2), the game's
/// 20 (2), and odd extremes (0, 300, `u32::MAX`; 1).
pub fn rl_capacity(u: &mut Unstructured<'_>) -> Result<u32> {
    match weighted(u, &[4, 2, 2, 1])? {
        0 => range(u, 1, 3),
        1 => range(u, 4, 8),
        2 => Ok(20),
        _ => pick(u, &[0, 300, u32::MAX]),
    }
}

/// A variable: its name, its type, and a default of that type or (15%) a string default,
/// which the IR does not forbid and engines must intern.
pub fn rl_var(u: &mut Unstructured<'_>) -> Result<(String, Type, Lit)> {
    let name = name(u)?;
    let ty = var_type(u)?;
    let default = match maybe(u, 15, 100, rl_string)? {
        Some(s) => Lit::Str(s),
        None => match ty {
            Type::Bool => Lit::Bool(u.arbitrary()?),
            Type::Int => Lit::Int(int(u)?),
            Type::Float => Lit::Float(float(u)?),
        },
    };
    Ok((name, ty, default))
}

/// Adds `vars` to `b` with unique names.
pub(super) fn add_vars(b: &mut TreeBuilder, vars: Vec<(String, Type, Lit)>) {
    let (names, vars): (Vec<_>, Vec<_>) = vars.into_iter().map(|(n, t, d)| (n, (t, d))).unzip();
    for (name, (ty, default)) in make_unique(names).into_iter().zip(vars) {
        b.var(Var { name, ty, default });
    }
}

/// Imports of one kind with unique names and 0 to 3 arguments.
pub(super) fn imports_named(names: Vec<(String, bool)>, kind: ImportKind) -> Vec<Import> {
    let (names, long): (Vec<_>, Vec<_>) = names.into_iter().unzip();
    make_unique(names)
        .into_iter()
        .zip(long)
        .map(|(name, long_running)| Import {
            name,
            kind,
            min_args: 0,
            max_args: 3,
            long_running,
            claims: SlotClaims::default(),
            script: None,
        })
        .collect()
}

/// Any set of slot claims, the generic rule (claim while running) half the time.
pub(super) fn slot_claims(u: &mut Unstructured<'_>) -> Result<SlotClaims> {
    if u.arbitrary()? {
        return Ok(SlotClaims::default());
    }
    Ok(SlotClaims::from_bits(u.int_in_range(0..=7)?).unwrap_or_default())
}

/// Whole trees of the Unvanquished running-list model: 1 to `max_roots` entries (so scenario
/// `entry` lines have something to run), 0 to `max_subtrees` subtrees of either sharing mode
/// (subtree `i` may include only subtrees after it, so includes nest but never cycle; entries
/// may include any), 1 to `max_actions` actions and 1 to `max_functions` functions (in random
/// order, either long-running or not), 0 to `max_vars` variables, random capacity (see
/// [`rl_capacity`]) and precision. Every engine accepts them.
///
/// Bodies are drawn against the largest tables and their references are mapped onto the
/// actual ones (modulo their sizes) when the tree is assembled.
pub fn running_list_tree(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<Tree> {
    let scope = Scope::largest(
        cfg.max_actions,
        cfg.max_functions,
        cfg.max_vars,
        cfg.max_subtrees,
    );
    let all = 0..cfg.max_subtrees as u32;
    let import = |u: &mut Unstructured<'_>| Ok((import_name(u)?, u.arbitrary::<bool>()?));
    let actions = repeat(u, 1, cfg.max_actions, import)?;
    let functions = repeat(u, 1, cfg.max_functions, import)?;
    let vars = repeat(u, 0, cfg.max_vars, rl_var)?;
    let roots = repeat(u, 1, cfg.max_roots, |u| {
        Ok((name(u)?, rl_body(u, &scope, cfg, all.clone())?))
    })?;
    let subs = repeat(u, 0, cfg.max_subtrees, |u| {
        let name = name(u)?;
        let sharing = pick(u, &[Sharing::Shared, Sharing::PerSite])?;
        Ok((name, sharing, rl_body(u, &scope, cfg, all.clone())?))
    })?;
    let capacity = rl_capacity(u)?;
    let precision = pick(u, &[Precision::Single, Precision::Double])?;

    let mut b = TreeBuilder::new(Dialect::Unvanquished);
    b.config(TreeConfig {
        model: Model::RunningList { capacity },
        precision,
        ..TreeConfig::for_dialect(Dialect::Unvanquished)
    });
    let mut imports = imports_named(actions, ImportKind::Action);
    for i in &mut imports {
        i.claims = slot_claims(u)?;
    }
    imports.extend(imports_named(functions, ImportKind::Function));
    shuffle(u, &mut imports)?;
    let remap = Remap::new(Scope::new(&imports, vars.len(), 0, subs.len()));
    for i in imports {
        b.import(i);
    }
    add_vars(&mut b, vars);
    let n = subs.len() as u32;
    let (names, bodies): (Vec<_>, Vec<_>) = roots.into_iter().unzip();
    for (name, mut body) in make_unique(names).into_iter().zip(bodies) {
        remap.node(&mut body, &(0..n));
        b.root(name, body);
    }
    let (names, subs): (Vec<_>, Vec<_>) = subs.into_iter().map(|(n, s, b)| (n, (s, b))).unzip();
    for (i, (name, (sharing, mut body))) in make_unique(names).into_iter().zip(subs).enumerate() {
        remap.node(&mut body, &(i as u32 + 1..n));
        let id = b.declare_subtree(name, sharing, Span::DUMMY);
        b.define_subtree(id, body);
    }
    b.finish().map_err(|_| arbitrary::Error::IncorrectFormat)
}
