//! Lifecycle-model (MBT) programs.

use super::*;

/// The lifecycle program's parts.
fn base() -> ProgramParts {
    program_lifecycle().parts().clone()
}

#[test]
fn bad_lifecycle_jumps() {
    verify(base(), &limits()).expect("the lifecycle program verifies");
    // Every lifecycle jump goes forward.
    let preds: [fn(&Instr) -> bool; 9] = [
        |i| matches!(i, Instr::RecJump { .. }),
        |i| matches!(i, Instr::RecJumpEq { .. }),
        |i| matches!(i, Instr::RecJumpGe { .. }),
        |i| matches!(i, Instr::VarJump { .. }),
        |i| matches!(i, Instr::LcBegin { .. }),
        |i| matches!(i, Instr::LcJumpChanged { .. }),
        |i| matches!(i, Instr::LcJumpWait { .. }),
        |i| matches!(i, Instr::LcAct { .. }),
        |i| matches!(i, Instr::LcQuorum { .. }),
    ];
    for pred in preds {
        let mut p = base();
        let at = first_at(&p, pred);
        p.code[at].map_labels(|_| Label(at as u32));
        expect(p, K::BadJump);
    }
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::JumpStopped { .. }));
    p.code[at].map_labels(|_| Label(0));
    expect(p, K::BadJump);
}

#[test]
fn lifecycle_record_operands_out_of_range() {
    // Record operands out of range: a bit, a field, a width, a range, a time, the masks.
    let len = base().layout.records_len;
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::RecBit { .. }));
    p.code[at] = Instr::RecBit {
        bit: RBit(len * 8),
        value: true,
    };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::RecSet { .. }));
    p.code[at] = Instr::RecSet {
        at: len - 1,
        width: 2,
        value: 1,
    };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    p.code[at] = Instr::RecSet {
        at: 0,
        width: 3,
        value: 1,
    };
    expect(p, K::BadOperand);
    let mut p = base();
    let z = first_at(&p, |i| matches!(i, Instr::RecZero { .. }));
    p.code[z] = Instr::RecZero { at: 1, len };
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let w = first_at(&p, |i| matches!(i, Instr::LcWaitArm { .. }));
    if let Instr::LcWaitArm { at, .. } = &mut p.code[w] {
        *at = len - 7;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let q = first_at(&p, |i| matches!(i, Instr::LcQuorum { .. }));
    if let Instr::LcQuorum { n, .. } = &mut p.code[q] {
        *n = 33;
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    if let Instr::LcQuorum { at, .. } = &mut p.code[q] {
        *at = len;
    }
    expect(p, K::IndexOutOfRange);
}

#[test]
fn bad_lifecycle_variables_stamps_and_calls() {
    // Variables, timestamps, queries, phases, arities.
    let mut p = base();
    let v = first_at(&p, |i| matches!(i, Instr::VarJump { .. }));
    if let Instr::VarJump { var, .. } = &mut p.code[v] {
        *var = Var(2);
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    let t = first_at(&p, |i| matches!(i, Instr::TsPush { .. }));
    if let Instr::TsPush { ts, .. } = &mut p.code[t] {
        *ts = Stamp(2);
    }
    expect(p, K::IndexOutOfRange);
    let mut p = base();
    if let Instr::TsPush { query, .. } = &mut p.code[t] {
        *query = 3;
    }
    expect(p, K::BadOperand);
    let mut p = base();
    let c = first_at(&p, |i| matches!(i, Instr::LcCall { .. }));
    if let Instr::LcCall { phase, .. } = &mut p.code[c] {
        *phase = 3;
    }
    expect(p, K::BadOperand);
    let mut p = base();
    let aim = import_index(&p, "Aim", ImportKind::Action);
    let c = first_at(
        &p,
        |i| matches!(i, Instr::LcCall { import, .. } if import.0 == aim),
    );
    if let Instr::LcCall { argc, .. } = &mut p.code[c] {
        *argc = 2;
    }
    expect(p, K::Arity);
    let mut p = base();
    let lua = import_index(&p, "lua_0", ImportKind::Function);
    let a = first_at(&p, |i| matches!(i, Instr::LcAct { .. }));
    if let Instr::LcAct { import, .. } = &mut p.code[a] {
        *import = Imp(lua);
    }
    expect(p, K::Arity);
    let mut p = base();
    let s = first_at(&p, |i| matches!(i, Instr::ScopeEnter { .. }));
    if let Instr::ScopeEnter { scope, .. } = &mut p.code[s] {
        *scope = Str(10_000);
    }
    expect(p, K::IndexOutOfRange);
}

#[test]
fn bad_lifecycle_state() {
    // A drawn wait without a PRNG slot.
    let mut p = base();
    p.layout.rng = None;
    expect(p, K::BadLayout);
    // The state: overlapping regions, a region past the block, the variable table.
    let mut p = base();
    p.layout.records = p.layout.vars;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.stamp_count += 1000;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.var_count = 1;
    expect(p, K::BadLayout);
    let mut p = base();
    p.vars[0] = Value::Int(1);
    expect(p, K::BadOperand);
    let mut p = base();
    p.var_names.pop();
    expect(p, K::BadOperand);
    let mut p = base();
    p.layout.flags.width = 0;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.leaf = btvm::program::Field {
        offset: p.layout.size - 1,
        width: 1,
    };
    expect(p, K::BadLayout);
}

#[test]
fn bad_event_and_restart_functions() {
    // Event functions: distinct names, `return` not `finish`, only in these models; a call
    // may reach them, never an entry.
    let mut p = base();
    let e = p
        .functions
        .iter()
        .position(|f| f.kind == FunctionKind::Event)
        .expect("an event function");
    let other = p
        .functions
        .iter()
        .rposition(|f| f.kind == FunctionKind::Event)
        .expect("events");
    assert_ne!(e, other, "the tree has several events");
    p.functions[other].name = p.functions[e].name.clone();
    expect(p, K::BadOperand);
    let mut p = base();
    let end = p.functions[e].end as usize;
    p.code[end - 1] = Instr::Finish {
        status: Status::Success,
    };
    expect(p, K::BadContinuation);
    let mut p = base();
    let call = first_at(&p, |i| matches!(i, Instr::Call { .. }));
    if let Instr::Call { func, .. } = &mut p.code[call] {
        *func = Func(0);
    }
    expect(p, K::BadContinuation);
    // The restart function: at most one, in lifecycle programs only, never called.
    let mut p = base();
    let r = p
        .functions
        .iter()
        .position(|f| f.kind == FunctionKind::Restart)
        .expect("a restart function");
    p.functions[e].kind = FunctionKind::Restart;
    expect(p, K::BadContinuation);
    let mut p = base();
    let call = first_at(&p, |i| matches!(i, Instr::Call { .. }));
    if let Instr::Call { func, .. } = &mut p.code[call] {
        *func = Func(r as u32);
    }
    expect(p, K::BadContinuation);
    let mut p = program_all().parts().clone();
    p.functions[0].kind = FunctionKind::Restart;
    expect(p, K::BadContinuation);
}

#[test]
fn lifecycle_instructions_out_of_place() {
    // Selection or decider instructions here, lifecycle instructions elsewhere.
    let mut p = base();
    let at = first_at(&p, |i| matches!(i, Instr::LcStop {}));
    p.code[at] = Instr::SelNone {};
    expect(p, K::BadOperand);
    let mut p = base();
    p.code[at] = Instr::DecGuard {};
    expect(p, K::BadOperand);
    let mut p = program_all().parts().clone();
    let at = first_at(&p, |i| matches!(i, Instr::Finish { .. }));
    p.code.insert(at, Instr::LcLog { msg: Str(0) });
    // The code map keeps its length, so only the instruction is under test.
    if !p.nodes.code.is_empty() {
        p.nodes.code.insert(at, u32::MAX);
    }
    for f in &mut p.functions {
        if f.end as usize > at {
            f.end += 1;
        }
        if f.start as usize > at {
            f.start += 1;
        }
    }
    for ins in &mut p.code {
        ins.map_labels(|l| if l.0 as usize > at { Label(l.0 + 1) } else { l });
    }
    expect(p, K::BadOperand);
    let mut p = program_all().parts().clone();
    p.functions[0].kind = FunctionKind::Event;
    expect(p, K::BadContinuation);
    let mut p = program_all().parts().clone();
    p.layout.records_len = 1;
    p.layout.records = p.layout.size;
    p.layout.size += 1;
    expect(p, K::BadLayout);
    // A lifecycle program with selection or cursor state.
    let mut p = base();
    p.layout.leaves = 1;
    expect(p, K::BadLayout);
    // A tick beyond the budget (loop bodies are called twice).
    let small = Limits {
        max_tick_instructions: 50,
        ..limits()
    };
    expect_with(base(), &small, K::BudgetExceeded);
}
