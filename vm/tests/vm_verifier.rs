//! The bytecode verifier and the program file reader reject malformed programs and never panic.
//!
//! Real programs (lowered from varied trees) survive `encode`/`decode` exactly; every truncation
//! and every bit flip of their files is rejected (by the fingerprint, or — with the fingerprint
//! recomputed — by the decoder or the verifier), and the flipped files that do verify run for
//! many ticks without panicking. Hand-made bad `ProgramParts`, each one mutation away from a
//! lowered program, are rejected with the specific `ProgramErrorKind`.

use std::path::Path;

use btvm::program::{
    ActionNo, Back, Bit, Func, Function, FunctionKind, Group, Imp, Instr, Label, ProgramModel,
    ProgramParts, RBit, Stamp, Str, Temp, Timer, Var,
};
use btvm::{
    AgentId, Batch, ImportKind, Limits, Program, ProgramErrorKind as K, Status, StrId, Value, Vm,
};
use btvm_compiler::ir::Tree;
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::source::{MemFs, SourceMap};
use btvm_compiler::syntax::canonical;
use btvm_testkit::hosts::Permissive;

// ---------------------------------------------------------------------------------------------
// Trees and programs

/// Actions with int/string/var arguments, a condition with `&&`, `||`, `!`, function calls, a
/// cooldown, a parallel with `@random`, a shared subtree included twice, a guard, an invert, a
/// map and a second entry.
const TREE_ALL: &str = include_str!("fixtures/vm_all.btn");

/// Nested shared subtrees (`a` includes `b`), a parallel that stops on failure, single
/// precision and arguments computed by expressions.
const TREE_NESTED: &str = r#"btvm 1;
dialect unvanquished;
precision single;
import action say 1..2;
import action fight 0..0 long;
import action moveTo 1..2 long;
import function health 0..0;
import function near 1..1;

root main = sequence running-list {
    include "a"
    parallel success=any failure=all stop-on-failure {
        action moveTo(health() * 2 + 1, "x")
        action fight()
    }
    action fight()
}
subtree "a" shared = sequence running-list {
    action say("a", near(1) > 0.5 && health() != 0)
    include "b"
}
subtree "b" shared = selector running-list {
    action fight()
    action say("b")
    cooldown 250 { action moveTo(-1) }
}
"#;

/// A tree with no per-agent state at all (no actions, no running identities).
const TREE_STATELESS: &str = r#"btvm 1;
dialect unvanquished;
import function f 0..0;

root main = selector running-list {
    condition (f() > 1 || f() < -1)
    invert { condition (!f()) }
    const success
}
"#;

/// A Drag[en]gine (cursor-model) tree: a rule table, moves in both directions, `when`,
/// `@bound`, `yield`, a small run-away limit.
const TREE_CURSOR: &str = r#"btvm 1;
dialect dragengine;
model cursor 6;
import action walk 0..2;
import function near 0..0;
root main = selector @"root" cursor loop when (near()) {
    sequence @".s" cursor loop {
        guard every-tick (@bound(action walk)) { action @".w" walk("a", 1) }
        yield @".y"
    }
    map success success running { action @".x" walk() }
}
"#;

/// An Unvanquished `.bt` tree with behaviors included twice and nested, a timer and
/// conditions with `&&`, `||` and `!`.
const BT_MAIN: &str = r#"selector
{
    condition alertedToEnemy && ( percentHealth( E_SELF ) < 0.5 || !haveWeapon( WP_MACHINEGUN ) )
    {
        behavior approach
    }
    decorator timer( 300 )
    {
        action say( "cool" )
    }
    concurrent
    {
        action fight
        behavior approach
    }
    behavior outer
}
"#;
const BT_APPROACH: &str = r#"sequence
{
    action say( "go" )
    action moveTo( E_GOAL )
}
"#;
const BT_OUTER: &str = r#"sequence
{
    action say( "outer" )
    behavior approach
    decorator invert()
    {
        action roam
    }
}
"#;

/// A decider-model (Spore) tree with every policy, precondition and flag, a group behavior, a
/// shared decider included twice and a low redecide limit.
const TREE_DECIDER: &str = r#"btvm 1;
dialect spore;
model decider 3;
import action a 0..0;
import action b 0..0;
import action gb 0..0;
import function f 0..0;
flag night;
stimulus hit;
stimulus seen;
root main = decider {
    group prioritized behavior gb activate tick deactivate {
        decider every 300 decision all set 0x1 decide (f() > 0.5) redecide {
            behavior a activate tick deactivate
        }
        decider stimuli any set 0x3 {
            group random {
                decider { behavior b tick }
                decider decide (f() + @random) { behavior a activate tick deactivate }
                include "x"
            }
        }
        decider decide (f()) redecide {
            group scored { decider decide (f()) { behavior a activate } include "x" }
        }
        decider { group sequential { include "x" decider { behavior b deactivate } } }
    }
}
subtree "x" shared = decider decision any clear 0x1 { behavior b activate tick deactivate }
"#;

fn limits() -> Limits {
    Limits::default()
}

fn parse_canonical(name: &str, text: &str) -> Tree {
    let mut sources = SourceMap::new();
    let file = sources.add(name, text.to_string());
    match canonical::parse(file, text, &limits()) {
        Ok(t) => t,
        Err(d) => panic!("{name} does not parse: {}", d[0].display(&sources)),
    }
}

fn load_bt() -> Tree {
    let mut fs = MemFs::new();
    for (name, text) in [
        ("main.bt", BT_MAIN),
        ("approach.bt", BT_APPROACH),
        ("outer.bt", BT_OUTER),
    ] {
        fs.insert(Path::new("/t").join(name), text.as_bytes());
    }
    let mut sources = SourceMap::new();
    match load(
        Path::new("/t/main.bt"),
        &fs,
        &LoadOptions::default(),
        &mut sources,
    ) {
        Ok(t) => t,
        Err(d) => panic!("main.bt does not load: {}", d[0].display(&sources)),
    }
}

fn lower(name: &str, tree: &Tree) -> Program {
    match btvm_compiler::lower::lower(tree, &limits()) {
        Ok(p) => p,
        Err(d) => panic!("{name} does not lower: {:?} {}", d[0].kind, d[0].message),
    }
}

fn programs() -> Vec<(&'static str, Program)> {
    vec![
        ("all", lower("all", &parse_canonical("all.btn", TREE_ALL))),
        (
            "nested",
            lower("nested", &parse_canonical("nested.btn", TREE_NESTED)),
        ),
        (
            "stateless",
            lower(
                "stateless",
                &parse_canonical("stateless.btn", TREE_STATELESS),
            ),
        ),
        ("bt", lower("bt", &load_bt())),
        (
            "cursor",
            lower("cursor", &parse_canonical("cursor.btn", TREE_CURSOR)),
        ),
        ("decider", program_decider()),
        ("lifecycle", program_lifecycle()),
        ("selection", program_selection()),
    ]
}

fn program_decider() -> Program {
    lower("decider", &parse_canonical("decider.btn", TREE_DECIDER))
}

#[test]
fn bad_decider_programs() {
    let base = || program_decider().parts().clone();
    verify(base(), &limits()).expect("the decider program verifies");
    let first = |p: &ProgramParts, pred: &dyn Fn(&Instr) -> bool| {
        p.code
            .iter()
            .position(pred)
            .expect("the program has such an instruction")
    };
    let end = base().functions[0].end;
    // A redecide may jump backwards (it is counted), but not out of its function.
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecRedecide { .. }));
    for to in [end, u32::MAX] {
        let mut q = p.clone();
        if let Instr::DecRedecide { to: t, .. } = &mut q.code[at] {
            *t = Back(to);
        }
        expect(q, K::BadJump);
    }
    // Its guard exit is an ordinary label: forward only.
    if let Instr::DecRedecide { guard, .. } = &mut p.code[at] {
        *guard = Label(at as u32);
    }
    expect(p, K::BadJump);
    // Every other decider jump goes forward.
    let preds: [fn(&Instr) -> bool; 6] = [
        |i| matches!(i, Instr::DecJumpActive { .. }),
        |i| matches!(i, Instr::DecTest { .. }),
        |i| matches!(i, Instr::DecWait { .. }),
        |i| matches!(i, Instr::DecScore { .. }),
        |i| matches!(i, Instr::DecDraw { .. }),
        |i| matches!(i, Instr::Behave { phase: 0, .. }),
    ];
    for pred in preds {
        let mut p = base();
        let at = first(&p, &pred);
        p.code[at].map_labels(|_| Label(0));
        expect(p, K::BadJump);
    }
    // A redecide target inside an expression (a non-empty stack).
    let mut p = base();
    let push = first(&p, &|i| matches!(i, Instr::PushFloat { .. }));
    let at = first(&p, &|i| matches!(i, Instr::DecRedecide { .. }));
    if let Instr::DecRedecide { to, .. } = &mut p.code[at] {
        *to = Back(push as u32 + 1);
    }
    expect(p, K::StackMismatch);
    // Operands out of range: group, timer, child, active byte, phase, import kind.
    let groups = base().layout.group_count;
    let timers = base().layout.timer_count;
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecSet { .. }));
    p.code[at] = Instr::DecSet {
        group: Group(groups),
        child: 0,
    };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecStamp { .. }));
    p.code[at] = Instr::DecStamp {
        timer: Timer(timers),
        ms: 1,
    };
    expect(p, K::IndexOutOfRange);
    for child in [64u8, 255] {
        let mut p = base();
        let at = first(&p, &|i| matches!(i, Instr::DecPick { .. }));
        if let Instr::DecPick { child: c, .. } = &mut p.code[at] {
            *c = child;
        }
        expect(p, K::IndexOutOfRange);
        let mut p = base();
        let at = first(&p, &|i| matches!(i, Instr::DecMask { .. }));
        if let Instr::DecMask { child: c, .. } = &mut p.code[at] {
            *c = child;
        }
        expect(p, K::IndexOutOfRange);
        let mut p = base();
        let at = first(&p, &|i| matches!(i, Instr::DecMaskUpTo { .. }));
        if let Instr::DecMaskUpTo { child: c, .. } = &mut p.code[at] {
            *c = child;
        }
        expect(p, K::IndexOutOfRange);
    }
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecJumpActive { .. }));
    if let Instr::DecJumpActive { active, .. } = &mut p.code[at] {
        *active = 65;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Behave { .. }));
    if let Instr::Behave { phase, .. } = &mut p.code[at] {
        *phase = 3;
    }
    expect(p, K::BadOperand);
    let mut p = base();
    let f = import_index(&p, "f", ImportKind::Function);
    let at = first(&p, &|i| matches!(i, Instr::Behave { .. }));
    if let Instr::Behave { import, .. } = &mut p.code[at] {
        *import = Imp(f);
    }
    expect(p, K::Arity);
    // A draw without a PRNG slot.
    let mut p = base();
    p.layout.rng = None;
    expect(p, K::BadLayout);
    // Decider state that overlaps or leaves the block; too many stimuli; no flags byte.
    let mut p = base();
    p.layout.groups = p.layout.decider;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.group_count += 1000;
    expect(p, K::BadLayout);
    let mut p = base();
    p.stimuli = 1000;
    expect(p, K::BadOperand);
    let mut p = base();
    p.layout.flags.width = 0;
    expect(p, K::BadLayout);
    // A second function; cursor instructions in a decider program.
    let mut p = base();
    append_subtree(
        &mut p,
        "extra",
        &[Instr::Return {
            status: Status::Success,
        }],
    );
    expect(p, K::BadContinuation);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::Stop {};
    expect(p, K::BadOperand);
    // Decider state or instructions in other models.
    let mut p = base();
    p.model = ProgramModel::RunningList;
    expect(p, K::BadLayout);
    let mut p = program_all().parts().clone();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::DecGuard {};
    expect(p, K::BadOperand);
    let mut p = program_all().parts().clone();
    p.stimuli = 1;
    expect(p, K::BadOperand);
    // A redecide limit whose worst tick is beyond the budget.
    let mut p = base();
    p.model = ProgramModel::Decider { limit: u32::MAX };
    expect(p, K::BudgetExceeded);
    let small = Limits {
        max_tick_instructions: base().code.len() as u64,
        ..limits()
    };
    expect_with(base(), &small, K::BudgetExceeded);
}

#[test]
fn decider_programs_never_run_away() {
    // Every redecide target pointed anywhere in the function that verifies: the tick still
    // ends (each backward jump is counted) on every engine path the vm takes.
    let p = base_decider_parts();
    let end = p.functions[0].end;
    let ats: Vec<usize> = p
        .code
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Instr::DecRedecide { .. }))
        .map(|(k, _)| k)
        .collect();
    let mut ran = 0;
    for &at in &ats {
        for to in (0..end).step_by(7) {
            let mut q = p.clone();
            if let Instr::DecRedecide { to: t, .. } = &mut q.code[at] {
                *t = Back(to);
            }
            if let Ok(prog) = verify(q, &limits()) {
                run_permissive(&prog, 2, 12);
                ran += 1;
            }
        }
    }
    assert!(ran > 10, "only {ran} variants verified");
}

fn base_decider_parts() -> ProgramParts {
    program_decider().parts().clone()
}

/// A lifecycle (MBT) tree: every record, lifecycle and timestamp instruction, a loop body
/// function and event functions.
const TREE_LIFECYCLE: &str = r#"btvm 1;
dialect mbt;
model lifecycle;
root-finish stop;
abort terminate;
precision double;
import action Move 0..2 long;
import action Aim 0..1;
import function lua_0 0..0 script "return 1";
var alive: bool = true;
var seen: bool = false;
timestamp Seen on "EnemySeen" exclusive Lost;
timestamp Lost on "EnemyLost";
signal "EnemySeen" seen = true;
signal "Hurt" alive = !$alive;
root main = priority on-change {
    case ($seen) {
        logstatus start "go" success "ok" failure "no" {
            parallel success=any failure=all remember {
                loop 3 until failure { action Move("a") }
                loop forever until success { wait 50 20 -> failure }
                groupscope "squad" 2 { hooks enter lua_0() exit Aim(1) { action Move(1, 2) } }
                sequence remember {
                    waitevent "Go" -> success
                    send "Done" -> success
                    condition (@valid(Seen) && @elapsed(Seen) > 100 || !@ever(Lost))
                }
            }
        }
    }
    case (true) {
        statemachine {
            state on "Alarm" -> 1 {
                selector remember {
                    guard on-entry (@random <= 0.5) { action Move("p") }
                    map success success running { action Move("h") }
                }
            }
            state on "Calm" -> 0 {
                sequence remember { log "alert" waituntil (!$alive) wait -1 0 -> success }
            }
        }
    }
}
"#;

/// A selection (BST) tree: priorities, a forward-only sequence, chained state machines.
const TREE_SELECTION: &str = r#"btvm 1;
dialect bst;
model selection;
root-finish rerun;
abort abandon;
precision double;
var a: bool = false;
var b: bool = true;
signal "A" a = !$a;
signal "B" b = $a ^^ $b;
root main = priority every-tick {
    case ($a && !$b) { select "Both" }
    case (true) {
        statemachine {
            state when ($a) -> 1 when ($b) -> 2 {
                sequence remember { case ($b) { select "B" } case (true) { select "Rest" } }
            }
            state when ($a == $b) -> 2 when (true) -> 0 { select "One" }
            state when (!$b) -> 0 when ($a) -> 1 { select "Two" }
        }
    }
}
"#;

fn program_lifecycle() -> Program {
    lower(
        "lifecycle",
        &parse_canonical("lifecycle.btn", TREE_LIFECYCLE),
    )
}

fn program_selection() -> Program {
    lower(
        "selection",
        &parse_canonical("selection.btn", TREE_SELECTION),
    )
}

/// The index of the first instruction matching `pred`.
fn first_at(p: &ProgramParts, pred: impl Fn(&Instr) -> bool) -> usize {
    p.code
        .iter()
        .position(pred)
        .expect("the program has such an instruction")
}

#[test]
fn bad_lifecycle_programs() {
    let base = || program_lifecycle().parts().clone();
    verify(base(), &limits()).expect("the lifecycle program verifies");
    // Every lifecycle jump goes forward.
    let preds: [fn(&Instr) -> bool; 9] = [
        |i| matches!(i, Instr::RecJump { .. }),
        |i| matches!(i, Instr::RecJumpEq { .. }),
        |i| matches!(i, Instr::RecJumpGe { .. }),
        |i| matches!(i, Instr::VarJump { .. }),
        |i| matches!(i, Instr::LcBegin { .. }),
        |i| matches!(i, Instr::LcJumpChanged { .. }),
        |i| matches!(i, Instr::LcJumpWait { .. }),
        |i| matches!(i, Instr::LcAct { .. }),
        |i| matches!(i, Instr::LcQuorum { .. }),
    ];
    for pred in preds {
        let mut p = base();
        let at = first_at(&p, pred);
        p.code[at].map_labels(|_| Label(at as u32));
        expect(p, K::BadJump);
    }
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::JumpStopped { .. }));
    p.code[at].map_labels(|_| Label(0));
    expect(p, K::BadJump);
    // Record operands out of range: a bit, a field, a width, a range, a time, the masks.
    let len = base().layout.records_len;
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::RecBit { .. }));
    p.code[at] = Instr::RecBit {
        bit: RBit(len * 8),
        value: true,
    };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::RecSet { .. }));
    p.code[at] = Instr::RecSet {
        at: len - 1,
        width: 2,
        value: 1,
    };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    p.code[at] = Instr::RecSet {
        at: 0,
        width: 3,
        value: 1,
    };
    expect(p, K::BadOperand);
    let mut p = base();
    let z = first_at(&p, |i| matches!(i, Instr::RecZero { .. }));
    p.code[z] = Instr::RecZero { at: 1, len };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let w = first_at(&p, |i| matches!(i, Instr::LcWaitArm { .. }));
    if let Instr::LcWaitArm { at, .. } = &mut p.code[w] {
        *at = len - 7;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let q = first_at(&p, |i| matches!(i, Instr::LcQuorum { .. }));
    if let Instr::LcQuorum { n, .. } = &mut p.code[q] {
        *n = 33;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    if let Instr::LcQuorum { at, .. } = &mut p.code[q] {
        *at = len;
    }
    expect(p, K::IndexOutOfRange);
    // Variables, timestamps, queries, phases, arities.
    let mut p = base();
    let v = first_at(&p, |i| matches!(i, Instr::VarJump { .. }));
    if let Instr::VarJump { var, .. } = &mut p.code[v] {
        *var = Var(2);
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let t = first_at(&p, |i| matches!(i, Instr::TsPush { .. }));
    if let Instr::TsPush { ts, .. } = &mut p.code[t] {
        *ts = Stamp(2);
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    if let Instr::TsPush { query, .. } = &mut p.code[t] {
        *query = 3;
    }
    expect(p, K::BadOperand);
    let mut p = base();
    let c = first_at(&p, |i| matches!(i, Instr::LcCall { .. }));
    if let Instr::LcCall { phase, .. } = &mut p.code[c] {
        *phase = 3;
    }
    expect(p, K::BadOperand);
    let mut p = base();
    let aim = import_index(&p, "Aim", ImportKind::Action);
    let c = first_at(
        &p,
        |i| matches!(i, Instr::LcCall { import, .. } if import.0 == aim),
    );
    if let Instr::LcCall { argc, .. } = &mut p.code[c] {
        *argc = 2;
    }
    expect(p, K::Arity);
    let mut p = base();
    let lua = import_index(&p, "lua_0", ImportKind::Function);
    let a = first_at(&p, |i| matches!(i, Instr::LcAct { .. }));
    if let Instr::LcAct { import, .. } = &mut p.code[a] {
        *import = Imp(lua);
    }
    expect(p, K::Arity);
    let mut p = base();
    let s = first_at(&p, |i| matches!(i, Instr::ScopeEnter { .. }));
    if let Instr::ScopeEnter { scope, .. } = &mut p.code[s] {
        *scope = Str(10_000);
    }
    expect(p, K::IndexOutOfRange);
    // A drawn wait without a PRNG slot.
    let mut p = base();
    p.layout.rng = None;
    expect(p, K::BadLayout);
    // The state: overlapping regions, a region past the block, the variable table.
    let mut p = base();
    p.layout.records = p.layout.vars;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.stamp_count += 1000;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.var_count = 1;
    expect(p, K::BadLayout);
    let mut p = base();
    p.vars[0] = Value::Int(1);
    expect(p, K::BadOperand);
    let mut p = base();
    p.var_names.pop();
    expect(p, K::BadOperand);
    let mut p = base();
    p.layout.flags.width = 0;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.leaf = btvm::program::Field {
        offset: p.layout.size - 1,
        width: 1,
    };
    expect(p, K::BadLayout);
    // Event functions: distinct names, `return` not `finish`, only in these models; a call
    // may reach them, never an entry.
    let mut p = base();
    let e = p
        .functions
        .iter()
        .position(|f| f.kind == FunctionKind::Event)
        .expect("an event function");
    let other = p
        .functions
        .iter()
        .rposition(|f| f.kind == FunctionKind::Event)
        .expect("events");
    assert_ne!(e, other, "the tree has several events");
    p.functions[other].name = p.functions[e].name.clone();
    expect(p, K::BadOperand);
    let mut p = base();
    let end = p.functions[e].end as usize;
    p.code[end - 1] = Instr::Finish {
        status: Status::Success,
    };
    expect(p, K::BadContinuation);
    let mut p = base();
    let call = first_at(&p, |i| matches!(i, Instr::Call { .. }));
    if let Instr::Call { func, .. } = &mut p.code[call] {
        *func = Func(0);
    }
    expect(p, K::BadContinuation);
    // The restart function: at most one, in lifecycle programs only, never called.
    let mut p = base();
    let r = p
        .functions
        .iter()
        .position(|f| f.kind == FunctionKind::Restart)
        .expect("a restart function");
    p.functions[e].kind = FunctionKind::Restart;
    expect(p, K::BadContinuation);
    let mut p = base();
    let call = first_at(&p, |i| matches!(i, Instr::Call { .. }));
    if let Instr::Call { func, .. } = &mut p.code[call] {
        *func = Func(r as u32);
    }
    expect(p, K::BadContinuation);
    let mut p = program_all().parts().clone();
    p.functions[0].kind = FunctionKind::Restart;
    expect(p, K::BadContinuation);
    // Selection or decider instructions here, lifecycle instructions elsewhere.
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::LcStop {}));
    p.code[at] = Instr::SelNone {};
    expect(p, K::BadOperand);
    let mut p = base();
    p.code[at] = Instr::DecGuard {};
    expect(p, K::BadOperand);
    let mut p = program_all().parts().clone();
    let at = first_at(&p, |i| matches!(i, Instr::Finish { .. }));
    p.code.insert(at, Instr::LcLog { msg: Str(0) });
    for f in &mut p.functions {
        if f.end as usize > at {
            f.end += 1;
        }
        if f.start as usize > at {
            f.start += 1;
        }
    }
    for ins in &mut p.code {
        ins.map_labels(|l| if l.0 as usize > at { Label(l.0 + 1) } else { l });
    }
    expect(p, K::BadOperand);
    let mut p = program_all().parts().clone();
    p.functions[0].kind = FunctionKind::Event;
    expect(p, K::BadContinuation);
    let mut p = program_all().parts().clone();
    p.layout.records_len = 1;
    p.layout.records = p.layout.size;
    p.layout.size += 1;
    expect(p, K::BadLayout);
    // A lifecycle program with selection or cursor state.
    let mut p = base();
    p.layout.leaves = 1;
    expect(p, K::BadLayout);
    // A tick beyond the budget (loop bodies are called twice).
    let small = Limits {
        max_tick_instructions: 50,
        ..limits()
    };
    expect_with(base(), &small, K::BudgetExceeded);
}

#[test]
fn bad_selection_programs() {
    let base = || program_selection().parts().clone();
    verify(base(), &limits()).expect("the selection program verifies");
    let end = base().functions[0].end;
    // A visit may jump backwards (it is counted), but not out of its function; its stop is
    // an ordinary forward label.
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::SelVisit { .. }));
    for to in [end, u32::MAX] {
        let mut q = p.clone();
        if let Instr::SelVisit { to: t, .. } = &mut q.code[at] {
            *t = Back(to);
        }
        expect(q, K::BadJump);
    }
    if let Instr::SelVisit { stop, .. } = &mut p.code[at] {
        *stop = Label(at as u32);
    }
    expect(p, K::BadJump);
    // A visit target inside an expression (a non-empty stack).
    let mut p = base();
    let b = first_at(&p, |i| matches!(i, Instr::VarPush { .. }));
    if let Instr::SelVisit { to, .. } = &mut p.code[at] {
        *to = Back(b as u32 + 1);
    }
    expect(p, K::StackMismatch);
    // Other selection jumps go forward.
    let preds: [fn(&Instr) -> bool; 4] = [
        |i| matches!(i, Instr::SelBegin { .. }),
        |i| matches!(i, Instr::SelJumpPrev { .. }),
        |i| matches!(i, Instr::SelJumpLeaf { .. }),
        |i| matches!(i, Instr::RecJumpEq { .. }),
    ];
    for pred in preds {
        let mut p = base();
        let at = first_at(&p, pred);
        p.code[at].map_labels(|_| Label(0));
        expect(p, K::BadJump);
    }
    // Targets, leaves, leaf ranges, state records.
    let mut p = base();
    if let Instr::SelVisit { target, .. } = &mut p.code[at] {
        *target = 32;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    if let Instr::SelVisit { at: a, .. } = &mut p.code[at] {
        *a = 10_000;
    }
    expect(p, K::IndexOutOfRange);
    let leaves = base().layout.leaves;
    let mut p = base();
    let l = first_at(&p, |i| matches!(i, Instr::SelLeaf { .. }));
    if let Instr::SelLeaf { leaf, .. } = &mut p.code[l] {
        *leaf = leaves;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let j = first_at(&p, |i| matches!(i, Instr::SelJumpPrev { .. }));
    if let Instr::SelJumpPrev { lo, hi, .. } = &mut p.code[j] {
        *lo = *hi + 1;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let s = first_at(&p, |i| matches!(i, Instr::SelSeen { .. }));
    p.code[s] = Instr::SelSeen { at: 10_000 };
    expect(p, K::IndexOutOfRange);
    // The leaf slot must hold every leaf.
    let mut p = base();
    p.layout.leaves = 300;
    expect(p, K::BadLayout);
    // Lifecycle instructions in a selection program.
    let mut p = base();
    let f = first_at(&p, |i| matches!(i, Instr::SelNone {}));
    p.code[f] = Instr::LcStop {};
    expect(p, K::BadOperand);
    // A visit limit whose worst tick is beyond the budget.
    let mut p = base();
    p.model = ProgramModel::Selection { limit: u32::MAX };
    expect(p, K::BudgetExceeded);
}

#[test]
fn selection_programs_never_run_away() {
    // Every visit target pointed anywhere in the function that verifies: the tick still ends
    // (each backward jump is counted) on the vm.
    let p = program_selection().parts().clone();
    let end = p.functions[0].end;
    let ats: Vec<usize> = p
        .code
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Instr::SelVisit { .. }))
        .map(|(k, _)| k)
        .collect();
    let mut ran = 0;
    for &at in &ats {
        for to in 0..end {
            let mut q = p.clone();
            if let Instr::SelVisit { to: t, .. } = &mut q.code[at] {
                *t = Back(to);
            }
            // Without the visited set ever stopping it: a target no walk visits.
            if let Instr::SelVisit { target, .. } = &mut q.code[at] {
                *target = 31;
            }
            if let Ok(prog) = verify(q, &limits()) {
                run_permissive(&prog, 2, 12);
                ran += 1;
            }
        }
    }
    assert!(ran > 10, "only {ran} variants verified");
}

fn program_cursor() -> Program {
    lower("cursor", &parse_canonical("cursor.btn", TREE_CURSOR))
}

#[test]
fn bad_cursor_programs() {
    let base = || program_cursor().parts().clone();
    verify(base(), &limits()).expect("the cursor program verifies");
    let first = |p: &ProgramParts, pred: &dyn Fn(&Instr) -> bool| {
        p.code
            .iter()
            .position(pred)
            .expect("the program has such an instruction")
    };
    // A move to a rule the table lacks.
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Move { .. }));
    if let Instr::Move { rule, .. } = &mut p.code[at] {
        rule.0 = p.rules.len() as u32;
    }
    expect(p, K::IndexOutOfRange);
    // A rule whose code lies outside the function.
    let mut p = base();
    p.rules[1].label = p.code.len() as u32;
    expect(p, K::BadJump);
    // A rule leading back to the dispatch (an uncounted loop), and a second dispatch.
    let mut p = base();
    p.rules[1].label = 0;
    expect(p, K::BadJump);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::Dispatch {};
    expect(p, K::BadContinuation);
    // A rule entered where the stack is not empty (inside an action's arguments).
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::ActCursor { argc: 2, .. }));
    p.rules[1].label = at as u32;
    expect(p, K::StackMismatch);
    // No run-away limit, no rules, no cursor field, a cursor too narrow for the rules.
    let mut p = base();
    p.model = ProgramModel::Cursor { limit: 0 };
    expect(p, K::BadOperand);
    let mut p = base();
    p.rules.clear();
    expect(p, K::BadOperand);
    let mut p = base();
    p.layout.cursor.width = 0;
    expect(p, K::BadLayout);
    let mut p = base();
    p.rules = (0..300).map(|_| p.rules[0].clone()).collect();
    expect(p, K::BadLayout);
    // A cursor program with a second function.
    let mut p = base();
    append_subtree(
        &mut p,
        "extra",
        &[Instr::Return {
            status: Status::Success,
        }],
    );
    expect(p, K::BadContinuation);
    // Cursor state or instructions in a running-list program.
    let mut p = base();
    p.model = ProgramModel::RunningList;
    expect(p, K::BadLayout);
    let mut p = program_all().parts().clone();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::Stop {};
    expect(p, K::BadOperand);
}

fn program_all() -> Program {
    lower("all", &parse_canonical("all.btn", TREE_ALL))
}

fn program_nested() -> Program {
    lower("nested", &parse_canonical("nested.btn", TREE_NESTED))
}

/// Runs `p` for `agents` agents over `ticks` ticks on a `Vm` (every entry each tick) and on a
/// `Batch`; returns a checksum of the statuses so the work is not optimised away.
fn run_permissive(p: &Program, agents: u32, ticks: i64) -> u64 {
    let mut host = Permissive::always(7);
    p.bind(&mut host)
        .expect("the permissive host binds everything");
    let mut vm = Vm::new(p);
    let mut states: Vec<Vec<u8>> = (0..agents).map(|_| p.new_state()).collect();
    let entries: Vec<String> = p.entries().map(str::to_string).collect();
    let events: Vec<String> = p
        .functions()
        .iter()
        .filter(|f| f.kind == FunctionKind::Event)
        .map(|f| f.name.clone())
        .collect();
    let mut sum = 0u64;
    for tick in 0..ticks {
        let now = tick * 70 - 100;
        for (i, state) in states.iter_mut().enumerate() {
            let agent = AgentId(i as u32);
            // Events between ticks (lifecycle and selection programs).
            if let Some(e) = events.get((tick as usize + i) % (events.len() + 1)) {
                let _ = vm.event(state, agent, &mut host, e, now);
            }
            if let Ok(s) = vm.tick(state, agent, &mut host, now) {
                sum = sum.wrapping_mul(3).wrapping_add(s as u64);
            }
            for e in &entries {
                if let Ok(s) = vm.run_entry(e, state, agent, &mut host, now) {
                    sum = sum.wrapping_mul(3).wrapping_add(s as u64);
                }
            }
        }
    }
    if let Ok(mut batch) = Batch::new(p, agents) {
        for tick in 0..ticks / 5 {
            for s in batch.tick(&mut host, tick * 50) {
                sum = sum.wrapping_mul(3).wrapping_add(*s as u64);
            }
        }
    }
    sum
}

// ---------------------------------------------------------------------------------------------
// Round trips, truncation, bit flips

const HEADER: usize = 8 + 2 + 8;

fn fnv1a(body: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in body {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Rewrites the header's fingerprint to match the body.
fn patch_fingerprint(bytes: &mut [u8]) {
    let h = fnv1a(&bytes[HEADER..]);
    bytes[10..HEADER].copy_from_slice(&h.to_le_bytes());
}

#[test]
fn real_programs_round_trip_exactly() {
    for (name, p) in programs() {
        let bytes = p.encode();
        assert_eq!(&bytes[..8], b"BTVMPROG", "{name}");
        assert_eq!(
            u16::from_le_bytes([bytes[8], bytes[9]]),
            btvm::program::VERSION,
            "{name}"
        );
        let stored = u64::from_le_bytes(bytes[10..HEADER].try_into().unwrap());
        assert_eq!(stored, p.fingerprint(), "{name}");
        assert_eq!(fnv1a(&bytes[HEADER..]), stored, "{name}");
        let q = Program::decode(&bytes, &limits())
            .unwrap_or_else(|e| panic!("{name}: the encoded program does not decode: {e}"));
        assert_eq!(q.encode(), bytes, "{name}: re-encoding differs");
        assert_eq!(q.parts(), p.parts(), "{name}: parts differ");
        assert_eq!(q.fingerprint(), p.fingerprint(), "{name}");
        assert_eq!(
            format!("{q}"),
            format!("{p}"),
            "{name}: disassembly differs"
        );
        assert_eq!(q.tick_budget(), p.tick_budget(), "{name}");
        assert_eq!(q.max_stack(), p.max_stack(), "{name}");
        assert_eq!(q.max_calls(), p.max_calls(), "{name}");
        // Rebuilding from the parts gives the same program too.
        let r = Program::new(p.parts().clone(), &limits()).expect("the parts verify");
        assert_eq!(r.encode(), bytes, "{name}");
        // And the programs are real: they run.
        run_permissive(&q, 2, 5);
    }
}

#[test]
fn every_truncation_is_rejected() {
    for (name, p) in programs() {
        let bytes = p.encode();
        for len in 0..bytes.len() {
            match Program::decode(&bytes[..len], &limits()) {
                Ok(_) => panic!("{name}: a {len}-byte prefix of {} decoded", bytes.len()),
                Err(e) => {
                    let want = if len < 8 { K::BadMagic } else { K::Truncated };
                    assert_eq!(e.kind(), want, "{name}: prefix of {len} bytes: {e}");
                }
            }
        }
    }
}

#[test]
fn every_bit_flip_is_rejected_by_the_stored_fingerprint() {
    for (name, p) in programs() {
        let bytes = p.encode();
        let mut copy = bytes.clone();
        for at in 0..bytes.len() {
            for bit in 0..8 {
                copy[at] ^= 1 << bit;
                match Program::decode(&copy, &limits()) {
                    Ok(_) => panic!("{name}: flipping bit {bit} of byte {at} still decodes"),
                    Err(e) => {
                        let k = e.kind();
                        if at < 8 {
                            assert_eq!(k, K::BadMagic, "{name} byte {at}");
                        } else if at < 10 {
                            assert_eq!(k, K::BadVersion, "{name} byte {at}");
                        } else if at < HEADER {
                            assert_eq!(k, K::Fingerprint, "{name} byte {at}");
                        }
                    }
                }
                copy[at] ^= 1 << bit;
            }
        }
    }
}

/// Programs whose counter table is absurdly large are not run (see
/// `the_counter_table_is_bounded`): `Scratch::new` would allocate gigabytes.
const MAX_TEMPS_TO_RUN: u32 = 1 << 16;

#[test]
fn bit_flips_with_a_recomputed_fingerprint_are_rejected_or_run_safely() {
    let mut verified = 0usize;
    let mut rejected = std::collections::BTreeMap::<String, usize>::new();
    let mut huge_temps = 0usize;
    for (name, p) in programs() {
        let bytes = p.encode();
        let mut copy = bytes.clone();
        for at in HEADER..bytes.len() {
            for bit in 0..8 {
                copy[at] ^= 1 << bit;
                patch_fingerprint(&mut copy);
                match Program::decode(&copy, &limits()) {
                    Err(e) => {
                        assert_ne!(e.kind(), K::Fingerprint, "{name}: byte {at} bit {bit}");
                        *rejected.entry(format!("{:?}", e.kind())).or_default() += 1;
                    }
                    Ok(q) => {
                        verified += 1;
                        // A decoded program is verified: its parts verify again, it
                        // re-encodes to a file that decodes to the same program, and it
                        // disassembles.
                        let again =
                            Program::new(q.parts().clone(), &limits()).unwrap_or_else(|e| {
                                panic!("{name}: byte {at} bit {bit}: parts do not re-verify: {e}")
                            });
                        let re = Program::decode(&q.encode(), &limits()).unwrap_or_else(|e| {
                            panic!("{name}: byte {at} bit {bit}: re-encoding is rejected: {e}")
                        });
                        assert_eq!(re.parts(), q.parts(), "{name}: byte {at} bit {bit}");
                        assert_eq!(again.encode(), q.encode(), "{name}: byte {at} bit {bit}");
                        let _ = format!("{q}");
                        if q.temps() > MAX_TEMPS_TO_RUN {
                            huge_temps += 1;
                        } else {
                            run_permissive(&q, 3, 50);
                        }
                    }
                }
                copy[at] ^= 1 << bit;
            }
        }
        patch_fingerprint(&mut copy);
        assert_eq!(copy, bytes);
    }
    eprintln!(
        "recomputed-fingerprint flips: {verified} verified and ran ({huge_temps} with a huge \
         counter table not run), rejected: {rejected:?}"
    );
    // The verifier itself must have been exercised, not only the decoder.
    for kind in ["BadJump", "IndexOutOfRange", "BadLayout", "BadOpcode"] {
        assert!(
            rejected.contains_key(kind),
            "no flip was rejected with {kind}: {rejected:?}"
        );
    }
    assert!(verified > 0, "no flip produced a valid program");
}

// ---------------------------------------------------------------------------------------------
// Byte-level errors

#[test]
fn file_level_errors_have_their_kinds() {
    let p = program_all();
    let bytes = p.encode();
    let kind = |b: &[u8], l: &Limits| match Program::decode(b, l) {
        Ok(_) => panic!("decoded"),
        Err(e) => e.kind(),
    };

    let mut b = bytes.clone();
    b[0] = b'X';
    assert_eq!(kind(&b, &limits()), K::BadMagic);
    assert_eq!(kind(b"", &limits()), K::BadMagic);
    assert_eq!(kind(b"BTVMPRO", &limits()), K::BadMagic);
    assert_eq!(kind(b"btvmprog\x01\x00", &limits()), K::BadMagic);

    let mut b = bytes.clone();
    for version in (0..btvm::program::VERSION).chain([btvm::program::VERSION + 1]) {
        b[8..10].copy_from_slice(&version.to_le_bytes());
        assert_eq!(kind(&b, &limits()), K::BadVersion);
    }

    // An action's slot claims byte (name, kind, min, max, long, claims) with a bit beyond
    // success/failure/running is refused, and every valid set round-trips.
    let (at, import) = p
        .imports()
        .iter()
        .enumerate()
        .find(|(_, i)| i.kind == btvm::ImportKind::Action)
        .expect("TREE_ALL has an action");
    let mut name = (import.name.len() as u32).to_le_bytes().to_vec();
    name.extend_from_slice(import.name.as_bytes());
    let start = bytes
        .windows(name.len())
        .position(|w| w == name.as_slice())
        .expect("the import's name is in the file");
    let claims_at = start + name.len() + 4;
    assert_eq!(bytes[claims_at], import.claims.bits());
    let mut b = bytes.clone();
    b[claims_at] = 0x08;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);
    for bits in 0..=7u8 {
        let mut b = bytes.clone();
        b[claims_at] = bits;
        patch_fingerprint(&mut b);
        let q = Program::decode(&b, &limits()).expect("any claim set decodes");
        assert_eq!(q.imports()[at].claims.bits(), bits);
    }

    let mut b = bytes.clone();
    b.push(0);
    assert_eq!(kind(&b, &limits()), K::TrailingBytes);
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::TrailingBytes);

    let mut b = bytes.clone();
    b[12] ^= 0x10;
    assert_eq!(kind(&b, &limits()), K::Fingerprint);
    let mut b = bytes.clone();
    b[10..HEADER].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(kind(&b, &limits()), K::Fingerprint);

    let tight = Limits {
        max_program_bytes: bytes.len() - 1,
        ..limits()
    };
    assert_eq!(kind(&bytes, &tight), K::TooLarge);
    let exact = Limits {
        max_program_bytes: bytes.len(),
        ..limits()
    };
    assert!(Program::decode(&bytes, &exact).is_ok());

    // The last instruction of TREE_ALL is `return running` (opcode 0x04, status 2).
    let n = bytes.len();
    assert_eq!(&bytes[n - 2..], &[0x04, 0x02]);
    // Every opcode byte in its place: unknown ones are `BadOpcode`; none panics.
    let mut unknown = 0;
    for op in 0..=255u8 {
        let mut b = bytes.clone();
        b[n - 2] = op;
        patch_fingerprint(&mut b);
        match Program::decode(&b, &limits()) {
            Ok(q) => {
                run_permissive(&q, 2, 5);
            }
            Err(e) if e.kind() == K::BadOpcode => unknown += 1,
            Err(_) => {}
        }
    }
    assert!(unknown >= 150, "only {unknown} opcodes are unknown");
    for op in [0x00, 0xff] {
        let mut b = bytes.clone();
        b[n - 2] = op;
        patch_fingerprint(&mut b);
        assert_eq!(kind(&b, &limits()), K::BadOpcode, "opcode {op:#x}");
    }
    let mut b = bytes.clone();
    b[n - 1] = 3; // not a status
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);

    // Model byte and single-precision flag.
    let mut b = bytes.clone();
    b[HEADER] = 5;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);
    let mut b = bytes.clone();
    b[HEADER + 1] = 2;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);

    // The clock (a u32 after the precision flag): 1 in this running-list program; 0, more
    // than the maximum, and any other unit outside the lifecycle model are refused.
    let clock_at = HEADER + 2;
    assert_eq!(
        u32::from_le_bytes(bytes[clock_at..clock_at + 4].try_into().unwrap()),
        1
    );
    for bad in [0, 100, btvm::MAX_CLOCK + 1] {
        let mut b = bytes.clone();
        b[clock_at..clock_at + 4].copy_from_slice(&u32::to_le_bytes(bad));
        patch_fingerprint(&mut b);
        assert_eq!(kind(&b, &limits()), K::BadOperand, "clock {bad}");
    }

    // A huge string count is refused before anything is allocated. Before the strings: model,
    // precision, clock, then the layout (size, current (5), actions, count (5), five u32s, has_rng,
    // rng, cursor (5), flags (5), then the decider fields: decider, groups, group_count,
    // stimuli and the stimulus count (five u32s), then the lifecycle and selection fields:
    // vars, var_count, stamps, stamp_count, records, records_len (six u32s), leaf (5),
    // leaves).
    let strings_at = HEADER + 2 + 4 + 4 + 5 + 4 + 5 + 20 + 1 + 4 + 5 + 5 + 20 + 24 + 5 + 4;
    assert_eq!(
        u32::from_le_bytes(bytes[strings_at..strings_at + 4].try_into().unwrap()) as usize,
        p.parts().strings.len()
    );
    let mut b = bytes.clone();
    b[strings_at..strings_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::Truncated);
    // Invalid UTF-8 in a string.
    let mut b = bytes.clone();
    b[strings_at + 8] = 0xff;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);
}

// ---------------------------------------------------------------------------------------------
// Hand-made bad programs

fn verify(parts: ProgramParts, limits: &Limits) -> Result<Program, btvm::ProgramError> {
    Program::new(parts, limits)
}

#[track_caller]
fn expect(parts: ProgramParts, kind: K) {
    expect_with(parts, &limits(), kind);
}

#[track_caller]
fn expect_with(parts: ProgramParts, limits: &Limits, kind: K) {
    match verify(parts, limits) {
        Ok(_) => panic!("the program verified; expected {kind:?}"),
        Err(e) => assert_eq!(e.kind(), kind, "{e}"),
    }
}

/// The index of function `name`.
fn func(parts: &ProgramParts, name: &str) -> usize {
    parts
        .functions
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// The first instruction of function `f` (by index) matching `pred`.
fn find(parts: &ProgramParts, f: usize, pred: impl Fn(&Instr) -> bool) -> usize {
    let func = &parts.functions[f];
    (func.start as usize..func.end as usize)
        .find(|&pc| pred(&parts.code[pc]))
        .unwrap_or_else(|| panic!("no such instruction in `{}`", func.name))
}

/// Changes the first instruction of function `f` matching `pred`; returns its index.
fn edit(
    parts: &mut ProgramParts,
    f: usize,
    pred: impl Fn(&Instr) -> bool,
    change: impl FnOnce(&mut Instr),
) -> usize {
    let pc = find(parts, f, pred);
    change(&mut parts.code[pc]);
    pc
}

/// Appends a subtree function named `name` whose labels are relative to its first
/// instruction; returns its index.
fn append_subtree(parts: &mut ProgramParts, name: &str, code: &[Instr]) -> usize {
    let base = parts.code.len() as u32;
    for ins in code {
        let mut ins = *ins;
        rebase(&mut ins, base);
        parts.code.push(ins);
    }
    parts.functions.push(Function {
        name: name.to_string(),
        kind: FunctionKind::Subtree,
        start: base,
        end: parts.code.len() as u32,
    });
    parts.functions.len() - 1
}

fn rebase(ins: &mut Instr, base: u32) {
    for l in labels_mut(ins) {
        l.0 += base;
    }
}

/// Every label operand of an instruction (jump targets and status continuations).
fn labels_mut(ins: &mut Instr) -> Vec<&mut Label> {
    match ins {
        Instr::Jump { to }
        | Instr::JumpIfFalse { to }
        | Instr::JumpIfTrue { to }
        | Instr::JumpIfCmp { to, .. }
        | Instr::JumpIfListed { to, .. }
        | Instr::JumpIfCooling { to, .. }
        | Instr::OnSuccess { to, .. }
        | Instr::OnRunning { to, .. } => vec![to],
        Instr::Act {
            success,
            failure,
            running,
            ..
        }
        | Instr::Call {
            success,
            failure,
            running,
            ..
        }
        | Instr::Quorum {
            success,
            failure,
            running,
            ..
        } => vec![success, failure, running],
        _ => vec![],
    }
}

/// The same continuations as `act` (or any status-dispatching instruction), as a `call`.
fn call_with_labels_of(ins: &Instr, func: u32) -> Instr {
    let mut ins = *ins;
    let ls: Vec<Label> = labels_mut(&mut ins).into_iter().map(|l| *l).collect();
    assert_eq!(ls.len(), 3, "{ins:?} has no status continuations");
    Instr::Call {
        func: Func(func),
        success: ls[0],
        failure: ls[1],
        running: ls[2],
    }
}

/// A `call` of `func` whose three continuations are `to`.
fn call_to(func: u32, to: u32) -> Instr {
    Instr::Call {
        func: Func(func),
        success: Label(to),
        failure: Label(to),
        running: Label(to),
    }
}

/// A named change to a program or a layout.
type Mutation<'a, T> = Box<dyn Fn(&mut T) + 'a>;

fn base() -> ProgramParts {
    let parts = program_all().parts().clone();
    verify(parts.clone(), &limits()).expect("the base program verifies");
    parts
}

fn is_act(i: &Instr) -> bool {
    matches!(i, Instr::Act { .. })
}

fn import_index(parts: &ProgramParts, name: &str, kind: ImportKind) -> u32 {
    parts
        .imports
        .iter()
        .position(|i| i.name == name && i.kind == kind)
        .unwrap_or_else(|| panic!("no import {name}")) as u32
}

#[test]
fn appended_functions_are_checked_like_lowered_ones() {
    // The helper itself is sound: a well-formed appended subtree verifies.
    let mut p = base();
    append_subtree(
        &mut p,
        "ok",
        &[
            Instr::PushBool { value: true },
            Instr::JumpIfFalse { to: Label(3) },
            Instr::Return {
                status: Status::Success,
            },
            Instr::Return {
                status: Status::Failure,
            },
        ],
    );
    verify(p, &limits()).expect("a well-formed appended subtree verifies");
}

#[test]
fn every_label_that_goes_backwards_or_leaves_its_function_is_rejected() {
    // Generic over the instruction set: every label operand of every instruction of every
    // real program, pointed at itself, backwards, at the function's end, past the code, and
    // into another function.
    let mut checked = 0;
    for (name, prog) in programs() {
        let parts = prog.parts().clone();
        for (fi, f) in parts.functions.iter().enumerate() {
            let other = parts
                .functions
                .iter()
                .enumerate()
                .find(|&(gi, _)| gi != fi)
                .map(|(_, g)| g.start + (g.end - g.start) / 2);
            for pc in f.start..f.end {
                let n = labels_mut(&mut parts.code[pc as usize].clone()).len();
                for k in 0..n {
                    let mut targets = vec![pc, f.start, f.end, parts.code.len() as u32, u32::MAX];
                    if pc > f.start {
                        targets.push(pc - 1);
                    }
                    targets.extend(other);
                    for t in targets {
                        let mut p = parts.clone();
                        *labels_mut(&mut p.code[pc as usize])[k] = Label(t);
                        match verify(p, &limits()) {
                            Ok(_) => panic!(
                                "{name}: label {k} of {:?} at {pc} set to {t} verified",
                                parts.code[pc as usize]
                            ),
                            Err(e) => assert_eq!(e.kind(), K::BadJump, "{name}: {e}"),
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} labels checked");
}

#[test]
fn bad_jumps() {
    let main = 0;
    // Backwards.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Jump { .. }),
        |i| *i = Instr::Jump { to: Label(0) },
    );
    expect(p, K::BadJump);
    // To itself.
    let mut p = base();
    let pc = find(&p, main, |i| matches!(i, Instr::Jump { .. }));
    p.code[pc] = Instr::Jump {
        to: Label(pc as u32),
    };
    expect(p, K::BadJump);
    // Backwards through a conditional jump and through an action's continuation.
    let mut p = base();
    let pc = find(&p, main, |i| matches!(i, Instr::JumpIfFalse { .. }));
    p.code[pc] = Instr::JumpIfFalse {
        to: Label(pc as u32 - 1),
    };
    expect(p, K::BadJump);
    let mut p = base();
    let pc = find(&p, main, is_act);
    if let Instr::Act { running, .. } = &mut p.code[pc] {
        *running = Label(pc as u32 - 1);
    }
    expect(p, K::BadJump);
    // Out of the function, past the end of the code.
    let mut p = base();
    let len = p.code.len() as u32;
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::JumpIfListed { .. }),
        |i| {
            if let Instr::JumpIfListed { to, .. } = i {
                *to = Label(len + 10);
            }
        },
    );
    expect(p, K::BadJump);
    let mut p = base();
    let last = p.functions.len() - 1;
    let len = p.code.len() as u32;
    edit(
        &mut p,
        last,
        |i| matches!(i, Instr::Jump { .. }),
        |i| *i = Instr::Jump { to: Label(len) },
    );
    expect(p, K::BadJump);
    // Into another function (forward: from the main entry into the subtree).
    let mut p = base();
    let sub = func(&p, "sub");
    let target = p.functions[sub].start + 1;
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::JumpIfCooling { .. }),
        |i| {
            if let Instr::JumpIfCooling { to, .. } = i {
                *to = Label(target);
            }
        },
    );
    expect(p, K::BadJump);
    // A `call` continuing into the function it calls.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Call { .. }),
        |i| {
            if let Instr::Call { success, .. } = i {
                *success = Label(target);
            }
        },
    );
    expect(p, K::BadJump);
    // Into another function (backward: from the subtree into the main entry's `finish`).
    let mut p = base();
    let sub = func(&p, "sub");
    let finish = find(&p, main, |i| matches!(i, Instr::Finish { .. })) as u32;
    edit(
        &mut p,
        sub,
        |i| matches!(i, Instr::Jump { .. } | Instr::OnSuccess { .. }),
        |i| {
            for l in labels_mut(i) {
                *l = Label(finish);
            }
        },
    );
    expect(p, K::BadJump);
}

#[test]
fn indices_out_of_range() {
    let main = 0;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "bit of jump.listed",
            Box::new(|p| {
                let n = p.layout.bits;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::JumpIfListed { .. }),
                    |i| {
                        if let Instr::JumpIfListed { bit, .. } = i {
                            *bit = Bit(n);
                        }
                    },
                );
            }),
        ),
        (
            "bit of list.running",
            Box::new(|p| {
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::OnRunning { .. }),
                    |i| {
                        if let Instr::OnRunning { bit, .. } = i {
                            *bit = Bit(u32::MAX);
                        }
                    },
                );
            }),
        ),
        (
            "bit of act",
            Box::new(|p| {
                let n = p.layout.bits;
                edit(p, main, is_act, |i| {
                    if let Instr::Act { bit, .. } = i {
                        *bit = Bit(n);
                    }
                });
            }),
        ),
        (
            "timer of jump.cooling",
            Box::new(|p| {
                let n = p.layout.timer_count;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::JumpIfCooling { .. }),
                    |i| {
                        if let Instr::JumpIfCooling { timer, .. } = i {
                            *timer = Timer(n);
                        }
                    },
                );
            }),
        ),
        (
            "timer of timer.arm",
            Box::new(|p| {
                let n = p.layout.timer_count;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Arm { .. }),
                    |i| {
                        if let Instr::Arm { timer, .. } = i {
                            *timer = Timer(n);
                        }
                    },
                );
            }),
        ),
        (
            "import of act",
            Box::new(|p| {
                let n = p.imports.len() as u32;
                edit(p, main, is_act, |i| {
                    if let Instr::Act { import, .. } = i {
                        *import = Imp(n);
                    }
                });
            }),
        ),
        (
            "import of call.fn",
            Box::new(|p| {
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::CallFn { .. }),
                    |i| {
                        if let Instr::CallFn { import, .. } = i {
                            *import = Imp(u32::MAX);
                        }
                    },
                );
            }),
        ),
        (
            "variable",
            Box::new(|p| {
                let n = p.vars.len() as u32;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::PushVar { .. }),
                    |i| *i = Instr::PushVar { var: Var(n) },
                );
            }),
        ),
        (
            "string",
            Box::new(|p| {
                let n = p.strings.len() as u32;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::PushStr { .. }),
                    |i| *i = Instr::PushStr { value: Str(n) },
                );
            }),
        ),
        (
            "string of a variable",
            Box::new(|p| {
                let n = p.strings.len() as u32;
                p.vars[0] = Value::Str(StrId(n));
            }),
        ),
        (
            "counter of temp.zero",
            Box::new(|p| {
                let n = p.temps;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Zero { .. }),
                    |i| *i = Instr::Zero { temp: Temp(n) },
                );
            }),
        ),
        (
            "counter of temp.inc",
            Box::new(|p| {
                let n = p.temps;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Inc { .. }),
                    |i| *i = Instr::Inc { temp: Temp(n) },
                );
            }),
        ),
        (
            "counter of quorum",
            Box::new(|p| {
                let n = p.temps;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Quorum { .. }),
                    |i| {
                        if let Instr::Quorum { fail, .. } = i {
                            *fail = Temp(n);
                        }
                    },
                );
            }),
        ),
        (
            "action ordinal",
            Box::new(|p| {
                let n = p.layout.actions;
                edit(p, main, is_act, |i| {
                    if let Instr::Act { action, .. } = i {
                        *action = ActionNo(n);
                    }
                });
            }),
        ),
        (
            "function",
            Box::new(|p| {
                let n = p.functions.len() as u32;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Call { .. }),
                    |i| {
                        if let Instr::Call { func, .. } = i {
                            *func = Func(n);
                        }
                    },
                );
            }),
        ),
    ];
    for (what, mutate) in cases {
        let mut p = base();
        mutate(&mut p);
        match verify(p, &limits()) {
            Ok(_) => panic!("{what}: out of range but verified"),
            Err(e) => assert_eq!(e.kind(), K::IndexOutOfRange, "{what}: {e}"),
        }
    }
}

#[test]
fn bad_calls() {
    // A call of an entry function (the main tree, or the second entry).
    for entry in [0u32, 1] {
        let mut p = base();
        edit(
            &mut p,
            0,
            |i| matches!(i, Instr::Call { .. }),
            |i| {
                if let Instr::Call { func, .. } = i {
                    *func = Func(entry);
                }
            },
        );
        expect(p, K::BadContinuation);
    }

    // A cycle between two subtree functions: `b` calls `a`, which includes `b`.
    let nested = program_nested().parts().clone();
    let (a, b) = (func(&nested, "a"), func(&nested, "b"));
    let a_calls_b = find(&nested, a, |i| matches!(i, Instr::Call { .. }));
    assert!(matches!(nested.code[a_calls_b], Instr::Call { func, .. } if func.0 == b as u32));
    let fight = import_index(&nested, "fight", ImportKind::Action);
    let is_fight = |i: &Instr| matches!(i, Instr::Act { import, .. } if import.0 == fight);
    // `act fight, 0` pops nothing: a `call` with its continuations fits in its place.
    let mut p = nested.clone();
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, a as u32)
    });
    expect(p, K::CallCycle);
    // A subtree calling itself.
    let mut p = nested.clone();
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, b as u32)
    });
    expect(p, K::CallCycle);
    // A longer cycle through a third function: b -> c -> a -> b.
    let mut p = nested.clone();
    let c = append_subtree(
        &mut p,
        "c",
        &[
            call_to(a as u32, 1),
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, c as u32)
    });
    expect(p, K::CallCycle);
    // The same edit calling a leaf function is fine (sanity check of the edit).
    let mut p = nested.clone();
    let leaf = append_subtree(
        &mut p,
        "leaf",
        &[Instr::Return {
            status: Status::Running,
        }],
    );
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, leaf as u32)
    });
    let q = verify(p, &limits()).expect("calling a leaf subtree instead of an action verifies");
    assert_eq!(q.max_calls(), program_nested().max_calls() + 1);
}

#[test]
fn bad_continuations() {
    let main = 0;
    // `finish` in a subtree.
    let mut p = base();
    let sub = func(&p, "sub");
    edit(
        &mut p,
        sub,
        |i| matches!(i, Instr::Return { .. }),
        |i| {
            *i = Instr::Finish {
                status: Status::Success,
            }
        },
    );
    expect(p, K::BadContinuation);
    // `return` in an entry.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Finish { .. }),
        |i| {
            *i = Instr::Return {
                status: Status::Failure,
            }
        },
    );
    expect(p, K::BadContinuation);
    let mut p = base();
    let spawn = func(&p, "spawn");
    let end = p.functions[spawn].end as usize;
    p.code[end - 1] = Instr::Return {
        status: Status::Running,
    };
    expect(p, K::BadContinuation);
    // The last instruction falls through (into the next function, or off the code).
    for f in ["main", "spawn", "sub"] {
        for last in [
            Instr::Inc { temp: Temp(0) },
            Instr::Arm {
                timer: Timer(0),
                ms: 1,
            },
            Instr::PushBool { value: true },
        ] {
            let mut p = base();
            let fi = func(&p, f);
            let end = p.functions[fi].end as usize;
            p.code[end - 1] = last;
            expect(p, K::BadContinuation);
        }
    }
    // `call` continues at its labels: in a one-instruction function they can only point past
    // its end.
    let mut p = base();
    let start = p.code.len() as u32;
    p.code.push(call_to(func(&p, "sub") as u32, start + 1));
    p.functions.push(Function {
        name: "callonly".into(),
        kind: FunctionKind::Subtree,
        start,
        end: start + 1,
    });
    expect(p, K::BadJump);
    // A well-formed `call` in an appended function (sanity check of the above).
    let mut p = base();
    let sub = func(&p, "sub") as u32;
    append_subtree(
        &mut p,
        "caller",
        &[
            call_to(sub, 1),
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    verify(p, &limits()).expect("call; return verifies");
}

#[test]
fn bad_stacks() {
    // Underflow: `not` with nothing on the stack.
    let mut p = base();
    let spawn = func(&p, "spawn");
    let start = p.functions[spawn].start as usize;
    assert!(matches!(p.code[start], Instr::PushStr { .. }));
    p.code[start] = Instr::Not {};
    expect(p, K::StackUnderflow);
    // Underflow: `act` popping more arguments than were pushed (`say` takes 1..1; make it
    // 1..2 so arity is fine).
    let mut p = base();
    let say = import_index(&p, "say", ImportKind::Action);
    p.imports[say as usize].max_args = 2;
    let spawn = func(&p, "spawn");
    edit(&mut p, spawn, is_act, |i| {
        if let Instr::Act { argc, .. } = i {
            *argc = 2;
        }
    });
    expect(p, K::StackUnderflow);
    // Underflow in an appended function: `bin` with one operand.
    let mut p = base();
    append_subtree(
        &mut p,
        "u",
        &[
            Instr::PushInt { value: 1 },
            Instr::Bin {
                op: btvm::BinOp::Add,
            },
            Instr::JumpIfFalse { to: Label(3) },
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    expect(p, K::StackUnderflow);
    // Different depths at a join.
    let mut p = base();
    append_subtree(
        &mut p,
        "join",
        &[
            Instr::PushBool { value: true },
            Instr::JumpIfFalse { to: Label(4) }, // reaches 4 with 0 values
            Instr::PushInt { value: 1 },
            Instr::Jump { to: Label(4) }, // reaches 4 with 1 value
            Instr::JumpIfTrue { to: Label(5) },
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    expect(p, K::StackMismatch);
    // The same in lowered code: a `jump.true` (pops) becomes a `jump` (does not pop).
    let mut p = base();
    let main = 0;
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::JumpIfTrue { .. }),
        |i| {
            if let Instr::JumpIfTrue { to } = *i {
                *i = Instr::Jump { to };
            }
        },
    );
    expect(p, K::StackMismatch);
    // Values left on the stack at node-level instructions.
    for node_level in [
        Instr::Return {
            status: Status::Success,
        },
        Instr::OnSuccess {
            bit: Bit(0),
            to: Label(2),
        },
        Instr::OnRunning {
            bit: Bit(0),
            to: Label(2),
        },
        Instr::Zero { temp: Temp(0) },
        Instr::Arm {
            timer: Timer(0),
            ms: 5,
        },
        Instr::JumpIfListed {
            bit: Bit(0),
            to: Label(2),
        },
        Instr::JumpIfCooling {
            timer: Timer(0),
            to: Label(2),
        },
        Instr::Quorum {
            succ: Temp(0),
            fail: Temp(1),
            n: 1,
            success_all: true,
            failure_all: false,
            success: Label(2),
            failure: Label(2),
            running: Label(2),
        },
        call_to(0, 2), // replaced below by a call of `sub`
    ] {
        let mut p = base();
        let node_level = match node_level {
            Instr::Call { .. } => call_to(func(&p, "sub") as u32, 2),
            other => other,
        };
        let code = vec![
            Instr::PushInt { value: 1 },
            node_level,
            Instr::Return {
                status: Status::Success,
            },
        ];
        append_subtree(&mut p, "left", &code);
        expect(p, K::StackMismatch);
    }
    // ... and in lowered code: `act` with fewer arguments than were pushed.
    let mut p = base();
    let say = import_index(&p, "say", ImportKind::Action);
    p.imports[say as usize].min_args = 0;
    let spawn = func(&p, "spawn");
    edit(&mut p, spawn, is_act, |i| {
        if let Instr::Act { argc, .. } = i {
            *argc = 0;
        }
    });
    expect(p, K::StackMismatch);
    // Underflow of the fused compare-and-jump.
    let mut p = base();
    append_subtree(
        &mut p,
        "cmp",
        &[
            Instr::PushInt { value: 1 },
            Instr::JumpIfCmp {
                op: btvm::BinOp::Lt,
                when: true,
                to: Label(2),
            },
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    expect(p, K::StackUnderflow);
    // Overflow past `Limits::max_stack`.
    let p = base();
    let deepest = verify(p.clone(), &limits()).unwrap().max_stack();
    assert!(deepest >= 2);
    let tight = Limits {
        max_stack: deepest - 1,
        ..limits()
    };
    expect_with(p.clone(), &tight, K::StackOverflow);
    let exact = Limits {
        max_stack: deepest,
        ..limits()
    };
    verify(p, &exact).expect("the deepest stack is allowed");
}

#[test]
fn bad_arity_and_import_kinds() {
    let main = 0;
    let say = import_index(&base(), "say", ImportKind::Action);
    let move_to = import_index(&base(), "moveTo", ImportKind::Action);
    let alive = import_index(&base(), "alive", ImportKind::Function);
    let distance = import_index(&base(), "distanceTo", ImportKind::Function);
    // `say` takes 1..1: two arguments.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Act { import, .. } if import.0 == say),
        |i| {
            if let Instr::Act { argc, .. } = i {
                *argc = 2;
            }
        },
    );
    expect(p, K::Arity);
    // `moveTo` takes 1..2: none.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Act { import, .. } if import.0 == move_to),
        |i| {
            if let Instr::Act { argc, .. } = i {
                *argc = 0;
            }
        },
    );
    expect(p, K::Arity);
    // `act` naming a function import.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Act { argc: 0, .. }),
        |i| {
            if let Instr::Act { import, .. } = i {
                *import = Imp(alive);
            }
        },
    );
    expect(p, K::Arity);
    // `call.fn` naming an action import.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| {
            matches!(i, Instr::CallFn { import, .. } | Instr::CallFnCmpK { import, .. }
                if import.0 == distance)
        },
        |i| {
            if let Instr::CallFn { import, .. } | Instr::CallFnCmpK { import, .. } = i {
                *import = Imp(say);
            }
        },
    );
    expect(p, K::Arity);
    // `call.fn` with the wrong argument count.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| {
            matches!(i, Instr::CallFn { import, .. } | Instr::CallFnCmpK { import, .. }
                if import.0 == alive)
        },
        |i| {
            if let Instr::CallFn { argc, .. } | Instr::CallFnCmpK { argc, .. } = i {
                *argc = 1;
            }
        },
    );
    expect(p, K::Arity);
    // An import declaring min > max.
    let mut p = base();
    p.imports[say as usize].min_args = 3;
    p.imports[say as usize].max_args = 2;
    expect(p, K::BadOperand);
}

#[test]
fn bad_layouts() {
    let l = base().layout;
    assert!(l.bits > 0 && l.timer_count > 0 && l.rng.is_some() && l.actions > 0);
    // Overlapping fields.
    let overlaps: Vec<(&str, Mutation<'_, btvm::program::Layout>)> = vec![
        ("timers on the list", Box::new(|l| l.timers = l.list)),
        (
            "rng on the timers",
            Box::new(|l| l.rng = Some(l.timers + 4)),
        ),
        (
            "count on current",
            Box::new(|l| l.count.offset = l.current.offset),
        ),
        ("list on count", Box::new(|l| l.list = l.count.offset)),
        (
            "current inside the timers",
            Box::new(|l| l.current.offset = l.timers + 3),
        ),
    ];
    for (what, f) in overlaps {
        let mut p = base();
        f(&mut p.layout);
        match verify(p, &limits()) {
            Ok(_) => panic!("{what}: verified"),
            Err(e) => assert_eq!(e.kind(), K::BadLayout, "{what}: {e}"),
        }
    }
    // A field past the end of the block.
    let past: Vec<(&str, Mutation<'_, btvm::program::Layout>)> = vec![
        ("block one byte short", Box::new(|l| l.size -= 1)),
        ("timers past the end", Box::new(|l| l.timers = l.size - 7)),
        ("rng past the end", Box::new(|l| l.rng = Some(u32::MAX - 3))),
        ("list past the end", Box::new(|l| l.list = u32::MAX)),
        ("many timers", Box::new(|l| l.timer_count = u32::MAX)),
        ("many bits", Box::new(|l| l.bits = u32::MAX)),
        (
            "current past the end",
            Box::new(|l| l.current.offset = l.size),
        ),
    ];
    for (what, f) in past {
        let mut p = base();
        f(&mut p.layout);
        match verify(p, &limits()) {
            Ok(_) => panic!("{what}: verified"),
            Err(e) => assert_eq!(e.kind(), K::BadLayout, "{what}: {e}"),
        }
    }
    // Widths and capacities.
    let mut p = base();
    p.layout.current.width = 3;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.count.width = 8;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.actions = 256; // the slot is one byte wide
    assert_eq!(p.layout.current.width, 1);
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.capacity = 300;
    assert_eq!(p.layout.count.width, 1);
    if p.layout.bits < 256 {
        p.layout.bits = 256;
        // keep the list inside the block: move everything after it
        let grow = 256u32.div_ceil(8) - base().layout.list_bytes();
        p.layout.size += grow;
        p.layout.timers += grow;
        p.layout.rng = p.layout.rng.map(|r| r + grow);
    }
    expect(p, K::BadLayout);
    // `random` with no PRNG slot.
    let mut p = base();
    p.layout.rng = None;
    expect(p, K::BadLayout);
    // Sanity: a bigger block with room to spare is fine.
    let mut p = base();
    p.layout.size += 100;
    verify(p, &limits()).expect("unused bytes are allowed");
}

#[test]
fn limits_are_enforced() {
    let p = base();
    let size = p.layout.size as usize;
    // State size above `max_state_bytes`.
    expect_with(
        p.clone(),
        &Limits {
            max_state_bytes: size - 1,
            ..limits()
        },
        K::TooLarge,
    );
    verify(
        p.clone(),
        &Limits {
            max_state_bytes: size,
            ..limits()
        },
    )
    .expect("exactly at the limit");
    let mut big = p.clone();
    big.layout.size = (limits().max_state_bytes + 1) as u32;
    expect(big, K::TooLarge);
    // The tick budget.
    let budget = verify(p.clone(), &limits()).unwrap().tick_budget();
    assert!(budget > 0);
    expect_with(
        p.clone(),
        &Limits {
            max_tick_instructions: budget - 1,
            ..limits()
        },
        K::BudgetExceeded,
    );
    verify(
        p.clone(),
        &Limits {
            max_tick_instructions: budget,
            ..limits()
        },
    )
    .expect("exactly the budget");
    // Calls count towards the budget (the nested program's main entry calls `a`, which calls
    // `b`).
    let nested = program_nested();
    expect_with(
        nested.parts().clone(),
        &Limits {
            max_tick_instructions: nested.tick_budget() - 1,
            ..limits()
        },
        K::BudgetExceeded,
    );
    // Too many instructions.
    let n = p.code.len();
    expect_with(
        p.clone(),
        &Limits {
            max_program_instructions: n - 1,
            ..limits()
        },
        K::TooLarge,
    );
    verify(
        p,
        &Limits {
            max_program_instructions: n,
            ..limits()
        },
    )
    .expect("exactly the instruction limit");
}

#[test]
fn bad_function_tables() {
    // Overlapping functions.
    let mut p = base();
    p.functions[1].start = p.functions[0].end - 1;
    expect(p, K::BadContinuation);
    let mut p = base();
    let f = p.functions[1].clone();
    p.functions.push(Function {
        name: "copy".into(),
        ..f
    });
    expect(p, K::BadContinuation);
    // An empty function.
    let mut p = base();
    p.functions[1].end = p.functions[1].start;
    expect(p, K::BadContinuation);
    // A function ending before it starts, or past the code.
    let mut p = base();
    p.functions[1].end = p.functions[1].start - 1;
    expect(p, K::BadContinuation);
    let mut p = base();
    let last = p.functions.len() - 1;
    p.functions[last].end = p.code.len() as u32 + 1;
    expect(p, K::BadContinuation);
    let mut p = base();
    p.functions[last].start = u32::MAX - 1;
    p.functions[last].end = u32::MAX;
    expect(p, K::BadContinuation);
    // Two entries with one name.
    let mut p = base();
    p.functions[1].name = p.functions[0].name.clone();
    expect(p, K::BadOperand);
    // Duplicate strings.
    let mut p = base();
    let s = p.strings[0].clone();
    p.strings.push(s);
    expect(p, K::BadOperand);
    // No functions at all is a valid (if useless) program: it has no main entry.
    let mut p = base();
    p.functions.clear();
    let q = verify(p, &limits()).expect("a program without functions verifies");
    assert_eq!(q.main(), None);
    let mut host = Permissive::always(1);
    let mut state = q.new_state();
    assert!(matches!(
        Vm::new(&q).tick(&mut state, AgentId(0), &mut host, 0),
        Err(btvm::VmError::NoEntry(_))
    ));
}

/// Caught by the bit-flip test: nothing bounded `ProgramParts::temps`, and `Scratch::new`
/// (hence `Vm::new` / `Batch::new` / `Batch::par_tick`) allocates `temps` counters, so a
/// program file of under 1 KiB could make the VM allocate 16 GiB. The verifier now allows at
/// most one counter per instruction.
#[test]
fn the_counter_table_is_bounded() {
    let mut p = base();
    p.temps = u32::MAX;
    assert_eq!(
        verify(p.clone(), &limits()).map(|_| ()).unwrap_err().kind(),
        btvm::ProgramErrorKind::TooLarge
    );
    p.temps = p.code.len() as u32;
    assert!(verify(p, &limits()).is_ok());
}
