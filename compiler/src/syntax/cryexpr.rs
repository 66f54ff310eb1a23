//! CryEngine's boolean condition expressions, shared by the MBT and BST front-ends
//! (`spec/mbt.md` section 1.5).
//!
//! The grammar is one flat, left-associative level of `and` / `or` / `xor` over operands that
//! may hold one `==` or `!=` comparison, with `!` allowed only directly before a value. This
//! module turns one attribute value into an [`Expr`] over the tree's boolean variables.
//!
//! It must never panic, print or recurse without bound: parenthesis nesting is checked against
//! [`Limits::max_expr_depth`](btvm::Limits) before each recursive step, and every error is a
//! positioned [`Diagnostic`] inside the attribute value.

use btvm::{BinOp, Limits};

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Expr, Lit, VarId};
use crate::source::Span;

/// Most operators and operands one expression may hold (the original's `uint8` indices).
pub const MAX_TERMS: usize = 255;

/// How an identifier that names no declared variable is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undeclared {
    /// MBT: reads as the literal `false`.
    False,
    /// BST: an `UnknownName` error.
    Error,
}

/// Parses one CryEngine condition.
///
/// `origin` is the span of the attribute value's text in its file, so byte `i` of `text` is at
/// `origin.start + i`. When the lengths differ (the value held entity escapes), every error
/// points at the whole `origin` instead. `vars` resolves a name case-insensitively to a
/// declared variable.
pub fn parse(
    text: &str,
    origin: Span,
    vars: &dyn Fn(&str) -> Option<VarId>,
    undeclared: Undeclared,
    limits: &Limits,
) -> Result<Expr, Diagnostic> {
    parse_reporting(text, origin, vars, undeclared, limits, &mut Vec::new())
}

/// [`parse`], pushing a warning onto `warnings` when text after a complete expression is
/// ignored (`Alerted = Hidden`, `Alerted && Hidden` and `a b` all read as their first operand).
///
/// The original's parser stops at the first token that cannot continue the expression and
/// never checks for the end of the input (`Variables::Expression::ParseLogical` in
/// `Code/CryEngine/CryCommon/CryCore/Containers/VariableCollection.h`,
/// `SelectionCondition::ParseLogical` in `Code/CryEngine/CryAISystem/SelectionTree/
/// SelectionCondition.cpp`, commit 8b63f61c); its `SimpleLexer` returns a character it does not
/// know as a token of its own, which no rule continues with. The original is silent about the
/// ignored text; the warning is btvm's (**Definition**).
pub fn parse_reporting(
    text: &str,
    origin: Span,
    vars: &dyn Fn(&str) -> Option<VarId>,
    undeclared: Undeclared,
    limits: &Limits,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Expr, Diagnostic> {
    let exact = (origin.end as usize).checked_sub(origin.start as usize) == Some(text.len());
    let mut p = Parser {
        text,
        pos: 0,
        origin,
        exact,
        vars,
        undeclared,
        max_depth: limits.max_expr_depth,
        terms: 0,
    };
    p.skip_ws();
    if p.pos >= text.len() {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            origin,
            "empty condition expression",
        ));
    }
    let expr = p.logical(1)?;
    let (rest, start, _) = p.peek();
    if rest != Tok::End {
        warnings.push(Diagnostic::warning(
            ErrorKind::Syntax,
            p.span(start, text.len()),
            format!(
                "the condition ends before {}: the rest, `{}`, is ignored",
                rest.describe(),
                text[start..].trim_end()
            ),
        ));
    }
    if expr.depth() > limits.max_expr_depth as usize {
        return Err(Diagnostic::new(
            ErrorKind::NestTooDeep,
            origin,
            format!(
                "condition expression nested deeper than {}",
                limits.max_expr_depth
            ),
        ));
    }
    Ok(expr)
}

/// One token of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    LParen,
    RParen,
    EqEq,
    NotEq,
    Bang,
    And,
    Or,
    Xor,
    True,
    False,
    Ident(&'a str),
    /// A character the lexer does not accept (`=`, `$`, ...).
    Bad(char),
    End,
}

impl Tok<'_> {
    fn describe(self) -> String {
        match self {
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::EqEq => "`==`".into(),
            Tok::NotEq => "`!=`".into(),
            Tok::Bang => "`!`".into(),
            Tok::And => "`and`".into(),
            Tok::Or => "`or`".into(),
            Tok::Xor => "`xor`".into(),
            Tok::True => "`true`".into(),
            Tok::False => "`false`".into(),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Bad(c) => format!("unexpected character `{}`", c.escape_debug()),
            Tok::End => "the end of the expression".into(),
        }
    }
}

struct Parser<'a, 'v> {
    text: &'a str,
    /// Byte offset of the next unread character.
    pos: usize,
    origin: Span,
    /// Whether byte offsets of `text` map 1:1 onto `origin`.
    exact: bool,
    vars: &'v dyn Fn(&str) -> Option<VarId>,
    undeclared: Undeclared,
    max_depth: u32,
    /// Operators and operands read so far.
    terms: usize,
}

impl<'a> Parser<'a, '_> {
    /// Skips the characters C's `isspace` accepts in the "C" locale (the original lexer's
    /// test): space, tab, newline, vertical tab, form feed, carriage return.
    fn skip_ws(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len()
            - rest
                .trim_start_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r'])
                .len();
    }

    /// The span of bytes `start..end` of the text.
    fn span(&self, start: usize, end: usize) -> Span {
        if self.exact {
            let base = self.origin.start as usize;
            Span::new(self.origin.file, base + start, base + end)
        } else {
            self.origin
        }
    }

    /// Reads the next token without consuming it: the token and its byte range.
    fn peek(&mut self) -> (Tok<'a>, usize, usize) {
        self.skip_ws();
        let start = self.pos;
        let rest = &self.text[start..];
        let Some(c) = rest.chars().next() else {
            return (Tok::End, start, start);
        };
        let one = |t| (t, start, start + 1);
        match c {
            '(' => one(Tok::LParen),
            ')' => one(Tok::RParen),
            '=' if rest.as_bytes().get(1) == Some(&b'=') => (Tok::EqEq, start, start + 2),
            '!' if rest.as_bytes().get(1) == Some(&b'=') => (Tok::NotEq, start, start + 2),
            '!' => one(Tok::Bang),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len = rest
                    .bytes()
                    .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
                    .unwrap_or(rest.len());
                let word = &rest[..len];
                let tok = if word.eq_ignore_ascii_case("and") {
                    Tok::And
                } else if word.eq_ignore_ascii_case("or") {
                    Tok::Or
                } else if word.eq_ignore_ascii_case("xor") {
                    Tok::Xor
                } else if word.eq_ignore_ascii_case("true") {
                    Tok::True
                } else if word.eq_ignore_ascii_case("false") {
                    Tok::False
                } else {
                    Tok::Ident(word)
                };
                (tok, start, start + len)
            }
            c => (Tok::Bad(c), start, start + c.len_utf8()),
        }
    }

    /// Counts one operator or operand at `start..end`.
    fn count(&mut self, start: usize, end: usize) -> Result<(), Diagnostic> {
        self.terms += 1;
        if self.terms > MAX_TERMS {
            return Err(Diagnostic::new(
                ErrorKind::LimitExceeded,
                self.span(start, end),
                format!("a condition may hold at most {MAX_TERMS} operators and operands"),
            ));
        }
        Ok(())
    }

    fn bad_char(&self, c: char, start: usize, end: usize, wanted: &str) -> Diagnostic {
        Diagnostic::new(
            ErrorKind::Syntax,
            self.span(start, end),
            format!(
                "unexpected character `{}` where {wanted} was expected",
                c.escape_debug()
            ),
        )
    }

    /// `logical := comp (("and" | "or" | "xor") comp)*`, left-associative. `depth` is the
    /// parenthesis depth of this call (1 at the top).
    fn logical(&mut self, depth: u32) -> Result<Expr, Diagnostic> {
        let mut lhs = self.comp(depth)?;
        loop {
            let (tok, start, end) = self.peek();
            let op = match tok {
                Tok::And => BinOp::And,
                Tok::Or => BinOp::Or,
                Tok::Xor => BinOp::Xor,
                // Anything else, an unknown character too, ends the expression; the caller
                // decides what may follow.
                _ => return Ok(lhs),
            };
            self.pos = end;
            self.count(start, end)?;
            let rhs = self.comp(depth)?;
            lhs = Expr::binary(op, lhs, rhs);
        }
    }

    /// `comp := unary [("==" | "!=") unary]`.
    fn comp(&mut self, depth: u32) -> Result<Expr, Diagnostic> {
        let lhs = self.unary(depth)?;
        let (tok, start, end) = self.peek();
        let op = match tok {
            Tok::EqEq => BinOp::Eq,
            Tok::NotEq => BinOp::Ne,
            _ => return Ok(lhs),
        };
        self.pos = end;
        self.count(start, end)?;
        let rhs = self.unary(depth)?;
        Ok(Expr::binary(op, lhs, rhs))
    }

    /// `unary := "!" value | value`.
    fn unary(&mut self, depth: u32) -> Result<Expr, Diagnostic> {
        let (tok, start, end) = self.peek();
        if tok == Tok::Bang {
            self.pos = end;
            self.count(start, end)?;
            let v = self.value(depth)?;
            Ok(Expr::Not(Box::new(v)))
        } else {
            self.value(depth)
        }
    }

    /// `value := "(" logical ")" | "true" | "false" | IDENT`.
    fn value(&mut self, depth: u32) -> Result<Expr, Diagnostic> {
        let (tok, start, end) = self.peek();
        match tok {
            Tok::LParen => {
                if depth >= self.max_depth {
                    return Err(Diagnostic::new(
                        ErrorKind::NestTooDeep,
                        self.span(start, end),
                        format!(
                            "parentheses nested deeper than {} in a condition",
                            self.max_depth
                        ),
                    ));
                }
                self.pos = end;
                let inner = self.logical(depth + 1)?;
                let (close, cs, ce) = self.peek();
                if close != Tok::RParen {
                    return Err(Diagnostic::new(
                        ErrorKind::Syntax,
                        self.span(cs, ce),
                        format!("expected `)` or an operator, found {}", close.describe()),
                    )
                    .with_label(self.span(start, end), "this `(` is not closed"));
                }
                self.pos = ce;
                Ok(inner)
            }
            Tok::True | Tok::False => {
                self.pos = end;
                self.count(start, end)?;
                Ok(Expr::Lit(Lit::Bool(tok == Tok::True)))
            }
            Tok::Ident(name) => {
                self.pos = end;
                self.count(start, end)?;
                match (self.vars)(name) {
                    Some(id) => Ok(Expr::Var(id)),
                    None => match self.undeclared {
                        Undeclared::False => Ok(Expr::Lit(Lit::Bool(false))),
                        Undeclared::Error => Err(Diagnostic::new(
                            ErrorKind::UnknownName,
                            self.span(start, end),
                            format!("unknown variable `{name}`"),
                        )),
                    },
                }
            }
            Tok::Bad(c) => Err(self.bad_char(c, start, end, "a value")),
            other => Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.span(start, end),
                format!(
                    "expected a value (a variable, `true`, `false` or `(`), found {}",
                    other.describe()
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    const NAMES: [&str; 4] = ["a", "b", "c", "x.y_1"];

    fn lookup(name: &str) -> Option<VarId> {
        NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
            .map(|i| VarId(i as u32))
    }

    fn origin(text: &str) -> Span {
        Span::new(FileId(0), 100, 100 + text.len())
    }

    fn run(text: &str, undeclared: Undeclared, limits: &Limits) -> Result<Expr, Diagnostic> {
        parse(text, origin(text), &lookup, undeclared, limits)
    }

    fn ok(text: &str) -> Expr {
        match run(text, Undeclared::Error, &Limits::default()) {
            Ok(e) => e,
            Err(d) => panic!("{text:?}: {d:?}"),
        }
    }

    fn err(text: &str) -> Diagnostic {
        match run(text, Undeclared::Error, &Limits::default()) {
            Ok(e) => panic!("{text:?} parsed as {e:?}"),
            Err(d) => d,
        }
    }

    fn v(i: u32) -> Expr {
        Expr::Var(VarId(i))
    }

    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::binary(op, l, r)
    }

    fn not(e: Expr) -> Expr {
        Expr::Not(Box::new(e))
    }

    /// Byte range of a diagnostic relative to the attribute value.
    fn at(d: &Diagnostic) -> (u32, u32) {
        (d.span.start - 100, d.span.end - 100)
    }

    #[test]
    fn one_flat_left_associative_level() {
        assert_eq!(
            ok("a or b and c"),
            bin(BinOp::And, bin(BinOp::Or, v(0), v(1)), v(2))
        );
        assert_eq!(
            ok("a and b or c"),
            bin(BinOp::Or, bin(BinOp::And, v(0), v(1)), v(2))
        );
        assert_eq!(
            ok("a xor b xor c"),
            bin(BinOp::Xor, bin(BinOp::Xor, v(0), v(1)), v(2))
        );
        assert_eq!(
            ok("a or (b and c)"),
            bin(BinOp::Or, v(0), bin(BinOp::And, v(1), v(2)))
        );
    }

    #[test]
    fn comparisons_bind_tighter_than_logic() {
        assert_eq!(
            ok("a == b and c != true"),
            bin(
                BinOp::And,
                bin(BinOp::Eq, v(0), v(1)),
                bin(BinOp::Ne, v(2), Expr::Lit(Lit::Bool(true)))
            )
        );
        assert_eq!(ok("!a==b"), bin(BinOp::Eq, not(v(0)), v(1)));
    }

    #[test]
    fn bang_only_before_a_value() {
        assert_eq!(ok("!a"), not(v(0)));
        assert_eq!(ok("!(a)"), not(v(0)));
        assert_eq!(ok("!(!a)"), not(not(v(0))));
        let d = err("!!a");
        assert_eq!(d.kind, ErrorKind::Syntax);
        assert_eq!(at(&d), (1, 2));
        let d = err("a and !!b");
        assert_eq!(at(&d), (7, 8));
    }

    #[test]
    fn an_unknown_character_ends_the_expression() {
        // VariableCollection.h / SelectionCondition.cpp (8b63f61c): `SimpleLexer` returns the
        // character as a token, and ParseLogical / ParseCompOp stop at it.
        assert_eq!(ok("x.y_1 = b"), v(3));
        assert_eq!(ok("a = b"), v(0));
        assert_eq!(ok("a && b"), v(0));
        assert_eq!(ok("a == b & c"), bin(BinOp::Eq, v(0), v(1)));
        // Where a value is expected, it fails the parse.
        let d = err("a and $");
        assert_eq!((d.kind, at(&d)), (ErrorKind::Syntax, (6, 7)));
        let d = err("a and é");
        assert_eq!(at(&d), (6, 8));
        let d = err("= a");
        assert_eq!(at(&d), (0, 1));
        let d = err("(a = b)");
        assert_eq!(at(&d), (3, 4));
        // Only C's isspace characters are skipped.
        assert_eq!(ok("\u{b}a\u{c}"), v(0));
        assert_eq!(err("\u{a0}a").kind, ErrorKind::Syntax);
    }

    #[test]
    fn ignored_text_is_a_warning() {
        let mut warnings = Vec::new();
        let origin = Span::new(FileId(0), 0, 7);
        let e = parse_reporting(
            "a && b ",
            origin,
            &lookup,
            Undeclared::Error,
            &Limits::default(),
            &mut warnings,
        )
        .unwrap();
        assert_eq!(e, v(0));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].is_warning());
        assert_eq!((warnings[0].span.start, warnings[0].span.end), (2, 7));
        assert!(
            warnings[0].message.contains("`&& b`"),
            "{}",
            warnings[0].message
        );
    }

    #[test]
    fn trailing_text_is_ignored() {
        assert_eq!(ok("a b"), v(0));
        assert_eq!(ok("a )"), v(0));
        assert_eq!(ok("a == b == c"), bin(BinOp::Eq, v(0), v(1)));
        assert_eq!(ok("(a) (b"), v(0));
        assert_eq!(ok("a !b"), v(0));
    }

    #[test]
    fn keywords_in_any_case() {
        assert_eq!(
            ok("A AnD b OR c xOr TRUE"),
            bin(
                BinOp::Xor,
                bin(BinOp::Or, bin(BinOp::And, v(0), v(1)), v(2)),
                Expr::Lit(Lit::Bool(true))
            )
        );
        assert_eq!(ok("False"), Expr::Lit(Lit::Bool(false)));
        assert_eq!(ok("X.Y_1"), v(3));
        // A keyword prefix is part of a longer identifier.
        let d = err("android");
        assert_eq!(d.kind, ErrorKind::UnknownName);
        assert_eq!(at(&d), (0, 7));
    }

    #[test]
    fn undeclared_names() {
        let d = err("a and zz");
        assert_eq!(d.kind, ErrorKind::UnknownName);
        assert_eq!(at(&d), (6, 8));
        let e = run("a and zz", Undeclared::False, &Limits::default());
        assert_eq!(e, Ok(bin(BinOp::And, v(0), Expr::Lit(Lit::Bool(false)))));
    }

    #[test]
    fn empty_and_incomplete_expressions() {
        for text in ["", "   ", "\t\n"] {
            let d = err(text);
            assert_eq!(d.kind, ErrorKind::Syntax);
            assert_eq!(d.span, origin(text));
        }
        let d = err("a and");
        assert_eq!((d.kind, at(&d)), (ErrorKind::Syntax, (5, 5)));
        let d = err("(a");
        assert_eq!((d.kind, at(&d)), (ErrorKind::Syntax, (2, 2)));
        assert_eq!(d.labels.len(), 1);
        let d = err("(a b)");
        assert_eq!(at(&d), (3, 4));
        let d = err(")");
        assert_eq!(at(&d), (0, 1));
        let d = err("and a");
        assert_eq!(at(&d), (0, 3));
        let d = err("a == == b");
        assert_eq!(at(&d), (5, 7));
    }

    #[test]
    fn operand_limit() {
        // 128 operands and 127 operators: 255 terms.
        let text = vec!["a"; 128].join(" and ");
        assert!(run(&text, Undeclared::Error, &Limits::default()).is_ok());
        let text = vec!["a"; 129].join(" and ");
        let d = err(&text);
        assert_eq!(d.kind, ErrorKind::LimitExceeded);
        let bang = format!("!{text}");
        assert_eq!(err(&bang).kind, ErrorKind::LimitExceeded);
        // Parentheses do not count.
        let text = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(ok(&text), v(0));
    }

    #[test]
    fn nesting_limit_without_stack_overflow() {
        let text = "(".repeat(100_000);
        let d = err(&text);
        assert_eq!(d.kind, ErrorKind::NestTooDeep);
        let limits = Limits {
            max_expr_depth: 4,
            ..Limits::default()
        };
        assert!(run("(((a)))", Undeclared::Error, &limits).is_ok());
        let d = run("((((a))))", Undeclared::Error, &limits).unwrap_err();
        assert_eq!((d.kind, at(&d)), (ErrorKind::NestTooDeep, (3, 4)));
        // Deep IR from a long flat chain is bounded as well.
        let d = run("a and b and c and a and b", Undeclared::Error, &limits).unwrap_err();
        assert_eq!(d.kind, ErrorKind::NestTooDeep);
    }

    #[test]
    fn escaped_values_point_at_the_whole_value() {
        // The attribute text was `a and &amp;` in the file (12 bytes); the value is 7 bytes.
        let span = Span::new(FileId(0), 10, 22);
        let d = parse(
            "a and &",
            span,
            &lookup,
            Undeclared::Error,
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(d.span, span);
    }
}
