//! The fight-or-flight workload (`../shared/bench/fight-or-flight.md`) at 100,000 agents, in one
//! run for the hand-written baseline (also with its leaves called through the `Host` interface,
//! the floor of any engine), btvm's vm and native code, and two peer behavior-tree libraries:
//! bonsai-bt and behavior-tree-lite.
//!
//! Every implementation ticks the same tree over the same [`Agent`] records: the leaves call
//! [`Agent::attack`] and friends, the random changes are [`Agent::mutate`] and the root
//! statuses are folded with [`fold`]. One criterion iteration is one tick of every agent:
//! mutate, tick, fold, agent by agent (btvm's host mutates each agent in the batch's tick loop,
//! through `Host::before_tick`, then the statuses are folded in agent order).
//! Divide the time of one iteration by 100,000 for nanoseconds per agent-tick.
//!
//! Before anything is timed, each implementation runs a checking pass (1,000 agents, 32 warm-up
//! ticks, then 100 ticks folded into a checksum) and must reproduce the hand-written
//! baseline's checksum, which proves it does the same work. The one exception is bonsai-bt,
//! which cannot express the tree exactly (see [`bonsai`]): its checksum is printed beside the
//! baseline's and its benchmark id says "approximation".
//!
//! The peer libraries keep one tree instance per agent (they store the running state inside
//! the tree); those are built once, before timing.

use std::hint::black_box;
use std::time::Duration;

use btvm::{Batch, EngineKind, Limits, Status};
use btvm_benches::fight::{self, fold, Agent, FightHost, HandWritten, CHECKSUM_START};
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput,
};

/// Agents in the timed runs.
const AGENTS: u32 = 100_000;

/// The checking pass: agents, untimed warm-up ticks, checksummed ticks.
const CHECK: (u32, u32, u32) = (1_000, 32, 100);

/// The leaves of the tree, as the peer libraries name them. Conditions are leaves that
/// succeed or fail at once, as in those libraries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    EnemyVisible,
    HasAmmo,
    HealthAbove30,
    HealthBelow50,
    Attack,
    Flee,
    Heal,
    Roam,
}

impl Leaf {
    /// Runs the leaf on `a`, exactly as btvm's host and the hand-written baseline do.
    #[inline]
    fn run(self, a: &mut Agent) -> Status {
        let cond = |b: bool| if b { Status::Success } else { Status::Failure };
        match self {
            Leaf::EnemyVisible => cond(a.enemy_visible),
            Leaf::HasAmmo => cond(a.ammo > 0),
            Leaf::HealthAbove30 => cond(a.health > 30),
            Leaf::HealthBelow50 => cond(a.health < 50),
            Leaf::Attack => a.attack(),
            Leaf::Flee => a.flee(),
            Leaf::Heal => a.heal(),
            Leaf::Roam => a.roam(),
        }
    }
}

/// The checking pass over a population: `warm` ticks whose checksum is dropped, then `ticks`
/// ticks folded into the returned checksum (as `fight::run_handwritten` does).
fn checksum(warm: u32, ticks: u32, mut step: impl FnMut(u64) -> u64) -> u64 {
    for _ in 0..warm {
        step(CHECKSUM_START);
    }
    (0..ticks).fold(CHECKSUM_START, |chk, _| step(chk))
}

/// bonsai-bt: the closest approximation it can express.
///
/// **What differs.** bonsai-bt's only reactive selector (`Select(..).memory(false)`) rebuilds
/// each child's state from its `Behavior` description every tick before ticking it, so the
/// "fight" sequence beneath it cannot resume at its running child: while `attack` or `flee`
/// is running, every tick re-checks `enemy_visible`, `ammo > 0` and `health > 30` first. When
/// one of them changed (the random events flip visibility, change ammo, lower health), the
/// exact tree keeps attacking or fleeing, whereas bonsai-bt leaves the fight (to heal or roam)
/// or switches from attack to flee. Its memory selector (the default `Select`) would instead
/// resume a running `roam` without re-checking the fight branch. So the statuses, and the
/// checksum, differ from the exact tree.
///
/// bonsai-bt also finishes a tree once its root succeeds or fails (`tick` returns `None`
/// afterwards), so the root is reset with `reset_bt` after every tick that did not return
/// running, as its documentation describes.
mod bonsai {
    use super::{Agent, Leaf};
    use bonsai_bt::{Action, Behavior, Event, Select, Sequence, UpdateArgs, BT};

    /// One agent's tree (no blackboard: the leaves act on the agent passed to [`tick`]).
    pub type Tree = BT<Leaf, ()>;

    /// The tree: a reactive (memoryless) root selector over two memory sequences and roam.
    pub fn behavior() -> Behavior<Leaf> {
        Select(vec![
            Sequence(vec![
                Action(Leaf::EnemyVisible),
                Action(Leaf::HasAmmo),
                Select(vec![
                    Sequence(vec![Action(Leaf::HealthAbove30), Action(Leaf::Attack)]),
                    Action(Leaf::Flee),
                ]),
            ]),
            Sequence(vec![Action(Leaf::HealthBelow50), Action(Leaf::Heal)]),
            Action(Leaf::Roam),
        ])
        .memory(false)
    }

    /// The update event every tick uses (no time passes; the tree has no waits).
    pub fn event() -> Event {
        UpdateArgs { dt: 0.0 }.into()
    }

    /// One tick of one agent.
    #[inline]
    pub fn tick(bt: &mut Tree, e: &Event, a: &mut Agent) -> btvm::Status {
        let status = bt.tick(e, &mut |args, _| {
            let s = match args.action.run(a) {
                btvm::Status::Success => bonsai_bt::Success,
                btvm::Status::Failure => bonsai_bt::Failure,
                btvm::Status::Running => bonsai_bt::Running,
            };
            (s, args.dt)
        });
        match status {
            Some((bonsai_bt::Running, _)) => btvm::Status::Running,
            Some((s, _)) => {
                // A finished tree must be reset before it can be ticked again.
                bt.reset_bt();
                if s == bonsai_bt::Success {
                    btvm::Status::Success
                } else {
                    btvm::Status::Failure
                }
            }
            // Not reached: the tree is reset whenever it finishes.
            None => btvm::Status::Failure,
        }
    }
}

/// behavior-tree-lite: the exact tree, built from its text format with its own
/// `ReactiveFallback`, `Sequence` (with memory) and `Fallback` (with memory) nodes.
///
/// Its `ReactiveFallback` re-evaluates from the first child every tick and has no halt; its
/// `Sequence` and `Fallback` resume at their running child and restart after a failure. As
/// for btvm's tree (see `fight.rs`), halting makes no difference here, so the statuses are
/// exactly the baseline's.
///
/// Leaves reach the agent through the library's tick callback (the channel it provides for
/// the environment, since the blackboard only holds `'static` values): a leaf passes a
/// [`Call`] naming itself, the callback runs it on the agent and stores the result in the
/// call's cell. Nothing is allocated per tick.
mod btl {
    use std::any::Any;
    use std::cell::Cell;

    use super::{Agent, Leaf};
    use behavior_tree_lite::{
        boxify, load, parse_file, BehaviorCallback, BehaviorNode, BehaviorNodeContainer,
        BehaviorResult, Context, Registry,
    };

    /// The tree in behavior-tree-lite's format.
    const SOURCE: &str = "
tree main = ReactiveFallback {
    Sequence {
        EnemyVisible
        HasAmmo
        Fallback {
            Sequence {
                HealthAbove30
                Attack
            }
            Flee
        }
    }
    Sequence {
        HealthBelow50
        Heal
    }
    Roam
}
";

    /// What a leaf asks the environment to do, and the answer.
    struct Call {
        leaf: Leaf,
        result: Cell<BehaviorResult>,
    }

    struct LeafNode(Leaf);

    impl BehaviorNode for LeafNode {
        fn tick(&mut self, arg: BehaviorCallback, _ctx: &mut Context) -> BehaviorResult {
            let call = Call {
                leaf: self.0,
                result: Cell::new(BehaviorResult::Fail),
            };
            arg(&call);
            call.result.get()
        }
    }

    /// `count` instances of the tree, one per agent.
    pub fn trees(count: u32) -> Vec<BehaviorNodeContainer> {
        let mut registry = Registry::default();
        for (name, leaf) in [
            ("EnemyVisible", Leaf::EnemyVisible),
            ("HasAmmo", Leaf::HasAmmo),
            ("HealthAbove30", Leaf::HealthAbove30),
            ("HealthBelow50", Leaf::HealthBelow50),
            ("Attack", Leaf::Attack),
            ("Flee", Leaf::Flee),
            ("Heal", Leaf::Heal),
            ("Roam", Leaf::Roam),
        ] {
            registry.register(name, boxify(move || LeafNode(leaf)));
        }
        let (_, source) = parse_file(SOURCE).expect("the behavior-tree-lite tree parses");
        (0..count)
            .map(|_| load(&source, &registry, false).expect("the behavior-tree-lite tree loads"))
            .collect()
    }

    /// One tick of one agent. `ctx` is a context with an empty blackboard, shared by all
    /// agents (the tree uses no ports, so nothing of an agent is kept in it).
    #[inline]
    pub fn tick(
        tree: &mut BehaviorNodeContainer,
        ctx: &mut Context,
        a: &mut Agent,
    ) -> btvm::Status {
        let mut env = |m: &dyn Any| -> Option<Box<dyn Any>> {
            if let Some(call) = m.downcast_ref::<Call>() {
                call.result.set(match call.leaf.run(a) {
                    btvm::Status::Success => BehaviorResult::Success,
                    btvm::Status::Failure => BehaviorResult::Fail,
                    btvm::Status::Running => BehaviorResult::Running,
                });
            }
            None
        };
        match tree.tick(&mut env, ctx) {
            BehaviorResult::Success => btvm::Status::Success,
            BehaviorResult::Fail => btvm::Status::Failure,
            BehaviorResult::Running => btvm::Status::Running,
        }
    }
}

fn agents(n: u32) -> Vec<Agent> {
    (0..n).map(Agent::new).collect()
}

/// Times one tick of every agent per iteration; `step` folds one whole tick into a checksum.
fn bench_step(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    mut step: impl FnMut(u64) -> u64,
) {
    let mut chk = CHECKSUM_START;
    group.bench_function(id, |b| b.iter(|| chk = black_box(step(chk))));
    black_box(chk);
}

fn fight_or_flight(c: &mut Criterion) {
    let tree = fight::tree().expect("the fight-or-flight tree parses");
    let program = btvm_compiler::lower::lower(&tree, &Limits::default()).expect("the tree lowers");
    let (n, warm, ticks) = CHECK;

    // The checking pass: the same work everywhere (bonsai-bt approximates; printed only).
    let (expected, _) = fight::run_handwritten(n, warm, ticks);
    let (via_host, _) = fight::run_handwritten_host(&program, n, warm, ticks).expect("it binds");
    assert_eq!(
        via_host, expected,
        "hand-written through the host vs hand-written"
    );
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let (chk, _) = fight::run_engine(&program, kind, n, 1, warm, ticks).expect("btvm runs");
        assert_eq!(chk, expected, "btvm {kind} vs hand-written");
    }
    let lite = {
        let (mut pop, mut trees, mut ctx) = (
            agents(n),
            btl::trees(n),
            behavior_tree_lite::Context::default(),
        );
        checksum(warm, ticks, |chk| {
            pop.iter_mut().zip(&mut trees).fold(chk, |c, (a, t)| {
                a.mutate();
                fold(c, btl::tick(t, &mut ctx, a))
            })
        })
    };
    assert_eq!(lite, expected, "behavior-tree-lite vs hand-written");
    let approx = {
        let (mut pop, e) = (agents(n), bonsai::event());
        let mut trees: Vec<bonsai::Tree> = (0..n)
            .map(|_| bonsai::Tree::new(bonsai::behavior(), ()))
            .collect();
        checksum(warm, ticks, |chk| {
            pop.iter_mut().zip(&mut trees).fold(chk, |c, (a, t)| {
                a.mutate();
                fold(c, bonsai::tick(t, &e, a))
            })
        })
    };
    println!(
        "fight-or-flight checksums ({n} agents, {ticks} ticks after {warm}): hand-written, vm, \
         native, behavior-tree-lite {expected:016x}; bonsai-bt (approximation) {approx:016x}"
    );

    let mut group = c.benchmark_group("fight-or-flight");
    group
        .throughput(Throughput::Elements(u64::from(AGENTS)))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));

    {
        let mut pop: Vec<(Agent, HandWritten)> = agents(AGENTS)
            .into_iter()
            .map(|a| (a, HandWritten::default()))
            .collect();
        bench_step(&mut group, "hand-written", |chk| {
            pop.iter_mut().fold(chk, |c, (a, hw)| {
                a.mutate();
                fold(c, hw.tick(a))
            })
        });
    }
    {
        // The same logic with its leaves called through the Host interface, as the engines
        // call them: the floor of any engine on this workload.
        let mut floor = fight::HostFloor::new(&program, AGENTS).expect("the host binds the tree");
        bench_step(&mut group, "hand-written, Host API", |chk| floor.step(chk));
    }
    for kind in [EngineKind::Vm, EngineKind::Native] {
        let mut batch = Batch::with_engine(&program, AGENTS, kind).expect("main entry");
        assert!(batch.fallback().is_none(), "native code is not available");
        let mut host = FightHost::new(0, AGENTS);
        program.bind(&mut host).expect("the host binds the tree");
        bench_step(&mut group, &format!("btvm {kind}"), |chk| {
            batch
                .tick(&mut host, 0)
                .iter()
                .fold(chk, |c, &s| fold(c, s))
        });
    }
    {
        let (mut pop, mut trees, mut ctx) = (
            agents(AGENTS),
            btl::trees(AGENTS),
            behavior_tree_lite::Context::default(),
        );
        bench_step(&mut group, "behavior-tree-lite 0.3", |chk| {
            pop.iter_mut().zip(&mut trees).fold(chk, |c, (a, t)| {
                a.mutate();
                fold(c, btl::tick(t, &mut ctx, a))
            })
        });
    }
    {
        let (mut pop, e) = (agents(AGENTS), bonsai::event());
        let mut trees: Vec<bonsai::Tree> = (0..AGENTS)
            .map(|_| bonsai::Tree::new(bonsai::behavior(), ()))
            .collect();
        bench_step(&mut group, "bonsai-bt 0.14 (approximation)", |chk| {
            pop.iter_mut().zip(&mut trees).fold(chk, |c, (a, t)| {
                a.mutate();
                fold(c, bonsai::tick(t, &e, a))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, fight_or_flight);
criterion_main!(benches);
