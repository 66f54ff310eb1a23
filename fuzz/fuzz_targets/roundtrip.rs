//! Any valid IR tree (from `btvm_testkit::gen`) printed in the canonical syntax and parsed back
//! is the same tree (spans aside), and printing is a fixed point.
#![no_main]

use btvm::Limits;
use btvm_compiler::ir::Tree;
use btvm_compiler::source::FileId;
use btvm_compiler::syntax::canonical;
use btvm_testkit::gen::AnyTree;
use libfuzzer_sys::fuzz_target;

fn stripped(mut t: Tree) -> Tree {
    t.strip_spans();
    t
}

fuzz_target!(|input: AnyTree| {
    let tree = input.0;
    assert_eq!(
        tree.validate(),
        Ok(()),
        "the generator made an invalid tree"
    );
    let text = canonical::print(&tree);
    let parsed = match canonical::parse(FileId(0), &text, &Limits::default()) {
        Ok(t) => t,
        Err(d) => panic!("the printout does not parse: {d:?}\n--- text ---\n{text}"),
    };
    let again = canonical::print(&parsed);
    assert_eq!(again, text, "printing is not a fixed point");
    assert!(
        stripped(parsed) == stripped(tree),
        "parse(print(t)) != t\n--- text ---\n{text}"
    );
});
