//! Dropping native code releases its code memory. This file holds one test so that it runs
//! alone in its process: resident memory is a process-wide measure.
//!
//! The test checks itself: keeping the code alive (leaking it on purpose) must make resident
//! memory grow measurably, and compiling and dropping the same number of times must not.
#![cfg(feature = "jit")] // native code only exists with feature `jit`
#![cfg(target_os = "linux")]

use btvm::native::{NativeCode, NativeConfig};
use btvm::Limits;
use btvm_compiler::source::SourceMap;
use btvm_compiler::syntax::canonical;

/// Resident memory of this process, in bytes.
fn resident() -> i64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: i64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn dropping_native_code_releases_its_memory() {
    let text = include_str!("fixtures/vm_all.btn");
    let limits = Limits::default();
    let mut sources = SourceMap::new();
    let file = sources.add("vm_all.btn", text.to_string());
    let tree = canonical::parse(file, text, &limits).unwrap();
    let p = btvm_compiler::lower::lower(&tree, &limits).unwrap();
    let config = NativeConfig {
        verify_ir: false,
        ..NativeConfig::default()
    };
    let rounds = 300;
    // Warm up: allocator arenas and Cranelift's lazily built tables.
    for _ in 0..50 {
        drop(NativeCode::compile(&p, &config).unwrap());
    }
    let before = resident();
    for _ in 0..rounds {
        drop(NativeCode::compile(&p, &config).unwrap());
    }
    let dropped = resident() - before;

    let before = resident();
    let mut kept = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        kept.push(NativeCode::compile(&p, &config).unwrap());
    }
    let alive = resident() - before;
    // Leak them for good, so the measurement cannot be undone by a late drop.
    std::mem::forget(kept);

    assert!(
        alive > 1 << 20,
        "{rounds} live compilations should hold over 1 MiB, measured {alive} bytes"
    );
    assert!(
        dropped * 4 < alive,
        "compile+drop grew resident memory by {dropped} bytes; keeping the code grew it by {alive}"
    );
}
