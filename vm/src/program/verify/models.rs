//! The verifier's checks of each execution model: the cursor, decider, lifecycle and selection
//! programs' layouts, tables and instructions (see the [parent](super) for what is proved).
//!
//! Like the rest of the verifier, it never executes code and never panics.

use super::*;

/// The decider model's state regions (header, group records, stimulus records), inside the
/// block and clear of every other field; other models have none.
pub(super) fn decider_layout(p: &ProgramParts) -> Result<(), ProgramError> {
    let l = &p.layout;
    let bad = |m: String| Err(err(K::BadLayout, m));
    if !matches!(p.model, ProgramModel::Decider { .. }) {
        if l.decider != 0 || l.groups != 0 || l.group_count != 0 || l.stimuli != 0 {
            return bad("decider-model state in a program of another model".into());
        }
        if p.stimuli != 0 {
            return Err(err(
                K::BadOperand,
                "stimuli declared in a program of another model".into(),
            ));
        }
        return Ok(());
    }
    if p.stimuli > crate::decider::MAX_FLAG_BITS {
        return Err(err(
            K::BadOperand,
            format!("{} stimuli; at most 32 may be declared", p.stimuli),
        ));
    }
    if l.flags.width != 1 {
        return bad("a decider program needs a flags byte".into());
    }
    let regions: Vec<(&'static str, u64, u64)> = vec![
        ("flags", u64::from(l.flags.offset), 1),
        (
            "current",
            u64::from(l.current.offset),
            u64::from(l.current.width),
        ),
        ("count", u64::from(l.count.offset), u64::from(l.count.width)),
        (
            "cursor",
            u64::from(l.cursor.offset),
            u64::from(l.cursor.width),
        ),
        ("list", u64::from(l.list), u64::from(l.list_bytes())),
        ("timers", u64::from(l.timers), 8 * u64::from(l.timer_count)),
        ("leaf", u64::from(l.leaf.offset), u64::from(l.leaf.width)),
        ("decider", u64::from(l.decider), u64::from(DECIDER_HEADER)),
        (
            "groups",
            u64::from(l.groups),
            u64::from(GROUP_RECORD) * u64::from(l.group_count),
        ),
        (
            "stimuli",
            u64::from(l.stimuli),
            u64::from(STIMULUS_RECORD) * u64::from(p.stimuli),
        ),
    ];
    disjoint_in_block(regions, l)
}

/// Checks a layout's named regions `(name, start, length)`, together with the rng word and
/// the state-variable regions: each ends inside the block and no two overlap (empty ones
/// are ignored).
pub(super) fn disjoint_in_block(
    mut regions: Vec<(&'static str, u64, u64)>,
    l: &Layout,
) -> Result<(), ProgramError> {
    let bad = |m: String| Err(err(K::BadLayout, m));
    if let Some(at) = l.rng {
        regions.push(("rng", u64::from(at), 8));
    }
    regions.extend(state_regions(l));
    regions.retain(|r| r.2 > 0);
    for &(name, start, len) in &regions {
        if start + len > u64::from(l.size) {
            return bad(format!(
                "the {name} field ends past the {}-byte block",
                l.size
            ));
        }
    }
    regions.sort_by_key(|r| r.1);
    for w in regions.windows(2) {
        if w[0].1 + w[0].2 > w[1].1 {
            return bad(format!("the {} and {} fields overlap", w[0].0, w[1].0));
        }
    }
    Ok(())
}

/// The regions of the lifecycle and selection models' state (empty in other programs).
fn state_regions(l: &Layout) -> [(&'static str, u64, u64); 3] {
    [
        (
            "vars",
            u64::from(l.vars),
            u64::from(l.var_count.div_ceil(8)),
        ),
        (
            "stamps",
            u64::from(l.stamps),
            u64::from(STAMP_RECORD) * u64::from(l.stamp_count),
        ),
        ("records", u64::from(l.records), u64::from(l.records_len)),
    ]
}

/// Whether the program keeps variables, records and timestamps in the state.
pub(super) fn has_state_vars(p: &ProgramParts) -> bool {
    matches!(
        p.model,
        ProgramModel::Lifecycle | ProgramModel::Selection { .. }
    )
}

/// The lifecycle and selection models' tables and state, or their absence in other models.
pub(super) fn state_model(p: &ProgramParts) -> Result<(), ProgramError> {
    let l = &p.layout;
    if !p.var_names.is_empty() && p.var_names.len() != p.vars.len() {
        return Err(err(
            K::BadOperand,
            format!(
                "{} variable names for {} variables",
                p.var_names.len(),
                p.vars.len()
            ),
        ));
    }
    let events = p
        .functions
        .iter()
        .any(|f| matches!(f.kind, FunctionKind::Event | FunctionKind::Restart));
    if !has_state_vars(p) {
        if l.vars != 0
            || l.var_count != 0
            || l.stamps != 0
            || l.stamp_count != 0
            || l.records != 0
            || l.records_len != 0
            || l.leaf != crate::program::Field::default()
            || l.leaves != 0
        {
            return Err(err(
                K::BadLayout,
                "lifecycle or selection state in a program of another model".into(),
            ));
        }
        if events {
            return Err(err(
                K::BadContinuation,
                "an event or restart function in a program of another model".into(),
            ));
        }
        if let Some(pc) = p
            .code
            .iter()
            .position(|i| i.is_record() || i.is_lifecycle() || i.is_selection())
        {
            return Err(err(
                K::BadOperand,
                format!("lifecycle or selection instruction at {pc} in a program of another model"),
            ));
        }
        return Ok(());
    }
    if l.flags.width != 1 {
        return Err(err(
            K::BadLayout,
            "a lifecycle or selection program needs a flags byte".into(),
        ));
    }
    if l.var_count as usize != p.vars.len() {
        return Err(err(
            K::BadLayout,
            format!(
                "{} variables in the state, {} in the table",
                l.var_count,
                p.vars.len()
            ),
        ));
    }
    if let Some(k) = p.vars.iter().position(|v| !matches!(v, Value::Bool(_))) {
        return Err(err(K::BadOperand, format!("variable {k} is not a boolean")));
    }
    let lifecycle = p.model == ProgramModel::Lifecycle;
    if lifecycle && (l.leaf.width != 0 || l.leaves != 0) {
        return Err(err(
            K::BadLayout,
            "a lifecycle program with a current-leaf slot".into(),
        ));
    }
    let restarts = p
        .functions
        .iter()
        .filter(|f| f.kind == FunctionKind::Restart)
        .count();
    if restarts > usize::from(lifecycle) {
        return Err(err(
            K::BadContinuation,
            format!(
                "{restarts} restart functions in a {} program",
                if lifecycle { "lifecycle" } else { "selection" }
            ),
        ));
    }
    let mut names = std::collections::HashSet::new();
    for f in p.functions.iter().filter(|f| f.kind == FunctionKind::Event) {
        if !names.insert(f.name.as_str()) {
            return Err(err(
                K::BadOperand,
                format!("two event functions are named `{}`", f.name),
            ));
        }
    }
    let wrong = |i: &Instr| {
        if lifecycle {
            i.is_selection()
        } else {
            i.is_lifecycle()
        }
    };
    if let Some(pc) = p.code.iter().position(wrong) {
        return Err(err(
            K::BadOperand,
            format!(
                "`{}` at {pc} in a {} program",
                p.code[pc].mnemonic(),
                if lifecycle { "lifecycle" } else { "selection" }
            ),
        ));
    }
    Ok(())
}

/// The cursor model's tables and fields, or their absence in other models.
pub(super) fn cursor(p: &ProgramParts) -> Result<(), ProgramError> {
    let l = &p.layout;
    match p.model {
        ProgramModel::Cursor { limit } => {
            if limit == 0 {
                return Err(err(K::BadOperand, "a run-away limit of 0".into()));
            }
            let [f] = &p.functions[..] else {
                return Err(err(
                    K::BadContinuation,
                    format!(
                        "a cursor program has one entry function, not {}",
                        p.functions.len()
                    ),
                ));
            };
            if f.kind != FunctionKind::Entry {
                return Err(err(
                    K::BadContinuation,
                    "a cursor program's function is not an entry".into(),
                ));
            }
            if p.rules.is_empty() {
                return Err(err(K::BadOperand, "a cursor program without rules".into()));
            }
            if l.flags.width != 1 || l.cursor.width == 0 {
                return Err(err(
                    K::BadLayout,
                    "a cursor program needs a cursor field and a flags byte".into(),
                ));
            }
            if (p.rules.len() - 1) as u64 > l.cursor.max() {
                return Err(err(
                    K::BadLayout,
                    format!("{} rules do not fit the cursor field", p.rules.len()),
                ));
            }
            // The step starts with the one `cursor.dispatch`, which no rule leads back to:
            // every backward jump is then a counted `cursor.move`.
            if p.code.get(f.start as usize) != Some(&Instr::Dispatch {})
                || p.code
                    .iter()
                    .skip(f.start as usize + 1)
                    .any(|i| *i == Instr::Dispatch {})
            {
                return Err(err(
                    K::BadContinuation,
                    "a cursor program starts with its only `cursor.dispatch`".into(),
                ));
            }
            if let Some(r) = p
                .rules
                .iter()
                .find(|r| r.label <= f.start || r.label >= f.end)
            {
                return Err(err(
                    K::BadJump,
                    format!("rule label {} lies outside `{}`'s rules", r.label, f.name),
                ));
            }
        }
        ProgramModel::Decider { .. } => {
            let [f] = &p.functions[..] else {
                return Err(err(
                    K::BadContinuation,
                    format!(
                        "a decider program has one entry function, not {}",
                        p.functions.len()
                    ),
                ));
            };
            if f.kind != FunctionKind::Entry {
                return Err(err(
                    K::BadContinuation,
                    "a decider program's function is not an entry".into(),
                ));
            }
            if !p.rules.is_empty() || l.cursor.width != 0 {
                return Err(err(
                    K::BadLayout,
                    "a decider program with cursor-model state".into(),
                ));
            }
            if let Some(pc) = p.code.iter().position(is_cursor_instr) {
                return Err(err(
                    K::BadOperand,
                    format!("cursor-model instruction at {pc} in a decider program"),
                ));
            }
        }
        ProgramModel::Lifecycle | ProgramModel::Selection { .. } => {
            if !p.rules.is_empty() || l.cursor.width != 0 {
                return Err(err(
                    K::BadLayout,
                    "a lifecycle or selection program with cursor-model state".into(),
                ));
            }
            if let Some(pc) = p.code.iter().position(is_cursor_instr) {
                return Err(err(
                    K::BadOperand,
                    format!("cursor-model instruction at {pc} in a lifecycle or selection program"),
                ));
            }
        }
        ProgramModel::RunningList => {
            if !p.rules.is_empty() || l.cursor.width != 0 || l.flags.width != 0 {
                return Err(err(
                    K::BadLayout,
                    "a running-list program with cursor-model state".into(),
                ));
            }
            if let Some(pc) = p.code.iter().position(is_cursor_instr) {
                return Err(err(
                    K::BadOperand,
                    format!("cursor-model instruction at {pc} in a running-list program"),
                ));
            }
        }
    }
    if !matches!(p.model, ProgramModel::Decider { .. }) {
        if let Some(pc) = p.code.iter().position(Instr::is_decider) {
            return Err(err(
                K::BadOperand,
                format!("decider-model instruction at {pc} in a program of another model"),
            ));
        }
    }
    Ok(())
}

/// Instructions that only cursor programs may hold.
pub(super) fn is_cursor_instr(i: &Instr) -> bool {
    matches!(
        i,
        Instr::Dispatch {}
            | Instr::Move { .. }
            | Instr::SetCursor { .. }
            | Instr::Step { .. }
            | Instr::Stop {}
            | Instr::ActCursor { .. }
            | Instr::Yield { .. }
    )
}

/// The immediate operands of record, lifecycle and selection instructions: record fields and
/// ranges inside the records region, widths of 1, 2 or 4 bytes, phases, queries, targets and
/// leaves in range, call arities, a PRNG slot for drawn waits.
pub(super) fn record_operands(p: &ProgramParts, ins: &Instr) -> Option<(K, String)> {
    let l = &p.layout;
    let len = u64::from(l.records_len);
    let range = |at: u32, n: u64, what: &str| {
        (u64::from(at) + n > len).then(|| {
            (
                K::IndexOutOfRange,
                format!("{what} at record byte {at} (+{n}) of {len}"),
            )
        })
    };
    let field = |at: u32, width: u8| {
        if matches!(width, 1 | 2 | 4) {
            range(at, u64::from(width), "a field")
        } else {
            Some((K::BadOperand, format!("a record field {width} bytes wide")))
        }
    };
    let arity = |import: u32, argc: u8| {
        let imp = &p.imports[import as usize];
        (argc < imp.min_args || argc > imp.max_args).then(|| {
            (
                K::Arity,
                format!("`{}` called with {argc} arguments", imp.name),
            )
        })
    };
    match *ins {
        Instr::RecZero { at, len: n } => range(at, u64::from(n), "a range"),
        Instr::RecJumpEq { at, width, .. }
        | Instr::RecJumpGe { at, width, .. }
        | Instr::RecSet { at, width, .. }
        | Instr::RecInc { at, width } => field(at, width),
        Instr::RecCopy { dst, src, width } => field(dst, width).or_else(|| field(src, width)),
        Instr::TsPush { query, .. } if query > 2 => {
            Some((K::BadOperand, format!("{query} is not a timestamp query")))
        }
        Instr::LcAct { import, argc, .. } => {
            if p.imports[import.0 as usize].kind != ImportKind::Action {
                Some((
                    K::Arity,
                    format!("`{}` is not an action", p.imports[import.0 as usize].name),
                ))
            } else {
                arity(import.0, argc)
            }
        }
        Instr::LcCall {
            import,
            argc,
            phase,
        } => arity(import.0, argc)
            .or_else(|| (phase > 2).then(|| (K::BadOperand, format!("{phase} is not a phase")))),
        Instr::LcWaitArm { at, variation, .. } => range(at, 8, "a time").or_else(|| {
            (variation != 0 && l.rng.is_none()).then(|| {
                (
                    K::BadLayout,
                    "`lc.wait.arm` with a variation without a PRNG slot".into(),
                )
            })
        }),
        Instr::LcJumpWait { at, .. } => range(at, 8, "a time"),
        Instr::LcQuorum { at, n, .. } => {
            if u32::from(n) > MAX_STATES {
                Some((
                    K::IndexOutOfRange,
                    format!("a parallel of {n} children; at most {MAX_STATES}"),
                ))
            } else {
                range(at, 2 * u64::from(n).div_ceil(8), "a parallel's masks")
            }
        }
        Instr::SelSeen { at } => range(at, 1, "a state"),
        Instr::SelVisit { at, target, .. } => {
            if u32::from(target) >= MAX_STATES {
                Some((
                    K::IndexOutOfRange,
                    format!("state {target} of at most {MAX_STATES}"),
                ))
            } else {
                range(at, 1, "a state")
            }
        }
        Instr::SelLeaf { leaf, .. } if leaf >= l.leaves => {
            Some((K::IndexOutOfRange, format!("leaf {leaf} of {}", l.leaves)))
        }
        Instr::SelJumpPrev { lo, hi, .. } if lo > hi || hi > l.leaves => Some((
            K::IndexOutOfRange,
            format!("leaves {lo}..{hi} of {}", l.leaves),
        )),
        _ => None,
    }
}
