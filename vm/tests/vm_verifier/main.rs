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

mod calls;
mod cursor;
mod decider;
mod files;
mod indices;
mod jumps;
mod layouts;
mod lifecycle;
mod limits_and_tables;
mod nodes;
mod selection;
mod stacks;

// ---------------------------------------------------------------------------------------------
// Trees and programs

/// Actions with int/string/var arguments, a condition with `&&`, `||`, `!`, function calls, a
/// cooldown, a parallel with `@random`, a shared subtree included twice, a guard, an invert, a
/// map and a second entry.
const TREE_ALL: &str = include_str!("../fixtures/vm_all.btn");

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
fn program_cursor() -> Program {
    lower("cursor", &parse_canonical("cursor.btn", TREE_CURSOR))
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
/// instruction (code of no node in the code map, where there is one); returns its index.
fn append_subtree(parts: &mut ProgramParts, name: &str, code: &[Instr]) -> usize {
    let base = parts.code.len() as u32;
    for ins in code {
        let mut ins = *ins;
        rebase(&mut ins, base);
        push_code(parts, ins);
    }
    parts.functions.push(Function {
        name: name.to_string(),
        kind: FunctionKind::Subtree,
        start: base,
        end: parts.code.len() as u32,
    });
    parts.functions.len() - 1
}

/// Appends `ins` to the code, as code of no node in the code map where there is one (so the
/// map keeps its length and only the instruction is under test).
fn push_code(parts: &mut ProgramParts, ins: Instr) {
    parts.code.push(ins);
    if !parts.nodes.code.is_empty() {
        parts.nodes.code.push(u32::MAX);
    }
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
