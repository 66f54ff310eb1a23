//! Tokens of the `.bt` lexical layer (the game's botlib-style tokenizer).
//!
//! A token knows its kind, its span and the whitespace before it (needed by the preprocessor:
//! directive lines end at a newline, and `#define F(` is function-like only without a space
//! before the `(`). Tokens made by macro expansion carry the span of the macro use site and a
//! hide set, the macros that must not expand them again.
//!
//! This file only defines data: it never reads source text.

use std::fmt;
use std::rc::Rc;

use crate::source::Span;

/// Punctuation, the full C operator set the game's tokenizer knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Punct {
    RShiftAssign,
    LShiftAssign,
    Ellipsis,
    Paste,
    AndAnd,
    OrOr,
    Ge,
    Le,
    EqEq,
    Ne,
    MulAssign,
    DivAssign,
    ModAssign,
    AddAssign,
    SubAssign,
    Inc,
    Dec,
    AndAssign,
    OrAssign,
    XorAssign,
    Shr,
    Shl,
    Arrow,
    ColonColon,
    DotStar,
    Star,
    Slash,
    Percent,
    Plus,
    Minus,
    Assign,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    Gt,
    Lt,
    Dot,
    Comma,
    Semi,
    Colon,
    Question,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Backslash,
    Hash,
    Dollar,
}

impl Punct {
    /// Every punctuation, longest spellings first (the lexer takes the first that matches).
    pub(super) const LONGEST_FIRST: [Punct; 52] = [
        Punct::RShiftAssign,
        Punct::LShiftAssign,
        Punct::Ellipsis,
        Punct::Paste,
        Punct::AndAnd,
        Punct::OrOr,
        Punct::Ge,
        Punct::Le,
        Punct::EqEq,
        Punct::Ne,
        Punct::MulAssign,
        Punct::DivAssign,
        Punct::ModAssign,
        Punct::AddAssign,
        Punct::SubAssign,
        Punct::Inc,
        Punct::Dec,
        Punct::AndAssign,
        Punct::OrAssign,
        Punct::XorAssign,
        Punct::Shr,
        Punct::Shl,
        Punct::Arrow,
        Punct::ColonColon,
        Punct::DotStar,
        Punct::Star,
        Punct::Slash,
        Punct::Percent,
        Punct::Plus,
        Punct::Minus,
        Punct::Assign,
        Punct::Amp,
        Punct::Pipe,
        Punct::Caret,
        Punct::Tilde,
        Punct::Bang,
        Punct::Gt,
        Punct::Lt,
        Punct::Dot,
        Punct::Comma,
        Punct::Semi,
        Punct::Colon,
        Punct::Question,
        Punct::LParen,
        Punct::RParen,
        Punct::LBrace,
        Punct::RBrace,
        Punct::LBracket,
        Punct::RBracket,
        Punct::Backslash,
        Punct::Hash,
        Punct::Dollar,
    ];

    /// The spelling.
    pub(super) fn as_str(self) -> &'static str {
        use Punct::*;
        match self {
            RShiftAssign => ">>=",
            LShiftAssign => "<<=",
            Ellipsis => "...",
            Paste => "##",
            AndAnd => "&&",
            OrOr => "||",
            Ge => ">=",
            Le => "<=",
            EqEq => "==",
            Ne => "!=",
            MulAssign => "*=",
            DivAssign => "/=",
            ModAssign => "%=",
            AddAssign => "+=",
            SubAssign => "-=",
            Inc => "++",
            Dec => "--",
            AndAssign => "&=",
            OrAssign => "|=",
            XorAssign => "^=",
            Shr => ">>",
            Shl => "<<",
            Arrow => "->",
            ColonColon => "::",
            DotStar => ".*",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Plus => "+",
            Minus => "-",
            Assign => "=",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Tilde => "~",
            Bang => "!",
            Gt => ">",
            Lt => "<",
            Dot => ".",
            Comma => ",",
            Semi => ";",
            Colon => ":",
            Question => "?",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            LBracket => "[",
            RBracket => "]",
            Backslash => "\\",
            Hash => "#",
            Dollar => "$",
        }
    }
}

/// A number token with the values the game's tokenizer computes for it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Number {
    /// The spelling, without suffixes.
    pub text: Rc<str>,
    /// Whether the spelling has a `.` (a float token).
    pub is_float: bool,
    /// The integer value: the literal's value for integers, the truncated value for floats;
    /// `None` when it does not fit in 64 bits.
    pub int: Option<u64>,
    /// The value as a double, accumulated digit by digit as the game does.
    pub float: f64,
}

impl Number {
    /// An integer number token with value `v`.
    pub(super) fn int(v: u64) -> Number {
        Number {
            text: v.to_string().into(),
            is_float: false,
            int: Some(v),
            float: v as f64,
        }
    }
}

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Name(Rc<str>),
    /// A number.
    Number(Rc<Number>),
    /// A `"…"` string, escapes resolved, quotes stripped.
    Str(Rc<str>),
    /// A `'…'` literal (lexed, then rejected by the parser).
    Literal(Rc<str>),
    /// Punctuation.
    Punct(Punct),
    /// Internal end marker (the preprocessor uses it to bound a `#if` line); never output.
    End,
}

/// A token.
#[derive(Clone, Debug)]
pub(super) struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is (for expanded tokens: the macro use site).
    pub span: Span,
    /// Newlines between the previous token of the same file and this one.
    pub lines_before: u32,
    /// Whether whitespace or a comment comes right before it.
    pub space_before: bool,
    /// Ids of the macros that must not expand this token (sorted; `None` is empty).
    pub hide: Option<Rc<[u32]>>,
}

impl Token {
    /// A token with no whitespace information and an empty hide set.
    pub(super) fn new(kind: TokenKind, span: Span) -> Token {
        Token {
            kind,
            span,
            lines_before: 0,
            space_before: false,
            hide: None,
        }
    }

    /// Whether this is the punctuation `p`.
    pub(super) fn is(&self, p: Punct) -> bool {
        self.kind == TokenKind::Punct(p)
    }

    /// Whether the game's parser reads this token as `p` (`{`, `}`, `(`, `)`): it compares the
    /// token's text (`Q_stricmp` in `src/sgame/sg_bot_parse.cpp`), so a string whose value is
    /// that spelling counts too (`"{"` opens a list).
    pub(super) fn is_text(&self, p: Punct) -> bool {
        match &self.kind {
            TokenKind::Punct(q) => *q == p,
            TokenKind::Str(s) => &**s == p.as_str(),
            _ => false,
        }
    }

    /// Whether the token's text starts with `(` (the game's `token.string[0] == '('`): the
    /// punctuation, or a string whose value starts with `(`.
    pub(super) fn starts_paren(&self) -> bool {
        match &self.kind {
            TokenKind::Punct(p) => *p == Punct::LParen,
            TokenKind::Str(s) => s.starts_with('('),
            _ => false,
        }
    }

    /// The name, if this is a name token.
    pub(super) fn name(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Name(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is a name equal to `kw`, ignoring ASCII case (the game's `Q_stricmp`).
    pub(super) fn is_keyword(&self, kw: &str) -> bool {
        self.name().is_some_and(|n| n.eq_ignore_ascii_case(kw))
    }

    /// The text the game's parser compares (`pc_token_t::string`): a name's or number's
    /// spelling, a string's value without its quotes, a punctuation's spelling.
    pub(super) fn game_text(&self) -> String {
        match &self.kind {
            TokenKind::Str(s) => s.to_string(),
            _ => self.text(),
        }
    }

    /// Whether macro `id` is in the hide set.
    pub(super) fn hidden(&self, id: u32) -> bool {
        self.hide
            .as_deref()
            .is_some_and(|h| h.binary_search(&id).is_ok())
    }

    /// The spelling, as closely as it can be rebuilt (used by `#` stringizing, `##` pasting
    /// and messages).
    pub(super) fn text(&self) -> String {
        match &self.kind {
            TokenKind::Name(n) => n.to_string(),
            TokenKind::Number(n) => n.text.to_string(),
            TokenKind::Str(s) => format!("\"{}\"", s.escape_default()),
            TokenKind::Literal(s) => format!("'{}'", s.escape_default()),
            TokenKind::Punct(p) => p.as_str().to_string(),
            TokenKind::End => String::new(),
        }
    }
}

impl fmt::Display for Token {
    /// Describes the token for messages: "`selector`", "string \"abc\"", "end of line".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TokenKind::Str(_) => write!(f, "string {}", self.text()),
            TokenKind::Literal(_) => write!(f, "character literal {}", self.text()),
            TokenKind::Number(n) => write!(f, "number `{}`", n.text),
            TokenKind::End => f.write_str("end of line"),
            _ => write!(f, "`{}`", self.text()),
        }
    }
}
