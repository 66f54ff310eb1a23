//! Property tests of the reference interpreter on generated running-list (Unvanquished-model)
//! trees under generated scenarios:
//!
//! - it never panics and reports exactly one root status per agent per tick;
//! - it is deterministic (same tree, same scenario, same trace);
//! - printing the tree in the canonical syntax and parsing it back gives the same trace.
//!
//! And on generated MBT and BST trees (totality, determinism, lifecycle invariants) and Spore
//! decider trees (a tick without shared deciders redecides at most once per decider).
//!
//! `PROPTEST_CASES` raises the case count for long runs.

use btvm::{Import, ImportId, ImportKind, Status};
use btvm_compiler::ir::{
    Arg, BinOp, CallExpr, Composite, Cooldown, Dialect, Expr, Guard, GuardEval, Lit, NodeBuf,
    NodeKind, Parallel, Quorum, Resume, Sharing, StatusMap, SubtreeId, TreeBuilder,
};
use btvm_compiler::scenario::{parse_scenario, run, EngineKind};
use btvm_compiler::source::{FileId, Span};
use btvm_compiler::syntax::canonical;
use proptest::prelude::*;

const ACTIONS: u32 = 4;
const FUNCTIONS: u32 = 3;

fn expr() -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        (-3i64..4).prop_map(|i| Expr::Lit(Lit::Int(i))),
        prop_oneof![Just(0.5), Just(-0.25), Just(1.5)].prop_map(|x| Expr::Lit(Lit::Float(x))),
        (0..FUNCTIONS, proptest::option::of(0i64..3)).prop_map(|(f, a)| {
            let args = a
                .map(|v| Arg {
                    name: None,
                    value: Expr::Lit(Lit::Int(v)),
                })
                .into_iter()
                .collect();
            Expr::Call(CallExpr {
                import: ImportId(ACTIONS + f),
                args,
            })
        }),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        let ops = prop_oneof![
            Just(BinOp::Lt),
            Just(BinOp::Le),
            Just(BinOp::Gt),
            Just(BinOp::Ge),
            Just(BinOp::Eq),
            Just(BinOp::Ne),
            Just(BinOp::And),
            Just(BinOp::Or)
        ];
        prop_oneof![
            inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            (ops, inner.clone(), inner).prop_map(|(op, a, b)| Expr::binary(op, a, b)),
        ]
    })
    .boxed()
}

fn status() -> impl Strategy<Value = Status> {
    prop_oneof![
        Just(Status::Failure),
        Just(Status::Success),
        Just(Status::Running)
    ]
}

/// Nodes that may include subtrees `first..2`.
fn node(first: u32) -> BoxedStrategy<NodeBuf> {
    let s = Span::DUMMY;
    let mut leaves = vec![
        (0..ACTIONS)
            .prop_map(move |a| {
                NodeBuf::leaf(
                    NodeKind::Action(CallExpr {
                        import: ImportId(a),
                        args: vec![],
                    }),
                    s,
                )
            })
            .boxed(),
        expr()
            .prop_map(move |e| NodeBuf::leaf(NodeKind::Condition(e), s))
            .boxed(),
        status()
            .prop_map(move |st| NodeBuf::leaf(NodeKind::Const(st), s))
            .boxed(),
    ];
    if first < 2 {
        leaves.push(
            (first..2)
                .prop_map(move |i| NodeBuf::leaf(NodeKind::Include(SubtreeId(i)), s))
                .boxed(),
        );
    }
    let leaf = proptest::strategy::Union::new(leaves);
    leaf.prop_recursive(5, 40, 5, move |inner| {
        let kids = proptest::collection::vec(inner.clone(), 0..5);
        let composite = |resume| Composite {
            resume,
            looping: false,
            cond: None,
        };
        prop_oneof![
            kids.clone().prop_map(move |c| NodeBuf::new(
                NodeKind::Selector(composite(Resume::Restart)),
                s,
                c
            )),
            kids.clone().prop_map(move |c| NodeBuf::new(
                NodeKind::Selector(composite(Resume::RunningList)),
                s,
                c
            )),
            kids.clone().prop_map(move |c| NodeBuf::new(
                NodeKind::Sequence(composite(Resume::RunningList)),
                s,
                c
            )),
            kids.prop_map(move |c| {
                let p = Parallel {
                    success: Quorum::All,
                    failure: Quorum::Any,
                    stop_on_failure: true,
                    remember: false,
                };
                NodeBuf::new(NodeKind::Parallel(p), s, c)
            }),
            (expr(), inner.clone()).prop_map(move |(cond, c)| {
                NodeBuf::new(
                    NodeKind::Guard(Guard {
                        cond,
                        eval: GuardEval::EveryTick,
                    }),
                    s,
                    vec![c],
                )
            }),
            inner
                .clone()
                .prop_map(move |c| NodeBuf::new(NodeKind::Invert, s, vec![c])),
            (status(), status(), status(), inner.clone()).prop_map(
                move |(failure, success, running, c)| {
                    NodeBuf::new(
                        NodeKind::MapStatus(StatusMap {
                            failure,
                            success,
                            running,
                        }),
                        s,
                        vec![c],
                    )
                }
            ),
            (0u32..400, inner).prop_map(move |(ms, c)| NodeBuf::new(
                NodeKind::Cooldown(Cooldown { ms }),
                s,
                vec![c]
            )),
        ]
    })
    .boxed()
}

/// A tree with two shared subtrees; subtree 0 may include subtree 1, never the reverse.
fn tree() -> impl Strategy<Value = btvm_compiler::ir::Tree> {
    (node(0), node(1), node(2)).prop_map(|(main, s0, s1)| {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        for i in 0..ACTIONS {
            b.import(Import {
                name: format!("act{i}"),
                kind: ImportKind::Action,
                min_args: 0,
                max_args: 0,
                long_running: true,
                claims: btvm::SlotClaims::default(),
                script: None,
            });
        }
        for i in 0..FUNCTIONS {
            b.import(Import {
                name: format!("fn{i}"),
                kind: ImportKind::Function,
                min_args: 0,
                max_args: 1,
                long_running: false,
                claims: btvm::SlotClaims::default(),
                script: None,
            });
        }
        let a = b.declare_subtree("s0", Sharing::Shared, Span::DUMMY);
        let c = b.declare_subtree("s1", Sharing::Shared, Span::DUMMY);
        b.root("main", main);
        b.define_subtree(a, s0);
        b.define_subtree(c, s1);
        b.finish().expect("generated trees are complete")
    })
}

fn scenario() -> impl Strategy<Value = String> {
    let answers = proptest::collection::vec(
        prop_oneof![Just("running"), Just("success"), Just("failure")],
        1..5,
    );
    (
        1u32..3,
        1u32..25,
        proptest::collection::vec(answers, ACTIONS as usize),
        proptest::collection::vec(
            proptest::collection::vec(-2i64..3, 1..4),
            FUNCTIONS as usize,
        ),
        0i64..200,
        1i64..150,
    )
        .prop_map(|(agents, ticks, acts, fns, start, step)| {
            let mut s = format!("agents {agents}\nticks {ticks}\ntime {start} {step}\n");
            for (i, a) in acts.iter().enumerate() {
                s += &format!("answer act{i} = cycle {}\n", a.join(", "));
            }
            for (i, v) in fns.iter().enumerate() {
                let vs: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                s += &format!("answer fn{i} = cycle {}\n", vs.join(", "));
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn reference_runs_are_total_deterministic_and_survive_fmt(t in tree(), text in scenario()) {
        let scn = parse_scenario(FileId(0), &text).expect("generated scenarios parse");
        let trace = run(&t, &scn, EngineKind::Reference).expect("running-list trees run");
        let roots = trace.lines().iter().filter(|l| l.starts_with("root ")).count();
        prop_assert_eq!(roots, (scn.ticks * scn.agents) as usize);
        let again = run(&t, &scn, EngineKind::Reference).unwrap();
        prop_assert!(trace.diff(&again).is_none());
        let printed = canonical::print(&t);
        let reparsed = canonical::parse(FileId(0), &printed, &btvm::Limits::default())
            .map_err(|d| TestCaseError::fail(format!("{d:?}\n{printed}")))?;
        let via_text = run(&reparsed, &scn, EngineKind::Reference).unwrap();
        prop_assert!(trace.diff(&via_text).is_none(), "{}", printed);
    }
}

// ---- the lifecycle (MBT) and selection (BST) models ----------------------------------------

use btvm::AgentId;
use btvm_compiler::ir::{NodeId, Tree};
use btvm_compiler::reference::{Interpreter, Scopes};
use btvm_compiler::scenario::{InputKind, ScriptedHost};

/// A generated lifecycle- or selection-model case (tree and scenario text).
fn event_case() -> BoxedStrategy<(Tree, String)> {
    prop_oneof![
        btvm_testkit::strategies::from_bytes(btvm_testkit::strategies::MAX_BYTES, |u| {
            btvm_testkit::gen::lifecycle_case(u, &btvm_testkit::strategies::RlConfig::default())
                .map(|c| (c.tree, c.scenario))
        }),
        btvm_testkit::strategies::from_bytes(btvm_testkit::strategies::MAX_BYTES, |u| {
            btvm_testkit::gen::selection_case(u, &btvm_testkit::strategies::RlConfig::default())
                .map(|c| (c.tree, c.scenario))
        }),
    ]
    .boxed()
}

/// The parent of every node (`None` for entry and subtree roots).
fn parents(tree: &Tree) -> Vec<Option<NodeId>> {
    let mut p = vec![None; tree.nodes.len()];
    for (i, n) in tree.nodes.iter().enumerate() {
        for c in &n.children {
            p[c.index()] = Some(NodeId(i as u32));
        }
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// On generated MBT and BST trees: one `root`/`stopped` line per agent per tick, the same
    /// trace twice, the same trace after printing and parsing the tree.
    #[test]
    fn event_model_runs_are_total_deterministic_and_survive_fmt((t, text) in event_case()) {
        let scn = parse_scenario(FileId(0), &text).expect("generated scenarios parse");
        let trace = run(&t, &scn, EngineKind::Reference).expect("generated trees run");
        let ends = trace
            .lines()
            .iter()
            .filter(|l| l.starts_with("root ") || *l == "stopped")
            .count();
        prop_assert_eq!(ends, (scn.ticks * scn.agents) as usize);
        let again = run(&t, &scn, EngineKind::Reference).unwrap();
        prop_assert!(trace.diff(&again).is_none());
        let printed = canonical::print(&t);
        let reparsed = canonical::parse(FileId(0), &printed, &btvm::Limits::default())
            .map_err(|d| TestCaseError::fail(format!("{d:?}\n{printed}")))?;
        let via_text = run(&reparsed, &scn, EngineKind::Reference).unwrap();
        prop_assert!(trace.diff(&via_text).is_none(), "{}", printed);
    }

    /// Lifecycle invariants after every tick (`spec/mbt.md` 2.2, 2.3, 2.6): the live nodes
    /// form a connected tree from the root (through `case`, `state` and `logstatus`, which
    /// have no data); a stopped tree has no live node; the group-scope table counts exactly
    /// the live GroupScope nodes that entered. Selection: the root succeeds exactly when a
    /// behaviour is selected.
    #[test]
    fn lifecycle_state_stays_consistent((t, text) in event_case()) {
        let scn = parse_scenario(FileId(0), &text).expect("generated scenarios parse");
        let interp = Interpreter::new(&t).expect("generated trees run");
        let parent = parents(&t);
        let root = t.main_root().unwrap();
        let mut host = ScriptedHost::for_tree(&scn, &t);
        let mut scopes = Scopes::new();
        let mut agents: Vec<_> = (0..scn.agents).map(|a| interp.new_agent(AgentId(a))).collect();
        for k in 0..scn.ticks {
            host.set_tick(k);
            for state in &mut agents {
                if scn.resets.contains(&k) {
                    interp.reset_with_scopes(state, &mut scopes);
                }
                for input in scn.inputs.get(&k).into_iter().flatten() {
                    if input.agent.is_some_and(|a| a != state.agent().0) {
                        continue;
                    }
                    match &input.kind {
                        InputKind::Event(e) => interp.event(state, &mut host, e, scn.now(k)),
                        InputKind::Set { var, value } => {
                            let i = interp.var_index(var).expect("generated sets name variables");
                            interp.set_var(state, i, *value);
                        }
                        _ => {}
                    }
                }
                let status = interp.tick_with_scopes(state, &mut host, scn.now(k), &mut scopes);
                let live = state.live_nodes();
                if state.halt().is_some() {
                    prop_assert!(live.is_empty(), "a stopped tree has live nodes: {live:?}");
                }
                for &n in &live {
                    // Walk up through data-less wrappers to the nearest node with data.
                    let (mut top, mut up) = (n, parent[n.index()]);
                    while let Some(p) = up {
                        use btvm_compiler::ir::NodeKind::*;
                        match t.node(p).kind {
                            Case(_) | State(_) | LogStatus(_) => {
                                top = p;
                                up = parent[p.index()];
                            }
                            _ => break,
                        }
                    }
                    match up {
                        Some(p) => prop_assert!(live.contains(&p), "{n:?} live under {p:?}"),
                        None => prop_assert_eq!(top, root),
                    }
                }
                if t.config.model == btvm_compiler::ir::Model::Selection {
                    prop_assert_eq!(
                        status == Status::Success,
                        interp.selected(state).is_some()
                    );
                }
            }
            // A live GroupScope node is one that entered (one that did not fails at once), and
            // only an agent with a live GroupScope node of a scope's id can be a member of it
            // (at most once: members are a set; an inner scope of one name that finished first
            // has ended the membership while the outer node still runs).
            let mut held: std::collections::BTreeMap<u32, std::collections::BTreeSet<usize>> =
                Default::default();
            for (a, state) in agents.iter().enumerate() {
                for n in state.live_nodes() {
                    if let btvm_compiler::ir::NodeKind::GroupScope(g) = &t.node(n).kind {
                        held.entry(btvm::scope_id(&g.scope)).or_default().insert(a);
                    }
                }
            }
            for n in &t.nodes {
                if let btvm_compiler::ir::NodeKind::GroupScope(g) = &n.kind {
                    let want = held.get(&btvm::scope_id(&g.scope)).map_or(0, |m| m.len() as u32);
                    prop_assert!(scopes.users(0, &g.scope) <= want, "scope {}", g.scope);
                }
            }
        }
    }
}

// ---- the decider (Spore) model ------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        max_global_rejects: 4096,
        ..ProptestConfig::default()
    })]

    /// Masks last the tick (`spec/spore.md` 2.5, 2.7): in a tree without shared deciders a
    /// group tries each child at most once per tick, so a tick redecides at most once per
    /// decider below the root, and a redecide limit of that many never trips the loop guard.
    #[test]
    fn a_tick_redecides_at_most_once_per_decider(
        (mut t, text) in btvm_testkit::strategies::decider_case(btvm_testkit::strategies::RlConfig::default())
    ) {
        use btvm_compiler::ir::{Model, NodeKind};
        let shared = t.nodes.iter().any(|n| matches!(n.kind, NodeKind::Include(_)));
        prop_assume!(!shared);
        let deciders = t
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Decider(_)))
            .count() as u32;
        t.config.model = Model::Decider {
            redecide_limit: deciders.saturating_sub(1),
        };
        let scn = parse_scenario(FileId(0), &text).expect("generated scenarios parse");
        let trace = run(&t, &scn, EngineKind::Reference).expect("generated trees run");
        prop_assert!(
            !trace.lines().iter().any(|l| l.starts_with("error redecide limit")),
            "{}",
            canonical::print(&t)
        );
    }
}
