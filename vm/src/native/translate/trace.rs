//! Node-level tracing (`node.enter`, `node.exit`): each becomes one call of the `lc_host`
//! trampoline, which tells the host's node observer. Only traced programs hold these
//! instructions, so an untraced program's machine code is what it was without them.
//!
//! This file must never call the host directly: the trampoline does (and catches its panics).

use super::{misrouted, TranslateError, Tx};
use crate::program::Instr;

impl Tx<'_, '_, '_> {
    /// Translates a trace instruction at depth `d`; control always falls through.
    pub(super) fn trace_instr(
        &mut self,
        ins: &Instr,
        pc: u32,
        d: usize,
    ) -> Result<bool, TranslateError> {
        match ins {
            Instr::NodeEnter { .. } | Instr::NodeExit { .. } => {
                self.lc_host_call(pc, 0, d);
                Ok(true)
            }
            _ => Err(misrouted(pc)),
        }
    }
}
