//! The expression IR: condition expressions of every dialect.

use btvm::BinOp;
use btvm::ImportId;

use super::tree::{TimestampId, VarId};

/// A literal value. Strings are stored inline; engines intern them when they load a tree.
#[derive(Clone, Debug)]
pub enum Lit {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float. Equality compares bit patterns, so `nan` equals itself.
    Float(f64),
    /// A string.
    Str(String),
}

impl PartialEq for Lit {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Lit::Bool(a), Lit::Bool(b)) => a == b,
            (Lit::Int(a), Lit::Int(b)) => a == b,
            (Lit::Float(a), Lit::Float(b)) => a.to_bits() == b.to_bits(),
            (Lit::Str(a), Lit::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// One argument of a call: positional, or named (Drag\[en\]gine parameters, MBT attributes).
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// The parameter name, for named arguments.
    pub name: Option<String>,
    /// The argument expression.
    pub value: Expr,
}

/// A call to a host import, as an action node or inside an expression.
#[derive(Clone, Debug, PartialEq)]
pub struct CallExpr {
    /// The import called.
    pub import: ImportId,
    /// The arguments, evaluated left to right before the call.
    pub args: Vec<Arg>,
}

/// What an expression asks of a timestamp (MBT `Timestamps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsQuery {
    /// Whether the timestamp was ever set (stays true after an exclusivity reset).
    EverSet,
    /// Whether the timestamp is set and not invalidated by an `exclusiveTo` stamp.
    Valid,
    /// Milliseconds since the stamp (an int; meaningless unless `Valid`).
    Elapsed,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal.
    Lit(Lit),
    /// A tree variable.
    Var(VarId),
    /// A host function call.
    Call(CallExpr),
    /// Whether the host bound this import (Drag\[en\]gine's "missing condition" rule).
    Bound(ImportId),
    /// A timestamp query.
    Timestamp(TimestampId, TsQuery),
    /// A float drawn uniformly from `[0, 1)` from the agent's PRNG.
    Random,
    /// Logical not (of truthiness).
    Not(Box<Expr>),
    /// Arithmetic negation (as a double).
    Neg(Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Builds a binary expression.
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(lhs), Box::new(rhs))
    }

    /// Nesting depth (a literal is 1). Iterative, so it is safe on any expression.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            max = max.max(d);
            match e {
                Expr::Not(a) | Expr::Neg(a) => stack.push((a, d + 1)),
                Expr::Binary(_, a, b) => {
                    stack.push((a, d + 1));
                    stack.push((b, d + 1));
                }
                Expr::Call(c) => stack.extend(c.args.iter().map(|a| (&a.value, d + 1))),
                _ => {}
            }
        }
        max
    }
}

impl std::fmt::Display for Lit {
    /// Formats the literal as traces and the canonical syntax write it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lit::Bool(b) => write!(f, "{b}"),
            Lit::Int(i) => write!(f, "{i}"),
            Lit::Float(x) => btvm::fmt_float(*x, f),
            Lit::Str(s) => btvm::write_quoted(s, f),
        }
    }
}
