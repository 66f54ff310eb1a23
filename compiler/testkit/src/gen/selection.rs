//! Trees of the BST selection model that every engine runs: every node kind and knob of
//! `spec/bst.md` section 3 (`select` leaves, a few behaviour names shared by several leaves,
//! `priority every-tick` and the forward-only `sequence remember` over `case`s, `statemachine`
//! with `when` transitions to other states and to themselves), boolean variables with random
//! defaults, signal bindings on the events of [`EVENTS`](super::EVENTS), CryEngine's
//! condition operators (`&&`, `||`, `^^`, `==`, `!=`, `!`, variables, `true`/`false`), and now
//! and then further entries (BST's other selection trees, which never run).

use arbitrary::{Result, Unstructured};

use super::any_tree::mk;
use super::draw::{pick, range, repeat, weighted, Levels};
use super::lifecycle::EVENTS;
use super::running_list::RlConfig;
use btvm_compiler::ir::{
    BinOp, Composite, Dialect, Expr, GuardEval, Lit, NodeBuf, NodeKind, Priority, Resume,
    StateNode, Transition, Tree, TreeBuilder, Trigger, Type, Var, VarId,
};

/// Behaviour names (few, so different leaves select the same behaviour).
const BEHAVIORS: &[&str] = &["Idle", "Attack", "Flee", ""];

/// What the generator of one tree knows.
struct Ctx<'a> {
    vars: u32,
    cfg: &'a RlConfig,
    levels: Levels,
}

/// A condition: CryEngine's operators over the variables, at most `depth` levels deep.
fn cond(u: &mut Unstructured<'_>, cx: &Ctx<'_>, depth: u32) -> Result<Expr> {
    let leaf = depth == 0 || weighted(u, &[3, 2])? == 0;
    if leaf {
        return Ok(match weighted(u, &[if cx.vars > 0 { 5 } else { 0 }, 1])? {
            0 => Expr::Var(VarId(range(u, 0, cx.vars - 1)?)),
            _ => Expr::Lit(Lit::Bool(u.arbitrary()?)),
        });
    }
    Ok(match weighted(u, &[1, 4])? {
        0 => Expr::Not(Box::new(cond(u, cx, depth - 1)?)),
        _ => {
            let op = pick(
                u,
                &[BinOp::And, BinOp::Or, BinOp::Xor, BinOp::Eq, BinOp::Ne],
            )?;
            let a = cond(u, cx, depth - 1)?;
            Expr::binary(op, a, cond(u, cx, depth - 1)?)
        }
    })
}

/// A case: a condition (`true` one time in four, as an absent BST condition) over a node.
fn case(u: &mut Unstructured<'_>, cx: &Ctx<'_>, l: u32) -> Result<NodeBuf> {
    let c = match weighted(u, &[3, 1])? {
        0 => cond(u, cx, 2)?,
        _ => Expr::Lit(Lit::Bool(true)),
    };
    Ok(mk(NodeKind::Case(c), None, vec![node_at(u, cx, l + 1)?]))
}

/// A node at `level`: a `select` leaf, or (when the level branches) a priority (3), a sequence
/// (2) or a state machine (3) whose children are drawn at the next level.
fn node_at(u: &mut Unstructured<'_>, cx: &Ctx<'_>, level: u32) -> Result<NodeBuf> {
    let Some(l) = cx.levels.branch(u, level)? else {
        let mut n = mk(
            NodeKind::Select(pick(u, BEHAVIORS)?.to_string()),
            None,
            Vec::new(),
        );
        n.name = Some(format!("L{}", range(u, 0, 9u32)?));
        return Ok(n);
    };
    let width = cx.cfg.max_children.max(1);
    Ok(match weighted(u, &[3, 2, 3])? {
        0 => mk(
            NodeKind::Priority(Priority {
                repick: GuardEval::EveryTick,
            }),
            None,
            repeat(u, 1, width, |u| case(u, cx, l))?,
        ),
        1 => mk(
            NodeKind::Sequence(Composite {
                resume: Resume::Remember,
                looping: false,
                cond: None,
            }),
            None,
            repeat(u, 1, width, |u| case(u, cx, l))?,
        ),
        _ => {
            let n = range(u, 1, 5u32)?;
            let mut states = Vec::new();
            for k in 0..n {
                let transitions = repeat(u, 0, 3, |u| {
                    Ok(Transition {
                        on: Trigger::When(cond(u, cx, 2)?),
                        to: range(u, 0, n - 1)?,
                    })
                })?;
                let mut s = mk(
                    NodeKind::State(StateNode { transitions }),
                    None,
                    vec![node_at(u, cx, l + 1)?],
                );
                s.name = Some(format!("S{k}"));
                states.push(s);
            }
            mk(NodeKind::StateMachine, None, states)
        }
    })
}

/// A selection-model (BST) tree: 0 to `max_vars + 1` boolean variables with random defaults,
/// 0 to 5 signal bindings (each event's bindings in file order, later ones seeing earlier
/// results), a body from the node kinds above nested up to `min(node_depth, 6)` levels, and
/// 0 to 1 further entries. Every engine accepts them.
pub fn selection_tree(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<Tree> {
    let var_count = range(u, 0, cfg.max_vars.saturating_add(1))? as u32;
    let mut b = TreeBuilder::new(Dialect::Bst);
    for k in 0..var_count {
        b.var(Var {
            name: format!("v{k}"),
            ty: Type::Bool,
            default: Lit::Bool(u.arbitrary()?),
        });
    }
    let cx = Ctx {
        vars: var_count,
        cfg,
        levels: Levels::new(cfg.node_depth.min(6), cfg.node_size, 3),
    };
    if var_count > 0 {
        for _ in 0..range(u, 0, 5u32)? {
            let ev = pick(u, EVENTS)?.to_string();
            let var = VarId(range(u, 0, var_count - 1)?);
            let value = cond(u, &cx, 2)?;
            b.signal(ev, var, value);
        }
    }
    let body = node_at(u, &cx, 0)?;
    b.root("main", body);
    if weighted(u, &[3, 1])? == 1 {
        let other = node_at(u, &cx, 1)?;
        b.root("other", other);
    }
    b.finish().map_err(|_| arbitrary::Error::IncorrectFormat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_a_small_tree_the_reference_runs() {
        let tree = selection_tree(&mut Unstructured::new(&[]), &RlConfig::default()).unwrap();
        assert_eq!(tree.validate(), Ok(()));
        assert_eq!(tree.nodes.len(), 1);
        btvm_compiler::reference::Interpreter::new(&tree).unwrap();
    }

    #[test]
    fn any_bytes_give_a_tree_the_reference_runs() {
        super::super::lifecycle::tests::reference_runs_random_cases(0x9e37_79b9_7f4a_7c15, |u| {
            let case = super::super::selection_case(u, &RlConfig::default())?;
            Ok((case.tree, case.scenario))
        });
    }
}
