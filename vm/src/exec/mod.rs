//! The bytecode executor: runs a verified [`Program`] for one agent's state block.
//!
//! The loop decodes nothing (the program holds decoded [`Instr`]s), walks no tree and allocates
//! nothing: the operand stack, the return stack and the counters live in a [`Scratch`] sized
//! once from what the verifier proved. Every index it uses was range-checked by the verifier;
//! it still reads through checked accessors so a verifier bug degrades to a wrong answer, never
//! to a panic or undefined behaviour.
//!
//! This module must never accept an unverified program: [`Program`] can only be built through
//! the verifier.

mod call;
mod flow;
mod run;
mod stack;

pub(crate) use run::run;

use crate::model::decider::DeciderScratch;
use crate::model::lifecycle::LifeScratch;
use crate::{Program, Value};

/// The per-thread working memory of the executor: operand stack, return stack and counters.
/// Sized once per program; reused by every tick. Aligned to two cache lines so the scratch
/// areas of different threads (kept side by side by `Batch`) never share a line.
///
/// It also holds the lifecycle model's group-scope counters, which are not per tick: they
/// belong to the engine that owns the scratch ([`Engine`](crate::Engine), or [`Batch`](crate::Batch), whose
/// first scratch holds them) and are shared by every agent ticked through it.
#[derive(Clone, Debug)]
#[repr(align(128))]
pub struct Scratch {
    stack: Vec<Value>,
    rets: Vec<u32>,
    temps: Vec<u32>,
    decider: DeciderScratch,
    pub(crate) life: LifeScratch,
}

impl Scratch {
    /// Working memory for `program`.
    pub fn new(program: &Program) -> Scratch {
        Scratch {
            // One more than the deepest stack: `Stack` keeps a placeholder below the bottom.
            stack: Vec::with_capacity(program.max_stack() as usize + 1),
            rets: Vec::with_capacity(program.max_calls() as usize),
            temps: vec![0; program.temps() as usize],
            decider: DeciderScratch::new(program),
            life: LifeScratch::new(program),
        }
    }

    /// The counters, the decider registers and the lifecycle memory, for the native engine.
    #[cfg(feature = "jit")]
    pub(crate) fn native_parts(&mut self) -> (&mut [u32], &mut DeciderScratch, &mut LifeScratch) {
        (&mut self.temps, &mut self.decider, &mut self.life)
    }
}
