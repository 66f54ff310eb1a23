//! Any bytes as source files in the Spore dialect (`.spore`): the front-end and the checker
//! return a tree or positioned errors, never a panic, a hang or a stack overflow; an accepted
//! tree lowers (or is refused with a diagnostic), its program survives the file format, and the
//! reference and the vm agree on it (`btvm_fuzz::exercise`). A `.spore` tree is one file, so
//! only the input's first file (`main.spore`) is read.
#![no_main]

use btvm_compiler::ir::Dialect;
use btvm_compiler::load::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    btvm_fuzz::load_input(data, Format::Dialect(Dialect::Spore), "spore");
});
