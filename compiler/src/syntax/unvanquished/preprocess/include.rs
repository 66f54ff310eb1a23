//! `#include "file"` / `<file>`: resolves the name from the game's file-system root, reads the
//! file through `files::read_source` and pushes it on the file stack.
//!
//! This module never recurses: the included file is read by the main loop from the stack.

use super::super::files::read_source;
use super::super::lexer::Lexer;
use super::super::macros::pp_error;
use super::super::token::{Punct, Token, TokenKind};
use super::{no_more, FileState, Pp};
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

impl Pp<'_> {
    pub(super) fn include(&mut self, line: Vec<Token>, at: Span) -> Result<(), Diagnostic> {
        let name = match line.first().map(|t| &t.kind) {
            Some(TokenKind::Str(s)) => {
                no_more(&line[1..], "#include \"…\"")?;
                s.to_string()
            }
            Some(TokenKind::Punct(Punct::Lt)) => {
                let Some(close) = line.iter().position(|t| t.is(Punct::Gt)) else {
                    return Err(pp_error(at, "`#include <` needs a closing `>`"));
                };
                no_more(&line[close + 1..], "#include <…>")?;
                line[1..close].iter().map(Token::text).collect()
            }
            _ => {
                return Err(pp_error(
                    at,
                    "`#include` needs a file name: `#include \"file\"` or `#include <file>`",
                ))
            }
        };
        if name.is_empty() {
            return Err(pp_error(at, "`#include` with an empty file name"));
        }
        // `Parse_Directive_include` opens the name as given, from the game's file-system root
        // (`Parse_LoadScriptFile`, `BG_FOpenGameOrPakPath`), never beside the including file.
        let depth = self.ctx.include_depth as usize + self.files.len();
        if depth > self.ctx.limits.max_include_depth as usize {
            return Err(Diagnostic::new(
                ErrorKind::IncludeTooDeep,
                at,
                format!(
                    "includes are nested deeper than {} files",
                    self.ctx.limits.max_include_depth
                ),
            ));
        }
        let path = match self.ctx.files.resolve(self.ctx.root, &name, at) {
            Ok(path) => path,
            Err(d) => {
                self.resumable = false;
                return Err(d);
            }
        };
        let key = path.to_string_lossy().to_ascii_lowercase();
        if self
            .files
            .iter()
            .any(|f| f.path.to_string_lossy().to_ascii_lowercase() == key)
        {
            let chain: Vec<String> = self
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .chain([path.display().to_string()])
                .collect();
            // `PC_AddInclude`-style check of the game's precompiler: only logged, and the
            // `#include` is skipped.
            self.warnings.push(
                Diagnostic::warning(
                    ErrorKind::IncludeCycle,
                    at,
                    format!("`{}` is recursively included; skipped", path.display()),
                )
                .with_note(format!("include chain: {}", chain.join(" -> "))),
            );
            return Ok(());
        }
        let file = match read_source(self.ctx.files, self.ctx.sources, &path, &name, at) {
            Ok(file) => file,
            Err(d) => {
                // A file the game cannot open: `Parse_Directive_include` fails after reading
                // the name, which is all btvm read of the line too.
                self.resumable = d.kind == ErrorKind::Io;
                return Err(d);
            }
        };
        self.files.push(FileState {
            lexer: Lexer::new(file.id, file.text.clone()),
            pushback: Vec::new(),
            conds: Vec::new(),
            path: file.path,
        });
        Ok(())
    }
}
