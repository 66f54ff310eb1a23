//! The preprocessor: turns one `.bt` file (and the files it `#include`s) into the token list
//! the parser reads, the way the game's botlib precompiler does.
//!
//! - Directives start at any `#` token read from a file (not from a macro expansion) and run
//!   to the end of the line; a `\` token continues the line onto the next one.
//! - `#define` / `#undef`, `#if` / `#ifdef` / `#ifndef` / `#elif` / `#else` / `#endif`,
//!   `#include "file"` / `<file>` (from the game's file-system root: the directory above the
//!   main tree's, as the game reads trees from `bots/`), `#error`, `#pragma`
//!   (a warning), `$evalint(…)`. `#line`, `#eval`, `#evalfloat` and `$evalfloat` are rejected
//!   as unsupported; other names stop reading, as in the game. In skipped groups every
//!   directive runs except `#define`, `#undef` and `#include`, whose line is then read as
//!   skipped tokens; `$` directives and `enum` blocks run too, and strings are kept (the game's
//!   string joining reads past the group).
//! - `#elif` / `#else` follow C. The game's precompiler evaluates each `#elif` on its own and
//!   ties `#else` to the branch just before it, so it can include two branches of one chain;
//!   when that would happen the chain is rejected (`Unsupported`) instead of silently picking
//!   one meaning.
//! - `enum { A, B = 5, C }` blocks define integer macros, as in the game.
//! - Macros expand as described in [`super::macros`]; the tokens produced by expansion are
//!   counted against `Limits::max_expanded_tokens`, which bounds any expansion blow-up.
//! - Adjacent string tokens in the output are joined (also across macro expansions).
//! - A failure that would stop reading is ignored right after a string (the game's joining read
//!   drops it) when btvm models where the game resumes; otherwise it is a load error there.
//!
//! Every file starts with only the game's predefined symbols defined. This file never builds
//! tree nodes and never recurses on its input: conditionals, `#include`d files and expansions
//! live on explicit stacks.
//!
//! This file holds the token stream, the file stack and the directive dispatch; the directive
//! families live beside it: `cond` (conditional groups), `expand` (macro calls and
//! `$evalint`), `include` and `enums`.

mod cond;
mod enums;
mod expand;
mod include;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use btvm::Limits;

use super::files::{Files, SourceText};
use super::lexer::Lexer;
use super::macros::{pp_error, MacroTable};
use super::token::{Punct, Token, TokenKind};
use crate::diag::{Diagnostic, ErrorKind, Severity};
use crate::source::{SourceMap, Span};
use crate::syntax::profile::Symbol;

/// What the preprocessor needs from its caller.
pub(super) struct PpContext<'a> {
    /// Where `#include`d files are read from (the load's root, budgets and counts).
    pub files: &'a Files<'a>,
    /// The limits.
    pub limits: &'a Limits,
    /// Where `#include`d files are registered.
    pub sources: &'a mut SourceMap,
    /// The game's predefined symbols, which every file starts with.
    pub symbols: &'a [Symbol],
    /// How many files include the file being preprocessed (behaviors and `#include`s).
    pub include_depth: u32,
    /// The game's file-system root, where `#include "F"` looks for `F`: the directory above the
    /// main tree's (the game reads every tree from `bots/` under that root).
    pub root: &'a Path,
}

/// The result: the tokens the parser reads and the position of the end of the file.
pub(super) struct Preprocessed {
    /// The tokens, fully expanded.
    pub tokens: Vec<Token>,
    /// An empty span at the end of the main file (or where the game's precompiler stopped).
    pub eof: Span,
    /// What the game's precompiler logs: among them, why it stopped early, if it did.
    pub warnings: Vec<Diagnostic>,
}

/// Whether the game's precompiler, failing this way on a directive, only stops reading (the
/// tree before it still loads): its malformed, unknown, misplaced and `#error` directives and
/// an `#include` whose file it cannot read. btvm's own limits and the constructs it rejects
/// on purpose (`Unsupported`) still fail the load.
fn stops_reading(d: &Diagnostic) -> bool {
    matches!(d.kind, ErrorKind::Preprocessor | ErrorKind::Io)
}

/// Preprocesses `file`.
pub(super) fn preprocess(
    ctx: PpContext<'_>,
    file: &SourceText,
) -> Result<Preprocessed, Diagnostic> {
    let lexer = Lexer::new(file.id, file.text.clone());
    let eof = lexer.eof_span();
    let macros = MacroTable::with_profile(ctx.symbols);
    let mut pp = Pp {
        ctx,
        macros,
        files: vec![FileState {
            lexer,
            pushback: Vec::new(),
            conds: Vec::new(),
            path: file.path.clone(),
        }],
        pending: Vec::new(),
        expanded: 0,
        in_enum: false,
        warnings: Vec::new(),
        stopped: None,
        after_string: false,
        resumable: false,
    };
    let mut tokens: Vec<Token> = Vec::new();
    while let Some(tok) = pp.next_token()? {
        if let (TokenKind::Str(b), Some(last)) = (&tok.kind, tokens.last_mut()) {
            if let TokenKind::Str(a) = &last.kind {
                last.kind = TokenKind::Str(format!("{a}{b}").into());
                last.span = last.span.to(tok.span);
                continue;
            }
        }
        tokens.push(tok);
    }
    let eof = pp.stopped.unwrap_or(eof);
    Ok(Preprocessed {
        tokens,
        eof,
        warnings: pp.warnings,
    })
}

/// One file being read (the main file or an `#include`d one).
struct FileState {
    lexer: Lexer,
    /// Tokens read ahead and put back (at most a couple).
    pushback: Vec<Token>,
    /// Open conditionals of this file, innermost last.
    conds: Vec<Cond>,
    path: PathBuf,
}

/// One open `#if` … `#endif` chain.
struct Cond {
    /// The opening directive.
    span: Span,
    /// Whether the enclosing group is included.
    parent_active: bool,
    /// Whether the current group is included.
    active: bool,
    /// Whether some branch of the chain was included already.
    taken: bool,
    /// The value of the latest `#if` / `#elif` condition (what the game's `#else` looks at).
    last: bool,
    /// Whether `#else` was seen.
    seen_else: bool,
}

struct Pp<'a> {
    ctx: PpContext<'a>,
    macros: MacroTable,
    /// Open files, the main file first.
    files: Vec<FileState>,
    /// Tokens produced by macro expansion, next token last.
    pending: Vec<Token>,
    /// Tokens produced by expansion so far.
    expanded: usize,
    /// Reading an `enum` block (no nested `enum` processing).
    in_enum: bool,
    /// What the game's precompiler logs while the file still loads.
    warnings: Vec<Diagnostic>,
    /// Where the game's precompiler stopped reading (a directive it failed on): no token is
    /// read after it.
    stopped: Option<Span>,
    /// Whether the last token handed out was a string. The game's `Parse_ReadToken` reads the
    /// token after a string at once, to join adjacent strings, and ignores a failure of that
    /// read: the string is returned and reading goes on.
    after_string: bool,
    /// Whether the failure being reported left the reader exactly where the game's does, so
    /// that reading can go on after it (set by the failures btvm models that far).
    resumable: bool,
}

impl Pp<'_> {
    fn skipping(&self) -> bool {
        self.files
            .last()
            .and_then(|f| f.conds.last())
            .is_some_and(|c| !c.active)
    }

    /// The next token of the current file (put-back tokens first).
    fn next_file_token(&mut self) -> Result<Option<Token>, Diagnostic> {
        let Some(f) = self.files.last_mut() else {
            return Ok(None);
        };
        if let Some(t) = f.pushback.pop() {
            return Ok(Some(t));
        }
        let t = f.lexer.next_token();
        self.warnings.append(&mut f.lexer.warnings);
        t
    }

    /// The game's precompiler fails on a directive (`#error`, an unknown or misplaced
    /// directive, an `#include` it cannot read) and stops reading: `PC_ReadToken` returns
    /// false, and the game's `CreateTokenList` parses the tokens read so far. Logged as a
    /// warning, and nothing more is read.
    ///
    /// Right after a string the game ignores the failure (see `after_string`): btvm warns and
    /// reads on when the failure is one it models (`resumable`), and fails the load otherwise.
    fn stop(&mut self, complaint: Diagnostic) -> Result<(), Diagnostic> {
        let resumable = std::mem::take(&mut self.resumable);
        if self.after_string {
            self.after_string = false;
            if !resumable {
                return Err(complaint.with_note(
                    "right after a string the game ignores this failure and reads on; btvm \
                     does not model where it resumes here, so it refuses the tree",
                ));
            }
            self.warnings.push(Diagnostic {
                severity: Severity::Warning,
                ..complaint.with_note(
                    "right after a string the game ignores this failure (its string joining \
                     reads the next token and drops a failed read) and reads on",
                )
            });
            return Ok(());
        }
        self.stopped = Some(complaint.span);
        self.warnings.push(Diagnostic {
            severity: Severity::Warning,
            ..complaint.with_note(
                "the game's precompiler stops reading here, and the tree is parsed from the \
                 tokens before it",
            )
        });
        Ok(())
    }

    fn push_back(&mut self, t: Token) {
        if let Some(f) = self.files.last_mut() {
            f.pushback.push(t);
        }
    }

    /// The next unprocessed token: expansion output first, then the current file. The flag
    /// says whether it came from the file (only those can start directives).
    fn next_raw(&mut self) -> Result<Option<(Token, bool)>, Diagnostic> {
        if let Some(t) = self.pending.pop() {
            return Ok(Some((t, false)));
        }
        Ok(self.next_file_token()?.map(|t| (t, true)))
    }

    /// Whether the next unprocessed token is `(` (without consuming it).
    fn peek_is_lparen(&mut self) -> Result<bool, Diagnostic> {
        if let Some(t) = self.pending.last() {
            return Ok(t.is(Punct::LParen));
        }
        match self.next_file_token()? {
            Some(t) => {
                let is = t.is(Punct::LParen);
                self.push_back(t);
                Ok(is)
            }
            None => Ok(false),
        }
    }

    /// The next fully processed token: directives run, skipped groups dropped, macros expanded.
    fn next_token(&mut self) -> Result<Option<Token>, Diagnostic> {
        loop {
            if self.stopped.is_some() {
                return Ok(None);
            }
            let Some((tok, from_file)) = self.next_raw()? else {
                // The current file ended. An open conditional is only logged
                // (`PC_ReadToken` at the end of a file).
                if let Some(c) = self.files.last_mut().and_then(|f| f.conds.pop()) {
                    self.warnings.push(Diagnostic::warning(
                        ErrorKind::Preprocessor,
                        c.span,
                        "this conditional is never closed with `#endif`",
                    ));
                    continue;
                }
                if self.files.len() <= 1 {
                    return Ok(None);
                }
                self.files.pop();
                continue;
            };
            if from_file && tok.is(Punct::Hash) {
                self.resumable = false;
                if let Err(d) = self.directive(tok) {
                    if !stops_reading(&d) {
                        return Err(d);
                    }
                    self.stop(d)?;
                }
                continue;
            }
            // `Parse_ReadToken` runs `$` directives and `enum` blocks before it looks at the
            // skip state, so they run in skipped groups too.
            if tok.is(Punct::Dollar) {
                self.resumable = false;
                match self.dollar(&tok) {
                    Ok(()) => {}
                    Err(d) if stops_reading(&d) => self.stop(d)?,
                    Err(d) => return Err(d),
                }
                continue;
            }
            if !self.in_enum && tok.is_keyword("enum") {
                self.in_enum = true;
                let r = self.enumeration(&tok);
                self.in_enum = false;
                r?;
                continue;
            }
            if self.skipping() {
                // A string in a skipped group is kept: `Parse_ReadToken` first reads the token
                // after it to join adjacent strings, which runs past the group's `#endif`, and
                // then returns the string because by then nothing is skipped.
                if matches!(tok.kind, TokenKind::Str(_)) {
                    self.after_string = true;
                    return Ok(Some(tok));
                }
                continue;
            }
            if self.try_expand(&tok)? {
                continue;
            }
            self.after_string = matches!(tok.kind, TokenKind::Str(_));
            return Ok(Some(tok));
        }
    }

    /// The rest of a directive line (`\` continues it onto the next line).
    fn read_line(&mut self) -> Result<Vec<Token>, Diagnostic> {
        let mut line = Vec::new();
        let mut continued = false;
        while let Some(t) = self.next_file_token()? {
            let on_line = if continued {
                t.lines_before <= 1
            } else {
                t.lines_before == 0
            };
            if !on_line {
                self.push_back(t);
                break;
            }
            continued = t.is(Punct::Backslash);
            if !continued {
                line.push(t);
            }
        }
        Ok(line)
    }

    /// Runs the directive starting at `hash`.
    fn directive(&mut self, hash: Token) -> Result<(), Diagnostic> {
        let name_tok = match self.next_file_token()? {
            Some(t) if t.lines_before == 0 => t,
            other => {
                if let Some(t) = other {
                    self.push_back(t);
                }
                // `Parse_ReadDirective` puts the token back: nothing more is consumed.
                self.resumable = true;
                return Err(pp_error(hash.span, "`#` without a directive name"));
            }
        };
        let at = hash.span.to(name_tok.span);
        let Some(name) = name_tok.name().map(str::to_string) else {
            // "unknown precompiler directive": the token after `#` is consumed, no more.
            self.resumable = true;
            return Err(pp_error(
                name_tok.span,
                format!("expected a directive name after `#`, found {name_tok}"),
            ));
        };
        // In a skipped group the game's `#define`, `#undef` and `#include` return at once
        // (`Parse_Directive_define` …: `if ( source->skip > 0 ) return true`), so the rest of
        // their line is read as ordinary tokens; every other directive runs as usual.
        if self.skipping() && matches!(name.as_str(), "define" | "undef" | "include") {
            return Ok(());
        }
        // The failures below consume what the game's do (`Parse_ReadDirective`,
        // `Parse_Directive_error`, `Parse_Directive_endif` / `else` / `elif`), so reading can go
        // on after them when they follow a string: the rest of the line is then ordinary tokens.
        match name.as_str() {
            "error" => {
                // `Parse_Directive_error` reads one token (from any line) for its message.
                let text = self
                    .next_file_token()?
                    .map(|t| t.text())
                    .unwrap_or_default();
                self.resumable = true;
                return Err(pp_error(at, format!("#error {text}")));
            }
            "endif" | "else" | "elif" if self.files.last().is_some_and(|f| f.conds.is_empty()) => {
                self.resumable = true;
                return Err(pp_error(at, format!("`#{name}` without `#if`")));
            }
            "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif" | "define" | "undef"
            | "include" | "pragma" | "line" | "eval" | "evalfloat" => {}
            _ => {
                self.resumable = true;
                return Err(pp_error(
                    name_tok.span,
                    format!("unknown preprocessor directive `#{name}`"),
                )
                .with_note(
                    "known directives: #define #undef #if #ifdef #ifndef #elif #else #endif \
                     #include #error #pragma",
                ));
            }
        }
        let line = self.read_line()?;
        match name.as_str() {
            "if" => self.open_cond(at, |pp| pp.eval_condition(line, at)),
            "ifdef" | "ifndef" => {
                let want = name == "ifdef";
                // `Parse_Directive_if_def` reads one token of the line (`Parse_ReadLine`) and
                // puts it back when it is not a name: a line without a name, or with one
                // other token, fails having consumed only the directive name.
                match line.as_slice() {
                    [] => self.resumable = true,
                    [t] if t.name().is_none() => {
                        self.resumable = true;
                        self.push_back(t.clone());
                    }
                    _ => {}
                }
                self.open_cond(at, |pp| {
                    let m = single_name(&line, at, &name)?;
                    Ok(pp.macros.is_defined(m) == want)
                })
            }
            "elif" => self.elif(line, at),
            "else" => self.else_(line, at),
            "endif" => {
                no_more(&line, "#endif")?;
                let Some(f) = self.files.last_mut() else {
                    return Ok(());
                };
                if f.conds.pop().is_none() {
                    return Err(pp_error(at, "`#endif` without `#if`"));
                }
                Ok(())
            }
            "define" => self.macros.define(line, at, &mut self.warnings),
            "undef" => {
                let m = single_name(&line, at, "undef")?.to_string();
                self.macros.undef(&m);
                Ok(())
            }
            "include" => self.include(line, at),
            "pragma" => {
                // `Parse_Directive_pragma` logs "#pragma directive not supported" and skips
                // the line.
                self.warnings.push(Diagnostic::warning(
                    ErrorKind::Preprocessor,
                    at,
                    "`#pragma` is not supported; the game logs this and skips the line",
                ));
                Ok(())
            }
            "line" | "eval" | "evalfloat" => Err(Diagnostic::new(
                ErrorKind::Unsupported,
                at,
                format!("the `#{name}` directive is not supported"),
            )),
            _ => Err(pp_error(
                at,
                format!("unknown preprocessor directive `#{name}`"),
            )),
        }
    }
}

fn single_name<'t>(line: &'t [Token], at: Span, directive: &str) -> Result<&'t str, Diagnostic> {
    let Some(first) = line.first() else {
        return Err(pp_error(at, format!("`#{directive}` needs a macro name")));
    };
    let Some(name) = first.name() else {
        return Err(pp_error(
            first.span,
            format!("expected a macro name after `#{directive}`, found {first}"),
        ));
    };
    no_more(&line[1..], &format!("#{directive}"))?;
    Ok(name)
}

/// Errors if a directive line has tokens left.
fn no_more(rest: &[Token], directive: &str) -> Result<(), Diagnostic> {
    match rest.first() {
        Some(t) => Err(pp_error(
            t.span,
            format!("unexpected {t} at the end of the `{directive}` line"),
        )),
        None => Ok(()),
    }
}

fn game_diverges(at: Span, msg: &str, note: &str) -> Diagnostic {
    Diagnostic::new(ErrorKind::Unsupported, at, msg).with_note(note)
}
