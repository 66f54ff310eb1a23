//! The simulated world behind the bench demo: a [`Host`] that answers every action and
//! condition function `demo.bt` (and its behaviors) call.
//!
//! Each agent is a human soldier described by a small `Copy` record (health, ammunition,
//! position, the nearest enemy, credits, upgrades, timers…); the records are stored
//! contiguously, one per agent. Functions only read the calling agent's record. Actions update
//! it, and some of them (moving, fighting, healing, shopping, repairing) return running for a
//! few ticks before they succeed or fail, so engines exercise their resume paths.
//!
//! The world is deterministic: it never reads a clock or a global random source. Whatever
//! varies between agents and ticks comes from `mix`, a small hash of (agent, `now`, salt).
//! The surroundings (an enemy appearing and closing in, damage taken, income, base damage) are
//! advanced lazily, once per agent and tick, by the first call the agent makes at a new `now`;
//! engines that make the same calls therefore leave the world in the same state, which
//! [`World::checksum`] summarises.
//!
//! Binding: [`World::bind`] maps the tree's import *names* to an internal operation table once;
//! every call then dispatches on the import index with a `match`, with no string comparison
//! and no allocation.

use btvm::{Call, Host, Import, ImportId, ImportKind, Millis, Phase, Status, Value};

// ---- game constants (the values of the Unvanquished profile's symbols) ----------------------

const E_H_ARMOURY: i64 = 13;
const E_H_MEDISTAT: i64 = 14;
const E_H_REACTOR: i64 = 16;
const E_ENEMY: i64 = 18;
const E_DAMAGEDBUILDING: i64 = 19;
const E_SELF: i64 = 22;
const TEAM_ALIENS: i64 = 1;
const TEAM_HUMANS: i64 = 2;
const UP_LIGHTARMOUR: i64 = 1;
const UP_MEDKIT: i64 = 8;
const WP_MACHINEGUN: u8 = 9;
const WP_LAS_GUN: u8 = 12;
const WP_HBUILD: u8 = 22;
const MOVE_FORWARD: i64 = 1;
const MOVE_BACKWARD: i64 = 2;
const MOVE_LEFT: i64 = 4;
const MOVE_RIGHT: i64 = 8;

// ---- world tuning ----------------------------------------------------------------------------

/// Rounds in a full clip.
const CLIP: i32 = 30;
/// Most spare clips a soldier carries.
const MAX_CLIPS: i32 = 4;
/// The distance reported when there is nothing to measure to.
const FAR_AWAY: i64 = 99_999;
/// Where the buildings stand (the reactor is at the origin).
const MEDISTAT_AT: (i32, i32) = (400, 0);
const ARMOURY_AT: (i32, i32) = (-300, 300);
const DAMAGED_AT: (i32, i32) = (0, -250);
/// Where a soldier respawns.
const SPAWN_AT: (i32, i32) = (200, -200);
/// Distance covered by one movement call.
const STEP: i32 = 80;
/// Cost of light armour and of a las gun.
const ARMOUR_COST: i32 = 40;
const LAS_GUN_COST: i32 = 250;

/// What an import does in this world: one variant per action and function the demo calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    // actions
    ActivateUpgrade,
    AimAtGoal,
    BlackboardNoteTransient,
    Buy,
    BuyPrimary,
    ChangeGoal,
    Equip,
    Fight,
    Flee,
    Gesture,
    Heal,
    Jump,
    MoveInDir,
    MoveTo,
    MoveToGoal,
    Reload,
    Repair,
    ResetMyTimer,
    ResetStuckTime,
    Roam,
    RoamInRadius,
    StrafeDodge,
    // functions
    AlertedToEnemy,
    BuildingIsDamaged,
    Cvar,
    DistanceTo,
    GoalIsDead,
    HaveUpgrade,
    HaveWeapon,
    InAttackRange,
    IsVisible,
    LevelTime,
    Momentum,
    MyTimer,
    NumUsersInTeam,
    PercentAmmoClip,
    PercentClips,
    PercentHealth,
    Random,
    ResupplyScore,
    Skill,
    StuckTime,
    Team,
    TimeSinceLastCombat,
    /// An import index outside the bound table (only if the host is driven with another tree
    /// than the one it was bound to): actions fail, functions return `false`.
    Unbound,
}

/// The names this world implements, with their kind.
const BINDINGS: &[(&str, ImportKind, Op)] = {
    use ImportKind::{Action as A, Function as F};
    &[
        ("activateUpgrade", A, Op::ActivateUpgrade),
        ("aimAtGoal", A, Op::AimAtGoal),
        ("blackboardNoteTransient", A, Op::BlackboardNoteTransient),
        ("buy", A, Op::Buy),
        ("buyPrimary", A, Op::BuyPrimary),
        ("changeGoal", A, Op::ChangeGoal),
        ("equip", A, Op::Equip),
        ("fight", A, Op::Fight),
        ("flee", A, Op::Flee),
        ("gesture", A, Op::Gesture),
        ("heal", A, Op::Heal),
        ("jump", A, Op::Jump),
        ("moveInDir", A, Op::MoveInDir),
        ("moveTo", A, Op::MoveTo),
        ("moveToGoal", A, Op::MoveToGoal),
        ("reload", A, Op::Reload),
        ("repair", A, Op::Repair),
        ("resetMyTimer", A, Op::ResetMyTimer),
        ("resetStuckTime", A, Op::ResetStuckTime),
        ("roam", A, Op::Roam),
        ("roamInRadius", A, Op::RoamInRadius),
        ("strafeDodge", A, Op::StrafeDodge),
        ("alertedToEnemy", F, Op::AlertedToEnemy),
        ("buildingIsDamaged", F, Op::BuildingIsDamaged),
        ("cvar", F, Op::Cvar),
        ("distanceTo", F, Op::DistanceTo),
        ("goalIsDead", F, Op::GoalIsDead),
        ("haveUpgrade", F, Op::HaveUpgrade),
        ("haveWeapon", F, Op::HaveWeapon),
        ("inAttackRange", F, Op::InAttackRange),
        ("isVisible", F, Op::IsVisible),
        ("levelTime", F, Op::LevelTime),
        ("momentum", F, Op::Momentum),
        ("myTimer", F, Op::MyTimer),
        ("numUsersInTeam", F, Op::NumUsersInTeam),
        ("percentAmmoClip", F, Op::PercentAmmoClip),
        ("percentClips", F, Op::PercentClips),
        ("percentHealth", F, Op::PercentHealth),
        ("random", F, Op::Random),
        ("resupplyScore", F, Op::ResupplyScore),
        ("skill", F, Op::Skill),
        ("stuckTime", F, Op::StuckTime),
        ("team", F, Op::Team),
        ("timeSinceLastCombat", F, Op::TimeSinceLastCombat),
    ]
};

/// One soldier's state. Small and `Copy`, stored contiguously in [`World`].
#[derive(Clone, Copy, Debug)]
struct Agent {
    /// The `now` the surroundings were last advanced to (`None` before the first call).
    seen: Option<Millis>,
    /// Health points, 1..=100.
    health: i32,
    /// Rounds in the clip.
    clip: i32,
    /// Spare clips.
    clips: i32,
    /// Position (Manhattan geometry; the reactor is at the origin).
    x: i32,
    y: i32,
    /// Hit points of the nearest enemy; 0 when there is none.
    enemy_hp: i32,
    /// Distance to the nearest enemy (meaningful when `enemy_hp > 0`).
    enemy_dist: i32,
    /// Whether that enemy is in sight.
    visible: bool,
    /// Credits to spend at the armoury.
    credits: i32,
    /// Upgrades owned, one bit per `UP_*` value.
    upgrades: u16,
    /// The weapon held (`WP_*`).
    weapon: u8,
    /// The current goal (`E_*`), set by `changeGoal`.
    goal: u8,
    /// Ticks left of the running long action.
    busy: u8,
    /// Time the soldier last took or dealt damage.
    last_combat: Millis,
    /// Milliseconds spent blocked while trying to move.
    stuck_ms: i32,
    /// Start of `myTimer`.
    timer_start: Millis,
    /// Damage points of the base building the engineers repair.
    damage: i32,
    /// Blackboard notes, gestures, dodges, jumps: things the soldier did, for the checksum.
    notes: u32,
    /// Enemies killed.
    kills: u32,
    /// Times killed.
    deaths: u32,
}

impl Agent {
    /// A fresh soldier; agents differ in health, ammunition, credits, position and kit.
    fn spawn(id: u32) -> Agent {
        let h = mix(id, 0, 0x5eed);
        let engineer = id % 4 == 3;
        Agent {
            seen: None,
            health: 55 + (h % 46) as i32,
            clip: ((h >> 8) % (CLIP as u32 + 1)) as i32,
            clips: ((h >> 16) % (MAX_CLIPS as u32 + 1)) as i32,
            x: SPAWN_AT.0 + ((h >> 20) % 200) as i32 - 100,
            y: SPAWN_AT.1 + ((h >> 12) % 200) as i32 - 100,
            enemy_hp: 0,
            enemy_dist: 0,
            visible: false,
            credits: ((h >> 24) % 300) as i32,
            upgrades: if id.is_multiple_of(3) {
                bit(UP_LIGHTARMOUR)
            } else {
                0
            },
            weapon: if engineer { WP_HBUILD } else { WP_MACHINEGUN },
            goal: 0,
            busy: 0,
            last_combat: -60_000,
            stuck_ms: 0,
            timer_start: 0,
            damage: 0,
            notes: 0,
            kills: 0,
            deaths: 0,
        }
    }

    /// Advances the surroundings to `now` (once per tick): the enemy appears, closes in, shoots
    /// and sometimes wanders off; credits trickle in; the base takes damage now and then; a
    /// soldier killed respawns at once.
    #[inline]
    fn advance(&mut self, id: u32, now: Millis) {
        if self.seen == Some(now) {
            return;
        }
        self.seen = Some(now);
        let h = mix(id, now, 1);
        if self.enemy_hp <= 0 {
            if h.is_multiple_of(12) {
                self.enemy_hp = 60 + ((h >> 8) % 60) as i32;
                self.enemy_dist = 700 + ((h >> 16) % 900) as i32;
            }
        } else {
            self.enemy_dist = (self.enemy_dist - ((h >> 4) % 60) as i32).max(80);
            self.visible = self.enemy_dist < 1_000 && !(h >> 10).is_multiple_of(8);
            if (h >> 20).is_multiple_of(96) {
                self.enemy_hp = 0;
            } else if self.enemy_dist < 500 {
                let armour = i32::from(self.upgrades & bit(UP_LIGHTARMOUR) != 0);
                self.health -= ((h >> 13) % 6) as i32 - armour;
                self.last_combat = now;
            }
        }
        if self.enemy_hp <= 0 {
            self.visible = false;
        }
        self.credits = (self.credits + 1).min(2_000);
        if (h >> 24).is_multiple_of(40) {
            self.damage = (self.damage + 50).min(300);
        }
        if self.health <= 0 {
            self.respawn();
        }
    }

    /// Death: back to the spawn point with the starting kit.
    fn respawn(&mut self) {
        self.deaths += 1;
        self.health = 100;
        self.clip = CLIP;
        self.clips = 2;
        self.x = SPAWN_AT.0;
        self.y = SPAWN_AT.1;
        self.enemy_hp = 0;
        self.visible = false;
        self.upgrades = 0;
        self.busy = 0;
        self.stuck_ms = 0;
        if self.weapon != WP_HBUILD {
            self.weapon = WP_MACHINEGUN;
        }
    }

    /// Manhattan distance to a point.
    #[inline]
    fn dist_to(&self, (px, py): (i32, i32)) -> i64 {
        i64::from((self.x - px).abs() + (self.y - py).abs())
    }

    /// Distance to an entity (`E_*`).
    #[inline]
    fn distance(&self, entity: i64) -> i64 {
        match entity {
            E_ENEMY if self.enemy_hp > 0 => i64::from(self.enemy_dist),
            E_H_REACTOR => self.dist_to((0, 0)),
            E_H_MEDISTAT => self.dist_to(MEDISTAT_AT),
            E_H_ARMOURY => self.dist_to(ARMOURY_AT),
            E_DAMAGEDBUILDING if self.damage > 0 => self.dist_to(DAMAGED_AT),
            E_SELF => 0,
            _ => FAR_AWAY,
        }
    }

    /// Whether the soldier's path is blocked: a property of 3-second windows, so `stuckTime`
    /// can grow.
    #[inline]
    fn blocked(id: u32, now: Millis) -> bool {
        mix(id, now / 3_000, 7).is_multiple_of(5)
    }

    /// One step towards a point; returns whether the point is within `radius` afterwards.
    fn step_towards(&mut self, id: u32, now: Millis, to: (i32, i32), radius: i64) -> bool {
        if self.dist_to(to) <= radius {
            return true;
        }
        if Agent::blocked(id, now) {
            self.stuck_ms += 100;
            return false;
        }
        self.stuck_ms = 0;
        let mut left = STEP;
        let dx = (to.0 - self.x).clamp(-left, left);
        self.x += dx;
        left -= dx.abs();
        self.y += (to.1 - self.y).clamp(-left, left);
        self.dist_to(to) <= radius
    }

    /// A random step of at most `STEP` in each direction.
    fn wander(&mut self, h: u32) {
        self.x += (h % (2 * STEP as u32 + 1)) as i32 - STEP;
        self.y += ((h >> 9) % (2 * STEP as u32 + 1)) as i32 - STEP;
    }

    /// Starts (on enter) or continues a long action lasting `ticks` calls; returns whether it
    /// is done with this call.
    #[inline]
    fn count_down(&mut self, phase: Phase, ticks: u8) -> bool {
        if phase == Phase::Enter {
            self.busy = ticks;
        }
        self.busy = self.busy.saturating_sub(1);
        self.busy == 0
    }

    /// Runs an action.
    #[inline(always)]
    fn action(&mut self, op: Op, id: u32, call: &Call<'_>) -> Status {
        let now = call.now;
        let h = mix(id, now, 2);
        match op {
            Op::ActivateUpgrade
            | Op::Buy
            | Op::BuyPrimary
            | Op::Equip
            | Op::Heal
            | Op::Reload
            | Op::Repair => self.supply_action(op, call),
            Op::AimAtGoal | Op::Fight | Op::Flee | Op::StrafeDodge => {
                self.combat_action(op, h, now)
            }
            Op::MoveInDir | Op::MoveTo | Op::MoveToGoal | Op::Roam | Op::RoamInRadius => {
                self.move_action(op, id, call, h)
            }
            Op::BlackboardNoteTransient
            | Op::ChangeGoal
            | Op::Gesture
            | Op::Jump
            | Op::ResetMyTimer
            | Op::ResetStuckTime => self.bookkeeping_action(op, call, h),
            _ => Status::Failure,
        }
    }

    /// Upgrades, shopping, healing, reloading and repairing.
    #[inline(always)]
    fn supply_action(&mut self, op: Op, call: &Call<'_>) -> Status {
        match op {
            Op::ActivateUpgrade => {
                let up = bit(int_arg(call, 0));
                if self.upgrades & up == 0 {
                    return Status::Failure;
                }
                if up == bit(UP_MEDKIT) {
                    self.upgrades &= !up;
                    self.health = (self.health + 50).min(100);
                }
                Status::Success
            }
            Op::Buy | Op::BuyPrimary => {
                if self.dist_to(ARMOURY_AT) > 250 {
                    return Status::Failure;
                }
                if !self.count_down(call.phase, 2) {
                    return Status::Running;
                }
                let item = int_arg(call, 0);
                let cost = if op == Op::Buy {
                    ARMOUR_COST
                } else {
                    LAS_GUN_COST
                };
                if self.credits < cost {
                    return Status::Failure;
                }
                self.credits -= cost;
                if op == Op::Buy {
                    self.upgrades |= bit(item);
                } else {
                    self.weapon = item as u8;
                    self.clip = CLIP;
                }
                Status::Success
            }
            Op::Equip => {
                if !self.count_down(call.phase, 2) {
                    return Status::Running;
                }
                self.clip = CLIP;
                self.clips = MAX_CLIPS;
                self.upgrades |= bit(UP_MEDKIT);
                Status::Success
            }
            Op::Heal => {
                if self.dist_to(MEDISTAT_AT) > 250 || (self.enemy_hp > 0 && self.enemy_dist < 300) {
                    return Status::Failure;
                }
                self.health = (self.health + 7).min(100);
                if self.health >= 100 {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            Op::Reload => {
                if self.clips <= 0 {
                    return Status::Failure;
                }
                self.clips -= 1;
                self.clip = CLIP;
                Status::Success
            }
            Op::Repair => {
                if self.damage <= 0 {
                    return Status::Success;
                }
                if self.weapon != WP_HBUILD || self.dist_to(DAMAGED_AT) > 200 {
                    return Status::Failure;
                }
                self.damage = (self.damage - 25).max(0);
                status_or_running(self.damage == 0)
            }
            _ => Status::Failure,
        }
    }

    /// Aiming, fighting, fleeing and dodging.
    #[inline(always)]
    fn combat_action(&mut self, op: Op, h: u32, now: Millis) -> Status {
        match op {
            Op::AimAtGoal => status(self.goal as i64 != E_ENEMY || self.enemy_hp > 0),
            Op::Fight => {
                if self.enemy_hp <= 0 {
                    return Status::Success;
                }
                if !self.visible || self.clip <= 0 {
                    return Status::Failure;
                }
                let damage = match self.weapon {
                    WP_LAS_GUN => 12,
                    WP_HBUILD => 3,
                    _ => 8,
                };
                self.clip = (self.clip - 1 - (h % 3) as i32).max(0);
                self.enemy_hp -= damage + (h >> 4) as i32 % 4;
                self.last_combat = now;
                if self.enemy_hp <= 0 {
                    self.enemy_hp = 0;
                    self.visible = false;
                    self.kills += 1;
                    self.credits += 100;
                    return Status::Success;
                }
                Status::Running
            }
            Op::Flee => {
                self.enemy_dist += 120;
                self.x += STEP;
                if self.enemy_dist > 1_000 || self.enemy_hp <= 0 {
                    self.enemy_hp = 0;
                    self.visible = false;
                    return Status::Success;
                }
                Status::Running
            }
            Op::StrafeDodge => {
                self.x += if h & 1 == 0 { 30 } else { -30 };
                self.notes = self.notes.wrapping_add(1);
                Status::Success
            }
            _ => Status::Failure,
        }
    }

    /// Movement: in a direction, to a place or the goal, or roaming.
    #[inline(always)]
    fn move_action(&mut self, op: Op, id: u32, call: &Call<'_>, h: u32) -> Status {
        let now = call.now;
        match op {
            Op::MoveInDir => {
                let dirs = int_arg(call, 0) | int_arg(call, 1);
                if dirs & MOVE_FORWARD != 0 {
                    self.y += STEP / 2;
                }
                if dirs & MOVE_BACKWARD != 0 {
                    self.y -= STEP / 2;
                }
                if dirs & MOVE_LEFT != 0 {
                    self.x -= STEP / 2;
                }
                if dirs & MOVE_RIGHT != 0 {
                    self.x += STEP / 2;
                }
                Status::Success
            }
            Op::MoveTo => {
                let to = match int_arg(call, 0) {
                    E_H_MEDISTAT => MEDISTAT_AT,
                    E_H_ARMOURY => ARMOURY_AT,
                    E_DAMAGEDBUILDING => DAMAGED_AT,
                    _ => (0, 0),
                };
                let radius = if call.args.len() > 1 {
                    int_arg(call, 1)
                } else {
                    100
                };
                status_or_running(self.step_towards(id, now, to, radius))
            }
            Op::MoveToGoal => match self.goal as i64 {
                E_ENEMY if self.enemy_hp > 0 => {
                    self.enemy_dist = (self.enemy_dist - STEP).max(80);
                    status_or_running(self.enemy_dist <= 250)
                }
                E_DAMAGEDBUILDING if self.damage > 0 => {
                    status_or_running(self.step_towards(id, now, DAMAGED_AT, 100))
                }
                _ => Status::Failure,
            },
            Op::Roam => {
                self.wander(h);
                status_or_running(self.count_down(call.phase, 2 + (h % 4) as u8))
            }
            Op::RoamInRadius => {
                if call.phase == Phase::Enter && h.is_multiple_of(7) {
                    return Status::Failure;
                }
                self.wander(h);
                let radius = int_arg(call, 1).max(1) as i32;
                self.x = self.x.clamp(-radius, radius);
                self.y = self.y.clamp(-radius, radius);
                status_or_running(self.count_down(call.phase, 3 + (h % 5) as u8))
            }
            _ => Status::Failure,
        }
    }

    /// Notes, goals, gestures and timers.
    #[inline(always)]
    fn bookkeeping_action(&mut self, op: Op, call: &Call<'_>, h: u32) -> Status {
        match op {
            Op::BlackboardNoteTransient => {
                self.notes = self.notes.wrapping_add(int_arg(call, 0) as u32);
                Status::Success
            }
            Op::ChangeGoal => {
                let goal = int_arg(call, 0);
                self.goal = goal as u8;
                status(self.distance(goal) < FAR_AWAY)
            }
            Op::Gesture | Op::Jump => {
                self.notes = self.notes.wrapping_add(1);
                status(!h.is_multiple_of(4))
            }
            Op::ResetMyTimer => {
                self.timer_start = call.now;
                Status::Success
            }
            Op::ResetStuckTime => {
                self.stuck_ms = 0;
                Status::Success
            }
            _ => Status::Failure,
        }
    }

    /// Evaluates a condition function.
    #[inline(always)]
    fn function(&self, op: Op, id: u32, call: &Call<'_>) -> Value {
        let now = call.now;
        match op {
            Op::AlertedToEnemy => Value::Bool(self.enemy_hp > 0 && self.enemy_dist < 1_200),
            Op::BuildingIsDamaged => {
                Value::Bool(self.goal as i64 == E_DAMAGEDBUILDING && self.damage > 0)
            }
            Op::Cvar => Value::Int(1),
            Op::DistanceTo => Value::Int(self.distance(int_arg(call, 0))),
            Op::GoalIsDead => Value::Bool(self.goal as i64 == E_ENEMY && self.enemy_hp <= 0),
            Op::HaveUpgrade => Value::Bool(self.upgrades & bit(int_arg(call, 0)) != 0),
            Op::HaveWeapon => Value::Bool(i64::from(self.weapon) == int_arg(call, 0)),
            Op::InAttackRange => {
                let range = if self.weapon == WP_LAS_GUN { 800 } else { 600 };
                Value::Bool(self.distance(int_arg(call, 0)) < range)
            }
            Op::IsVisible => Value::Bool(int_arg(call, 0) != E_ENEMY || self.visible),
            Op::LevelTime => Value::Int(now),
            Op::Momentum => {
                let salt = match int_arg(call, 0) {
                    TEAM_ALIENS => 3,
                    TEAM_HUMANS => 4,
                    _ => return Value::Int(0),
                };
                Value::Int(i64::from(mix(id, now / 4_000, salt) % 200))
            }
            Op::MyTimer => Value::Int(now - self.timer_start),
            Op::NumUsersInTeam => Value::Int(1 + i64::from(mix(id, now / 4_000, 5) % 6)),
            Op::PercentAmmoClip => Value::Float(f64::from(self.clip) / f64::from(CLIP)),
            Op::PercentClips => Value::Float(f64::from(self.clips) / f64::from(MAX_CLIPS)),
            Op::PercentHealth => {
                if int_arg(call, 0) == E_SELF {
                    Value::Float(f64::from(self.health) / 100.0)
                } else {
                    Value::Float(1.0)
                }
            }
            Op::Random => Value::Float(f64::from(mix(id, now, 6) >> 8) / f64::from(1u32 << 24)),
            Op::ResupplyScore => Value::Float(f64::from(self.credits.min(500)) / 500.0),
            Op::Skill => Value::Int(1 + i64::from(id % 9)),
            Op::StuckTime => Value::Int(i64::from(self.stuck_ms)),
            Op::Team => Value::Int(TEAM_HUMANS),
            Op::TimeSinceLastCombat => Value::Int(now - self.last_combat),
            _ => Value::Bool(false),
        }
    }
}

/// A simulated world of human soldiers, one per agent, for the bench demo tree.
///
/// Build it with [`World::new`], [`bind`](World::bind) it to the tree's import table, then hand
/// it to an engine as its [`Host`]. Agent `i` of the engine is soldier `i`; calls for agents
/// beyond [`World::agents`] fail (actions) or answer `false` (functions).
#[derive(Clone, Debug)]
pub struct World {
    /// The id of the first soldier (worlds for parallel ticking cover a range of agents).
    first: u32,
    agents: Vec<Agent>,
    /// What each import of the bound tree does, by import index.
    table: Vec<Op>,
}

impl World {
    /// A world of `agents` soldiers in their starting state (deterministic, different per
    /// agent). Nothing is bound yet: call [`World::bind`] before running a tree.
    pub fn new(agents: usize) -> World {
        World::range(0, agents)
    }

    /// The soldiers `first .. first + agents` only: the part of the world one thread ticks
    /// under `Batch::par_tick`. Calls for other agents fail (actions) or answer `false`.
    pub fn range(first: u32, agents: usize) -> World {
        World {
            first,
            agents: (0..agents)
                .map(|i| Agent::spawn(first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX))))
                .collect(),
            table: Vec::new(),
        }
    }

    /// The world split as `Batch::par_tick` splits a batch of `agents`: `parts` contiguous
    /// ranges of `ceil(agents / parts)` soldiers.
    pub fn split(agents: usize, parts: usize) -> Vec<World> {
        let chunk = agents.div_ceil(parts.max(1)).max(1);
        (0..agents)
            .step_by(chunk)
            .map(|first| World::range(first as u32, chunk.min(agents - first)))
            .collect()
    }

    /// The number of soldiers.
    pub fn agents(&self) -> usize {
        self.agents.len()
    }

    /// Binds a tree's import table: maps each import name to what this world does for it.
    ///
    /// Fails, naming the import, when the world has no action or function of that name and
    /// kind. On failure the previous binding is kept.
    pub fn bind(&mut self, imports: &[Import]) -> Result<(), String> {
        let table = imports.iter().map(lookup).collect::<Result<Vec<_>, _>>()?;
        self.table = table;
        Ok(())
    }

    /// Binds one import at index `id` of the import table (for engines that bind import by
    /// import); indices not bound yet stay unbound. Fails like [`World::bind`].
    pub fn bind_one(&mut self, id: ImportId, import: &Import) -> Result<(), String> {
        let op = lookup(import)?;
        if self.table.len() <= id.index() {
            self.table.resize(id.index() + 1, Op::Unbound);
        }
        self.table[id.index()] = op;
        Ok(())
    }

    /// A hash of every soldier's state, to compare engines after the same run.
    pub fn checksum(&self) -> u64 {
        World::checksum_all(std::slice::from_ref(self))
    }

    /// The checksum of a world split into consecutive ranges (equal to [`World::checksum`] of
    /// the whole world).
    pub fn checksum_all(worlds: &[World]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut fold = |x: i64| {
            h = (h ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3);
            h ^= h >> 29;
        };
        for a in worlds.iter().flat_map(|w| &w.agents) {
            fold(a.seen.unwrap_or(-1));
            fold(i64::from(a.health));
            fold(i64::from(a.clip));
            fold(i64::from(a.clips));
            fold(i64::from(a.x));
            fold(i64::from(a.y));
            fold(i64::from(a.enemy_hp));
            fold(i64::from(a.enemy_dist));
            fold(i64::from(a.visible));
            fold(i64::from(a.credits));
            fold(i64::from(a.upgrades));
            fold(i64::from(a.weapon));
            fold(i64::from(a.goal));
            fold(i64::from(a.busy));
            fold(a.last_combat);
            fold(i64::from(a.stuck_ms));
            fold(a.timer_start);
            fold(i64::from(a.damage));
            fold(i64::from(a.notes));
            fold(i64::from(a.kills));
            fold(i64::from(a.deaths));
        }
        h
    }

    /// The soldier a call is for, with the surroundings advanced to the call's `now`.
    #[inline]
    fn agent_for(&mut self, call: &Call<'_>) -> Option<(&mut Agent, Op)> {
        let op = self
            .table
            .get(call.import.index())
            .copied()
            .unwrap_or(Op::Unbound);
        let agent = self
            .agents
            .get_mut(call.agent.0.wrapping_sub(self.first) as usize)?;
        agent.advance(call.agent.0, call.now);
        Some((agent, op))
    }
}

// The two calls every engine makes are inlined where the engine makes them (the vm's loop,
// native code's trampolines for this host type, which are generic over it, and the hand-written
// bot), so the world's `match` on the operation is compiled into each caller: that took 10–20 %
// off the vm's and native code's tick on the demo (BENCHMARKS.md, "The simulated world").
impl Host for World {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        self.bind_one(id, import).is_ok()
    }

    #[inline(always)]
    fn action(&mut self, call: &Call<'_>) -> Status {
        if call.phase == Phase::Exit {
            // Terminated: the result is ignored; the long action just stops.
            if let Some(a) = self
                .agents
                .get_mut(call.agent.0.wrapping_sub(self.first) as usize)
            {
                a.busy = 0;
            }
            return Status::Failure;
        }
        match self.agent_for(call) {
            Some((agent, op)) => agent.action(op, call.agent.0, call),
            None => Status::Failure,
        }
    }

    #[inline(always)]
    fn function(&mut self, call: &Call<'_>) -> Value {
        match self.agent_for(call) {
            Some((agent, op)) => agent.function(op, call.agent.0, call),
            None => Value::Bool(false),
        }
    }
}

/// What this world does for `import`, or an error naming it.
fn lookup(import: &Import) -> Result<Op, String> {
    match BINDINGS.iter().find(|(name, _, _)| *name == import.name) {
        Some((_, kind, op)) if *kind == import.kind => Ok(*op),
        Some((_, kind, _)) => Err(format!(
            "the bench world's `{}` is {} {}, but the tree imports it as {} {}",
            import.name,
            article(*kind),
            kind.name(),
            article(import.kind),
            import.kind.name()
        )),
        None => Err(format!(
            "the bench world has no {} named `{}`",
            import.kind.name(),
            import.name
        )),
    }
}

/// A small deterministic hash of (agent, time, salt): the world's only source of variety.
#[inline]
fn mix(agent: u32, now: Millis, salt: u32) -> u32 {
    let mut z = (now as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(u64::from(agent).wrapping_mul(0xbf58_476d_1ce4_e5b9))
        .wrapping_add(u64::from(salt).wrapping_mul(0x94d0_49bb_1331_11eb));
    z ^= z >> 31;
    z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^= z >> 29;
    (z >> 32) as u32
}

/// Argument `i` as an integer (0 when absent).
#[inline]
fn int_arg(call: &Call<'_>, i: usize) -> i64 {
    call.args.get(i).map_or(0, |v| v.as_f64() as i64)
}

/// The upgrade bit of an `UP_*` value (0 for values out of range).
#[inline]
fn bit(up: i64) -> u16 {
    if (0..16).contains(&up) {
        1 << up
    } else {
        0
    }
}

/// Success or failure.
#[inline]
fn status(ok: bool) -> Status {
    if ok {
        Status::Success
    } else {
        Status::Failure
    }
}

/// Success when done, else running.
#[inline]
fn status_or_running(done: bool) -> Status {
    if done {
        Status::Success
    } else {
        Status::Running
    }
}

/// "an" or "a" before an import kind's name.
fn article(kind: ImportKind) -> &'static str {
    match kind {
        ImportKind::Action => "an",
        ImportKind::Function => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_are_unique_and_spelled_as_the_profile() {
        let profile = btvm_compiler::syntax::Profile::builtin("unvanquished").unwrap();
        let vocab = profile.unvanquished().unwrap();
        for (i, (name, kind, _)) in BINDINGS.iter().enumerate() {
            assert!(
                BINDINGS[..i].iter().all(|(n, _, _)| n != name),
                "{name} bound twice"
            );
            let known = match kind {
                ImportKind::Action => vocab.action(name).map(|a| a.name.as_str()),
                ImportKind::Function => vocab.function(name).map(|f| f.name.as_str()),
            };
            assert_eq!(known, Some(*name));
        }
    }

    #[test]
    fn agents_start_different() {
        let w = World::new(4);
        let a = &w.agents;
        assert!(a[0].health != a[1].health || a[0].credits != a[1].credits);
        assert_eq!(a[3].weapon, WP_HBUILD);
    }
}
