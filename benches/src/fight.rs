//! The fight-or-flight workload shared with other behavior-tree libraries
//! (`../shared/bench/fight-or-flight.md`): the same tree, agents and random stream in every
//! implementation, so their times compare and their checksums prove they did the same work.
//!
//! - [`Agent`]: the 32-byte agent record, [`Agent::mutate`] (the per-tick random changes) and
//!   the leaves ([`Agent::attack`], [`Agent::flee`], [`Agent::heal`], [`Agent::roam`]);
//! - [`TREE`]: the tree in btvm's canonical syntax, on the Unvanquished (running-list) model;
//! - [`FightHost`]: the [`Host`] that answers the tree's calls from a slice of agents;
//! - [`HandWritten`]: the tree written by hand over a one-byte resume state (the baseline);
//! - [`fold`]: the checksum every implementation folds its root statuses into.
//!
//! **Why the running-list model is exact here.** The workload's "sequence with memory"
//! resumes at its running child and restarts after a failure; the reactive root fallback
//! re-evaluates from its first child every tick and halts the others. Unvanquished sequences
//! resume at their highest running child through the running list, and differ from a memory
//! sequence only when a running child *fails* (the stale list) or when an abandoned node must
//! be told (halt). Neither can happen in this tree: `attack` and `flee` never fail, the only
//! node that can be pre-empted is `roam`, and halting it has no effect. So the btvm tree, the
//! hand-written baseline and a BehaviorTree.CPP-style implementation produce the same statuses.
//!
//! The random changes are specified by the shared document only as four independent 1/8
//! events per agent and tick; here they take disjoint bit fields of one xorshift64 draw
//! (documented on [`Agent::mutate`]), and every implementation in this repository calls that
//! one function.

use btvm::{Call, Host, Import, ImportId, Status, Value};

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::ir::Tree;
use btvm_compiler::source::SourceMap;

/// The tree, in btvm's canonical syntax.
pub const TREE: &str = r#"btvm 1;
dialect unvanquished;
import action attack 0..0 long;
import action flee 0..0 long;
import action heal 0..0;
import action roam 0..0 long;
import function enemy_visible 0..0;
import function ammo 0..0;
import function health 0..0;

// A reactive fallback over two sequences with memory and an idle action.
root main = selector restart {
    sequence running-list {            // fight
        condition (enemy_visible())
        condition (ammo() > 0)
        selector running-list {
            sequence running-list {
                condition (health() > 30)
                action attack()
            }
            action flee()
        }
    }
    sequence running-list {            // heal
        condition (health() < 50)
        action heal()
    }
    action roam()
}
"#;

/// Parses [`TREE`].
pub fn tree() -> Result<Tree, Vec<Diagnostic>> {
    let mut sources = SourceMap::new();
    let file = sources.add("fight-or-flight.btn", TREE.to_string());
    btvm_compiler::syntax::canonical::parse(file, TREE, &btvm::Limits::default())
}

/// One agent: 32 bytes, as the shared document specifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Agent {
    /// xorshift64 state (never zero).
    pub rng: u64,
    /// Rounds of ammunition.
    pub ammo: i32,
    /// Health, 0 to 100 and a little more after healing.
    pub health: i32,
    /// Attack steps left before an attack succeeds.
    pub attack_left: i32,
    /// Calls of `flee` so far in the current escape.
    pub flee_count: i32,
    /// Whether an enemy is visible.
    pub enemy_visible: bool,
    /// Flipped by every `roam` call.
    pub roam_toggle: bool,
}

impl Agent {
    /// Agent `id` before its first tick.
    pub fn new(id: u32) -> Agent {
        // splitmix64 of the id: distinct, well mixed, never zero in practice (and forced odd).
        let mut z = u64::from(id).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Agent {
            rng: (z ^ (z >> 31)) | 1,
            ammo: 3,
            health: 100,
            attack_left: 3,
            flee_count: 0,
            enemy_visible: false,
            roam_toggle: false,
        }
    }

    /// The random changes before a tick: one xorshift64 draw `r`; with probability 1/8 each,
    /// independently: `r & 7 == 0` flips `enemy_visible`; `(r >> 3) & 7 == 0` sets `ammo` to
    /// `(r >> 6) & 3`; `(r >> 8) & 7 == 0` lowers `health` by 25 (not below 0);
    /// `(r >> 11) & 7 == 0` sets `attack_left` to 3.
    #[inline]
    pub fn mutate(&mut self) {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        if x & 7 == 0 {
            self.enemy_visible = !self.enemy_visible;
        }
        if (x >> 3) & 7 == 0 {
            self.ammo = ((x >> 6) & 3) as i32;
        }
        if (x >> 8) & 7 == 0 {
            self.health = (self.health - 25).max(0);
        }
        if (x >> 11) & 7 == 0 {
            self.attack_left = 3;
        }
    }

    /// `attack`: running while `attack_left > 0` (decrementing it), then success.
    #[inline]
    pub fn attack(&mut self) -> Status {
        if self.attack_left > 0 {
            self.attack_left -= 1;
            Status::Running
        } else {
            Status::Success
        }
    }

    /// `flee`: running for three calls, then success (and the count starts over).
    #[inline]
    pub fn flee(&mut self) -> Status {
        if self.flee_count < 3 {
            self.flee_count += 1;
            Status::Running
        } else {
            self.flee_count = 0;
            Status::Success
        }
    }

    /// `heal`: health + 10, success.
    #[inline]
    pub fn heal(&mut self) -> Status {
        self.health += 10;
        Status::Success
    }

    /// `roam`: flips the toggle; running when it was false, success when it was true.
    #[inline]
    pub fn roam(&mut self) -> Status {
        let was = self.roam_toggle;
        self.roam_toggle = !was;
        if was {
            Status::Success
        } else {
            Status::Running
        }
    }
}

/// Folds one root status into a checksum (FNV-1a style: xor, then multiply by the 64-bit FNV
/// prime). Statuses are numbered as [`Status`] is: failure 0, success 1, running 2.
#[inline]
pub fn fold(chk: u64, status: Status) -> u64 {
    (chk ^ status as u64).wrapping_mul(0x0000_0100_0000_01b3)
}

/// The checksum's starting value (the FNV-1a 64 offset basis).
pub const CHECKSUM_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The leaves the tree calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    Attack,
    Flee,
    Heal,
    Roam,
    EnemyVisible,
    Ammo,
    Health,
}

impl Leaf {
    fn named(name: &str) -> Option<Leaf> {
        Some(match name {
            "attack" => Leaf::Attack,
            "flee" => Leaf::Flee,
            "heal" => Leaf::Heal,
            "roam" => Leaf::Roam,
            "enemy_visible" => Leaf::EnemyVisible,
            "ammo" => Leaf::Ammo,
            "health" => Leaf::Health,
            _ => return None,
        })
    }
}

/// The host of the btvm implementation: agents `first ..` (a contiguous slice, so the parallel
/// batch tick can give each thread its own host).
#[derive(Clone, Debug)]
pub struct FightHost {
    /// The id of `agents[0]`.
    pub first: u32,
    /// The agents this host answers for.
    pub agents: Vec<Agent>,
    leaves: Vec<Option<Leaf>>,
}

impl FightHost {
    /// A host for agents `first .. first + count`, each [`Agent::new`].
    pub fn new(first: u32, count: u32) -> FightHost {
        FightHost {
            first,
            agents: (first..first + count).map(Agent::new).collect(),
            leaves: Vec::new(),
        }
    }

    #[inline]
    fn agent(&mut self, call: &Call<'_>) -> Option<&mut Agent> {
        let i = call.agent.0.checked_sub(self.first)? as usize;
        self.agents.get_mut(i)
    }

    #[inline]
    fn leaf(&self, id: ImportId) -> Option<Leaf> {
        self.leaves.get(id.index()).copied().flatten()
    }
}

impl Host for FightHost {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        let i = id.index();
        if self.leaves.len() <= i {
            self.leaves.resize(i + 1, None);
        }
        self.leaves[i] = Leaf::named(&import.name);
        self.leaves[i].is_some()
    }

    #[inline]
    fn action(&mut self, call: &Call<'_>) -> Status {
        let leaf = self.leaf(call.import);
        let Some(a) = self.agent(call) else {
            return Status::Failure;
        };
        match leaf {
            Some(Leaf::Attack) => a.attack(),
            Some(Leaf::Flee) => a.flee(),
            Some(Leaf::Heal) => a.heal(),
            Some(Leaf::Roam) => a.roam(),
            _ => Status::Failure,
        }
    }

    #[inline]
    fn function(&mut self, call: &Call<'_>) -> Value {
        let leaf = self.leaf(call.import);
        let Some(a) = self.agent(call) else {
            return Value::Int(0);
        };
        match leaf {
            Some(Leaf::EnemyVisible) => Value::Bool(a.enemy_visible),
            Some(Leaf::Ammo) => Value::Int(i64::from(a.ammo)),
            Some(Leaf::Health) => Value::Int(i64::from(a.health)),
            _ => Value::Int(0),
        }
    }

    /// The workload's random changes, agent by agent in the engine's tick loop, as the
    /// shared document's loop does them.
    #[inline]
    fn before_tick(&mut self, agent: btvm::AgentId) {
        let Some(i) = agent.0.checked_sub(self.first) else {
            return;
        };
        if let Some(a) = self.agents.get_mut(i as usize) {
            a.mutate();
        }
    }
}

/// The tree written by hand: nested `if`s over a one-byte resume state (which action is
/// running inside the fight sequence, if any), equal to the btvm tree call for call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandWritten {
    /// 0: nothing to resume; 1: `attack` is running; 2: `flee` is running.
    pub resume: u8,
}

impl HandWritten {
    /// One tick of one agent.
    #[inline]
    pub fn tick(&mut self, a: &mut Agent) -> Status {
        self.tick_with(a)
    }

    /// One tick whose leaves `leaves` answers: the tree's logic, written once for the
    /// baseline ([`Agent`] itself) and for [`HandWrittenHost`].
    #[inline]
    fn tick_with(&mut self, leaves: &mut impl Leaves) -> Status {
        // fight: a memory sequence; resuming skips the conditions already passed.
        let fight = match self.resume {
            1 => Some(leaves.attack()),
            2 => Some(leaves.flee()),
            _ if leaves.enemy_visible() && leaves.has_ammo() => Some(if leaves.healthy() {
                let s = leaves.attack();
                self.resume = if s == Status::Running { 1 } else { 0 };
                s
            } else {
                let s = leaves.flee();
                self.resume = if s == Status::Running { 2 } else { 0 };
                s
            }),
            _ => None,
        };
        if let Some(s) = fight {
            if s != Status::Running {
                self.resume = 0;
            }
            return s;
        }
        // heal, then roam.
        if leaves.hurt() {
            return leaves.heal();
        }
        leaves.roam()
    }
}

/// The tree's leaves as the hand-written logic sees them: its three conditions and four
/// actions.
trait Leaves {
    /// `enemy_visible()`.
    fn enemy_visible(&mut self) -> bool;
    /// `ammo() > 0`.
    fn has_ammo(&mut self) -> bool;
    /// `health() > 30`.
    fn healthy(&mut self) -> bool;
    /// `health() < 50`.
    fn hurt(&mut self) -> bool;
    fn attack(&mut self) -> Status;
    fn flee(&mut self) -> Status;
    fn heal(&mut self) -> Status;
    fn roam(&mut self) -> Status;
}

/// The baseline's leaves: the agent's fields and methods, read and called directly.
impl Leaves for Agent {
    #[inline]
    fn enemy_visible(&mut self) -> bool {
        self.enemy_visible
    }
    #[inline]
    fn has_ammo(&mut self) -> bool {
        self.ammo > 0
    }
    #[inline]
    fn healthy(&mut self) -> bool {
        self.health > 30
    }
    #[inline]
    fn hurt(&mut self) -> bool {
        self.health < 50
    }
    #[inline]
    fn attack(&mut self) -> Status {
        Agent::attack(self)
    }
    #[inline]
    fn flee(&mut self) -> Status {
        Agent::flee(self)
    }
    #[inline]
    fn heal(&mut self) -> Status {
        Agent::heal(self)
    }
    #[inline]
    fn roam(&mut self) -> Status {
        Agent::roam(self)
    }
}

/// The import ids of the tree's leaves in a program's import table, resolved by name once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafIds {
    attack: ImportId,
    flee: ImportId,
    heal: ImportId,
    roam: ImportId,
    enemy_visible: ImportId,
    ammo: ImportId,
    health: ImportId,
}

impl LeafIds {
    /// Finds every leaf of [`TREE`] in `imports`; fails naming the first one missing.
    pub fn resolve(imports: &[Import]) -> Result<LeafIds, String> {
        let id = |name: &str| {
            imports
                .iter()
                .position(|i| i.name == name)
                .map(|i| ImportId(i as u32))
                .ok_or_else(|| format!("the program imports no `{name}`"))
        };
        Ok(LeafIds {
            attack: id("attack")?,
            flee: id("flee")?,
            heal: id("heal")?,
            roam: id("roam")?,
            enemy_visible: id("enemy_visible")?,
            ammo: id("ammo")?,
            health: id("health")?,
        })
    }
}

/// [`HandWritten`]'s logic with the leaves reached through a [`Host`], as the engines reach
/// them: every condition is a [`Host::function`] call and every action a [`Host::action`]
/// call, with the program's import ids, a [`Call`] each, and the phase an engine passes
/// (`continue` for the action holding the current-action slot, `enter` otherwise).
///
/// It is the floor of any engine on this workload: what is left of the time once the tree
/// logic costs nothing beyond hand-written `if`s, but the leaves are host calls. The distance
/// between [`HandWritten`] and this is the price of the host interface, which no engine avoids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandWrittenHost {
    /// The tree's own state, as in the baseline.
    pub tree: HandWritten,
    /// The current-action slot: 0 when empty, else the action that returned running last and
    /// has not finished since (1 `attack`, 2 `flee`, 3 `heal`, 4 `roam`).
    pub current: u8,
}

impl HandWrittenHost {
    /// One tick of `agent`, whose leaves `host` answers.
    #[inline]
    pub fn tick<H: Host + ?Sized>(
        &mut self,
        host: &mut H,
        agent: btvm::AgentId,
        ids: &LeafIds,
        strings: &btvm::Strings,
    ) -> Status {
        self.tree.tick_with(&mut ViaHost {
            host,
            agent,
            ids,
            strings,
            current: &mut self.current,
        })
    }
}

/// The leaves of one agent's tick as host calls.
struct ViaHost<'a, H: ?Sized> {
    host: &'a mut H,
    agent: btvm::AgentId,
    ids: &'a LeafIds,
    strings: &'a btvm::Strings,
    current: &'a mut u8,
}

impl<H: Host + ?Sized> ViaHost<'_, H> {
    /// A condition function's value.
    #[inline]
    fn function(&mut self, import: ImportId) -> Value {
        let call = Call::new(self.agent, import, btvm::Phase::Enter, &[], 0, self.strings);
        self.host.function(&call)
    }

    /// Calls action `me` (1–4, as [`HandWrittenHost::current`] numbers them) and keeps the
    /// current-action slot as the running-list model does.
    #[inline]
    fn act(&mut self, me: u8, import: ImportId) -> Status {
        let phase = if *self.current == me {
            btvm::Phase::Continue
        } else {
            btvm::Phase::Enter
        };
        let call = Call::new(self.agent, import, phase, &[], 0, self.strings);
        let s = self.host.action(&call);
        if s == Status::Running {
            *self.current = me;
        } else if *self.current == me {
            *self.current = 0;
        }
        s
    }
}

impl<H: Host + ?Sized> Leaves for ViaHost<'_, H> {
    #[inline]
    fn enemy_visible(&mut self) -> bool {
        self.function(self.ids.enemy_visible).truthy()
    }
    #[inline]
    fn has_ammo(&mut self) -> bool {
        self.function(self.ids.ammo).as_f64() > 0.0
    }
    #[inline]
    fn healthy(&mut self) -> bool {
        self.function(self.ids.health).as_f64() > 30.0
    }
    #[inline]
    fn hurt(&mut self) -> bool {
        self.function(self.ids.health).as_f64() < 50.0
    }
    #[inline]
    fn attack(&mut self) -> Status {
        self.act(1, self.ids.attack)
    }
    #[inline]
    fn flee(&mut self) -> Status {
        self.act(2, self.ids.flee)
    }
    #[inline]
    fn heal(&mut self) -> Status {
        self.act(3, self.ids.heal)
    }
    #[inline]
    fn roam(&mut self) -> Status {
        self.act(4, self.ids.roam)
    }
}

/// Runs `step` (one tick of every agent, folding into the checksum it is given) `warmup` times
/// untimed, then `ticks` times timed; returns the timed ticks' checksum and duration.
fn timed(warmup: u32, ticks: u32, mut step: impl FnMut(u64) -> u64) -> (u64, std::time::Duration) {
    for _ in 0..warmup {
        step(CHECKSUM_START);
    }
    let start = std::time::Instant::now();
    let mut chk = CHECKSUM_START;
    for _ in 0..ticks {
        chk = step(chk);
    }
    (chk, start.elapsed())
}

/// Runs the hand-written baseline over `agents` agents for `warmup` untimed and `ticks` timed
/// ticks; returns the checksum of the timed ticks and their duration.
pub fn run_handwritten(agents: u32, warmup: u32, ticks: u32) -> (u64, std::time::Duration) {
    let mut pop: Vec<(Agent, HandWritten)> = (0..agents)
        .map(|i| (Agent::new(i), HandWritten::default()))
        .collect();
    let step = |chk: u64| {
        pop.iter_mut().fold(chk, |chk, (a, hw)| {
            a.mutate();
            fold(chk, hw.tick(a))
        })
    };
    timed(warmup, ticks, step)
}

/// A population ticked by [`HandWrittenHost`]: a [`FightHost`] bound to a program's import
/// table and one tree state per agent. Each [`HostFloor::step`] ticks every agent as the
/// engines' batch loop does (the host mutates the agent in [`Host::before_tick`], then the
/// tree runs) and folds the statuses in agent order.
pub struct HostFloor<'p> {
    host: FightHost,
    trees: Vec<HandWrittenHost>,
    ids: LeafIds,
    strings: &'p btvm::Strings,
}

impl<'p> HostFloor<'p> {
    /// `agents` fresh agents for `program` (the fight-or-flight tree, lowered).
    pub fn new(program: &'p btvm::Program, agents: u32) -> Result<HostFloor<'p>, String> {
        let ids = LeafIds::resolve(program.imports())?;
        let mut host = FightHost::new(0, agents);
        program.bind(&mut host).map_err(|e| e.to_string())?;
        Ok(HostFloor {
            host,
            trees: vec![HandWrittenHost::default(); agents as usize],
            ids,
            strings: program.strings(),
        })
    }

    /// One tick of every agent, folded into `chk`.
    pub fn step(&mut self, chk: u64) -> u64 {
        let HostFloor {
            host,
            trees,
            ids,
            strings,
        } = self;
        trees.iter_mut().enumerate().fold(chk, |chk, (i, t)| {
            let agent = btvm::AgentId(i as u32);
            host.before_tick(agent);
            fold(chk, t.tick(host, agent, ids, strings))
        })
    }
}

/// Runs [`HostFloor`] over `agents` agents for `warmup` untimed and `ticks` timed ticks;
/// returns the checksum of the timed ticks and their duration.
pub fn run_handwritten_host(
    program: &btvm::Program,
    agents: u32,
    warmup: u32,
    ticks: u32,
) -> Result<(u64, std::time::Duration), String> {
    let mut floor = HostFloor::new(program, agents)?;
    Ok(timed(warmup, ticks, |chk| floor.step(chk)))
}

/// Runs the tree on a compiled engine over `agents` agents (split over `threads` hosts and the
/// parallel batch tick when `threads > 1`) for `warmup` untimed and `ticks` timed ticks;
/// returns the checksum of the timed ticks and their duration. Each tick ticks the whole
/// batch, whose loop has the host mutate each agent just before its tree runs
/// ([`Host::before_tick`]), then folds the statuses in agent order, which gives the same
/// checksum as folding agent by agent.
pub fn run_engine(
    program: &btvm::Program,
    kind: btvm::EngineKind,
    agents: u32,
    threads: usize,
    warmup: u32,
    ticks: u32,
) -> Result<(u64, std::time::Duration), String> {
    let threads = threads.max(1);
    let mut batch = btvm::Batch::with_engine(program, agents, kind).map_err(|e| e.to_string())?;
    if let Some(why) = batch.fallback() {
        return Err(format!("native code is not available: {why}"));
    }
    let chunk = agents.div_ceil(threads as u32).max(1);
    let mut hosts: Vec<FightHost> = (0..threads as u32)
        .map(|k| {
            let first = (k * chunk).min(agents);
            FightHost::new(first, chunk.min(agents - first))
        })
        .collect();
    for h in &mut hosts {
        program.bind(h).map_err(|e| e.to_string())?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let step = |chk: u64| {
        let statuses = if threads == 1 {
            batch.tick(&mut hosts[0], 0)
        } else {
            // One shard per thread, cut as the hosts are.
            let one = btvm::ParTick::new().pool(&pool).shards_per_thread(1);
            let mut lent = hosts.iter_mut();
            batch.par_tick(&one, 0, |_| lent.next().expect("a host per thread"));
            batch.statuses()
        };
        statuses.iter().fold(chk, |c, &s| fold(c, s))
    };
    Ok(timed(warmup, ticks, step))
}

/// [`run_engine`] on the reference interpreter (one thread).
pub fn run_reference(
    tree: &Tree,
    agents: u32,
    warmup: u32,
    ticks: u32,
) -> Result<(u64, std::time::Duration), String> {
    let interp = btvm_compiler::reference::Interpreter::new(tree).map_err(|d| d.message)?;
    let mut states: Vec<_> = (0..agents)
        .map(|a| interp.new_agent(btvm::AgentId(a)))
        .collect();
    let mut host = FightHost::new(0, agents);
    for (i, imp) in tree.imports.iter().enumerate() {
        if !host.bind_import(ImportId(i as u32), imp) {
            return Err(format!("the fight-or-flight host has no `{}`", imp.name));
        }
    }
    let step = |chk: u64| {
        states
            .iter_mut()
            .fold(chk, |c, st| fold(c, interp.tick(st, &mut host, 0)))
    };
    Ok(timed(warmup, ticks, step))
}

/// This process's resident memory in bytes (`VmRSS` of `/proc/self/status`); `None` where
/// that file does not exist.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resident bytes per agent of a compiled engine's data for this workload: the growth of the
/// process's resident memory from before the batch and hosts exist to after one tick of all
/// `agents` (state blocks, statuses, agents, scratch), divided by `agents`.
pub fn resident_per_agent(
    program: &btvm::Program,
    kind: btvm::EngineKind,
    agents: u32,
) -> Option<f64> {
    let before = resident_bytes()?;
    let mut batch = btvm::Batch::with_engine(program, agents, kind).ok()?;
    let mut host = FightHost::new(0, agents);
    program.bind(&mut host).ok()?;
    let _ = batch.tick(&mut host, 0);
    let after = resident_bytes()?;
    Some(after.saturating_sub(before) as f64 / f64::from(agents.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every implementation does the same work: the hand-written baseline, the reference, the
    /// vm and native code (one and two threads) agree on the checksum, and the statuses are
    /// the mix the shared document describes (about half success, half running).
    #[test]
    #[cfg(feature = "jit")] // compares native code with the vm
    fn every_implementation_gives_the_same_checksum() {
        let t = tree().expect("the tree parses");
        let program =
            btvm_compiler::lower::lower(&t, &btvm::Limits::default()).expect("the tree lowers");
        let (n, warm, ticks) = (1000, 32, 60);
        let (hand, _) = run_handwritten(n, warm, ticks);
        let (reference, _) = run_reference(&t, n, warm, ticks).unwrap();
        assert_eq!(reference, hand, "reference vs hand-written");
        let (via_host, _) = run_handwritten_host(&program, n, warm, ticks).unwrap();
        assert_eq!(
            via_host, hand,
            "hand-written through the host vs hand-written"
        );
        for kind in [btvm::EngineKind::Vm, btvm::EngineKind::Native] {
            for threads in [1, 2] {
                let (c, _) = run_engine(&program, kind, n, threads, warm, ticks).unwrap();
                assert_eq!(c, hand, "{kind:?} on {threads} threads vs hand-written");
            }
        }
        let mut counts = [0u32; 3];
        let mut pop: Vec<(Agent, HandWritten)> = (0..n)
            .map(|i| (Agent::new(i), HandWritten::default()))
            .collect();
        for _ in 0..100 {
            for (a, hw) in &mut pop {
                a.mutate();
                counts[hw.tick(a) as usize] += 1;
            }
        }
        let total = f64::from(counts.iter().sum::<u32>());
        let success = f64::from(counts[1]) / total;
        assert!((0.35..0.7).contains(&success), "{counts:?}");
        assert!(counts[2] > 0 && counts[1] > 0, "{counts:?}");
    }

    /// A [`FightHost`] that logs every call an implementation makes of it.
    struct Logged {
        host: FightHost,
        log: Vec<(u32, &'static str, u32, btvm::Phase)>,
    }

    impl Host for Logged {
        fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
            self.host.bind_import(id, import)
        }
        fn action(&mut self, call: &Call<'_>) -> Status {
            self.log
                .push((call.agent.0, "action", call.import.0, call.phase));
            self.host.action(call)
        }
        fn function(&mut self, call: &Call<'_>) -> Value {
            self.log
                .push((call.agent.0, "function", call.import.0, call.phase));
            self.host.function(call)
        }
        fn before_tick(&mut self, agent: btvm::AgentId) {
            self.log.push((agent.0, "before", 0, btvm::Phase::Enter));
            self.host.before_tick(agent);
        }
    }

    /// The hand-written tree that calls through the host makes the very calls the vm makes
    /// (agent, import, phase, in order), so its row is the engines' floor and not a cheaper
    /// variant of the work.
    #[test]
    fn the_hand_written_tree_through_the_host_calls_as_the_vm_does() {
        let t = tree().expect("the tree parses");
        let program =
            btvm_compiler::lower::lower(&t, &btvm::Limits::default()).expect("the tree lowers");
        let ids = LeafIds::resolve(program.imports()).unwrap();
        let n = 200;
        let logged = || Logged {
            host: FightHost::new(0, n),
            log: Vec::new(),
        };
        let (mut by_vm, mut by_hand) = (logged(), logged());
        program.bind(&mut by_vm).unwrap();
        program.bind(&mut by_hand).unwrap();
        let mut batch = btvm::Batch::with_engine(&program, n, btvm::EngineKind::Vm).unwrap();
        let mut trees = vec![HandWrittenHost::default(); n as usize];
        for _ in 0..40 {
            let _ = batch.tick(&mut by_vm, 0);
            for (i, tr) in trees.iter_mut().enumerate() {
                let agent = btvm::AgentId(i as u32);
                by_hand.before_tick(agent);
                tr.tick(&mut by_hand, agent, &ids, program.strings());
            }
        }
        let continued = |l: &Logged| {
            l.log
                .iter()
                .filter(|c| c.3 == btvm::Phase::Continue)
                .count()
        };
        assert!(continued(&by_vm) > 0, "some action is continued");
        assert_eq!(by_hand.log.len(), by_vm.log.len());
        assert!(by_hand.log == by_vm.log, "the call logs differ");
    }

    #[test]
    fn agents_are_32_bytes_and_random_streams_differ() {
        assert_eq!(std::mem::size_of::<Agent>(), 32);
        let (a, b) = (Agent::new(0), Agent::new(1));
        assert_ne!(a.rng, b.rng);
        assert_ne!(a.rng, 0);
    }

    #[test]
    fn every_event_happens_about_one_time_in_eight() {
        let mut a = Agent::new(7);
        let mut flips = 0;
        let n = 80_000;
        for _ in 0..n {
            let before = a.enemy_visible;
            a.mutate();
            flips += usize::from(a.enemy_visible != before);
        }
        assert!((n / 9..n / 7).contains(&flips), "{flips} flips in {n}");
    }

    #[test]
    fn the_leaves_behave_as_specified() {
        let mut a = Agent::new(0);
        assert_eq!(
            [a.attack(), a.attack(), a.attack(), a.attack()],
            [
                Status::Running,
                Status::Running,
                Status::Running,
                Status::Success
            ]
        );
        assert_eq!(
            [a.flee(), a.flee(), a.flee(), a.flee(), a.flee()],
            [
                Status::Running,
                Status::Running,
                Status::Running,
                Status::Success,
                Status::Running
            ]
        );
        assert_eq!([a.roam(), a.roam()], [Status::Running, Status::Success]);
        a.health = 40;
        assert_eq!((a.heal(), a.health), (Status::Success, 50));
    }
}
