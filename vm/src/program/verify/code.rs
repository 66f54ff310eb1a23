//! The verifier's checks of the code: functions' ranges, each function's body (operands,
//! instruction rules, continuations, stack depths) and the call graph with the tick's cost (see
//! the [parent](super) for what is proved).
//!
//! Like the rest of the verifier, it never executes code and never panics.

use super::*;

pub(super) fn functions(p: &ProgramParts) -> Result<(), ProgramError> {
    let mut ranges: Vec<(u32, u32, &str)> = Vec::with_capacity(p.functions.len());
    let mut names = std::collections::HashSet::new();
    for f in &p.functions {
        if f.start >= f.end || f.end as usize > p.code.len() {
            return Err(err(
                K::BadContinuation,
                format!(
                    "function `{}` covers {}..{} of {} instructions",
                    f.name,
                    f.start,
                    f.end,
                    p.code.len()
                ),
            ));
        }
        if f.kind == FunctionKind::Entry && !names.insert(f.name.as_str()) {
            return Err(err(
                K::BadOperand,
                format!("two entries are named `{}`", f.name),
            ));
        }
        ranges.push((f.start, f.end, &f.name));
    }
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if w[0].1 > w[1].0 {
            return Err(err(
                K::BadContinuation,
                format!("functions `{}` and `{}` overlap", w[0].2, w[1].2),
            ));
        }
    }
    Ok(())
}

/// Checks one function's code; returns its deepest operand stack.
pub(super) fn body(
    p: &ProgramParts,
    fi: usize,
    start: usize,
    end: usize,
    targets: &mut [bool],
    limits: &Limits,
) -> Result<u32, ProgramError> {
    let f = &p.functions[fi];
    let at = |pc: usize, m: String| format!("in `{}` at instruction {pc}: {m}", f.name);
    // Operands, and which instructions are jump targets; then each instruction's own rules.
    for pc in start..end {
        let ins = &p.code[pc];
        let problem = operands(p, pc, start, end, ins, targets).or_else(|| instr_rules(p, f, ins));
        if let Some((kind, m)) = problem {
            return Err(err(kind, at(pc, m)));
        }
    }
    if p.code[end - 1].falls_through() {
        return Err(err(
            K::BadContinuation,
            at(
                end - 1,
                "the function's last instruction falls through".into(),
            ),
        ));
    }
    stack_depths(p, f, start, end, limits)
}

/// Instruction `ins` at `pc` of the function `start..end`: whether every operand index is in
/// range and every label stays in the function (forward, but for counted backward labels);
/// marks the labels' instructions in `targets`.
pub(super) fn operands(
    p: &ProgramParts,
    pc: usize,
    start: usize,
    end: usize,
    ins: &Instr,
    targets: &mut [bool],
) -> Option<(K, String)> {
    let mut problem = None;
    ins.operands(|o| {
        if problem.is_some() {
            return;
        }
        let (what, idx, len) = match o {
            OperandRef::Label(t) => {
                let t = t as usize;
                if t <= pc || t >= end {
                    problem = Some((
                        K::BadJump,
                        format!("jump to {t} leaves the function or goes backwards"),
                    ));
                } else {
                    targets[t] = true;
                }
                return;
            }
            OperandRef::Back(t) => {
                // Any direction, inside the function: only `dec.redecide` has one, and it
                // counts every jump (see `calls`).
                let t = t as usize;
                if t < start || t >= end {
                    problem = Some((K::BadJump, format!("jump to {t} leaves the function")));
                } else {
                    targets[t] = true;
                }
                return;
            }
            OperandRef::Func(i) => {
                match p.functions.get(i as usize) {
                    Some(g) if !matches!(g.kind, FunctionKind::Entry | FunctionKind::Restart) => {}
                    Some(_) => {
                        problem = Some((
                            K::BadContinuation,
                            format!("call of entry or restart function {i}"),
                        ))
                    }
                    None => {
                        problem = Some((
                            K::IndexOutOfRange,
                            format!("call of function {i} of {}", p.functions.len()),
                        ))
                    }
                }
                return;
            }
            OperandRef::Bit(i) => ("bit", i, p.layout.bits),
            OperandRef::Timer(i) => ("timer", i, p.layout.timer_count),
            OperandRef::Import(i) => ("import", i, len32(p.imports.len())),
            OperandRef::Temp(i) => ("counter", i, p.temps),
            OperandRef::Var(i) => ("variable", i, len32(p.vars.len())),
            OperandRef::Str(i) => ("string", i, len32(p.strings.len())),
            OperandRef::Action(i) => ("action", i, p.layout.actions),
            OperandRef::Rule(i) => ("rule", i, len32(p.rules.len())),
            OperandRef::Group(i) => ("group", i, p.layout.group_count),
            OperandRef::RBit(i) => ("record bit", i, p.layout.records_len.saturating_mul(8)),
            OperandRef::Stamp(i) => ("timestamp", i, p.layout.stamp_count),
            OperandRef::Immediate => return,
        };
        if idx >= len {
            problem = Some((K::IndexOutOfRange, format!("{what} {idx} of {len}")));
        }
    });
    problem
}

/// The rules of instruction `ins` of function `f` beyond its operands' ranges: import kinds
/// and arities, comparison operators, the PRNG slot, the decider's children and phases, where
/// `finish` and `return` may be, and the record operands.
pub(super) fn instr_rules(p: &ProgramParts, f: &Function, ins: &Instr) -> Option<(K, String)> {
    let arity = |import: u32, argc: u8, want: ImportKind| {
        let imp = &p.imports[import as usize];
        if imp.kind != want {
            Some(format!("`{}` is not an {}", imp.name, want.name()))
        } else if argc < imp.min_args || argc > imp.max_args {
            Some(format!("`{}` called with {argc} arguments", imp.name))
        } else {
            None
        }
    };
    match *ins {
        Instr::Act { import, argc, .. } | Instr::ActCursor { import, argc, .. } => {
            arity(import.0, argc, ImportKind::Action).map(|m| (K::Arity, m))
        }
        Instr::CallFn { import, argc } => {
            arity(import.0, argc, ImportKind::Function).map(|m| (K::Arity, m))
        }
        Instr::CallFnCmpK {
            import, argc, op, ..
        } => arity(import.0, argc, ImportKind::Function)
            .map(|m| (K::Arity, m))
            .or_else(|| {
                (!is_comparison(op)).then(|| {
                    (
                        K::BadOperand,
                        format!("`{}` is not a comparison", op.symbol()),
                    )
                })
            }),
        Instr::JumpIfCmpK { op, .. } | Instr::JumpIfCmp { op, .. } if !is_comparison(op) => Some((
            K::BadOperand,
            format!("`{}` is not a comparison", op.symbol()),
        )),
        Instr::Random {} | Instr::DecDraw { .. } if p.layout.rng.is_none() => Some((
            K::BadLayout,
            format!("`{}` without a PRNG slot", ins.mnemonic()),
        )),
        Instr::Behave { import, phase, .. } => arity(import.0, 0, ImportKind::Action)
            .map(|m| (K::Arity, m))
            .or_else(|| (phase > 2).then(|| (K::BadOperand, format!("{phase} is not a phase")))),
        Instr::DecJumpActive { active, .. } if u32::from(active) > MAX_CHILDREN => Some((
            K::IndexOutOfRange,
            format!("active child {active} of at most {MAX_CHILDREN}"),
        )),
        Instr::DecSet { child, .. }
        | Instr::DecPick { child, .. }
        | Instr::DecJumpPick { child, .. }
        | Instr::DecMask { child, .. }
        | Instr::DecMaskUpTo { child, .. }
        | Instr::DecJumpMasked { child, .. }
        | Instr::DecCand { child, .. }
        | Instr::DecScore { child, .. }
            if u32::from(child) >= MAX_CHILDREN =>
        {
            Some((
                K::IndexOutOfRange,
                format!("child {child} of at most {MAX_CHILDREN}"),
            ))
        }
        Instr::Finish { .. } if f.kind != FunctionKind::Entry => Some((
            K::BadContinuation,
            "`finish` in a subtree, event or restart function".into(),
        )),
        Instr::Return { .. } if f.kind == FunctionKind::Entry => {
            Some((K::BadContinuation, "`return` in an entry function".into()))
        }
        _ if ins.is_record() || ins.is_lifecycle() || ins.is_selection() => record_operands(p, ins),
        _ => None,
    }
}

/// The operand stack of the function `start..end` (`f`): never underflows, never exceeds the
/// limit, has one depth at every instruction and is empty at node-level instructions; returns
/// its deepest.
pub(super) fn stack_depths(
    p: &ProgramParts,
    f: &Function,
    start: usize,
    end: usize,
    limits: &Limits,
) -> Result<u32, ProgramError> {
    let at = |pc: usize, m: String| format!("in `{}` at instruction {pc}: {m}", f.name);
    // Stack depths: jumps only go forward, so one pass in order sees every predecessor first.
    let mut depth: Vec<Option<u32>> = vec![None; end - start];
    depth[0] = Some(0);
    // Rules are entered by `cursor.dispatch` and `cursor.move`, and redecide targets by
    // `dec.redecide` (node-level, so at depth 0), with an empty stack.
    let mut entered: Vec<u32> = p.rules.iter().map(|r| r.label).collect();
    for ins in &p.code[start..end] {
        ins.operands(|o| {
            if let OperandRef::Back(t) = o {
                entered.push(t);
            }
        });
    }
    for t in entered {
        if let Some(slot) = (t as usize)
            .checked_sub(start)
            .and_then(|k| depth.get_mut(k))
        {
            *slot = Some(0);
        }
    }
    let mut max = 0;
    for pc in start..end {
        let Some(d) = depth[pc - start] else {
            continue; // unreachable
        };
        let ins = &p.code[pc];
        let (pop, push) = ins.stack_effect();
        if pop > d {
            return Err(err(
                K::StackUnderflow,
                at(pc, format!("pops {pop} of {d} values")),
            ));
        }
        let node_level = !matches!(
            ins,
            Instr::PushBool { .. }
                | Instr::PushInt { .. }
                | Instr::PushFloat { .. }
                | Instr::PushStr { .. }
                | Instr::PushVar { .. }
                | Instr::CallFn { .. }
                | Instr::Random {}
                | Instr::Not {}
                | Instr::Neg {}
                | Instr::Truthy {}
                | Instr::Bin { .. }
                | Instr::JumpIfFalse { .. }
                | Instr::JumpIfTrue { .. }
                | Instr::JumpIfCmp { .. }
                | Instr::JumpIfCmpK { .. }
                | Instr::CallFnCmpK { .. }
                | Instr::PushBound { .. }
                | Instr::Jump { .. }
                | Instr::VarPush { .. }
                | Instr::VarJump { .. }
                | Instr::TsPush { .. }
        );
        if node_level && d != pop {
            return Err(err(
                K::StackMismatch,
                at(pc, format!("{} values left on the stack", d - pop)),
            ));
        }
        let after = d - pop + push;
        if after > limits.max_stack {
            return Err(err(
                K::StackOverflow,
                at(pc, format!("the stack would hold {after} values")),
            ));
        }
        max = max.max(after);
        let mut flow = |t: usize| -> Result<(), ProgramError> {
            let slot = &mut depth[t - start];
            match *slot {
                None => *slot = Some(after),
                Some(x) if x != after => {
                    return Err(err(
                        K::StackMismatch,
                        at(t, format!("reached with {x} and with {after} values")),
                    ));
                }
                Some(_) => {}
            }
            Ok(())
        };
        if ins.falls_through() {
            flow(pc + 1)?;
        }
        let mut labels = [0usize; 3];
        let mut n = 0;
        ins.operands(|o| {
            if let OperandRef::Label(t) | OperandRef::Back(t) = o {
                if n < labels.len() {
                    labels[n] = t as usize;
                    n += 1;
                }
            }
        });
        for &t in &labels[..n] {
            flow(t)?;
        }
    }
    Ok(max)
}

/// Orders functions callees-first, rejecting cycles; then computes each function's call depth
/// and worst-case cost.
pub(super) fn calls(p: &ProgramParts, limits: &Limits) -> Result<(u32, u64), ProgramError> {
    let n = p.functions.len();
    let callees: Vec<Vec<usize>> = p
        .functions
        .iter()
        .map(|f| {
            p.code[f.start as usize..f.end as usize]
                .iter()
                .filter_map(|i| match i {
                    Instr::Call { func, .. } => Some(func.0 as usize),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // Kahn's algorithm on "calls": a function is ready once all its callees are done.
    let mut pending: Vec<usize> = callees.iter().map(Vec::len).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (f, cs) in callees.iter().enumerate() {
        for &c in cs {
            callers[c].push(f);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&f| pending[f] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(f) = ready.pop() {
        order.push(f);
        for &caller in &callers[f] {
            pending[caller] -= 1;
            if pending[caller] == 0 {
                ready.push(caller);
            }
        }
    }
    if order.len() != n {
        let f = (0..n).find(|&f| pending[f] > 0).unwrap_or(0);
        return Err(err(
            K::CallCycle,
            format!(
                "function `{}` takes part in a cycle of subtree calls",
                p.functions[f].name
            ),
        ));
    }
    let mut depth = vec![0u32; n];
    let mut cost = vec![0u64; n];
    let mut max_calls = 0;
    let mut tick_cost = 0;
    for &f in &order {
        let func = &p.functions[f];
        let (start, end) = (func.start as usize, func.end as usize);
        let mut longest = vec![0u64; end - start + 1];
        let mut calls_here = 0;
        for pc in (start..end).rev() {
            let ins = &p.code[pc];
            let mut best = if ins.falls_through() {
                longest[pc + 1 - start]
            } else {
                0
            };
            ins.operands(|o| {
                if let OperandRef::Label(t) = o {
                    best = best.max(longest[t as usize - start]);
                }
            });
            let own = match ins {
                Instr::Call { func, .. } => {
                    let c = func.0 as usize;
                    calls_here = calls_here.max(depth[c] + 1);
                    cost[c]
                }
                _ => 0,
            };
            longest[pc - start] = best.saturating_add(1).saturating_add(own);
        }
        depth[f] = calls_here;
        cost[f] = longest[0];
        if let ProgramModel::Cursor { limit } = p.model {
            // Each `cursor.move` counts a rule run, so a tick is at most `limit + 1` forward
            // paths, each starting at the function's start or at a rule.
            let seg = p
                .rules
                .iter()
                .filter_map(|r| longest.get((r.label as usize).checked_sub(start)?).copied())
                .fold(longest[0], u64::max);
            cost[f] = seg.saturating_mul(u64::from(limit) + 1);
        }
        if let ProgramModel::Decider { limit } | ProgramModel::Selection { limit } = p.model {
            // Each `dec.redecide` counts, and past `limit` leaves through its forward guard
            // label: a tick is at most `limit + 1` forward paths, each starting at the
            // function's start or at a redecide target (a redecide's own target is not
            // followed in `longest`, which ends its path there).
            let mut seg = longest[0];
            for ins in &p.code[start..end] {
                ins.operands(|o| {
                    if let OperandRef::Back(t) = o {
                        if let Some(&c) =
                            (t as usize).checked_sub(start).and_then(|k| longest.get(k))
                        {
                            seg = seg.max(c);
                        }
                    }
                });
            }
            cost[f] = seg.saturating_mul(u64::from(limit) + 1);
        }
        if func.kind != FunctionKind::Subtree {
            // Entries run as ticks, event functions as deliveries between ticks: both are
            // bounded by the per-tick budget.
            if cost[f] > limits.max_tick_instructions {
                return Err(err(
                    K::BudgetExceeded,
                    format!(
                        "a tick of `{}` may run {} instructions; the budget is {}",
                        func.name, cost[f], limits.max_tick_instructions
                    ),
                ));
            }
            max_calls = max_calls.max(calls_here);
            tick_cost = tick_cost.max(cost[f]);
        }
    }
    Ok((max_calls, tick_cost))
}
