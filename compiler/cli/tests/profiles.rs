//! `--profile NAME|FILE`: a built-in profile by name, else a profile file (spec/profiles.md).

mod common;
use common::*;

/// A profile extending Unvanquished's with one long-running action and one function.
const MYGAME: &str = "name = \"mygame\"\nextends = \"unvanquished\"\n\n\
[unvanquished.actions]\nopenDoor = { args = [1, 2], long_running = true, claims = [\"running\"] }\n\n\
[unvanquished.functions]\ndoorIsOpen = { args = 1 }\n\n\
[unvanquished.symbols]\nDOOR_MAIN = 7\n";

/// A tree using the new vocabulary next to a built-in action.
const TREE: &str = "selector {\n  condition doorIsOpen( DOOR_MAIN )\n  \
sequence {\n    action openDoor( DOOR_MAIN )\n    action roam\n  }\n}\n";

#[test]
fn a_profile_file_declares_new_actions_and_the_trace_shows_the_call() {
    let profile = temp("mygame.toml", MYGAME);
    let tree = temp("door.bt", TREE);
    let scn = temp(
        "door.scn",
        "ticks 2\nanswer doorIsOpen(7) = 0\nanswer openDoor = running, success\n",
    );
    let out = btvm(&[
        "run",
        tree.to_str().unwrap(),
        "--profile",
        profile.to_str().unwrap(),
        "-s",
        scn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // Tick 0: the door is shut, `openDoor(7)` is entered and runs; tick 1: its slot claim
    // on running makes the second call a `continue`, which succeeds, so `roam` is entered.
    assert!(stdout.contains("openDoor(7) enter -> running"), "{stdout}");
    assert!(
        stdout.contains("openDoor(7) continue -> success"),
        "{stdout}"
    );
    assert!(stdout.contains("roam() enter"), "{stdout}");
}

#[test]
fn without_the_profile_the_new_action_is_unknown_and_the_profile_is_named() {
    let tree = temp("door2.bt", TREE);
    let out = btvm(&["check", tree.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown condition function `doorIsOpen`"),
        "{err}"
    );
    assert!(err.contains("the `unvanquished` profile"), "{err}");
}

#[test]
fn a_broken_profile_file_is_a_positioned_error() {
    let profile = temp(
        "broken.toml",
        "name = \"x\"\n[unvanquished.actions]\nfoo = { argz = 1 }\n",
    );
    let tree = temp("door3.bt", "action roam()\n");
    let out = btvm(&[
        "check",
        tree.to_str().unwrap(),
        "--profile",
        profile.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("unknown key `argz`"), "{err}");
    assert!(err.contains("broken.toml:3:9"), "{err}");
}

#[test]
fn a_missing_profile_file_names_the_path_and_a_builtin_name_is_not_a_path() {
    let tree = temp("door4.bt", "action roam()\n");
    let out = btvm(&[
        "check",
        tree.to_str().unwrap(),
        "--profile",
        "no-such-profile.toml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read profile `no-such-profile.toml`"));
    let out = btvm(&["check", tree.to_str().unwrap(), "--profile", "unvanquished"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
