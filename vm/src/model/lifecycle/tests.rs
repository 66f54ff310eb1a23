//! The lifecycle and selection models' state operations, instruction by instruction.

use super::*;
use crate::model::selection::{select_leaf, select_none};
use crate::program::{Function, FunctionKind, Label, ProgramParts, RBit, Stamp, Var, FLAG_STOPPED};
use crate::{Limits, Prng};

/// A lifecycle program with two variables (defaults false, true), a timestamp, 16 record
/// bytes and a PRNG; its code is one `finish`.
fn program(model: ProgramModel) -> Program {
    let mut code = vec![Instr::Finish {
        status: Status::Success,
    }];
    if model == ProgramModel::Lifecycle {
        code.insert(
            0,
            Instr::ScopeEnter {
                scope: crate::program::Str(0),
                max: 1,
                held: RBit(3),
                member: RBit(4),
                group: 12,
            },
        );
    }
    let layout = Layout {
        size: 1 + 1 + 9 + 16 + 8 + 1,
        flags: Field {
            offset: 0,
            width: 1,
        },
        vars: 1,
        var_count: 2,
        stamps: 2,
        stamp_count: 1,
        records: 11,
        records_len: 16,
        rng: Some(27),
        leaf: if model == ProgramModel::Lifecycle {
            Field::default()
        } else {
            Field {
                offset: 35,
                width: 1,
            }
        },
        leaves: u32::from(model != ProgramModel::Lifecycle) * 3,
        ..Layout::default()
    };
    let parts = ProgramParts {
        model,
        single_precision: false,
        clock: 1,
        layout,
        strings: vec!["scope".into()],
        imports: Vec::new(),
        vars: vec![Value::Bool(false), Value::Bool(true)],
        var_names: vec!["Alive".into(), "alive".into()],
        temps: 0,
        functions: vec![Function {
            name: "main".into(),
            kind: FunctionKind::Entry,
            start: 0,
            end: code.len() as u32,
        }],
        rules: Vec::new(),
        stimuli: 0,
        code,
        nodes: Default::default(),
    };
    Program::new(parts, &Limits::default()).expect("a valid program")
}

fn run(p: &Program, s: &mut LifeScratch, state: &mut [u8], ins: Instr, now: Millis) -> u64 {
    step(p, s, state, &ins, now, 7, &mut 0, false)
}

#[test]
fn variables_start_at_their_defaults_and_mark_changes_only() {
    let p = program(ProgramModel::Lifecycle);
    let mut st = p.new_state();
    assert_eq!(p.var(&st, 0), Some(false));
    assert_eq!(p.var(&st, 1), Some(true));
    assert_eq!(p.var(&st, 2), None);
    assert!(changed(&st, p.layout()), "a fresh agent has changed");
    let mut s = LifeScratch::new(&p);
    run(&p, &mut s, &mut st, Instr::LcBegin { stopped: Label(1) }, 0);
    assert!(!changed(&st, p.layout()));
    p.set_var(&mut st, 1, true).unwrap();
    assert!(
        !changed(&st, p.layout()),
        "setting the same value is no change"
    );
    p.set_var(&mut st, 1, false).unwrap();
    assert!(changed(&st, p.layout()));
    assert_eq!(p.var(&st, 1), Some(false));
    assert_eq!(
        p.set_var(&mut st, 5, true),
        Err(VmError::UnknownVariable(5))
    );
    assert_eq!(p.var_index("alive"), Some(1), "the exact match first");
    assert_eq!(p.var_index("ALIVE"), Some(0), "then any case");
    assert_eq!(p.var_index("dead"), None);
}

#[test]
fn changed_before_survives_the_reset_of_changed() {
    let p = program(ProgramModel::Lifecycle);
    let mut st = p.new_state();
    let mut s = LifeScratch::new(&p);
    let jc = Instr::LcJumpChanged { to: Label(1) };
    run(&p, &mut s, &mut st, Instr::LcBegin { stopped: Label(1) }, 0);
    assert_eq!(
        run(&p, &mut s, &mut st, jc, 0),
        FIRST,
        "fresh: changed before"
    );
    run(&p, &mut s, &mut st, Instr::LcBegin { stopped: Label(1) }, 0);
    assert_eq!(run(&p, &mut s, &mut st, jc, 0), FALL);
    run(&p, &mut s, &mut st, Instr::VarSet { var: Var(0) }, 0);
    assert_eq!(run(&p, &mut s, &mut st, jc, 0), FALL, "false is no change");
    step(
        &p,
        &mut s,
        &mut st,
        &Instr::VarSet { var: Var(0) },
        0,
        7,
        &mut 0,
        true,
    );
    assert_eq!(
        run(&p, &mut s, &mut st, jc, 0),
        FIRST,
        "a change during the tick"
    );
    run(&p, &mut s, &mut st, Instr::LcStop {}, 0);
    assert_ne!(st[0] & FLAG_STOPPED, 0);
    let begin = Instr::LcBegin { stopped: Label(1) };
    assert_eq!(run(&p, &mut s, &mut st, begin, 0), FIRST, "a stopped tree");
    assert_eq!(p.halt(&st), Some(crate::Halt::Stopped));
}

#[test]
fn records_bits_fields_and_ranges() {
    let p = program(ProgramModel::Lifecycle);
    let mut st = p.new_state();
    let mut s = LifeScratch::new(&p);
    let set = |v| Instr::RecSet {
        at: 2,
        width: 2,
        value: v,
    };
    run(&p, &mut s, &mut st, set(300), 0);
    let eq = |v| Instr::RecJumpEq {
        at: 2,
        width: 2,
        value: v,
        to: Label(1),
    };
    assert_eq!(run(&p, &mut s, &mut st, eq(300), 0), FIRST);
    assert_eq!(run(&p, &mut s, &mut st, eq(44), 0), FALL);
    run(&p, &mut s, &mut st, set(0xffff), 0);
    run(&p, &mut s, &mut st, Instr::RecInc { at: 2, width: 2 }, 0);
    assert_eq!(run(&p, &mut s, &mut st, eq(0xffff), 0), FIRST, "saturates");
    let copy = Instr::RecCopy {
        dst: 4,
        src: 2,
        width: 2,
    };
    run(&p, &mut s, &mut st, copy, 0);
    let ge = Instr::RecJumpGe {
        at: 4,
        width: 2,
        value: 0xfffe,
        to: Label(1),
    };
    assert_eq!(run(&p, &mut s, &mut st, ge, 0), FIRST);
    run(
        &p,
        &mut s,
        &mut st,
        Instr::RecBit {
            bit: RBit(9),
            value: true,
        },
        0,
    );
    let jb = |w| Instr::RecJump {
        bit: RBit(9),
        when: w,
        to: Label(1),
    };
    assert_eq!(run(&p, &mut s, &mut st, jb(true), 0), FIRST);
    run(&p, &mut s, &mut st, Instr::RecZero { at: 1, len: 4 }, 0);
    assert_eq!(run(&p, &mut s, &mut st, jb(false), 0), FIRST, "zeroed");
    assert_eq!(run(&p, &mut s, &mut st, eq(0), 0), FIRST);
    // The copy at 4..6 is outside the zeroed range only in its second byte.
    assert_eq!(st[11 + 5], 0xff);
    // Out of range: reads 0, writes nothing, never panics.
    let far = Instr::RecSet {
        at: 15,
        width: 4,
        value: 9,
    };
    run(&p, &mut s, &mut st, far, 0);
    assert!(st[11 + 15..].iter().all(|&b| b == 0 || b == st[11 + 15]));
}

#[test]
fn timestamps_and_waits() {
    let p = program(ProgramModel::Lifecycle);
    let mut st = p.new_state();
    let mut s = LifeScratch::new(&p);
    let q = |k| Instr::TsPush {
        ts: Stamp(0),
        query: k,
    };
    assert_eq!(run(&p, &mut s, &mut st, q(0), 0), 0);
    run(&p, &mut s, &mut st, Instr::TsStamp { ts: Stamp(0) }, 100);
    assert_eq!(run(&p, &mut s, &mut st, q(0), 150), 1);
    assert_eq!(run(&p, &mut s, &mut st, q(1), 150), 1);
    assert_eq!(run(&p, &mut s, &mut st, q(2), 150), 50);
    run(&p, &mut s, &mut st, Instr::TsInvalidate { ts: Stamp(0) }, 0);
    assert_eq!(run(&p, &mut s, &mut st, q(0), 150), 1, "still ever set");
    assert_eq!(run(&p, &mut s, &mut st, q(1), 150), 0);
    let arm = Instr::LcWaitArm {
        at: 8,
        time: 100,
        variation: 0,
    };
    run(&p, &mut s, &mut st, arm, 1000);
    let wait = Instr::LcJumpWait {
        at: 8,
        to: Label(1),
    };
    assert_eq!(run(&p, &mut s, &mut st, wait, 1099), FIRST);
    assert_eq!(run(&p, &mut s, &mut st, wait, 1100), FALL);
    let drawn = Instr::LcWaitArm {
        at: 8,
        time: 0,
        variation: 10,
    };
    run(&p, &mut s, &mut st, drawn, 0);
    let end = i64::from_le_bytes(st[19..27].try_into().unwrap());
    assert!((0..=10).contains(&end), "{end}");
    let mut r = Prng::for_agent(7);
    assert_eq!(end, ((r.next_f64() * 11.0) as i64).min(10));
    let forever = Instr::LcWaitArm {
        at: 8,
        time: i64::MAX,
        variation: 0,
    };
    run(&p, &mut s, &mut st, forever, 5);
    assert_eq!(
        run(&p, &mut s, &mut st, wait, i64::MAX - 1),
        FIRST,
        "saturates"
    );
}

#[test]
fn scopes_are_counted_per_group_and_left_on_reset() {
    let p = program(ProgramModel::Lifecycle);
    let mut s = LifeScratch::new(&p);
    let (mut a, mut b, mut c) = (p.new_state(), p.new_state(), p.new_state());
    let enter = p.code()[0];
    run(&p, &mut s, &mut a, enter, 0);
    run(&p, &mut s, &mut b, enter, 0);
    assert_eq!(
        s.scope_users(0, 0),
        1,
        "the second agent finds the scope full"
    );
    assert!(rec_bit(&a, p.layout(), 3) && rec_bit(&a, p.layout(), 4));
    assert!(!rec_bit(&b, p.layout(), 3));
    // Another group has its own scopes.
    set_group(&p, &mut s, &mut c, 7);
    assert_eq!(p.group(&c), 7);
    run(&p, &mut s, &mut c, enter, 0);
    assert_eq!((s.scope_users(0, 0), s.scope_users(7, 0)), (1, 1));
    leave_scopes(&p, &mut s, &mut b);
    assert_eq!(s.scope_users(0, 0), 1, "b held nothing");
    leave_scopes(&p, &mut s, &mut a);
    assert_eq!(s.scope_users(0, 0), 0);
    run(&p, &mut s, &mut b, enter, 0);
    assert_eq!(s.scope_users(0, 0), 1);
    let leave = Instr::ScopeLeave {
        scope: crate::program::Str(0),
        held: RBit(3),
        member: RBit(4),
        group: 12,
    };
    run(&p, &mut s, &mut b, leave, 0);
    run(&p, &mut s, &mut b, leave, 0);
    assert_eq!(s.scope_users(0, 0), 0, "leaving twice counts once");
    // A member entering again (a nested scope of one name, room for two) counts once, and
    // its first leave makes it no member at all.
    let twice = Instr::ScopeEnter {
        scope: crate::program::Str(0),
        max: 2,
        held: RBit(3),
        member: RBit(4),
        group: 12,
    };
    run(&p, &mut s, &mut c, twice, 0);
    assert_eq!(s.scope_users(7, 0), 1);
    run(&p, &mut s, &mut c, leave, 0);
    assert_eq!(s.scope_users(7, 0), 0);
    // Changing group leaves the old group's scopes; a reset keeps the group.
    run(&p, &mut s, &mut c, enter, 0);
    set_group(&p, &mut s, &mut c, 0);
    assert_eq!((s.scope_users(0, 0), s.scope_users(7, 0)), (0, 0));
    set_group(&p, &mut s, &mut c, 9);
    p.reset(&mut c);
    assert_eq!(p.group(&c), 9);
}

#[test]
fn scope_ids_are_crc32_of_the_lower_cased_name() {
    assert_eq!(scope_id("123456789"), 0xCBF4_3926);
    assert_eq!(scope_id("Flank"), scope_id("fLANK"));
    assert_ne!(scope_id("Flank"), scope_id("Flank "));
}

#[test]
fn quorum_counts_finished_children() {
    let p = program(ProgramModel::Lifecycle);
    let mut st = p.new_state();
    let mut s = LifeScratch::new(&p);
    let q = |sa, fa| Instr::LcQuorum {
        at: 0,
        n: 3,
        success_all: sa,
        failure_all: fa,
        success: Label(1),
        failure: Label(1),
        running: Label(1),
    };
    assert_eq!(
        run(&p, &mut s, &mut st, q(true, false), 0),
        Status::Running as u64
    );
    // Child 0 succeeded, child 2 failed.
    for bit in [0, 2, 8] {
        run(
            &p,
            &mut s,
            &mut st,
            Instr::RecBit {
                bit: RBit(bit),
                value: true,
            },
            0,
        );
    }
    assert_eq!(
        run(&p, &mut s, &mut st, q(false, true), 0),
        Status::Success as u64
    );
    assert_eq!(
        run(&p, &mut s, &mut st, q(true, false), 0),
        Status::Failure as u64
    );
    assert_eq!(
        run(&p, &mut s, &mut st, q(true, true), 0),
        Status::Running as u64
    );
}

#[test]
fn selection_leaves_and_walks() {
    let p = program(ProgramModel::Selection { limit: 2 });
    let mut st = p.new_state();
    let mut s = LifeScratch::new(&p);
    assert!(select_leaf(&mut st, p.layout(), 1));
    assert!(!changed(&st, p.layout()));
    assert!(!select_leaf(&mut st, p.layout(), 1), "the same leaf again");
    let prev = |lo, hi| Instr::SelJumpPrev {
        lo,
        hi,
        to: Label(1),
    };
    assert_eq!(run(&p, &mut s, &mut st, prev(1, 2), 0), FIRST);
    assert_eq!(run(&p, &mut s, &mut st, prev(0, 1), 0), FALL);
    assert_eq!(run(&p, &mut s, &mut st, prev(2, 3), 0), FALL);
    select_none(&mut st, p.layout());
    assert_eq!(
        run(&p, &mut s, &mut st, prev(1, 2), 0),
        FALL,
        "no current leaf"
    );
    assert!(
        select_leaf(&mut st, p.layout(), 1),
        "a leaf after none is news"
    );
    // Walk: visited = {stored 1}; 0 -> 2 goes on, 2 -> 1 is taken and stops, and the
    // counter limits.
    run(
        &p,
        &mut s,
        &mut st,
        Instr::RecSet {
            at: 0,
            width: 1,
            value: 1,
        },
        0,
    );
    run(&p, &mut s, &mut st, Instr::SelSeen { at: 0 }, 0);
    let visit = |t| Instr::SelVisit {
        at: 0,
        target: t,
        stop: Label(1),
        to: crate::program::Back(0),
    };
    let mut steps = 0;
    let mut go = |st: &mut [u8], t| step(&p, &mut s, st, &visit(t), 0, 7, &mut steps, false);
    assert_eq!(go(&mut st, 2), SECOND);
    assert_eq!(st[11], 2);
    assert_eq!(go(&mut st, 1), FIRST, "visited: taken, then the chain ends");
    assert_eq!(st[11], 1);
    assert_eq!(go(&mut st, 0), FIRST, "past the limit");
}
