//! The reference's states as btvm state blocks (`Interpreter::export_block`,
//! `Interpreter::restore_block`, `spec/bytecode.md` §9), checked on every case tree of
//! `spec/cases/` and every example of `spec/examples/` against the vm:
//!
//! - at every tick of the scenario, the reference's exported block of every agent equals the
//!   vm's block for the same agent, but for the bytes §9 calls don't-care (`dont_care`);
//! - the vm's block imported into the reference and exported again gives the vm's block back
//!   (the same bytes compared).
//!
//! `BTVM_CASE=substr` filters.

mod reload_support;
use reload_support::{every_case, examples, load_spec};

use btvm::{AgentId, Limits, Program, Snapshot};
use btvm_compiler::ir::Tree;
use btvm_compiler::reference::{Interpreter, Scopes};
use btvm_compiler::scenario::{run_session, EngineKind, SaveFormat, Saved, Scenario, Session};

/// The agents' blocks saved on `engine` before tick `at`.
fn saved_blocks(
    tree: &Tree,
    scn: &Scenario,
    engine: EngineKind,
    at: u32,
    program: &Program,
) -> Result<Snapshot, String> {
    let session = Session {
        save_at: Some(at),
        save_format: Some(SaveFormat::Btvm),
        ..Session::default()
    };
    let out = run_session(tree, scn, engine, &session)
        .map_err(|d| format!("{} at {at}: {}", engine.name(), d.message))?;
    let Some(Saved::Btvm(bytes)) = out.saved else {
        return Err(format!("{} at {at}: nothing saved", engine.name()));
    };
    Snapshot::decode(&bytes, program, &Limits::default()).map_err(|e| e.to_string())
}

/// The program the scenario's runs use.
fn program_of(tree: &Tree, scn: &Scenario) -> Option<Program> {
    let limits = Limits::default();
    if scn.trace_nodes {
        btvm_compiler::lower::lower_traced(tree, &limits, None).ok()
    } else {
        btvm_compiler::lower::lower(tree, &limits).ok()
    }
}

/// Where two blocks differ, as text.
fn differ(what: &str, a: &[u8], b: &[u8]) -> Option<String> {
    (a != b).then(|| format!("{what}:\n  reference {a:02x?}\n  vm        {b:02x?}"))
}

/// Every tick of `scn`: the blocks agree, and the vm's block round-trips through the
/// reference. `Ok(false)`: the tree does not run on the vm.
fn check(tree: &Tree, scn: &Scenario) -> Result<bool, String> {
    let Some(program) = program_of(tree, scn) else {
        return Ok(false);
    };
    if run_session(tree, scn, EngineKind::Vm, &Session::default()).is_err() {
        return Ok(false);
    }
    let interp = Interpreter::new(tree).map_err(|d| d.message)?;
    for at in 0..=scn.ticks {
        let vm = saved_blocks(tree, scn, EngineKind::Vm, at, &program)?;
        let reference = saved_blocks(tree, scn, EngineKind::Reference, at, &program)?;
        for (r, v) in reference.agents.iter().zip(&vm.agents) {
            let mask = btvm_compiler::reference::dont_care(&program, &v.state);
            let masked =
                |b: &[u8]| -> Vec<u8> { b.iter().zip(&mask).map(|(x, m)| x & !m).collect() };
            let what = format!("agent {} before tick {at}", v.id.0);
            if let Some(d) = differ(&what, &masked(&r.state), &masked(&v.state)) {
                return Err(d);
            }
            if r.status != v.status {
                return Err(format!("{what}: status {} against {}", r.status, v.status));
            }
            let mut scopes = Scopes::new();
            let mut state = interp.new_agent(AgentId(v.id.0));
            interp
                .restore_block(&program, &mut state, &v.state, &mut scopes)
                .map_err(|e| format!("{what}: import: {e}"))?;
            let again = interp
                .export_block(&program, &state, &scopes)
                .map_err(|e| format!("{what}: export: {e}"))?;
            let what = format!("{what}, imported and exported");
            if let Some(d) = differ(&what, &masked(&again), &masked(&v.state)) {
                return Err(d);
            }
        }
    }
    Ok(true)
}

#[test]
fn every_case_tree_exports_the_vms_blocks() {
    every_case("compared", check);
}

#[test]
fn every_example_exports_the_vms_blocks() {
    for (tree, scenario, profile) in examples() {
        let (loaded, scn) = load_spec(tree, scenario, profile);
        assert_eq!(check(&loaded, &scn), Ok(true), "{tree}");
    }
}
