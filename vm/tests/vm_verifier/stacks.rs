//! Hand-made bad programs: stack underflow, mismatch and overflow.

use super::*;

#[test]
fn stack_underflows() {
    // Underflow: `not` with nothing on the stack.
    let mut p = base();
    let spawn = func(&p, "spawn");
    let start = p.functions[spawn].start as usize;
    assert!(matches!(p.code[start], Instr::PushStr { .. }));
    p.code[start] = Instr::Not {};
    expect(p, K::StackUnderflow);
    // Underflow: `act` popping more arguments than were pushed (`say` takes 1..1; make it
    // 1..2 so arity is fine).
    let mut p = base();
    let say = import_index(&p, "say", ImportKind::Action);
    p.imports[say as usize].max_args = 2;
    let spawn = func(&p, "spawn");
    edit(&mut p, spawn, is_act, |i| {
        if let Instr::Act { argc, .. } = i {
            *argc = 2;
        }
    });
    expect(p, K::StackUnderflow);
    // Underflow in an appended function: `bin` with one operand.
    let mut p = base();
    append_subtree(
        &mut p,
        "u",
        &[
            Instr::PushInt { value: 1 },
            Instr::Bin {
                op: btvm::BinOp::Add,
            },
            Instr::JumpIfFalse { to: Label(3) },
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    expect(p, K::StackUnderflow);
}

#[test]
fn different_stack_depths_at_a_join() {
    // Different depths at a join.
    let mut p = base();
    append_subtree(
        &mut p,
        "join",
        &[
            Instr::PushBool { value: true },
            Instr::JumpIfFalse { to: Label(4) }, // reaches 4 with 0 values
            Instr::PushInt { value: 1 },
            Instr::Jump { to: Label(4) }, // reaches 4 with 1 value
            Instr::JumpIfTrue { to: Label(5) },
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    expect(p, K::StackMismatch);
    // The same in lowered code: a `jump.true` (pops) becomes a `jump` (does not pop).
    let mut p = base();
    let main = 0;
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::JumpIfTrue { .. }),
        |i| {
            if let Instr::JumpIfTrue { to } = *i {
                *i = Instr::Jump { to };
            }
        },
    );
    expect(p, K::StackMismatch);
}

#[test]
fn values_left_on_the_stack() {
    // Values left on the stack at node-level instructions.
    for node_level in [
        Instr::Return {
            status: Status::Success,
        },
        Instr::OnSuccess {
            bit: Bit(0),
            to: Label(2),
        },
        Instr::OnRunning {
            bit: Bit(0),
            to: Label(2),
        },
        Instr::Zero { temp: Temp(0) },
        Instr::Arm {
            timer: Timer(0),
            ms: 5,
        },
        Instr::JumpIfListed {
            bit: Bit(0),
            to: Label(2),
        },
        Instr::JumpIfCooling {
            timer: Timer(0),
            to: Label(2),
        },
        Instr::Quorum {
            succ: Temp(0),
            fail: Temp(1),
            n: 1,
            success_all: true,
            failure_all: false,
            success: Label(2),
            failure: Label(2),
            running: Label(2),
        },
        call_to(0, 2), // replaced below by a call of `sub`
    ] {
        let mut p = base();
        let node_level = match node_level {
            Instr::Call { .. } => call_to(func(&p, "sub") as u32, 2),
            other => other,
        };
        let code = vec![
            Instr::PushInt { value: 1 },
            node_level,
            Instr::Return {
                status: Status::Success,
            },
        ];
        append_subtree(&mut p, "left", &code);
        expect(p, K::StackMismatch);
    }
    // ... and in lowered code: `act` with fewer arguments than were pushed.
    let mut p = base();
    let say = import_index(&p, "say", ImportKind::Action);
    p.imports[say as usize].min_args = 0;
    let spawn = func(&p, "spawn");
    edit(&mut p, spawn, is_act, |i| {
        if let Instr::Act { argc, .. } = i {
            *argc = 0;
        }
    });
    expect(p, K::StackMismatch);
}

#[test]
fn fused_compare_and_jump_underflows() {
    // Underflow of the fused compare-and-jump.
    let mut p = base();
    append_subtree(
        &mut p,
        "cmp",
        &[
            Instr::PushInt { value: 1 },
            Instr::JumpIfCmp {
                op: btvm::BinOp::Lt,
                when: true,
                to: Label(2),
            },
            Instr::Return {
                status: Status::Success,
            },
        ],
    );
    expect(p, K::StackUnderflow);
}

#[test]
fn stack_overflow_past_the_limit() {
    // Overflow past `Limits::max_stack`.
    let p = base();
    let deepest = verify(p.clone(), &limits()).unwrap().max_stack();
    assert!(deepest >= 2);
    let tight = Limits {
        max_stack: deepest - 1,
        ..limits()
    };
    expect_with(p.clone(), &tight, K::StackOverflow);
    let exact = Limits {
        max_stack: deepest,
        ..limits()
    };
    verify(p, &exact).expect("the deepest stack is allowed");
}
