//! Each expected trace below is worked out by hand from `spec/mbt.md` section 2.

use super::*;
use crate::reference::testing::expect;

/// A tree of the MBT dialect's knobs, but counting time in milliseconds (`clock 1`, so
/// durations read as the scenario's times): the header, then `body` (declarations and the
/// root).
fn mbt(body: &str) -> String {
    format!("btvm 1;\ndialect mbt;\nclock 1;\n{body}\n")
}

#[test]
fn the_clock_scales_now_where_the_tree_reads_the_time() {
    // MBT's own unit: 100 per millisecond. Hosts still see milliseconds.
    let tree = "btvm 1;\ndialect mbt;\nimport action probe 0..1 long;\n\
         timestamp Seen on \"seen\";\n\
         root main = sequence remember { wait 150 0 -> success \
         loop forever until failure { action probe(@elapsed(Seen)) } }\n";
    expect(
        tree,
        "ticks 3\ntime 0 1\nat 0 event seen\n",
        "tick 0 now 0
           root running
         # 100 units < 150
         tick 1 now 1
           root running
         tick 2 now 2
           probe(200) enter -> success
           root running",
    );
}

#[test]
fn parallel_keeps_its_counts_and_all_all_mixed_runs_forever() {
    let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
         root main = parallel success=all failure=all remember { action a() action b() }");
    expect(
        &tree,
        "ticks 3\nanswer b = running, failure\n",
        "tick 0 now 0
           a() enter -> success
           b() enter -> running
           root running
         tick 1 now 100
           b() continue -> failure
           root running
         tick 2 now 200
           root running",
    );
}

#[test]
fn parallel_ticks_every_running_child_and_terminates_the_rest_when_it_finishes() {
    let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
         import action c 0..0 long;\n\
         root main = parallel success=all failure=any remember \
         { action a() action b() action c() }");
    expect(
        &tree,
        "ticks 2\nanswer a = running\nanswer b = failure\nanswer c = running\n",
        "tick 0 now 0
           a() enter -> running
           b() enter -> failure
           c() enter -> running
           a() exit -> running
           c() exit -> running
           root failure
         tick 1 now 100
           stopped",
    );
}

#[test]
fn a_loop_restarts_a_child_that_was_running_in_the_same_tick() {
    let tree = mbt("import action a 0..0 long;\n\
         root main = loop 3 until failure { action a() }");
    // Tick 1: the child had been running, so it is restarted at once; that second status
    // is not counted. Tick 2: it had succeeded at once, so it was restarted on this tick.
    expect(
        &tree,
        "ticks 5\nanswer a = running, success\n",
        "tick 0 now 0
           a() enter -> running
           root running
         tick 1 now 100
           a() continue -> success
           a() enter -> success
           root running
         tick 2 now 200
           a() enter -> success
           root running
         tick 3 now 300
           a() enter -> success
           root success
         tick 4 now 400
           stopped",
    );
    // The restarted child's exit status ends the loop.
    let tree = mbt("import action a 0..0 long;\n\
         root main = loop 5 until failure { action a() }");
    expect(
        &tree,
        "ticks 2\nanswer a = running, success, failure\n",
        "tick 0 now 0
           a() enter -> running
           root running
         tick 1 now 100
           a() continue -> success
           a() enter -> failure
           root failure",
    );
    // A child that succeeds at once is restarted on the next tick.
    let tree = mbt("import action a 0..0 long;\n\
         root main = loop 2 until success { action a() }");
    expect(
        &tree,
        "ticks 3\nanswer a = failure\n",
        "tick 0 now 0
           a() enter -> failure
           root running
         tick 1 now 100
           a() enter -> failure
           root failure
         tick 2 now 200
           stopped",
    );
}

#[test]
fn a_forever_loop_ends_only_on_its_exit_status() {
    let tree = mbt("import action a 0..0 long;\n\
         root main = loop forever until success { action a() }");
    expect(
        &tree,
        "ticks 3\nanswer a = running, failure, running, success\n",
        "tick 0 now 0
           a() enter -> running
           root running
         tick 1 now 100
           a() continue -> failure
           a() enter -> running
           root running
         tick 2 now 200
           a() continue -> success
           root success",
    );
}

#[test]
fn priority_repicks_only_when_a_variable_changed() {
    let tree = mbt("import action hi 0..0 long;\nimport action lo 0..0 long;\n\
         import function check 0..0;\n\
         var X: bool = false;\n\
         signal \"go\" X = true;\n\
         root main = parallel success=all failure=any remember {\n\
             sequence remember { wait 200 0 -> success send \"go\" -> running }\n\
             priority on-change { case ($X) { action hi() } case (check()) { action lo() } }\n\
         }");
    expect(
        &tree,
        "ticks 7\ndefault action running\nanswer check = true\n\
         at 4 set x = false\nat 5 set X = false\n",
        "tick 0 now 0
           check() = true
           lo() enter -> running
           root running
         # no change: no re-pick
         tick 1 now 100
           lo() continue -> running
           root running
         # the send raises go earlier in this tick: X is set, the priority re-picks
         tick 2 now 200
           lo() exit -> running
           hi() enter -> running
           root running
         # X changed during the last tick: re-picked, the same case
         tick 3 now 300
           hi() continue -> running
           root running
         tick 4 now 400
           check() = true
           hi() exit -> running
           lo() enter -> running
           root running
         # setting X to the value it has changes nothing
         tick 5 now 500
           lo() continue -> running
           root running
         tick 6 now 600
           lo() continue -> running
           root running",
    );
}

#[test]
fn priority_fails_when_no_case_holds_and_terminates_its_child() {
    let tree = mbt("import action a 0..0 long;\nvar on: bool = true;\n\
         root main = priority on-change { case ($on) { action a() } }");
    expect(
        &tree,
        "ticks 3\ndefault action running\nat 1 set on = false\n",
        "tick 0 now 0
           a() enter -> running
           root running
         tick 1 now 100
           a() exit -> running
           root failure
         tick 2 now 200
           stopped",
    );
}

#[test]
fn state_machine_transitions_chain_and_restart_on_self_transitions() {
    let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
         import action c 0..0 long;\n\
         root main = statemachine {\n\
             state @\"A\" on \"e1\" -> 1 { action a() }\n\
             state @\"B\" on \"e2\" -> 2 on \"e1\" -> 0 { action b() }\n\
             state @\"C\" on \"e3\" -> 2 { action c() }\n\
         }");
    expect(
        &tree,
        "ticks 5\ndefault action running\nat 1 event e1\nat 1 event \"e2\"\n\
         at 2 event e1\nat 2 event e2\nat 3 event e3\n",
        "tick 0 now 0
           a() enter -> running
           root running
         # e1 makes B pending, e2 (looked up in B) makes C pending: one switch
         tick 1 now 100
           a() exit -> running
           c() enter -> running
           root running
         # C has no transition on e1 or e2
         tick 2 now 200
           c() continue -> running
           root running
         # a transition to the current state restarts it
         tick 3 now 300
           c() exit -> running
           c() enter -> running
           root running
         tick 4 now 400
           c() continue -> running
           root running",
    );
}

#[test]
fn an_on_entry_guard_is_evaluated_once() {
    let tree = mbt("import action a 0..0 long;\nimport function f 0..0;\n\
         root main = guard on-entry (f()) { action a() }");
    expect(
        &tree,
        "ticks 4\nanswer f = true, false\nanswer a = running, running, success\n",
        "tick 0 now 0
           f() = true
           a() enter -> running
           root running
         tick 1 now 100
           a() continue -> running
           root running
         tick 2 now 200
           a() continue -> success
           root success
         tick 3 now 300
           stopped",
    );
}

#[test]
fn wait_draws_its_variation_once_and_a_negative_duration_never_ends() {
    let tree = mbt("root main = wait 100 50 -> success");
    // The spec's draw for agent 0: min(floor(r * 51), 50) from its first random number.
    let r = btvm::Prng::for_agent(0).next_f64();
    let v = ((r * 51.0).floor() as i64).min(50);
    let end = 100 + v;
    let mut want = String::new();
    let mut k = 0;
    loop {
        let now = k * 10;
        let done = now >= end;
        want.push_str(&format!(
            "tick {k} now {now}\nroot {}\n",
            if done { "success" } else { "running" }
        ));
        if done {
            break;
        }
        k += 1;
    }
    expect(&tree, &format!("ticks {}\ntime 0 10\n", k + 1), &want);

    // A negative duration: running forever, and no draw from the PRNG.
    let text = mbt("root main = wait -5 7 -> success");
    let t =
        crate::syntax::canonical::parse(crate::source::FileId(0), &text, &btvm::Limits::default())
            .unwrap();
    let interp = Interpreter::new(&t).unwrap();
    let mut state = interp.new_agent(btvm::AgentId(0));
    let mut host = crate::reference::testing::NullHost;
    for now in [0, 1_000_000, i64::MAX] {
        assert_eq!(interp.tick(&mut state, &mut host, now), Status::Running);
    }
    assert_eq!(state.rng, btvm::Prng::for_agent(0));
    // Duration 0 succeeds on its first update.
    expect(
        &mbt("root main = wait 0 0 -> failure"),
        "ticks 1\n",
        "tick 0 now 0\nroot failure",
    );
}

#[test]
fn wait_for_event_counts_only_events_that_reach_it_while_it_is_live() {
    let tree = mbt("root main = sequence remember { wait 200 0 -> success \
                    waitevent \"ping\" -> failure }");
    expect(
        &tree,
        "ticks 5\nat 1 event ping\nat 3 event ping\n",
        "tick 0 now 0
           root running
         tick 1 now 100
           root running
         tick 2 now 200
           root running
         tick 3 now 300
           root failure
         tick 4 now 400
           stopped",
    );
    // An event sent earlier in the same tick counts.
    let tree = mbt("root main = parallel success=any failure=any remember \
                    { waitevent \"ping\" -> success send \"ping\" -> running }");
    expect(
        &tree,
        "ticks 2\n",
        "tick 0 now 0\nroot running\ntick 1 now 100\nroot success",
    );
}

#[test]
fn timestamps_are_set_by_events_and_invalidated_by_exclusive_ones() {
    let tree = mbt("import action probe 0..4 long;\n\
         timestamp Seen on \"seen\" exclusive Lost;\n\
         timestamp Lost on \"lost\" exclusive Seen;\n\
         root main = loop forever until failure \
         { action probe(@ever(Seen), @valid(Seen), @elapsed(Seen), @valid(Lost)) }");
    expect(
        &tree,
        "ticks 4\nat 1 event seen\nat 3 event lost\n",
        "tick 0 now 0
           probe(false, false, 0, false) enter -> success
           root running
         tick 1 now 100
           probe(true, true, 0, false) enter -> success
           root running
         tick 2 now 200
           probe(true, true, 100, false) enter -> success
           root running
         tick 3 now 300
           probe(true, false, 200, true) enter -> success
           root running",
    );
    // IfTime: the gate is decided at init from the timestamp.
    let tree = mbt("import action a 0..0 long;\ntimestamp T on \"t\";\n\
         root main = loop forever until failure { guard on-entry \
         (!@ever(T) || (@valid(T) && (@elapsed(T) > 150))) { action a() } }");
    expect(
        &tree,
        "ticks 4\nat 1 event t\n",
        "tick 0 now 0
           a() enter -> success
           root running
         tick 1 now 100
           root failure
         tick 2 now 200
           stopped
         tick 3 now 300
           stopped",
    );
}

#[test]
fn start_logs_come_before_init_and_end_logs_after_terminate() {
    let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
         import action c 0..0 long;\n\
         import action h 0..0 long;\nimport action x 0..0 long;\n\
         root main = sequence remember {\n\
           logstatus start \"s1\" success \"ok1\" failure \"bad1\" \
             { hooks enter action h() exit action x() { action a() } }\n\
           logstatus start \"s2\" failure \"bad\\\"2\" \
             { parallel success=all failure=any remember { action c() action b() } }\n\
           log \"never\"\n\
         }");
    expect(
        &tree,
        "ticks 2\nanswer a = running, success\nanswer b = failure\nanswer c = running\n",
        r#"tick 0 now 0
             log "s1"
             h() enter -> success
             a() enter -> running
             root running
           # the hooks node's terminate step (its exit call) comes before its success log
           tick 1 now 100
             a() continue -> success
             x() exit -> success
             log "ok1"
             log "s2"
             c() enter -> running
             b() enter -> failure
             c() exit -> running
             log "bad\"2"
             root failure"#,
    );
}

#[test]
fn an_aborted_subtree_is_terminated_innermost_first() {
    let tree = mbt("import action a 0..0 long;\nimport action f 0..0 long;\n\
         import action x1 0..0 long;\nimport function x2 1..1;\n\
         root main = parallel success=all failure=any remember {\n\
           hooks exit action x1() { sequence remember \
             { hooks exit x2(\"bye\") { action a() } } }\n\
           action f()\n\
         }");
    expect(
        &tree,
        "ticks 1\nanswer a = running\nanswer f = failure\n",
        r#"tick 0 now 0
             a() enter -> running
             f() enter -> failure
             a() exit -> running
             x2("bye") = 0
             x1() exit -> success
             root failure"#,
    );
}

#[test]
fn group_scopes_are_contended_in_agent_order_and_released_on_reset() {
    let tree = mbt("import action a 0..0 long;\nimport action b 0..0 long;\n\
         root main = loop forever until failure { selector remember \
         { groupscope \"g\" 1 { action a() } action b() } }");
    expect(
        &tree,
        "agents 2\nticks 4\ndefault action running\n\
         answer a agent 0 = running, failure\nanswer b agent 1 = success\nat 3 reset\n",
        "tick 0 now 0 agent 0
           a() enter -> running
           root running
         tick 0 now 0 agent 1
           b() enter -> success
           root running
         # agent 0 leaves the scope when a fails; agent 1 gets in
         tick 1 now 100 agent 0
           a() continue -> failure
           b() enter -> running
           root running
         tick 1 now 100 agent 1
           a() enter -> running
           root running
         tick 2 now 200 agent 0
           b() continue -> running
           root running
         tick 2 now 200 agent 1
           a() continue -> running
           root running
         # agent 1 still holds the scope when agent 0 is reset (its running b exits) and
         # ticked; agent 1's reset terminates a (exit call) and leaves the scope, so it
         # enters again
         tick 3 now 300 agent 0
           reset
           b() exit -> running
           b() enter -> running
           root running
         tick 3 now 300 agent 1
           reset
           a() exit -> running
           a() enter -> running
           root running",
    );
}

#[test]
fn events_to_a_stopped_tree_do_nothing_and_reset_restarts_it() {
    let tree = mbt("var v: bool = false;\nsignal \"s\" v = true;\n\
         root main = guard on-entry ($v) { const success }");
    let text = tree.clone();
    let t =
        crate::syntax::canonical::parse(crate::source::FileId(0), &text, &btvm::Limits::default())
            .unwrap();
    let interp = Interpreter::new(&t).unwrap();
    let mut state = interp.new_agent(btvm::AgentId(0));
    let mut host = crate::reference::testing::NullHost;
    assert_eq!(interp.tick(&mut state, &mut host, 0), Status::Failure);
    assert_eq!(state.halt(), Some(Halt::Stopped));
    interp.event(&mut state, &mut host, "s", 5);
    assert_eq!(interp.var(&state, 0), Some(false));
    interp.reset(&mut state);
    assert_eq!(state.halt(), None);
    assert!(state.changed());
    interp.event(&mut state, &mut host, "s", 5);
    assert_eq!(
        interp.var(&state, interp.var_index("V").unwrap()),
        Some(true)
    );
    assert_eq!(interp.tick(&mut state, &mut host, 10), Status::Success);
}
