//! `btvm fmt`: formats canonical-syntax files like rustfmt (in place; `--check` lists what
//! would change, with a diff, and fails), comments kept (`canonical::format`).
//!
//! Only canonical-syntax files are formatted: a tree in another dialect is refused with a
//! pointer to `btvm convert`, which prints any dialect in the canonical syntax. A file is
//! written only when its formatted text differs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use btvm_compiler::load::Format;
use btvm_compiler::source::{read_file, SourceMap};
use btvm_compiler::syntax::canonical;

use crate::inputs;
use crate::output::Output;
use crate::render::Renderer;

/// What happened to one file.
enum Outcome {
    /// Already formatted.
    Same,
    /// Formatted (written, printed, or with `--check` reported).
    Changed,
    /// Not read, not canonical syntax, or did not parse (reported).
    Failed,
}

/// Formats `files` (`-`: standard input to standard output); exit 1 if any failed or, with
/// `check`, if any is not formatted.
pub fn fmt(files: &[PathBuf], check: bool, stdout: &mut Output, out: &mut Renderer) -> ExitCode {
    let mut failed = 0usize;
    let mut changed = 0usize;
    for path in files {
        match one(path, check, stdout, out) {
            Outcome::Same => {}
            Outcome::Changed => changed += 1,
            Outcome::Failed => failed += 1,
        }
    }
    if failed > 0 {
        out.error(&format!(
            "{failed} of {} files failed to format",
            files.len()
        ));
        return ExitCode::FAILURE;
    }
    if check && changed > 0 {
        out.error(&format!(
            "{changed} of {} files are not formatted (`btvm fmt FILE` formats them)",
            files.len()
        ));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Formats one file, or standard input.
fn one(path: &Path, check: bool, stdout: &mut Output, out: &mut Renderer) -> Outcome {
    let stdin = path.as_os_str() == "-";
    if !stdin && Format::from_path(path) != Some(Format::Canonical) {
        out.error(&format!(
            "`{}` is not a canonical-syntax file (.btn); `btvm convert {}` prints any dialect in the canonical syntax",
            path.display(),
            path.display()
        ));
        return Outcome::Failed;
    }
    let limits = btvm::Limits::default();
    let max = limits.max_source_bytes as u64;
    let read = match stdin {
        true => inputs::read_stdin(max),
        false => read_file(path, max).map_err(|e| format!("cannot read `{}`: {e}", path.display())),
    };
    let utf8 = |b: Vec<u8>| {
        String::from_utf8(b).map_err(|e| format!("`{}` is not UTF-8: {e}", path.display()))
    };
    let text = match read.and_then(utf8) {
        Ok(t) => t,
        Err(e) => {
            out.error(&e);
            return Outcome::Failed;
        }
    };
    let shown = match stdin {
        true => inputs::STDIN_NAME.to_string(),
        false => path.display().to_string(),
    };
    let mut sources = SourceMap::new();
    let file = sources.add(&shown, text.clone());
    let formatted = match canonical::format(file, &text, &limits) {
        Ok(f) => f,
        Err(diags) => {
            out.emit(&sources, &diags);
            return Outcome::Failed;
        }
    };
    if stdin && !check {
        write!(stdout, "{formatted}");
    }
    if formatted == text {
        return Outcome::Same;
    }
    if check {
        let diff = similar::TextDiff::from_lines(&text, &formatted);
        let header = format!("{shown} (formatted)");
        write!(
            stdout,
            "{}",
            diff.unified_diff()
                .context_radius(3)
                .header(&shown, &header)
        );
    } else if !stdin {
        if let Err(e) = std::fs::write(path, &formatted) {
            out.error(&format!("cannot write `{}`: {e}", path.display()));
            return Outcome::Failed;
        }
    }
    Outcome::Changed
}
