//! The built-in Unvanquished game profile: what the game's bot code defines for `.bt` files.
//!
//! - [`SYMBOLS`]: the integer macros the game defines before reading any `.bt` file
//!   (`STATUS_*`, `TEAM_*`, `E_*`, `UP_*`, `WP_*`, `PCL_*`, `MOVE_*`, `SAY_*`, `ET_*`). Their values
//!   are an ABI: trees compare them with `==` against what the game's functions return.
//! - [`ACTIONS`]: the action table (name, parameter range, whether it can return running).
//! - [`FUNCTIONS`]: the condition-function table (name, exact parameter count).
//! - [`DECORATORS`]: the decorator table (name, parameter range).
//!
//! Action, function and decorator names are matched case-insensitively, as the game does; the
//! imports a tree gets always carry the game's spelling from these tables. Symbol (macro) names
//! are case-sensitive.
//!
//! This file only holds data and lookups: it never parses and never builds nodes.

use btvm::{Import, ImportKind, SlotClaims};

/// A predefined integer symbol (an object-like macro expanding to its value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The macro name (case-sensitive).
    pub name: &'static str,
    /// Its value.
    pub value: i32,
}

/// An action of the game's action table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionDef {
    /// The game's spelling.
    pub name: &'static str,
    /// Fewest parameters.
    pub min_args: u8,
    /// Most parameters.
    pub max_args: u8,
    /// Whether the action can return running (the game's long-running actions).
    pub long_running: bool,
    /// When the action claims the current-action slot itself (see [`ACTIONS`]).
    pub claims: SlotClaims,
}

impl ActionDef {
    /// The import a tree calling this action gets.
    pub fn import(&self) -> Import {
        Import {
            name: self.name.to_string(),
            kind: ImportKind::Action,
            min_args: self.min_args,
            max_args: self.max_args,
            long_running: self.long_running,
            claims: self.claims,
            script: None,
        }
    }
}

/// A condition function of the game's function table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionDef {
    /// The game's spelling.
    pub name: &'static str,
    /// The exact number of parameters.
    pub arity: u8,
}

impl FunctionDef {
    /// The import a tree calling this function gets.
    pub fn import(&self) -> Import {
        Import {
            name: self.name.to_string(),
            kind: ImportKind::Function,
            min_args: self.arity,
            max_args: self.arity,
            long_running: false,
            claims: btvm::SlotClaims::default(),
            script: None,
        }
    }
}

/// Which decorator a [`DecoratorDef`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecoratorKind {
    /// `invert()`: swaps success and failure.
    Invert,
    /// `mapStatus(onFailure, onSuccess, onRunning)`.
    MapStatus,
    /// `return(status)`: runs the child, returns the constant.
    Return,
    /// `timer(ms)`: a cooldown armed when the child fails.
    Timer,
}

/// A decorator of the game's decorator table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoratorDef {
    /// The game's spelling.
    pub name: &'static str,
    /// Which decorator.
    pub kind: DecoratorKind,
    /// Fewest parameters.
    pub min_args: u8,
    /// Most parameters.
    pub max_args: u8,
}

const fn sym(name: &'static str, value: i32) -> Symbol {
    Symbol { name, value }
}

/// The predefined symbols, grouped as the game defines them.
///
/// `ET_BUILDABLE` and `ET_PLAYER` are ordinals of the Daemon engine's `entityType_t`, which is
/// not part of the game repository the rest of this table was read from. The values used here
/// (`ET_GENERAL` = 0, `ET_PLAYER` = 1, `ET_ITEM` = 2, `ET_BUILDABLE` = 3) follow that enum's
/// order as found in engine sources; they are **unverified** against the exact engine revision.
pub const SYMBOLS: &[Symbol] = &[
    // node statuses
    sym("STATUS_FAILURE", 0),
    sym("STATUS_SUCCESS", 1),
    sym("STATUS_RUNNING", 2),
    // teams
    sym("TEAM_NONE", 0),
    sym("TEAM_ALIENS", 1),
    sym("TEAM_HUMANS", 2),
    // entities a bot can refer to (buildables, then the special targets)
    sym("E_NONE", 0),
    sym("E_A_SPAWN", 1),
    sym("E_A_OVERMIND", 2),
    sym("E_A_BARRICADE", 3),
    sym("E_A_ACIDTUBE", 4),
    sym("E_A_TRAPPER", 5),
    sym("E_A_BOOSTER", 6),
    sym("E_A_HIVE", 7),
    sym("E_A_LEECH", 8),
    sym("E_A_SPIKER", 9),
    sym("E_H_SPAWN", 10),
    sym("E_H_MGTURRET", 11),
    sym("E_H_ROCKETPOD", 12),
    sym("E_H_ARMOURY", 13),
    sym("E_H_MEDISTAT", 14),
    sym("E_H_DRILL", 15),
    sym("E_H_REACTOR", 16),
    sym("E_GOAL", 17),
    sym("E_ENEMY", 18),
    sym("E_DAMAGEDBUILDING", 19),
    sym("E_FRIENDLYBUILDING", 20),
    sym("E_ENEMYBUILDING", 21),
    sym("E_SELF", 22),
    // upgrades
    sym("UP_LIGHTARMOUR", 1),
    sym("UP_MEDIUMARMOUR", 2),
    sym("UP_BATTLESUIT", 3),
    sym("UP_RADAR", 4),
    sym("UP_JETPACK", 5),
    sym("UP_GRENADE", 6),
    sym("UP_FIREBOMB", 7),
    sym("UP_MEDKIT", 8),
    // weapons (only these are exported to trees)
    sym("WP_MACHINEGUN", 9),
    sym("WP_PAIN_SAW", 10),
    sym("WP_SHOTGUN", 11),
    sym("WP_LAS_GUN", 12),
    sym("WP_MASS_DRIVER", 13),
    sym("WP_CHAINGUN", 14),
    sym("WP_FLAMER", 15),
    sym("WP_PULSE_RIFLE", 16),
    sym("WP_LUCIFER_CANNON", 17),
    sym("WP_ABUILD", 20),
    sym("WP_ABUILD2", 21),
    sym("WP_HBUILD", 22),
    // player classes
    sym("PCL_NONE", 0),
    sym("PCL_ALIEN_BUILDER0", 1),
    sym("PCL_ALIEN_BUILDER0_UPG", 2),
    sym("PCL_ALIEN_LEVEL0", 3),
    sym("PCL_ALIEN_LEVEL1", 4),
    sym("PCL_ALIEN_LEVEL2", 5),
    sym("PCL_ALIEN_LEVEL2_UPG", 6),
    sym("PCL_ALIEN_LEVEL3", 7),
    sym("PCL_ALIEN_LEVEL3_UPG", 8),
    sym("PCL_ALIEN_LEVEL4", 9),
    sym("PCL_HUMAN_NAKED", 10),
    sym("PCL_HUMAN_LIGHT", 11),
    sym("PCL_HUMAN_MEDIUM", 12),
    sym("PCL_HUMAN_BSUIT", 13),
    // movement directions (bit flags)
    sym("MOVE_FORWARD", 1),
    sym("MOVE_BACKWARD", 2),
    sym("MOVE_LEFT", 4),
    sym("MOVE_RIGHT", 8),
    // entity types (unverified ordinals, see above)
    sym("ET_PLAYER", 1),
    sym("ET_BUILDABLE", 3),
    // chat modes
    sym("SAY_ALL", 0),
    sym("SAY_TEAM", 1),
    sym("SAY_AREA", 4),
    sym("SAY_AREA_TEAM", 5),
];

const fn act(name: &'static str, min_args: u8, max_args: u8, long_running: bool) -> ActionDef {
    ActionDef {
        name,
        min_args,
        max_args,
        long_running,
        claims: SlotClaims::NONE,
    }
}

impl ActionDef {
    /// The same action with these slot claims.
    const fn claiming(self, claims: SlotClaims) -> Self {
        ActionDef { claims, ..self }
    }
}

/// Claims the slot on entry, before its outcome is known: the entry call claims unless it fails
/// (every such action's entry path has failure exits before the claim, and a failure after it
/// leaves the slot empty either way only if it was this action's: btvm reads a failed entry as
/// the early exit, **Definition**, `spec/semantics.md` 4.1).
const ON_ENTRY: SlotClaims = SlotClaims::SUCCESS.union(SlotClaims::RUNNING);
/// Claims only on the entry path that keeps running.
const WHEN_RUNNING: SlotClaims = SlotClaims::RUNNING;

/// The action table, in the game's (case-insensitive alphabetical) order.
///
/// `long_running` marks the actions the game implements as able to return running. `evolve`
/// lives in a file the research did not check; it is marked as not long-running.
///
/// `claims` is where each action sets `botMind->currentNode` itself (`src/sgame/sg_bot_ai.cpp`
/// at Unvanquished commit `b11fa74849effcf00357665ae172cbc51c9d13fc`): `roam`, `flee`,
/// `roamInRadius`, `stayHere`, `follow`, `heal`, `repair`, `extinguishFire`, `buy`, `equip`
/// (`BotActionBuy`) and `buyPrimary` claim on entry once their early checks pass; `fight`,
/// `moveTo` and `rush` claim on the entry path that returns running; `changeGoal` claims on
/// every success; every other action never touches the slot (so `moveToGoal`, which can run,
/// is entered on every call).
pub const ACTIONS: &[ActionDef] = &[
    act("activateUpgrade", 1, 1, false),
    act("aimAtGoal", 0, 0, false),
    act("alternateStrafe", 0, 0, false),
    act("blackboardNoteTransient", 1, 1, false),
    act("buildNowChosenBuildable", 0, 0, false),
    act("buy", 1, 4, true).claiming(ON_ENTRY),
    act("buyPrimary", 1, 1, true).claiming(ON_ENTRY),
    act("changeGoal", 1, 3, false).claiming(SlotClaims::SUCCESS),
    act("classDodge", 0, 0, false),
    act("deactivateUpgrade", 1, 1, false),
    act("equip", 0, 0, true).claiming(ON_ENTRY),
    act("evolve", 0, 0, false),
    act("evolveTo", 1, 1, false),
    act("extinguishFire", 0, 0, true).claiming(ON_ENTRY),
    act("fight", 0, 0, true).claiming(WHEN_RUNNING),
    act("fireWeapon", 0, 0, false),
    act("flee", 0, 0, true).claiming(ON_ENTRY),
    act("follow", 1, 1, true).claiming(ON_ENTRY),
    act("gesture", 0, 0, false),
    act("heal", 0, 0, true).claiming(ON_ENTRY),
    act("jump", 0, 0, false),
    act("moveInDir", 1, 2, false),
    act("moveTo", 1, 2, true).claiming(WHEN_RUNNING),
    act("moveToGoal", 0, 0, true),
    act("reload", 0, 0, false),
    act("repair", 0, 0, true).claiming(ON_ENTRY),
    act("resetMyTimer", 0, 0, false),
    act("resetStuckTime", 0, 0, false),
    act("roam", 0, 0, true).claiming(ON_ENTRY),
    act("roamInRadius", 2, 2, true).claiming(ON_ENTRY),
    act("rush", 0, 0, true).claiming(WHEN_RUNNING),
    act("say", 1, 2, false),
    act("stayHere", 1, 1, true).claiming(ON_ENTRY),
    act("strafeDodge", 0, 0, false),
    act("suicide", 0, 0, false),
    act("teleport", 3, 3, false),
];

/// The host action a `spawnAs N` node calls: `spawnAs(N)`.
pub const SPAWN_AS: ActionDef = act("spawnAs", 1, 1, false);

const fn func(name: &'static str, arity: u8) -> FunctionDef {
    FunctionDef { name, arity }
}

/// The condition-function table, in the game's (case-insensitive alphabetical) order.
pub const FUNCTIONS: &[FunctionDef] = &[
    func("alertedToEnemy", 0),
    func("aliveTime", 0),
    func("baseRushScore", 0),
    func("blackboardNumTransient", 1),
    func("buildingIsBurning", 0),
    func("buildingIsDamaged", 0),
    func("canEvolveTo", 1),
    func("chosenBuildableCost", 0),
    func("class", 0),
    func("cvar", 1),
    func("directPathTo", 1),
    func("distanceTo", 1),
    func("distanceToSpecifiedPosition", 0),
    func("goalBuildingType", 0),
    func("goalIsDead", 0),
    func("goalTeam", 0),
    func("goalType", 0),
    func("haveUpgrade", 1),
    func("haveWeapon", 1),
    func("healScore", 0),
    func("inAttackRange", 1),
    func("isVisible", 1),
    func("levelTime", 0),
    func("matchTime", 0),
    func("momentum", 1),
    func("myTimer", 0),
    func("numOurBuildings", 1),
    func("numUsersInTeam", 0),
    func("percentAmmoClip", 0),
    func("percentClips", 0),
    func("percentHealth", 1),
    func("random", 0),
    func("resupplyScore", 0),
    func("skill", 0),
    func("stuckTime", 0),
    func("team", 0),
    func("teamateHasWeapon", 1),
    func("timeSinceLastCombat", 0),
    func("usableBuildPoints", 0),
    func("weapon", 0),
];

/// The decorator table.
pub const DECORATORS: &[DecoratorDef] = &[
    DecoratorDef {
        name: "invert",
        kind: DecoratorKind::Invert,
        min_args: 0,
        max_args: 0,
    },
    DecoratorDef {
        name: "mapStatus",
        kind: DecoratorKind::MapStatus,
        min_args: 3,
        max_args: 3,
    },
    DecoratorDef {
        name: "return",
        kind: DecoratorKind::Return,
        min_args: 1,
        max_args: 1,
    },
    DecoratorDef {
        name: "timer",
        kind: DecoratorKind::Timer,
        min_args: 1,
        max_args: 1,
    },
];

/// The value of a predefined symbol (case-sensitive).
pub fn symbol(name: &str) -> Option<i32> {
    SYMBOLS.iter().find(|s| s.name == name).map(|s| s.value)
}

/// The action called `name` (case-insensitive).
pub fn action(name: &str) -> Option<&'static ActionDef> {
    ACTIONS.iter().find(|a| a.name.eq_ignore_ascii_case(name))
}

/// The condition function called `name` (case-insensitive).
pub fn function(name: &str) -> Option<&'static FunctionDef> {
    FUNCTIONS.iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// The decorator called `name` (case-insensitive).
pub fn decorator(name: &str) -> Option<&'static DecoratorDef> {
    DECORATORS
        .iter()
        .find(|d| d.name.eq_ignore_ascii_case(name))
}

/// Names longer than this many characters get no suggestion (no known name is that long, and
/// an attacker's megabyte-long name must not cost a quadratic search).
const MAX_SUGGESTED_NAME: usize = 64;

/// Candidates examined at most for one suggestion.
const MAX_CANDIDATES: usize = 4096;

/// The candidate closest to `name` (case-insensitive edit distance), if it is close enough to
/// be a likely typo: at most 1 edit for names up to 4 characters, 2 up to 8, 3 beyond. The
/// search is bounded: no suggestion for a name over `MAX_SUGGESTED_NAME` (64) characters, only
/// candidates whose length is within the edit budget are compared, and at most
/// `MAX_CANDIDATES` (4,096) are looked at.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if name.len() > 4 * MAX_SUGGESTED_NAME {
        return None;
    }
    let len = name.chars().count();
    if len > MAX_SUGGESTED_NAME {
        return None;
    }
    let budget = match len {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let needle: Vec<char> = name.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates.into_iter().take(MAX_CANDIDATES) {
        if cand.len() > 4 * (len + budget) || cand.chars().count().abs_diff(len) > budget {
            continue;
        }
        let d = edit_distance(&needle, cand);
        if d <= budget && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance between `a` (already lower-cased) and `b` (lower-cased here).
fn edit_distance(a: &[char], b: &str) -> usize {
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_case_insensitive_and_keep_the_game_spelling() {
        assert_eq!(action("ROAMINRADIUS").unwrap().name, "roamInRadius");
        assert_eq!(function("DistanceTo").unwrap().arity, 1);
        assert_eq!(
            decorator("MAPSTATUS").unwrap().kind,
            DecoratorKind::MapStatus
        );
        assert_eq!(symbol("E_SELF"), Some(22));
        assert_eq!(symbol("e_self"), None);
    }

    #[test]
    fn tables_are_sorted_case_insensitively_and_unique() {
        fn sorted(names: Vec<&str>) -> bool {
            names
                .windows(2)
                .all(|w| w[0].to_ascii_lowercase() < w[1].to_ascii_lowercase())
        }
        assert!(sorted(ACTIONS.iter().map(|a| a.name).collect()));
        assert!(sorted(FUNCTIONS.iter().map(|f| f.name).collect()));
        assert!(sorted(DECORATORS.iter().map(|d| d.name).collect()));
        for s in SYMBOLS {
            assert_eq!(SYMBOLS.iter().filter(|t| t.name == s.name).count(), 1);
        }
        for a in ACTIONS {
            assert!(a.min_args <= a.max_args);
        }
    }

    #[test]
    fn suggestions_find_typos_only() {
        let names = || ACTIONS.iter().map(|a| a.name);
        assert_eq!(closest("teleprot", names()), Some("teleport"));
        assert_eq!(closest("roamm", names()), Some("roam"));
        assert_eq!(closest("dance", names()), None);
        // Bounded: a name far longer than any known one is not searched.
        let long = "teleport".repeat(100);
        assert_eq!(closest(&long, names()), None);
    }
}
