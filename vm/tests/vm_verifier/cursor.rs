//! Cursor-model (Drag[en]gine) programs.

use super::*;

#[test]
fn bad_cursor_programs() {
    let base = || program_cursor().parts().clone();
    verify(base(), &limits()).expect("the cursor program verifies");
    let first = |p: &ProgramParts, pred: &dyn Fn(&Instr) -> bool| {
        p.code
            .iter()
            .position(pred)
            .expect("the program has such an instruction")
    };
    // A move to a rule the table lacks.
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Move { .. }));
    if let Instr::Move { rule, .. } = &mut p.code[at] {
        rule.0 = p.rules.len() as u32;
    }
    expect(p, K::IndexOutOfRange);
    // A rule whose code lies outside the function.
    let mut p = base();
    p.rules[1].label = p.code.len() as u32;
    expect(p, K::BadJump);
    // A rule leading back to the dispatch (an uncounted loop), and a second dispatch.
    let mut p = base();
    p.rules[1].label = 0;
    expect(p, K::BadJump);
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::Dispatch {};
    expect(p, K::BadContinuation);
    // A rule entered where the stack is not empty (inside an action's arguments).
    let mut p = base();
    let at = first(&p, &|i| matches!(i, Instr::ActCursor { argc: 2, .. }));
    p.rules[1].label = at as u32;
    expect(p, K::StackMismatch);
    // No run-away limit, no rules, no cursor field, a cursor too narrow for the rules.
    let mut p = base();
    p.model = ProgramModel::Cursor { limit: 0 };
    expect(p, K::BadOperand);
    let mut p = base();
    p.rules.clear();
    expect(p, K::BadOperand);
    let mut p = base();
    p.layout.cursor.width = 0;
    expect(p, K::BadLayout);
    let mut p = base();
    p.rules = (0..300).map(|_| p.rules[0].clone()).collect();
    expect(p, K::BadLayout);
    // A cursor program with a second function.
    let mut p = base();
    append_subtree(
        &mut p,
        "extra",
        &[Instr::Return {
            status: Status::Success,
        }],
    );
    expect(p, K::BadContinuation);
    // Cursor state or instructions in a running-list program.
    let mut p = base();
    p.model = ProgramModel::RunningList;
    expect(p, K::BadLayout);
    let mut p = program_all().parts().clone();
    let at = first(&p, &|i| matches!(i, Instr::Finish { .. }));
    p.code[at] = Instr::Stop {};
    expect(p, K::BadOperand);
}
