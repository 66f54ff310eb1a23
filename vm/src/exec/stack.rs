//! The interpreter's operand stack, and the expression instructions that only work on it.
//!
//! Nothing here touches the agent's state or calls the host; it never panics (popping an empty
//! stack yields `false`, which verified code never does).

use crate::model::target;
use crate::program::Label;
use crate::{BinOp, Value};

/// The operand stack with its top cached in a local (`top`); `mem` holds everything below it,
/// above a placeholder. A value consumed right after it is produced (a host result compared
/// with a constant) never goes through memory.
pub(super) struct Stack<'s> {
    mem: &'s mut Vec<Value>,
    top: Value,
}

impl<'s> Stack<'s> {
    /// An empty stack over `mem` (cleared first).
    #[inline(always)]
    pub(super) fn new(mem: &'s mut Vec<Value>) -> Stack<'s> {
        mem.clear();
        Stack {
            mem,
            top: Value::Bool(false),
        }
    }
}

impl Stack<'_> {
    /// Pushes `v`.
    #[inline(always)]
    pub(super) fn push(&mut self, v: Value) {
        self.mem.push(self.top);
        self.top = v;
    }

    /// Pops the top value.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Value {
        let v = self.top;
        self.top = self.mem.pop().unwrap_or(Value::Bool(false));
        v
    }

    /// The top `argc` values, contiguous in memory (oldest first); with none, the stack is
    /// left as it is (and [`Stack::drop_args`] and [`Stack::replace_args`] know it).
    #[inline(always)]
    pub(super) fn args(&mut self, argc: u8) -> &[Value] {
        if argc == 0 {
            return &[];
        }
        self.mem.push(self.top);
        let base = self.mem.len().saturating_sub(usize::from(argc));
        &self.mem[base..]
    }

    /// After [`Stack::args`]: drops the arguments.
    #[inline(always)]
    pub(super) fn drop_args(&mut self, argc: u8) {
        if argc == 0 {
            return;
        }
        let base = self.mem.len().saturating_sub(usize::from(argc));
        self.mem.truncate(base);
        self.top = self.mem.pop().unwrap_or(Value::Bool(false));
    }

    /// After [`Stack::args`]: replaces the arguments with a result.
    #[inline(always)]
    pub(super) fn replace_args(&mut self, argc: u8, result: Value) {
        if argc == 0 {
            return self.push(result);
        }
        let base = self.mem.len().saturating_sub(usize::from(argc));
        self.mem.truncate(base);
        self.top = result;
    }

    /// `not`: the top becomes its negated truthiness.
    #[inline(always)]
    pub(super) fn not(&mut self) {
        self.top = Value::Bool(!self.top.truthy());
    }

    /// `neg`: the top becomes its negation, as a float.
    #[inline(always)]
    pub(super) fn neg(&mut self) {
        self.top = Value::Float(-self.top.as_f64());
    }

    /// `truthy`: the top becomes its truthiness.
    #[inline(always)]
    pub(super) fn truthy(&mut self) {
        self.top = Value::Bool(self.top.truthy());
    }

    /// `bin`: the two top values become `op` of them.
    #[inline(always)]
    pub(super) fn bin(&mut self, op: BinOp) {
        let r = self.pop();
        self.top = op.apply(self.top, r);
    }

    /// `jump.cmp`: pops two values; `to` if `op` of them is `when`, else `next`.
    #[inline(always)]
    pub(super) fn jump_if_cmp(&mut self, op: BinOp, when: bool, to: Label, next: usize) -> usize {
        let r = self.pop();
        let left = self.pop();
        if op.apply(left, r).truthy() == when {
            target(to)
        } else {
            next
        }
    }

    /// `jump.cmpk`: pops a value; `to` if comparing it with `k` by `op` is `when`, else
    /// `next`.
    #[inline(always)]
    pub(super) fn jump_if_cmp_k(
        &mut self,
        op: BinOp,
        when: bool,
        k: f64,
        to: Label,
        next: usize,
    ) -> usize {
        let left = self.pop();
        if op.compare(left.as_f64(), k) == when {
            target(to)
        } else {
            next
        }
    }

    /// `jump.false` (`when` false) and `jump.true` (`when` true): pops a value; `to` if its
    /// truthiness is `when`, else `next`.
    #[inline(always)]
    pub(super) fn jump_if(&mut self, when: bool, to: Label, next: usize) -> usize {
        if self.pop().truthy() == when {
            target(to)
        } else {
            next
        }
    }
}
