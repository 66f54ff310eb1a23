//! What removing an agent (`Batch::despawn`) and restarting its tree (`Batch::restart_agent`)
//! call, per model, as the original engines do (`spec/semantics.md` §4.6): only CRYENGINE's
//! MBT terminates the running tree (an `exit` call to the running action); Unvanquished,
//! Drag[en]gine and CryEngine 3's BST drop their tree state without a call, and Spore, with no
//! source, is defined to do the same. Each tree below has one agent running one action (or
//! behavior, or selected leaf) when it is removed.

use btvm::{AgentId, Batch, Call, Host, Phase, Program, Status, Value};
use btvm_testkit::compare::COMPILED;
use btvm_testkit::fixtures::{HEADER_BST, HEADER_MBT};

/// Every call the host sees: an action or function (import, phase), a selection, a log.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Call(u32, Phase),
    Select(String),
    Log(String),
}

/// Actions run, functions are true; everything is recorded (`before_tick` is not).
#[derive(Default)]
struct Rec(Vec<Seen>);

impl Host for Rec {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.0.push(Seen::Call(call.import.0, call.phase));
        Status::Running
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        self.0.push(Seen::Call(call.import.0, call.phase));
        Value::Bool(true)
    }
    fn select(&mut self, _agent: AgentId, behavior: &str) {
        self.0.push(Seen::Select(behavior.to_string()));
    }
    fn log(&mut self, _agent: AgentId, message: &str) {
        self.0.push(Seen::Log(message.to_string()));
    }
}

fn program(text: &str) -> Program {
    btvm_testkit::front::compile(text)
}

struct Case {
    model: &'static str,
    tree: String,
    /// What the last of three ticks shows running (derived from the tree: its one action
    /// returns running, so from the second tick on it continues).
    running: Seen,
    /// The calls despawning (and restarting) the agent makes, from the original's source.
    stop: Vec<Seen>,
}

fn cases() -> Vec<Case> {
    vec![
        // `G_BotDel` drops the client; `ClientDisconnect` frees the entity; no action is
        // called (sg_bot.cpp, sg_client.cpp). A behavior change resets without a call
        // (`G_Bot_ResetBehaviorState`).
        Case {
            model: "unvanquished (running list)",
            tree: "btvm 1;\ndialect unvanquished;\nimport action a 0..0;\n\
                   root main = sequence restart { action a() }\n"
                .into(),
            running: Seen::Call(0, Phase::Continue),
            stop: vec![],
        },
        // `ECBehaviorBehaviorTree.Instance.dispose` drops the context; `BTAction` has only
        // `runAction`; `BTContext.reset` sets the root rule and calls no action.
        Case {
            model: "dragengine (cursor)",
            tree: "btvm 1;\ndialect dragengine;\nmodel cursor 100;\nimport action a 0..0;\n\
                   root main = sequence cursor loop { action a() }\n"
                .into(),
            running: Seen::Call(0, Phase::Continue),
            stop: vec![],
        },
        // `~CAIActor` → `StopBehaviorTree` → `StopModularBehaviorTree` → the root's
        // `Terminate`: the running action gets its exit call (AIActor.cpp,
        // BehaviorTreeManager.cpp).
        Case {
            model: "mbt (lifecycle)",
            tree: format!(
                "{HEADER_MBT}import action Hold 0..0 long;\n\
                 root main = sequence remember {{ action Hold() }}\n"
            ),
            running: Seen::Call(0, Phase::Continue),
            stop: vec![Seen::Call(0, Phase::Exit)],
        },
        // `AIEVENT_AGENTDIED` → `ResetBehaviorSelectionTree(AIOBJRESET_SHUTDOWN)` releases the
        // tree; `SetBehaviour` is called only by `UpdateBehaviorSelectionTree` (Puppet.cpp,
        // AIActor.cpp). The leaf is selected once (tick 0), then nothing changes.
        Case {
            model: "bst (selection)",
            tree: format!(
                "{HEADER_BST}var c: bool = true;\n\
                 root main = priority every-tick {{ case ($c) {{ select \"A\" }} }}\n"
            ),
            running: Seen::Select("A".into()),
            stop: vec![],
        },
        // Definition (no source): no deactivate call.
        Case {
            model: "spore (decider)",
            tree: "btvm 1;\ndialect spore;\nimport action a 0..0;\n\
                   root main = decider { behavior a activate tick deactivate }\n"
                .into(),
            running: Seen::Call(0, Phase::Continue),
            stop: vec![],
        },
    ]
}

/// Ticks agent 1 of two three times; returns the batch and what the ticks called.
fn three_ticks(p: &Program, kind: btvm::EngineKind) -> (Batch, Rec) {
    let mut batch = Batch::with_engine(p, 2, kind).expect("main entry");
    let mut host = Rec::default();
    for t in 0..3 {
        batch.tick(&mut host, t * 10);
    }
    (batch, host)
}

#[test]
fn despawn_and_restart_make_the_originals_calls() {
    for case in cases() {
        let p = program(&case.tree);
        for &kind in COMPILED {
            let what = format!("{} on {kind}", case.model);
            let (mut batch, host) = three_ticks(&p, kind);
            assert!(host.0.contains(&case.running), "{what}: {:?}", host.0);
            let mut host = Rec::default();
            batch.despawn(AgentId(1), &mut host, 30).expect("alive");
            assert_eq!(host.0, case.stop, "{what}: despawn");
            assert_eq!(batch.len(), 1, "{what}");
            let (mut batch, _) = three_ticks(&p, kind);
            let mut host = Rec::default();
            batch
                .restart_agent(AgentId(1), &mut host, 30)
                .expect("alive");
            assert_eq!(host.0, case.stop, "{what}: restart");
            assert_eq!(batch.state(AgentId(1)), Some(&p.new_state()[..]), "{what}");
        }
    }
}
