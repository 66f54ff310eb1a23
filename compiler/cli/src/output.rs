//! Standard output for every command: one buffered writer that remembers the first write error,
//! and the trace sinks of `btvm run` that write through it.
//!
//! A closed pipe (`btvm run … | head -1`) is not an error, as in ripgrep and other Unix tools:
//! output stops, nothing is printed about it, and the command exits with the status it has
//! anyway (0 when all went well). Any other write error (`> /dev/full`) is reported once, at
//! the end, and the command exits 1. Nothing in the CLI writes to standard output except
//! through [`Output`], and no write here may panic.

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use btvm_compiler::scenario::{TraceLine, TraceSink};

use crate::render::Renderer;

/// Standard output, buffered; after the first failed write it drops everything.
pub struct Output {
    inner: BufWriter<io::StdoutLock<'static>>,
    error: Option<io::Error>,
}

impl Output {
    /// The process's standard output.
    pub fn new() -> Output {
        Output {
            inner: BufWriter::with_capacity(64 << 10, io::stdout().lock()),
            error: None,
        }
    }

    /// Writes formatted text: what `write!` and `writeln!` on an `Output` call. The error, if
    /// any, is kept for [`Output::finish`].
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.inner.write_fmt(args) {
                self.error = Some(e);
            }
        }
    }

    /// Writes bytes (a program file).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.inner.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// The kind of the write error that stopped the output, if one did.
    pub fn failed(&self) -> Option<io::ErrorKind> {
        self.error.as_ref().map(io::Error::kind)
    }

    /// Flushes, then gives the exit status: `code` when everything was written or the reader
    /// closed the pipe; after any other write error, the error reported on stderr and 1.
    pub fn finish(mut self, code: ExitCode, diags: &mut Renderer) -> ExitCode {
        if self.error.is_none() {
            if let Err(e) = self.inner.flush() {
                self.error = Some(e);
            }
        }
        match self.error {
            None => code,
            Some(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
            Some(e) => {
                diags.error(&format!("cannot write to standard output: {e}"));
                ExitCode::FAILURE
            }
        }
    }
}

/// Decider debug lines go to stderr as they come; a closed stderr loses them, nothing more.
fn debug_line(line: &str) -> io::Result<()> {
    let _ = writeln!(io::stderr().lock(), "{line}");
    Ok(())
}

/// `btvm run`: every trace line written as it is made.
pub struct TraceOut<'a>(pub &'a mut Output);

impl TraceSink for TraceOut<'_> {
    fn line(&mut self, line: &str) -> io::Result<()> {
        write!(self.0, "{}", TraceLine(line));
        match self.0.failed() {
            // The run stops; `Output::finish` reports the error, if it is one.
            Some(kind) => Err(kind.into()),
            None => Ok(()),
        }
    }

    fn debug(&mut self, line: &str) -> io::Result<()> {
        debug_line(line)
    }
}

/// `btvm run --summary`: counters only, however long the run.
#[derive(Default)]
pub struct Summary {
    /// Root statuses: failure, success, running.
    pub roots: [u64; 3],
    /// Host calls.
    pub calls: u64,
}

impl TraceSink for Summary {
    fn line(&mut self, line: &str) -> io::Result<()> {
        match line {
            "root failure" => self.roots[0] += 1,
            "root success" => self.roots[1] += 1,
            "root running" => self.roots[2] += 1,
            _ if line.contains('(') => self.calls += 1,
            _ => {}
        }
        Ok(())
    }

    fn debug(&mut self, line: &str) -> io::Result<()> {
        debug_line(line)
    }
}
