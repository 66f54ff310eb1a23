//! Timing engines on a tree: what `btvm bench` measures.
//!
//! Every engine runs the same agents through the same ticks against the same host, with the
//! same inputs between ticks — decision flags and stimuli for decider (Spore) trees, events for
//! lifecycle (MBT) and selection (BST) trees, on a schedule hashed from (agent, tick) — and each
//! run reports a checksum (the root statuses, and the world's state or the calls the synthetic
//! host answered), so a table row is only comparable with the others when their checksums
//! agree. Timing lives here and in `benches/`, never in tests.

use std::time::Instant;

use btvm::{AgentId, Batch, Call, Host, Import, ImportId, Limits, Millis, Status, Value};

use super::between::Between;
use super::synthetic::SyntheticHost;
use super::world::World;
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::Tree;
use btvm_compiler::reference::{Interpreter, Scopes};
use btvm_compiler::source::Span;

/// An engine `btvm bench` can time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BenchEngine {
    /// The reference interpreter.
    Reference,
    /// The bytecode VM.
    Vm,
    /// Native code.
    Native,
    /// The demo tree written by hand in Rust ([`handwritten`](super::handwritten)): the
    /// baseline, only for the embedded demo against the world.
    HandWritten,
}

impl BenchEngine {
    /// Every engine that runs any tree, in table order.
    pub const ALL: [BenchEngine; 3] =
        [BenchEngine::Reference, BenchEngine::Vm, BenchEngine::Native];

    /// The engine's name.
    pub fn name(self) -> &'static str {
        match self {
            BenchEngine::Reference => "reference",
            BenchEngine::Vm => "vm",
            BenchEngine::Native => "native",
            BenchEngine::HandWritten => "hand-written",
        }
    }

    /// Parses an engine name.
    pub fn from_name(name: &str) -> Option<BenchEngine> {
        BenchEngine::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct BenchConfig {
    /// Number of agents.
    pub agents: u32,
    /// Ticks per agent.
    pub ticks: u32,
    /// Milliseconds between ticks.
    pub step_ms: Millis,
    /// The percentage of agents awake (1 to 100): the others (a hash of the agent id picks
    /// them) sleep for the whole run (`Batch::sleep_until`; the reference skips them too), so
    /// a run measures what sleeping agents cost. Events are still delivered to them; their
    /// root status stays the one before their first tick (`Failure`).
    pub awake_percent: u32,
}

impl BenchConfig {
    /// Whether agent `a` is awake in this run (see [`BenchConfig::awake_percent`]).
    pub fn awake(&self, a: u32) -> bool {
        self.awake_percent >= 100 || mix(a, 0xA11CE) % 100 < u64::from(self.awake_percent)
    }
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            agents: 100_000,
            ticks: 50,
            step_ms: 100,
            awake_percent: 100,
        }
    }
}

/// One measured run.
#[derive(Clone, Copy, Debug)]
pub struct BenchRow {
    /// The engine.
    pub engine: BenchEngine,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock nanoseconds per agent-tick.
    pub ns_per_agent_tick: f64,
    /// Agent-ticks per second.
    pub agent_ticks_per_sec: f64,
    /// Bytes of per-agent state the engine keeps.
    pub state_bytes_per_agent: usize,
    /// A hash of every root status and of the final world (with the synthetic host: of every
    /// call it answered): equal across engines.
    pub checksum: u64,
    /// Nanoseconds per agent-tick spent inside `Batch::tick` alone, without the harness's
    /// work between ticks (inputs, events, the status tally, restarts): the engine's own
    /// share. Only for the vm and native code on one thread; `None` otherwise.
    pub tick_ns_per_agent_tick: Option<f64>,
}

/// Which host a tree is benchmarked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    /// The simulated Unvanquished world ([`World`]), when it binds every import.
    World,
    /// [`SyntheticHost`], for trees that call names the world does not know (the run's
    /// checksum then covers every call it answered).
    Synthetic,
}

impl HostKind {
    /// The world if `tree` calls it (imports at least one name) and it knows every import,
    /// else the synthetic host. A tree that imports nothing (a BST tree, which only reports
    /// its selected leaf) does not touch the world, so it gets the synthetic host's name.
    pub fn for_tree(tree: &Tree) -> HostKind {
        HostKind::for_imports(&tree.imports)
    }

    /// [`HostKind::for_tree`] by a tree's (or a program's) import table.
    pub fn for_imports(imports: &[Import]) -> HostKind {
        if !imports.is_empty() && World::new(0).bind(imports).is_ok() {
            HostKind::World
        } else {
            HostKind::Synthetic
        }
    }
}

/// What the game gives a decider (Spore) tree between ticks, as S09 describes: each agent's
/// DecisionFlags word changes every 10 ticks (a tenth of the agents each tick), and a sixteenth
/// of the agents get a stimulus each tick, lasting 300 to 1,000 ms. Hashed from (agent, tick),
/// so every engine gets the same inputs; `None` for trees of other models. `btvm bench` and the
/// criterion benches use the same schedule.
#[derive(Clone, Copy, Debug)]
pub struct DeciderSchedule {
    flags: u32,
    stimuli: u32,
}

impl DeciderSchedule {
    /// The schedule of `tree`'s flags and stimuli; `None` unless it is a decider tree.
    pub fn for_tree(tree: &Tree) -> Option<DeciderSchedule> {
        matches!(tree.config.model, btvm_compiler::ir::Model::Decider { .. }).then(|| {
            DeciderSchedule {
                flags: tree.flags.len() as u32,
                stimuli: tree.stimuli.len() as u32,
            }
        })
    }

    /// The schedule of a compiled decider program (its flag names from the node table's
    /// tree names, its declared stimuli); `None` for other models.
    pub fn for_program(program: &btvm::Program) -> Option<DeciderSchedule> {
        matches!(program.model(), btvm::program::ProgramModel::Decider { .. }).then(|| {
            DeciderSchedule {
                flags: program.nodes().names.flags.len() as u32,
                stimuli: program.parts().stimuli,
            }
        })
    }

    /// The new flag word of `agent` before tick `tick`, if it changes then.
    pub fn flags(&self, agent: u32, tick: u32) -> Option<u32> {
        if self.flags == 0 || tick % 10 != agent % 10 {
            return None;
        }
        let mask = if self.flags >= 32 {
            u32::MAX
        } else {
            (1 << self.flags) - 1
        };
        Some(mix(agent, tick / 10) as u32 & mask)
    }

    /// The stimulus `agent` gets before tick `tick`, if any: its bit and how long it lasts.
    pub fn stimulus(&self, agent: u32, tick: u32) -> Option<(u32, Millis)> {
        let h = mix(agent ^ 0x5bd1_e995, tick);
        (self.stimuli > 0 && h.is_multiple_of(16)).then(|| {
            (
                ((h >> 8) % u64::from(self.stimuli)) as u32,
                300 + ((h >> 20) % 701) as Millis,
            )
        })
    }

    /// Gives every agent of `batch` (running `program`) its inputs before tick `tick`, at
    /// time `now`.
    pub fn apply_to_batch(
        &self,
        batch: &mut Batch,
        program: &btvm::Program,
        tick: u32,
        now: Millis,
    ) {
        for a in 0..batch.len() {
            let flags = self.flags(a as u32, tick);
            let stimulus = self.stimulus(a as u32, tick);
            if flags.is_none() && stimulus.is_none() {
                continue;
            }
            if let Some(st) = batch.state_mut(btvm::AgentId(a as u32)) {
                if let Some(w) = flags {
                    program.set_decision_flags(st, w);
                }
                if let Some((bit, ms)) = stimulus {
                    program.add_stimulus(st, bit, btvm::Stimulus::new(now, Some(ms), 0));
                }
            }
        }
    }
}

/// A hash of (agent, tick): what every input schedule is drawn from.
fn mix(agent: u32, tick: u32) -> u64 {
    let mut z = (u64::from(agent) << 32 | u64::from(tick)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 32)
}

/// What the game tells a lifecycle (MBT) or selection (BST) tree between ticks: before each
/// tick, about an eighth of the agents get one event (a hash of (agent, tick) decides whether,
/// and which), picked from every event name the tree uses — the names of the program's event
/// functions (`lower::event_names`). Each is delivered at that tick's time, before the
/// tick, in agent order, so every engine gets the same events. No names (so no events) for
/// trees of other models. `btvm bench` and the criterion benches use the same schedule.
#[derive(Clone, Debug, Default)]
pub struct EventSchedule {
    names: Vec<String>,
}

impl EventSchedule {
    /// The schedule of `tree`'s events.
    pub fn for_tree(tree: &Tree) -> EventSchedule {
        EventSchedule {
            names: btvm_compiler::lower::event_names(tree),
        }
    }

    /// The schedule of a compiled program's events (its event functions, in order: the names
    /// [`EventSchedule::for_tree`] gives its tree).
    pub fn for_program(program: &btvm::Program) -> EventSchedule {
        let events = program.functions().iter();
        EventSchedule {
            names: events
                .filter(|f| f.kind == btvm::program::FunctionKind::Event)
                .map(|f| f.name.clone())
                .collect(),
        }
    }

    /// The event names, in the order [`EventSchedule::event`] indexes them.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether the schedule has no events at all.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The event names resolved on `program` (for [`btvm::Batch::event_by_id`]), in the same
    /// order; `None` for a name the program does not use.
    pub fn ids(&self, program: &btvm::Program) -> Vec<Option<btvm::EventId>> {
        self.names.iter().map(|n| program.event_id(n)).collect()
    }

    /// The index into [`EventSchedule::names`] of the event `agent` gets before tick `tick`,
    /// if any.
    pub fn event(&self, agent: u32, tick: u32) -> Option<usize> {
        if self.names.is_empty() {
            return None;
        }
        let h = mix(agent ^ 0x2f6b_3c1d, tick);
        h.is_multiple_of(8)
            .then(|| ((h >> 8) % self.names.len() as u64) as usize)
    }
}

/// Restarts the agents of `batch` in slots `indices` whose tree stopped, as a game does
/// (Drag\[en\]gine `context.reset()`; an MBT root that finished, which also leaves the group
/// scopes the agent held). `lifecycle` says whether `program` is on the lifecycle (MBT) model.
pub fn restart_stopped(
    batch: &mut btvm::Batch,
    program: &btvm::Program,
    lifecycle: bool,
    indices: impl IntoIterator<Item = usize>,
) {
    for i in indices {
        let Some(&id) = batch.ids().get(i) else {
            continue;
        };
        let halted = batch.state(id).is_some_and(|st| program.halt(st).is_some());
        if halted && lifecycle {
            // `id` is alive: it was just read.
            let _ = batch.reset_agent(id);
        } else if halted {
            if let Some(st) = batch.state_mut(id) {
                program.reset(st);
            }
        }
    }
}

/// [`SyntheticHost`], folding every call it answers into a checksum (a sum, so it does not
/// depend on how the agents are split over hosts): action and function calls by (agent,
/// import, phase, time), behaviours selected (BST) and log messages by agent and text. Its
/// answers are the synthetic host's, which depend on the call alone, so without the checksum
/// two engines that call the host differently could agree on every root status.
#[derive(Clone, Debug, Default)]
struct Synthetic {
    host: SyntheticHost,
    sum: u64,
}

impl Synthetic {
    fn add(&mut self, x: u64) {
        let z = (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.sum = self.sum.wrapping_add(z ^ (z >> 32));
    }

    fn add_call(&mut self, tag: u64, call: &Call<'_>) {
        self.add(
            (u64::from(call.agent.0) << 32 | u64::from(call.import.0))
                ^ (call.now as u64).rotate_left(20)
                ^ (call.phase as u64) << 60
                ^ tag,
        );
    }

    fn add_text(&mut self, tag: u64, agent: AgentId, text: &str) {
        let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        self.add(h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(agent.0) ^ tag);
    }
}

impl Host for Synthetic {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        self.host.bind_import(id, import)
    }

    fn action(&mut self, call: &Call<'_>) -> Status {
        self.add_call(0x1 << 56, call);
        self.host.action(call)
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        self.add_call(0x2 << 56, call);
        self.host.function(call)
    }

    fn available(&mut self, id: ImportId) -> bool {
        self.host.available(id)
    }

    fn log(&mut self, agent: AgentId, message: &str) {
        self.add_text(0x3 << 56, agent, message);
        self.host.log(agent, message);
    }

    fn select(&mut self, agent: AgentId, behavior: &str) {
        self.add_text(0x4 << 56, agent, behavior);
        self.host.select(agent, behavior);
    }
}

/// Folds root statuses into a running checksum.
#[derive(Default)]
struct Tally([u64; 3]);

impl Tally {
    fn add(&mut self, s: Status) {
        self.0[s as usize] += 1;
    }

    /// Adds the counts a parallel tick's shards made.
    fn add_counts(&mut self, counts: &[std::sync::atomic::AtomicU64; 3]) {
        for (t, c) in self.0.iter_mut().zip(counts) {
            *t += c.load(std::sync::atomic::Ordering::Relaxed);
        }
    }

    fn hash(&self, world: u64) -> u64 {
        self.0
            .iter()
            .fold(world, |h, &c| (h ^ c).wrapping_mul(0x0000_0100_0000_01b3))
    }
}

/// Hosts for one run: one per thread.
enum Hosts {
    World(Vec<World>),
    Synthetic(Vec<Synthetic>),
}

impl Hosts {
    fn new(kind: HostKind, imports: &[Import], agents: usize, parts: usize) -> Hosts {
        match kind {
            HostKind::World => {
                let mut worlds = World::split(agents, parts);
                if worlds.is_empty() {
                    // No agents: still one (empty) world, the host every run needs.
                    worlds.push(World::range(0, 0));
                }
                for w in &mut worlds {
                    // `for_tree` checked that the world binds this tree.
                    let _ = w.bind(imports);
                }
                Hosts::World(worlds)
            }
            HostKind::Synthetic => Hosts::Synthetic(vec![Synthetic::default(); parts.max(1)]),
        }
    }

    /// Host `k` (the host of the `k`th chunk of agents).
    fn get(&mut self, k: usize) -> Option<&mut dyn Host> {
        match self {
            Hosts::World(w) => w.get_mut(k).map(|h| h as &mut dyn Host),
            Hosts::Synthetic(s) => s.get_mut(k).map(|h| h as &mut dyn Host),
        }
    }

    /// The world's checksum, or the sum of the synthetic hosts' (the same for any split).
    fn checksum(&self) -> u64 {
        match self {
            Hosts::World(w) => World::checksum_all(w),
            Hosts::Synthetic(s) => s.iter().fold(0, |sum, h| sum.wrapping_add(h.sum)),
        }
    }
}

fn row(
    engine: BenchEngine,
    threads: usize,
    secs: f64,
    cfg: &BenchConfig,
    state: usize,
    checksum: u64,
) -> BenchRow {
    let n = f64::from(cfg.agents) * f64::from(cfg.ticks);
    BenchRow {
        engine,
        threads,
        ns_per_agent_tick: if n > 0.0 { secs * 1e9 / n } else { 0.0 },
        agent_ticks_per_sec: if secs > 0.0 { n / secs } else { 0.0 },
        state_bytes_per_agent: state,
        checksum,
        tick_ns_per_agent_tick: None,
    }
}

/// Runs `tree` on `engine` with `threads` threads (the reference runs on one) and times it.
///
/// Between ticks every engine gets the same inputs (see the module documentation): decider
/// trees their decision flags and stimuli, lifecycle and selection trees their events.
pub fn run_bench(
    tree: &Tree,
    engine: BenchEngine,
    threads: usize,
    host: HostKind,
    cfg: &BenchConfig,
) -> Result<BenchRow, Diagnostic> {
    run_with(
        tree,
        engine,
        threads,
        host,
        cfg,
        &EventSchedule::for_tree(tree),
    )
}

/// [`run_bench`] delivering `events` (tests compare with a run without them).
fn run_with(
    tree: &Tree,
    engine: BenchEngine,
    threads: usize,
    host: HostKind,
    cfg: &BenchConfig,
    events: &EventSchedule,
) -> Result<BenchRow, Diagnostic> {
    match engine {
        BenchEngine::Reference => run_reference(tree, host, cfg, events),
        BenchEngine::HandWritten => run_handwritten(tree, host, cfg),
        BenchEngine::Vm | BenchEngine::Native => {
            let program = btvm_compiler::lower::lower(tree, &Limits::default())
                .map_err(|mut d| d.swap_remove(0))?;
            let inputs = DeciderSchedule::for_tree(tree);
            run_batch(&program, engine, threads, host, cfg, (events, inputs))
        }
    }
}

/// [`run_bench`] for a compiled program (a program file): the vm or native code, with the
/// inputs its tree would get (events by its event functions, a decider's flags and stimuli by
/// its counts). The reference and the hand-written baseline need the tree: an error.
pub fn run_program_bench(
    program: &btvm::Program,
    engine: BenchEngine,
    threads: usize,
    host: HostKind,
    cfg: &BenchConfig,
) -> Result<BenchRow, Diagnostic> {
    if !matches!(engine, BenchEngine::Vm | BenchEngine::Native) {
        return Err(Diagnostic::new(
            ErrorKind::Unsupported,
            Span::DUMMY,
            format!("{} needs the tree, not a compiled program", engine.name()),
        ));
    }
    let events = EventSchedule::for_program(program);
    let inputs = DeciderSchedule::for_program(program);
    run_batch(program, engine, threads, host, cfg, (&events, inputs))
}

/// The AI groups of a lifecycle (MBT) population: squads of this many agents (agent `a` in
/// group `a / SQUAD`), so group scopes are contended within a squad and a parallel tick can
/// tick squads on different threads.
pub const SQUAD: u32 = 8;

/// [`run_with`] on the reference interpreter (one thread).
fn run_reference(
    tree: &Tree,
    host: HostKind,
    cfg: &BenchConfig,
    events: &EventSchedule,
) -> Result<BenchRow, Diagnostic> {
    let engine = BenchEngine::Reference;
    let agents = cfg.agents as usize;
    let interp = Interpreter::new(tree)?;
    let mut states: Vec<_> = (0..cfg.agents)
        .map(|a| interp.new_agent(AgentId(a)))
        .collect();
    let mut hosts = Hosts::new(host, &tree.imports, agents, 1);
    let mut tally = Tally::default();
    let inputs = DeciderSchedule::for_tree(tree);
    // One group-scope table for the whole population, as a batch shares its engine's.
    let mut scopes = Scopes::new();
    if matches!(tree.config.model, btvm_compiler::ir::Model::Lifecycle) {
        for a in 0..cfg.agents {
            scopes.set_group(AgentId(a), a / SQUAD);
        }
    }
    let start = Instant::now();
    for t in 0..cfg.ticks {
        let now = Millis::from(t) * cfg.step_ms;
        let h: &mut dyn Host = match &mut hosts {
            Hosts::World(w) => &mut w[0],
            Hosts::Synthetic(s) => &mut s[0],
        };
        // Every event before the tick, in agent order, as the vm path delivers them.
        // Events touch no group scope, so `event` needs no scope table.
        if !events.is_empty() {
            for (a, state) in states.iter_mut().enumerate() {
                if let Some(e) = events.event(a as u32, t) {
                    interp.event(state, h, &events.names[e], now);
                }
            }
        }
        for (a, state) in states.iter_mut().enumerate() {
            let a = a as u32;
            if let Some(inp) = inputs {
                if let Some(w) = inp.flags(a, t) {
                    interp.set_decision_flags(state, w);
                }
                if let Some((bit, ms)) = inp.stimulus(a, t) {
                    interp.add_stimulus(state, bit, btvm::Stimulus::new(now, Some(ms), 0));
                }
            }
            if !cfg.awake(a) {
                tally.add(Status::Failure);
                continue;
            }
            tally.add(interp.tick_with_scopes(state, h, now, &mut scopes));
            // A game restarts a tree that stopped (Drag[en]gine `context.reset()`, an
            // MBT tree whose root finished).
            if state.halt().is_some() {
                interp.reset_with_scopes(state, &mut scopes);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let state = states.first().map_or(0, |s| s.footprint());
    Ok(row(
        engine,
        1,
        secs,
        cfg,
        state,
        tally.hash(hosts.checksum()),
    ))
}

/// [`run_with`] on the hand-written baseline (the demo against the world, one thread).
fn run_handwritten(tree: &Tree, host: HostKind, cfg: &BenchConfig) -> Result<BenchRow, Diagnostic> {
    let engine = BenchEngine::HandWritten;
    let agents = cfg.agents as usize;
    let invalid = |m: String| Diagnostic::new(ErrorKind::InvalidProgram, Span::DUMMY, m);
    if host != HostKind::World {
        return Err(invalid(
            "the hand-written baseline runs only the demo against the world".into(),
        ));
    }
    let program =
        btvm_compiler::lower::lower(tree, &Limits::default()).map_err(|mut d| d.swap_remove(0))?;
    let hw = super::handwritten::HandWritten::from_program(&program).map_err(invalid)?;
    let mut world = World::new(agents);
    world.bind(program.imports()).map_err(invalid)?;
    let start = Instant::now();
    let checksum = super::handwritten::run(&mut world, &hw, cfg.agents, cfg.ticks, cfg.step_ms);
    let secs = start.elapsed().as_secs_f64();
    Ok(row(
        engine,
        1,
        secs,
        cfg,
        super::handwritten::STATE_BYTES,
        checksum,
    ))
}

/// Why `tree` would run on the vm when native code is asked for because its program is larger
/// than native code is compiled for (`NativeConfig::max_instructions`); `None` when native
/// code is not refused for its size. Nothing is compiled to native code.
#[cfg(feature = "jit")]
pub fn native_too_large(tree: &Tree) -> Result<Option<String>, Diagnostic> {
    let program =
        btvm_compiler::lower::lower(tree, &Limits::default()).map_err(|mut d| d.swap_remove(0))?;
    Ok(native_too_large_program(&program))
}

/// [`native_too_large`] for a compiled program.
#[cfg(feature = "jit")]
pub fn native_too_large_program(program: &btvm::Program) -> Option<String> {
    btvm::native::NativeConfig::default()
        .check_size(program)
        .err()
        .map(|e| e.to_string())
}

/// Without feature `jit` native code is never refused for its size (it is never there).
#[cfg(not(feature = "jit"))]
pub fn native_too_large_program(_program: &btvm::Program) -> Option<String> {
    None
}

/// Without feature `jit` native code is never refused for its size (it is never there).
#[cfg(not(feature = "jit"))]
pub fn native_too_large(_tree: &Tree) -> Result<Option<String>, Diagnostic> {
    Ok(None)
}

/// [`run_with`] on a batch, interpreted or native, with `threads` threads.
fn run_batch(
    program: &btvm::Program,
    engine: BenchEngine,
    threads: usize,
    host: HostKind,
    cfg: &BenchConfig,
    (events, inputs): (&EventSchedule, Option<DeciderSchedule>),
) -> Result<BenchRow, Diagnostic> {
    let agents = cfg.agents as usize;
    let threads = threads.max(1);
    let kind = if engine == BenchEngine::Native {
        btvm::EngineKind::Native
    } else {
        btvm::EngineKind::Vm
    };
    let invalid = |m: String| Diagnostic::new(ErrorKind::InvalidProgram, Span::DUMMY, m);
    let mut batch =
        Batch::with_engine(program, cfg.agents, kind).map_err(|e| invalid(e.to_string()))?;
    if let Some(why) = batch.fallback() {
        return Err(invalid(format!("native code is not available: {why}")));
    }
    if program.uses_scopes() {
        for a in 0..cfg.agents {
            batch
                .set_group(AgentId(a), a / SQUAD)
                .map_err(|e| invalid(e.to_string()))?;
        }
    }
    for a in (0..cfg.agents).filter(|&a| !cfg.awake(a)) {
        batch
            .sleep_until(AgentId(a), Millis::MAX)
            .map_err(|e| invalid(e.to_string()))?;
    }
    // The awake agents as one dense run, as a server does after putting agents to sleep:
    // `Batch::sort_by_awake`, except with the world split over threads (it cuts by slot);
    // with group scopes on one thread `Batch::sort_awake_first` (every awake agent first,
    // each squad's in its order, so the scopes decide as on the reference; on several
    // threads that would make squads non-contiguous and the tick serial).
    if cfg.awake_percent < 100 {
        match (program.uses_scopes(), threads == 1) {
            (true, true) => batch.sort_awake_first(),
            (true, false) => {}
            (false, _) if threads == 1 || host == HostKind::Synthetic => batch.sort_by_awake(),
            (false, _) => {}
        }
    }
    let mut hosts = Hosts::new(host, program.imports(), agents, threads);
    let mut tally = Tally::default();
    let cursor = !program.rules().is_empty();
    let lifecycle = program.model() == btvm::program::ProgramModel::Lifecycle;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Diagnostic::new(ErrorKind::Io, Span::DUMMY, e.to_string()))?;
    let mut finished = Vec::with_capacity(agents);
    let ids = events.ids(program);
    // Who sleeps the whole run: their trees cannot stop, so the restarts skip them.
    let asleep: Vec<bool> = match cfg.awake_percent >= 100 {
        true => Vec::new(),
        false => (0..cfg.agents).map(|a| !cfg.awake(a)).collect(),
    };
    // The same by slot, for the one-thread loop (`sort_by_awake` may have moved agents).
    let asleep_slot: Vec<bool> = match asleep.is_empty() {
        true => Vec::new(),
        false => batch.ids().iter().map(|a| !cfg.awake(a.0)).collect(),
    };
    let mut in_tick = std::time::Duration::ZERO;
    let start = Instant::now();
    pool.install(|| -> Result<(), btvm::VmError> {
        for t in 0..cfg.ticks {
            let now = Millis::from(t) * cfg.step_ms;
            if threads > 1 {
                // Every agent's inputs, events, tally and restart in its shard, on the
                // shard's thread (`between`), as a server does in its shard hosts.
                let between = Between {
                    program,
                    inputs,
                    events,
                    ids: &ids,
                    cursor,
                    lifecycle,
                    asleep: &asleep,
                    tick: t,
                    counts: Default::default(),
                    failed: Default::default(),
                };
                par_tick_between(&mut batch, &mut hosts, &between, now);
                tally.add_counts(&between.counts);
                if between.failed.into_inner() {
                    return Err(btvm::VmError::ForeignEvent);
                }
                continue;
            }
            if let Some(inp) = inputs {
                inp.apply_to_batch(&mut batch, program, t, now);
            }
            if !events.is_empty() {
                for a in 0..batch.len() {
                    let Some(e) = events.event(a as u32, t) else {
                        continue;
                    };
                    if let (Some(h), Some(Some(id))) = (hosts.get(0), ids.get(e)) {
                        batch.event_by_id(btvm::AgentId(a as u32), h, *id, now)?;
                    }
                }
            }
            let before = Instant::now();
            let statuses = match &mut hosts {
                Hosts::World(w) => batch.tick(&mut w[0], now),
                Hosts::Synthetic(s) => batch.tick(&mut s[0], now),
            };
            in_tick += before.elapsed();
            // A game restarts a tree that stopped (Drag[en]gine `context.reset()`);
            // only a failed tick can have stopped one. An MBT tree stops when its root
            // finishes either way; resetting it also leaves its group scopes. Only
            // those agents' state blocks are looked at again, and only if they ticked.
            finished.clear();
            for (i, &s) in statuses.iter().enumerate() {
                tally.add(s);
                let may_stop = match s {
                    btvm::Status::Failure => cursor || lifecycle,
                    btvm::Status::Success => lifecycle,
                    btvm::Status::Running => false,
                };
                if may_stop && !asleep_slot.get(i).copied().unwrap_or(false) {
                    finished.push(i);
                }
            }
            restart_stopped(&mut batch, program, lifecycle, finished.iter().copied());
        }
        Ok(())
    })
    .map_err(|e| invalid(e.to_string()))?;
    let secs = start.elapsed().as_secs_f64();
    let mut timed = row(
        engine,
        threads,
        secs,
        cfg,
        program.state_size(),
        tally.hash(hosts.checksum()),
    );
    if threads == 1 {
        let n = f64::from(cfg.agents) * f64::from(cfg.ticks);
        timed.tick_ns_per_agent_tick = (n > 0.0).then(|| in_tick.as_secs_f64() * 1e9 / n);
    }
    Ok(timed)
}

/// One parallel tick of `batch`, each shard doing its agents' work around its tick
/// ([`Between`]): the world is split like the shards (one per thread, cut where
/// `World::split` cuts; no group scopes in the world's trees); the synthetic host answers any
/// agent, so each shard (four per thread) gets a fresh one, whose checksums are summed into the
/// first.
fn par_tick_between(batch: &mut Batch, hosts: &mut Hosts, between: &Between<'_>, now: Millis) {
    match hosts {
        Hosts::World(w) => {
            let mut lent = w.iter_mut();
            let one = btvm::ParTick::new().shards_per_thread(1);
            let host = |_: &btvm::Shard<'_>| lent.next().expect("at most one shard per thread");
            batch.par_tick_with(&one, now, host, |s| between.shard(s));
        }
        Hosts::Synthetic(s) => {
            let fresh = |_: &btvm::Shard<'_>| Synthetic {
                sum: 0,
                ..s[0].clone()
            };
            let used = batch.par_tick_with(&btvm::ParTick::new(), now, fresh, |s| between.shard(s));
            for h in used {
                s[0].sum = s[0].sum.wrapping_add(h.sum);
            }
        }
    }
}

/// How long compiling one tree takes, stage by stage (best of a few runs each).
#[derive(Clone, Debug)]
pub struct CompileRow {
    /// What was compiled.
    pub label: String,
    /// IR nodes.
    pub nodes: usize,
    /// Parsing and checking, when the tree was compiled from text.
    pub load: Option<std::time::Duration>,
    /// Lowering to bytecode, verifier included.
    pub bytecode: std::time::Duration,
    /// Bytecode instructions.
    pub instructions: usize,
    /// Compiling the program to native code, or why it cannot be.
    pub native: Result<NativeStats, String>,
}

/// Runs `f` `reps` times and returns its last result and the shortest time.
fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (T, std::time::Duration) {
    let mut best = std::time::Duration::MAX;
    let mut last = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        last = Some(v);
    }
    // `reps.max(1)` iterations ran, so `last` is set.
    (last.expect("at least one run"), best)
}

/// What compiling a program to native code gave.
#[cfg(feature = "jit")]
pub use btvm::native::NativeStats;

/// What compiling a program to native code gave (never made: this build has no native code).
#[cfg(not(feature = "jit"))]
#[derive(Clone, Copy, Debug)]
pub struct NativeStats {
    /// Bytecode instructions compiled.
    pub instructions: usize,
    /// Native functions produced.
    pub functions: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
    /// Wall-clock time of the whole compilation.
    pub compile_time: std::time::Duration,
}

/// The best of `reps` compilations of `program` to native code, or why it cannot be compiled.
#[cfg(feature = "jit")]
fn native_stats(program: &btvm::Program, reps: usize) -> Result<NativeStats, String> {
    let config = btvm::native::NativeConfig::default();
    // The best compile time of all runs (the stats carry their own timing).
    let mut native: Result<NativeStats, String> = Err("native compilation did not run".to_string());
    for _ in 0..reps.max(1) {
        match btvm::native::NativeCode::compile(program, &config) {
            Ok(code) => {
                let s = code.stats();
                if native
                    .as_ref()
                    .map_or(true, |b| s.compile_time < b.compile_time)
                {
                    native = Ok(s);
                }
            }
            Err(e) => {
                native = Err(e.to_string());
                break;
            }
        }
    }
    native
}

/// Without feature `jit` there is no native code.
#[cfg(not(feature = "jit"))]
fn native_stats(_program: &btvm::Program, _reps: usize) -> Result<NativeStats, String> {
    Err("this build has no native code (feature `jit`)".to_string())
}

/// Compile times of `tree` (lowering and native code; `load` is filled by callers that parsed
/// it from text).
pub fn compile_stats(label: &str, tree: &Tree, reps: usize) -> Result<CompileRow, Diagnostic> {
    let (program, bytecode) = best_of(reps, || {
        btvm_compiler::lower::lower(tree, &Limits::default())
    });
    let program = program.map_err(|mut d| d.swap_remove(0))?;
    let native = native_stats(&program, reps);
    Ok(CompileRow {
        label: label.to_string(),
        nodes: tree.nodes.len(),
        load: None,
        bytecode,
        instructions: program.code().len(),
        native,
    })
}

/// Compile times of a generated bot tree of about `nodes` nodes, parsing included.
pub fn generated_compile_stats(nodes: usize, reps: usize) -> Result<CompileRow, Diagnostic> {
    let text = super::generate::unvanquished_tree(nodes, 1);
    let load_once = || {
        let mut fs = btvm_compiler::source::MemFs::new();
        fs.insert(super::generate::GENERATED_NAME, text.clone());
        btvm_compiler::load::load(
            std::path::Path::new(super::generate::GENERATED_NAME),
            &fs,
            &btvm_compiler::load::LoadOptions::default(),
            &mut btvm_compiler::source::SourceMap::new(),
        )
    };
    let (tree, load) = best_of(reps, load_once);
    let tree = tree.map_err(|mut d| d.swap_remove(0))?;
    let mut row = compile_stats(&format!("generated {nodes}"), &tree, reps)?;
    row.load = Some(load);
    Ok(row)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use btvm::program::FunctionKind;

    use super::*;
    use btvm_compiler::load::{load, LoadOptions, Profile};
    use btvm_compiler::source::{RealFs, SourceMap};

    fn example(file: &str, profile: Option<Profile>) -> Tree {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../spec/examples")
            .join(file);
        let options = LoadOptions {
            profile,
            ..LoadOptions::default()
        };
        let mut sources = SourceMap::new();
        load(&path, &RealFs, &options, &mut sources)
            .unwrap_or_else(|d| panic!("{file} does not load: {}", d[0].display(&sources)))
    }

    #[test]
    fn no_agents_time_nothing_and_never_panic() {
        // Issue 25, finding 9: `btvm bench --agents 0` indexed the first of no worlds.
        let tree = crate::demo_tree().unwrap();
        let cfg = BenchConfig {
            agents: 0,
            ticks: 2,
            ..BenchConfig::default()
        };
        for engine in [BenchEngine::Reference, BenchEngine::Vm] {
            for threads in [1, 2] {
                let row = run_bench(&tree, engine, threads, HostKind::World, &cfg).unwrap();
                assert_eq!(row.ns_per_agent_tick, 0.0, "{}", engine.name());
            }
        }
    }

    /// The BST Grunt and the MBT squad soldier (GameSDK profile).
    fn examples() -> [(&'static str, Tree); 2] {
        [
            ("grunt", example("grunt/grunt.xml", None)),
            (
                "squad soldier",
                example(
                    "squad_soldier.xml",
                    Some(Profile::builtin("gamesdk").unwrap()),
                ),
            ),
        ]
    }

    #[test]
    fn the_events_are_the_programs_event_functions() {
        for (name, tree) in examples() {
            let program = btvm_compiler::lower::lower(&tree, &Limits::default()).expect("lowers");
            let functions: Vec<&str> = program
                .functions()
                .iter()
                .filter(|f| f.kind == FunctionKind::Event)
                .map(|f| f.name.as_str())
                .collect();
            assert!(functions.len() > 5, "{name}: {functions:?}");
            assert_eq!(EventSchedule::for_tree(&tree).names, functions, "{name}");
        }
        // Other models have none.
        let demo = super::super::demo_tree().expect("the demo loads");
        assert!(EventSchedule::for_tree(&demo).names.is_empty());
    }

    #[test]
    fn about_an_eighth_of_the_agents_get_an_event_each_tick_and_every_name_comes_up() {
        let (_, tree) = examples().into_iter().next().expect("the grunt");
        let events = EventSchedule::for_tree(&tree);
        let mut seen = vec![0u32; events.names.len()];
        let mut got = 0u32;
        for tick in 0..20 {
            for agent in 0..1000 {
                if let Some(e) = events.event(agent, tick) {
                    got += 1;
                    seen[e] += 1;
                }
            }
        }
        assert!(
            (2200..=2800).contains(&got),
            "{got} events in 20,000 agent-ticks"
        );
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
        assert_eq!(events.event(3, 4), events.event(3, 4));
        assert_eq!(EventSchedule::default().event(3, 4), None);
    }

    #[test]
    #[cfg(feature = "jit")] // compares native code with the vm
    fn with_a_tenth_awake_every_engine_and_thread_count_agrees() {
        let mut cfg = BenchConfig {
            agents: 300,
            ticks: 6,
            step_ms: 100,
            awake_percent: 10,
        };
        let awake = (0..cfg.agents).filter(|&a| cfg.awake(a)).count();
        assert!((15..=45).contains(&awake), "{awake} of 300 awake");
        let demo = crate::demo_tree().expect("the demo loads");
        for (name, tree) in examples().into_iter().chain([("demo", demo)]) {
            let host = HostKind::for_tree(&tree);
            let mut sums = Vec::new();
            for (engine, threads) in [
                (BenchEngine::Reference, 1),
                (BenchEngine::Vm, 1),
                (BenchEngine::Vm, 2),
                (BenchEngine::Native, 3),
            ] {
                let row = run_bench(&tree, engine, threads, host, &cfg).unwrap();
                sums.push(row.checksum);
            }
            assert!(sums.iter().all(|&c| c == sums[0]), "{name}: {sums:?}");
            cfg.awake_percent = 100;
            let all = run_bench(&tree, BenchEngine::Vm, 1, host, &cfg).unwrap();
            assert_ne!(
                all.checksum, sums[0],
                "{name}: sleeping agents changed nothing"
            );
            cfg.awake_percent = 10;
        }
    }

    #[test]
    #[cfg(feature = "jit")] // compares native code with the vm
    fn every_engine_gets_the_same_events_and_they_change_what_the_agents_do() {
        let cfg = BenchConfig {
            agents: 300,
            ticks: 12,
            step_ms: 100,
            awake_percent: 100,
        };
        let runs = [
            (BenchEngine::Reference, 1),
            (BenchEngine::Vm, 1),
            (BenchEngine::Vm, 3),
            (BenchEngine::Native, 1),
            (BenchEngine::Native, 3),
        ];
        for (name, tree) in examples() {
            let host = HostKind::for_tree(&tree);
            let checksum = |engine, threads, events: &EventSchedule| {
                run_with(&tree, engine, threads, host, &cfg, events)
                    .unwrap_or_else(|d| panic!("{name} on {}: {}", engine.name(), d.message))
                    .checksum
            };
            let events = EventSchedule::for_tree(&tree);
            let none = EventSchedule::default();
            let with: Vec<u64> = runs.iter().map(|&(e, t)| checksum(e, t, &events)).collect();
            let without: Vec<u64> = runs.iter().map(|&(e, t)| checksum(e, t, &none)).collect();
            for (k, &(e, t)) in runs.iter().enumerate() {
                assert_eq!(
                    with[k],
                    with[0],
                    "{name}: {} on {t} threads disagrees with the reference",
                    e.name()
                );
                assert_eq!(
                    without[k],
                    without[0],
                    "{name}, no events: {} on {t} threads disagrees with the reference",
                    e.name()
                );
            }
            assert_ne!(with[0], without[0], "{name}: the events changed nothing");
            // `run_bench` delivers them.
            assert_eq!(
                run_bench(&tree, BenchEngine::Vm, 1, host, &cfg)
                    .expect("runs")
                    .checksum,
                with[0],
                "{name}"
            );
        }
    }

    /// The shards' own bookkeeping (`between`: inputs, events, tally, restarts on each
    /// shard's thread) gives the one-thread run's checksum, on every model, all awake or not.
    #[test]
    fn every_thread_count_agrees_with_one_thread_on_every_model() {
        let demo = crate::demo_tree().expect("the demo loads");
        let mut trees: Vec<(&str, Tree)> = examples().into_iter().collect();
        trees.push(("demo", demo));
        trees.push(("wanderer", example("wanderer/wanderer.debt", None)));
        trees.push(("figure1", example("figure1.spore", None)));
        trees.push(("guard", example("guard.bt", None)));
        for awake_percent in [100, 30] {
            let cfg = BenchConfig {
                agents: 257,
                ticks: 9,
                step_ms: 100,
                awake_percent,
            };
            for (name, tree) in &trees {
                let host = HostKind::for_tree(tree);
                let one = run_bench(tree, BenchEngine::Vm, 1, host, &cfg).expect("runs");
                let reference = run_bench(tree, BenchEngine::Reference, 1, host, &cfg);
                assert_eq!(reference.expect("runs").checksum, one.checksum, "{name}");
                for threads in [2, 3] {
                    let par = run_bench(tree, BenchEngine::Vm, threads, host, &cfg).expect("runs");
                    assert_eq!(
                        par.checksum, one.checksum,
                        "{name} on {threads} threads, {awake_percent} % awake"
                    );
                }
            }
        }
    }

    #[test]
    fn the_synthetic_checksum_counts_calls_selections_and_logs_whatever_the_split() {
        let strings = btvm::Strings::new();
        let call = |agent: u32, import: u32, now: Millis| {
            let mut h = Synthetic::default();
            h.action(&Call::new(
                AgentId(agent),
                ImportId(import),
                btvm::Phase::Enter,
                &[],
                now,
                &strings,
            ));
            h.sum
        };
        assert_ne!(call(1, 2, 300), call(2, 1, 300));
        assert_ne!(call(1, 2, 300), call(1, 2, 400));
        let mut a = Synthetic::default();
        a.select(AgentId(1), "Patrol");
        let mut b = Synthetic::default();
        b.select(AgentId(1), "Idle");
        assert_ne!(a.sum, b.sum);
        b.log(AgentId(2), "combat");
        let split = Hosts::Synthetic(vec![a.clone(), b.clone()]).checksum();
        let mut one = Synthetic::default();
        one.log(AgentId(2), "combat");
        one.select(AgentId(1), "Idle");
        one.select(AgentId(1), "Patrol");
        assert_eq!(Hosts::Synthetic(vec![one]).checksum(), split);
    }
}
