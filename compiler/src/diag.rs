//! Diagnostics: errors as values, each with a kind, a message and spans.
//!
//! Library code never prints and never panics on input; it returns [`Diagnostic`]s. The CLI
//! renders them like rustc does; a [`Report`] (diagnostics with their source text) renders
//! itself and is a `std::error::Error`, for servers. No message or note names a CLI flag: they
//! speak of `LoadOptions`, `Limits` and engines, and the CLI adds its own flag hints.
//!
//! Messages echo text from the tree (names, paths, strings), which an attacker controls: a
//! diagnostic must never carry a control character to the operator's terminal, nor a name of
//! megabytes to a log. [`safe_text`] makes any text safe to show (control characters escaped,
//! long words cut with an ellipsis); every constructor and [`Diagnostic::display`] pass their
//! text through it, so no message, label or note escapes it, and renderers use it for what
//! they show besides (file names, source lines: [`escape_controls`]).

use crate::source::{SourceMap, Span};
use std::borrow::Cow;
use std::fmt;

mod report;
pub use report::Report;

/// The most characters of one word (a run without whitespace: a name, a path, a quoted
/// string) a diagnostic shows; a longer one is cut to this with `…`.
pub const MAX_SHOWN_WORD: usize = 80;

/// The most characters one message, label or note shows; the rest is cut with `…`.
pub const MAX_SHOWN_TEXT: usize = 1000;

/// Whether `c` must not reach a terminal raw: C0 controls other than newline and tab, DEL,
/// C1 controls (some terminals obey U+009B as an escape sequence) and the bidirectional
/// overrides and isolates (they reorder what the reader sees).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character shown as an escape (`\u{1b}`, `\r`, `\0`): a
/// carriage return, an escape sequence or a bell in a name cannot drive the terminal. Newlines
/// and tabs are kept. Borrows when there is nothing to escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Pushes `c`, escaped if it is unsafe.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\r' => out.push_str("\\r"),
        '\0' => out.push_str("\\0"),
        c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        c => out.push(c),
    }
}

/// Makes tree-supplied `text` safe to show in a diagnostic: control characters escaped
/// ([`escape_controls`]), every word longer than [`MAX_SHOWN_WORD`] characters cut with `…`
/// (keeping its closing punctuation, such as a closing backtick), and the whole cut at
/// [`MAX_SHOWN_TEXT`] characters. Linear in the text; text that is already safe comes back
/// borrowed and unchanged.
pub fn safe_text(text: &str) -> Cow<'_, str> {
    let long_word = text
        .split(char::is_whitespace)
        .any(|w| w.len() > MAX_SHOWN_WORD && w.chars().count() > MAX_SHOWN_WORD);
    if !long_word && text.len() <= MAX_SHOWN_TEXT && !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut shown = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        let chars = word.chars().count();
        let body = if chars > MAX_SHOWN_WORD {
            // Keep the word's head and up to three closing punctuation marks.
            let tail: String = {
                let rev: Vec<char> = word
                    .trim_end()
                    .chars()
                    .rev()
                    .take_while(|c| c.is_ascii_punctuation())
                    .take(3)
                    .collect();
                rev.into_iter().rev().collect()
            };
            let ws = &word[word.trim_end().len()..];
            let head: String = word.chars().take(MAX_SHOWN_WORD - 1).collect();
            Cow::Owned(format!("{head}…{tail}{ws}"))
        } else {
            Cow::Borrowed(word)
        };
        for c in body.chars() {
            if shown >= MAX_SHOWN_TEXT {
                out.push('…');
                return Cow::Owned(out);
            }
            push_escaped(&mut out, c);
            shown += 1;
        }
    }
    Cow::Owned(out)
}

/// [`safe_text`] of an owned string, reusing it when it is already safe.
fn safe_owned(text: String) -> String {
    match safe_text(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(s) => s,
    }
}

/// What went wrong, one kind per hostile or invalid case, so callers and tests can match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file could not be read.
    Io,
    /// The file is not valid UTF-8.
    InvalidUtf8,
    /// The file is larger than `Limits::max_source_bytes`.
    SourceTooLarge,
    /// A path a tree names is absolute, or leads outside the load's root (through `..` or a
    /// symbolic link): see `LoadOptions::root`.
    OutsideRoot,
    /// Loading one tree reads more files or more bytes than `Limits::max_load_files` or
    /// `Limits::max_load_bytes` allow (each read counts, a file included twice twice).
    LoadBudget,
    /// A character or token the lexer does not accept.
    BadToken,
    /// A string literal without its closing quote.
    UnterminatedString,
    /// A block comment without its closing `*/`.
    UnterminatedComment,
    /// An escape sequence the dialect does not define.
    BadEscape,
    /// A numeric literal that does not fit its type.
    LiteralOverflow,
    /// A preprocessor directive is malformed or unsupported.
    Preprocessor,
    /// Macro expansion produced too many tokens.
    ExpansionTooLarge,
    /// The parser expected something else.
    Syntax,
    /// Nodes or expressions nested deeper than the limits allow.
    NestTooDeep,
    /// More nodes than `Limits::max_nodes`, more children than the dialect allows, or more
    /// attributes on one XML element than `Limits::max_xml_attributes`.
    TooManyNodes,
    /// An include refers back to a file that is still being loaded.
    IncludeCycle,
    /// Includes nested deeper than `Limits::max_include_depth`.
    IncludeTooDeep,
    /// A name (action, function, decorator, variable, state) the tree's profile does not know.
    UnknownName,
    /// A call with the wrong number of arguments.
    Arity,
    /// A value of the wrong kind or out of range.
    InvalidValue,
    /// A construct the dialect accepts but btvm rejects, with the reason in the message.
    Unsupported,
    /// A dialect's own bound on a construct is exceeded (operands in a CryEngine condition,
    /// states in a state machine, children of a composite).
    LimitExceeded,
    /// The dialect could not be determined from the file name.
    UnknownDialect,
    /// A bytecode program was rejected by the verifier: a malformed program file (never what
    /// the lowering emits for a checked tree).
    InvalidProgram,
    /// A tree compiles to a program beyond a limit: state bytes per agent, instructions,
    /// operand-stack depth or the per-tick instruction budget (`Limits`).
    ProgramTooLarge,
    /// A scenario runs more agents, ticks or agent-ticks than `Limits` allow, or its agents'
    /// memory cannot be allocated.
    ScenarioTooLarge,
}

/// A secondary message attached to a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Loading fails.
    #[default]
    Error,
    /// The original game loads the tree with a logged complaint, and so does btvm (unless
    /// warnings are denied: `LoadOptions::deny_warnings`).
    Warning,
}

impl Severity {
    /// `error` or `warning`, as diagnostics print it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One error or warning, positioned in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The kind of error (for a warning: the kind of complaint).
    pub kind: ErrorKind,
    /// The main message.
    pub message: String,
    /// The primary position.
    pub span: Span,
    /// Further positions with their own messages.
    pub labels: Vec<Label>,
    /// Free-text notes ("help: ...").
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A new error of `kind` at `span`.
    pub fn new(kind: ErrorKind, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            kind,
            message: safe_owned(message.into()),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A new warning of `kind` at `span`: what the original logs while it loads the tree
    /// anyway.
    pub fn warning(kind: ErrorKind, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::new(kind, span, message)
        }
    }

    /// Whether this is a warning.
    pub fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: safe_owned(message.into()),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(safe_owned(note.into()));
        self
    }

    /// Renders as `path:line:col: error: message` (or `warning:`; one line, plus notes)
    /// without a snippet, every part made safe to show ([`safe_text`]; the location only
    /// has its control characters escaped, so a long path keeps its line and column).
    pub fn display<'a>(&'a self, sources: &'a SourceMap) -> impl fmt::Display + 'a {
        DisplayDiag {
            diag: self,
            sources,
        }
    }
}

struct DisplayDiag<'a> {
    diag: &'a Diagnostic,
    sources: &'a SourceMap,
}

impl fmt::Display for DisplayDiag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            escape_controls(&self.sources.locate(self.diag.span)),
            self.diag.severity.name(),
            safe_text(&self.diag.message)
        )?;
        for note in &self.diag.notes {
            write!(f, "\n  note: {}", safe_text(note))?;
        }
        Ok(())
    }
}

/// The result of a loading step: a value, or every error found (followed, where the step
/// reports them, by the warnings found before loading failed).
pub type Result<T> = std::result::Result<T, Vec<Diagnostic>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_newlines_kept() {
        assert_eq!(
            escape_controls("a\u{1b}[2J\u{7}\r\0\u{9b}\u{202e}b\nc\td"),
            "a\\u{1b}[2J\\u{7}\\r\\0\\u{9b}\\u{202e}b\nc\td"
        );
        assert!(matches!(escape_controls("plain `name`"), Cow::Borrowed(_)));
    }

    #[test]
    fn long_words_and_texts_are_cut_with_an_ellipsis() {
        let name = "q".repeat(15_000);
        let message = format!("unknown action `{name}`, sorry");
        let cut = safe_text(&message);
        let expected = format!(
            "unknown action `{}…`, sorry",
            "q".repeat(MAX_SHOWN_WORD - 2)
        );
        assert_eq!(cut, expected);
        let long = "ab ".repeat(5000);
        let cut = safe_text(&long);
        assert_eq!(cut.chars().count(), MAX_SHOWN_TEXT + 1);
        assert!(cut.ends_with('…'));
        // A diagnostic never stores the long text.
        let d = Diagnostic::new(ErrorKind::UnknownName, Span::DUMMY, format!("`{name}`"));
        assert!(d.message.len() < 2 * MAX_SHOWN_WORD, "{}", d.message);
    }
}
