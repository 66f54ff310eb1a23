//! Decider-model (Spore) programs.

use super::*;

/// The decider program's parts.
fn base() -> ProgramParts {
    program_decider().parts().clone()
}

/// The index of the first instruction matching `pred`.
fn first(p: &ProgramParts, pred: &dyn Fn(&Instr) -> bool) -> usize {
    p.code
        .iter()
        .position(pred)
        .expect("the program has such an instruction")
}

#[test]
fn bad_decider_jumps() {
    verify(base(), &limits()).expect("the decider program verifies");
    let end = base().functions[0].end;
    // A redecide may jump backwards (it is counted), but not out of its function.
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecRedecide { .. }));
    for to in [end, u32::MAX] {
        let mut q = p.clone();
        if let Instr::DecRedecide { to: t, .. } = &mut q.code[at] {
            *t = Back(to);
        }
        expect(q, K::BadJump);
    }
    // Its guard exit is an ordinary label: forward only.
    if let Instr::DecRedecide { guard, .. } = &mut p.code[at] {
        *guard = Label(at as u32);
    }
    expect(p, K::BadJump);
    // Every other decider jump goes forward.
    let preds: [fn(&Instr) -> bool; 6] = [
        |i| matches!(i, Instr::DecJumpActive { .. }),
        |i| matches!(i, Instr::DecTest { .. }),
        |i| matches!(i, Instr::DecWait { .. }),
        |i| matches!(i, Instr::DecScore { .. }),
        |i| matches!(i, Instr::DecDraw { .. }),
        |i| matches!(i, Instr::Behave { phase: 0, .. }),
    ];
    for pred in preds {
        let mut p = base();
        let at = first(&p, &pred);
        p.code[at].map_labels(|_| Label(0));
        expect(p, K::BadJump);
    }
    // A redecide target inside an expression (a non-empty stack).
    let mut p = base();
    let push = first(&p, &|i| matches!(i, Instr::PushFloat { .. }));
    let at = first(&p, &|i| matches!(i, Instr::DecRedecide { .. }));
    if let Instr::DecRedecide { to, .. } = &mut p.code[at] {
        *to = Back(push as u32 + 1);
    }
    expect(p, K::StackMismatch);
}

#[test]
fn decider_operands_out_of_range() {
    // Operands out of range: group, timer, child, active byte, phase, import kind.
    let groups = base().layout.group_count;
    let timers = base().layout.timer_count;
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecSet { .. }));
    p.code[at] = Instr::DecSet {
        group: Group(groups),
        child: 0,
    };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecStamp { .. }));
    p.code[at] = Instr::DecStamp {
        timer: Timer(timers),
        ms: 1,
    };
    expect(p, K::IndexOutOfRange);
    for child in [64u8, 255] {
        let mut p = base();
        let at = first(&p, &|i| matches!(i, Instr::DecPick { .. }));
        if let Instr::DecPick { child: c, .. } = &mut p.code[at] {
            *c = child;
        }
        expect(p, K::IndexOutOfRange);
        let mut p = base();
        let at = first(&p, &|i| matches!(i, Instr::DecMask { .. }));
        if let Instr::DecMask { child: c, .. } = &mut p.code[at] {
            *c = child;
        }
        expect(p, K::IndexOutOfRange);
        let mut p = base();
        let at = first(&p, &|i| matches!(i, Instr::DecMaskUpTo { .. }));
        if let Instr::DecMaskUpTo { child: c, .. } = &mut p.code[at] {
            *c = child;
        }
        expect(p, K::IndexOutOfRange);
    }
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::DecJumpActive { .. }));
    if let Instr::DecJumpActive { active, .. } = &mut p.code[at] {
        *active = 65;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Behave { .. }));
    if let Instr::Behave { phase, .. } = &mut p.code[at] {
        *phase = 3;
    }
    expect(p, K::BadOperand);
    let mut p = base();
    let f = import_index(&p, "f", ImportKind::Function);
    let at = first(&p, &|i| matches!(i, Instr::Behave { .. }));
    if let Instr::Behave { import, .. } = &mut p.code[at] {
        *import = Imp(f);
    }
    expect(p, K::Arity);
}

#[test]
fn bad_decider_layouts() {
    // A draw without a PRNG slot.
    let mut p = base();
    p.layout.rng = None;
    expect(p, K::BadLayout);
    // Decider state that overlaps or leaves the block; too many stimuli; no flags byte.
    let mut p = base();
    p.layout.groups = p.layout.decider;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.group_count += 1000;
    expect(p, K::BadLayout);
    let mut p = base();
    p.stimuli = 1000;
    expect(p, K::BadOperand);
    let mut p = base();
    p.layout.flags.width = 0;
    expect(p, K::BadLayout);
}

#[test]
fn decider_instructions_out_of_place() {
    // A second function; cursor instructions in a decider program.
    let mut p = base();
    append_subtree(
        &mut p,
        "extra",
        &[Instr::Return {
            status: Status::Success,
        }],
    );
    expect(p, K::BadContinuation);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::Stop {};
    expect(p, K::BadOperand);
    // Decider state or instructions in other models.
    let mut p = base();
    p.model = ProgramModel::RunningList;
    expect(p, K::BadLayout);
    let mut p = program_all().parts().clone();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::DecGuard {};
    expect(p, K::BadOperand);
    let mut p = program_all().parts().clone();
    p.stimuli = 1;
    expect(p, K::BadOperand);
}

#[test]
fn decider_budget_is_enforced() {
    // A redecide limit whose worst tick is beyond the budget.
    let mut p = base();
    p.model = ProgramModel::Decider { limit: u32::MAX };
    expect(p, K::BudgetExceeded);
    let small = Limits {
        max_tick_instructions: base().code.len() as u64,
        ..limits()
    };
    expect_with(base(), &small, K::BudgetExceeded);
}

#[test]
fn decider_programs_never_run_away() {
    // Every redecide target pointed anywhere in the function that verifies: the tick still
    // ends (each backward jump is counted) on every engine path the vm takes.
    let p = base_decider_parts();
    let end = p.functions[0].end;
    let ats: Vec<usize> = p
        .code
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Instr::DecRedecide { .. }))
        .map(|(k, _)| k)
        .collect();
    let mut ran = 0;
    for &at in &ats {
        for to in (0..end).step_by(7) {
            let mut q = p.clone();
            if let Instr::DecRedecide { to: t, .. } = &mut q.code[at] {
                *t = Back(to);
            }
            if let Ok(prog) = verify(q, &limits()) {
                run_permissive(&prog, 2, 12);
                ran += 1;
            }
        }
    }
    assert!(ran > 10, "only {ran} variants verified");
}

fn base_decider_parts() -> ProgramParts {
    program_decider().parts().clone()
}
