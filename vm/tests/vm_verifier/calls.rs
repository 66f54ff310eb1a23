//! Hand-made bad programs: calls and continuations.

use super::*;

#[test]
fn bad_calls() {
    // A call of an entry function (the main tree, or the second entry).
    for entry in [0u32, 1] {
        let mut p = base();
        edit(
            &mut p,
            0,
            |i| matches!(i, Instr::Call { .. }),
            |i| {
                if let Instr::Call { func, .. } = i {
                    *func = Func(entry);
                }
            },
        );
        expect(p, K::BadContinuation);
    }

    // A cycle between two subtree functions: `b` calls `a`, which includes `b`.
    let nested = program_nested().parts().clone();
    let (a, b) = (func(&nested, "a"), func(&nested, "b"));
    let a_calls_b = find(&nested, a, |i| matches!(i, Instr::Call { .. }));
    assert!(matches!(nested.code[a_calls_b], Instr::Call { func, .. } if func.0 == b as u32));
    let fight = import_index(&nested, "fight", ImportKind::Action);
    let is_fight = |i: &Instr| matches!(i, Instr::Act { import, .. } if import.0 == fight);
    // `act fight, 0` pops nothing: a `call` with its continuations fits in its place.
    let mut p = nested.clone();
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, a as u32)
    });
    expect(p, K::CallCycle);
    // A subtree calling itself.
    let mut p = nested.clone();
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, b as u32)
    });
    expect(p, K::CallCycle);
    // A longer cycle through a third function: b -> c -> a -> b.
    let mut p = nested.clone();
    let c = append_subtree(
        &mut p,
        "c",
        &[
            call_to(a as u32, 1),
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, c as u32)
    });
    expect(p, K::CallCycle);
    // The same edit calling a leaf function is fine (sanity check of the edit).
    let mut p = nested.clone();
    let leaf = append_subtree(
        &mut p,
        "leaf",
        &[Instr::Return {
            status: Status::Running,
        }],
    );
    edit(&mut p, b, is_fight, |i| {
        *i = call_with_labels_of(i, leaf as u32)
    });
    let q = verify(p, &limits()).expect("calling a leaf subtree instead of an action verifies");
    assert_eq!(q.max_calls(), program_nested().max_calls() + 1);
}

#[test]
fn bad_continuations() {
    let main = 0;
    // `finish` in a subtree.
    let mut p = base();
    let sub = func(&p, "sub");
    edit(
        &mut p,
        sub,
        |i| matches!(i, Instr::Return { .. }),
        |i| {
            *i = Instr::Finish {
                status: Status::Success,
            }
        },
    );
    expect(p, K::BadContinuation);
    // `return` in an entry.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Finish { .. }),
        |i| {
            *i = Instr::Return {
                status: Status::Failure,
            }
        },
    );
    expect(p, K::BadContinuation);
    let mut p = base();
    let spawn = func(&p, "spawn");
    let end = p.functions[spawn].end as usize;
    p.code[end - 1] = Instr::Return {
        status: Status::Running,
    };
    expect(p, K::BadContinuation);
    // The last instruction falls through (into the next function, or off the code).
    for f in ["main", "spawn", "sub"] {
        for last in [
            Instr::Inc { temp: Temp(0) },
            Instr::Arm {
                timer: Timer(0),
                ms: 1,
            },
            Instr::PushBool { value: true },
        ] {
            let mut p = base();
            let fi = func(&p, f);
            let end = p.functions[fi].end as usize;
            p.code[end - 1] = last;
            expect(p, K::BadContinuation);
        }
    }
    // `call` continues at its labels: in a one-instruction function they can only point past
    // its end.
    let mut p = base();
    let start = p.code.len() as u32;
    let call = call_to(func(&p, "sub") as u32, start + 1);
    push_code(&mut p, call);
    p.functions.push(Function {
        name: "callonly".into(),
        kind: FunctionKind::Subtree,
        start,
        end: start + 1,
    });
    expect(p, K::BadJump);
    // A well-formed `call` in an appended function (sanity check of the above).
    let mut p = base();
    let sub = func(&p, "sub") as u32;
    append_subtree(
        &mut p,
        "caller",
        &[
            call_to(sub, 1),
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    verify(p, &limits()).expect("call; return verifies");
}
