//! Expression evaluation, shared by every execution model of the reference interpreter.
//!
//! This is the definition of the expression semantics in `spec/semantics.md` ("Expressions"),
//! written as plainly as possible. It never allocates per call beyond the argument buffer and
//! never panics: every value converts to every other through [`Value::as_f64`] and
//! [`Value::truthy`].

use btvm::{AgentId, Call, Host, Millis, Phase, Prng, Strings, Value};

use super::lifecycle::Stamp;
use crate::ir::{Arg, BinOp, CallExpr, Expr, Lit, Precision, Tree, TsQuery};

/// What an expression can read besides the host.
pub(crate) struct EvalCtx<'a> {
    pub tree: &'a Tree,
    pub strings: &'a Strings,
    pub agent: AgentId,
    pub now: Millis,
    pub vars: &'a [Value],
    /// The agent's timestamps (lifecycle model; empty elsewhere).
    pub stamps: &'a [Stamp],
    pub rng: &'a mut Prng,
}

impl EvalCtx<'_> {
    /// `now` in the tree's time unit ([`crate::ir::TreeConfig::clock`]), as timers and
    /// timestamps count it.
    pub fn time(&self) -> i64 {
        self.now.saturating_mul(i64::from(self.tree.config.clock))
    }

    /// Evaluates an expression.
    pub fn eval(&mut self, e: &Expr, host: &mut dyn Host) -> Value {
        match e {
            Expr::Lit(l) => self.lit(l),
            Expr::Var(v) => self
                .vars
                .get(v.0 as usize)
                .copied()
                .unwrap_or(Value::Bool(false)),
            Expr::Call(c) => self.call(c, host),
            // Only the cursor model looks imports up at run time; elsewhere every import is
            // bound at load.
            Expr::Bound(i) => Value::Bool(
                !matches!(self.tree.config.model, crate::ir::Model::Cursor { .. })
                    || host.available(*i),
            ),
            // `spec/mbt.md` 2.4: ever set; set and not invalidated; ms since the stamp.
            Expr::Timestamp(t, q) => {
                let stamp = self.stamps.get(t.0 as usize).copied().unwrap_or_default();
                match q {
                    TsQuery::EverSet => Value::Bool(stamp.ever),
                    TsQuery::Valid => Value::Bool(stamp.valid),
                    TsQuery::Elapsed => Value::Int(self.time().saturating_sub(stamp.time)),
                }
            }
            Expr::Random => Value::Float(self.rng.next_f64()),
            Expr::Not(a) => Value::Bool(!self.eval(a, host).truthy()),
            Expr::Neg(a) => Value::Float(-self.eval(a, host).as_f64()),
            Expr::Binary(op, a, b) => self.binary(*op, a, b, host),
        }
    }

    fn lit(&self, l: &Lit) -> Value {
        match l {
            Lit::Bool(b) => Value::Bool(*b),
            Lit::Int(i) => Value::Int(*i),
            Lit::Float(x) => Value::Float(*x),
            Lit::Str(s) => Value::Str(self.strings.lookup(s).unwrap_or(btvm::StrId(u32::MAX))),
        }
    }

    /// Evaluates call arguments, left to right.
    pub fn args(&mut self, args: &[Arg], host: &mut dyn Host) -> Vec<Value> {
        args.iter().map(|a| self.eval(&a.value, host)).collect()
    }

    fn call(&mut self, c: &CallExpr, host: &mut dyn Host) -> Value {
        let args = self.args(&c.args, host);
        let call = Call::new(
            self.agent,
            c.import,
            Phase::Enter,
            &args,
            self.now,
            self.strings,
        );
        let v = host.function(&call);
        match (v, self.tree.config.precision) {
            (Value::Float(x), Precision::Single) => Value::Float(f64::from(x as f32)),
            (v, _) => v,
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, host: &mut dyn Host) -> Value {
        match op {
            BinOp::And => {
                let l = self.eval(a, host).truthy();
                Value::Bool(l && self.eval(b, host).truthy())
            }
            BinOp::Or => {
                let l = self.eval(a, host).truthy();
                Value::Bool(l || self.eval(b, host).truthy())
            }
            _ => {
                let l = self.eval(a, host);
                let r = self.eval(b, host);
                op.apply(l, r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_are_numeric_and_strings_compare_by_identity() {
        let t = Value::Bool(true);
        assert_eq!(BinOp::Eq.apply(t, Value::Int(1)), Value::Bool(true));
        assert_eq!(
            BinOp::Lt.apply(Value::Int(1), Value::Float(1.5)),
            Value::Bool(true)
        );
        assert_eq!(
            BinOp::Eq.apply(Value::Str(btvm::StrId(1)), Value::Str(btvm::StrId(1))),
            t
        );
        assert_eq!(
            BinOp::Ne.apply(Value::Str(btvm::StrId(1)), Value::Str(btvm::StrId(2))),
            t
        );
        assert_eq!(BinOp::Xor.apply(Value::Int(2), Value::Bool(false)), t);
        assert_eq!(
            BinOp::Div.apply(Value::Int(1), Value::Int(0)),
            Value::Float(f64::INFINITY)
        );
        assert_eq!(
            BinOp::Eq.apply(Value::Float(f64::NAN), Value::Float(f64::NAN)),
            Value::Bool(false)
        );
    }
}
