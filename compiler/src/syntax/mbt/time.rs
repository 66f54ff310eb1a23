//! Numbers in MBT attributes, read as CryXML's `getAttr` overloads read them
//! (`Code/CryEngine/CrySystem/XML/xml.cpp`, `CryCommon/CrySystem/XML/IXml.h`, commit 8b63f61c):
//! seconds and chances through C's `atof` and a `float`, seconds then in CRYENGINE's
//! `CTimeValue` unit (1/100,000 s, truncated); counts through `strtoul` into a `uint8`;
//! booleans through `atoi`. Also the time condition of `IfTime`, `WaitUntilTime` and
//! `AssertTime` (`spec/mbt.md` sections 1.3 and 3).
//!
//! The readers never fail on text the original reads: they report how much of the text C
//! would have used, and the caller warns about the rest. They refuse only what is undefined
//! behaviour in the original (a float out of `int64` range converted to a time) or depends on
//! the platform. Nothing here allocates in proportion to its input or loops over an
//! exponent's value. This file never builds nodes.

use btvm::BinOp;

use crate::ir::{Expr, Lit, TimestampId, TsQuery};

/// `CTimeValue::TIMEVALUE_PRECISION`: time units per second (`CryCommon/CrySystem/TimeValue.h`,
/// 8b63f61c). The MBT tree's clock is this over 1,000 units per millisecond.
pub(super) const UNITS_PER_SECOND: f32 = 100_000.0;

/// C's `isspace` in the "C" locale.
fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What C's `atof` (`strtod` in the "C" locale) reads at the start of `text`: the value and
/// how many bytes it used (0 when there is no number: the value is then 0). Leading
/// whitespace, a sign, decimal digits with an optional point and exponent, `inf`,
/// `infinity` and `nan` (any case) are read; a hexadecimal number (`0x…`) is
/// [`NumError::Unsupported`]. The value is correctly rounded, as glibc's `strtod` rounds.
pub(super) fn atof(text: &str) -> Result<(f64, usize), NumError> {
    let b = text.as_bytes();
    let mut i = b.iter().take_while(|&&c| c_space(c)).count();
    let start = i;
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &text[i..];
    for word in ["infinity", "inf", "nan"] {
        if rest.len() >= word.len()
            && rest.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        {
            let end = i + word.len();
            let v: f64 = text[start..end].parse().map_err(|_| NumError::Malformed)?;
            return Ok((v, end));
        }
    }
    let digits = |i: &mut usize| {
        let n = b[*i..].iter().take_while(|c| c.is_ascii_digit()).count();
        *i += n;
        n
    };
    if b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && (b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            || (b.get(i + 2) == Some(&b'.') && b.get(i + 3).is_some_and(u8::is_ascii_hexdigit)))
    {
        return Err(NumError::Unsupported);
    }
    let mut n = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        let mut j = i + 1;
        let f = digits(&mut j);
        if n + f > 0 {
            i = j;
            n += f;
        }
    }
    if n == 0 {
        return Ok((0.0, 0));
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(&mut j) > 0 {
            i = j;
        }
    }
    let v: f64 = text[start..i].parse().map_err(|_| NumError::Malformed)?;
    Ok((v, i))
}

/// A number read from the start of an attribute, and the text C ignored after it (empty when
/// it read everything but trailing whitespace; the whole text when it found no number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Read<'a, T> {
    /// The value.
    pub value: T,
    /// What the original ignores: the caller warns about it when it is not empty.
    pub ignored: &'a str,
}

fn read<T>(text: &str, value: T, used: usize) -> Read<'_, T> {
    let rest = &text[used..];
    let ignored = if rest.bytes().all(c_space) { "" } else { rest };
    Read { value, ignored }
}

/// Seconds as `CTimeValue(float)` holds them: `(float)atof(text)`, times 100,000 in `float`
/// arithmetic, truncated to `int64` (`CTimeValue::SetSeconds(float)`). Also whether the
/// `float` was negative (`Wait` tests `m_duration >= 0.0f` on the float, so `-0.000001` is
/// negative although it is 0 units). A value whose product is not a finite `int64` is
/// [`NumError::OutOfRange`] (undefined behaviour in the original).
pub(super) fn seconds(text: &str) -> Result<Read<'_, (i64, bool)>, NumError> {
    let (x, used) = atof(text)?;
    let f = x as f32;
    let p = f * UNITS_PER_SECOND;
    // 2^63 is exact in f32; `as` would saturate, C's conversion is undefined.
    const LIMIT: f32 = 9_223_372_036_854_775_808.0;
    if !(-LIMIT..LIMIT).contains(&p) {
        return Err(NumError::OutOfRange);
    }
    Ok(read(text, (p as i64, f < 0.0), used))
}

/// `RandomGate@opensWithChance`: `(float)atof(text)`, clamped to `0..=1` as
/// `clamp_tpl(m_opensWithChance, .0f, 1.0f)` does (`RandomGate::LoadFromXml`,
/// `BehaviorTreeNodes_Core.cpp`, 8b63f61c). `None` for NaN, which no draw is `<=` (the gate
/// never opens).
pub(super) fn chance(text: &str) -> Result<Read<'_, Option<f64>>, NumError> {
    let (x, used) = atof(text)?;
    let f = x as f32;
    let v = (!f.is_nan()).then(|| f64::from(f.clamp(0.0, 1.0)));
    Ok(read(text, v, used))
}

/// A `uint8` attribute (`Loop@count`, `LoopUntilSuccess@attemptCount`) as
/// `IXmlNode::getAttr(const char*, unsigned char&)` reads it: [`uint32`], then its low 8 bits
/// (`"256"` is 0, `"-1"` is 255).
pub(super) fn uint8(text: &str) -> Result<Read<'_, u8>, NumError> {
    uint32(text).map(|r| Read {
        value: r.value as u8,
        ignored: r.ignored,
    })
}

/// An `unsigned int` attribute (`GroupScope@allowedConcurrentUsers`) as
/// `CXmlNode::getAttr(const char*, unsigned int&)` reads it: `strtoul(text, NULL, 10)` (`"-1"`
/// is 4294967295, `"x"` is 0). A magnitude of 2^32 or more is [`NumError::Unsupported`]:
/// `strtoul`'s result then depends on the width of the platform's `unsigned long`.
pub(super) fn uint32(text: &str) -> Result<Read<'_, u32>, NumError> {
    let b = text.as_bytes();
    let mut i = b.iter().take_while(|&&c| c_space(c)).count();
    let negative = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 {
        return Ok(read(text, 0, 0));
    }
    let mut v: u64 = 0;
    for &c in &b[i..i + n] {
        v = v.saturating_mul(10).saturating_add(u64::from(c - b'0'));
    }
    let v = u32::try_from(v).map_err(|_| NumError::Unsupported)?;
    let v = if negative { v.wrapping_neg() } else { v };
    Ok(read(text, v, i + n))
}

/// Why a number was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NumError {
    /// Not a number of the expected form.
    Malformed,
    /// A number out of the allowed range.
    OutOfRange,
    /// A form the original reads in a way btvm does not follow (hexadecimal floats; a
    /// platform-dependent conversion).
    Unsupported,
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
    fn seconds_are_ctimevalue_units_of_a_float() {
        let units = |t: &str| seconds(t).unwrap().value.0;
        assert_eq!(units("1"), 100_000);
        assert_eq!(units("0.25"), 25_000);
        assert_eq!(units("-1"), -100_000);
        assert_eq!(units("2.5e-1"), 25_000);
        // 0.0004f * 100000f rounds to 40.0f: 400 microseconds, not 0 ms.
        assert_eq!(units("0.0004"), 40);
        // 1.3f is 1.29999995; times 100000 in float is 129999.992: truncated.
        assert_eq!(units("1.3"), 129_999);
        assert_eq!(units("0.000001"), 0);
        assert_eq!(units(".5"), 50_000);
        assert_eq!(units("5."), 500_000);
        assert_eq!(units("+2"), 200_000);
        assert_eq!(units("  3"), 300_000);
        assert_eq!(seconds("-0.000001").unwrap().value, (0, true));
        assert_eq!(seconds("-0").unwrap().value, (0, false));
        // What C reads, and what it ignores.
        let r = seconds("1.5s").unwrap();
        assert_eq!((r.value.0, r.ignored), (150_000, "s"));
        let r = seconds("abc").unwrap();
        assert_eq!((r.value.0, r.ignored), (0, "abc"));
        let r = seconds("").unwrap();
        assert_eq!((r.value.0, r.ignored), (0, ""));
        let r = seconds("2 ").unwrap();
        assert_eq!((r.value.0, r.ignored), (200_000, ""));
        let r = seconds("1e").unwrap();
        assert_eq!((r.value.0, r.ignored), (100_000, "e"));
        let r = seconds("1..2").unwrap();
        assert_eq!((r.value.0, r.ignored), (100_000, ".2"));
        let r = seconds("0x").unwrap();
        assert_eq!((r.value.0, r.ignored), (0, "x"));
        assert_eq!(seconds("0x10"), Err(NumError::Unsupported));
        for big in ["inf", "-Infinity", "nan", "1e14", "1e999", "-1e14"] {
            assert_eq!(seconds(big), Err(NumError::OutOfRange), "{big:?}");
        }
        assert_eq!(units("9e13"), (9e13f32 * 1e5f32) as i64);
    }

    #[test]
    fn chances_clamp_and_counts_bound() {
        let p = |t: &str| chance(t).unwrap().value;
        assert_eq!(p("0.5"), Some(0.5));
        assert_eq!(p("0.1"), Some(f64::from(0.1f32)), "a float");
        assert_eq!(p("7"), Some(1.0));
        assert_eq!(p("-2"), Some(0.0));
        assert_eq!(p("1e999"), Some(1.0));
        assert_eq!(p("x"), Some(0.0));
        assert_eq!(p("NaN"), None);
        let c = |t: &str| uint8(t).unwrap().value;
        assert_eq!(c("3"), 3);
        assert_eq!(c("255"), 255);
        assert_eq!(c("256"), 0);
        assert_eq!(c("257"), 1);
        assert_eq!(c("-1"), 255);
        assert_eq!(c(" +7x"), 7);
        assert_eq!(uint8("7x").unwrap().ignored, "x");
        assert_eq!(c("x"), 0);
        assert_eq!(c("4294967295"), 255);
        assert_eq!(uint8("4294967296"), Err(NumError::Unsupported));
        let u = |t: &str| uint32(t).unwrap().value;
        assert_eq!(u("-1"), u32::MAX);
        assert_eq!(u("4294967295"), u32::MAX);
        assert_eq!(u("2 users"), 2);
        assert_eq!(u(""), 0);
        assert!(!boolean("TRUE"));
        assert!(!boolean("true"));
        assert!(!boolean("0"));
        assert!(boolean("1"));
        assert!(boolean(" -2x"));
        assert!(!boolean("yes"));
        assert_eq!(atoi("99999999999999999999999"), i64::MAX);
    }
}
