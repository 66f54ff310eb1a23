//! What the diagnostic renderer shows of a file: only the lines a diagnostic points at, and of
//! a line longer than [`MAX_LINE`] characters (minified XML, generated trees, hostile input)
//! only a window around the labelled bytes with `…` where it was cut, as rustc does. Line and
//! column numbers are still those of the real file.
//!
//! This keeps a diagnostic on a 16 MiB one-line file a few lines long instead of 16 MiB.
//! Control characters in a shown line (an escape sequence, a carriage return, a bell in a
//! hostile tree) are shown escaped (`\u{1b}`), as `btvm_compiler::diag::escape_controls` shows
//! them in messages, so a source line can never drive the terminal; labels still point at
//! the right characters.

use std::ops::Range;

use codespan_reporting::files::{Error, Files};

/// Lines longer than this many bytes are cut to a window.
pub const MAX_LINE: usize = 160;
/// Bytes kept on each side of the labelled part of a cut line.
const CONTEXT: usize = 48;
const ELLIPSIS: &str = "…";

/// One shown line: a window `orig` of the real line `line` (0-based), placed at `start` in
/// the shown text, after `prefix` bytes of ellipsis.
#[derive(Debug)]
struct Shown {
    line: usize,
    line_start: usize,
    orig: Range<usize>,
    start: usize,
    prefix: usize,
    /// Each escaped character of the window: its offset in the window and how many bytes
    /// longer its escape is than the character.
    escapes: Vec<(usize, usize)>,
}

impl Shown {
    /// Bytes the escapes before window offset `within` add.
    fn extra_before(&self, within: usize) -> usize {
        self.escapes
            .iter()
            .take_while(|(o, _)| *o < within)
            .map(|(_, e)| e)
            .sum()
    }

    /// The window offset shown at `shown` bytes into the window's text (an escape's first
    /// character for any byte of the escape).
    fn window_offset(&self, shown: usize) -> usize {
        let mut extra = 0;
        for &(o, e) in &self.escapes {
            if shown <= o + extra {
                break;
            }
            if shown <= o + extra + e {
                return o;
            }
            extra += e;
        }
        shown - extra
    }
}

/// Appends `window` to `text`, escaping control characters; returns the escapes made.
fn push_window(text: &mut String, window: &str) -> Vec<(usize, usize)> {
    let mut escapes = Vec::new();
    for (o, c) in window.char_indices() {
        let one = c.to_string();
        let shown = btvm_compiler::diag::escape_controls(&one);
        if shown.len() != one.len() {
            escapes.push((o, shown.len() - one.len()));
        }
        text.push_str(&shown);
    }
    escapes
}

/// The shown part of one real file.
#[derive(Debug)]
pub struct ClipFile<'s> {
    name: String,
    real: &'s str,
    text: String,
    lines: Vec<Shown>,
}

impl<'s> ClipFile<'s> {
    /// The lines of `real` that `spans` (byte ranges) start or end on, each cut around the
    /// spans' bytes when it is long. `line_of` gives the 0-based number of the line starting
    /// at a byte (from the source map's line index: counting newlines here made rendering one
    /// diagnostic per line of a large file quadratic).
    pub fn new(
        name: String,
        real: &'s str,
        spans: &[Range<usize>],
        line_of: &dyn Fn(usize) -> usize,
    ) -> ClipFile<'s> {
        // (line start, line end, needed byte range) per touched line, merged per line.
        let mut touched: Vec<(usize, usize, Range<usize>)> = Vec::new();
        for s in spans {
            let (a, b) = (s.start.min(real.len()), s.end.min(real.len()));
            for at in [a, b] {
                let ls = real[..at].rfind('\n').map_or(0, |i| i + 1);
                let le = real[at..].find('\n').map_or(real.len(), |i| at + i);
                let need = a.max(ls)..b.min(le).max(a.max(ls));
                match touched.iter_mut().find(|t| t.0 == ls) {
                    Some(t) => t.2 = t.2.start.min(need.start)..t.2.end.max(need.end),
                    None => touched.push((ls, le, need)),
                }
            }
        }
        touched.sort_by_key(|t| t.0);
        let mut text = String::new();
        let mut lines = Vec::new();
        for (ls, le, need) in touched {
            let (from, to) = if le - ls <= MAX_LINE {
                (ls, le)
            } else {
                let from = need.start.saturating_sub(CONTEXT).max(ls);
                let to = (need.end + CONTEXT)
                    .min(le)
                    .min(from + MAX_LINE)
                    .max(need.start);
                (floor_char(real, from), floor_char(real, to))
            };
            if !text.is_empty() {
                text.push('\n');
            }
            let start = text.len();
            let prefix = if from > ls { ELLIPSIS.len() } else { 0 };
            if prefix > 0 {
                text.push_str(ELLIPSIS);
            }
            let escapes = push_window(&mut text, &real[from..to]);
            if to < le {
                text.push_str(ELLIPSIS);
            }
            lines.push(Shown {
                line: line_of(ls),
                line_start: ls,
                orig: from..to,
                start,
                prefix,
                escapes,
            });
        }
        ClipFile {
            name,
            real,
            text,
            lines,
        }
    }

    /// Where the real byte `at` is in the shown text (clamped into its line's window).
    pub fn shown(&self, at: usize) -> usize {
        let Some(l) = self.lines.iter().rev().find(|l| l.line_start <= at) else {
            return 0;
        };
        let within = at.clamp(l.orig.start, l.orig.end) - l.orig.start;
        l.start + l.prefix + within + l.extra_before(within)
    }

    /// The real byte shown at `at` (the nearest one for an ellipsis).
    fn real_byte(&self, line: &Shown, at: usize) -> usize {
        let within = line.window_offset(at.saturating_sub(line.start + line.prefix));
        (line.orig.start + within).min(line.orig.end)
    }

    fn line_of(&self, at: usize) -> usize {
        self.lines
            .iter()
            .rposition(|l| l.start <= at)
            .unwrap_or_default()
    }
}

/// Rounds `at` down to a character boundary of `s`.
fn floor_char(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The shown files of one diagnostic, by btvm file index.
#[derive(Debug, Default)]
pub struct ClipFiles<'s> {
    files: Vec<(usize, ClipFile<'s>)>,
}

impl<'s> ClipFiles<'s> {
    /// Adds file `id`.
    pub fn add(&mut self, id: usize, file: ClipFile<'s>) {
        self.files.push((id, file));
    }

    /// File `id`.
    pub fn get(&self, id: usize) -> Option<&ClipFile<'s>> {
        self.files.iter().find(|(i, _)| *i == id).map(|(_, f)| f)
    }

    fn file(&self, id: usize) -> Result<&ClipFile<'s>, Error> {
        self.get(id).ok_or(Error::FileMissing)
    }
}

impl<'a> Files<'a> for ClipFiles<'_> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.file(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.file(id)?.text)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, Error> {
        Ok(self.file(id)?.line_of(byte_index))
    }

    fn line_number(&'a self, id: usize, line_index: usize) -> Result<usize, Error> {
        let f = self.file(id)?;
        let l = f.lines.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: f.lines.len(),
        })?;
        Ok(l.line + 1)
    }

    fn column_number(
        &'a self,
        id: usize,
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        let f = self.file(id)?;
        let l = f.lines.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: f.lines.len(),
        })?;
        let at = f.real_byte(l, byte_index);
        Ok(f.real[l.line_start..floor_char(f.real, at)].chars().count() + 1)
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, Error> {
        let f = self.file(id)?;
        let l = f.lines.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: f.lines.len(),
        })?;
        let end = f
            .lines
            .get(line_index + 1)
            .map_or(f.text.len(), |next| next.start);
        Ok(l.start..end)
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    /// The 0-based line of byte `at`, counted.
    fn count_lines(real: &str, at: usize) -> usize {
        real[..at].bytes().filter(|&b| b == b'\n').count()
    }

    #[test]
    fn short_lines_are_shown_whole_with_their_real_numbers() {
        let real = "one\ntwo three\nfour\n";
        let f = ClipFile::new("f".into(), real, &[8..13], &|at| count_lines(real, at));
        let files = ClipFiles {
            files: vec![(0, f)],
        };
        let f = files.get(0).unwrap();
        assert_eq!(f.text, "two three");
        let at = f.shown(8);
        assert_eq!(
            files.line_number(0, files.line_index(0, at).unwrap()).ok(),
            Some(2)
        );
        assert_eq!(files.column_number(0, 0, at).ok(), Some(5));
    }

    #[test]
    fn long_lines_are_cut_around_the_label() {
        let real = format!("{}X{}\nnext", "é".repeat(5000), "b".repeat(5000));
        let x = real.find('X').unwrap();
        let f = ClipFile::new("f".into(), &real, &[x..x + 1], &|at| count_lines(&real, at));
        assert!(f.text.len() < 2 * MAX_LINE, "{}", f.text.len());
        assert!(f.text.starts_with(ELLIPSIS) && f.text.ends_with(ELLIPSIS));
        let at = f.shown(x);
        assert_eq!(&f.text[at..at + 1], "X");
        let files = ClipFiles {
            files: vec![(0, f)],
        };
        assert_eq!(files.line_number(0, 0).ok(), Some(1));
        assert_eq!(files.column_number(0, 0, at).ok(), Some(5001));
    }

    /// A hostile line's control characters are shown escaped, and a label after them still
    /// points at its own characters and column.
    #[test]
    fn control_characters_are_escaped_and_labels_still_fit() {
        let real = "a\x1b[2J\x07\r\0 bad";
        let at = real.find("bad").unwrap();
        let f = ClipFile::new("f".into(), real, &[at..at + 3], &|at| count_lines(real, at));
        assert!(!f.text.chars().any(|c| c.is_control()), "{:?}", f.text);
        assert!(f.text.contains("\\u{1b}[2J"), "{:?}", f.text);
        let shown = f.shown(at);
        assert_eq!(&f.text[shown..shown + 3], "bad");
        let files = ClipFiles {
            files: vec![(0, f)],
        };
        // Column 10: `bad` is the tenth character of the real line.
        assert_eq!(files.column_number(0, 0, shown).ok(), Some(10));
    }

    #[test]
    fn spans_at_the_end_of_the_file_and_across_lines() {
        let real = format!("a\n{}", "c".repeat(1000));
        let f = ClipFile::new("f".into(), &real, &[real.len()..real.len()], &|at| {
            count_lines(&real, at)
        });
        assert_eq!(f.lines.len(), 1);
        assert_eq!(f.shown(real.len()), f.text.len());
        let f = ClipFile::new("f".into(), &real, &[0..3], &|at| count_lines(&real, at));
        assert_eq!(f.lines.len(), 2);
        assert_eq!(f.shown(0), 0);
    }
}
