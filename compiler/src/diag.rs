//! Diagnostics: errors as values, each with a kind, a message and spans.
//!
//! Library code never prints and never panics on input; it returns [`Diagnostic`]s. The CLI
//! renders them like rustc does.

use crate::source::{SourceMap, Span};
use std::fmt;

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
            message: message.into(),
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
            message: message.into(),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Renders as `path:line:col: error: message` (or `warning:`; one line, plus notes)
    /// without a snippet.
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
            self.sources.locate(self.diag.span),
            self.diag.severity.name(),
            self.diag.message
        )?;
        for note in &self.diag.notes {
            write!(f, "\n  note: {note}")?;
        }
        Ok(())
    }
}

/// The result of a loading step: a value, or every error found (followed, where the step
/// reports them, by the warnings found before loading failed).
pub type Result<T> = std::result::Result<T, Vec<Diagnostic>>;
