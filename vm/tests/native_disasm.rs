//! `NativeConfig::disassemble` keeps Cranelift's listing of the machine code, one header per
//! native function; without it there is none.
#![cfg(feature = "jit")]

use btvm::native::{NativeCode, NativeConfig};
use btvm::program::{Function, FunctionKind, Instr, Label, Layout, ProgramModel, ProgramParts};
use btvm::{Limits, Program, Status};

/// `root main`: `jump 1; finish success` (two instructions, so `max_chunk: 1` splits it).
fn program() -> Program {
    let parts = ProgramParts {
        model: ProgramModel::RunningList,
        single_precision: false,
        clock: 1,
        layout: Layout::default(),
        strings: Vec::new(),
        imports: Vec::new(),
        vars: Vec::new(),
        var_names: Vec::new(),
        temps: 0,
        functions: vec![Function {
            name: "main".into(),
            kind: FunctionKind::Entry,
            start: 0,
            end: 2,
        }],
        rules: Vec::new(),
        stimuli: 0,
        code: vec![
            Instr::Jump { to: Label(1) },
            Instr::Finish {
                status: Status::Success,
            },
        ],
        nodes: Default::default(),
    };
    Program::new(parts, &Limits::default()).expect("a valid program")
}

#[test]
fn disassembly_lists_every_native_function_when_asked() {
    let p = program();
    let config = NativeConfig {
        disassemble: true,
        ..NativeConfig::default()
    };
    let code = NativeCode::compile(&p, &config).expect("compiles on this machine");
    let listing = code.disassembly().expect("asked for a listing");
    // One function in one chunk: entered through the chunk itself.
    assert!(listing.starts_with("; native function f0.0\n"), "{listing}");
    assert_eq!(
        listing.matches("; native function ").count(),
        1,
        "{listing}"
    );
    assert!(listing.contains("ret"), "no instructions: {listing}");
}

#[test]
fn split_functions_list_their_chunks_and_driver() {
    let p = program();
    let config = NativeConfig {
        disassemble: true,
        max_chunk: 1,
        ..NativeConfig::default()
    };
    let code = NativeCode::compile(&p, &config).expect("compiles on this machine");
    let listing = code.disassembly().expect("asked for a listing");
    let headers: Vec<&str> = listing
        .lines()
        .filter(|l| l.starts_with("; native function "))
        .collect();
    assert_eq!(
        headers,
        [
            "; native function f0.0",
            "; native function f0.1",
            "; native function f0"
        ],
        "{listing}"
    );
    assert_eq!(headers.len(), code.stats().functions);
    assert!(listing.contains("ret"), "no instructions: {listing}");
}

#[test]
fn no_disassembly_by_default() {
    let p = program();
    let code = NativeCode::compile(&p, &NativeConfig::default()).expect("compiles");
    assert!(code.disassembly().is_none());
    assert!(!NativeConfig::default().disassemble);
    // The program's cached compilation uses the default config, too.
    assert!(p.native().expect("compiles").disassembly().is_none());
}
