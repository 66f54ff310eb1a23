//! Hand-made bad programs: limits, function tables and the counter table.

use super::*;

#[test]
fn limits_are_enforced() {
    let p = base();
    let size = p.layout.size as usize;
    // State size above `max_state_bytes`.
    expect_with(
        p.clone(),
        &Limits {
            max_state_bytes: size - 1,
            ..limits()
        },
        K::TooLarge,
    );
    verify(
        p.clone(),
        &Limits {
            max_state_bytes: size,
            ..limits()
        },
    )
    .expect("exactly at the limit");
    let mut big = p.clone();
    big.layout.size = (limits().max_state_bytes + 1) as u32;
    expect(big, K::TooLarge);
    // The tick budget.
    let budget = verify(p.clone(), &limits()).unwrap().tick_budget();
    assert!(budget > 0);
    expect_with(
        p.clone(),
        &Limits {
            max_tick_instructions: budget - 1,
            ..limits()
        },
        K::BudgetExceeded,
    );
    verify(
        p.clone(),
        &Limits {
            max_tick_instructions: budget,
            ..limits()
        },
    )
    .expect("exactly the budget");
    // Calls count towards the budget (the nested program's main entry calls `a`, which calls
    // `b`).
    let nested = program_nested();
    expect_with(
        nested.parts().clone(),
        &Limits {
            max_tick_instructions: nested.tick_budget() - 1,
            ..limits()
        },
        K::BudgetExceeded,
    );
    // Too many instructions.
    let n = p.code.len();
    expect_with(
        p.clone(),
        &Limits {
            max_program_instructions: n - 1,
            ..limits()
        },
        K::TooLarge,
    );
    verify(
        p,
        &Limits {
            max_program_instructions: n,
            ..limits()
        },
    )
    .expect("exactly the instruction limit");
}

#[test]
fn bad_function_tables() {
    // Overlapping functions.
    let mut p = base();
    p.functions[1].start = p.functions[0].end - 1;
    expect(p, K::BadContinuation);
    let mut p = base();
    let f = p.functions[1].clone();
    p.functions.push(Function {
        name: "copy".into(),
        ..f
    });
    expect(p, K::BadContinuation);
    // An empty function.
    let mut p = base();
    p.functions[1].end = p.functions[1].start;
    expect(p, K::BadContinuation);
    // A function ending before it starts, or past the code.
    let mut p = base();
    p.functions[1].end = p.functions[1].start - 1;
    expect(p, K::BadContinuation);
    let mut p = base();
    let last = p.functions.len() - 1;
    p.functions[last].end = p.code.len() as u32 + 1;
    expect(p, K::BadContinuation);
    let mut p = base();
    p.functions[last].start = u32::MAX - 1;
    p.functions[last].end = u32::MAX;
    expect(p, K::BadContinuation);
    // Two entries with one name.
    let mut p = base();
    p.functions[1].name = p.functions[0].name.clone();
    expect(p, K::BadOperand);
    // Duplicate strings.
    let mut p = base();
    let s = p.strings[0].clone();
    p.strings.push(s);
    expect(p, K::BadOperand);
    // No functions at all is a valid (if useless) program: it has no main entry.
    let mut p = base();
    p.functions.clear();
    let q = verify(p, &limits()).expect("a program without functions verifies");
    assert_eq!(q.main(), None);
    let mut host = Permissive::always(1);
    let mut state = q.new_state();
    assert!(matches!(
        Vm::new(&q).tick(&mut state, AgentId(0), &mut host, 0),
        Err(btvm::VmError::NoEntry(_))
    ));
}

/// Caught by the bit-flip test: nothing bounded `ProgramParts::temps`, and `Scratch::new`
/// (hence `Vm::new` / `Batch::new` / `Batch::par_tick`) allocates `temps` counters, so a
/// program file of under 1 KiB could make the VM allocate 16 GiB. The verifier now allows at
/// most one counter per instruction.
#[test]
fn the_counter_table_is_bounded() {
    let mut p = base();
    p.temps = u32::MAX;
    assert_eq!(
        verify(p.clone(), &limits()).map(|_| ()).unwrap_err().kind(),
        btvm::ProgramErrorKind::TooLarge
    );
    p.temps = p.code.len() as u32;
    assert!(verify(p, &limits()).is_ok());
}
