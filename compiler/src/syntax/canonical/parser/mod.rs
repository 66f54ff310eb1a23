//! The canonical-syntax grammar (chumsky over the token list) and the assembly of the parsed file
//! into a [`Tree`].
//!
//! Parsing happens in two chumsky stages glued with [`Parser::then_with_ctx`]: the header and
//! the tables (imports, variables, timestamps) are parsed first and become the *context* of the
//! second stage (signals, roots, subtrees), whose node and expression parsers resolve names
//! against them as they go. Subtrees may be used before they are declared, so `include` gets a
//! provisional id (interned in the parser state) that `body::assemble` maps to the declaration.
//!
//! Semantic problems (unknown names, out-of-range numbers, too-deep expressions, misplaced
//! `case`/`state`/`decider` nodes) are emitted as non-fatal errors so one run reports several;
//! chumsky drops those emitted on paths it backtracks out of. A syntax error in a node, a
//! `root`, a `subtree` or a `signal` is recovered from (`recover`): the node or statement is
//! skipped and the next one read, so the syntax errors of several nodes are reported (one
//! each); a syntax error in the header or the tables stops the file.
//!
//! One module per grammar area: `plumbing` (input, errors, parser aliases), `atoms` (keywords,
//! names, literals), `expr` (expressions and name resolution), `nodes` (one parser per node
//! kind), `decls` (header, tree options, tables: the first stage) and `body` (signals, roots,
//! subtrees, assembly: the second stage). This file only glues the stages together and
//! re-exports what Spore's grammar shares; it never parses anything itself.

mod atoms;
mod body;
mod decls;
mod expr;
mod nodes;
mod plumbing;
mod recover;

use std::collections::HashMap;

use btvm::{Import, ImportKind, Limits};
use chumsky::extra::{self, SimpleState};
use chumsky::input::Input as _;
use chumsky::prelude::*;

use super::lexer::Spanned;
use crate::ir::{Dialect, Expr, TimestampDecl, Tree, TreeConfig, Var};
use crate::source::FileId;

pub(in crate::syntax) use atoms::{int_tok, kw, lit, words};
pub(in crate::syntax) use body::finish;
pub(in crate::syntax) use expr::{deep_operators, deepen, OpTree, Unary};
pub(in crate::syntax) use plumbing::{custom, parse_result, Deep, Lbl, Mx, PErr, P};
pub(in crate::syntax) use recover::{is_word, never, skip, Resync};

/// The words that are always literals inside expressions; a function import with one of these
/// names must be written as a string.
pub(in crate::syntax) const EXPR_WORDS: [&str; 4] = ["true", "false", "nan", "inf"];

/// Provisional subtree ids handed out by `include` before the subtrees are declared.
#[derive(Default)]
struct Refs {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Refs {
    fn intern(&mut self, name: String) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.clone());
        self.index.insert(name, i);
        i
    }
}

/// The header and tables: the context of the second stage.
struct Tables {
    dialect: Dialect,
    config: TreeConfig,
    imports: Vec<Import>,
    import_ix: HashMap<(ImportKind, String), u32>,
    vars: Vec<Var>,
    var_ix: HashMap<String, u32>,
    timestamps: Vec<TimestampDecl>,
    ts_ix: HashMap<String, u32>,
    flags: Vec<String>,
    stimuli: Vec<String>,
}

type St = SimpleState<Refs>;
type DeclE<'s> = extra::Full<PErr<'s>, St, ()>;
type BodyE<'s> = extra::Full<PErr<'s>, St, Tables>;

/// A native expression with its depth.
type Ex = Deep<Expr>;

/// Parses the token list of `file` (already lexed and depth-checked) into a tree.
pub(super) fn parse_tokens(
    file: FileId,
    text_len: usize,
    tokens: &[Spanned<'_>],
    limits: &Limits,
) -> crate::diag::Result<Tree> {
    let eoi = SimpleSpan::from(text_len..text_len);
    let input = tokens.split_token_span(eoi);
    let mut state = SimpleState(Refs::default());
    let parser = decls::decls_parser().then_with_ctx(body::body_parser(file, limits));
    let (out, errs) = parser
        .parse_with_state(input, &mut state)
        .into_output_errors();
    let (tables, body) = plumbing::parse_result(file, out, errs)?;
    body::assemble(file, tables, body, &state.0, limits)
}
