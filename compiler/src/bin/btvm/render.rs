//! Rendering diagnostics like rustc: `error: message`, `--> file:line:col`, a source snippet.

use btvm_compiler::diag::Diagnostic;
use btvm_compiler::source::SourceMap;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
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

    /// Renders every diagnostic against the files in `sources`.
    pub fn emit(&mut self, sources: &SourceMap, diags: &[Diagnostic]) {
        let mut files = SimpleFiles::new();
        for f in sources.files() {
            files.add(f.path.display().to_string(), f.text.clone());
        }
        let config = term::Config::default();
        for d in diags {
            let mut cs = CsDiagnostic::error().with_message(&d.message);
            let in_file =
                |s: btvm_compiler::source::Span| (s.file.0 as usize) < sources.files().len();
            if in_file(d.span) {
                cs = cs.with_labels(vec![Label::primary(
                    d.span.file.0 as usize,
                    d.span.start as usize..d.span.end as usize,
                )]);
            }
            for l in &d.labels {
                if in_file(l.span) {
                    cs.labels.push(
                        Label::secondary(
                            l.span.file.0 as usize,
                            l.span.start as usize..l.span.end as usize,
                        )
                        .with_message(&l.message),
                    );
                }
            }
            cs = cs.with_notes(d.notes.clone());
            if term::emit_to_write_style(&mut self.stream.lock(), &config, &files, &cs).is_err() {
                // The span did not fit the file (should not happen): fall back to one line.
                eprintln!("{}", d.display(sources));
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
        let cs = cs.with_message(message);
        let files = SimpleFiles::<String, String>::new();
        if term::emit_to_write_style(
            &mut self.stream.lock(),
            &term::Config::default(),
            &files,
            &cs,
        )
        .is_err()
        {
            eprintln!("{:?}: {message}", cs.severity);
        }
    }
}
