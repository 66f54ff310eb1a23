//! A tiny assembler: instructions with symbolic labels, resolved to instruction indices.
//!
//! The lowering emits [`Instr`]s whose label operands hold *label ids*; [`Asm::finish`] drops
//! every `jump` to the very next instruction and rewrites label ids into final instruction
//! indices. It knows nothing about trees beyond the node number it is told each instruction is
//! for ([`Asm::enter`]), which becomes the program's code map; that number never changes an
//! instruction.

use btvm::program::{Instr, Label};

/// The code-map entry of an instruction emitted for no node (glue code).
pub const NO_NODE: u32 = u32::MAX;

/// Code under construction.
pub struct Asm {
    code: Vec<Instr>,
    /// Where each label was placed (an index into `code`), once placed.
    labels: Vec<Option<u32>>,
    /// The node each instruction was emitted for ([`NO_NODE`]: none), one per `code` entry.
    nodes: Vec<u32>,
    /// The node instructions are emitted for now.
    at: u32,
}

impl Default for Asm {
    fn default() -> Asm {
        Asm {
            code: Vec::new(),
            labels: Vec::new(),
            nodes: Vec::new(),
            at: NO_NODE,
        }
    }
}

/// What [`Asm::finish`] gives: the code, a map from pre-finish indices to final ones (for
/// function boundaries), and the node of each final instruction (the code map).
pub struct Assembled {
    /// The instructions, labels resolved.
    pub code: Vec<Instr>,
    /// Each pre-finish index's final index (one more entry for the end).
    pub index: Vec<u32>,
    /// The node each instruction of `code` was emitted for ([`NO_NODE`]: none).
    pub nodes: Vec<u32>,
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
        self.nodes.push(self.at);
    }

    /// From now on instructions are emitted for node `node` (an IR node index); returns the
    /// node they were emitted for before, for [`Asm::leave`].
    pub fn enter(&mut self, node: u32) -> u32 {
        std::mem::replace(&mut self.at, node)
    }

    /// Goes back to emitting for `previous` (what [`Asm::enter`] returned).
    pub fn leave(&mut self, previous: u32) {
        self.at = previous;
    }

    /// The index the next instruction will have.
    pub fn here(&self) -> u32 {
        self.code.len() as u32
    }

    /// Resolves labels (see [`Assembled`]).
    pub fn finish(self) -> Assembled {
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
        let nodes = self
            .nodes
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(&n, _)| n)
            .collect();
        Assembled {
            code,
            index: new_index,
            nodes,
        }
    }
}
