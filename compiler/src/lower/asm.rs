//! A tiny assembler: instructions with symbolic labels, resolved to instruction indices.
//!
//! The lowering emits [`Instr`]s whose label operands hold *label ids*; [`Asm::finish`] drops
//! every `jump` to the very next instruction and rewrites label ids into final instruction
//! indices. It knows nothing about trees.

use btvm::program::{Instr, Label};

/// Code under construction.
#[derive(Default)]
pub struct Asm {
    code: Vec<Instr>,
    /// Where each label was placed (an index into `code`), once placed.
    labels: Vec<Option<u32>>,
}

impl Asm {
    /// A fresh label, not placed yet.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    /// Places `l` at the next instruction.
    pub fn place(&mut self, l: Label) {
        self.labels[l.0 as usize] = Some(self.code.len() as u32);
    }

    /// Appends an instruction.
    pub fn emit(&mut self, i: Instr) {
        self.code.push(i);
    }

    /// The index the next instruction will have.
    pub fn here(&self) -> u32 {
        self.code.len() as u32
    }

    /// Resolves labels. Returns the code and a map from pre-finish indices to final ones (for
    /// function boundaries).
    pub fn finish(self) -> (Vec<Instr>, Vec<u32>) {
        let at = |l: Label| self.labels[l.0 as usize].unwrap_or(u32::MAX);
        // A jump to the next instruction does nothing; drop it.
        let keep: Vec<bool> = self
            .code
            .iter()
            .enumerate()
            .map(|(pc, i)| !matches!(i, Instr::Jump { to } if at(*to) as usize == pc + 1))
            .collect();
        let mut new_index = Vec::with_capacity(self.code.len() + 1);
        let mut n = 0u32;
        for &k in &keep {
            new_index.push(n);
            n += u32::from(k);
        }
        new_index.push(n);
        let map = |l: Label| Label(new_index.get(at(l) as usize).copied().unwrap_or(u32::MAX));
        let code = self
            .code
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(i, _)| {
                let mut i = *i;
                i.map_labels(map);
                i
            })
            .collect();
        (code, new_index)
    }
}
