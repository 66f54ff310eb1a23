//! Any valid IR tree (from `btvm_testkit::gen`, any model and dialect) through the pipeline:
//! the checker accepts it or says why; an accepted tree lowers to a program the verifier
//! accepts (the lowering never emits bytecode its own verifier rejects, and refuses a checked
//! tree only for a size limit: `check` alone decides validity); the program survives its file
//! format and runs on the vm within its budget.
#![no_main]

use btvm::{EngineKind, Limits};
use btvm_compiler::diag::ErrorKind;
use btvm_testkit::gen::AnyTree;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: AnyTree| {
    let tree = input.0;
    let limits = Limits::default();
    if let Err(diags) = btvm_compiler::check::check(&tree, &limits) {
        assert!(!diags.is_empty(), "the checker failed without a diagnostic");
        return;
    }
    let program = match btvm_compiler::lower::lower(&tree, &limits) {
        Ok(p) => p,
        Err(diags) => {
            assert!(!diags.is_empty(), "lowering failed without a diagnostic");
            for d in &diags {
                assert_ne!(
                    d.kind,
                    ErrorKind::InvalidProgram,
                    "the verifier rejects what the lowering emitted: {}",
                    d.message
                );
                assert_eq!(
                    d.kind,
                    ErrorKind::ProgramTooLarge,
                    "the checker accepted what the lowering refuses: {}",
                    d.message
                );
            }
            return;
        }
    };
    btvm_fuzz::round_trip(&program);
    btvm_fuzz::run_program(&program, EngineKind::Vm, 2, 6, 1);
});
