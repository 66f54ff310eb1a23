//! Durations: a number's source text and unit to whole milliseconds, exactly (decimal
//! arithmetic on the digits, never through a float, so `0.001 s` is 1 ms and `0.0005 s` is
//! not a whole number of milliseconds).

use super::ast::Unit;

/// Why a duration was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DurationError {
    /// More than `u32::MAX` ms.
    Overflow,
    /// Not a whole number of milliseconds.
    Fraction,
}

/// The value of `text` (digits, an optional `.` and fraction, an optional exponent, or `0x`
/// hex; no sign) in `unit`, as whole milliseconds.
pub(super) fn to_ms(text: &str, unit: Unit) -> Result<u32, DurationError> {
    let scale: i64 = match unit {
        Unit::Ms => 0,
        Unit::S => 3,
    };
    if let Some(hex) = text.strip_prefix("0x") {
        let v = u64::from_str_radix(hex, 16).map_err(|_| DurationError::Overflow)?;
        let ms = match unit {
            Unit::Ms => Some(v),
            Unit::S => v.checked_mul(1000),
        };
        return ms
            .and_then(|v| u32::try_from(v).ok())
            .ok_or(DurationError::Overflow);
    }
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    // The exponent, saturated far beyond anything that matters.
    let (neg, exp_digits) = match exp.as_bytes().first() {
        Some(b'-') => (true, &exp[1..]),
        Some(b'+') => (false, &exp[1..]),
        _ => (false, exp),
    };
    let mut e: i64 = 0;
    for b in exp_digits.bytes() {
        e = (e * 10 + i64::from(b.wrapping_sub(b'0'))).min(1_000_000);
    }
    if neg {
        e = -e;
    }
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = int_part.chars().chain(frac_part.chars()).collect();
    let mut exp10 = e + scale - frac_part.len() as i64;
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    let mut digits = digits;
    while exp10 < 0 && digits.ends_with('0') {
        digits = &digits[..digits.len() - 1];
        exp10 += 1;
    }
    if exp10 < 0 {
        return Err(DurationError::Fraction);
    }
    if digits.len() as i64 + exp10 > 10 {
        return Err(DurationError::Overflow);
    }
    let mut v: u64 = digits.parse().map_err(|_| DurationError::Overflow)?;
    for _ in 0..exp10 {
        v = v.checked_mul(10).ok_or(DurationError::Overflow)?;
    }
    u32::try_from(v).map_err(|_| DurationError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_milliseconds() {
        assert_eq!(to_ms("250", Unit::Ms), Ok(250));
        assert_eq!(to_ms("2", Unit::S), Ok(2000));
        assert_eq!(to_ms("0.5", Unit::S), Ok(500));
        assert_eq!(to_ms("0.001", Unit::S), Ok(1));
        assert_eq!(to_ms("0.007", Unit::S), Ok(7));
        assert_eq!(to_ms("1.5e1", Unit::Ms), Ok(15));
        assert_eq!(to_ms("2e-3", Unit::S), Ok(2));
        assert_eq!(to_ms("2.5e-3", Unit::S), Err(DurationError::Fraction));
        assert_eq!(to_ms("1e3", Unit::S), Ok(1_000_000));
        assert_eq!(to_ms("0e999999999999999999999", Unit::S), Ok(0));
        assert_eq!(to_ms("0x10", Unit::S), Ok(16_000));
        assert_eq!(to_ms("4294967295", Unit::Ms), Ok(u32::MAX));
        assert_eq!(to_ms("4294967.295", Unit::S), Ok(u32::MAX));
        assert_eq!(to_ms("0000000000004294967295", Unit::Ms), Ok(u32::MAX));
        assert_eq!(to_ms("4294967296", Unit::Ms), Err(DurationError::Overflow));
        assert_eq!(to_ms("4294968", Unit::S), Err(DurationError::Overflow));
        assert_eq!(to_ms("1e10", Unit::Ms), Err(DurationError::Overflow));
        assert_eq!(to_ms("1e999999", Unit::Ms), Err(DurationError::Overflow));
        assert_eq!(to_ms("0.0005", Unit::S), Err(DurationError::Fraction));
        assert_eq!(to_ms("1.5", Unit::Ms), Err(DurationError::Fraction));
        assert_eq!(to_ms("1e-1", Unit::Ms), Err(DurationError::Fraction));
        assert_eq!(
            to_ms("18446744073709551615", Unit::Ms),
            Err(DurationError::Overflow)
        );
    }
}
