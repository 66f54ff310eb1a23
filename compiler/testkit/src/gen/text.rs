//! Text, names and literals: the values nodes and expressions carry.

use arbitrary::{Result, Unstructured};
use btvm::Status;

use super::draw::{chance, one_of, pick, range, repeat, weighted};
use btvm_compiler::ir::{Lit, Type};

/// Characters that stress quoting and lexing.
const TRICKY: &[char] = &[
    '"', '\\', '\n', '\t', '\r', '\0', '\u{7f}', '\u{1b}', ' ', 'é', 'ß', '😀', '\u{2028}', '{',
    '}', '(', ')', '/', '*', '$', '@', '-', '.', '0',
];

/// The characters proptest's `any::<char>()` favours: path, URL and shell specials, control
/// characters, and Unicode edge cases (non-BMP, BOM, replacement character, RTL override).
const SPECIAL: &[char] = &[
    '/', '\\', '$', '.', '*', '{', '\'', '"', '`', ':', '?', '%', '=', '&', '<', '\0', '\t', '\r',
    '\n', '\u{b}', '\u{1b}', '\u{7f}', '¥', 'Ѩ', 'Ⱥ', '\u{feff}', '\u{fffd}', '\u{202e}', '🕴',
];

/// Any character, distributed like proptest's `any::<char>()`: half the time a [`SPECIAL`] one,
/// a quarter printable ASCII or Latin-1, a quarter any code point.
fn any_char(u: &mut Unstructured<'_>) -> Result<char> {
    let c = match weighted(u, &[2, 1, 1])? {
        0 => return pick(u, SPECIAL),
        1 if chance(u, 1, 6)? => range(u, 0x40, 0xff)?,
        1 => range(u, 0x20, 0x7e)?,
        _ => range(u, 0, 0x10_ffff)?,
    };
    // Surrogates are the only gap; fold them onto ASCII.
    Ok(char::from_u32(c).unwrap_or(char::from(c as u8 & 0x7f)))
}

/// One character of `set`.
fn char_of(u: &mut Unstructured<'_>, set: &[u8]) -> Result<char> {
    pick(u, set).map(char::from)
}

/// Arbitrary short strings (0 to 7 characters), biased towards characters that need escaping:
/// half `a`–`z`, a third from a list of tricky ones (quotes, backslashes, control characters,
/// non-ASCII), the rest any character.
pub fn text(u: &mut Unstructured<'_>) -> Result<String> {
    let chars = repeat(u, 0, 7, |u| match weighted(u, &[3, 2, 1])? {
        0 => range(u, b'a', b'z').map(char::from),
        1 => pick(u, TRICKY),
        _ => any_char(u),
    })?;
    Ok(chars.into_iter().collect())
}

/// Words the canonical syntax gives a meaning somewhere, to check names that collide with them.
pub const SYNTAX_WORDS: &[&str] = &[
    "true", "false", "nan", "inf", "action", "function", "root", "subtree", "state", "case",
    "loop", "on", "when", "exit", "enter", "random", "success", "failure", "running", "yield",
    "include", "behavior", "long", "every", "forever", "shared", "import", "var", "signal",
];

const IDENT_START: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
const IDENT_REST: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.";
const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const IMPORT_REST: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

/// A word: one character of `start`, then up to `max_rest` of `rest`.
fn word(u: &mut Unstructured<'_>, start: &[u8], rest: &[u8], max_rest: usize) -> Result<String> {
    let mut s = String::new();
    s.push(char_of(u, start)?);
    for c in repeat(u, 0, max_rest, |u| char_of(u, rest))? {
        s.push(c);
    }
    Ok(s)
}

/// Names: identifiers with dots (`[A-Za-z_][A-Za-z0-9_.]{0,7}`, half the time), syntax words
/// ([`SYNTAX_WORDS`]), a few common short names, and arbitrary [`text`] (a quarter).
pub fn name(u: &mut Unstructured<'_>) -> Result<String> {
    match weighted(u, &[4, 1, 1, 2])? {
        0 => word(u, IDENT_START, IDENT_REST, 7),
        1 => pick(u, SYNTAX_WORDS).map(str::to_string),
        2 => pick(u, &["a", "b", "move", "x"]).map(str::to_string),
        _ => text(u),
    }
}

/// Import names for runnable trees: identifiers (`[a-z][A-Za-z0-9_]{0,6}`) mostly, sometimes
/// anything [`name`] draws.
pub fn import_name(u: &mut Unstructured<'_>) -> Result<String> {
    match weighted(u, &[4, 1])? {
        0 => word(u, LOWER, IMPORT_REST, 6),
        _ => name(u),
    }
}

/// Makes names unique by suffixing repeats (`a`, `a_1`, …), keeping their order.
pub fn make_unique(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let mut candidate = n.clone();
        let mut k = 1;
        while out.contains(&candidate) {
            candidate = format!("{n}_{k}");
            k += 1;
        }
        out.push(candidate);
    }
    out
}

/// Between `min` and `max` distinct names (see [`name`]).
pub fn unique_names(u: &mut Unstructured<'_>, min: usize, max: usize) -> Result<Vec<String>> {
    repeat(u, min, max, name).map(make_unique)
}

/// Any status.
pub fn status(u: &mut Unstructured<'_>) -> Result<Status> {
    pick(u, &Status::ALL)
}

/// Integers, with the extremes and small negatives well represented: two fifths in
/// `-1000..1000`, one fifth from `0, ±1, i64::MIN, i64::MAX, i64::MIN + 1, i32::MIN`, the rest
/// any `i64`.
pub fn int(u: &mut Unstructured<'_>) -> Result<i64> {
    match weighted(u, &[2, 1, 2])? {
        0 => range(u, -1000, 999),
        1 => pick(
            u,
            &[
                0,
                1,
                -1,
                i64::MIN,
                i64::MAX,
                i64::MIN + 1,
                i64::from(i32::MIN),
            ],
        ),
        _ => u.arbitrary(),
    }
}

/// A finite `f64` the way proptest's `any::<f64>()` draws it: by class (normal 20, subnormal
/// 3, zero 4), then random sign and bits within the class.
fn any_f64(u: &mut Unstructured<'_>) -> Result<f64> {
    const SIGN: u64 = 1 << 63;
    const EXP: u64 = 0x7ff0_0000_0000_0000;
    const MANT: u64 = 0x000f_ffff_ffff_ffff;
    let class = weighted(u, &[20, 3, 4])?;
    let bits: u64 = u.arbitrary()?;
    let sign = bits & SIGN;
    let x = match class {
        0 => {
            let exp = (bits & EXP).clamp(1 << 52, EXP - (1 << 52));
            sign | exp | (bits & MANT)
        }
        1 => sign | (bits & MANT).max(1),
        _ => sign,
    };
    Ok(f64::from_bits(x))
}

/// Floats: special values (`±0`, `±∞`, `±NaN`, extremes, subnormals, values around 1e16), any
/// finite `f64` by class, arbitrary bit patterns, NaNs with arbitrary sign and payload, and
/// eighths in `-125..125`.
pub fn float(u: &mut Unstructured<'_>) -> Result<f64> {
    match weighted(u, &[2, 2, 1, 1, 1])? {
        0 => pick(
            u,
            &[
                0.0,
                -0.0,
                1.0,
                0.1,
                0.25,
                -2.5,
                1e20,
                -1e20,
                1.5e-7,
                1e16,
                f64::MAX,
                f64::MIN,
                f64::MIN_POSITIVE,
                5e-324,
                f64::NAN,
                -f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ],
        ),
        1 => any_f64(u),
        2 => u.arbitrary::<u64>().map(f64::from_bits),
        3 => {
            let b: u64 = u.arbitrary()?;
            Ok(f64::from_bits(
                (b & 0x800f_ffff_ffff_ffff) | 0x7ff0_0000_0000_0001,
            ))
        }
        _ => range(u, -1000i32, 999).map(|i| f64::from(i) / 8.0),
    }
}

/// Any literal: bool, [`int`], [`float`] or [`text`], equally often.
pub fn lit(u: &mut Unstructured<'_>) -> Result<Lit> {
    Ok(match one_of(u, 4)? {
        0 => Lit::Bool(u.arbitrary()?),
        1 => Lit::Int(int(u)?),
        2 => Lit::Float(float(u)?),
        _ => Lit::Str(text(u)?),
    })
}

/// A literal of the given variable type.
pub fn lit_of(u: &mut Unstructured<'_>, ty: Type) -> Result<Lit> {
    Ok(match ty {
        Type::Bool => Lit::Bool(u.arbitrary()?),
        Type::Int => Lit::Int(int(u)?),
        Type::Float => Lit::Float(float(u)?),
    })
}

/// Any variable type.
pub fn var_type(u: &mut Unstructured<'_>) -> Result<Type> {
    pick(u, &[Type::Bool, Type::Int, Type::Float])
}

/// Strings that runnable trees use as literals most of the time, so that a scenario can make a
/// function answer a string the tree also has (and compare equal to it).
pub const RL_STRINGS: &[&str] = &[
    "",
    "a",
    "b",
    "two words",
    "q\"uote",
    "back\\slash",
    "é😀",
    "#",
];

/// A string literal: usually (four fifths) one of [`RL_STRINGS`], sometimes arbitrary [`text`].
pub fn rl_string(u: &mut Unstructured<'_>) -> Result<String> {
    match weighted(u, &[4, 1])? {
        0 => pick(u, RL_STRINGS).map(str::to_string),
        _ => text(u),
    }
}

/// Any literal, strings mostly from [`RL_STRINGS`].
pub fn rl_lit(u: &mut Unstructured<'_>) -> Result<Lit> {
    Ok(match one_of(u, 4)? {
        0 => Lit::Bool(u.arbitrary()?),
        1 => Lit::Int(int(u)?),
        2 => Lit::Float(float(u)?),
        _ => Lit::Str(rl_string(u)?),
    })
}
