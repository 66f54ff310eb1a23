//! Canonical-syntax trees of the event-driven models that several test crates run: the lifecycle
//! (MBT) and selection (BST) headers, and a tree of each model that uses every node kind.
//! Prepend a header to a tree: `format!("{HEADER_MBT}{MBT_ALL}")`.

/// The header of a lifecycle (MBT) tree.
pub const HEADER_MBT: &str = "btvm 1;\ndialect mbt;\nmodel lifecycle;\nroot-finish stop;\nabort terminate;\nprecision double;\n";
/// The header of a selection (BST) tree.
pub const HEADER_BST: &str = "btvm 1;\ndialect bst;\nmodel selection;\nroot-finish rerun;\nabort abandon;\nprecision double;\n";

/// Every lifecycle node kind: priority on change, logged parallel with loops, a drawn wait, a
/// group scope around hooks around an action, a sequence waiting for an event and sending one,
/// timestamps, a state machine with event transitions over a selector, a gate with `@random`,
/// a suppressed failure, `log`, `waituntil`, a wait that never ends.
pub const MBT_ALL: &str = r#"
import action Move 0..255 long;
import action Shoot 0..0 long;
import action Aim 0..1;
import function lua_0 0..0 script "return 1";
var alive: bool = true;
var seen: bool = false;
timestamp Seen on "EnemySeen" exclusive Lost;
timestamp Lost on "EnemyLost";
signal "EnemySeen" seen = true;
signal "EnemyLost" seen = false;
signal "Hurt" alive = !$alive;

root main = priority on-change {
    case ($seen) {
        logstatus start "fight" success "won" failure "lost" {
            parallel success=all failure=any remember {
                loop 3 until failure { action Shoot() }
                loop forever until success { wait 150 100 -> failure }
                groupscope "squad" 2 {
                    hooks enter lua_0() exit Aim(1) {
                        action Move(to="cover")
                    }
                }
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
            state @"Idle" on "Alarm" -> 1 {
                selector remember {
                    guard on-entry (@random <= 0.5) { action Move(to="patrol") }
                    map success success running { action Move(to="home") }
                }
            }
            state @"Alert" on "Calm" -> 0 on "Alarm" -> 1 {
                sequence remember {
                    log "alert"
                    waituntil (!$alive)
                    logstatus start "stuck" { wait -1 0 -> success }
                }
            }
        }
    }
}
"#;

/// Every selection node: priority with conditions and a default, nested state machines whose
/// walks chain, stop at visited states and restart at 0, a forward-only sequence, signals.
pub const BST_ALL: &str = r#"
var a: bool = false;
var b: bool = true;
var c: bool = false;
signal "A" a = !$a;
signal "B" b = !$b;
signal "C" c = $a ^^ $b;

root main = priority every-tick {
    case ($a && $c) { select "Both" }
    case (true) {
        statemachine @"sm" {
            state @"s0" when ($a) -> 1 when ($b) -> 2 {
                sequence remember {
                    case ($c) { select "C0" }
                    case (!$b) { select "NotB" }
                    case (true) { select "Rest" }
                }
            }
            state @"s1" when ($b) -> 2 when (true) -> 0 {
                statemachine {
                    state when ($c) -> 1 { select "Inner0" }
                    state when (!$c) -> 0 { select "Inner1" }
                }
            }
            state @"s2" when (!$b) -> 0 when ($c) -> 2 {
                priority every-tick {
                    case ($c) { select "Deep" }
                }
            }
        }
    }
}
"#;
