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

use std::path::{Path, PathBuf};
use std::rc::Rc;

use btvm::Limits;

use super::cond_expr;
use super::files::{read_source, SourceText};
use super::lexer::Lexer;
use super::macros::{pp_error, substitute, MacroTable};
use super::token::{Number, Punct, Token, TokenKind};
use crate::diag::{Diagnostic, ErrorKind, Severity};
use crate::source::{FileSystem, SourceMap, Span};

/// What the preprocessor needs from its caller.
pub(super) struct PpContext<'a> {
    /// Where `#include`d files are read from.
    pub fs: &'a dyn FileSystem,
    /// The limits.
    pub limits: &'a Limits,
    /// Where `#include`d files are registered.
    pub sources: &'a mut SourceMap,
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
    let mut pp = Pp {
        ctx,
        macros: MacroTable::with_profile(),
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

    /// Expands `tok` if it names a macro it may expand; returns whether it did.
    fn try_expand(&mut self, tok: &Token) -> Result<bool, Diagnostic> {
        let Some(name) = tok.name() else {
            return Ok(false);
        };
        let Some(m) = self.macros.get(name) else {
            return Ok(false);
        };
        if tok.hidden(m.id) {
            return Ok(false);
        }
        let args = match &m.params {
            // `#define F() …` has no parameters, and the game expands it like an object-like
            // macro (`Parse_ExpandDefine` reads arguments only when `numparms` is not zero).
            Some(params) if !params.is_empty() => {
                if !self.peek_is_lparen()? {
                    // `Parse_ReadDefineParms`: "define … missing parms" (the token after the
                    // name is put back), and the game's token stream ends here.
                    self.resumable = true;
                    self.stop(pp_error(
                        tok.span,
                        format!("function-like macro `{name}` is used without arguments"),
                    ))?;
                    return Ok(true);
                }
                self.next_raw()?;
                match self.collect_args(params.len(), tok)? {
                    Some(args) => args,
                    None => return Ok(true),
                }
            }
            _ => Vec::new(),
        };
        let out = substitute(&m, &args, tok)?;
        if out.is_empty() {
            // `Parse_ExpandDefineIntoSource` fails on an expansion without tokens, and with it
            // `PC_ReadToken`: the game's token stream ends at this use (its arguments read).
            self.resumable = true;
            self.stop(Diagnostic::new(
                ErrorKind::Preprocessor,
                tok.span,
                format!("`{name}` expands to nothing"),
            ))?;
            return Ok(true);
        }
        self.expanded = self.expanded.saturating_add(out.len());
        if self.expanded > self.ctx.limits.max_expanded_tokens {
            return Err(Diagnostic::new(
                ErrorKind::ExpansionTooLarge,
                tok.span,
                format!(
                    "macro expansion produced more than {} tokens",
                    self.ctx.limits.max_expanded_tokens
                ),
            )
            .with_note(format!("while expanding `{name}` here")));
        }
        self.pending.extend(out.into_iter().rev());
        Ok(true)
    }

    /// The arguments of a function-like macro call, after its `(`, read as the game's
    /// `Parse_ReadDefineParms` reads them: a `(` inside is dropped and counted, a `)` ends the
    /// list when the count falls to zero or below (so the `)` closing the first nested `(` ends
    /// it; other `)` are kept), and a `,` at count zero or below starts the next argument.
    /// Missing arguments are empty (a warning when the last one is); too many stop the game's
    /// token stream, and then `None` is returned.
    fn collect_args(
        &mut self,
        nparams: usize,
        call: &Token,
    ) -> Result<Option<Vec<Vec<Token>>>, Diagnostic> {
        let name = call.name().unwrap_or_default().to_string();
        let mut args: Vec<Vec<Token>> = Vec::new();
        let mut indent: i64 = 0;
        let mut done = false;
        while !done {
            if args.len() >= nparams {
                // `Parse_ReadDefineParms` ("define … has too many parms") fails after the
                // comma that starts the extra argument; the rest is read as ordinary tokens.
                self.resumable = true;
                self.stop(pp_error(
                    call.span,
                    format!("macro `{name}` is given more than {nparams} argument(s)"),
                ))?;
                return Ok(None);
            }
            let mut arg = Vec::new();
            let mut last_comma = true;
            loop {
                let tok = match self.next_raw()? {
                    Some((t, _)) if t.kind != TokenKind::End => t,
                    _ => {
                        return Err(pp_error(
                            call.span,
                            format!("the arguments of macro `{name}` are not closed with `)`"),
                        ))
                    }
                };
                if tok.is(Punct::Comma) && indent <= 0 {
                    if last_comma {
                        self.warnings.push(Diagnostic::warning(
                            ErrorKind::Preprocessor,
                            tok.span,
                            format!("an empty argument of macro `{name}` (\"too many comma's\")"),
                        ));
                    }
                    break;
                }
                last_comma = false;
                if tok.is(Punct::LParen) {
                    indent += 1;
                    continue;
                }
                if tok.is(Punct::RParen) {
                    indent -= 1;
                    if indent <= 0 {
                        done = true;
                        break;
                    }
                }
                arg.push(tok);
            }
            args.push(arg);
        }
        if args.len() < nparams || args.last().is_some_and(Vec::is_empty) {
            self.warnings.push(Diagnostic::warning(
                ErrorKind::Preprocessor,
                call.span,
                format!(
                    "macro `{name}` is given fewer than {nparams} argument(s); the missing ones \
                     are empty"
                ),
            ));
        }
        args.resize_with(nparams, Vec::new);
        Ok(Some(args))
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

    /// Opens a conditional whose condition `eval` computes (not evaluated in skipped groups).
    fn open_cond(
        &mut self,
        span: Span,
        eval: impl FnOnce(&mut Self) -> Result<bool, Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let cond = if self.skipping() {
            // The game evaluates the condition in a skipped group too (its errors count).
            eval(self)?;
            Cond {
                span,
                parent_active: false,
                active: false,
                taken: true,
                last: false,
                seen_else: false,
            }
        } else {
            let v = eval(self)?;
            Cond {
                span,
                parent_active: true,
                active: v,
                taken: v,
                last: v,
                seen_else: false,
            }
        };
        if let Some(f) = self.files.last_mut() {
            f.conds.push(cond);
        }
        Ok(())
    }

    fn elif(&mut self, line: Vec<Token>, at: Span) -> Result<(), Diagnostic> {
        let (parent_active, taken) = match self.files.last().and_then(|f| f.conds.last()) {
            None => return Err(pp_error(at, "`#elif` without `#if`")),
            Some(c) if c.seen_else => return Err(pp_error(at, "`#elif` after `#else`")),
            Some(c) => (c.parent_active, c.taken),
        };
        let v = self.eval_condition(line, at)?;
        if !parent_active {
            // Evaluated anyway, as the game does (`Parse_Directive_elif`).
            return Ok(());
        }
        if taken && v {
            return Err(game_diverges(
                at,
                "this `#elif` condition holds but an earlier branch was already included",
                "the game's preprocessor evaluates every `#elif` on its own and would include \
                 both branches; make the conditions exclusive",
            ));
        }
        if let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) {
            c.active = v && !taken;
            c.taken |= v;
            c.last = v;
        }
        Ok(())
    }

    fn else_(&mut self, line: Vec<Token>, at: Span) -> Result<(), Diagnostic> {
        no_more(&line, "#else")?;
        let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) else {
            return Err(pp_error(at, "`#else` without `#if`"));
        };
        if c.seen_else {
            return Err(pp_error(at, "a second `#else` for the same `#if`"));
        }
        if c.parent_active && c.taken && !c.last {
            return Err(game_diverges(
                at,
                "an earlier branch of this chain was included, but the `#elif` just before this \
                 `#else` was false",
                "the game's preprocessor ties `#else` to the branch just before it and would \
                 include this `#else` branch too; restructure the chain",
            ));
        }
        c.seen_else = true;
        c.active = c.parent_active && !c.taken;
        c.taken = true;
        Ok(())
    }

    /// `$evalint( EXPR )` (the game's `Parse_DollarDirective_evalint`): the expression is
    /// evaluated as an `#if` expression and replaced by one number token. As in the game, the
    /// token after `evalint` is taken for the `(` without looking at it, and the expression runs
    /// to the matching `)`. `$evalfloat` is not supported: btvm's `#if` arithmetic is integral.
    fn dollar(&mut self, dollar: &Token) -> Result<(), Diagnostic> {
        let name = match self.next_raw()? {
            Some((t, _)) => t,
            None => return Err(pp_error(dollar.span, "`$` without a directive name")),
        };
        let at = dollar.span.to(name.span);
        match name.name() {
            Some("evalint") => {}
            Some("evalfloat") => {
                return Err(Diagnostic::new(
                    ErrorKind::Unsupported,
                    at,
                    "`$evalfloat` is not supported",
                )
                .with_note("`$evalint` is; btvm evaluates preprocessor expressions as integers"))
            }
            _ => return Err(pp_error(at, format!("unknown `$` directive {name}"))),
        }
        if self.next_raw()?.is_none() {
            return Err(pp_error(at, "no leading `(` after `$evalint`"));
        }
        let mut expr = Vec::new();
        let mut depth = 1u32;
        loop {
            let Some((t, _)) = self.next_raw()? else {
                return Err(pp_error(at, "`$evalint(` is never closed with `)`"));
            };
            if t.is(Punct::LParen) {
                depth += 1;
            } else if t.is(Punct::RParen) {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            expr.push(t);
        }
        let v = self.eval_line(expr, at)?;
        if v < 0 {
            // The game pushes `-` and a number token that keeps the negative value, so a
            // parameter list negates it back; btvm refuses rather than mimic that.
            return Err(Diagnostic::new(
                ErrorKind::Unsupported,
                at,
                format!("`$evalint` gives the negative value {v}"),
            )
            .with_note(
                "the game emits `-` and a number that is itself negative, so a parameter list \
                 reads the absolute value; btvm refuses negative results",
            ));
        }
        let n = Number {
            text: v.to_string().into(),
            is_float: false,
            int: Some(v as u64),
            float: v as f64,
        };
        self.pending
            .push(Token::new(TokenKind::Number(Rc::new(n)), at));
        Ok(())
    }

    /// Evaluates a `#if` / `#elif` line: `defined` first, then macro expansion, then the
    /// integer expression.
    fn eval_condition(&mut self, line: Vec<Token>, at: Span) -> Result<bool, Diagnostic> {
        Ok(self.eval_line(line, at)? != 0)
    }

    /// The integer value of a preprocessor expression (`defined`, then macros, then the
    /// arithmetic).
    fn eval_line(&mut self, line: Vec<Token>, at: Span) -> Result<i64, Diagnostic> {
        if line.is_empty() {
            return Err(pp_error(at, "this conditional has no expression"));
        }
        let mut toks = Vec::with_capacity(line.len());
        let mut i = 0;
        while i < line.len() {
            let t = &line[i];
            if t.name() != Some("defined") {
                toks.push(t.clone());
                i += 1;
                continue;
            }
            let paren = line.get(i + 1).is_some_and(|n| n.is(Punct::LParen));
            let name_at = if paren { i + 2 } else { i + 1 };
            let Some(name) = line.get(name_at).and_then(Token::name) else {
                return Err(pp_error(t.span, "`defined` needs a macro name"));
            };
            if paren && !line.get(name_at + 1).is_some_and(|n| n.is(Punct::RParen)) {
                return Err(pp_error(t.span, "`defined(` needs a closing `)`"));
            }
            let v = u64::from(self.macros.is_defined(name));
            toks.push(Token::new(
                TokenKind::Number(Rc::new(Number::int(v))),
                t.span,
            ));
            i = name_at + 1 + usize::from(paren);
        }
        self.pending.push(Token::new(TokenKind::End, at));
        self.pending.extend(toks.into_iter().rev());
        let mut expanded = Vec::new();
        while let Some((t, _)) = self.next_raw()? {
            if t.kind == TokenKind::End {
                break;
            }
            if !self.try_expand(&t)? {
                expanded.push(t);
            }
        }
        cond_expr::evaluate(&expanded, at, self.ctx.limits.max_expr_depth)
    }

    fn include(&mut self, line: Vec<Token>, at: Span) -> Result<(), Diagnostic> {
        let name = match line.first().map(|t| &t.kind) {
            Some(TokenKind::Str(s)) => {
                no_more(&line[1..], "#include \"…\"")?;
                s.to_string()
            }
            Some(TokenKind::Punct(Punct::Lt)) => {
                let Some(close) = line.iter().position(|t| t.is(Punct::Gt)) else {
                    return Err(pp_error(at, "`#include <` needs a closing `>`"));
                };
                no_more(&line[close + 1..], "#include <…>")?;
                line[1..close].iter().map(Token::text).collect()
            }
            _ => {
                return Err(pp_error(
                    at,
                    "`#include` needs a file name: `#include \"file\"` or `#include <file>`",
                ))
            }
        };
        if name.is_empty() {
            return Err(pp_error(at, "`#include` with an empty file name"));
        }
        // `Parse_Directive_include` opens the name as given, from the game's file-system root
        // (`Parse_LoadScriptFile`, `BG_FOpenGameOrPakPath`), never beside the including file.
        let path = self.ctx.root.join(&name);
        let depth = self.ctx.include_depth as usize + self.files.len();
        if depth > self.ctx.limits.max_include_depth as usize {
            return Err(Diagnostic::new(
                ErrorKind::IncludeTooDeep,
                at,
                format!(
                    "includes are nested deeper than {} files",
                    self.ctx.limits.max_include_depth
                ),
            ));
        }
        let key = path.to_string_lossy().to_ascii_lowercase();
        if self
            .files
            .iter()
            .any(|f| f.path.to_string_lossy().to_ascii_lowercase() == key)
        {
            let chain: Vec<String> = self
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .chain([path.display().to_string()])
                .collect();
            // `PC_AddInclude`-style check of the game's precompiler: only logged, and the
            // `#include` is skipped.
            self.warnings.push(
                Diagnostic::warning(
                    ErrorKind::IncludeCycle,
                    at,
                    format!("`{}` is recursively included; skipped", path.display()),
                )
                .with_note(format!("include chain: {}", chain.join(" -> "))),
            );
            return Ok(());
        }
        let file = match read_source(self.ctx.fs, self.ctx.sources, self.ctx.limits, &path, at) {
            Ok(file) => file,
            Err(d) => {
                // A file the game cannot open: `Parse_Directive_include` fails after reading
                // the name, which is all btvm read of the line too.
                self.resumable = d.kind == ErrorKind::Io;
                return Err(d);
            }
        };
        self.files.push(FileState {
            lexer: Lexer::new(file.id, file.text.clone()),
            pushback: Vec::new(),
            conds: Vec::new(),
            path: file.path,
        });
        Ok(())
    }

    /// `enum { A, B = 5, C }` after the `enum` name: defines `A` = 0, `B` = 5, `C` = 6.
    fn enumeration(&mut self, kw: &Token) -> Result<(), Diagnostic> {
        let unterminated = |span| pp_error(span, "this `enum` block is not closed with `}`");
        match self.next_token()? {
            Some(t) if t.is(Punct::LBrace) => {}
            Some(t) => {
                return Err(pp_error(
                    t.span,
                    format!("expected `{{` after `enum`, found {t}"),
                ))
            }
            None => return Err(unterminated(kw.span)),
        }
        let mut value: i64 = 0;
        loop {
            let t = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
            if t.is(Punct::RBrace) {
                return self.end_enum();
            }
            let Some(name) = t.name().map(Rc::<str>::from) else {
                return Err(pp_error(
                    t.span,
                    format!("expected an enum member name, found {t}"),
                ));
            };
            let mut next = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
            if next.is(Punct::Assign) {
                let mut v = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
                let negative = v.is(Punct::Minus);
                if negative {
                    v = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
                }
                let n = match &v.kind {
                    TokenKind::Number(n) if !n.is_float => n.int.map(|i| i as i64),
                    _ => None,
                };
                let Some(n) = n else {
                    return Err(pp_error(v.span, format!("expected an integer, found {v}")));
                };
                value = if negative { n.wrapping_neg() } else { n };
                next = self.next_token()?.ok_or_else(|| unterminated(kw.span))?;
            }
            self.macros.define_int(name, value);
            if next.is(Punct::RBrace) {
                return self.end_enum();
            }
            if !next.is(Punct::Comma) {
                return Err(pp_error(
                    next.span,
                    format!("expected `,` or `}}` in the `enum` block, found {next}"),
                ));
            }
            value = value.wrapping_add(1);
        }
    }

    /// Skips an optional `;` after an `enum` block.
    fn end_enum(&mut self) -> Result<(), Diagnostic> {
        if let Some(t) = self.next_token()? {
            if !t.is(Punct::Semi) {
                self.pending.push(t);
            }
        }
        Ok(())
    }
}

/// The one name a `#ifdef` / `#ifndef` / `#undef` line holds.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemFs;

    /// The spellings of the preprocessed tokens of `src`.
    fn pp(src: &str) -> Result<Vec<String>, Diagnostic> {
        let fs = MemFs::new();
        let mut sources = SourceMap::new();
        let limits = Limits::default();
        let id = sources.add("/m.bt", src.to_string());
        let file = SourceText {
            id,
            path: "/m.bt".into(),
            text: src.into(),
        };
        let ctx = PpContext {
            fs: &fs,
            limits: &limits,
            sources: &mut sources,
            include_depth: 0,
            root: Path::new("/"),
        };
        Ok(preprocess(ctx, &file)?
            .tokens
            .iter()
            .map(Token::text)
            .collect())
    }

    #[test]
    fn directive_lines_end_at_newlines_unless_continued() {
        assert_eq!(pp("#define A 1\nA A").unwrap(), ["1", "1"]);
        assert_eq!(pp("#define A 1 \\\n 2\nA").unwrap(), ["1", "2"]);
        // A backslash continues onto the next line only, not across a blank line.
        assert_eq!(pp("#define A 1 \\\n\n 2\nA").unwrap(), ["2", "1"]);
        // Comments spanning lines count as line breaks.
        assert_eq!(pp("#define A 1 /*\n*/ 2\nA").unwrap(), ["2", "1"]);
        // A use of a macro that expands to nothing ends the game's token stream.
        assert_eq!(pp("#define E\nx E y").unwrap(), ["x"]);
    }

    #[test]
    fn predefined_symbols_and_string_joining() {
        assert_eq!(
            pp("E_SELF STATUS_RUNNING e_self").unwrap(),
            ["22", "2", "e_self"]
        );
        assert_eq!(
            pp("#define S \"b\"\nx \"a\" S \"c\"").unwrap(),
            ["x", "\"abc\""]
        );
        // As in the game, the tokenizer joins adjacent strings even across a line break, so a
        // string at the start of the next line becomes part of the `#define`.
        assert_eq!(
            pp("#define S \"b\"\n\"a\" S").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(pp("#undef E_SELF\nE_SELF").unwrap(), ["E_SELF"]);
    }

    #[test]
    fn hide_sets_stop_recursion_but_not_nested_calls() {
        assert_eq!(pp("#define X X + 1\nX").unwrap(), ["X", "+", "1"]);
        assert_eq!(pp("#define A B\n#define B A\nA B").unwrap(), ["A", "B"]);
        // The game's argument reader drops the inner `(` and ends the list at its `)`: the
        // argument is `F 1`, and the inner `F` without `(` ends the token stream.
        assert_eq!(pp("#define F(x) (x)\nF(F(1))").unwrap(), ["("]);
        assert_eq!(pp("#define F(x) (x)\nF(F(1)").unwrap(), ["("]);
        assert_eq!(
            pp("#define F(x) [x]\nF((1, 2)").unwrap(),
            ["[", "1", ",", "2", "]"]
        );
        assert_eq!(pp("#define F(x) x\n#define G F\nG(2)").unwrap(), ["2"]);
        // `F()` has no parameters: an object-like macro for the game.
        assert_eq!(pp("#define F() 7\nF() F").unwrap(), ["7", "(", ")", "7"]);
    }
}
