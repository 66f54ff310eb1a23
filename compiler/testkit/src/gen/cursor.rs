//! Trees of the Drag\[en\]gine cursor model that every engine runs: one `main` rule tree.

use arbitrary::{Result, Unstructured};
use btvm::{Import, ImportKind, Status};

use super::any_tree::{arg, mk, status_map};
use super::draw::{maybe, pick, range, repeat, weighted, Levels};
use super::running_list::{add_vars, rl_expr, rl_var, RlConfig};
use super::scope::{Remap, Scope};
use super::text::{import_name, make_unique, status};
use btvm_compiler::ir::{
    CallExpr, Composite, Dialect, Guard, GuardEval, Model, NodeBuf, NodeKind, Precision, Resume,
    StatusMap, Tree, TreeBuilder, TreeConfig,
};

/// The leaves of a cursor-model rule: conditions, constants and `yield` (2 each), and actions
/// (7) with no arguments two thirds of the time, else 1 to `max_args`.
fn cursor_leaf(u: &mut Unstructured<'_>, scope: &Scope, cfg: &RlConfig) -> Result<NodeBuf> {
    let e = |u: &mut Unstructured<'_>| rl_expr(u, scope, cfg);
    let actions = if scope.actions.is_empty() { 0 } else { 7 };
    let kind = match weighted(u, &[2, 2, 2, actions])? {
        0 => NodeKind::Condition(e(u)?),
        1 => NodeKind::Const(status(u)?),
        2 => NodeKind::Yield,
        _ => {
            let import = pick(u, &scope.actions)?;
            let args = match weighted(u, &[2, 1])? {
                0 => Vec::new(),
                _ => repeat(u, 1, cfg.max_args.max(1), |u| arg(u, e))?,
            };
            NodeKind::Action(CallExpr { import, args })
        }
    };
    Ok(mk(kind, None, Vec::new()))
}

/// The decorators a cursor rule may carry: every-tick guard (3), invert (1), `doNotFail`'s map
/// (failure → success; 1) and any map (1, so also a running result from a finished list).
fn cursor_decorator(u: &mut Unstructured<'_>, scope: &Scope, cfg: &RlConfig) -> Result<NodeKind> {
    Ok(match weighted(u, &[1, 3, 1, 1])? {
        0 => NodeKind::Invert,
        1 => NodeKind::Guard(Guard {
            cond: rl_expr(u, scope, cfg)?,
            eval: GuardEval::EveryTick,
        }),
        2 => NodeKind::MapStatus(StatusMap {
            failure: Status::Success,
            success: Status::Success,
            running: Status::Running,
        }),
        _ => NodeKind::MapStatus(status_map(u)?),
    })
}

/// Rule ids: Drag\[en\]gine's relative (`.a`) and plain ones.
const RULE_IDS: &[&str] = &[".a", ".b", "x", ".run", "r.1"];

/// A rule of the cursor model: up to two decorators over a leaf (1 in 4) or over a `cursor`
/// sequence or selector (3 in 4; any `loop`, a `when` condition 40% of the time) whose 0 to
/// `max_children` children are rules; half the rules carry an id. Nested up to
/// `min(node_depth, 5)` levels.
pub fn cursor_rule(u: &mut Unstructured<'_>, scope: &Scope, cfg: &RlConfig) -> Result<NodeBuf> {
    let levels = Levels::new(cfg.node_depth.min(5), cfg.node_size, 4);
    cursor_rule_at(u, scope, cfg, &levels, 0)
}

fn cursor_rule_at(
    u: &mut Unstructured<'_>,
    scope: &Scope,
    cfg: &RlConfig,
    levels: &Levels,
    level: u32,
) -> Result<NodeBuf> {
    let decorators = repeat(u, 0, 2, |u| cursor_decorator(u, scope, cfg))?;
    let core = match levels.branch(u, level)? {
        Some(l) if weighted(u, &[1, 3])? == 1 => {
            let c = Composite {
                resume: Resume::Cursor,
                looping: u.arbitrary()?,
                cond: maybe(u, 4, 10, |u| rl_expr(u, scope, cfg))?,
            };
            let kind = if u.arbitrary()? {
                NodeKind::Sequence(c)
            } else {
                NodeKind::Selector(c)
            };
            let children = repeat(u, 0, cfg.max_children, |u| {
                cursor_rule_at(u, scope, cfg, levels, l + 1)
            })?;
            mk(kind, None, children)
        }
        _ => cursor_leaf(u, scope, cfg)?,
    };
    let mut n = decorators
        .into_iter()
        .fold(core, |n, d| mk(d, None, vec![n]));
    n.name = maybe(u, 1, 2, |u| pick(u, RULE_IDS))?.map(str::to_string);
    Ok(n)
}

/// A Drag\[en\]gine-model tree: one `main` rule from [`cursor_rule`], 1 to `max_actions` actions
/// and 1 to `max_functions` functions (all long-running), 0 to `max_vars` variables, a
/// run-away limit from 1 to 120 (1–11 two thirds of the time, so steps hit it), either
/// precision. Every engine accepts them.
pub fn cursor_tree(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<Tree> {
    let scope = Scope::largest(cfg.max_actions, cfg.max_functions, cfg.max_vars, 0);
    let actions = repeat(u, 1, cfg.max_actions, import_name)?;
    let functions = repeat(u, 1, cfg.max_functions, import_name)?;
    let vars = repeat(u, 0, cfg.max_vars, rl_var)?;
    let mut body = cursor_rule(u, &scope, cfg)?;
    let runaway_limit = match weighted(u, &[2, 1])? {
        0 => range(u, 1, 11)?,
        _ => range(u, 12, 120)?,
    };
    let precision = pick(u, &[Precision::Single, Precision::Double])?;

    let mut b = TreeBuilder::new(Dialect::Dragengine);
    b.config(TreeConfig {
        model: Model::Cursor { runaway_limit },
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
            claims: btvm::SlotClaims::default(),
            script: None,
        })
        .collect();
    let remap = Remap::new(Scope::new(&imports, vars.len(), 0, 0));
    for i in imports {
        b.import(i);
    }
    add_vars(&mut b, vars);
    remap.node(&mut body, &(0..0));
    b.root("main", body);
    b.finish().map_err(|_| arbitrary::Error::IncorrectFormat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_a_small_tree() {
        let tree = cursor_tree(&mut Unstructured::new(&[]), &RlConfig::default()).unwrap();
        assert_eq!(tree.validate(), Ok(()));
        assert_eq!(tree.nodes.len(), 1);
    }
}
