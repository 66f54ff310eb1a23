//! Any bytes as a program file: the decoder and the verifier reject it with an error, or the
//! program it holds runs within its budget on the vm and on native code without undefined
//! behaviour, and the two engines agree on every status and every byte of state.
//!
//! A verified program also runs a scenario through the scenario driver's program path, giving
//! every decision flag and stimulus its names section names.
//!
//! The first input byte is a mode: bit 0 set rewrites the header's fingerprint to match the
//! body, so that mutations of real programs (the seed corpus holds compiled programs with
//! that bit set) get past the checksum and reach the verifier; bit 1 set also runs native
//! code (slower, so the fuzzer can choose).
#![no_main]

use btvm::{EngineKind, Limits, Program};
use libfuzzer_sys::fuzz_target;

/// Magic (8 bytes), version (2), fingerprint (8).
const HEADER: usize = 18;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 && bytes.len() >= HEADER {
        let fingerprint = btvm::program::fingerprint(&bytes[HEADER..]);
        bytes[10..HEADER].copy_from_slice(&fingerprint.to_le_bytes());
    }
    let program = match Program::decode(&bytes, &Limits::default()) {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    btvm_fuzz::round_trip(&program);
    // The tree names it carries (`spec/bytecode.md` §5.3) drive a scripted run through the
    // program path: every flag and stimulus it names is given, every call written.
    btvm_fuzz::run_named(&program);
    let seed = u64::from(mode);
    let Some(vm) = btvm_fuzz::run_program(&program, EngineKind::Vm, 2, 8, seed) else {
        return;
    };
    if mode & 2 == 2 {
        if let Some(native) = btvm_fuzz::run_program(&program, EngineKind::Native, 2, 8, seed) {
            assert_eq!(
                vm, native,
                "the vm and native code disagree on a verified program"
            );
        }
    }
});
