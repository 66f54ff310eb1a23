//! Why a program was rejected.

use std::fmt;

/// What is wrong with a program: one kind per way bytecode can be malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProgramErrorKind {
    /// The bytes end in the middle of a field.
    Truncated,
    /// The file does not start with the program magic.
    BadMagic,
    /// The file was written by an incompatible format version.
    BadVersion,
    /// The stored fingerprint does not match the contents.
    Fingerprint,
    /// An opcode byte names no instruction.
    BadOpcode,
    /// An operand or table field has an impossible value.
    BadOperand,
    /// Bytes follow the last section.
    TrailingBytes,
    /// A table or the code is larger than the limits allow.
    TooLarge,
    /// A jump leaves its function, or goes backwards.
    BadJump,
    /// An index (bit, timer, import, function, counter, variable, string, action) is out of
    /// range.
    IndexOutOfRange,
    /// An instruction pops more values than the operand stack holds on some path.
    StackUnderflow,
    /// The operand stack could grow past the limit.
    StackOverflow,
    /// Two paths reach an instruction with different stack depths, or a node-level
    /// instruction runs with values on the stack.
    StackMismatch,
    /// Control flow is malformed: a `branch` without a status, code falling off the end of a
    /// function, `finish`/`return` in the wrong kind of function, an entry that is not a
    /// function start.
    BadContinuation,
    /// A call passes the wrong number of arguments, or calls an import of the wrong kind.
    Arity,
    /// Subtree functions call each other in a cycle.
    CallCycle,
    /// The worst-case instructions of one tick exceed the budget.
    BudgetExceeded,
    /// The state layout is inconsistent (overlapping or out-of-range fields).
    BadLayout,
}

/// A rejected program: its kind and a message naming the place (byte offset or instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    kind: ProgramErrorKind,
    message: String,
}

impl ProgramError {
    /// A new error.
    pub fn new(kind: ProgramErrorKind, message: impl Into<String>) -> Self {
        ProgramError {
            kind,
            message: message.into(),
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> ProgramErrorKind {
        self.kind
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid program ({:?}): {}", self.kind, self.message)
    }
}

impl std::error::Error for ProgramError {}
