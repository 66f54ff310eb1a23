//! Any bytes as source files in the canonical syntax (`.btn`): the front-end and the checker return a tree or
//! positioned errors, never a panic, a hang or a stack overflow; an accepted tree lowers, its
//! program survives the file format, and the reference and the vm agree on it
//! (`btvm_fuzz::exercise`). The input may hold up to four files separated by 0xFF bytes, named
//! `main.btn`, `b.btn`, `c.btn` and `d.btn`, so includes and include cycles are reachable.
#![no_main]

use btvm_compiler::load::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    btvm_fuzz::load_input(data, Format::Canonical, "btn");
});
