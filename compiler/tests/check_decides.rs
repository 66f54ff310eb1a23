//! `check` alone decides whether a tree is valid (ARCHITECTURE.md): on thousands of random
//! trees (`btvm_testkit::gen`: `AnyTree` of any model and knobs, most of them outside what
//! their model runs, and each model's runnable-tree generator), a tree `check` accepts is
//! accepted by the reference interpreter and lowered to a program, or refused by the lowering
//! only for a size limit; a tree `check` refuses is refused by the reference too, for the same
//! first reason.

use arbitrary::{Arbitrary, Unstructured};
use btvm::Limits;
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::ir::Tree;
use btvm_compiler::reference::Interpreter;
use btvm_testkit::gen::{
    AnyTree, CursorCase, DeciderCase, LifecycleCase, RunningListCase, SelectionCase,
};

/// Deterministic pseudo-random bytes (xorshift64).
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

#[test]
fn a_checked_tree_runs_everywhere_and_an_unchecked_one_nowhere() {
    let limits = Limits::default();
    let (mut accepted, mut refused) = (0, 0);
    for seed in 0..400u64 {
        for len in [16, 200, 2000] {
            let b = bytes(seed, len);
            let u = || Unstructured::new(&b);
            let trees: Vec<Tree> = [
                AnyTree::arbitrary(&mut u()).ok().map(|t| t.0),
                RunningListCase::arbitrary(&mut u()).ok().map(|c| c.tree),
                CursorCase::arbitrary(&mut u()).ok().map(|c| c.tree),
                DeciderCase::arbitrary(&mut u()).ok().map(|c| c.tree),
                LifecycleCase::arbitrary(&mut u()).ok().map(|c| c.tree),
                SelectionCase::arbitrary(&mut u()).ok().map(|c| c.tree),
            ]
            .into_iter()
            .flatten()
            .collect();
            for tree in &trees {
                decide(tree, &limits, &mut accepted, &mut refused);
            }
        }
    }
    // Both sides of the boundary are exercised.
    assert!(accepted > 1000, "only {accepted} trees accepted");
    assert!(refused > 1000, "only {refused} trees refused");
}

/// Checks one tree and holds the reference and the lowering to the verdict.
fn decide(tree: &Tree, limits: &Limits, accepted: &mut u32, refused: &mut u32) {
    match btvm_compiler::check::check(tree, limits) {
        Ok(()) => {
            *accepted += 1;
            if let Err(d) = Interpreter::with_limits(tree, limits) {
                panic!("checked, but the reference refuses: {}", d.message);
            }
            if let Err(diags) = btvm_compiler::lower::lower(tree, limits) {
                for d in &diags {
                    assert_eq!(
                        d.kind,
                        ErrorKind::ProgramTooLarge,
                        "checked, but the lowering refuses: {}",
                        d.message
                    );
                }
            }
        }
        Err(diags) => {
            *refused += 1;
            match Interpreter::with_limits(tree, limits) {
                Ok(_) => panic!("refused by check, accepted by the reference"),
                Err(d) => assert_eq!(d.message, diags[0].message),
            }
        }
    }
}
