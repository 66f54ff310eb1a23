//! Planning the machine code of one bytecode function: the operand-stack depth before every
//! instruction, and where to split a long function into several native functions ("chunks").
//!
//! Splitting keeps Cranelift's compile time linear in the tree's size: every native function
//! stays below [`NativeConfig::max_chunk`](super::NativeConfig::max_chunk) instructions, and
//! register allocation never sees one huge function. A chunk boundary is only placed where the
//! operand stack is empty and no jump that crosses it lands on a non-empty stack, so values
//! never have to travel between chunks: a jump into a later chunk simply returns its target
//! label to the function's driver, which calls the chunk that owns it.
//!
//! This module must never emit code; it only reads instructions.

use crate::program::{Function, Instr, OperandRef, Rule};

/// How one bytecode function is compiled.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    /// Operand-stack depth before each instruction of the function (index `pc - start`);
    /// `None` for instructions no path reaches.
    pub depth: Vec<Option<u32>>,
    /// Chunk boundaries: `cuts[k]..cuts[k + 1]` is chunk `k` (absolute instruction indices,
    /// first = the function's start, last = its end).
    pub cuts: Vec<u32>,
}

impl Plan {
    /// The chunks as `(start, end)` pairs.
    pub fn chunks(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.cuts.windows(2).map(|w| (w[0], w[1]))
    }

    /// The depth before instruction `pc`, if it is reachable.
    pub fn depth_at(&self, start: u32, pc: u32) -> Option<u32> {
        self.depth
            .get(pc.checked_sub(start)? as usize)
            .copied()
            .flatten()
    }
}

/// The jump targets an instruction may continue at besides the next instruction: its label
/// operands (counted backward ones included), and for the cursor model's `cursor.dispatch`/`cursor.move` the rules' code.
pub(super) fn targets(ins: &Instr, rules: &[Rule], mut f: impl FnMut(u32)) {
    ins.operands(|o| {
        if let OperandRef::Label(t) | OperandRef::Back(t) = o {
            f(t);
        }
    });
    match ins {
        Instr::Dispatch {} => rules.iter().for_each(|r| f(r.label)),
        Instr::Move { rule, .. } => {
            if let Some(r) = rules.get(rule.0 as usize) {
                f(r.label);
            }
        }
        _ => {}
    }
}

/// Plans `func` of `code`. The program is verified, so every jump goes forward and stays in
/// the function (the cursor model's rule table aside, whose labels all have an empty stack),
/// and every reachable instruction has one depth; anything else is skipped rather than
/// trusted. The walk in order still sees a depth for every instruction: a rule reached only
/// backwards is entered by `cursor.dispatch`, which comes first.
pub(super) fn plan(code: &[Instr], rules: &[Rule], func: &Function, max_chunk: u32) -> Plan {
    let (start, end) = (func.start, func.end.min(code.len() as u32));
    let len = end.saturating_sub(start) as usize;
    let mut depth: Vec<Option<u32>> = vec![None; len];
    if len > 0 {
        depth[0] = Some(0);
    }
    // `dec.redecide` targets may be reached only backwards; they have an empty stack.
    for ins in code.get(start as usize..end as usize).unwrap_or(&[]) {
        ins.operands(|o| {
            if let OperandRef::Back(t) = o {
                if let Some(slot) = t.checked_sub(start).and_then(|k| depth.get_mut(k as usize)) {
                    *slot = Some(0);
                }
            }
        });
    }
    for i in 0..len {
        let Some(d) = depth[i] else { continue };
        let ins = &code[start as usize + i];
        let (pop, push) = ins.stack_effect();
        let after = d.saturating_sub(pop) + push;
        let mut reach = |t: u32| {
            if let Some(slot) = t.checked_sub(start).and_then(|k| depth.get_mut(k as usize)) {
                slot.get_or_insert(after);
            }
        };
        targets(ins, rules, &mut reach);
        if ins.falls_through() {
            reach(start + i as u32 + 1);
        }
    }
    // Cut where the stack is empty, no pending jump lands on a non-empty stack, and the current
    // chunk is long enough.
    let mut cuts = vec![start];
    let mut pending_deep = 0u32; // highest target with a non-empty stack seen so far
    for i in 0..len {
        let pc = start + i as u32;
        let here = depth[i];
        if i > 0
            && here == Some(0)
            && pending_deep < pc
            && pc - cuts[cuts.len() - 1] >= max_chunk.max(1)
        {
            cuts.push(pc);
        }
        if here.is_some() {
            targets(&code[pc as usize], rules, |t| {
                let deep = t
                    .checked_sub(start)
                    .and_then(|k| depth.get(k as usize).copied().flatten())
                    .is_some_and(|d| d > 0);
                if deep {
                    pending_deep = pending_deep.max(t);
                }
            });
        }
    }
    cuts.push(end.max(start));
    Plan { depth, cuts }
}
