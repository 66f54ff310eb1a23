//! [`Report`]: diagnostics together with the source text they point at, so they print
//! themselves (`Display`) and travel as a `std::error::Error` (`load(...)?` in a function
//! returning `Box<dyn Error>` prints something useful).
//!
//! A report shares the loaded files' texts (`Arc<str>` in the [`SourceMap`]), it does not copy
//! them. Everything it shows goes through [`safe_text`] or [`escape_controls`], and a long
//! source line is cut around the column it points at. This module never decides what is an
//! error and never prints.

use std::fmt;

use super::{escape_controls, safe_text, Diagnostic};
use crate::source::{SourceFile, SourceMap, Span};

/// The most characters of a source line a report shows; a longer one is cut around the
/// column the diagnostic points at.
const MAX_SHOWN_LINE: usize = 120;

/// Diagnostics with the files they point into: what a failed load is as an error value.
///
/// `Display` renders each diagnostic as a short snippet: `error[Kind]: message`, the position
/// `file:line:col`, the source line with a caret under the span, and the notes. `Debug` shows
/// the same (it is what `fn main() -> Result<(), Box<dyn Error>>` prints), and the fields
/// with `{:#?}`.
#[derive(Clone)]
pub struct Report {
    diagnostics: Vec<Diagnostic>,
    sources: SourceMap,
}

impl Report {
    /// A report of `diagnostics`, whose spans point into `sources` (its texts are shared).
    pub fn new(diagnostics: Vec<Diagnostic>, sources: &SourceMap) -> Report {
        Report {
            diagnostics,
            sources: sources.clone(),
        }
    }

    /// The diagnostics, in the order they were given (a load gives errors by position, then
    /// warnings).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The files the diagnostics point into.
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }

    /// The diagnostics, given back.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

impl From<Report> for Vec<Diagnostic> {
    fn from(report: Report) -> Self {
        report.diagnostics
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.diagnostics.is_empty() {
            return f.write_str("loading failed without a diagnostic");
        }
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            snippet(f, d, &self.sources)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_struct("Report")
                .field("diagnostics", &self.diagnostics)
                .field("sources", &self.sources)
                .finish()
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

impl std::error::Error for Report {}

/// One diagnostic: header, position, source line with a caret, labels' positions, notes.
fn snippet(f: &mut fmt::Formatter<'_>, d: &Diagnostic, sources: &SourceMap) -> fmt::Result {
    writeln!(
        f,
        "{}[{:?}]: {}",
        d.severity.name(),
        d.kind,
        safe_text(&d.message)
    )?;
    writeln!(f, "  --> {}", escape_controls(&sources.locate(d.span)))?;
    if let Some(file) = sources.get(d.span.file) {
        source_line(f, file, d.span)?;
    }
    for l in &d.labels {
        writeln!(
            f,
            "  = {}: {}",
            escape_controls(&sources.locate(l.span)),
            safe_text(&l.message)
        )?;
    }
    for note in &d.notes {
        writeln!(f, "  = note: {}", safe_text(note))?;
    }
    Ok(())
}

/// `  12 | the line` and a caret line under the span's part of it (cut around the column
/// when the line is long; tabs shown as spaces so the caret lines up).
fn source_line(f: &mut fmt::Formatter<'_>, file: &SourceFile, span: Span) -> fmt::Result {
    let (line, col) = file.line_col(span.start);
    let text: &str = &file.text;
    let mut at_byte = (span.start as usize).min(text.len());
    while !text.is_char_boundary(at_byte) {
        at_byte -= 1;
    }
    let start = text[..at_byte].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let chars: Vec<char> = text[start..end]
        .trim_end_matches('\r')
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let at = (col - 1).min(chars.len());
    let width = file
        .line_col(span.end.max(span.start))
        .1
        .saturating_sub(col);
    let from = at.saturating_sub(MAX_SHOWN_LINE / 2);
    let to = (from + MAX_SHOWN_LINE).min(chars.len());
    let shown: String = chars[from..to].iter().collect();
    let (lead, tail) = (
        if from > 0 { "…" } else { "" },
        if to < chars.len() { "…" } else { "" },
    );
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    writeln!(f, "{pad} |")?;
    writeln!(f, "{number} | {lead}{}{tail}", escape_controls(&shown))?;
    let carets = width.clamp(1, (to - at).max(1));
    writeln!(
        f,
        "{pad} | {}{}{}",
        lead.chars().map(|_| ' ').collect::<String>(),
        " ".repeat(at - from),
        "^".repeat(carets)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::ErrorKind;

    fn shown(text: &str, start: usize, end: usize) -> String {
        let mut sources = SourceMap::new();
        let file = sources.add("t.bt", text.to_string());
        let d = Diagnostic::new(ErrorKind::Syntax, Span::new(file, start, end), "bad");
        Report::new(vec![d], &sources).to_string()
    }

    #[test]
    fn any_span_renders_without_panicking() {
        // Inside a multi-byte character, past the end, across lines, empty text.
        for (text, start, end) in [
            ("aé\nb", 2, 3),
            ("ab", 10, 20),
            ("ab\ncd", 1, 4),
            ("", 0, 0),
            ("x\r\n", 0, 1),
        ] {
            let s = shown(text, start, end);
            assert!(s.starts_with("error[Syntax]: bad\n  --> t.bt:"), "{s}");
            assert!(s.contains('^'), "{s}");
        }
        let d = Diagnostic::new(ErrorKind::Io, Span::DUMMY, "gone");
        let report = Report::new(vec![d], &SourceMap::new());
        assert_eq!(report.to_string(), "error[Io]: gone\n  --> <unknown>\n");
        // What `main` returning the error prints.
        assert_eq!(format!("{report:?}"), report.to_string());
        assert!(format!("{report:#?}").starts_with("Report {"));
    }

    #[test]
    fn a_long_line_is_cut_around_the_column() {
        let line = format!("{}NAME{}", "x".repeat(5000), "y".repeat(5000));
        let s = shown(&line, 5000, 5004);
        let shown_line = s.lines().nth(3).expect("the source line");
        assert!(shown_line.chars().count() < MAX_SHOWN_LINE + 20, "{s}");
        assert!(shown_line.contains("NAME"), "{s}");
        let caret = s.lines().nth(4).expect("the caret line");
        let column = |l: &str, c: char| l.chars().position(|x| x == c);
        assert_eq!(
            column(caret, '^'),
            shown_line
                .find("NAME")
                .map(|b| shown_line[..b].chars().count())
        );
        assert!(caret.ends_with("^^^^"), "{s}");
    }
}
