//! Traces: what the host saw, tick by tick (`spec/cases/README.md`, "Trace format").

use std::fmt;

/// A trace: one line per tick header, host call, entry run and root status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    lines: Vec<String>,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a line (without indentation; the display adds it).
    pub fn push(&mut self, line: String) {
        self.lines.push(line);
    }

    /// The lines.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Parses an expected trace: trims lines, drops blank lines and `#` comments.
    pub fn parse_expected(text: &str) -> Trace {
        Trace {
            lines: text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect(),
        }
    }

    /// A unified-style report of the first difference between `self` (expected) and `actual`,
    /// with a few lines of context; `None` when they are equal.
    pub fn diff(&self, actual: &Trace) -> Option<String> {
        let first = self
            .lines
            .iter()
            .zip(&actual.lines)
            .position(|(a, b)| a != b)
            .or_else(|| {
                (self.lines.len() != actual.lines.len())
                    .then(|| self.lines.len().min(actual.lines.len()))
            })?;
        let from = first.saturating_sub(4);
        let mut out = format!(
            "traces differ at line {} (expected vs actual):\n",
            first + 1
        );
        for i in from..first {
            out.push_str(&format!("    {}\n", self.lines[i]));
        }
        for l in self.lines.iter().skip(first).take(4) {
            out.push_str(&format!("  - {l}\n"));
        }
        for l in actual.lines.iter().skip(first).take(4) {
            out.push_str(&format!("  + {l}\n"));
        }
        Some(out)
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.lines {
            if l.starts_with("tick ") {
                writeln!(f, "{l}")?;
            } else {
                writeln!(f, "  {l}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_traces_ignore_layout_and_comments() {
        let t = Trace::parse_expected("tick 0 now 0\n   # why\n  root success  \n\n");
        assert_eq!(t.lines(), ["tick 0 now 0", "root success"]);
        assert_eq!(t.to_string(), "tick 0 now 0\n  root success\n");
        let mut other = t.clone();
        assert!(t.diff(&other).is_none());
        other.push("root failure".into());
        assert!(t.diff(&other).unwrap().contains("line 3"));
    }
}
