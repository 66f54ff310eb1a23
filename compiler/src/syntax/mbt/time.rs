//! Numbers in MBT attributes: seconds to integer milliseconds (exact decimal rounding), the
//! decimal chance of `RandomGate`, counts and booleans; and the time condition of `IfTime`,
//! `WaitUntilTime` and `AssertTime` (`spec/mbt.md` sections 1.3 and 3).
//!
//! Seconds are converted on their decimal digits, not through a float, so `1.0005` is exactly
//! 1000.5 ms and rounds to 1001 (half away from zero, as "the nearest" with ties going up in
//! magnitude). Nothing here allocates in proportion to an exponent or loops over one: a huge
//! exponent is an out-of-range error or a zero at once. This file never builds nodes.

use btvm::BinOp;

use crate::ir::{Expr, Lit, TimestampId, TsQuery};

/// A decimal number's parts: `[-]digits[.digits][e[+-]digits]`.
struct Decimal<'a> {
    negative: bool,
    /// The integer and fraction digits, concatenated.
    digits: Vec<u8>,
    /// How many of `digits` are fraction digits.
    fraction: usize,
    /// The exponent (saturated to `i64`).
    exponent: i64,
    /// The text, for the float parse of a chance.
    text: &'a str,
}

/// Splits a decimal number; `None` if `text` is not one (no sign other than a leading `-`, no
/// whitespace, at least one digit before the exponent).
fn decimal(text: &str) -> Option<Decimal<'_>> {
    let b = text.as_bytes();
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if negative {
        i += 1;
    }
    let mut digits = Vec::new();
    while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
        digits.push(c - b'0');
        i += 1;
    }
    let mut fraction = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            digits.push(c - b'0');
            fraction += 1;
            i += 1;
        }
    }
    if digits.is_empty() {
        return None;
    }
    let mut exponent: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let neg_exp = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            exponent = exponent
                .saturating_mul(10)
                .saturating_add(i64::from(c - b'0'));
            i += 1;
        }
        if i == start {
            return None;
        }
        if neg_exp {
            exponent = -exponent;
        }
    }
    (i == b.len()).then_some(Decimal {
        negative,
        digits,
        fraction,
        exponent,
        text,
    })
}

/// Why a number was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NumError {
    /// Not a number of the expected form.
    Malformed,
    /// A number out of the allowed range.
    OutOfRange,
}

/// Seconds written as a decimal number, in milliseconds rounded to the nearest (ties away
/// from zero).
pub(super) fn seconds_to_ms(text: &str) -> Result<i64, NumError> {
    let d = decimal(text).ok_or(NumError::Malformed)?;
    // The value in ms is digits × 10^shift.
    let shift = d
        .exponent
        .saturating_sub(d.fraction as i64)
        .saturating_add(3);
    let first = d.digits.iter().position(|&x| x != 0);
    let Some(first) = first else {
        return Ok(0);
    };
    let digits = &d.digits[first..];
    let mut ms: i64 = 0;
    let push = |ms: i64, x: u8| {
        ms.checked_mul(10)
            .and_then(|m| m.checked_add(i64::from(x)))
            .ok_or(NumError::OutOfRange)
    };
    if shift >= 0 {
        // More than 19 digits cannot fit whatever they are.
        if shift > 19 || digits.len() > 19 {
            return Err(NumError::OutOfRange);
        }
        for &x in digits {
            ms = push(ms, x)?;
        }
        for _ in 0..shift {
            ms = push(ms, 0)?;
        }
    } else {
        let drop = shift.unsigned_abs();
        let keep = (digits.len() as u64).saturating_sub(drop) as usize;
        if keep > 19 {
            return Err(NumError::OutOfRange);
        }
        for &x in &digits[..keep] {
            ms = push(ms, x)?;
        }
        // The first dropped digit decides the rounding (it is 0 when the number is shifted
        // past all its digits by more than one place).
        let dropped_first = if (digits.len() as u64) >= drop {
            digits[keep]
        } else {
            0
        };
        if dropped_first >= 5 {
            ms = ms.checked_add(1).ok_or(NumError::OutOfRange)?;
        }
    }
    Ok(if d.negative { -ms } else { ms })
}

/// A decimal number as a float, clamped to `0..=1` (`RandomGate@opensWithChance`).
pub(super) fn chance(text: &str) -> Result<f64, NumError> {
    let d = decimal(text).ok_or(NumError::Malformed)?;
    let x: f64 = d.text.parse().map_err(|_| NumError::Malformed)?;
    Ok(if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) })
}

/// An unsigned decimal integer up to `max`.
pub(super) fn count(text: &str, max: u64) -> Result<u64, NumError> {
    if text.is_empty() || !text.bytes().all(|c| c.is_ascii_digit()) {
        return Err(NumError::Malformed);
    }
    let digits = text.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n <= max)
        .ok_or(NumError::OutOfRange)
}

/// A node boolean as CryXML's `CXmlNode::getAttr(const char*, bool&)` reads it: `atoi(value) != 0`
/// (`Code/CryEngine/CrySystem/XML/xml.cpp`, commit 8b63f61c), so `"1"` is true and `"true"` false.
pub(super) fn boolean(text: &str) -> bool {
    atoi(text) != 0
}

/// C's `atoi` without its undefined overflow: leading `isspace` characters, an optional sign,
/// then decimal digits up to the first other character (none: 0). The value saturates.
pub(super) fn atoi(text: &str) -> i64 {
    let t = text.trim_start_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg {
        -v
    } else {
        v
    }
}

/// How a time condition compares the time since the stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Compare {
    /// `isMoreThan`: elapsed `>` the limit.
    MoreThan,
    /// `isLessThan`: elapsed `<` the limit.
    LessThan,
}

/// The condition `T` of section 3: `@valid(TS) && @elapsed(TS) OP ms`, or
/// `!@ever(TS) || (@valid(TS) && @elapsed(TS) OP ms)` when a never-set timestamp passes.
pub(super) fn condition(ts: TimestampId, compare: Compare, ms: i64, if_never_set: bool) -> Expr {
    let op = match compare {
        Compare::MoreThan => BinOp::Gt,
        Compare::LessThan => BinOp::Lt,
    };
    let elapsed = Expr::binary(
        op,
        Expr::Timestamp(ts, TsQuery::Elapsed),
        Expr::Lit(Lit::Int(ms)),
    );
    let set = Expr::binary(BinOp::And, Expr::Timestamp(ts, TsQuery::Valid), elapsed);
    if if_never_set {
        let never = Expr::Not(Box::new(Expr::Timestamp(ts, TsQuery::EverSet)));
        Expr::binary(BinOp::Or, never, set)
    } else {
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_to_the_nearest_millisecond() {
        let ok = |t: &str| seconds_to_ms(t).unwrap();
        assert_eq!(ok("1"), 1000);
        assert_eq!(ok("0.25"), 250);
        assert_eq!(ok("-1"), -1000);
        assert_eq!(ok("2.5e-1"), 250);
        assert_eq!(ok("0.0005"), 1);
        assert_eq!(ok("0.00049"), 0);
        assert_eq!(ok("-0.0005"), -1);
        assert_eq!(ok("1.0005"), 1001);
        assert_eq!(ok("2.4e-3"), 2);
        assert_eq!(ok("2.5E-3"), 3);
        assert_eq!(ok("1e3"), 1_000_000);
        assert_eq!(ok("1e+3"), 1_000_000);
        assert_eq!(ok(".5"), 500);
        assert_eq!(ok("5."), 5000);
        assert_eq!(ok("000.001"), 1);
        assert_eq!(ok("0e999999999999999999999"), 0);
        assert_eq!(ok("1e-999999999999999999999"), 0);
        assert_eq!(ok("5e-4"), 1);
        assert_eq!(ok("4e-4"), 0);
        assert_eq!(ok("9223372036854775.807"), i64::MAX);
        for bad in [
            "", "-", "+1", " 1", "1 ", "1e", "e3", ".", "1..2", "0x10", "inf", "nan",
        ] {
            assert_eq!(seconds_to_ms(bad), Err(NumError::Malformed), "{bad:?}");
        }
        for big in [
            "9223372036854775.808",
            "1e17",
            "1e999999",
            "99999999999999999999999",
        ] {
            assert_eq!(seconds_to_ms(big), Err(NumError::OutOfRange), "{big:?}");
        }
    }

    #[test]
    fn chances_clamp_and_counts_bound() {
        assert_eq!(chance("0.5"), Ok(0.5));
        assert_eq!(chance("7"), Ok(1.0));
        assert_eq!(chance("-2"), Ok(0.0));
        assert_eq!(chance("1e999"), Ok(1.0));
        assert_eq!(chance("x"), Err(NumError::Malformed));
        assert_eq!(count("255", 255), Ok(255));
        assert_eq!(count("0000", 255), Ok(0));
        assert_eq!(count("256", 255), Err(NumError::OutOfRange));
        assert_eq!(
            count("99999999999999999999999", 255),
            Err(NumError::OutOfRange)
        );
        assert_eq!(count("-1", 255), Err(NumError::Malformed));
        assert_eq!(count("", 255), Err(NumError::Malformed));
        assert!(!boolean("TRUE"));
        assert!(!boolean("true"));
        assert!(!boolean("0"));
        assert!(boolean("1"));
        assert!(boolean(" -2x"));
        assert!(!boolean("yes"));
        assert_eq!(atoi("99999999999999999999999"), i64::MAX);
    }
}
