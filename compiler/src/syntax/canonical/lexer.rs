//! The canonical-syntax lexer: source text to a flat token list, plus the nesting pre-scan.
//!
//! Lexing is hand-written so that every lexical error gets its precise kind
//! ([`BadEscape`](ErrorKind::BadEscape), [`UnterminatedString`](ErrorKind::UnterminatedString),
//! …) and span; the token list then feeds the chumsky grammar in [`super::parser`].

use std::fmt;

use chumsky::span::SimpleSpan;

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};

/// One token. Identifiers and strings borrow the source text; a string token holds the raw text
/// between its quotes, with escapes already checked (see [`unescape`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::syntax) enum Tok<'s> {
    /// `[A-Za-z_][A-Za-z0-9_.]*`; keywords are identifiers too.
    Ident(&'s str),
    /// A string literal's raw contents.
    Str(&'s str),
    /// An unsigned integer literal (decimal or `0x` hex); the sign is a separate `-`.
    Int(u64),
    /// A non-negative float literal with a `.` and/or an exponent.
    Float(f64),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `;`
    Semi,
    /// `:`
    Colon,
    /// `=`
    Assign,
    /// `->`
    Arrow,
    /// `..`
    DotDot,
    /// `@`
    At,
    /// `$`
    Dollar,
    /// `!`
    Bang,
    /// `-`
    Minus,
    /// `+`
    Plus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// `^^`
    XorXor,
}

impl Tok<'_> {
    /// The fixed spelling of a punctuation token.
    fn punct(&self) -> Option<&'static str> {
        Some(match self {
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Colon => ":",
            Tok::Assign => "=",
            Tok::Arrow => "->",
            Tok::DotDot => "..",
            Tok::At => "@",
            Tok::Dollar => "$",
            Tok::Bang => "!",
            Tok::Minus => "-",
            Tok::Plus => "+",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::XorXor => "^^",
            Tok::Ident(_) | Tok::Str(_) | Tok::Int(_) | Tok::Float(_) => return None,
        })
    }
}

/// How a token is named in "expected …, found …" messages.
impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Str(s) => {
                if s.chars().count() <= 24 {
                    write!(f, "string \"{s}\"")
                } else {
                    let head: String = s.chars().take(20).collect();
                    write!(f, "string \"{head}…\"")
                }
            }
            Tok::Int(v) => write!(f, "integer `{v}`"),
            Tok::Float(v) => write!(f, "float `{v:?}`"),
            other => write!(f, "`{}`", other.punct().unwrap_or("?")),
        }
    }
}

/// A token with its byte span.
pub(in crate::syntax) type Spanned<'s> = (Tok<'s>, SimpleSpan);

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// Whether `s` can be written as a bare identifier.
pub(super) fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(&c) if is_ident_start(c) => b[1..].iter().all(|&c| is_ident_continue(c)),
        _ => false,
    }
}

struct Lexer<'s> {
    file: FileId,
    text: &'s str,
    bytes: &'s [u8],
    pos: usize,
    out: Vec<Spanned<'s>>,
    /// The byte ranges of the comments skipped, in order (for the formatter).
    comments: Vec<std::ops::Range<usize>>,
    /// A number may run straight into the unit `ms` or `s` (`250ms`), which then lexes as two
    /// tokens (the Spore syntax's durations).
    units: bool,
}

/// Splits `text` into tokens, skipping whitespace and comments. Stops at the first lexical error.
pub(super) fn lex(file: FileId, text: &str) -> Result<Vec<Spanned<'_>>, Diagnostic> {
    lex_with(file, text, false)
}

/// [`lex`] for the Spore syntax: the same tokens, except that a number directly followed by the
/// unit `ms` or `s` (`250ms`, `2s`) is two tokens instead of a bad numeric literal.
pub(in crate::syntax) fn lex_units(
    file: FileId,
    text: &str,
) -> Result<Vec<Spanned<'_>>, Diagnostic> {
    lex_with(file, text, true)
}

fn lex_with(file: FileId, text: &str, units: bool) -> Result<Vec<Spanned<'_>>, Diagnostic> {
    lex_all(file, text, units).map(|(tokens, _)| tokens)
}

/// [`lex`], also returning the byte ranges of the comments, in order (the formatter keeps them).
pub(super) fn lex_with_comments(file: FileId, text: &str) -> LexedWithComments<'_> {
    lex_all(file, text, false)
}

/// Tokens and comment ranges, or the first lexical error.
pub(super) type LexedWithComments<'s> =
    Result<(Vec<Spanned<'s>>, Vec<std::ops::Range<usize>>), Diagnostic>;

fn lex_all(file: FileId, text: &str, units: bool) -> LexedWithComments<'_> {
    let mut lx = Lexer {
        file,
        text,
        bytes: text.as_bytes(),
        pos: 0,
        out: Vec::new(),
        comments: Vec::new(),
        units,
    };
    lx.run()?;
    Ok((lx.out, lx.comments))
}

impl<'s> Lexer<'s> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn err(&self, kind: ErrorKind, start: usize, end: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(kind, Span::new(self.file, start, end), msg)
    }

    fn push(&mut self, tok: Tok<'s>, start: usize) {
        self.out.push((tok, SimpleSpan::from(start..self.pos)));
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        while let Some(b) = self.peek(0) {
            let start = self.pos;
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.peek(1) == Some(b'/') => {
                    while let Some(c) = self.peek(0) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                    // A CR before the line feed belongs to the line end, not the comment.
                    let end = match self.text[start..self.pos].ends_with('\r') {
                        true => self.pos - 1,
                        false => self.pos,
                    };
                    self.comments.push(start..end);
                }
                b'/' if self.peek(1) == Some(b'*') => match self.text[start + 2..].find("*/") {
                    Some(i) => {
                        self.pos = start + 2 + i + 2;
                        self.comments.push(start..self.pos);
                    }
                    None => return Err(self.err(
                        ErrorKind::UnterminatedComment,
                        start,
                        start + 2,
                        "block comment is never closed: expected `*/` before the end of the file",
                    )),
                },
                b'"' => self.string()?,
                b'0'..=b'9' => self.number()?,
                c if is_ident_start(c) => {
                    while self.peek(0).is_some_and(is_ident_continue) {
                        self.pos += 1;
                    }
                    let tok = Tok::Ident(&self.text[start..self.pos]);
                    self.push(tok, start);
                }
                _ => self.punct()?,
            }
        }
        Ok(())
    }

    fn punct(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        let b = self.peek(0).unwrap_or(0);
        let next = self.peek(1);
        let (tok, len) = match (b, next) {
            (b'{', _) => (Tok::LBrace, 1),
            (b'}', _) => (Tok::RBrace, 1),
            (b'(', _) => (Tok::LParen, 1),
            (b')', _) => (Tok::RParen, 1),
            (b',', _) => (Tok::Comma, 1),
            (b';', _) => (Tok::Semi, 1),
            (b':', _) => (Tok::Colon, 1),
            (b'@', _) => (Tok::At, 1),
            (b'$', _) => (Tok::Dollar, 1),
            (b'+', _) => (Tok::Plus, 1),
            (b'*', _) => (Tok::Star, 1),
            (b'/', _) => (Tok::Slash, 1),
            (b'=', Some(b'=')) => (Tok::EqEq, 2),
            (b'=', _) => (Tok::Assign, 1),
            (b'!', Some(b'=')) => (Tok::NotEq, 2),
            (b'!', _) => (Tok::Bang, 1),
            (b'<', Some(b'=')) => (Tok::Le, 2),
            (b'<', _) => (Tok::Lt, 1),
            (b'>', Some(b'=')) => (Tok::Ge, 2),
            (b'>', _) => (Tok::Gt, 1),
            (b'-', Some(b'>')) => (Tok::Arrow, 2),
            (b'-', _) => (Tok::Minus, 1),
            (b'.', Some(b'.')) => (Tok::DotDot, 2),
            (b'&', Some(b'&')) => (Tok::AndAnd, 2),
            (b'|', Some(b'|')) => (Tok::OrOr, 2),
            (b'^', Some(b'^')) => (Tok::XorXor, 2),
            _ => {
                let c = self.text[start..].chars().next().unwrap_or('?');
                let hint = match c {
                    '&' => " (did you mean `&&`?)",
                    '|' => " (did you mean `||`?)",
                    '^' => " (did you mean `^^`?)",
                    '.' => " (did you mean `..`?)",
                    _ => "",
                };
                return Err(self.err(
                    ErrorKind::BadToken,
                    start,
                    start + c.len_utf8(),
                    format!("unexpected character {c:?}{hint}"),
                ));
            }
        };
        self.pos += len;
        self.push(tok, start);
        Ok(())
    }

    fn string(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek(0) {
                None => {
                    return Err(self.err(
                        ErrorKind::UnterminatedString,
                        start,
                        start + 1,
                        "string literal is never closed: expected `\"` before the end of the file",
                    ))
                }
                Some(b'"') => break,
                Some(b'\\') => self.escape()?,
                Some(_) => self.pos += 1,
            }
        }
        let raw = &self.text[start + 1..self.pos];
        self.pos += 1;
        self.push(Tok::Str(raw), start);
        Ok(())
    }

    /// Checks one escape sequence starting at the backslash and steps over it.
    fn escape(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        match self.peek(1) {
            Some(b'\\' | b'"' | b'n' | b't' | b'r') => {
                self.pos += 2;
                Ok(())
            }
            Some(b'u') => {
                let rest = &self.text[start + 2..];
                let bad = |lx: &Self, end: usize| {
                    lx.err(
                        ErrorKind::BadEscape,
                        start,
                        end,
                        "malformed unicode escape: expected `\\u{HEX}` with 1 to 6 hex digits naming a Unicode scalar value",
                    )
                };
                if !rest.starts_with('{') {
                    return Err(bad(self, start + 2));
                }
                let Some(close) = rest.find('}') else {
                    return Err(bad(self, start + 3));
                };
                let hex = &rest[1..close];
                let end = start + 2 + close + 1;
                let valid = !hex.is_empty()
                    && hex.len() <= 6
                    && hex.bytes().all(|b| b.is_ascii_hexdigit())
                    && u32::from_str_radix(hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .is_some();
                if !valid {
                    return Err(bad(self, end));
                }
                self.pos = end;
                Ok(())
            }
            None => Err(self.err(
                ErrorKind::UnterminatedString,
                start,
                start + 1,
                "string literal is never closed: expected `\"` before the end of the file",
            )),
            Some(_) => {
                let c = self.text[start + 1..].chars().next().unwrap_or('?');
                Err(self.err(
                    ErrorKind::BadEscape,
                    start,
                    start + 1 + c.len_utf8(),
                    format!(
                        "unknown escape `\\{c}`: expected one of `\\\\`, `\\\"`, `\\n`, `\\t`, `\\r`, `\\u{{HEX}}`"
                    ),
                ))
            }
        }
    }

    fn number(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        if self.peek(0) == Some(b'0') && self.peek(1) == Some(b'x') {
            self.pos += 2;
            while self.peek(0).is_some_and(|b| b.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            let digits = &self.text[start + 2..self.pos];
            if digits.is_empty() {
                return Err(self.err(
                    ErrorKind::BadToken,
                    start,
                    self.pos,
                    "expected hex digits after `0x`",
                ));
            }
            self.check_number_end(start)?;
            let digits = digits.trim_start_matches('0');
            let value = if digits.is_empty() {
                Some(0)
            } else {
                u64::from_str_radix(digits, 16).ok()
            };
            let Some(value) = value else {
                return Err(self.err(
                    ErrorKind::LiteralOverflow,
                    start,
                    self.pos,
                    "integer literal does not fit in 64 bits",
                ));
            };
            self.push(Tok::Int(value), start);
            return Ok(());
        }
        let digits = |lx: &mut Self| {
            while lx.peek(0).is_some_and(|b| b.is_ascii_digit()) {
                lx.pos += 1;
            }
        };
        digits(self);
        let mut float = false;
        if self.peek(0) == Some(b'.') && self.peek(1).is_some_and(|b| b.is_ascii_digit()) {
            float = true;
            self.pos += 1;
            digits(self);
        }
        if matches!(self.peek(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek(1), Some(b'+' | b'-')));
            if self.peek(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                float = true;
                self.pos += 1 + sign;
                digits(self);
            }
        }
        self.check_number_end(start)?;
        let text = &self.text[start..self.pos];
        if float {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => self.push(Tok::Float(v), start),
                _ => {
                    return Err(self.err(
                        ErrorKind::LiteralOverflow,
                        start,
                        self.pos,
                        format!(
                            "float literal `{text}` is out of range (write `inf` for infinity)"
                        ),
                    ))
                }
            }
        } else {
            match text.parse::<u64>() {
                Ok(v) => self.push(Tok::Int(v), start),
                Err(_) => {
                    return Err(self.err(
                        ErrorKind::LiteralOverflow,
                        start,
                        self.pos,
                        format!("integer literal `{text}` does not fit in 64 bits"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// A number must not run straight into an identifier (`12abc`, `1e`).
    fn check_number_end(&mut self, start: usize) -> Result<(), Diagnostic> {
        if self.units {
            let mut end = self.pos;
            while self.bytes.get(end).copied().is_some_and(is_ident_continue) {
                end += 1;
            }
            if matches!(&self.text[self.pos..end], "ms" | "s") {
                return Ok(());
            }
        }
        if self
            .peek(0)
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            while self.peek(0).is_some_and(is_ident_continue) {
                self.pos += 1;
            }
            return Err(self.err(
                ErrorKind::BadToken,
                start,
                self.pos,
                format!("invalid numeric literal `{}`", &self.text[start..self.pos]),
            ));
        }
        Ok(())
    }
}

/// Decodes the raw contents of a string token. The lexer has checked every escape, so this
/// never fails; anything unexpected is kept as written.
pub(in crate::syntax) fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let rest = chars.as_str();
                let decoded = rest
                    .strip_prefix('{')
                    .and_then(|r| r.split_once('}'))
                    .and_then(|(hex, tail)| {
                        let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)?;
                        Some((c, tail))
                    });
                match decoded {
                    Some((c, tail)) => {
                        out.push(c);
                        chars = tail.chars();
                    }
                    None => out.push_str("\\u"),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Writes `s` as a string literal the lexer reads back as `s`.
pub(super) fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        lex(FileId(0), s)
            .unwrap()
            .into_iter()
            .map(|t| t.0)
            .collect()
    }

    fn err(s: &str) -> Diagnostic {
        lex(FileId(0), s).unwrap_err()
    }

    #[test]
    fn numbers() {
        assert_eq!(toks("0..255"), [Tok::Int(0), Tok::DotDot, Tok::Int(255)]);
        assert_eq!(
            toks("1e20 1.5e-7 0.25"),
            [Tok::Float(1e20), Tok::Float(1.5e-7), Tok::Float(0.25)]
        );
        assert_eq!(toks("0xff -5"), [Tok::Int(255), Tok::Minus, Tok::Int(5)]);
        assert_eq!(toks("9223372036854775808"), [Tok::Int(1 << 63)]);
        assert_eq!(err("18446744073709551616").kind, ErrorKind::LiteralOverflow);
        assert_eq!(err("0x10000000000000000").kind, ErrorKind::LiteralOverflow);
        assert_eq!(err("1e999").kind, ErrorKind::LiteralOverflow);
        assert_eq!(err("12abc").kind, ErrorKind::BadToken);
        assert_eq!(err("0x").kind, ErrorKind::BadToken);
    }

    #[test]
    fn strings_and_comments() {
        assert_eq!(toks(r#""a\"b" // x"#), [Tok::Str(r#"a\"b"#)]);
        assert_eq!(unescape(r"a\\b\n\u{1F600}\t"), "a\\b\n\u{1F600}\t");
        assert_eq!(toks("/* { */ }"), [Tok::RBrace]);
        assert_eq!(err(r#""\q""#).kind, ErrorKind::BadEscape);
        assert_eq!(err(r#""\u{d800}""#).kind, ErrorKind::BadEscape);
        assert_eq!(err(r#""\u{110000}""#).kind, ErrorKind::BadEscape);
        assert_eq!(err(r#""abc"#).kind, ErrorKind::UnterminatedString);
        assert_eq!(err("/* abc").kind, ErrorKind::UnterminatedComment);
        assert_eq!(err("a & b").kind, ErrorKind::BadToken);
        assert_eq!(err("é").span, Span::new(FileId(0), 0, 2));
    }

    #[test]
    fn quote_round_trips() {
        for s in ["", "plain", "q\"b\\n\n\t\r\u{0}\u{7f}\u{1F600}é"] {
            let mut q = String::new();
            quote(s, &mut q);
            match toks(&q)[..] {
                [Tok::Str(raw)] => assert_eq!(unescape(raw), s),
                ref other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn punctuation() {
        assert_eq!(
            toks("-> - == = != ! <= < >= > && || ^^ ,;:@$+*/"),
            [
                Tok::Arrow,
                Tok::Minus,
                Tok::EqEq,
                Tok::Assign,
                Tok::NotEq,
                Tok::Bang,
                Tok::Le,
                Tok::Lt,
                Tok::Ge,
                Tok::Gt,
                Tok::AndAnd,
                Tok::OrOr,
                Tok::XorXor,
                Tok::Comma,
                Tok::Semi,
                Tok::Colon,
                Tok::At,
                Tok::Dollar,
                Tok::Plus,
                Tok::Star,
                Tok::Slash
            ]
        );
        assert_eq!(
            toks("running-list a.b"),
            [
                Tok::Ident("running"),
                Tok::Minus,
                Tok::Ident("list"),
                Tok::Ident("a.b")
            ]
        );
    }
}
