//! Hot reload into changed trees, every dialect (issue 26 item 5, `btvm::Reload`).
//!
//! - **An unrelated branch added.** Each example has a version 2 (`spec/examples/reload/`, the
//!   BST one next to its blocks in `spec/examples/grunt/`) with one branch added *before* the
//!   running branches, which never runs under the example's scenario and calls nothing (each
//!   file's header says why, from the dialect's spec). Such a branch changes no step of any
//!   tick, so a run reloaded from the example into its version 2 at any tick must print
//!   exactly the uninterrupted run's trace; and since no identity key changes, every node the
//!   old state showed active is kept (same key in the new table), none reset.
//! - **The running branch removed** (MBT and Drag\[en\]gine, version 3): what the spec says
//!   happens to the running nodes that are gone, with the expected lines reasoned from the
//!   tree, the scenario and the spec (comments at each test), never pasted from a run.

mod reload_support;

use btvm::{Carried, Program, Snapshot};
use btvm_compiler::ir::Tree;
use btvm_compiler::load::Profile;
use btvm_compiler::scenario::{run_session, EngineKind, SaveFormat, Saved, Scenario, Session};
use reload_support::{examples, load_spec, load_tree, program, reload_run, scenario_text};

/// Each example's version 2 (the example's tree, scenario and profile are `examples()`'s).
fn version2(tree: &str) -> &'static str {
    match tree {
        "examples/figure1.spore" => "examples/reload/figure1_v2.spore",
        "examples/guard.bt" => "examples/reload/guard_v2.bt",
        "examples/wanderer/wanderer.debt" => "examples/wanderer/wanderer_v2.debt",
        "examples/squad_soldier.xml" => "examples/reload/squad_soldier_v2.xml",
        "examples/grunt/grunt.xml" => "examples/grunt/grunt_v2.xml",
        "examples/human_soldier.xml" => "examples/reload/human_soldier_v2.xml",
        other => panic!("no version 2 of {other}"),
    }
}

/// The old program's agents as saved before tick `at` of an uninterrupted run.
fn saved_agents(old: &Tree, scn: &Scenario, at: u32) -> Vec<Vec<u8>> {
    let save = Session {
        save_at: Some(at),
        save_format: Some(SaveFormat::Btvm),
        ..Session::default()
    };
    let run = run_session(old, scn, EngineKind::Vm, &save).expect("the old tree runs");
    let Some(Saved::Btvm(bytes)) = run.saved else {
        panic!("nothing saved at tick {at}")
    };
    let p = program(old).expect("the old tree lowers");
    let snap = Snapshot::decode(&bytes, &p, &btvm::Limits::default()).expect("a snapshot");
    snap.agents.into_iter().map(|a| a.state).collect()
}

/// Every node `old_state` shows active (directly) is kept, under the same identity key, and
/// none is reset; an agent with a running action keeps it.
fn check_all_kept(old: &Program, new: &Program, state: &[u8], c: &Carried) -> Result<(), String> {
    if !c.reset.is_empty() {
        return Err(format!("reset {:?}", c.reset));
    }
    let active: Vec<_> = old
        .active_path(state)
        .into_iter()
        .filter(|a| a.direct)
        .collect();
    let old_keys: Vec<&str> = active.iter().map(|a| a.info.key.as_str()).collect();
    let new_keys: Vec<&str> = c
        .kept
        .iter()
        .map(|&j| new.nodes().nodes[j as usize].key.as_str())
        .collect();
    if old_keys != new_keys {
        return Err(format!("active {old_keys:?}, kept {new_keys:?}"));
    }
    let acting = active
        .iter()
        .any(|a| matches!(a.info.kind.as_str(), "action" | "behavior"));
    if acting && c.kept.is_empty() {
        return Err("a running action was not kept".into());
    }
    Ok(())
}

/// Reloads `old` into `new` at `at` on `engines` and checks the trace and what was kept.
fn check_v2_at(
    (old, new): (&Tree, &Tree),
    scn: &Scenario,
    full: &btvm_compiler::scenario::Trace,
    at: u32,
    engines: (EngineKind, EngineKind),
) -> Result<usize, String> {
    let (joined, carried) = reload_run(old, new, scn, at, engines, true)?;
    if let Some(d) = full.diff(&joined) {
        return Err(format!("trace: {d}"));
    }
    let (po, pn) = (program(old).unwrap(), program(new).unwrap());
    let states = saved_agents(old, scn, at);
    if states.len() != carried.len() {
        return Err(format!(
            "{} agents, {} reports",
            states.len(),
            carried.len()
        ));
    }
    let mut kept = 0;
    for (k, (s, c)) in states.iter().zip(&carried).enumerate() {
        check_all_kept(&po, &pn, s, c).map_err(|e| format!("agent {k}: {e}"))?;
        kept += c.kept.len();
    }
    Ok(kept)
}

#[test]
fn every_example_reloads_into_a_version_with_an_unrelated_branch_unchanged() {
    for (tree, scenario, profile) in examples() {
        let (old, scn) = load_spec(tree, scenario, profile.clone());
        let new = load_tree(version2(tree), profile);
        let full = run_session(&old, &scn, EngineKind::Vm, &Session::default())
            .expect("the example runs")
            .trace;
        // A sanity check that the added branch is not a no-op of the loader: the programs
        // differ.
        assert_ne!(
            program(&old).unwrap().fingerprint(),
            program(&new).unwrap().fingerprint(),
            "{tree}"
        );
        let mut kept = 0;
        for at in 1..scn.ticks {
            let vm = (EngineKind::Vm, EngineKind::Vm);
            kept += check_v2_at((&old, &new), &scn, &full, at, vm)
                .unwrap_or_else(|e| panic!("{tree} reloaded at tick {at} (vm): {e}"));
        }
        // Every example has running nodes at some tick: the check above was not vacuous.
        assert!(kept > 0, "{tree}: nothing was ever kept");
        // Across engines (with the jit feature): once each way, at half time.
        let at = scn.ticks / 2;
        for pair in pairs().into_iter().skip(1) {
            check_v2_at((&old, &new), &scn, &full, at, pair)
                .unwrap_or_else(|e| panic!("{tree} reloaded at tick {at} ({pair:?}): {e}"));
        }
    }
}

/// The old node named `name` (first match) in `p`'s table.
fn node_named(p: &Program, kind: &str, name: &str) -> u32 {
    let t = p.nodes();
    (0..t.nodes.len() as u32)
        .find(|&i| {
            let n = &t.nodes[i as usize];
            n.kind == kind && n.name.as_deref() == Some(name)
        })
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The engine pairs a reload is tested on: the vm, and across the vm and native code.
fn pairs() -> Vec<(EngineKind, EngineKind)> {
    let mut out = vec![(EngineKind::Vm, EngineKind::Vm)];
    if cfg!(feature = "jit") {
        out.push((EngineKind::Native, EngineKind::Vm));
        out.push((EngineKind::Vm, EngineKind::Native));
    }
    out
}

/// The index of the line starting tick `at` in `lines`.
fn tick_start(lines: &[String], at: u32) -> usize {
    let head = format!("tick {at} ");
    lines
        .iter()
        .position(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no tick {at}"))
}

/// MBT, the running branch removed: one soldier patrols (its Move runs forever) while it
/// listens for a noise; version 3 has no patrol loop. Reloaded at tick 3, the old program's
/// terminate of the patrol makes Move's exit call (spec/mbt.md §2: terminating a running
/// action calls it with phase `exit`; §4.3 of spec/semantics.md), after a `reload` line
/// (compiler/src/scenario/reload.rs); the scenario answers Move `running`, so the exit line is
/// the running call's with `exit -> running`. From tick 3 on, the Idle Parallel ticks its
/// remaining child alone (spec/mbt.md §2, Parallel: each child is ticked in order, its calls
/// its own), so the trace is the uninterrupted one without the patrol's calls (`Move`, which
/// is all the patrol calls after tick 0), and the noise at tick 4 still makes the soldier
/// communicate. `Carried::reset` names the Move node.
#[test]
fn mbt_reload_without_the_running_patrol_exits_its_move() {
    let scn = scenario_text(
        "squad_v3.scn",
        "agents 1\nticks 7\ntime 0 250\nanswer Move = running\nanswer Communicate = running\n\
         at 4 event OnNoiseHeard\n",
    );
    let profile = Profile::builtin("gamesdk");
    let old = load_tree("examples/squad_soldier.xml", profile.clone());
    let new = load_tree("examples/reload/squad_soldier_v3.xml", profile);
    let full = run_session(&old, &scn, EngineKind::Vm, &Session::default()).unwrap();
    let lines = full.trace.lines();
    let at = 3;
    let split = tick_start(lines, at);
    let running = lines[..split]
        .iter()
        .rev()
        .find(|l| l.starts_with("Move("))
        .expect("Move runs before the reload");
    let call = running
        .rsplit_once(") ")
        .map(|(c, _)| format!("{c})"))
        .unwrap();
    let mut expected: Vec<String> = lines[..split].to_vec();
    expected.push("reload".into());
    expected.push(format!("{call} exit -> running"));
    expected.extend(
        lines[split..]
            .iter()
            .filter(|l| !l.starts_with("Move("))
            .cloned(),
    );
    // The old run goes on patrolling and communicates after the noise: the filter above
    // removes something, and what stays is not only tick lines.
    assert!(lines[split..].iter().any(|l| l.starts_with("Move(")));
    assert!(lines[split..].iter().any(|l| l.starts_with("Communicate(")));
    let move_node = node_named(&program(&old).unwrap(), "action", "Move");
    let listener = node_named(&program(&new).unwrap(), "waitevent", "OnNoiseHeard");
    for pair in pairs() {
        let (joined, carried) = reload_run(&old, &new, &scn, at, pair, false).unwrap();
        assert_eq!(joined.lines(), &expected[..], "{pair:?}");
        assert_eq!(carried.len(), 1);
        // Only Move is lost; the noise listener (its branch unchanged) keeps running.
        assert_eq!(carried[0].reset, [move_node], "{pair:?}");
        assert!(
            carried[0].kept.contains(&listener),
            "{pair:?}: {:?}",
            carried[0].kept
        );
    }
}

/// Drag[en]gine, the running branch removed: before tick 14 the wanderer flees (the enemy is
/// near from tick 12, so the root choice enters wanderer.flee, whose first rule
/// wanderer.flee.run calls move.to away, answered running until tick 14): the cursor is on
/// wanderer.flee.run. Version 3 has no flee branch, so the carried cursor names no rule: a
/// context with no current rule (spec/semantics.md §4.2: FLAG_NO_RULE, a rule id the tree
/// lacks reads back as a null rule). Its next step fails and stops the tree: tick 14 prints
/// `root failure` and no call, every later tick `stopped`. The model makes no call when a rule
/// is abandoned (`abort abandon`, §6.2), so there is no `reload` line. `Carried::reset` names
/// what the old state showed active (the rule and its action) and nothing is kept.
#[test]
fn dragengine_reload_without_the_running_rule_stops_the_tree() {
    let (old, scn) = load_spec(
        "examples/wanderer/wanderer.debt",
        "examples/wanderer/wanderer.scn",
        None,
    );
    let new = load_tree("examples/wanderer/wanderer_v3.debt", None);
    let full = run_session(&old, &scn, EngineKind::Vm, &Session::default()).unwrap();
    let lines = full.trace.lines();
    let at = 14;
    let split = tick_start(lines, at);
    let p = program(&old).unwrap();
    let run = node_named(&p, "guard", "wanderer.flee.run");
    // The premise: at tick 14 the cursor is on wanderer.flee.run (the rule, and under its
    // guard the action it runs).
    let state = &saved_agents(&old, &scn, at)[0];
    let direct: Vec<u32> = p
        .active_path(state)
        .iter()
        .filter(|a| a.direct)
        .map(|a| a.index)
        .collect();
    assert_eq!(direct.first(), Some(&run), "{direct:?}");
    assert!(direct
        .iter()
        .skip(1)
        .all(|&i| p.nodes().nodes[i as usize].parent == Some(run)));
    let mut expected: Vec<String> = lines[..split].to_vec();
    for (k, head) in lines[split..]
        .iter()
        .filter(|l| l.starts_with("tick "))
        .enumerate()
    {
        expected.push(head.clone());
        expected.push(if k == 0 { "root failure" } else { "stopped" }.into());
    }
    assert!(expected.len() > split + 2, "ticks after the reload");
    for pair in pairs() {
        let (joined, carried) = reload_run(&old, &new, &scn, at, pair, false).unwrap();
        assert_eq!(joined.lines(), &expected[..], "{pair:?}");
        assert_eq!(carried.len(), 1);
        assert_eq!(carried[0].reset, direct, "{pair:?}");
        assert!(carried[0].kept.is_empty(), "{pair:?}");
    }
}
