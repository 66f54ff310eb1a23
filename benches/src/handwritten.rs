//! The demo bot written by hand in plain Rust: the baseline the engines are measured against.
//!
//! This is the code a game programmer would write for the soldier of `demo.bt` (with its
//! behaviors `demo_survive.bt` and `demo_supply.bt`) without a behavior-tree engine: a few
//! bytes of state per agent ([`DemoState`]) and straight-line `if`s that follow the tree's
//! five branches. It calls the host exactly as the engines do — through [`Host::action`] and
//! [`Host::function`], with the import ids the program's import table gives and the same
//! argument values — so a `btvm bench` row for it differs from an engine's only in the cost of
//! the tree logic. "Native code within 2x of hand-written Rust" is measured against this.
//!
//! **Invariant:** it must stay equivalent to the demo tree: the same host calls (import,
//! phase, arguments, time) in the same order, the same root status every tick, and so the
//! same world. `tests/bench_handwritten.rs` proves it against the reference interpreter;
//! whoever edits the `.bt` files must edit this file too.
//!
//! How the Unvanquished running-list model (`spec/semantics.md`, 4.1) shrinks for this tree:
//!
//! - Only the game's long-running actions (`moveTo`, `fight`, `heal`, …) ever return running;
//!   the short ones (`reload`, `changeGoal`, `jump`, …) finish in the call that starts them,
//!   which is the game's contract for them and what the world does. Every long-running action
//!   sits under parents that pass running straight up to the root, so after a running tick
//!   the running list is exactly "that action and all its ancestors". It is kept as the
//!   action alone ([`DemoState`]'s `resume`), and "is node N listed" becomes "is the listed
//!   action inside N", which is what a sequence or fallback checks to pick its first child.
//! - The list is cleared when a listed node succeeds. A listed node's success reaches the
//!   root as a success, except under the two `mapStatus` decorators of the shopping sequence,
//!   after which the sequence goes on; so the list is cleared when the root succeeds and when
//!   one of those two decorators finishes while its action is the listed one. A failure leaves
//!   the list as it was (the "stale list" quirk).
//! - The current-action slot is claimed by the actions themselves, on the outcomes their
//!   import's slot claims name (`roam` on entry, `fight` when it runs, `changeGoal` on success,
//!   `moveToGoal` never); it survives being pre-empted by an action that does not claim it, and
//!   an action is called with [`Phase::Continue`] exactly when it holds it. Short actions never
//!   hold it, so they are always entered.
//! - Each `timer` decorator is one deadline: closed while `now <= deadline`, re-armed to
//!   `now + ms` when its child fails.
//! - Host function results are rounded to binary32 before use and float literals are binary32
//!   values, as the dialect's single precision requires.

use btvm::{
    AgentId, Call, Host, Import, ImportId, ImportKind, Millis, Phase, Program, SlotClaims, Status,
};
use btvm::{Strings, Value};

use super::world::World;

// ---- the values the tree passes (the Unvanquished profile's symbols, as the program has them)

const E_H_ARMOURY: Value = Value::Int(13);
const E_H_MEDISTAT: Value = Value::Int(14);
const E_H_REACTOR: Value = Value::Int(16);
const E_ENEMY: Value = Value::Int(18);
const E_DAMAGEDBUILDING: Value = Value::Int(19);
const E_SELF: Value = Value::Int(22);
const TEAM_ALIENS: Value = Value::Int(1);
const TEAM_HUMANS: Value = Value::Int(2);
const UP_LIGHTARMOUR: Value = Value::Int(1);
const UP_MEDKIT: Value = Value::Int(8);
const WP_LAS_GUN: Value = Value::Int(12);
const WP_HBUILD: Value = Value::Int(22);
const MOVE_BACKWARD: Value = Value::Int(2);
const MOVE_LEFT: Value = Value::Int(4);

/// `LOW_HEALTH` and `CRITICAL_HEALTH` of `demo_survive.bt`: float literals are binary32.
const LOW_HEALTH: f64 = 0.4f32 as f64;
const CRITICAL_HEALTH: f64 = 0.2f32 as f64;

/// A long-running action of the tree, by its place in the tree (the same import at two places
/// is two actions): what the current-action slot and the running list can hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
enum Long {
    /// Nothing (an empty slot or list).
    #[default]
    None,
    // 2. survive
    Flee,
    MoveToMedistat,
    Heal,
    // 3. fight
    Fight,
    CloseIn,
    // 4. supply
    MoveToArmoury,
    Buy,
    BuyPrimary,
    Equip,
    MoveToBuilding,
    Repair,
    // 5. patrol
    MoveToReactor,
    Roam,
    RoamInRadius,
}

/// What the demo tree remembers about one agent between ticks. A fresh agent is all zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DemoState {
    /// Deadline of the medkit `timer(2000)` (branch 2).
    medkit_until: Millis,
    /// Deadline of the dodge `timer(800)` (branch 3).
    dodge_until: Millis,
    /// Deadline of the wander `timer(3000)` (branch 5).
    roam_until: Millis,
    /// The current-action slot: the action that returned running last.
    current: Long,
    /// The running list: the action whose branch is listed, with all its ancestors.
    resume: Long,
}

/// Bytes of per-agent state the hand-written bot keeps.
pub const STATE_BYTES: usize = std::mem::size_of::<DemoState>();

/// Declares the import ids the bot calls, resolved by name once.
macro_rules! imports {
    ($($field:ident: $kind:ident $name:literal,)*) => {
        /// The import ids of every action and function the bot calls.
        #[derive(Clone, Debug)]
        struct Imports {
            $($field: ImportId,)*
        }

        impl Imports {
            fn resolve(table: &[Import]) -> Result<Imports, String> {
                Ok(Imports {
                    $($field: find(table, $name, ImportKind::$kind)?,)*
                })
            }
        }
    };
}

imports! {
    // actions
    activate_upgrade: Action "activateUpgrade",
    aim_at_goal: Action "aimAtGoal",
    blackboard_note_transient: Action "blackboardNoteTransient",
    buy: Action "buy",
    buy_primary: Action "buyPrimary",
    change_goal: Action "changeGoal",
    equip: Action "equip",
    fight: Action "fight",
    flee: Action "flee",
    gesture: Action "gesture",
    heal: Action "heal",
    jump: Action "jump",
    move_in_dir: Action "moveInDir",
    move_to: Action "moveTo",
    move_to_goal: Action "moveToGoal",
    reload: Action "reload",
    repair: Action "repair",
    reset_my_timer: Action "resetMyTimer",
    reset_stuck_time: Action "resetStuckTime",
    roam: Action "roam",
    roam_in_radius: Action "roamInRadius",
    strafe_dodge: Action "strafeDodge",
    // functions
    alerted_to_enemy: Function "alertedToEnemy",
    building_is_damaged: Function "buildingIsDamaged",
    cvar: Function "cvar",
    distance_to: Function "distanceTo",
    goal_is_dead: Function "goalIsDead",
    have_upgrade: Function "haveUpgrade",
    have_weapon: Function "haveWeapon",
    in_attack_range: Function "inAttackRange",
    is_visible: Function "isVisible",
    level_time: Function "levelTime",
    momentum: Function "momentum",
    my_timer: Function "myTimer",
    num_users_in_team: Function "numUsersInTeam",
    percent_ammo_clip: Function "percentAmmoClip",
    percent_clips: Function "percentClips",
    percent_health: Function "percentHealth",
    random: Function "random",
    resupply_score: Function "resupplyScore",
    skill: Function "skill",
    stuck_time: Function "stuckTime",
    team: Function "team",
    time_since_last_combat: Function "timeSinceLastCombat",
}

/// The id of the import called `name` of kind `kind`, or an error naming it.
fn find(table: &[Import], name: &str, kind: ImportKind) -> Result<ImportId, String> {
    let at = table
        .iter()
        .position(|i| i.name == name && i.kind == kind)
        .ok_or_else(|| format!("the import table has no {} `{name}`", kind.name()))?;
    Ok(ImportId(u32::try_from(at).map_err(|e| e.to_string())?))
}

/// The hand-written demo bot, bound to one import table.
///
/// Build it once from the program whose import table the host was bound to; [`tick`] then
/// looks nothing up by name.
///
/// [`tick`]: HandWritten::tick
#[derive(Clone, Debug)]
pub struct HandWritten {
    imports: Imports,
    /// Each import's slot claims (by import id), as the program's import table gives them.
    claims: Vec<SlotClaims>,
    /// The strings `Value::Str` arguments refer to (the program's table).
    strings: Strings,
    /// The `"g_bot_buyWeapons"` argument of `cvar`.
    buy_weapons: Value,
}

impl HandWritten {
    /// Binds the bot to an import table and string table (a compiled demo program's, so that
    /// ids and arguments are the ones the engines pass). Fails, naming it, when an action,
    /// function or string the bot uses is missing.
    pub fn new(imports: &[Import], strings: &Strings) -> Result<HandWritten, String> {
        const BUY_WEAPONS: &str = "g_bot_buyWeapons";
        let id = strings
            .lookup(BUY_WEAPONS)
            .ok_or_else(|| format!("the string table has no \"{BUY_WEAPONS}\""))?;
        Ok(HandWritten {
            imports: Imports::resolve(imports)?,
            claims: imports.iter().map(|i| i.claims).collect(),
            strings: strings.clone(),
            buy_weapons: Value::Str(id),
        })
    }

    /// [`HandWritten::new`] with a program's import and string tables.
    pub fn from_program(program: &Program) -> Result<HandWritten, String> {
        HandWritten::new(program.imports(), program.strings())
    }

    /// Ticks one agent at time `now`, as the demo tree would, and returns the root status.
    pub fn tick<H: Host + ?Sized>(
        &self,
        state: &mut DemoState,
        agent: AgentId,
        host: &mut H,
        now: Millis,
    ) -> Status {
        let mut t = Tick {
            hw: self,
            st: state,
            host,
            agent,
            now,
        };
        let status = t.root();
        // The root is listed whenever the list is not empty: its success clears the list.
        if status == Status::Success {
            t.st.resume = Long::None;
        }
        status
    }
}

/// Runs `agents` agents for `ticks` ticks (`now = tick * step_ms`, every agent once per tick,
/// in order) against `world`, which must be bound to the import table `hw` was built from.
///
/// Returns the checksum `btvm bench` reports for an engine on the same run (the world's
/// checksum folded with how often the root returned each status), so the hand-written row can
/// be checked against the engines' rows.
pub fn run(world: &mut World, hw: &HandWritten, agents: u32, ticks: u32, step_ms: Millis) -> u64 {
    let mut states = vec![DemoState::default(); agents as usize];
    let mut counts = [0u64; 3];
    for t in 0..ticks {
        let now = Millis::from(t) * step_ms;
        for (a, state) in (0..agents).zip(states.iter_mut()) {
            counts[hw.tick(state, AgentId(a), world, now) as usize] += 1;
        }
    }
    counts.iter().fold(world.checksum(), |h, &c| {
        (h ^ c).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A host function's result as the tree sees it: floats rounded to binary32.
#[inline]
fn single(v: Value) -> Value {
    match v {
        Value::Float(x) => Value::Float(f64::from(x as f32)),
        v => v,
    }
}

/// One tick of one agent.
struct Tick<'a, H: Host + ?Sized> {
    hw: &'a HandWritten,
    st: &'a mut DemoState,
    host: &'a mut H,
    agent: AgentId,
    now: Millis,
}

impl<H: Host + ?Sized> Tick<'_, H> {
    // ---- host calls ----------------------------------------------------------------------

    /// Calls a function; the result as the tree sees it.
    #[inline]
    fn func(&mut self, import: ImportId, args: &[Value]) -> Value {
        let call = Call::new(
            self.agent,
            import,
            Phase::Enter,
            args,
            self.now,
            &self.hw.strings,
        );
        single(self.host.function(&call))
    }

    /// A function's result as a number (for comparisons).
    #[inline]
    fn num(&mut self, import: ImportId, args: &[Value]) -> f64 {
        self.func(import, args).as_f64()
    }

    /// A function's result as a truth value.
    #[inline]
    fn is(&mut self, import: ImportId, args: &[Value]) -> bool {
        self.func(import, args).truthy()
    }

    /// Whether action `import` claims the current-action slot when it returns `status`.
    #[inline]
    fn claims(&self, import: ImportId, status: Status) -> bool {
        self.hw
            .claims
            .get(import.0 as usize)
            .is_some_and(|c| c.contains(status))
    }

    /// Runs a short action: it finishes in the call that starts it, so it is always entered
    /// and never holds the current-action slot; a claim on its outcome (`changeGoal`'s
    /// success) empties the slot.
    #[inline]
    fn short(&mut self, import: ImportId, args: &[Value]) -> Status {
        let call = Call::new(
            self.agent,
            import,
            Phase::Enter,
            args,
            self.now,
            &self.hw.strings,
        );
        let status = self.host.action(&call);
        if self.claims(import, status) {
            self.st.current = Long::None;
        }
        status
    }

    /// Runs long-running action `me`: continued when it holds the current-action slot. A claim
    /// on its outcome takes the slot, and a finished action leaves it empty if it held it; when
    /// it returns running its branch becomes the running list.
    #[inline]
    fn long(&mut self, me: Long, import: ImportId, args: &[Value]) -> Status {
        let phase = if self.st.current == me {
            Phase::Continue
        } else {
            Phase::Enter
        };
        let call = Call::new(self.agent, import, phase, args, self.now, &self.hw.strings);
        let status = self.host.action(&call);
        if self.claims(import, status) {
            self.st.current = me;
        }
        if status == Status::Running {
            self.st.resume = me;
        } else if self.st.current == me {
            self.st.current = Long::None;
        }
        status
    }

    // ---- the tree ------------------------------------------------------------------------

    /// The root `selector`: the first branch that does not fail decides the tick.
    fn root(&mut self) -> Status {
        let s = self.unstick();
        if s != Status::Failure {
            return s;
        }
        let s = self.survive();
        if s != Status::Failure {
            return s;
        }
        let s = self.fight();
        if s != Status::Failure {
            return s;
        }
        let s = self.supply();
        if s != Status::Failure {
            return s;
        }
        self.patrol()
    }

    /// 1. Unstick: step back and hop when the soldier has not moved for a while.
    fn unstick(&mut self) -> Status {
        let i = &self.hw.imports;
        if !(self.num(i.stuck_time, &[]) > 2000.0 && self.num(i.level_time, &[]) > 1000.0) {
            return Status::Failure;
        }
        // The sequence holds no long-running action, so it always starts at its first child.
        let s = self.short(i.reset_stuck_time, &[]);
        if s != Status::Success {
            return s;
        }
        let s = self.short(i.move_in_dir, &[MOVE_BACKWARD, MOVE_LEFT]);
        if s != Status::Success {
            return s;
        }
        // return(STATUS_SUCCESS) { jump }
        self.short(i.jump, &[]);
        Status::Success
    }

    /// 2. Survive (behavior `demo_survive`): medkit, flee, heal.
    fn survive(&mut self) -> Status {
        let i = &self.hw.imports;
        // 2a. timer(2000) { condition hurt && haveUpgrade(UP_MEDKIT) { activateUpgrade } }
        if self.now > self.st.medkit_until {
            let s = if self.num(i.percent_health, &[E_SELF]) < LOW_HEALTH
                && self.is(i.have_upgrade, &[UP_MEDKIT])
            {
                self.short(i.activate_upgrade, &[UP_MEDKIT])
            } else {
                Status::Failure
            };
            if s != Status::Failure {
                return s;
            }
            self.st.medkit_until = self.now.saturating_add(2000);
        }
        // 2b. outnumbered and the enemy close: flee
        if self.num(i.num_users_in_team, &[]) < 3.0
            && self.num(i.momentum, &[TEAM_ALIENS]) > self.num(i.momentum, &[TEAM_HUMANS])
            && self.is(i.is_visible, &[E_ENEMY])
            && self.num(i.distance_to, &[E_ENEMY]) < 600.0
        {
            let s = self.long(Long::Flee, i.flee, &[]);
            if s != Status::Failure {
                return s;
            }
        }
        // 2c. badly hurt, or hurt and out of combat: walk to the medical station, heal there
        if self.num(i.percent_health, &[E_SELF]) < CRITICAL_HEALTH
            || (self.num(i.percent_health, &[E_SELF]) < LOW_HEALTH
                && self.num(i.time_since_last_combat, &[]) > 3000.0)
        {
            // fallback: resumes at `heal` while healing runs
            if self.st.resume != Long::Heal && self.num(i.distance_to, &[E_H_MEDISTAT]) > 200.0 {
                let s = self.long(
                    Long::MoveToMedistat,
                    i.move_to,
                    &[E_H_MEDISTAT, Value::Int(150)],
                );
                if s != Status::Failure {
                    return s;
                }
            }
            return self.long(Long::Heal, i.heal, &[]);
        }
        Status::Failure
    }

    /// 3. Fight what the soldier sees.
    fn fight(&mut self) -> Status {
        let i = &self.hw.imports;
        if !(self.is(i.alerted_to_enemy, &[])
            || (self.is(i.is_visible, &[E_ENEMY]) && self.num(i.distance_to, &[E_ENEMY]) < 900.0))
        {
            return Status::Failure;
        }
        // fallback: resumes at the child holding the listed action
        let resume = self.st.resume;
        if resume != Long::CloseIn {
            // 3a. an empty clip first
            if resume != Long::Fight
                && self.num(i.percent_ammo_clip, &[]) <= 0.0
                && self.num(i.percent_clips, &[]) > 0.0
            {
                let s = self.short(i.reload, &[]);
                if s != Status::Failure {
                    return s;
                }
            }
            // 3b. in range: attack
            let s = self.attack();
            if s != Status::Failure {
                return s;
            }
        }
        // 3c. seen but out of range: close in while healthy enough
        if self.is(i.is_visible, &[E_ENEMY])
            && self.num(i.distance_to, &[E_ENEMY]) > 300.0
            && self.num(i.percent_health, &[E_SELF]) >= 0.5
        {
            // sequence: resumes at `moveToGoal` while it runs
            if self.st.resume != Long::CloseIn {
                let s = self.short(i.change_goal, &[E_ENEMY]);
                if s != Status::Success {
                    return s;
                }
            }
            return self.long(Long::CloseIn, i.move_to_goal, &[]);
        }
        Status::Failure
    }

    /// 3b. The attack sequence: goal, range check, then aim, dodge and fire concurrently.
    fn attack(&mut self) -> Status {
        let i = &self.hw.imports;
        // sequence: resumes at `concurrent` while `fight` runs
        if self.st.resume != Long::Fight {
            let s = self.short(i.change_goal, &[E_ENEMY]);
            if s != Status::Success {
                return s;
            }
            let in_range = self.is(i.in_attack_range, &[E_ENEMY]) && !self.is(i.goal_is_dead, &[]);
            if !in_range {
                return Status::Failure;
            }
        }
        // concurrent: stops at the first failure; succeeds when all three do
        if self.short(i.aim_at_goal, &[]) == Status::Failure {
            return Status::Failure;
        }
        // return(STATUS_SUCCESS) { timer(800) { condition … { strafeDodge } } }
        if self.now > self.st.dodge_until {
            let s = if self.num(i.skill, &[]) >= 5.0 || self.num(i.distance_to, &[E_ENEMY]) < 300.0
            {
                self.short(i.strafe_dodge, &[])
            } else {
                Status::Failure
            };
            if s == Status::Failure {
                self.st.dodge_until = self.now.saturating_add(800);
            }
        }
        self.long(Long::Fight, i.fight, &[])
    }

    /// 4. Supply (behavior `demo_supply`): reload, shop, repair.
    fn supply(&mut self) -> Status {
        let i = &self.hw.imports;
        // 4a. top up a half-empty clip between fights
        if self.num(i.percent_ammo_clip, &[]) < 0.5
            && self.num(i.percent_clips, &[]) > 0.0
            && self.num(i.time_since_last_combat, &[]) > 1500.0
        {
            let s = self.short(i.reload, &[]);
            if s != Status::Failure {
                return s;
            }
        }
        // 4b. shop at the armoury
        let s = self.shop();
        if s != Status::Failure {
            return s;
        }
        // 4c. engineers repair the base
        self.repair()
    }

    /// 4b. The shopping sequence.
    fn shop(&mut self) -> Status {
        let i = &self.hw.imports;
        use Long::{Buy, BuyPrimary, Equip, MoveToArmoury};
        // sequence: its two conditions are skipped while the trip runs
        if !matches!(self.st.resume, MoveToArmoury | Buy | BuyPrimary | Equip) {
            if self.is(i.have_weapon, &[WP_HBUILD]) {
                return Status::Failure;
            }
            let needs_kit = self.num(i.percent_clips, &[]) <= 0.0
                || !self.is(i.have_upgrade, &[UP_LIGHTARMOUR])
                || (!self.is(i.have_weapon, &[WP_LAS_GUN])
                    && self.num(i.resupply_score, &[]) > 0.5);
            if !needs_kit {
                return Status::Failure;
            }
        }
        // fallback: walk to the armoury unless already shopping
        if !matches!(self.st.resume, Buy | BuyPrimary | Equip)
            && self.num(i.distance_to, &[E_H_ARMOURY]) > 200.0
        {
            let s = self.long(
                Long::MoveToArmoury,
                i.move_to,
                &[E_H_ARMOURY, Value::Int(150)],
            );
            if s != Status::Failure {
                return s;
            }
        }
        // sequence: armour, rifle, equip; resumes at the step that runs
        let resume = self.st.resume;
        if resume != Equip {
            if resume != BuyPrimary {
                // mapStatus(S, S, R) { condition !haveUpgrade(UP_LIGHTARMOUR) { buy } }
                if !self.is(i.have_upgrade, &[UP_LIGHTARMOUR])
                    && self.long(Buy, i.buy, &[UP_LIGHTARMOUR]) == Status::Running
                {
                    return Status::Running;
                }
                // The decorator succeeded: if it was listed, the list is cleared.
                if self.st.resume == Buy {
                    self.st.resume = Long::None;
                }
            }
            // mapStatus(S, S, R) { condition !haveWeapon(WP_LAS_GUN) && cvar(…) { buyPrimary } }
            if !self.is(i.have_weapon, &[WP_LAS_GUN])
                && self.is(i.cvar, &[self.hw.buy_weapons])
                && self.long(BuyPrimary, i.buy_primary, &[WP_LAS_GUN]) == Status::Running
            {
                return Status::Running;
            }
            if self.st.resume == BuyPrimary {
                self.st.resume = Long::None;
            }
        }
        self.long(Equip, i.equip, &[])
    }

    /// 4c. The repair sequence (engineers only).
    fn repair(&mut self) -> Status {
        let i = &self.hw.imports;
        // sequence: resumes at its fallback while the repair runs
        if !matches!(self.st.resume, Long::MoveToBuilding | Long::Repair) {
            let free_engineer =
                self.is(i.have_weapon, &[WP_HBUILD]) && !self.is(i.alerted_to_enemy, &[]);
            if !free_engineer {
                return Status::Failure;
            }
            let s = self.short(i.change_goal, &[E_DAMAGEDBUILDING]);
            if s != Status::Success {
                return s;
            }
            if !self.is(i.building_is_damaged, &[]) {
                return Status::Failure;
            }
        }
        // fallback: walk up to the building, then repair; resumes at `repair` while it runs
        if self.st.resume != Long::Repair && self.num(i.distance_to, &[E_DAMAGEDBUILDING]) > 150.0 {
            let s = self.long(Long::MoveToBuilding, i.move_to_goal, &[]);
            if s != Status::Failure {
                return s;
            }
        }
        self.long(Long::Repair, i.repair, &[])
    }

    /// 5. Patrol: back to the reactor, report in, wander, roam.
    fn patrol(&mut self) -> Status {
        let i = &self.hw.imports;
        // 5a. strayed too far
        if self.num(i.distance_to, &[E_H_REACTOR]) > 1500.0 {
            let s = self.long(
                Long::MoveToReactor,
                i.move_to,
                &[E_H_REACTOR, Value::Int(400)],
            );
            if s != Status::Failure {
                return s;
            }
        }
        // 5b. report in every few seconds (its actions are short: it always starts at the top)
        if self.num(i.my_timer, &[]) >= 5000.0 {
            let s = self.report();
            if s != Status::Failure {
                return s;
            }
        }
        // 5c. timer(3000) { sequence { condition random < 0.25 && team == TEAM_HUMANS; roam } }
        if self.now > self.st.roam_until {
            let s = if self.st.resume == Long::Roam
                || (self.num(i.random, &[]) < 0.25 && self.num(i.team, &[]) == 2.0)
            {
                self.long(Long::Roam, i.roam, &[])
            } else {
                Status::Failure
            };
            if s != Status::Failure {
                return s;
            }
            self.st.roam_until = self.now.saturating_add(3000);
        }
        // 5d. roam around the reactor
        self.long(
            Long::RoamInRadius,
            i.roam_in_radius,
            &[E_H_REACTOR, Value::Int(600)],
        )
    }

    /// 5b. The report sequence.
    fn report(&mut self) -> Status {
        let i = &self.hw.imports;
        let s = self.short(i.reset_my_timer, &[]);
        if s != Status::Success {
            return s;
        }
        let s = self.short(i.blackboard_note_transient, &[Value::Int(1)]);
        if s != Status::Success {
            return s;
        }
        // invert() { invert() { gesture } }
        self.short(i.gesture, &[])
    }
}
