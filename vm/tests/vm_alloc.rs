//! Ticks perform no heap allocation, from the very first tick on: `Vm::tick`, `Engine::tick`
//! on native code, and `Batch::tick` on both engines; nor do events (`Engine::event`,
//! `Batch::event`).
//!
//! A counting global allocator wraps `System`; it counts only while the current thread has
//! switched counting on (a thread-local flag), so the other tests of this file, running on
//! their own threads, cannot disturb a measurement. The host answers from fixed arrays and
//! records into fixed arrays, so it allocates nothing itself.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use btvm::{AgentId, Batch, Call, Engine, EngineKind, Host, Limits, Program, Status, Value};
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;
use btvm_testkit::compare::COMPILED;

// ---------------------------------------------------------------------------------------------
// The counting allocator

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static DEALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn note(counter: &'static std::thread::LocalKey<Cell<u64>>) {
    // `try_with`: never panic inside the allocator, even while the thread is torn down.
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = counter.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every method forwards to `System` unchanged; the counters are thread-local `Cell`s
// with constant initialisers, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(&ALLOCATIONS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(&ALLOCATIONS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(&ALLOCATIONS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(&DEALLOCATIONS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` with counting on for this thread; returns its result and the allocations
/// (including reallocations) and deallocations it made.
fn counted<R>(f: impl FnOnce() -> R) -> (R, u64, u64) {
    ALLOCATIONS.with(|c| c.set(0));
    DEALLOCATIONS.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (
        r,
        ALLOCATIONS.with(Cell::get),
        DEALLOCATIONS.with(Cell::get),
    )
}

// ---------------------------------------------------------------------------------------------
// The tree and the host

/// Actions with int/float/string/variable/expression arguments, host functions (also with
/// string arguments), `&&`/`||`/`!`, cooldowns, parallels, `@random`, shared subtrees (one
/// nested in another, so calls go two deep) and a second entry.
const TREE: &str = r#"btvm 1;
dialect unvanquished;
import action moveTo 1..2 long;
import action say 1..2;
import action fight 0..0 long;
import action roam 0..0 long;
import function distanceTo 1..1;
import function alive 0..0;
import function health 0..0;
var hungry: bool = false;
var speed: float = 2.5;
var label: int = "tag";

root main = selector running-list {
    sequence running-list {
        condition (alive() && (distanceTo("enemy") < 10.5 || !$hungry))
        action say("hello", health() * 2 + 1)
        action moveTo(3, "goal")
    }
    cooldown 300 {
        action say($label)
    }
    parallel success=all failure=any {
        action fight()
        condition (@random < 0.5)
        include "b"
    }
    include "a"
    include "a"
    parallel success=any failure=all stop-on-failure {
        action roam()
        action moveTo(@random * 100, $speed)
    }
}
root spawn = sequence running-list {
    action say("spawn", -1.5)
    include "b"
}
subtree "a" shared = sequence running-list {
    guard every-tick (!alive() || health() > 0.5) { action moveTo($speed) }
    invert { action fight() }
    include "b"
    map failure success running { const running }
}
subtree "b" shared = selector running-list {
    cooldown 150 { action say("b", distanceTo("b") != 2) }
    action roam()
}
"#;

fn program() -> Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("alloc.btn", TREE.to_string());
    let tree = match canonical::parse(file, TREE, &limits) {
        Ok(t) => t,
        Err(d) => panic!("the tree does not parse: {}", d[0].display(&sources)),
    };
    match btvm_compiler::lower::lower(&tree, &limits) {
        Ok(p) => p,
        Err(d) => panic!("the tree does not lower: {}", d[0].message),
    }
}

const STATUSES: [Status; 7] = [
    Status::Running,
    Status::Success,
    Status::Running,
    Status::Failure,
    Status::Success,
    Status::Running,
    Status::Failure,
];

const VALUES: [Value; 6] = [
    Value::Int(3),
    Value::Float(0.25),
    Value::Bool(true),
    Value::Float(20.0),
    Value::Int(0),
    Value::Float(0.75),
];

/// Answers from the fixed arrays above; counts calls per import and sums argument bytes in
/// fixed fields. Allocates nothing.
struct FixedHost {
    next: usize,
    calls: [u64; 16],
    roots: [u64; 3],
    arg_bytes: usize,
    arg_sum: f64,
}

impl FixedHost {
    fn new() -> Self {
        FixedHost {
            next: 0,
            calls: [0; 16],
            roots: [0; 3],
            arg_bytes: 0,
            arg_sum: 0.0,
        }
    }

    fn look(&mut self, call: &Call<'_>) -> usize {
        self.calls[call.import.index()] += 1;
        for a in call.args {
            match *a {
                Value::Str(s) => self.arg_bytes += call.strings.get(s).len(),
                v => self.arg_sum += v.as_f64(),
            }
        }
        self.next += 1;
        self.next + call.agent.0 as usize * 3 + call.import.index() + (call.now / 100) as usize
    }
}

impl Host for FixedHost {
    fn action(&mut self, call: &Call<'_>) -> Status {
        let k = self.look(call);
        STATUSES[k % STATUSES.len()]
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        let k = self.look(call);
        VALUES[k % VALUES.len()]
    }
}

/// The program exercised what it should: every import was called.
fn assert_coverage(p: &Program, host: &FixedHost) {
    for (i, imp) in p.imports().iter().enumerate() {
        assert!(host.calls[i] > 0, "import `{}` was never called", imp.name);
    }
    assert!(host.arg_bytes > 0 && host.arg_sum != 0.0);
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn the_counter_sees_allocations_on_this_thread_only() {
    let (v, allocs, _) = counted(|| Vec::<u64>::with_capacity(10));
    assert!(allocs >= 1);
    let ((), allocs, deallocs) = counted(|| drop(v));
    assert_eq!((allocs, deallocs), (0, 1));
    let (s, allocs, _) = counted(|| format!("{}", 12345));
    assert!(allocs >= 1 && s == "12345");
    // Another thread's allocations, made while this thread counts, are not counted here.
    let go = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !go.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            for i in 0..1000 {
                std::hint::black_box(Vec::<u8>::with_capacity(16 + i));
            }
            done.store(true, Ordering::Release);
        });
        let ((), allocs, deallocs) = counted(|| {
            go.store(true, Ordering::Release);
            while !done.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
        });
        assert_eq!((allocs, deallocs), (0, 0));
    });
}

#[test]
fn the_host_allocates_nothing() {
    let p = program();
    let mut host = FixedHost::new();
    let strings = p.strings();
    let args = [Value::Int(1), Value::Float(2.0)];
    let ((), allocs, deallocs) = counted(|| {
        for i in 0..100 {
            let call = Call::new(
                AgentId(i),
                btvm::ImportId(i % 3),
                btvm::Phase::Enter,
                &args,
                i64::from(i),
                strings,
            );
            let _ = host.action(&call);
            let _ = host.function(&call);
        }
    });
    assert_eq!((allocs, deallocs), (0, 0));
}

#[test]
fn vm_tick_allocates_nothing_from_the_first_tick() {
    tick_allocates_nothing(EngineKind::Vm);
}

#[test]
#[cfg(feature = "jit")]
fn native_tick_allocates_nothing_from_the_first_tick() {
    tick_allocates_nothing(EngineKind::Native);
}

fn tick_allocates_nothing(kind: EngineKind) {
    let p = program();
    assert!(p.max_calls() >= 2, "calls go two deep");
    assert!(p.temps() >= 4, "two parallels");
    assert!(p.layout().rng.is_some() && p.layout().timer_count >= 2);
    let mut host = FixedHost::new();
    p.bind(&mut host).expect("the host binds everything");
    // Compiling (native code) allocates; ticking must not.
    let mut vm = Engine::new(&p, kind);
    assert_eq!(vm.kind(), kind, "{:?}", vm.fallback());
    let agents = 8;
    let mut states: Vec<Vec<u8>> = (0..agents).map(|_| p.new_state()).collect();

    // The very first tick of fresh agents.
    let ((), allocs, deallocs) = counted(|| {
        for (i, state) in states.iter_mut().enumerate() {
            let s = vm
                .tick(state, AgentId(i as u32), &mut host, 0)
                .expect("the state has the right size");
            host.roots[s as usize] += 1;
        }
    });
    assert_eq!(
        (allocs, deallocs),
        (0, 0),
        "the first tick allocated or freed"
    );

    // Many more ticks with advancing time, and the second entry.
    let ((), allocs, deallocs) = counted(|| {
        for tick in 1..300i64 {
            let now = tick * 37;
            for (i, state) in states.iter_mut().enumerate() {
                let agent = AgentId(i as u32);
                let s = vm.tick(state, agent, &mut host, now).expect("tick");
                host.roots[s as usize] += 1;
                if tick % 7 == 0 {
                    let s = vm
                        .run_entry("spawn", state, agent, &mut host, now)
                        .expect("entry");
                    host.roots[s as usize] += 1;
                }
            }
        }
    });
    assert_eq!((allocs, deallocs), (0, 0), "later ticks allocated or freed");

    assert_coverage(&p, &host);
    assert!(
        host.roots.iter().all(|&n| n > 0),
        "every root status is reached: {:?}",
        host.roots
    );
    let rng = p.layout().rng.unwrap() as usize;
    assert!(
        states.iter().all(|s| s[rng..rng + 8] != [0; 8]),
        "every agent drew random numbers"
    );
}

#[test]
fn batch_tick_allocates_nothing_from_the_first_tick() {
    batch_allocates_nothing(EngineKind::Vm);
}

#[test]
#[cfg(feature = "jit")]
fn native_batch_tick_allocates_nothing_from_the_first_tick() {
    batch_allocates_nothing(EngineKind::Native);
}

fn batch_allocates_nothing(kind: EngineKind) {
    let p = program();
    let mut host = FixedHost::new();
    p.bind(&mut host).expect("the host binds everything");
    let mut batch = Batch::with_engine(&p, 50, kind).expect("the program has a main entry");
    assert_eq!(batch.engine(), kind, "{:?}", batch.fallback());

    let (first, allocs, deallocs) = counted(|| {
        let statuses = batch.tick(&mut host, 0);
        statuses.len()
    });
    assert_eq!(first, 50);
    assert_eq!(
        (allocs, deallocs),
        (0, 0),
        "the first batch tick allocated or freed"
    );

    let ((), allocs, deallocs) = counted(|| {
        for tick in 1..100i64 {
            for &s in batch.tick(&mut host, tick * 45) {
                host.roots[s as usize] += 1;
            }
        }
    });
    assert_eq!(
        (allocs, deallocs),
        (0, 0),
        "later batch ticks allocated or freed"
    );
    assert_coverage(&p, &host);
    assert!(
        host.roots.iter().all(|&n| n > 0),
        "every root status is reached: {:?}",
        host.roots
    );

    // An empty batch ticks without allocating too.
    let mut empty = Batch::with_engine(&p, 0, kind).expect("main entry");
    let ((), allocs, _) = counted(|| {
        assert!(empty.tick(&mut host, 5).is_empty());
    });
    assert_eq!(allocs, 0);
}

/// A Drag[en]gine (cursor-model) tree: moves forwards and backwards, `when` conditions,
/// `@bound`, `yield`, run-aways and halted agents, resets between ticks.
const CURSOR_TREE: &str = r#"btvm 1;
dialect dragengine;
model cursor 9;
import action walk 0..2;
import action look 0..0;
import function near 0..1;
root main = selector @"root" cursor loop when (near("x") < 0.8) {
    sequence @".s" cursor loop {
        guard every-tick (@bound(action walk) && near() > 0.2) { action @".walk" walk("speed", 2) }
        map success success running { action @".look" look() }
        yield @".y"
    }
    action @".idle" look()
}
"#;

#[test]
fn cursor_ticks_allocate_nothing_on_either_engine() {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("cursor.btn", CURSOR_TREE.to_string());
    let tree = canonical::parse(file, CURSOR_TREE, &limits).expect("the tree parses");
    let p = btvm_compiler::lower::lower(&tree, &limits).expect("the tree lowers");
    for &kind in COMPILED {
        let mut host = FixedHost::new();
        let mut engine = Engine::new(&p, kind);
        assert_eq!(engine.kind(), kind, "{:?}", engine.fallback());
        let mut states: Vec<Vec<u8>> = (0..8).map(|_| p.new_state()).collect();
        let mut halted = 0;
        let ((), allocs, deallocs) = counted(|| {
            for tick in 0..300i64 {
                for (i, state) in states.iter_mut().enumerate() {
                    if p.halt(state).is_some() {
                        halted += 1;
                        p.reset(state);
                    }
                    let s = engine
                        .tick(state, AgentId(i as u32), &mut host, tick * 50)
                        .expect("tick");
                    host.roots[s as usize] += 1;
                }
            }
        });
        assert_eq!(
            (allocs, deallocs),
            (0, 0),
            "{kind:?} ticks allocated or freed"
        );
        assert_coverage(&p, &host);
        assert!(halted > 0, "some agent halted and was reset");
        // The looping root selector never succeeds: it fails (halting) or runs.
        assert!(host.roots[0] > 0 && host.roots[2] > 0, "{:?}", host.roots);
    }
}

/// A Spore (decider-model) tree: every policy, preconditions, redecides that go back, the loop
/// guard, flags and stimuli given between ticks.
const DECIDER_TREE: &str = r#"btvm 1;
dialect spore;
model decider 3;
import action a 0..0;
import action b 0..0;
import action gb 0..0;
import function f 0..2;
flag night;
stimulus hit;
root main = decider {
    group prioritized behavior gb activate tick deactivate {
        decider every 120 decision any set 0x1 decide (f("x", 2)) redecide {
            group random { decider { behavior a activate tick deactivate } decider decide (f()) { behavior b tick } }
        }
        decider stimuli any set 0x1 { group scored { decider decide (f()) { behavior a tick } decider { behavior b activate tick } } }
        decider { group sequential { decider { behavior b activate tick deactivate } decider { behavior a tick } } }
    }
}
"#;

#[test]
fn decider_ticks_allocate_nothing_on_either_engine() {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("decider.btn", DECIDER_TREE.to_string());
    let tree = canonical::parse(file, DECIDER_TREE, &limits).expect("the tree parses");
    let p = btvm_compiler::lower::lower(&tree, &limits).expect("the tree lowers");
    for &kind in COMPILED {
        let mut host = FixedHost::new();
        let mut engine = Engine::new(&p, kind);
        assert_eq!(engine.kind(), kind, "{:?}", engine.fallback());
        let mut states: Vec<Vec<u8>> = (0..8).map(|_| p.new_state()).collect();
        let mut guards = 0;
        let ((), allocs, deallocs) = counted(|| {
            for tick in 0..300i64 {
                for (i, state) in states.iter_mut().enumerate() {
                    p.set_decision_flags(state, (tick as u32 / 7) & 1);
                    if tick % 5 == 0 {
                        p.add_stimulus(state, 0, btvm::Stimulus::new(tick * 50, Some(120), 1));
                    }
                    let s = engine
                        .tick(state, AgentId(i as u32), &mut host, tick * 50)
                        .expect("tick");
                    guards += usize::from(p.loop_guard(state));
                    host.roots[s as usize] += 1;
                }
            }
        });
        assert_eq!(
            (allocs, deallocs),
            (0, 0),
            "{kind:?} ticks allocated or freed"
        );
        assert_coverage(&p, &host);
        assert!(host.roots[0] > 0 && host.roots[2] > 0, "{:?}", host.roots);
        assert!(guards > 0, "the loop guard never tripped");
    }
}

/// A lifecycle (MBT) tree: loops with immediate restarts, a parallel, a group scope, hooks,
/// logs, timestamps, a state machine and events sent during the tick.
const LIFECYCLE_TREE: &str = r#"btvm 1;
dialect mbt;
model lifecycle;
root-finish stop;
abort terminate;
precision double;
import action Move 0..1 long;
import action Aim 0..0;
import function lua_0 0..0 script "return 1";
var alive: bool = true;
var seen: bool = false;
timestamp Seen on "EnemySeen";
signal "EnemySeen" seen = !$seen;
signal "Hurt" alive = !$alive;
root main = priority on-change {
    case ($seen) {
        logstatus start "fight" success "won" {
            parallel success=all failure=any remember {
                loop 3 until failure { action Move("a") }
                groupscope "squad" 3 { hooks enter lua_0() exit Aim() { action Move("b") } }
                sequence remember {
                    waitevent "Go" -> success
                    condition (@valid(Seen) && @elapsed(Seen) > 10)
                    send "Alarm" -> success
                }
            }
        }
    }
    case (true) {
        statemachine {
            state on "Alarm" -> 1 { loop forever until failure { wait 40 30 -> success } }
            state on "Alarm" -> 0 { sequence remember { log "alert" waituntil (!$alive) } }
        }
    }
}
"#;

/// A selection (BST) tree: a priority over a chaining state machine and a forward-only
/// sequence.
const SELECTION_TREE: &str = r#"btvm 1;
dialect bst;
model selection;
root-finish rerun;
abort abandon;
precision double;
var a: bool = false;
var b: bool = true;
signal "A" a = !$a;
signal "B" b = !$b;
root main = priority every-tick {
    case ($a && $b) { select "Both" }
    case (true) {
        statemachine {
            state when ($a) -> 1 when ($b) -> 2 {
                sequence remember { case (!$b) { select "NotB" } case (true) { select "Rest" } }
            }
            state when ($b) -> 2 when (true) -> 0 { select "One" }
            state when (!$b) -> 0 when ($a) -> 1 {
                priority every-tick { case ($a) { select "Two" } }
            }
        }
    }
}
"#;

/// Counts the messages and selections a tree gives (and allocates nothing).
struct Quiet {
    inner: FixedHost,
    logs: u64,
    selects: u64,
}

impl Host for Quiet {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.inner.action(call)
    }
    fn function(&mut self, call: &Call<'_>) -> Value {
        self.inner.function(call)
    }
    fn log(&mut self, _: AgentId, message: &str) {
        self.logs += message.len() as u64;
    }
    fn select(&mut self, _: AgentId, behavior: &str) {
        self.selects += 1 + behavior.len() as u64;
    }
}

fn lowered(name: &str, text: &str) -> Program {
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add(name, text.to_string());
    let tree = canonical::parse(file, text, &limits).expect("the tree parses");
    btvm_compiler::lower::lower(&tree, &limits).expect("the tree lowers")
}

/// Runs `run` on the lifecycle and the selection tree (given the tree's name, its program,
/// the events to send it and the engine kind) on both engines, each time with a fresh host;
/// then the host must have seen messages (lifecycle) or selections (selection).
fn on_event_models(mut run: impl FnMut(&str, &Program, &[&str], EngineKind, &mut Quiet)) {
    for (name, text, events) in [
        (
            "lifecycle",
            LIFECYCLE_TREE,
            ["EnemySeen", "Go", "Hurt", "Alarm"],
        ),
        ("selection", SELECTION_TREE, ["A", "B", "A", "nobody"]),
    ] {
        let p = lowered(name, text);
        for &kind in COMPILED {
            let mut host = Quiet {
                inner: FixedHost::new(),
                logs: 0,
                selects: 0,
            };
            run(name, &p, &events, kind, &mut host);
            if name == "lifecycle" {
                assert!(host.logs > 0, "nothing was logged");
            } else {
                assert!(host.selects > 0, "nothing was selected");
            }
        }
    }
}

#[test]
fn lifecycle_and_selection_ticks_allocate_nothing_on_either_engine() {
    on_event_models(|name, p, events, kind, host| {
        let mut engine = Engine::new(p, kind);
        assert_eq!(engine.kind(), kind, "{:?}", engine.fallback());
        let mut states: Vec<Vec<u8>> = (0..8).map(|_| p.new_state()).collect();
        let var = p
            .var_index("a")
            .or(p.var_index("alive"))
            .expect("a variable");
        let (mut halted, mut flipped) = (0, 0);
        let ((), allocs, deallocs) = counted(|| {
            for tick in 0..300i64 {
                let now = tick * 37;
                for (i, state) in states.iter_mut().enumerate() {
                    let agent = AgentId(i as u32);
                    if p.halt(state).is_some() {
                        halted += 1;
                        engine.reset_agent(state);
                    }
                    let e = events[(tick as usize + i) % events.len()];
                    if (tick + i as i64) % 3 == 0 {
                        engine.event(state, agent, host, e, now).expect("event");
                    }
                    if (tick + 2 * i as i64) % 11 == 0 {
                        let v = p.var(state, var).expect("a variable");
                        p.set_var(state, var, !v).expect("set");
                        flipped += 1;
                    }
                    let s = engine.tick(state, agent, host, now).expect("tick");
                    host.inner.roots[s as usize] += 1;
                }
            }
        });
        assert_eq!(
            (allocs, deallocs),
            (0, 0),
            "{name} on {kind:?}: ticks, events, sets or resets allocated or freed"
        );
        assert!(flipped > 0);
        if name == "lifecycle" {
            for (i, imp) in p.imports().iter().enumerate() {
                assert!(host.inner.calls[i] > 0, "`{}` was never called", imp.name);
            }
            assert!(halted > 0, "no agent stopped");
        } else {
            assert!(host.inner.roots[0] > 0 && host.inner.roots[1] > 0);
        }
    });
}

#[test]
fn batch_events_ticks_and_resets_allocate_nothing_on_either_engine() {
    on_event_models(|name, p, events, kind, host| {
        let mut batch = Batch::with_engine(p, 8, kind).expect("main entry");
        assert_eq!(batch.engine(), kind, "{:?}", batch.fallback());
        let mut delivered = 0;
        // Every other event goes by the id resolved here, before counting.
        let ids: Vec<_> = events.iter().map(|e| p.event_id(e)).collect();
        let ((), allocs, deallocs) = counted(|| {
            for tick in 0..300i64 {
                let now = tick * 37;
                for i in 0..batch.len() {
                    if (tick + i as i64) % 3 == 0 {
                        let a = AgentId(i as u32);
                        let k = (tick as usize + i) % events.len();
                        match ids[k].filter(|_| (tick + i as i64) % 2 == 0) {
                            Some(id) => batch.event_by_id(a, host, id, now).expect("event"),
                            None => batch.event(a, host, events[k], now).expect("event"),
                        }
                        delivered += 1;
                    }
                }
                for &s in batch.tick(host, now) {
                    host.inner.roots[s as usize] += 1;
                }
                for i in 0..batch.len() {
                    let a = AgentId(i as u32);
                    if batch.state(a).is_some_and(|st| p.halt(st).is_some()) {
                        batch.reset_agent(a).expect("alive");
                    }
                }
            }
            // An agent past the batch is an error, without allocating either.
            assert!(batch.event(AgentId(8), host, events[0], 0).is_err());
        });
        assert_eq!(
            (allocs, deallocs),
            (0, 0),
            "{name} on {kind:?}: batch events, ticks or resets allocated or freed"
        );
        assert!(delivered > 0);
    });
}
