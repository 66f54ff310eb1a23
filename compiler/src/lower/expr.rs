//! Condition expressions, compiled inline into the node code.
//!
//! [`Lower::value`] leaves an expression's value on the operand stack; [`Lower::branch`]
//! compiles a condition into jumps, so `&&`, `||` and `!` cost no values. Both keep the
//! evaluation order and short-circuiting of `spec/semantics.md` 5.

use btvm::program::{Imp, Instr, Label, Str, Var};
use btvm::{BinOp, StrId};

use super::Lower;
use crate::ir::{CallExpr, Expr, Lit, TsQuery};

impl Lower<'_> {
    /// Pushes a call's arguments, left to right; the import and the argument count the call
    /// instruction names.
    pub(super) fn call_args(&mut self, c: &CallExpr) -> (Imp, u8) {
        for a in &c.args {
            self.value(&a.value);
        }
        (
            Imp(c.import.0),
            u8::try_from(c.args.len()).unwrap_or(u8::MAX),
        )
    }

    /// Pushes the value of `e`.
    pub(super) fn value(&mut self, e: &Expr) {
        match e {
            Expr::Lit(l) => self.lit(l),
            // Lifecycle and selection variables live in the agent's state.
            Expr::Var(v) if self.state_vars => self.asm.emit(Instr::VarPush { var: Var(v.0) }),
            Expr::Var(v) => self.asm.emit(Instr::PushVar { var: Var(v.0) }),
            Expr::Call(c) => {
                let (import, argc) = self.call_args(c);
                self.asm.emit(Instr::CallFn { import, argc });
            }
            // The cursor model looks imports up at run time; elsewhere every import is bound
            // at load.
            Expr::Bound(i) if self.lazy_imports => {
                self.asm.emit(Instr::PushBound { import: Imp(i.0) })
            }
            Expr::Bound(_) => self.asm.emit(Instr::PushBool { value: true }),
            Expr::Timestamp(t, q) if self.state_vars => self.asm.emit(Instr::TsPush {
                ts: btvm::program::Stamp(t.0),
                query: match q {
                    TsQuery::EverSet => 0,
                    TsQuery::Valid => 1,
                    TsQuery::Elapsed => 2,
                },
            }),
            // Rejected by `check` in other models; the reference reads false.
            Expr::Timestamp(..) => self.asm.emit(Instr::PushBool { value: false }),
            Expr::Random => self.asm.emit(Instr::Random {}),
            Expr::Not(a) => {
                self.value(a);
                self.asm.emit(Instr::Not {});
            }
            Expr::Neg(a) => {
                self.value(a);
                self.asm.emit(Instr::Neg {});
            }
            Expr::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                // a && b: if a is false the result is false without evaluating b.
                let and = *op == BinOp::And;
                let (short, end) = (self.asm.label(), self.asm.label());
                self.value(a);
                self.asm.emit(if and {
                    Instr::JumpIfFalse { to: short }
                } else {
                    Instr::JumpIfTrue { to: short }
                });
                self.value(b);
                self.asm.emit(Instr::Truthy {});
                self.asm.emit(Instr::Jump { to: end });
                self.asm.place(short);
                self.asm.emit(Instr::PushBool { value: !and });
                self.asm.place(end);
            }
            Expr::Binary(op, a, b) => {
                self.value(a);
                self.value(b);
                self.asm.emit(Instr::Bin { op: *op });
            }
        }
    }

    fn lit(&mut self, l: &Lit) {
        self.asm.emit(match l {
            Lit::Bool(b) => Instr::PushBool { value: *b },
            Lit::Int(i) => Instr::PushInt { value: *i },
            Lit::Float(x) => Instr::PushFloat { value: *x },
            Lit::Str(s) => Instr::PushStr {
                value: Str(self.strings.lookup(s).unwrap_or(StrId(0)).0),
            },
        });
    }

    /// Jumps to `to` when the truth of `e` equals `when`; falls through otherwise.
    pub(super) fn branch(&mut self, e: &Expr, to: Label, when: bool) {
        match e {
            Expr::Var(v) if self.state_vars => self.asm.emit(Instr::VarJump {
                var: Var(v.0),
                when,
                to,
            }),
            Expr::Not(a) => self.branch(a, to, !when),
            Expr::Binary(BinOp::And, a, b) => {
                if when {
                    let skip = self.asm.label();
                    self.branch(a, skip, false);
                    self.branch(b, to, true);
                    self.asm.place(skip);
                } else {
                    self.branch(a, to, false);
                    self.branch(b, to, false);
                }
            }
            Expr::Binary(BinOp::Or, a, b) => {
                if when {
                    self.branch(a, to, true);
                    self.branch(b, to, true);
                } else {
                    let skip = self.asm.label();
                    self.branch(a, skip, true);
                    self.branch(b, to, false);
                    self.asm.place(skip);
                }
            }
            Expr::Binary(
                op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne),
                a,
                b,
            ) => {
                // A numeric literal on the right: compare against a constant (the string
                // comparison rule needs two strings, so it cannot apply).
                let k = match &**b {
                    Expr::Lit(Lit::Int(i)) => Some(*i as f64),
                    Expr::Lit(Lit::Float(x)) => Some(*x),
                    Expr::Lit(Lit::Bool(v)) => Some(f64::from(u8::from(*v))),
                    _ => None,
                };
                match (k, &**a) {
                    (Some(k), Expr::Call(c)) => {
                        let (import, argc) = self.call_args(c);
                        self.asm.emit(Instr::CallFnCmpK {
                            import,
                            argc,
                            op: *op,
                            when,
                            k,
                            to,
                        });
                    }
                    (Some(k), _) => {
                        self.value(a);
                        self.asm.emit(Instr::JumpIfCmpK {
                            op: *op,
                            when,
                            k,
                            to,
                        });
                    }
                    (None, _) => {
                        self.value(a);
                        self.value(b);
                        self.asm.emit(Instr::JumpIfCmp { op: *op, when, to });
                    }
                }
            }
            _ => {
                self.value(e);
                self.asm.emit(if when {
                    Instr::JumpIfTrue { to }
                } else {
                    Instr::JumpIfFalse { to }
                });
            }
        }
    }
}
