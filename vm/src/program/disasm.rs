//! The disassembler: a program as readable text (`btvm disasm`).
//!
//! Every instruction is printed by [`Instr::asm`], which the instruction table generates, so the
//! listing always matches the encoder and decoder. Where the program has a code map
//! ([`NodeTable::code`](super::NodeTable::code)), each run of instructions emitted for one node
//! is headed by a comment naming the node (kind, name, file:line). The listing is only text:
//! it never changes or checks the program.

use std::fmt;

use super::isa::{Instr, OperandRef};
use super::{FunctionKind, Program, ProgramModel};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.parts();
        let l = &p.layout;
        let model = match p.model {
            ProgramModel::RunningList => "running-list".to_string(),
            ProgramModel::Cursor { limit } => format!("cursor {limit}"),
            ProgramModel::Decider { limit } => format!("decider {limit}"),
            ProgramModel::Lifecycle => "lifecycle".to_string(),
            ProgramModel::Selection { limit } => format!("selection {limit}"),
        };
        writeln!(f, "; btvm program {:016x}", self.fingerprint())?;
        writeln!(
            f,
            "; model {model}, precision {}, {} instructions, {} bytes of state per agent",
            if p.single_precision {
                "single"
            } else {
                "double"
            },
            p.code.len(),
            l.size
        )?;
        writeln!(
            f,
            "; state: current @{}:{} ({} actions), count @{}:{} (capacity {}), list @{} ({} bits), timers @{} ({}), rng {}",
            l.current.offset,
            l.current.width,
            l.actions,
            l.count.offset,
            l.count.width,
            l.capacity,
            l.list,
            l.bits,
            l.timers,
            l.timer_count,
            l.rng.map_or("none".to_string(), |at| format!("@{at}"))
        )?;
        writeln!(
            f,
            "; verified: stack {}, call depth {}, at most {} instructions per tick, {} counters",
            self.max_stack(),
            self.max_calls(),
            self.tick_budget(),
            p.temps
        )?;
        if p.layout.cursor.width > 0 {
            writeln!(
                f,
                "; cursor @{}:{}, flags @{}:{}",
                l.cursor.offset, l.cursor.width, l.flags.offset, l.flags.width
            )?;
        }
        if matches!(p.model, ProgramModel::Decider { .. }) {
            writeln!(
                f,
                "; decider @{}, flags @{}:{}, groups @{} ({}), stimuli @{} ({})",
                l.decider,
                l.flags.offset,
                l.flags.width,
                l.groups,
                l.group_count,
                l.stimuli,
                p.stimuli
            )?;
        }
        if matches!(
            p.model,
            ProgramModel::Lifecycle | ProgramModel::Selection { .. }
        ) {
            writeln!(
                f,
                "; flags @{}:{}, vars @{} ({}), stamps @{} ({}), records @{} ({} bytes), leaf @{}:{} ({} leaves)",
                l.flags.offset,
                l.flags.width,
                l.vars,
                l.var_count,
                l.stamps,
                l.stamp_count,
                l.records,
                l.records_len,
                l.leaf.offset,
                l.leaf.width,
                l.leaves
            )?;
        }
        for (i, r) in p.rules.iter().enumerate() {
            match &r.id {
                Some(id) => writeln!(f, "; rule{i} at L{} id {}", r.label, Quoted(id))?,
                None => writeln!(f, "; rule{i} at L{}", r.label)?,
            }
        }
        for (i, imp) in p.imports.iter().enumerate() {
            writeln!(
                f,
                "; import{i} {} {}/{}..{}",
                imp.kind.name(),
                imp.name,
                imp.min_args,
                imp.max_args
            )?;
        }
        for (i, s) in p.strings.iter().enumerate() {
            writeln!(f, "; str{i} {}", Quoted(s))?;
        }
        for (i, v) in p.vars.iter().enumerate() {
            match p.var_names.get(i) {
                Some(name) => writeln!(f, "; var{i} {name} = {}", v.display(self.strings()))?,
                None => writeln!(f, "; var{i} = {}", v.display(self.strings()))?,
            }
        }
        let mut order: Vec<usize> = (0..p.functions.len()).collect();
        order.sort_by_key(|&i| p.functions[i].start);
        for i in order {
            let func = &p.functions[i];
            let kind = match func.kind {
                FunctionKind::Entry => "entry",
                FunctionKind::Subtree => "subtree",
                FunctionKind::Event => "event",
                FunctionKind::Restart => "restart",
            };
            writeln!(f, "\nfn{i} {kind} {}:", Quoted(&func.name))?;
            let mut node = NO_NODE;
            for pc in func.start..func.end {
                let ins = &p.code[pc as usize];
                let here = p.nodes.code.get(pc as usize).copied().unwrap_or(NO_NODE);
                if here != node {
                    node = here;
                    writeln!(f, "          ; {}", NodeNote(self, node))?;
                }
                write!(f, "  {pc:>6}  {}", ins.asm())?;
                let mut note = None;
                ins.operands(|o| match o {
                    OperandRef::Import(k) => {
                        note = p.imports.get(k as usize).map(|i| i.name.clone())
                    }
                    OperandRef::Func(k) => {
                        note = p.functions.get(k as usize).map(|g| g.name.clone())
                    }
                    _ => {}
                });
                if let Instr::PushStr { value: s }
                | Instr::LcLog { msg: s }
                | Instr::SelLeaf { name: s, .. }
                | Instr::ScopeEnter { scope: s, .. }
                | Instr::ScopeLeave { scope: s, .. } = ins
                {
                    note = p.strings.get(s.0 as usize).cloned();
                }
                match note {
                    Some(n) => writeln!(f, "    ; {n}")?,
                    None => writeln!(f)?,
                }
            }
        }
        Ok(())
    }
}

/// The code-map entry of glue code (no node).
const NO_NODE: u32 = u32::MAX;

/// A code-map run's heading: `node N KIND "NAME" at FILE:LINE`, or `(no node)`.
struct NodeNote<'a>(&'a Program, u32);

impl fmt::Display for NodeNote<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.0.parts().nodes;
        let Some(n) = t.nodes.get(self.1 as usize) else {
            return f.write_str("(no node)");
        };
        write!(f, "node {} {}", self.1, n.kind.escape_debug())?;
        if let Some(name) = &n.name {
            write!(f, " {}", Quoted(name))?;
        }
        if let Some(file) = n.file.and_then(|i| t.files.get(i as usize)) {
            write!(f, " at {}:{}", file.escape_debug(), n.line)?;
        }
        Ok(())
    }
}

struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::write_quoted(self.0, f)
    }
}
