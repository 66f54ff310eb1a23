//! Hot reload, every dialect (`btvm::Reload`, `spec/bytecode.md` §5.2).
//!
//! - Every case tree of `spec/cases/` and every example runs to half its ticks, is carried
//!   node by node (`Reload::cell_by_cell`, no byte-for-byte shortcut) into the same tree's
//!   program, and goes on: the two halves must equal the uninterrupted run. A cell missing from
//!   a model's cell list, or carried wrongly, shows up as a different trace.
//! - Every program's cells cover every byte of its state and never overlap (except the cells
//!   under different overlaid children of one state machine or priority), and the node
//!   table's children are the IR's children in order (child indices are carried by them).
//!
//! `BTVM_CASE=substr` filters. Answers that count calls are dropped from the scenarios, as
//! in `snapshot_resume.rs` (the scripted host's counters are the game's, not the agent's).

mod reload_support;
use reload_support::{case_trees, every_case, examples, load_spec, program, reload_run};

use btvm::program::CellKind;
use btvm_compiler::ir::Tree;
use btvm_compiler::scenario::{run_session, EngineKind, Scenario, Session};

/// Runs `tree` whole and reloaded into itself at half time; `Ok(false)`: it does not run on
/// the vm.
fn check_self(tree: &Tree, scn: &Scenario) -> Result<bool, String> {
    let Ok(full) = run_session(tree, scn, EngineKind::Vm, &Session::default()) else {
        return Ok(false);
    };
    let at = scn.ticks / 2;
    let mut pairs = vec![(EngineKind::Vm, EngineKind::Vm)];
    if cfg!(feature = "jit") {
        pairs.push((EngineKind::Native, EngineKind::Vm));
    }
    for pair in pairs {
        let (joined, carried) = reload_run(tree, tree, scn, at, pair, true)?;
        if let Some(d) = full.trace.diff(&joined) {
            return Err(format!("reloaded at tick {at} ({pair:?}): {d}"));
        }
        if let Some(c) = carried.iter().find(|c| !c.reset.is_empty()) {
            return Err(format!("reloading the same tree reset nodes {:?}", c.reset));
        }
    }
    Ok(true)
}

/// The overlays on node `n` and its ancestors: (field offset, value).
fn overlay_path(t: &btvm::program::NodeTable, mut n: Option<u32>) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    while let Some(i) = n {
        if let Some(o) = t.overlays.iter().find(|o| o.node == i) {
            out.push((o.field.offset, o.value));
        }
        n = t.nodes[i as usize].parent;
    }
    out
}

/// Whether the cells of nodes `a` and `b` are never meaningful together: both lie under
/// overlaid children of one node, different ones (`spec/bytecode.md` §3).
fn exclusive(t: &btvm::program::NodeTable, a: Option<u32>, b: Option<u32>) -> bool {
    let (pa, pb) = (overlay_path(t, a), overlay_path(t, b));
    pa.iter()
        .any(|&(f, v)| pb.iter().any(|&(g, w)| f == g && v != w))
}

/// Every state byte is in some cell, no bit in two unless their nodes are overlaid siblings'
/// (or under them); table children are the IR's, in order.
fn check_cells(tree: &Tree) -> Result<(), String> {
    let Some(p) = program(tree) else {
        return Ok(());
    };
    let t = p.nodes();
    if t.is_empty() {
        return Ok(());
    }
    let mut owner: Vec<Vec<usize>> = vec![Vec::new(); p.state_size() * 8];
    for (k, c) in t.cells.iter().enumerate() {
        for b in c.bit..c.bit + c.bits {
            let Some(o) = owner.get_mut(b as usize) else {
                return Err(format!("cell {c:?} past the state"));
            };
            if let Some(&j) = o.iter().find(|&&j| !exclusive(t, t.cells[j].node, c.node)) {
                return Err(format!("bit {b} in cells {:?} and {:?}", t.cells[j], c));
            }
            o.push(k);
        }
        if matches!(c.kind, CellKind::Child { .. } | CellKind::Children) && c.node.is_none() {
            return Err(format!("a child cell of no node: {c:?}"));
        }
    }
    for byte in 0..p.state_size() {
        if owner[byte * 8..byte * 8 + 8].iter().all(Vec::is_empty) {
            return Err(format!(
                "state byte {byte} of {} is in no cell",
                p.state_size()
            ));
        }
    }
    for (i, node) in tree.nodes.iter().enumerate() {
        let kids: Vec<u32> = (0..t.nodes.len() as u32)
            .filter(|&k| t.nodes[k as usize].parent == Some(i as u32))
            .collect();
        let ir: Vec<u32> = node.children.iter().map(|c| c.0).collect();
        if kids != ir {
            return Err(format!(
                "node {i}: table children {kids:?}, IR children {ir:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_case_tree_reloads_into_itself_cell_by_cell() {
    let bad_cells: Vec<String> = case_trees()
        .iter()
        .filter_map(|(path, tree, _)| {
            Some(format!("{}: {}", path.display(), check_cells(tree).err()?))
        })
        .collect();
    assert!(bad_cells.is_empty(), "{}", bad_cells.join("\n"));
    every_case("reloaded", |tree, scn| match scn.ticks >= 2 {
        true => check_self(tree, scn),
        false => Ok(false),
    });
}

#[test]
fn every_example_reloads_into_itself_cell_by_cell() {
    for (tree, scenario, profile) in examples() {
        let (loaded, scn) = load_spec(tree, scenario, profile);
        assert_eq!(check_cells(&loaded), Ok(()), "{tree}");
        assert_eq!(check_self(&loaded, &scn), Ok(true), "{tree}");
    }
}
