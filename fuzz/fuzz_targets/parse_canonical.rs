//! Any bytes as source files in the canonical syntax (`.btn`): the front-end and the checker return a tree or
//! positioned errors, never a panic, a hang or a stack overflow; an accepted tree lowers, its
//! program survives the file format, and the reference and the vm agree on it
//! (`btvm_fuzz::exercise`). The input may hold up to four files separated by 0xFF bytes, named
//! `main.btn`, `b.btn`, `c.btn` and `d.btn`, so includes and include cycles are reachable.
//! The formatter (`btvm fmt`) on the first file: an error, or text that formats to itself.
#![no_main]

use btvm_compiler::load::Format;
use btvm_compiler::source::FileId;
use btvm_compiler::syntax::canonical;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    btvm_fuzz::load_input(data, Format::Canonical, "btn");
    let first = data.split(|&b| b == 0xFF).next().unwrap_or_default();
    if let Ok(text) = std::str::from_utf8(first) {
        let limits = btvm::Limits::default();
        if let Ok(once) = canonical::format(FileId(0), text, &limits) {
            let twice = canonical::format(FileId(0), &once, &limits);
            assert_eq!(twice.as_deref(), Ok(once.as_str()), "formatting is not a fixed point");
        }
    }
});
