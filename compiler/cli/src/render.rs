//! Rendering diagnostics like rustc: `error: message`, `--> file:line:col`, a source snippet.
//! Everything shown goes through `btvm_compiler::diag::safe_text` (message, labels, notes) or
//! `escape_controls` (file names, and source lines, see [`crate::clip`]) first: a tree must
//! never reach the terminal with a control character or flood it.
//! Writes to stderr only, and never panics when stderr is closed.

use std::io::Write as _;

use btvm_compiler::diag::{escape_controls, safe_text, Diagnostic, Severity};
use btvm_compiler::source::SourceMap;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;

use crate::clip::{ClipFile, ClipFiles};
use codespan_reporting::term::{self, termcolor::ColorChoice, termcolor::StandardStream};

/// How to colour diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// Colour when stderr is a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Writes diagnostics to stderr.
pub struct Renderer {
    stream: StandardStream,
}

impl Renderer {
    pub fn new(color: Color) -> Renderer {
        use std::io::IsTerminal;
        let choice = match color {
            Color::Always => ColorChoice::Always,
            Color::Never => ColorChoice::Never,
            Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
            Color::Auto => ColorChoice::Never,
        };
        Renderer {
            stream: StandardStream::stderr(choice),
        }
    }

    /// Renders every diagnostic against the files in `sources`, showing only the lines it
    /// points at (long lines cut around the label, see [`crate::clip`]).
    pub fn emit(&mut self, sources: &SourceMap, diags: &[Diagnostic]) {
        let config = term::Config::default();
        for d in diags {
            let in_file =
                |s: btvm_compiler::source::Span| (s.file.0 as usize) < sources.files().len();
            let mut labels: Vec<(bool, btvm_compiler::source::Span, &str)> = Vec::new();
            if in_file(d.span) {
                labels.push((true, d.span, ""));
            }
            for l in d.labels.iter().filter(|l| in_file(l.span)) {
                labels.push((false, l.span, &l.message));
            }
            let mut files = ClipFiles::default();
            for (id, f) in sources.files().iter().enumerate() {
                let spans: Vec<_> = labels
                    .iter()
                    .filter(|(_, s, _)| s.file.0 as usize == id)
                    .map(|(_, s, _)| s.start as usize..s.end as usize)
                    .collect();
                if !spans.is_empty() {
                    // Escaped, not cut: a long path must keep its line and column.
                    let name = escape_controls(&f.path.display().to_string()).into_owned();
                    let line_of = |at: usize| f.line_col(at as u32).0 - 1;
                    files.add(id, ClipFile::new(name, &f.text, &spans, &line_of));
                }
            }
            let mut cs = match d.severity {
                Severity::Error => CsDiagnostic::error(),
                Severity::Warning => CsDiagnostic::warning(),
            }
            .with_message(safe_text(&d.message));
            for (primary, span, message) in labels {
                let id = span.file.0 as usize;
                let Some(f) = files.get(id) else { continue };
                let range = f.shown(span.start as usize)..f.shown(span.end as usize);
                let label = if primary {
                    Label::primary(id, range)
                } else {
                    Label::secondary(id, range).with_message(safe_text(message))
                };
                cs.labels.push(label);
            }
            let mut notes: Vec<String> =
                d.notes.iter().map(|n| safe_text(n).into_owned()).collect();
            notes.extend(crate::hints::for_diagnostic(d));
            cs = cs.with_notes(notes);
            if term::emit_to_write_style(&mut self.stream.lock(), &config, &files, &cs).is_err() {
                // The span did not fit the file (should not happen): fall back to one line.
                let _ = writeln!(std::io::stderr(), "{}", d.display(sources));
            }
        }
    }

    /// Renders a plain error message (no source position).
    pub fn error(&mut self, message: &str) {
        self.plain(CsDiagnostic::<usize>::error(), message);
    }

    /// Renders a plain warning (no source position).
    pub fn warning(&mut self, message: &str) {
        self.plain(CsDiagnostic::<usize>::warning(), message);
    }

    fn plain(&mut self, cs: CsDiagnostic<usize>, message: &str) {
        let message = safe_text(message);
        let cs = cs.with_message(message.as_ref());
        let files = SimpleFiles::<String, String>::new();
        if term::emit_to_write_style(
            &mut self.stream.lock(),
            &term::Config::default(),
            &files,
            &cs,
        )
        .is_err()
        {
            let _ = writeln!(std::io::stderr(), "{:?}: {message}", cs.severity);
        }
    }
}
