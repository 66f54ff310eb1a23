//! Expression values and their conversions.

use crate::{StrId, Strings};
use std::fmt;

/// A value in a condition expression, a host-function argument or a host-function result.
///
/// The conversions below are the single definition of how the dialects' value rules meet:
/// Unvanquished compares everything as doubles and treats "not zero" as true; CryEngine's
/// booleans are the 0/1 case of the same rules.
///
/// The layout is fixed (`repr(u64)`: a `u64` tag 0–3 in declaration order, then the payload at
/// byte 8) so native code can lay out host-call arguments as a `[Value]` directly.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u64)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// An interned string; resolve it with [`Strings::get`].
    Str(StrId),
}

impl Value {
    /// The value as a double: booleans are 0 or 1, strings are 0 (Unvanquished's unboxing rule).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::Int(i) => i as f64,
            Value::Float(x) => x,
            Value::Str(_) => 0.0,
        }
    }

    /// Truthiness: a value is true when, as a double, it is not zero (NaN is true, as in C).
    pub fn truthy(self) -> bool {
        match self {
            Value::Bool(b) => b,
            other => other.as_f64() != 0.0,
        }
    }

    /// The kind of the value, for messages.
    pub fn type_name(self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
        }
    }

    /// Formats the value for traces and the canonical syntax, resolving strings through `strings`.
    pub fn display<'a>(&'a self, strings: &'a Strings) -> impl fmt::Display + 'a {
        DisplayValue {
            value: self,
            strings,
        }
    }
}

struct DisplayValue<'a> {
    value: &'a Value,
    strings: &'a Strings,
}

impl fmt::Display for DisplayValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self.value {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => fmt_float(x, f),
            Value::Str(id) => write_quoted(self.strings.get(id), f),
        }
    }
}

/// Writes a float so that it always reads back as a float: `1.0`, `0.25`, `1e20`, `inf`, `nan`.
///
/// This is the one float format of traces and the canonical syntax.
pub fn fmt_float(x: f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if x.is_nan() {
        f.write_str("nan")
    } else if x.is_infinite() {
        f.write_str(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        write!(f, "{x:?}")
    }
}

/// Writes `s` as a double-quoted string with `\\`, `\"`, `\n`, `\t`, `\r` and `\u{..}` escapes.
///
/// This is the one string format of traces and the canonical syntax.
pub fn write_quoted(s: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_the_unboxing_rules() {
        let mut s = Strings::new();
        let id = s.intern("x");
        assert_eq!(Value::Bool(true).as_f64(), 1.0);
        assert_eq!(Value::Int(-3).as_f64(), -3.0);
        assert_eq!(Value::Str(id).as_f64(), 0.0);
        assert!(!Value::Str(id).truthy());
        assert!(Value::Float(f64::NAN).truthy());
        assert!(!Value::Float(0.0).truthy());
        assert!(!Value::Float(-0.0).truthy());
    }

    #[test]
    fn display_reads_back_as_the_same_kind() {
        let mut s = Strings::new();
        let id = s.intern("a\"b\n");
        assert_eq!(Value::Float(1.0).display(&s).to_string(), "1.0");
        assert_eq!(Value::Float(0.4).display(&s).to_string(), "0.4");
        assert_eq!(Value::Int(1).display(&s).to_string(), "1");
        assert_eq!(Value::Str(id).display(&s).to_string(), "\"a\\\"b\\n\"");
        assert_eq!(
            Value::Float(f64::NEG_INFINITY).display(&s).to_string(),
            "-inf"
        );
    }
}
