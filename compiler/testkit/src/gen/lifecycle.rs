//! Trees of the MBT lifecycle model that every engine runs: every node kind and knob of
//! `spec/mbt.md` section 3 (sequence and selector `remember`, `parallel … remember` with every
//! quorum pair, `loop N until failure|success` with finite, zero and endless counts,
//! `priority on-change` over `case`s, `statemachine` with `on "EV"` transitions (to other states
//! and to themselves), `guard on-entry` (plain, `@random <= p` gates and IfTime conditions),
//! `map` (SuppressFailure and any other), `groupscope`, `hooks` with action and function calls,
//! `logstatus`, actions with positional and named arguments, `condition`, `const`, `wait` with
//! negative, zero and positive durations and variations, `waituntil`, `send`, `waitevent`,
//! `log`), boolean variables, signal bindings, timestamps with `on` events and `exclusive`
//! partners, and expressions with every timestamp query.
//!
//! Events come from a small vocabulary ([`EVENTS`]) shared with the scenario inputs, so sends,
//! transitions, signal bindings, timestamps and waits for events meet.

use arbitrary::{Result, Unstructured};
use btvm::{Import, ImportKind, Status};

use super::any_tree::{arg, mk, quorum, status_map};
use super::draw::{maybe, pick, range, repeat, weighted, Levels};
use super::running_list::{rl_expr, RlConfig};
use super::scope::Scope;
use super::text::{import_name, make_unique, status};
use btvm_compiler::ir::{
    BinOp, CallExpr, Composite, Dialect, Expr, GroupScope, Guard, GuardEval, Hooks, Lit, LogStatus,
    Loop, NodeBuf, NodeKind, Parallel, Priority, Resume, SendEvent, StateNode, StatusMap,
    TimestampDecl, TimestampId, Transition, Tree, TreeBuilder, Trigger, TsQuery, Type, Var, VarId,
    Wait, WaitForEvent,
};

/// The events generated lifecycle and selection trees and their scenarios use.
pub const EVENTS: &[&str] = &["go", "stop", "hit", "e.3"];

/// Group scope names (few, so agents and nodes contend).
const SCOPES: &[&str] = &["g", "cover"];

/// Log messages.
const MESSAGES: &[&str] = &["start", "ok", "bad", "say \"hi\"", "", "x\ny"];

/// What the generator of one tree knows.
struct Ctx<'a> {
    scope: &'a Scope,
    cfg: &'a RlConfig,
    levels: Levels,
}

/// An event name.
fn event(u: &mut Unstructured<'_>) -> Result<String> {
    pick(u, EVENTS).map(str::to_string)
}

/// An expression of the lifecycle model: the running-list expressions (4; variables, calls,
/// `@random`, every operator), a timestamp query (2, when there are timestamps), MBT's IfTime
/// condition (1) or a RandomGate test (1).
fn lc_expr(u: &mut Unstructured<'_>, cx: &Ctx<'_>) -> Result<Expr> {
    let ts = cx.scope.timestamps;
    let on = |yes: bool, w: u32| if yes { w } else { 0 };
    Ok(match weighted(u, &[4, on(ts > 0, 2), on(ts > 0, 1), 1])? {
        0 => rl_expr(u, cx.scope, cx.cfg)?,
        1 => {
            let t = TimestampId(range(u, 0, ts - 1)?);
            let q = pick(u, &[TsQuery::EverSet, TsQuery::Valid, TsQuery::Elapsed])?;
            let e = Expr::Timestamp(t, q);
            if q == TsQuery::Elapsed && u.arbitrary()? {
                let op = pick(u, &[BinOp::Gt, BinOp::Lt])?;
                Expr::binary(op, e, Expr::Lit(Lit::Int(range(u, 0, 500)?)))
            } else {
                e
            }
        }
        2 => {
            // `since=TS isMoreThan|isLessThan=t [orNeverBeenSet]` (spec/mbt.md section 3).
            let t = TimestampId(range(u, 0, ts - 1)?);
            let op = pick(u, &[BinOp::Gt, BinOp::Lt])?;
            let cmp = Expr::binary(
                op,
                Expr::Timestamp(t, TsQuery::Elapsed),
                Expr::Lit(Lit::Int(range(u, 0, 400)?)),
            );
            let valid = Expr::binary(BinOp::And, Expr::Timestamp(t, TsQuery::Valid), cmp);
            if u.arbitrary()? {
                Expr::binary(
                    BinOp::Or,
                    Expr::Not(Box::new(Expr::Timestamp(t, TsQuery::EverSet))),
                    valid,
                )
            } else {
                valid
            }
        }
        _ => {
            // RandomGate: `@random <= p`.
            let p = f64::from(range(u, 0u32, 4)?) / 4.0;
            Expr::binary(BinOp::Le, Expr::Random, Expr::Lit(Lit::Float(p)))
        }
    })
}

/// A call for an action node or a hook: an action (or, for hooks, now and then a function)
/// with no arguments half the time, else 1 to `max_args` arguments, positional or named.
fn call(u: &mut Unstructured<'_>, cx: &Ctx<'_>, functions: bool) -> Result<CallExpr> {
    let use_function = functions && !cx.scope.functions.is_empty() && weighted(u, &[2, 1])? == 1;
    let import = if use_function {
        pick(u, &cx.scope.functions)?
    } else {
        pick(u, &cx.scope.actions)?
    };
    let args = match weighted(u, &[1, 1])? {
        0 => Vec::new(),
        _ => repeat(u, 1, cx.cfg.max_args.max(1), |u| {
            arg(u, |u| rl_expr(u, cx.scope, cx.cfg))
        })?,
    };
    Ok(CallExpr { import, args })
}

/// A wait's duration: negative (never ends), 0, short or long against tick steps of tens to
/// hundreds of ms.
fn wait_ms(u: &mut Unstructured<'_>) -> Result<i64> {
    match weighted(u, &[1, 2, 4, 2])? {
        0 => range(u, -1000, -1),
        1 => Ok(0),
        2 => range(u, 1, 400),
        _ => range(u, 401, 3000),
    }
}

/// A leaf: action (8), condition (2), const (2), wait/timeout (3), waituntil (2), send (3),
/// waitevent (3), log (1).
fn leaf(u: &mut Unstructured<'_>, cx: &Ctx<'_>) -> Result<NodeBuf> {
    let kind = match weighted(u, &[8, 2, 2, 3, 2, 3, 3, 1])? {
        0 => NodeKind::Action(call(u, cx, false)?),
        1 => NodeKind::Condition(lc_expr(u, cx)?),
        2 => NodeKind::Const(status(u)?),
        3 => NodeKind::Wait(Wait {
            time: wait_ms(u)?,
            variation: match weighted(u, &[2, 1, 1])? {
                0 => 0,
                1 => range(u, 1, 300)?,
                _ => pick(u, &[1, 1000, u32::MAX])?,
            },
            result: pick(u, &[Status::Success, Status::Failure])?,
        }),
        4 => NodeKind::WaitUntil(lc_expr(u, cx)?),
        5 => NodeKind::SendEvent(SendEvent {
            event: event(u)?,
            then: match weighted(u, &[3, 2, 1])? {
                0 => Status::Success,
                1 => Status::Running,
                _ => Status::Failure,
            },
        }),
        6 => NodeKind::WaitForEvent(WaitForEvent {
            event: event(u)?,
            result: pick(u, &[Status::Success, Status::Failure])?,
        }),
        _ => NodeKind::Log(pick(u, MESSAGES)?.to_string()),
    };
    Ok(mk(kind, None, Vec::new()))
}

/// 1 to `max_children` children at level `l + 1`.
fn children(u: &mut Unstructured<'_>, cx: &Ctx<'_>, l: u32) -> Result<Vec<NodeBuf>> {
    repeat(u, 1, cx.cfg.max_children.max(1), |u| node_at(u, cx, l + 1))
}

/// A node at `level`: a leaf, or (when the level branches) a composite or decorator, wrapped
/// in a `logstatus` one time in eight.
fn node_at(u: &mut Unstructured<'_>, cx: &Ctx<'_>, level: u32) -> Result<NodeBuf> {
    let n = match cx.levels.branch(u, level)? {
        None => leaf(u, cx)?,
        Some(l) => composite(u, cx, l)?,
    };
    match maybe(u, 1, 8, |u| {
        Ok(LogStatus {
            start: maybe(u, 2, 3, |u| pick(u, MESSAGES).map(str::to_string))?,
            success: maybe(u, 2, 3, |u| pick(u, MESSAGES).map(str::to_string))?,
            failure: maybe(u, 2, 3, |u| pick(u, MESSAGES).map(str::to_string))?,
        })
    })? {
        Some(l) => Ok(mk(NodeKind::LogStatus(l), None, vec![n])),
        None => Ok(n),
    }
}

/// A composite or decorator whose children are drawn at level `l + 1`: sequence (3), selector
/// (3), parallel (2), loop (2), priority (2), statemachine (2), on-entry guard (2), map (2),
/// groupscope (1), hooks (2).
fn composite(u: &mut Unstructured<'_>, cx: &Ctx<'_>, l: u32) -> Result<NodeBuf> {
    let one = |u: &mut Unstructured<'_>| node_at(u, cx, l + 1).map(|n| vec![n]);
    Ok(match weighted(u, &[3, 3, 2, 2, 2, 2, 2, 2, 1, 2])? {
        0 | 1 => {
            let c = Composite {
                resume: Resume::Remember,
                looping: false,
                cond: None,
            };
            let kind = if u.arbitrary()? {
                NodeKind::Sequence(c)
            } else {
                NodeKind::Selector(c)
            };
            mk(kind, None, children(u, cx, l)?)
        }
        2 => {
            let p = Parallel {
                success: quorum(u)?,
                failure: quorum(u)?,
                stop_on_failure: false,
                remember: true,
            };
            mk(NodeKind::Parallel(p), None, children(u, cx, l)?)
        }
        3 => {
            let count = match weighted(u, &[2, 4, 1])? {
                0 => None,
                1 => Some(range(u, 1, 5)?),
                _ => Some(0),
            };
            let exit_on = pick(u, &[Status::Failure, Status::Success])?;
            mk(NodeKind::Loop(Loop { count, exit_on }), None, one(u)?)
        }
        4 => {
            let cases = repeat(u, 1, cx.cfg.max_children.max(1), |u| {
                let cond = match weighted(u, &[3, 1])? {
                    0 => lc_expr(u, cx)?,
                    _ => Expr::Lit(Lit::Bool(true)),
                };
                Ok(mk(NodeKind::Case(cond), None, one(u)?))
            })?;
            let p = Priority {
                repick: GuardEval::OnChange,
            };
            mk(NodeKind::Priority(p), None, cases)
        }
        5 => {
            let n = range(u, 1, 4u32)?;
            let mut states = Vec::new();
            for k in 0..n {
                let transitions = repeat(u, 0, 3, |u| {
                    Ok(Transition {
                        on: Trigger::Event(event(u)?),
                        to: range(u, 0, n - 1)?,
                    })
                })?;
                let mut s = mk(NodeKind::State(StateNode { transitions }), None, one(u)?);
                s.name = Some(format!("S{k}"));
                states.push(s);
            }
            mk(NodeKind::StateMachine, None, states)
        }
        6 => {
            let g = Guard {
                cond: lc_expr(u, cx)?,
                eval: GuardEval::OnEntry,
            };
            mk(NodeKind::Guard(g), None, one(u)?)
        }
        7 => {
            let m = match weighted(u, &[1, 1])? {
                0 => StatusMap {
                    failure: Status::Success,
                    success: Status::Success,
                    running: Status::Running,
                },
                _ => status_map(u)?,
            };
            mk(NodeKind::MapStatus(m), None, one(u)?)
        }
        8 => {
            let g = GroupScope {
                scope: pick(u, SCOPES)?.to_string(),
                max_users: pick(u, &[0, 1, 1, 1, 2, 3])?,
            };
            mk(NodeKind::GroupScope(g), None, one(u)?)
        }
        _ => {
            let h = Hooks {
                enter: maybe(u, 2, 3, |u| call(u, cx, true))?,
                exit: maybe(u, 2, 3, |u| call(u, cx, true))?,
            };
            mk(NodeKind::Hooks(h), None, one(u)?)
        }
    })
}

/// A lifecycle-model (MBT) tree: 1 to `max_actions` actions (0 to `max_args` arguments each,
/// all long-running), 0 to `max_functions` functions, 0 to `max_vars` boolean variables with
/// random defaults, 0 to 3 timestamps (each set on an event 3 times in 4, exclusive to another
/// — or itself — 1 time in 3), 0 to 4 signal bindings, and a body from the node kinds above,
/// nested up to `min(node_depth, 6)` levels. Every engine accepts them.
pub fn lifecycle_tree(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<Tree> {
    let actions = make_unique(repeat(u, 1, cfg.max_actions.max(1), import_name)?);
    let functions = make_unique(repeat(u, 0, cfg.max_functions, import_name)?);
    let var_count = range(u, 0, cfg.max_vars)?;
    let ts_count = range(u, 0, 3u32)?;
    let max_args = cfg.max_args.min(255) as u8;
    let imports: Vec<Import> = actions
        .into_iter()
        .map(|name| (name, ImportKind::Action))
        .chain(
            functions
                .into_iter()
                .map(|name| (name, ImportKind::Function)),
        )
        .map(|(name, kind)| Import {
            name,
            kind,
            min_args: 0,
            max_args,
            long_running: true,
            claims: btvm::SlotClaims::default(),
            script: None,
        })
        .collect();
    let scope = Scope::new(&imports, var_count, ts_count as usize, 0);
    let mut b = TreeBuilder::new(Dialect::Mbt);
    for i in imports {
        b.import(i);
    }
    for k in 0..var_count {
        b.var(Var {
            name: format!("v{k}"),
            ty: Type::Bool,
            default: Lit::Bool(u.arbitrary()?),
        });
    }
    for k in 0..ts_count {
        let set_on = maybe(u, 3, 4, event)?;
        b.timestamp(TimestampDecl {
            name: format!("t{k}"),
            set_on,
            exclusive_to: None,
        });
    }
    for k in 0..ts_count {
        if let Some(x) = maybe(u, 1, 3, |u| range(u, 0, ts_count - 1))? {
            b.set_exclusive(TimestampId(k), Some(TimestampId(x)));
        }
    }
    let cx = Ctx {
        scope: &scope,
        cfg,
        levels: Levels::new(cfg.node_depth.min(6), cfg.node_size, 3),
    };
    if var_count > 0 {
        for _ in 0..range(u, 0, 4u32)? {
            let ev = event(u)?;
            let var = VarId(range(u, 0, var_count as u32 - 1)?);
            let value = lc_expr(u, &cx)?;
            b.signal(ev, var, value);
        }
    }
    let body = node_at(u, &cx, 0)?;
    b.root("main", body);
    b.finish().map_err(|_| arbitrary::Error::IncorrectFormat)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Checks the cases `case` draws from pseudo-random bytes (xorshift from `seed`), 40 of each
    /// of a few lengths: each tree is valid, and the reference runs its scenario.
    pub(in crate::gen) fn reference_runs_random_cases(
        seed: u64,
        case: impl Fn(&mut Unstructured<'_>) -> Result<(Tree, String)>,
    ) {
        let mut state = seed;
        for len in [1, 16, 200, 2000] {
            for _ in 0..40 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state as u8
                    })
                    .collect();
                let mut u = Unstructured::new(&bytes);
                let (tree, scenario) = case(&mut u).unwrap();
                assert_eq!(tree.validate(), Ok(()));
                let scn = btvm_compiler::scenario::parse_scenario(
                    btvm_compiler::source::FileId(0),
                    &scenario,
                )
                .unwrap_or_else(|d| panic!("{d:?}\n{scenario}"));
                if let Err(d) = btvm_compiler::scenario::run(
                    &tree,
                    &scn,
                    btvm_compiler::scenario::EngineKind::Reference,
                ) {
                    panic!("{d:?}\n{}", btvm_compiler::syntax::canonical::print(&tree));
                }
            }
        }
    }

    #[test]
    fn exhausted_input_gives_a_small_tree_the_reference_runs() {
        let tree = lifecycle_tree(&mut Unstructured::new(&[]), &RlConfig::default()).unwrap();
        assert_eq!(tree.validate(), Ok(()));
        assert_eq!(tree.nodes.len(), 1);
        btvm_compiler::reference::Interpreter::new(&tree).unwrap();
    }

    #[test]
    fn any_bytes_give_a_tree_the_reference_runs() {
        reference_runs_random_cases(0x2545_f491_4f6c_dd1d, |u| {
            let case = super::super::lifecycle_case(u, &RlConfig::default())?;
            Ok((case.tree, case.scenario))
        });
    }
}
