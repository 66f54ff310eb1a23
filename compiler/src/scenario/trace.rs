//! Traces: what the host saw, tick by tick (`spec/cases/README.md`, "Trace format"), kept
//! ([`Trace`]) or handed on line by line as a run makes them ([`TraceSink`]).
//!
//! This module formats; it never prints or writes anywhere its caller did not give it.

use std::fmt;
use std::io;

/// Where a run's trace goes, line by line, as the run produces it
/// ([`stream_session`](super::stream_session)): a run never holds more than one agent-tick's
/// lines, however many ticks it runs. An error from the sink stops the run.
pub trait TraceSink {
    /// Takes one trace line, unindented as [`Trace::lines`] holds it ([`TraceLine`] writes it
    /// as a trace is written).
    fn line(&mut self, line: &str) -> io::Result<()>;

    /// Takes one line of the decider debug output (`Session::debug_level`); dropped unless
    /// the sink wants it.
    fn debug(&mut self, line: &str) -> io::Result<()> {
        let _ = line;
        Ok(())
    }

    /// Whether [`TraceSink::ticked`] wants each agent's state block (the reference exports
    /// one for it, which costs a conversion per agent-tick). The default: no.
    fn wants_state(&self) -> bool {
        false
    }

    /// Called once per agent-tick after its lines: tick `tick`, `agent`, and the program and
    /// the agent's state block after the tick when [`TraceSink::wants_state`] and the engine
    /// can give one (what [`btvm::Program::active_path`] reads). The default does nothing.
    fn ticked(
        &mut self,
        tick: u32,
        agent: u32,
        state: Option<(&btvm::Program, &[u8])>,
    ) -> io::Result<()> {
        let _ = (tick, agent, state);
        Ok(())
    }
}

impl TraceSink for Trace {
    fn line(&mut self, line: &str) -> io::Result<()> {
        self.lines.push(line.to_string());
        Ok(())
    }
}

/// One trace line as a trace file writes it: tick headers flush left, every other line
/// indented by two spaces.
pub struct TraceLine<'a>(pub &'a str);

impl fmt::Display for TraceLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.starts_with("tick ") {
            f.write_str("  ")?;
        }
        writeln!(f, "{}", Escaped(self.0))
    }
}

/// A trace line's text as written: a tree's names go into it as the tree spells them, so
/// every control character (newline and tab included) is written as an escape (`\u{1b}`,
/// `\u{a}`): a name can neither drive the terminal that shows a trace nor forge a line of it.
/// Strings are already escaped when the line is made, so this changes nothing else.
struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let escaped = crate::diag::escape_controls(self.0);
        if !escaped.contains(['\n', '\t']) {
            return f.write_str(&escaped);
        }
        for c in escaped.chars() {
            match c {
                '\n' | '\t' => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => write!(f, "{c}")?,
            }
        }
        Ok(())
    }
}

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

    /// Takes the lines out, in order, leaving the trace empty.
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, String> {
        self.lines.drain(..)
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
            write!(f, "{}", TraceLine(l))?;
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
