//! Hand-made bad programs: operand indices out of range.

use super::*;

/// Applies each named mutation to the base program; each must be rejected as out of range.
fn expect_out_of_range(cases: Vec<(&str, Mutation<'_, ProgramParts>)>) {
    for (what, mutate) in cases {
        let mut p = base();
        mutate(&mut p);
        match verify(p, &limits()) {
            Ok(_) => panic!("{what}: out of range but verified"),
            Err(e) => assert_eq!(e.kind(), K::IndexOutOfRange, "{what}: {e}"),
        }
    }
}

#[test]
fn bits_out_of_range() {
    let main = 0;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "bit of jump.listed",
            Box::new(|p| {
                let n = p.layout.bits;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::JumpIfListed { .. }),
                    |i| {
                        if let Instr::JumpIfListed { bit, .. } = i {
                            *bit = Bit(n);
                        }
                    },
                );
            }),
        ),
        (
            "bit of list.running",
            Box::new(|p| {
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::OnRunning { .. }),
                    |i| {
                        if let Instr::OnRunning { bit, .. } = i {
                            *bit = Bit(u32::MAX);
                        }
                    },
                );
            }),
        ),
        (
            "bit of act",
            Box::new(|p| {
                let n = p.layout.bits;
                edit(p, main, is_act, |i| {
                    if let Instr::Act { bit, .. } = i {
                        *bit = Bit(n);
                    }
                });
            }),
        ),
    ];
    expect_out_of_range(cases);
}

#[test]
fn timers_and_imports_out_of_range() {
    let main = 0;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "timer of jump.cooling",
            Box::new(|p| {
                let n = p.layout.timer_count;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::JumpIfCooling { .. }),
                    |i| {
                        if let Instr::JumpIfCooling { timer, .. } = i {
                            *timer = Timer(n);
                        }
                    },
                );
            }),
        ),
        (
            "timer of timer.arm",
            Box::new(|p| {
                let n = p.layout.timer_count;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Arm { .. }),
                    |i| {
                        if let Instr::Arm { timer, .. } = i {
                            *timer = Timer(n);
                        }
                    },
                );
            }),
        ),
        (
            "import of act",
            Box::new(|p| {
                let n = p.imports.len() as u32;
                edit(p, main, is_act, |i| {
                    if let Instr::Act { import, .. } = i {
                        *import = Imp(n);
                    }
                });
            }),
        ),
        (
            "import of call.fn",
            Box::new(|p| {
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::CallFn { .. }),
                    |i| {
                        if let Instr::CallFn { import, .. } = i {
                            *import = Imp(u32::MAX);
                        }
                    },
                );
            }),
        ),
    ];
    expect_out_of_range(cases);
}

#[test]
fn variables_and_strings_out_of_range() {
    let main = 0;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "variable",
            Box::new(|p| {
                let n = p.vars.len() as u32;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::PushVar { .. }),
                    |i| *i = Instr::PushVar { var: Var(n) },
                );
            }),
        ),
        (
            "string",
            Box::new(|p| {
                let n = p.strings.len() as u32;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::PushStr { .. }),
                    |i| *i = Instr::PushStr { value: Str(n) },
                );
            }),
        ),
        (
            "string of a variable",
            Box::new(|p| {
                let n = p.strings.len() as u32;
                p.vars[0] = Value::Str(StrId(n));
            }),
        ),
    ];
    expect_out_of_range(cases);
}

#[test]
fn counters_out_of_range() {
    let main = 0;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "counter of temp.zero",
            Box::new(|p| {
                let n = p.temps;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Zero { .. }),
                    |i| *i = Instr::Zero { temp: Temp(n) },
                );
            }),
        ),
        (
            "counter of temp.inc",
            Box::new(|p| {
                let n = p.temps;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Inc { .. }),
                    |i| *i = Instr::Inc { temp: Temp(n) },
                );
            }),
        ),
        (
            "counter of quorum",
            Box::new(|p| {
                let n = p.temps;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Quorum { .. }),
                    |i| {
                        if let Instr::Quorum { fail, .. } = i {
                            *fail = Temp(n);
                        }
                    },
                );
            }),
        ),
    ];
    expect_out_of_range(cases);
}

#[test]
fn action_ordinals_and_functions_out_of_range() {
    let main = 0;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "action ordinal",
            Box::new(|p| {
                let n = p.layout.actions;
                edit(p, main, is_act, |i| {
                    if let Instr::Act { action, .. } = i {
                        *action = ActionNo(n);
                    }
                });
            }),
        ),
        (
            "function",
            Box::new(|p| {
                let n = p.functions.len() as u32;
                edit(
                    p,
                    main,
                    |i| matches!(i, Instr::Call { .. }),
                    |i| {
                        if let Instr::Call { func, .. } = i {
                            *func = Func(n);
                        }
                    },
                );
            }),
        ),
    ];
    expect_out_of_range(cases);
}
