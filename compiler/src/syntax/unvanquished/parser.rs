//! The node grammar: preprocessed tokens to IR nodes, read the way the game's recursive-descent
//! parser reads them (with an explicit stack instead of recursion).
//!
//! ```text
//! file := [ "selectClass" "{" node "}" ] node EOF
//! node := ("selector" | "fallback" | "sequence" | "concurrent") "{" node* "}"    (≤ 20 children)
//!       | "action" NAME [ "(" params ")" ]      (parentheses optional when it takes none)
//!       | "condition" expr [ "{" node "}" ]
//!       | "decorator" NAME "(" params ")" "{" node "}"
//!       | "behavior" TOKEN
//!       | "spawnAs" NUMBER
//! ```
//!
//! Keywords and action/decorator names are case-insensitive, and matched by the token's text as
//! in the game: a string `"{"`, `"roam"` or `"sequence"` is that token (see [`Token::is_text`]). Node nesting is parsed with an
//! explicit stack (never recursion) and checked against `Limits::max_depth` as each node starts
//! (depth counts across includes: an include node at depth `d` puts the included root at
//! `d + 1`). Includes are resolved through [`Env`], which owns the
//! subtree cache. Condition expressions are in [`super::expr`], parameter lists in
//! [`super::params`].
//!
//! This file never reads files and never expands macros.

use btvm::{Import, ImportId, Limits, Status};

use super::decorators::{self, DecoratorDef, DecoratorKind};
use super::params::{Param, ParamList};
use super::token::{Punct, Token, TokenKind};
use crate::diag::{Diagnostic, ErrorKind, Severity};
use crate::ir::{
    Arg, CallExpr, Composite, Cooldown, Expr, Guard, GuardEval, Lit, NodeBuf, NodeKind, Parallel,
    Quorum, Resume, StatusMap, SubtreeId,
};
use crate::source::Span;
use crate::syntax::profile::{checked_against, closest, Profile, Vocabulary};

/// Results inside the front-end: an error that stops loading, as the game stops at its first.
/// An unknown action or decorator name is reported through [`Env::error`] instead and the
/// parser goes on after it (its parameters and block are read), so every such name in a file
/// is reported; a syntax error still stops it (resynchronizing could invent follow-up errors).
pub(super) type PResult<T> = Result<T, Diagnostic>;

/// The game's `MAX_NODE_LIST`: most children in one list.
pub(super) const MAX_CHILDREN: usize = 20;

/// What the parser needs from the loader.
pub(super) trait Env {
    /// Adds an import (deduplicated) and returns its id.
    fn import(&mut self, import: Import) -> ImportId;
    /// Resolves `behavior NAME` (`name` is the NAME token, `site` the whole node) for an
    /// include node at `depth`; returns the subtree and its height (its root counts 1).
    fn include(&mut self, name: &Token, site: Span, depth: u32) -> PResult<(SubtreeId, u32)>;
    /// Counts one more node against `Limits::max_nodes`.
    fn count_node(&mut self, span: Span) -> PResult<()>;
    /// Records a warning: what the game logs while it loads the tree anyway.
    fn warn(&mut self, warning: Diagnostic);
    /// Records an error the parser goes on after (the load fails; later independent errors
    /// are reported too); past `Limits::max_errors` it is returned instead, to stop.
    fn error(&mut self, error: Diagnostic) -> PResult<()>;
}

/// The game vocabulary a load checks names against, and the profile it comes from.
#[derive(Clone, Copy)]
pub(super) struct Game<'p> {
    /// The profile's name (for diagnostics).
    pub name: &'p str,
    /// Its Unvanquished vocabulary.
    pub vocab: &'p Vocabulary,
}

impl<'p> Game<'p> {
    /// The vocabulary of `profile`, if it declares one.
    pub(super) fn of(profile: &'p Profile) -> Option<Game<'p>> {
        Some(Game {
            name: profile.name(),
            vocab: profile.unvanquished()?,
        })
    }
}

/// One parsed file.
pub(super) struct FileTree {
    /// The `selectClass` block's node, if the file starts with one.
    pub select_class: Option<NodeBuf>,
    /// The root node.
    pub root: NodeBuf,
    /// Levels from the root down to the deepest node, through includes (a leaf root is 1).
    pub height: u32,
}

/// Parses the tokens of one file whose root node sits at `base_depth`.
pub(super) fn parse_file(
    toks: &[Token],
    eof: Span,
    base_depth: u32,
    limits: Limits,
    game: Game<'_>,
    env: &mut dyn Env,
) -> PResult<FileTree> {
    let mut p = Parser {
        game,
        toks,
        pos: 0,
        eof,
        limits,
        env,
        deepest: base_depth,
    };
    let mut select_class = None;
    // `ReadBehaviorTree` compares the first token's text (`Str::IsIEqual`): a string
    // `"selectClass"` starts the block too.
    if p.peek().is_some_and(|t| {
        matches!(t.kind, TokenKind::Name(_) | TokenKind::Str(_))
            && t.game_text().eq_ignore_ascii_case("selectClass")
    }) {
        p.pos += 1;
        p.expect(Punct::LBrace, "after `selectClass`")?;
        select_class = Some(p.node(base_depth)?);
        p.expect(
            Punct::RBrace,
            "to close the `selectClass` block (it holds one node)",
        )?;
    }
    p.deepest = base_depth;
    let root = p.node(base_depth)?;
    if let Some(t) = p.peek() {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            t.span,
            format!("expected end of file, found {t}"),
        )
        .with_note(
            "a file holds one root node (wrap several nodes in a `selector` or `sequence`)",
        ));
    }
    let height = p.deepest - base_depth + 1;
    Ok(FileTree {
        select_class,
        root,
        height,
    })
}

/// The parser state (shared with `expr.rs` and `params.rs`).
pub(super) struct Parser<'t> {
    /// The game's vocabulary.
    pub(super) game: Game<'t>,
    /// The file's tokens.
    pub(super) toks: &'t [Token],
    /// Index of the next token.
    pub(super) pos: usize,
    eof: Span,
    /// The limits.
    pub(super) limits: Limits,
    /// The loader.
    pub(super) env: &'t mut dyn Env,
    /// Deepest node depth reached so far (through includes).
    deepest: u32,
}

impl<'t> Parser<'t> {
    /// The next token, if any.
    pub(super) fn peek(&self) -> Option<&'t Token> {
        self.toks.get(self.pos)
    }

    /// Whether the next token reads as `p` (by its text, as the game compares it: a string
    /// `"{"` is a `{`; see [`Token::is_text`]).
    pub(super) fn at(&self, p: Punct) -> bool {
        self.peek().is_some_and(|t| t.is_text(p))
    }

    /// The span of the next token (the end of the file if there is none).
    pub(super) fn here(&self) -> Span {
        self.peek().map_or(self.eof, |t| t.span)
    }

    /// From token `start` to the last consumed token.
    pub(super) fn span_from(&self, start: usize) -> Span {
        let first = self.toks.get(start).map_or(self.eof, |t| t.span);
        match self.pos.checked_sub(1).and_then(|i| self.toks.get(i)) {
            Some(last) if self.pos > start => first.to(last.span),
            _ => first,
        }
    }

    /// "found X" for messages.
    pub(super) fn found(&self) -> String {
        self.peek()
            .map_or_else(|| "the end of the file".to_string(), |t| t.to_string())
    }

    /// Consumes `p` (by its text, as the game's `expectToken` compares it) or fails with
    /// "expected `p` {context}, found …".
    pub(super) fn expect(&mut self, p: Punct, context: &str) -> PResult<&'t Token> {
        match self.peek() {
            Some(t) if t.is_text(p) => {
                self.pos += 1;
                Ok(t)
            }
            _ => Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                format!(
                    "expected `{}` {context}, found {}",
                    p.as_str(),
                    self.found()
                ),
            )),
        }
    }

    /// Consumes an action or decorator name or fails with "expected {what}, found …". The
    /// game looks the token's text up (`bsearch` with `cmdcmp`, a `Q_stricmp`, in
    /// `ReadActionNode` and `ReadDecoratorNode`), so a string `"roam"` names `roam` too; returns
    /// the token and its text.
    fn expect_name(&mut self, what: &str) -> PResult<(&'t Token, String)> {
        match self.peek() {
            Some(t) if matches!(t.kind, TokenKind::Name(_) | TokenKind::Str(_)) => {
                self.pos += 1;
                Ok((t, t.game_text()))
            }
            _ => Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                format!("expected {what}, found {}", self.found()),
            )),
        }
    }

    /// One node whose root sits at `depth` (1 for an entry's root), with everything under it.
    ///
    /// Iterative: open composites, guards and decorators wait on an explicit stack, so node
    /// nesting never grows the call stack (the depth limit is still enforced).
    fn node(&mut self, depth: u32) -> PResult<NodeBuf> {
        let mut stack: Vec<Open> = Vec::new();
        let mut finished: Option<NodeBuf> = None;
        loop {
            if let Some(node) = finished.take() {
                self.env.count_node(node.span)?;
                match stack.last_mut() {
                    None => return Ok(node),
                    Some(Open::List { children, open, .. }) => {
                        if children.len() == MAX_CHILDREN {
                            return Err(too_many_children(node.span, *open));
                        }
                        children.push(node);
                    }
                    Some(Open::One { child, .. }) => *child = Some(node),
                }
            }
            match stack.last() {
                Some(Open::List { open, .. }) => {
                    if self.at(Punct::RBrace) {
                        self.pos += 1;
                        if let Some(Open::List {
                            kind,
                            start,
                            children,
                            ..
                        }) = stack.pop()
                        {
                            finished = Some(NodeBuf::new(kind, self.span_from(start), children));
                        }
                        continue;
                    }
                    if self.peek().is_none() {
                        return Err(Diagnostic::new(
                            ErrorKind::Syntax,
                            self.eof,
                            "expected `}`, found the end of the file",
                        )
                        .with_label(*open, "this list is not closed"));
                    }
                }
                Some(Open::One {
                    child: Some(_),
                    close,
                    ..
                }) => {
                    self.expect(Punct::RBrace, close)?;
                    if let Some(Open::One {
                        kind,
                        start,
                        child: Some(child),
                        ..
                    }) = stack.pop()
                    {
                        finished = Some(NodeBuf::new(kind, self.span_from(start), vec![child]));
                    }
                    continue;
                }
                Some(Open::One { child: None, .. }) | None => {}
            }
            let at = depth.saturating_add(stack.len() as u32);
            match self.head(at)? {
                Head::Done(node) => finished = Some(node),
                Head::Open(open) => stack.push(open),
            }
        }
    }

    /// The start of one node at `depth`: a whole leaf, or a container whose children follow.
    fn head(&mut self, depth: u32) -> PResult<Head> {
        if depth > self.limits.max_depth {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                self.here(),
                format!(
                    "nodes are nested deeper than {} levels",
                    self.limits.max_depth
                ),
            )
            .with_note("the depth counts through `behavior` includes"));
        }
        self.deepest = self.deepest.max(depth);
        let start = self.pos;
        let Some(tok) = self.peek() else {
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.eof,
                "expected a node, found the end of the file",
            ));
        };
        // The game's `ReadNode` compares the token's text (`Q_stricmp`), whatever its type:
        // a string `"sequence"` is the keyword too.
        let keyword = match &tok.kind {
            TokenKind::Name(_) | TokenKind::Str(_) => Some(tok.game_text().to_ascii_lowercase()),
            _ => None,
        };
        let kind = match keyword.as_deref() {
            Some("selector") => selector(Resume::Restart),
            Some("fallback") => selector(Resume::RunningList),
            Some("sequence") => NodeKind::Sequence(Composite {
                resume: Resume::RunningList,
                looping: false,
                cond: None,
            }),
            Some("concurrent") => NodeKind::Parallel(Parallel {
                success: Quorum::All,
                failure: Quorum::Any,
                stop_on_failure: true,
                remember: false,
            }),
            Some("action") => return self.action(start).map(Head::Done),
            Some("condition") => return self.condition(start),
            Some("decorator") => return self.decorator(start),
            Some("behavior") => return self.behavior(start, depth).map(Head::Done),
            Some("spawnas") => return self.spawn_as(start).map(Head::Done),
            Some("selectclass") => {
                return Err(Diagnostic::new(
                    ErrorKind::Syntax,
                    tok.span,
                    "`selectClass` is only allowed at the start of a file",
                ))
            }
            _ => return Err(not_a_node(tok, self.game)),
        };
        // A composite: its keyword, then `{`.
        self.pos += 1;
        let open = self
            .expect(Punct::LBrace, "to open the list of children")?
            .span;
        Ok(Head::Open(Open::List {
            kind,
            start,
            open,
            children: Vec::new(),
        }))
    }

    /// `action NAME [ ( params ) ]`.
    fn action(&mut self, start: usize) -> PResult<NodeBuf> {
        self.pos += 1;
        let (name_tok, name) = self.expect_name("an action name after `action`")?;
        let name = name.as_str();
        let game = self.game;
        let Some(def) = game.vocab.action(name) else {
            let d = Diagnostic::new(
                ErrorKind::UnknownName,
                name_tok.span,
                format!("unknown action `{name}`"),
            );
            let known = game.vocab.actions().iter().map(|a| a.name.as_str());
            let mut d = checked_against(d, "actions", game.name, name, known);
            if let Some(f) = game.vocab.function(name) {
                d = d.with_note(format!(
                    "`{}` is a condition function; use it in a `condition`",
                    f.name
                ));
            }
            // The position is sound: report it, read its parameters and go on.
            self.env.error(d)?;
            self.call_params(name_tok, name, 0, u8::MAX)?;
            return Ok(NodeBuf::leaf(
                NodeKind::Const(Status::Failure),
                self.span_from(start),
            ));
        };
        let params = self.call_params(name_tok, &def.name, def.min_args, def.max_args)?;
        let import = self.env.import(def.import());
        let call = CallExpr {
            import,
            args: params.into_iter().map(|p| lit_arg(p.lit)).collect(),
        };
        Ok(NodeBuf::leaf(NodeKind::Action(call), self.span_from(start)))
    }

    /// The parameters after a name (`name_tok` consumed), as the game reads them
    /// (`parseFunctionParameters` and its callers in `src/sgame/sg_bot_parse.cpp`):
    ///
    /// - no `(`: no parameters, if the callee takes none and a token follows; at the end of the
    ///   file the game looks for a `(` anyway and the load fails;
    /// - a list the game gives up on (a bad token in it, an unmatched `(`), too few or too many
    ///   values: the game logs it and the call gets no parameters, which fails the load only
    ///   when the callee requires some; otherwise it is a warning and the values are dropped.
    pub(super) fn call_params(
        &mut self,
        name_tok: &Token,
        name: &str,
        min: u8,
        max: u8,
    ) -> PResult<Vec<Param>> {
        if self
            .peek()
            .is_some_and(|t| t.starts_paren() && !t.is_text(Punct::LParen))
        {
            // The game sees a `(` (its first character) and `parseFunctionParameters` then
            // wants exactly `(` (`expectToken`): it fails and leaves the reader at the name,
            // which the enclosing node then fails on (or which is left over after the root).
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                format!("expected `(` after `{name}`, found {}", self.found()),
            )
            .with_label(
                name_tok.span,
                "the game reads this name again as the next node",
            )
            .with_note(
                "the game takes a token starting with `(` for the start of the parameters, \
                 and then needs it to be exactly `(`",
            ));
        }
        if !self.at(Punct::LParen) {
            if min > 0 {
                return Err(Diagnostic::new(
                    ErrorKind::Arity,
                    name_tok.span,
                    format!("`{name}` takes {}, but none were given", count(min, max)),
                )
                .with_note(format!("write `{name}( … )`")));
            }
            if self.peek().is_none() {
                return Err(Diagnostic::new(
                    ErrorKind::Syntax,
                    name_tok.span,
                    format!("expected `(` after `{name}`, found end of file"),
                )
                .with_note(format!(
                    "the game drops the parentheses of a call without parameters only when \
                     another token follows; write `{name}()` at the end of a file"
                )));
            }
            return Ok(Vec::new());
        }
        let complaint = match self.params()? {
            ParamList::Values(params, span) => {
                let n = params.len();
                if (usize::from(min)..=usize::from(max)).contains(&n) {
                    return Ok(params);
                }
                let many = if n > usize::from(max) { "many" } else { "few" };
                Diagnostic::new(
                    ErrorKind::Arity,
                    name_tok.span.to(span),
                    format!(
                        "too {many} parameters for `{name}`: it takes {}, but {n} {} given",
                        count(min, max),
                        if n == 1 { "was" } else { "were" }
                    ),
                )
            }
            ParamList::Dropped(d) => d,
        };
        if min > 0 {
            return Err(complaint);
        }
        self.env.warn(Diagnostic {
            severity: Severity::Warning,
            ..complaint.with_note(format!(
                "the game loads the tree and calls `{name}` without parameters"
            ))
        });
        Ok(Vec::new())
    }

    /// `condition EXPR [ { node } ]`.
    fn condition(&mut self, start: usize) -> PResult<Head> {
        self.pos += 1;
        let cond = self.condition_expr()?;
        if self.peek().is_none() {
            // `ReadConditionNode` looks at the token after the expression for its `{`.
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.span_from(start),
                "unexpected end of file after a condition",
            )
            .with_note(
                "the game looks for the condition's `{` after its expression and fails at the \
                 end of the file: a file cannot end with a condition without a child",
            ));
        }
        if !self.at(Punct::LBrace) {
            return Ok(Head::Done(NodeBuf::leaf(
                NodeKind::Condition(cond),
                self.span_from(start),
            )));
        }
        self.pos += 1;
        let guard = Guard {
            cond,
            eval: GuardEval::EveryTick,
        };
        Ok(Head::Open(Open::One {
            kind: NodeKind::Guard(guard),
            start,
            close: "to close the condition's block (it holds exactly one node)",
            child: None,
        }))
    }

    /// `decorator NAME ( params ) { node }`.
    fn decorator(&mut self, start: usize) -> PResult<Head> {
        self.pos += 1;
        let (name_tok, name) = self.expect_name("a decorator name after `decorator`")?;
        let name = name.as_str();
        let Some(def) = decorators::decorator(name) else {
            // The position is sound: report it, read its parameters and child, and go on.
            self.env.error(unknown(
                name_tok.span,
                "decorator",
                name,
                decorators::DECORATORS.iter().map(|d| d.name),
            ))?;
            self.call_params(name_tok, name, 0, u8::MAX)?;
            self.expect(Punct::LBrace, &format!("after `decorator {name}(…)`"))?;
            return Ok(Head::Open(Open::One {
                kind: NodeKind::Invert,
                start,
                close: "to close the decorator's block (it holds exactly one node)",
                child: None,
            }));
        };
        if def.min_args == 0 && !self.peek().is_some_and(Token::starts_paren) {
            return Err(self.childless_decorator(name_tok, def));
        }
        let params = self.call_params(name_tok, def.name, def.min_args, def.max_args)?;
        let kind = decorator_kind(def, &params)?;
        self.expect(Punct::LBrace, &format!("after `decorator {}(…)`", def.name))?;
        Ok(Head::Open(Open::One {
            kind,
            start,
            close: "to close the decorator's block (it holds exactly one node)",
            child: None,
        }))
    }

    /// The game's quirk for a parameterless decorator written without `()`: it takes no child
    /// and leaves a following `{` to the enclosing list, which then fails on it.
    fn childless_decorator(&self, name_tok: &Token, def: &DecoratorDef) -> Diagnostic {
        let fix = format!("write `decorator {}() {{ … }}`", def.name);
        if self.at(Punct::LBrace) {
            Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                format!("unexpected `{{` after `decorator {}`", def.name),
            )
            .with_label(name_tok.span, "this decorator has no `()`")
            .with_note(format!(
                "the game reads `decorator {}` without parentheses as a decorator with no child \
                 and does not consume this `{{`, so the enclosing node fails on it",
                def.name
            ))
            .with_note(fix)
        } else {
            Diagnostic::new(
                ErrorKind::Syntax,
                name_tok.span,
                format!("`decorator {}` has no child", def.name),
            )
            .with_note(
                "without `()` the game accepts a decorator with no child and crashes when it runs",
            )
            .with_note(fix)
        }
    }

    /// `behavior NAME`.
    fn behavior(&mut self, start: usize, depth: u32) -> PResult<NodeBuf> {
        self.pos += 1;
        // `ReadBehaviorTreeInclude` takes the text of whatever token follows (`behavior E_GOAL`
        // loads `17.bt`, `behavior "x"` loads `x.bt`).
        let Some(name_tok) = self.peek() else {
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                "expected a behavior name after `behavior`, found the end of the file",
            ));
        };
        self.pos += 1;
        let site = self.span_from(start);
        let (id, height) = self.env.include(name_tok, site, depth)?;
        self.deepest = self.deepest.max(depth.saturating_add(height));
        Ok(NodeBuf::leaf(NodeKind::Include(id), site))
    }

    /// `spawnAs NUMBER`: the host action `spawnAs(N)`.
    fn spawn_as(&mut self, start: usize) -> PResult<NodeBuf> {
        self.pos += 1;
        let Some(TokenKind::Number(n)) = self.peek().map(|t| &t.kind) else {
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                self.here(),
                format!(
                    "expected a class or weapon number after `spawnAs`, found {}",
                    self.found()
                ),
            ));
        };
        let span = self.here();
        self.pos += 1;
        let lit = super::params::box_number(n, false, span)?;
        if !matches!(lit, Lit::Int(_)) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                span,
                "`spawnAs` needs an integer (a PCL_* class or WP_* weapon)",
            ));
        }
        let import = self.env.import(decorators::spawn_as());
        let call = CallExpr {
            import,
            args: vec![lit_arg(lit)],
        };
        Ok(NodeBuf::leaf(NodeKind::Action(call), self.span_from(start)))
    }
}

/// A node whose children are still being read.
enum Open {
    /// A composite: children until `}`.
    List {
        kind: NodeKind,
        start: usize,
        /// The `{`.
        open: Span,
        children: Vec<NodeBuf>,
    },
    /// A guard or decorator: one child, then `}`.
    One {
        kind: NodeKind,
        start: usize,
        /// What the `}` closes (for the message when it is missing).
        close: &'static str,
        child: Option<NodeBuf>,
    },
}

/// What [`Parser::head`] read.
enum Head {
    /// A complete node.
    Done(NodeBuf),
    /// A container; its children come next.
    Open(Open),
}

fn too_many_children(child: Span, open: Span) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::TooManyNodes,
        child,
        format!("a list may hold at most {MAX_CHILDREN} children; this is child 21"),
    )
    .with_label(open, "in this list")
    .with_note("the game's MAX_NODE_LIST is 20; split the list into nested ones")
}

fn selector(resume: Resume) -> NodeKind {
    NodeKind::Selector(Composite {
        resume,
        looping: false,
        cond: None,
    })
}

/// A positional literal argument.
pub(super) fn lit_arg(lit: Lit) -> Arg {
    Arg {
        name: None,
        value: Expr::Lit(lit),
    }
}

/// "1 parameter", "2 parameters", "1 to 4 parameters".
fn count(min: u8, max: u8) -> String {
    let noun = if max == 1 { "parameter" } else { "parameters" };
    if min == max {
        format!("{min} {noun}")
    } else {
        format!("{min} to {max} {noun}")
    }
}

/// An `UnknownName` error with a suggestion when a known name is close.
pub(super) fn unknown<'a>(
    span: Span,
    what: &str,
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    let d = Diagnostic::new(
        ErrorKind::UnknownName,
        span,
        format!("unknown {what} `{name}`"),
    );
    match closest(name, known) {
        Some(s) => d.with_note(format!("did you mean `{s}`?")),
        None => d,
    }
}

/// The error for a token that cannot start a node.
fn not_a_node(tok: &Token, game: Game<'_>) -> Diagnostic {
    let mut d = Diagnostic::new(
        ErrorKind::Syntax,
        tok.span,
        format!(
            "expected a node (selector, sequence, fallback, concurrent, action, condition, \
             decorator, behavior or spawnAs), found {tok}"
        ),
    );
    if let Some(name) = tok.name() {
        const KEYWORDS: [&str; 10] = [
            "selector",
            "sequence",
            "fallback",
            "concurrent",
            "action",
            "condition",
            "decorator",
            "behavior",
            "spawnAs",
            "selectClass",
        ];
        if let Some(a) = game.vocab.action(name) {
            d = d.with_note(format!("to run the action, write `action {}`", a.name));
        } else if let Some(k) = closest(name, KEYWORDS) {
            d = d.with_note(format!("did you mean `{k}`?"));
        }
    }
    if let TokenKind::Literal(_) = tok.kind {
        d = d.with_note("character literals ('…') are not accepted anywhere in a `.bt` file");
    }
    d
}

/// The node kind of a decorator with checked parameters.
fn decorator_kind(def: &DecoratorDef, params: &[Param]) -> PResult<NodeKind> {
    let status = |i: usize| -> PResult<Status> {
        let p = &params[i];
        match p.lit {
            Lit::Int(v @ 0..=2) => Ok(Status::ALL[v as usize]),
            _ => Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                p.span,
                format!(
                    "`{}` needs a status here: 0 (STATUS_FAILURE), 1 (STATUS_SUCCESS) or 2 \
                     (STATUS_RUNNING)",
                    def.name
                ),
            )
            .with_note(
                "the game would cast any number to a status; btvm accepts only these three",
            )),
        }
    };
    Ok(match def.kind {
        DecoratorKind::Invert => NodeKind::Invert,
        DecoratorKind::Return => {
            let s = status(0)?;
            NodeKind::MapStatus(StatusMap {
                failure: s,
                success: s,
                running: s,
            })
        }
        DecoratorKind::MapStatus => NodeKind::MapStatus(StatusMap {
            failure: status(0)?,
            success: status(1)?,
            running: status(2)?,
        }),
        DecoratorKind::Timer => {
            let p = &params[0];
            match p.lit {
                Lit::Int(v) if (0..=i64::from(u32::MAX)).contains(&v) => {
                    NodeKind::Cooldown(Cooldown { ms: v as u32 })
                }
                _ => {
                    return Err(Diagnostic::new(
                        ErrorKind::InvalidValue,
                        p.span,
                        "`timer` needs a whole, non-negative number of milliseconds",
                    ))
                }
            }
        }
    })
}
