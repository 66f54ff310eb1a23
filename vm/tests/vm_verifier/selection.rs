//! Selection-model (BST) programs.

use super::*;

#[test]
fn bad_selection_programs() {
    let base = || program_selection().parts().clone();
    verify(base(), &limits()).expect("the selection program verifies");
    let end = base().functions[0].end;
    // A visit may jump backwards (it is counted), but not out of its function; its stop is
    // an ordinary forward label.
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::SelVisit { .. }));
    for to in [end, u32::MAX] {
        let mut q = p.clone();
        if let Instr::SelVisit { to: t, .. } = &mut q.code[at] {
            *t = Back(to);
        }
        expect(q, K::BadJump);
    }
    if let Instr::SelVisit { stop, .. } = &mut p.code[at] {
        *stop = Label(at as u32);
    }
    expect(p, K::BadJump);
    // A visit target inside an expression (a non-empty stack).
    let mut p = base();
    let b = first_at(&p, |i| matches!(i, Instr::VarPush { .. }));
    if let Instr::SelVisit { to, .. } = &mut p.code[at] {
        *to = Back(b as u32 + 1);
    }
    expect(p, K::StackMismatch);
    // Other selection jumps go forward.
    let preds: [fn(&Instr) -> bool; 4] = [
        |i| matches!(i, Instr::SelBegin { .. }),
        |i| matches!(i, Instr::SelJumpPrev { .. }),
        |i| matches!(i, Instr::SelJumpLeaf { .. }),
        |i| matches!(i, Instr::RecJumpEq { .. }),
    ];
    for pred in preds {
        let mut p = base();
        let at = first_at(&p, pred);
        p.code[at].map_labels(|_| Label(0));
        expect(p, K::BadJump);
    }
    // Targets, leaves, leaf ranges, state records.
    let mut p = base();
    if let Instr::SelVisit { target, .. } = &mut p.code[at] {
        *target = 32;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    if let Instr::SelVisit { at: a, .. } = &mut p.code[at] {
        *a = 10_000;
    }
    expect(p, K::IndexOutOfRange);
    let leaves = base().layout.leaves;
    let mut p = base();
    let l = first_at(&p, |i| matches!(i, Instr::SelLeaf { .. }));
    if let Instr::SelLeaf { leaf, .. } = &mut p.code[l] {
        *leaf = leaves;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let j = first_at(&p, |i| matches!(i, Instr::SelJumpPrev { .. }));
    if let Instr::SelJumpPrev { lo, hi, .. } = &mut p.code[j] {
        *lo = *hi + 1;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let s = first_at(&p, |i| matches!(i, Instr::SelSeen { .. }));
    p.code[s] = Instr::SelSeen { at: 10_000 };
    expect(p, K::IndexOutOfRange);
    // The leaf slot must hold every leaf.
    let mut p = base();
    p.layout.leaves = 300;
    expect(p, K::BadLayout);
    // Lifecycle instructions in a selection program.
    let mut p = base();
    let f = first_at(&p, |i| matches!(i, Instr::SelNone {}));
    p.code[f] = Instr::LcStop {};
    expect(p, K::BadOperand);
    // A visit limit whose worst tick is beyond the budget.
    let mut p = base();
    p.model = ProgramModel::Selection { limit: u32::MAX };
    expect(p, K::BudgetExceeded);
}

#[test]
fn selection_programs_never_run_away() {
    // Every visit target pointed anywhere in the function that verifies: the tick still ends
    // (each backward jump is counted) on the vm.
    let p = program_selection().parts().clone();
    let end = p.functions[0].end;
    let ats: Vec<usize> = p
        .code
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Instr::SelVisit { .. }))
        .map(|(k, _)| k)
        .collect();
    let mut ran = 0;
    for &at in &ats {
        for to in 0..end {
            let mut q = p.clone();
            if let Instr::SelVisit { to: t, .. } = &mut q.code[at] {
                *t = Back(to);
            }
            // Without the visited set ever stopping it: a target no walk visits.
            if let Instr::SelVisit { target, .. } = &mut q.code[at] {
                *target = 31;
            }
            if let Ok(prog) = verify(q, &limits()) {
                run_permissive(&prog, 2, 12);
                ran += 1;
            }
        }
    }
    assert!(ran > 10, "only {ran} variants verified");
}
