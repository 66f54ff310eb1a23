//! Hand-made bad programs: appended functions, labels and jumps.

use super::*;

#[test]
fn appended_functions_are_checked_like_lowered_ones() {
    // The helper itself is sound: a well-formed appended subtree verifies.
    let mut p = base();
    append_subtree(
        &mut p,
        "ok",
        &[
            Instr::PushBool { value: true },
            Instr::JumpIfFalse { to: Label(3) },
            Instr::Return {
                status: Status::Success,
            },
            Instr::Return {
                status: Status::Failure,
            },
        ],
    );
    verify(p, &limits()).expect("a well-formed appended subtree verifies");
}

#[test]
fn every_label_that_goes_backwards_or_leaves_its_function_is_rejected() {
    // Generic over the instruction set: every label operand of every instruction of every
    // real program, pointed at itself, backwards, at the function's end, past the code, and
    // into another function.
    let mut checked = 0;
    for (name, prog) in programs() {
        let parts = prog.parts().clone();
        for (fi, f) in parts.functions.iter().enumerate() {
            let other = parts
                .functions
                .iter()
                .enumerate()
                .find(|&(gi, _)| gi != fi)
                .map(|(_, g)| g.start + (g.end - g.start) / 2);
            for pc in f.start..f.end {
                let n = labels_mut(&mut parts.code[pc as usize].clone()).len();
                for k in 0..n {
                    let mut targets = vec![pc, f.start, f.end, parts.code.len() as u32, u32::MAX];
                    if pc > f.start {
                        targets.push(pc - 1);
                    }
                    targets.extend(other);
                    for t in targets {
                        let mut p = parts.clone();
                        *labels_mut(&mut p.code[pc as usize])[k] = Label(t);
                        match verify(p, &limits()) {
                            Ok(_) => panic!(
                                "{name}: label {k} of {:?} at {pc} set to {t} verified",
                                parts.code[pc as usize]
                            ),
                            Err(e) => assert_eq!(e.kind(), K::BadJump, "{name}: {e}"),
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} labels checked");
}

#[test]
fn bad_jumps() {
    let main = 0;
    // Backwards.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Jump { .. }),
        |i| *i = Instr::Jump { to: Label(0) },
    );
    expect(p, K::BadJump);
    // To itself.
    let mut p = base();
    let pc = find(&p, main, |i| matches!(i, Instr::Jump { .. }));
    p.code[pc] = Instr::Jump {
        to: Label(pc as u32),
    };
    expect(p, K::BadJump);
    // Backwards through a conditional jump and through an action's continuation.
    let mut p = base();
    let pc = find(&p, main, |i| matches!(i, Instr::JumpIfFalse { .. }));
    p.code[pc] = Instr::JumpIfFalse {
        to: Label(pc as u32 - 1),
    };
    expect(p, K::BadJump);
    let mut p = base();
    let pc = find(&p, main, is_act);
    if let Instr::Act { running, .. } = &mut p.code[pc] {
        *running = Label(pc as u32 - 1);
    }
    expect(p, K::BadJump);
    // Out of the function, past the end of the code.
    let mut p = base();
    let len = p.code.len() as u32;
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::JumpIfListed { .. }),
        |i| {
            if let Instr::JumpIfListed { to, .. } = i {
                *to = Label(len + 10);
            }
        },
    );
    expect(p, K::BadJump);
    let mut p = base();
    let last = p.functions.len() - 1;
    let len = p.code.len() as u32;
    edit(
        &mut p,
        last,
        |i| matches!(i, Instr::Jump { .. }),
        |i| *i = Instr::Jump { to: Label(len) },
    );
    expect(p, K::BadJump);
    // Into another function (forward: from the main entry into the subtree).
    let mut p = base();
    let sub = func(&p, "sub");
    let target = p.functions[sub].start + 1;
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::JumpIfCooling { .. }),
        |i| {
            if let Instr::JumpIfCooling { to, .. } = i {
                *to = Label(target);
            }
        },
    );
    expect(p, K::BadJump);
    // A `call` continuing into the function it calls.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Call { .. }),
        |i| {
            if let Instr::Call { success, .. } = i {
                *success = Label(target);
            }
        },
    );
    expect(p, K::BadJump);
    // Into another function (backward: from the subtree into the main entry's `finish`).
    let mut p = base();
    let sub = func(&p, "sub");
    let finish = find(&p, main, |i| matches!(i, Instr::Finish { .. })) as u32;
    edit(
        &mut p,
        sub,
        |i| matches!(i, Instr::Jump { .. } | Instr::OnSuccess { .. }),
        |i| {
            for l in labels_mut(i) {
                *l = Label(finish);
            }
        },
    );
    expect(p, K::BadJump);
}
