//! The built-in profiles hold what the original sources define (entries checked one by one
//! against Unvanquished `b11fa748` and `spec/mbt.md` 1.4), user profiles replace or extend them,
//! and the suggestion search stays bounded.

use std::path::Path;

use btvm::{ImportKind, Limits, SlotClaims};

use super::{closest, MbtNode, Profile};
use crate::source::SourceMap;

fn user(text: &str) -> Profile {
    let mut sources = SourceMap::new();
    Profile::from_toml(
        text,
        Path::new("game.toml"),
        &Limits::default(),
        &mut sources,
    )
    .unwrap_or_else(|e| panic!("{:?}", e[0].message))
}

#[test]
fn the_unvanquished_profile_holds_the_games_entries() {
    let p = Profile::builtin("unvanquished").expect("the built-in file parses");
    assert_eq!(p.name(), "unvanquished");
    let v = p.unvanquished().unwrap();
    assert_eq!(
        (v.actions().len(), v.functions().len(), v.symbols().len()),
        (36, 40, 73)
    );
    // sg_bot_parse.cpp's action table: `buy` takes 1 to 4 parameters; sg_bot_ai.cpp:
    // BotActionBuy sets currentNode once its early checks pass (claims on entry).
    let buy = v.action("BUY").unwrap();
    assert_eq!(
        (buy.name.as_str(), buy.min_args, buy.max_args),
        ("buy", 1, 4)
    );
    assert!(buy.long_running);
    assert_eq!(buy.claims, SlotClaims::SUCCESS.union(SlotClaims::RUNNING));
    // BotActionFight sets currentNode only on the path returning running.
    assert_eq!(v.action("fight").unwrap().claims, SlotClaims::RUNNING);
    // changeGoal claims on success; moveToGoal runs but never touches the slot.
    assert_eq!(v.action("changeGoal").unwrap().claims, SlotClaims::SUCCESS);
    let mtg = v.action("moveToGoal").unwrap();
    assert!(mtg.long_running && mtg.claims == SlotClaims::NONE);
    let tp = v.action("teleport").unwrap();
    assert_eq!((tp.min_args, tp.max_args, tp.long_running), (3, 3, false));
    // The function table: distanceTo(1), percentHealth(1), alertedToEnemy().
    assert_eq!(v.function("distanceto").unwrap().arity, 1);
    assert_eq!(v.function("percentHealth").unwrap().arity, 1);
    assert_eq!(
        v.function("alertedToEnemy").unwrap().import().kind,
        ImportKind::Function
    );
    // The symbols: statuses, E_* entities, weapons (case-sensitive).
    assert_eq!(v.symbol("STATUS_RUNNING"), Some(2));
    assert_eq!(v.symbol("E_ENEMY"), Some(18));
    assert_eq!(v.symbol("E_SELF"), Some(22));
    assert_eq!(v.symbol("WP_HBUILD"), Some(22));
    assert_eq!(v.symbol("SAY_AREA_TEAM"), Some(5));
    assert_eq!(v.symbol("e_self"), None);
    assert!(
        v.action("spawnAs").is_none(),
        "spawnAs is a node of the dialect"
    );
    assert!(p.mbt().is_none());
}

#[test]
fn the_gamesdk_profile_holds_the_registered_nodes() {
    let p = Profile::builtin("gamesdk").expect("the built-in file parses");
    let n = p.mbt().unwrap();
    assert!(n.lenient);
    assert_eq!(n.tags().count(), 39);
    assert_eq!(n.lookup("Move"), Some(MbtNode::Leaf));
    assert_eq!(n.lookup("FlyForceAttentionTarget"), Some(MbtNode::Leaf));
    assert_eq!(n.lookup("SmartObjectStatesWrapper"), Some(MbtNode::Wrapper));
    assert_eq!(n.lookup("move"), None);
    assert!(p.unvanquished().is_none());
    assert_eq!(Profile::builtin("quake"), None);
}

#[test]
fn a_section_replaces_the_builtin_vocabulary_unless_the_file_extends_it() {
    let text = "[unvanquished.actions]\nopenDoor = { args = [1, 2], long_running = true }\n";
    let alone = user(text);
    assert_eq!(alone.name(), "game");
    let v = alone.unvanquished().unwrap();
    assert!(v.action("opendoor").is_some());
    assert!(v.action("roam").is_none() && v.symbol("E_ENEMY").is_none());
    let more = user(&format!(
        "name = \"mygame\"\nextends = \"unvanquished\"\n{text}"
    ));
    assert_eq!(more.name(), "mygame");
    let v = more.unvanquished().unwrap();
    assert!(v.action("openDoor").is_some() && v.action("roam").is_some());
    assert_eq!(v.symbol("E_ENEMY"), Some(18));
    assert_eq!(v.actions().len(), 37);
}

#[test]
fn suggestions_find_typos_only_and_are_bounded() {
    let p = Profile::builtin("unvanquished").unwrap();
    let v = p.unvanquished().unwrap();
    let names = || v.actions().iter().map(|a| a.name.as_str());
    assert_eq!(closest("teleprot", names()), Some("teleport"));
    assert_eq!(closest("roamm", names()), Some("roam"));
    assert_eq!(closest("dance", names()), None);
    let long = "teleport".repeat(100);
    assert_eq!(closest(&long, names()), None);
}
