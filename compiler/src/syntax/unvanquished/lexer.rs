//! The lexer: source bytes to [`Token`]s, as the game's botlib-style tokenizer reads them.
//!
//! - Whitespace is any byte ≤ 0x20; `//` comments run to the end of the line; `/* … */`
//!   comments do not nest (an unterminated one is an error at its `/*`).
//! - `"…"` strings resolve the escapes `\\ \n \r \t \v \b \f \a \' \" \?`, `\xHH…` (hex) and
//!   `\DDD` (decimal, not octal), both clamped to 0xFF; adjacent strings separated only by
//!   whitespace and comments are one token. `'…'` gives a literal token.
//! - Numbers: `0x` hex, a leading `0` is octal unless an 8 or 9 follows, any `.` makes a float
//!   (no exponent), `.5` is a number, suffixes `l L u U` are skipped. Values are computed the
//!   way the game computes them; range checks belong to the consumers.
//! - Names `[A-Za-z_][A-Za-z0-9_]*`; punctuation by longest match over the C operator set.
//!
//! The lexer works on the bytes of text that is already known to be valid UTF-8. It never
//! expands macros, never looks at directives and never panics: every problem is a positioned
//! [`Diagnostic`].

use std::rc::Rc;
use std::sync::Arc;

use super::token::{Number, Punct, Token, TokenKind};
use crate::diag::{Diagnostic, ErrorKind, Severity};
use crate::source::{FileId, Span};

/// Reads the tokens of one file, one at a time.
pub(super) struct Lexer {
    text: Arc<str>,
    pos: usize,
    file: FileId,
    /// The tokenizer failed: the game's `PS_ReadToken` returned false, which ends this file.
    ended: bool,
    /// What the game's tokenizer logs (drained by the preprocessor).
    pub(super) warnings: Vec<Diagnostic>,
}

/// What [`Lexer::skip_space`] found before the next token.
struct Space {
    newlines: u32,
    any: bool,
}

impl Lexer {
    /// A lexer at the start of `text`, the contents of `file`.
    pub(super) fn new(file: FileId, text: Arc<str>) -> Lexer {
        Lexer {
            text,
            pos: 0,
            file,
            ended: false,
            warnings: Vec::new(),
        }
    }

    /// An empty span at the end of the file.
    pub(super) fn eof_span(&self) -> Span {
        Span::new(self.file, self.text.len(), self.text.len())
    }

    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn at(&self, i: usize) -> u8 {
        self.bytes().get(i).copied().unwrap_or(0)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// The next token, or `None` at the end of the file.
    ///
    /// Where the game's tokenizer fails (an unterminated comment or string, a character that
    /// starts no token) the file ends there, as in the game, and the complaint is a warning;
    /// the malformed numbers btvm rejects on purpose are errors.
    pub(super) fn next_token(&mut self) -> Result<Option<Token>, Diagnostic> {
        if self.ended {
            return Ok(None);
        }
        match self.read_token() {
            Err(d) if ends_file(&d) => {
                self.ended = true;
                self.warnings.push(Diagnostic {
                    severity: Severity::Warning,
                    ..d.with_note(
                        "the game's tokenizer stops reading this file here; the tokens before \
                         it are used",
                    )
                });
                Ok(None)
            }
            r => r,
        }
    }

    fn read_token(&mut self) -> Result<Option<Token>, Diagnostic> {
        let space = self.skip_space()?;
        let start = self.pos;
        if start >= self.bytes().len() {
            return Ok(None);
        }
        let c = self.at(start);
        let kind = match c {
            b'"' | b'\'' => self.quoted(c)?,
            b'0'..=b'9' => self.number()?,
            b'.' if self.at(start + 1).is_ascii_digit() => self.number()?,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.name(),
            _ => self.punct()?,
        };
        Ok(Some(Token {
            kind,
            span: self.span(start, self.pos),
            lines_before: space.newlines,
            space_before: space.any,
            hide: None,
        }))
    }

    /// Skips whitespace and comments; errors on an unterminated block comment.
    fn skip_space(&mut self) -> Result<Space, Diagnostic> {
        let mut space = Space {
            newlines: 0,
            any: false,
        };
        loop {
            let c = self.at(self.pos);
            if self.pos < self.bytes().len() && c <= b' ' {
                if c == b'\n' {
                    space.newlines = space.newlines.saturating_add(1);
                }
                self.pos += 1;
                space.any = true;
            } else if c == b'/' && self.at(self.pos + 1) == b'/' {
                while self.pos < self.bytes().len() && self.at(self.pos) != b'\n' {
                    self.pos += 1;
                }
                space.any = true;
            } else if c == b'/' && self.at(self.pos + 1) == b'*' {
                let open = self.pos;
                self.pos += 2;
                loop {
                    if self.pos >= self.bytes().len() {
                        return Err(Diagnostic::new(
                            ErrorKind::UnterminatedComment,
                            self.span(open, open + 2),
                            "this block comment is never closed with `*/`",
                        ));
                    }
                    if self.at(self.pos) == b'*' && self.at(self.pos + 1) == b'/' {
                        self.pos += 2;
                        break;
                    }
                    if self.at(self.pos) == b'\n' {
                        space.newlines = space.newlines.saturating_add(1);
                    }
                    self.pos += 1;
                }
                space.any = true;
            } else {
                return Ok(space);
            }
        }
    }

    /// A name token.
    fn name(&mut self) -> TokenKind {
        let start = self.pos;
        while matches!(self.at(self.pos), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
        TokenKind::Name(self.text[start..self.pos].into())
    }

    /// A punctuation token, or `BadToken` for a byte that starts no token.
    fn punct(&mut self) -> Result<TokenKind, Diagnostic> {
        let rest = &self.bytes()[self.pos..];
        for p in Punct::LONGEST_FIRST {
            if rest.starts_with(p.as_str().as_bytes()) {
                self.pos += p.as_str().len();
                return Ok(TokenKind::Punct(p));
            }
        }
        // Point at the whole character (the text is valid UTF-8).
        let ch = self.text[self.pos..].chars().next().unwrap_or('\u{fffd}');
        let end = self.pos + ch.len_utf8();
        Err(Diagnostic::new(
            ErrorKind::BadToken,
            self.span(self.pos, end),
            format!("{UNEXPECTED} {:?}", ch),
        )
        .with_note("the game's tokenizer accepts names, numbers, strings and C punctuation only"))
    }

    /// A number token (the current byte is a digit, or a `.` before a digit).
    fn number(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos;
        let b = self.bytes();
        if b[start] == b'0' && matches!(self.at(start + 1), b'x' | b'X') {
            self.pos += 2;
            let mut value: Option<u64> = Some(0);
            while let Some(d) = (self.at(self.pos) as char).to_digit(16) {
                value = value
                    .and_then(|v| v.checked_mul(16))
                    .and_then(|v| v.checked_add(u64::from(d)));
                self.pos += 1;
            }
            let text: Rc<str> = self.text[start..self.pos].into();
            self.suffixes(false);
            return Ok(TokenKind::Number(Rc::new(Number {
                text,
                is_float: false,
                float: value.map_or(f64::INFINITY, |v| v as f64),
                int: value,
            })));
        }
        let mut octal = b[start] == b'0';
        let mut dots = 0;
        loop {
            match self.at(self.pos) {
                b'.' => dots += 1,
                b'8' | b'9' => octal = false,
                b'0'..=b'7' => {}
                _ => break,
            }
            self.pos += 1;
        }
        let text: Rc<str> = self.text[start..self.pos].into();
        if dots > 1 {
            return Err(self.malformed(start, "a number may contain only one `.`"));
        }
        if dots == 1 && text.ends_with('.') {
            return Err(self.malformed(
                start,
                "a number may not end with `.` (the game's tokenizer misreads it); write `1.0`",
            ));
        }
        let is_float = dots == 1;
        self.suffixes(is_float);
        let number = if is_float {
            float_value(text)
        } else {
            let (radix, digits) = if octal {
                (8, &text[1..])
            } else {
                (10, &text[..])
            };
            let mut value: Option<u64> = Some(0);
            for d in digits.bytes() {
                value = value
                    .and_then(|v| v.checked_mul(radix))
                    .and_then(|v| v.checked_add(u64::from(d - b'0')));
            }
            Number {
                text,
                is_float: false,
                float: value.map_or(f64::INFINITY, |v| v as f64),
                int: value,
            }
        };
        Ok(TokenKind::Number(Rc::new(number)))
    }

    /// Skips the suffixes the game ignores: one of `l L`, one of `u U` (not on floats).
    fn suffixes(&mut self, is_float: bool) {
        let (mut long, mut unsigned) = (false, false);
        for _ in 0..2 {
            match self.at(self.pos) {
                b'l' | b'L' if !long => long = true,
                b'u' | b'U' if !unsigned && !is_float => unsigned = true,
                _ => return,
            }
            self.pos += 1;
        }
    }

    fn malformed(&self, start: usize, msg: &str) -> Diagnostic {
        Diagnostic::new(ErrorKind::BadToken, self.span(start, self.pos), msg)
    }

    /// A `"…"` string (with adjacent strings joined) or a `'…'` literal.
    fn quoted(&mut self, quote: u8) -> Result<TokenKind, Diagnostic> {
        let open = self.pos;
        let mut out = String::new();
        let mut cut = false;
        self.pos += 1;
        loop {
            let c = self.at(self.pos);
            if self.pos >= self.bytes().len() || c == b'\n' {
                let what = if c == b'\n' {
                    "a line break"
                } else {
                    "the end of the file"
                };
                return Err(Diagnostic::new(
                    ErrorKind::UnterminatedString,
                    self.span(open, self.pos),
                    format!("this string reaches {what} without its closing quote"),
                ));
            }
            if c == b'\\' {
                let ch = self.escape()?;
                // The game's strings are C strings: a NUL (`\0`, an unknown escape) ends the
                // value, though the token runs on to its closing quote.
                cut |= ch == '\0';
                if !cut {
                    out.push(ch);
                }
            } else if c == quote {
                self.pos += 1;
                // Join the next literal of the same kind if only space and comments come between.
                let save = self.pos;
                match self.skip_space() {
                    Ok(_) if self.at(self.pos) == quote && self.pos < self.bytes().len() => {
                        self.pos += 1;
                    }
                    _ => {
                        self.pos = save;
                        break;
                    }
                }
            } else {
                let ch = self.text[self.pos..].chars().next().unwrap_or('\u{fffd}');
                if !cut {
                    out.push(ch);
                }
                self.pos += ch.len_utf8();
            }
        }
        Ok(if quote == b'"' {
            TokenKind::Str(out.into())
        } else {
            TokenKind::Literal(out.into())
        })
    }

    /// One escape sequence (at a `\`); values above 0xFF are clamped, as the game does.
    fn escape(&mut self) -> Result<char, Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        let c = self.at(self.pos);
        let simple = match c {
            b'\\' => Some('\\'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'v' => Some('\u{0b}'),
            b'b' => Some('\u{08}'),
            b'f' => Some('\u{0c}'),
            b'a' => Some('\u{07}'),
            b'\'' => Some('\''),
            b'"' => Some('"'),
            b'?' => Some('?'),
            _ => None,
        };
        if let Some(ch) = simple {
            self.pos += 1;
            return Ok(ch);
        }
        let (radix, first) = match c {
            b'x' => (16, self.pos + 1),
            b'0'..=b'9' => (10, self.pos),
            _ if self.pos >= self.bytes().len() => {
                return Err(Diagnostic::new(
                    ErrorKind::UnterminatedString,
                    self.span(start, self.pos),
                    "the file ends inside an escape sequence",
                ))
            }
            _ => {
                // `PS_ReadEscapeCharacter` logs "unknown escape char" (a notice) and stores 0,
                // and the character after the `\` is read again as part of the string.
                let ch = self.text[self.pos..].chars().next().unwrap_or('\u{fffd}');
                let end = if c == b'\n' {
                    self.pos
                } else {
                    self.pos + ch.len_utf8()
                };
                self.warnings.push(
                    Diagnostic::warning(
                        ErrorKind::BadEscape,
                        self.span(start, end),
                        format!("unknown escape sequence `\\{}`", ch.escape_default()),
                    )
                    .with_note(
                        "the game stores a NUL there, so the string ends before it; valid \
                         escapes: \\\\ \\n \\r \\t \\v \\b \\f \\a \\' \\\" \\? \\xHH \\DDD",
                    ),
                );
                return Ok('\0');
            }
        };
        self.pos = first;
        let mut value: u32 = 0;
        // The game's `\x` takes every letter as a digit (`g` is 16, `z` 35).
        let digits = if radix == 16 { 36 } else { 10 };
        while let Some(d) = (self.at(self.pos) as char).to_digit(digits) {
            value = (value * radix + d).min(0x100);
            self.pos += 1;
        }
        if value > 0xFF {
            self.warnings.push(Diagnostic::warning(
                ErrorKind::BadEscape,
                self.span(start, self.pos),
                "too large value in escape character; 255 is stored",
            ));
        }
        // A byte value; above 0x7F it is read as the Latin-1 character of that code.
        Ok(char::from(value.min(0xFF) as u8))
    }
}

/// The start of the message for a character that starts no token.
const UNEXPECTED: &str = "unexpected character";

/// Whether the game's tokenizer, failing this way, ends the file (`PS_ReadToken` returns
/// false): unterminated comments and strings and characters that start no token. Malformed
/// numbers, which btvm rejects on purpose, are not among them.
fn ends_file(d: &Diagnostic) -> bool {
    matches!(
        d.kind,
        ErrorKind::UnterminatedComment | ErrorKind::UnterminatedString
    ) || (d.kind == ErrorKind::BadToken && d.message.starts_with(UNEXPECTED))
}

/// The value of a float spelling, computed the way the game's tokenizer does: integer digits
/// accumulated as `v * 10 + d`, fraction digits added as `d / 10^k`, all in doubles.
fn float_value(text: Rc<str>) -> Number {
    let mut value = 0.0f64;
    let mut scale: u64 = 0;
    for b in text.bytes() {
        if b == b'.' {
            scale = 10;
            continue;
        }
        let d = f64::from(b - b'0');
        if scale == 0 {
            value = value * 10.0 + d;
        } else {
            value += d / scale as f64;
            scale = scale.wrapping_mul(10);
        }
    }
    // The game converts with `(unsigned long) value`; out of that range it is undefined.
    let int = (value.is_finite() && value < 18_446_744_073_709_551_616.0).then_some(value as u64);
    Number {
        text,
        is_float: true,
        int,
        float: value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(src: &str) -> Result<Vec<TokenKind>, Diagnostic> {
        lex_warned(src).map(|(k, _)| k)
    }

    /// The tokens and the warnings.
    fn lex_warned(src: &str) -> Result<(Vec<TokenKind>, Vec<Diagnostic>), Diagnostic> {
        let mut l = Lexer::new(FileId(0), src.into());
        let mut out = Vec::new();
        while let Some(t) = l.next_token()? {
            out.push(t.kind);
        }
        Ok((out, l.warnings))
    }

    /// The tokens of a file the game's tokenizer stops reading, and the one warning saying why.
    fn cut(src: &str) -> (Vec<TokenKind>, Diagnostic) {
        let (k, mut w) = lex_warned(src).unwrap();
        assert_eq!(w.len(), 1, "{src:?}: {w:?}");
        assert!(w[0].is_warning());
        (k, w.remove(0))
    }

    fn num(src: &str) -> Number {
        match lex(src).unwrap().remove(0) {
            TokenKind::Number(n) => (*n).clone(),
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(num("0x1F").int, Some(31));
        assert_eq!(num("010").int, Some(8));
        assert_eq!(num("08").int, Some(8));
        assert_eq!(num("019").int, Some(19));
        assert_eq!(num("0").int, Some(0));
        assert_eq!(num("12uL").int, Some(12));
        assert!(num(".5").is_float);
        assert_eq!(num(".5").float, 0.5);
        assert_eq!(num("2.25").float, 2.25);
        assert_eq!(num("2.75").int, Some(2));
        assert_eq!(num("99999999999999999999999").int, None);
        assert_eq!(lex("1.5u").unwrap().len(), 2);
        assert_eq!(lex("1.2.3").unwrap_err().kind, ErrorKind::BadToken);
        assert_eq!(lex("1.").unwrap_err().kind, ErrorKind::BadToken);
    }

    #[test]
    fn strings_and_escapes() {
        let k = lex(r#""\065\x42" /* c */ "c" 'q'"#).unwrap();
        assert_eq!(k[0], TokenKind::Str("ABc".into()));
        assert_eq!(k[1], TokenKind::Literal("q".into()));
        let k = lex(r#""\x1234\999\n\?""#).unwrap();
        assert_eq!(k[0], TokenKind::Str("\u{ff}\u{ff}\n?".into()));
        // An unknown escape and `\0` store a NUL: the string ends there (a warning).
        let (k, w) = cut(r#""ab\qcd" x"#);
        assert_eq!(
            k,
            [TokenKind::Str("ab".into()), TokenKind::Name("x".into())]
        );
        assert_eq!(w.kind, ErrorKind::BadEscape);
        assert_eq!(lex(r#""ab\0cd""#).unwrap()[0], TokenKind::Str("ab".into()));
        // `\x` reads letters past `f` as digits: 4 * 16 + 16 is `P`.
        assert_eq!(lex(r#""\x4g""#).unwrap()[0], TokenKind::Str("P".into()));
        // An unterminated string ends the file, keeping the tokens before it.
        let (k, w) = cut("a \"ab\ncd\"");
        assert_eq!((k.len(), w.kind), (1, ErrorKind::UnterminatedString));
        assert_eq!(cut("\"ab").1.kind, ErrorKind::UnterminatedString);
        assert_eq!(cut("\"ab\\").1.kind, ErrorKind::UnterminatedString);
    }

    #[test]
    fn punctuation_comments_and_bad_bytes() {
        let k = lex("a>>=b // x\n/* y\n */ ... ## $").unwrap();
        assert_eq!(k[1], TokenKind::Punct(Punct::RShiftAssign));
        assert_eq!(k[3], TokenKind::Punct(Punct::Ellipsis));
        assert_eq!(k.len(), 6);
        // Where the game's tokenizer fails, the file ends with a warning.
        let (k, e) = cut("a /* open");
        assert_eq!(
            (k.len(), e.kind, e.span.start),
            (1, ErrorKind::UnterminatedComment, 2)
        );
        let (k, e) = cut("a @ b");
        assert_eq!((k.len(), e.kind, e.span.start), (1, ErrorKind::BadToken, 2));
        assert_eq!(cut("é").1.span.end, 2);
    }

    #[test]
    fn whitespace_is_recorded() {
        let mut l = Lexer::new(FileId(0), "a(\n\n b /**/c".into());
        let a = l.next_token().unwrap().unwrap();
        let p = l.next_token().unwrap().unwrap();
        let b = l.next_token().unwrap().unwrap();
        let c = l.next_token().unwrap().unwrap();
        assert!(!a.space_before && !p.space_before);
        assert_eq!((b.lines_before, b.space_before), (2, true));
        assert_eq!((c.lines_before, c.space_before), (0, true));
    }
}
