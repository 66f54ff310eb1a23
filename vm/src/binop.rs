//! Binary operators of condition expressions, shared by every engine.

use crate::Value;

/// Binary operators. Evaluation rules (`spec/semantics.md`, "Expressions"): comparisons and
/// arithmetic convert both operands to doubles; `and`/`or` short-circuit on truthiness; `xor`
/// compares truthiness; `==`/`!=` of two strings compare the strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BinOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&` / `and`
    And,
    /// `||` / `or`
    Or,
    /// `xor`
    Xor,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (division by zero gives an IEEE infinity or NaN)
    Div,
}

impl BinOp {
    /// Every operator.
    pub const ALL: [BinOp; 13] = [
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
    ];

    /// The operator's spelling in the canonical syntax.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Xor => "^^",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }

    /// The operator with the given index in [`BinOp::ALL`] (its bytecode operand).
    pub fn from_u8(index: u8) -> Option<BinOp> {
        BinOp::ALL.get(usize::from(index)).copied()
    }

    /// A comparison (`<` … `!=`) of two doubles; `false` for the other operators. For a
    /// comparison `op` and a left operand that is not a string, `op.apply(l, r)` is
    /// `op.compare(l.as_f64(), r.as_f64())`.
    #[inline]
    pub fn compare(self, x: f64, y: f64) -> bool {
        match self {
            BinOp::Lt => x < y,
            BinOp::Le => x <= y,
            BinOp::Gt => x > y,
            BinOp::Ge => x >= y,
            BinOp::Eq => x == y,
            BinOp::Ne => x != y,
            _ => false,
        }
    }

    /// Applies the operator to two evaluated operands: the one definition of every strict
    /// binary operator (`&&`/`||` short-circuit in the engines; here both sides are given).
    pub fn apply(self, l: Value, r: Value) -> Value {
        if let (Value::Str(x), Value::Str(y)) = (l, r) {
            match self {
                BinOp::Eq => return Value::Bool(x == y),
                BinOp::Ne => return Value::Bool(x != y),
                _ => {}
            }
        }
        let (x, y) = (l.as_f64(), r.as_f64());
        match self {
            BinOp::Lt => Value::Bool(x < y),
            BinOp::Le => Value::Bool(x <= y),
            BinOp::Gt => Value::Bool(x > y),
            BinOp::Ge => Value::Bool(x >= y),
            BinOp::Eq => Value::Bool(x == y),
            BinOp::Ne => Value::Bool(x != y),
            BinOp::Xor => Value::Bool(l.truthy() != r.truthy()),
            BinOp::And => Value::Bool(l.truthy() && r.truthy()),
            BinOp::Or => Value::Bool(l.truthy() || r.truthy()),
            BinOp::Add => Value::Float(x + y),
            BinOp::Sub => Value::Float(x - y),
            BinOp::Mul => Value::Float(x * y),
            BinOp::Div => Value::Float(x / y),
        }
    }
}
