//! Hand-made bad programs: arities, import kinds and layouts.

use super::*;

#[test]
fn bad_arity_and_import_kinds() {
    let main = 0;
    let say = import_index(&base(), "say", ImportKind::Action);
    let move_to = import_index(&base(), "moveTo", ImportKind::Action);
    let alive = import_index(&base(), "alive", ImportKind::Function);
    let distance = import_index(&base(), "distanceTo", ImportKind::Function);
    // `say` takes 1..1: two arguments.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Act { import, .. } if import.0 == say),
        |i| {
            if let Instr::Act { argc, .. } = i {
                *argc = 2;
            }
        },
    );
    expect(p, K::Arity);
    // `moveTo` takes 1..2: none.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Act { import, .. } if import.0 == move_to),
        |i| {
            if let Instr::Act { argc, .. } = i {
                *argc = 0;
            }
        },
    );
    expect(p, K::Arity);
    // `act` naming a function import.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| matches!(i, Instr::Act { argc: 0, .. }),
        |i| {
            if let Instr::Act { import, .. } = i {
                *import = Imp(alive);
            }
        },
    );
    expect(p, K::Arity);
    // `call.fn` naming an action import.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| {
            matches!(i, Instr::CallFn { import, .. } | Instr::CallFnCmpK { import, .. }
                if import.0 == distance)
        },
        |i| {
            if let Instr::CallFn { import, .. } | Instr::CallFnCmpK { import, .. } = i {
                *import = Imp(say);
            }
        },
    );
    expect(p, K::Arity);
    // `call.fn` with the wrong argument count.
    let mut p = base();
    edit(
        &mut p,
        main,
        |i| {
            matches!(i, Instr::CallFn { import, .. } | Instr::CallFnCmpK { import, .. }
                if import.0 == alive)
        },
        |i| {
            if let Instr::CallFn { argc, .. } | Instr::CallFnCmpK { argc, .. } = i {
                *argc = 1;
            }
        },
    );
    expect(p, K::Arity);
    // An import declaring min > max.
    let mut p = base();
    p.imports[say as usize].min_args = 3;
    p.imports[say as usize].max_args = 2;
    expect(p, K::BadOperand);
}

#[test]
fn bad_layouts() {
    let l = base().layout;
    assert!(l.bits > 0 && l.timer_count > 0 && l.rng.is_some() && l.actions > 0);
    // Overlapping fields.
    let overlaps: Vec<(&str, Mutation<'_, btvm::program::Layout>)> = vec![
        ("timers on the list", Box::new(|l| l.timers = l.list)),
        (
            "rng on the timers",
            Box::new(|l| l.rng = Some(l.timers + 4)),
        ),
        (
            "count on current",
            Box::new(|l| l.count.offset = l.current.offset),
        ),
        ("list on count", Box::new(|l| l.list = l.count.offset)),
        (
            "current inside the timers",
            Box::new(|l| l.current.offset = l.timers + 3),
        ),
    ];
    for (what, f) in overlaps {
        let mut p = base();
        f(&mut p.layout);
        match verify(p, &limits()) {
            Ok(_) => panic!("{what}: verified"),
            Err(e) => assert_eq!(e.kind(), K::BadLayout, "{what}: {e}"),
        }
    }
    // A field past the end of the block.
    let past: Vec<(&str, Mutation<'_, btvm::program::Layout>)> = vec![
        ("block one byte short", Box::new(|l| l.size -= 1)),
        ("timers past the end", Box::new(|l| l.timers = l.size - 7)),
        ("rng past the end", Box::new(|l| l.rng = Some(u32::MAX - 3))),
        ("list past the end", Box::new(|l| l.list = u32::MAX)),
        ("many timers", Box::new(|l| l.timer_count = u32::MAX)),
        ("many bits", Box::new(|l| l.bits = u32::MAX)),
        (
            "current past the end",
            Box::new(|l| l.current.offset = l.size),
        ),
    ];
    for (what, f) in past {
        let mut p = base();
        f(&mut p.layout);
        match verify(p, &limits()) {
            Ok(_) => panic!("{what}: verified"),
            Err(e) => assert_eq!(e.kind(), K::BadLayout, "{what}: {e}"),
        }
    }
    // Widths and capacities.
    let mut p = base();
    p.layout.current.width = 3;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.count.width = 8;
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.actions = 256; // the slot is one byte wide
    assert_eq!(p.layout.current.width, 1);
    expect(p, K::BadLayout);
    let mut p = base();
    p.layout.capacity = 300;
    assert_eq!(p.layout.count.width, 1);
    if p.layout.bits < 256 {
        p.layout.bits = 256;
        // keep the list inside the block: move everything after it
        let grow = 256u32.div_ceil(8) - base().layout.list_bytes();
        p.layout.size += grow;
        p.layout.timers += grow;
        p.layout.rng = p.layout.rng.map(|r| r + grow);
    }
    expect(p, K::BadLayout);
    // `random` with no PRNG slot.
    let mut p = base();
    p.layout.rng = None;
    expect(p, K::BadLayout);
    // Sanity: a bigger block with room to spare is fine.
    let mut p = base();
    p.layout.size += 100;
    verify(p, &limits()).expect("unused bytes are allowed");
}
