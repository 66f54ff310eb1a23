//! The loader: builds IR rules from parsed files, loads subtree files, collects imports.
//!
//! - The main file may hold at most one top-level rule; none gives the original's default
//!   tree, a single `failure` rule named `root`.
//! - Each rule becomes the node chain of `spec/semantics.md` §6.2: an optional
//!   `map success success running` (doNotFail), then for leaf rules an optional
//!   `guard every-tick`, then the leaf or the `sequence`/`selector` with `Resume::Cursor`. The
//!   rule's final id names the outermost node.
//! - A `<subtree>` is built in place, at every site, as a `sequence cursor` over the file's
//!   top-level rules. Each file is read and parsed once (cached by normalized path); only the
//!   IR is built per site. A file that is still being built is a cycle.
//! - Before a rule is built, its innermost node's depth (counted across subtrees and wrappers)
//!   is checked against `Limits::max_depth`, its nodes against `Limits::max_nodes`, and
//!   subtree chains against `Limits::max_include_depth`; recursion is therefore bounded by
//!   `max_depth`.
//! - Imports: each action name is an action import, each condition name a function import
//!   (one name may be both); `min_args`/`max_args` span the call sites' argument counts.
//!
//! This file never parses XML (see `xml`) and never computes id strings itself (see `ids`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use btvm::{Import, ImportId, ImportKind, Limits, Status};

use super::ast::{FileRules, Located, Mode, Rule, RuleKind};
use super::files::{normalize, Files};
use super::ids::{Ids, Scope};
use super::xml::parse_file_all;
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{
    Arg, BinOp, CallExpr, Composite, Dialect, Expr, Guard, GuardEval, Lit, NodeBuf, NodeKind,
    Resume, StatusMap, Tree, TreeBuilder,
};
use crate::source::{SourceMap, Span};

type PResult<T> = Result<T, Diagnostic>;

/// Loads one tree; one loader per [`super::load`] call.
pub(super) struct Loader<'a> {
    files: Files<'a>,
    limits: &'a Limits,
    sources: &'a mut SourceMap,
    /// Files parsed so far, by normalized path.
    parsed: HashMap<PathBuf, Rc<FileRules>>,
    /// The import table, in order of first use.
    imports: Vec<Import>,
    /// Index into `imports` by kind and name.
    import_index: HashMap<(ImportKind, String), usize>,
    ids: Ids,
    /// Files being built, the main file first.
    stack: Vec<Frame>,
    /// IR nodes built so far.
    nodes: usize,
    /// The errors the parser read past in the main file, or in the subtree file that
    /// stopped loading.
    errors: Vec<Diagnostic>,
}

struct Frame {
    /// Normalized path.
    path: PathBuf,
    /// The `<subtree>` that included it (`DUMMY` for the main file).
    site: Span,
}

impl<'a> Loader<'a> {
    /// A loader reading through `files`.
    pub(super) fn new(files: Files<'a>, sources: &'a mut SourceMap) -> Self {
        Loader {
            limits: files.limits(),
            files,
            sources,
            parsed: HashMap::new(),
            imports: Vec::new(),
            import_index: HashMap::new(),
            ids: Ids::default(),
            stack: Vec::new(),
            nodes: 0,
            errors: Vec::new(),
        }
    }

    /// Loads the tree whose main file is `path`: every error of the main file's elements (or,
    /// the main file being sound, of the first subtree file with such errors, each labelled
    /// with its `<subtree>`), then the one that stopped loading, if any.
    pub(super) fn load_all(mut self, path: &Path) -> crate::diag::Result<Tree> {
        let loaded = self.load(path);
        let mut errors = std::mem::take(&mut self.errors);
        match loaded {
            Ok(tree) if errors.is_empty() => Ok(tree),
            Ok(_) => Err(errors),
            Err(d) => {
                errors.push(d);
                Err(errors)
            }
        }
    }

    /// Loads the tree whose main file is `path` (its elements' errors read past go to
    /// `self.errors`, and then nothing more is built).
    fn load(&mut self, path: &Path) -> PResult<Tree> {
        self.files
            .default_root(path.parent().unwrap_or(Path::new("")));
        let src = self.files.read_main(self.sources, path)?;
        let file = Rc::new(parse_file_all(
            &src.text,
            src.id,
            self.limits,
            &mut self.errors,
        )?);
        if let Some(last) = self.errors.pop() {
            // The rules are incomplete: stop here (`load_all` puts it back last).
            return Err(last);
        }
        let key = normalize(path);
        self.parsed.insert(key.clone(), Rc::clone(&file));
        self.stack.push(Frame {
            path: key,
            site: Span::DUMMY,
        });
        let root = match file.rules.as_slice() {
            [] => {
                self.count(1, file.root_span)?;
                let mut n = NodeBuf::leaf(NodeKind::Const(Status::Failure), file.root_span);
                n.name = Some("root".to_string());
                n
            }
            [rule] => self.rule(rule, &Scope::default(), 1)?,
            [first, second, ..] => {
                return Err(Diagnostic::new(
                    ErrorKind::Syntax,
                    second.span,
                    "a behavior tree has one top-level rule; this is a second one",
                )
                .with_label(first.span, "the top-level rule")
                .with_note(
                    "wrap the rules in a `<sequence>` or `<choice>` (only subtree files may \
                     hold several top-level rules)",
                ));
            }
        };
        let root_span = root.span;
        let mut builder = TreeBuilder::new(Dialect::Dragengine);
        builder.root("main", root);
        let mut tree = builder
            .finish()
            .map_err(|msg| Diagnostic::new(ErrorKind::Syntax, root_span, msg))?;
        tree.imports = std::mem::take(&mut self.imports);
        Ok(tree)
    }

    /// Counts `n` more IR nodes for the rule at `span`.
    fn count(&mut self, n: usize, span: Span) -> PResult<()> {
        self.nodes += n;
        if self.nodes > self.limits.max_nodes {
            return Err(Diagnostic::new(
                ErrorKind::TooManyNodes,
                span,
                format!("the tree has more than {} nodes", self.limits.max_nodes),
            )
            .with_note("every `<subtree>` site builds its own copy of the subtree's rules"));
        }
        Ok(())
    }

    /// The import `name` of `kind`, recording a call with `args` arguments.
    fn import(&mut self, name: &str, kind: ImportKind, args: u8) -> ImportId {
        let key = (kind, name.to_string());
        if let Some(&i) = self.import_index.get(&key) {
            let imp = &mut self.imports[i];
            imp.min_args = imp.min_args.min(args);
            imp.max_args = imp.max_args.max(args);
            return ImportId(i as u32);
        }
        self.imports.push(Import {
            name: name.to_string(),
            kind,
            min_args: args,
            max_args: args,
            long_running: kind == ImportKind::Action,
            claims: btvm::SlotClaims::default(),
            script: None,
        });
        let i = self.imports.len() - 1;
        self.import_index.insert(key, i);
        ImportId(i as u32)
    }

    /// Builds `rule`, whose outermost node sits at `depth` (the root is 1), in `scope`.
    fn rule(&mut self, rule: &Rule, scope: &Scope, depth: u32) -> PResult<NodeBuf> {
        let guarded = match rule.kind {
            RuleKind::Action { .. } => true,
            RuleKind::Success | RuleKind::Running | RuleKind::Yield => !rule.conditions.is_empty(),
            _ => false,
        };
        let wrappers = u32::from(rule.do_not_fail) + u32::from(guarded);
        let inner = depth.saturating_add(wrappers);
        if inner > self.limits.max_depth {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                rule.span,
                format!(
                    "rules nest more than {} nodes deep here",
                    self.limits.max_depth
                ),
            )
            .with_note(
                "the depth counts through subtrees; doNotFail and an action's or a \
                 conditional leaf's guard add a node each",
            ));
        }
        self.count(1 + wrappers as usize, rule.span)?;
        let id = match &rule.id {
            Some(written) => {
                let id = scope.resolve(&written.text);
                let quirk = scope.quirk(&written.text);
                self.ids.claim(&id, &written.text, written.span, quirk)?;
                Some(id)
            }
            None => None,
        };
        let span = rule.span;
        let args: Vec<Arg> = rule
            .params
            .iter()
            .flat_map(|(n, v)| [n, v])
            .map(|s| Arg {
                name: None,
                value: Expr::Lit(Lit::Str(s.clone())),
            })
            .collect();
        // At most 2 * MAX_PARAMS = 254 arguments: the parser enforces it.
        let n_args = u8::try_from(args.len()).unwrap_or(u8::MAX);
        let leaf = |kind| NodeBuf::leaf(kind, span);
        let mut node = match &rule.kind {
            RuleKind::Action { name } => {
                let action = self.import(name, ImportKind::Action, n_args);
                let cond = match self.conditions(rule, &args, n_args) {
                    Some(c) => Expr::binary(BinOp::And, Expr::Bound(action), c),
                    None => Expr::Bound(action),
                };
                self.check_expr(&cond, rule)?;
                let call = CallExpr {
                    import: action,
                    args,
                };
                guard(cond, leaf(NodeKind::Action(call)))
            }
            RuleKind::Success => {
                self.leaf_rule(rule, &args, n_args, NodeKind::Const(Status::Success))?
            }
            RuleKind::Running => {
                self.leaf_rule(rule, &args, n_args, NodeKind::Const(Status::Running))?
            }
            RuleKind::Yield => self.leaf_rule(rule, &args, n_args, NodeKind::Yield)?,
            RuleKind::Failure => leaf(NodeKind::Const(Status::Failure)),
            RuleKind::Sequence(children) | RuleKind::Choice(children) => {
                let cond = self.conditions(rule, &args, n_args);
                if let Some(c) = &cond {
                    self.check_expr(c, rule)?;
                }
                let inner_scope = scope.list(id.as_deref());
                let mut built = Vec::with_capacity(children.len());
                for child in children {
                    built.push(self.rule(child, &inner_scope, inner + 1)?);
                }
                let c = Composite {
                    resume: Resume::Cursor,
                    looping: rule.looping,
                    cond,
                };
                let kind = if matches!(rule.kind, RuleKind::Sequence(_)) {
                    NodeKind::Sequence(c)
                } else {
                    NodeKind::Selector(c)
                };
                NodeBuf::new(kind, span, built)
            }
            RuleKind::Subtree(path) => {
                let children = self.subtree(rule, path, &scope.subtree(id.as_deref()), inner)?;
                let c = Composite {
                    resume: Resume::Cursor,
                    looping: rule.looping,
                    cond: None,
                };
                NodeBuf::new(NodeKind::Sequence(c), span, children)
            }
        };
        if rule.do_not_fail {
            let map = StatusMap {
                failure: Status::Success,
                success: Status::Success,
                running: Status::Running,
            };
            node = NodeBuf::new(NodeKind::MapStatus(map), span, vec![node]);
        }
        node.name = id;
        Ok(node)
    }

    /// `success`, `running` and `yield`: the leaf, guarded when the rule has conditions.
    fn leaf_rule(
        &mut self,
        rule: &Rule,
        args: &[Arg],
        n_args: u8,
        kind: NodeKind,
    ) -> PResult<NodeBuf> {
        let leaf = NodeBuf::leaf(kind, rule.span);
        match self.conditions(rule, args, n_args) {
            Some(cond) => {
                self.check_expr(&cond, rule)?;
                Ok(guard(cond, leaf))
            }
            None => Ok(leaf),
        }
    }

    /// The rule's condition `C` (§6.2): each condition is `@bound(f) && f(params)`, combined
    /// left to right by the rule's mode; `None` without conditions.
    fn conditions(&mut self, rule: &Rule, args: &[Arg], n_args: u8) -> Option<Expr> {
        let (negate, op) = match rule.mode {
            Mode::AllTrue => (false, BinOp::And),
            Mode::AnyTrue => (false, BinOp::Or),
            Mode::AnyFalse => (true, BinOp::Or),
            Mode::AllFalse => (true, BinOp::And),
        };
        let mut acc: Option<Expr> = None;
        for c in &rule.conditions {
            let f = self.import(&c.text, ImportKind::Function, n_args);
            let call = CallExpr {
                import: f,
                args: args.to_vec(),
            };
            let mut e = Expr::binary(BinOp::And, Expr::Bound(f), Expr::Call(call));
            if negate {
                e = Expr::Not(Box::new(e));
            }
            acc = Some(match acc {
                None => e,
                Some(a) => Expr::binary(op, a, e),
            });
        }
        acc
    }

    /// Rejects a condition expression deeper than `Limits::max_expr_depth`.
    fn check_expr(&self, e: &Expr, rule: &Rule) -> PResult<()> {
        let depth = e.depth();
        if depth > self.limits.max_expr_depth as usize {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                rule.span,
                format!(
                    "this rule's {} conditions make an expression {depth} deep; the limit is {}",
                    rule.conditions.len(),
                    self.limits.max_expr_depth
                ),
            )
            .with_note("conditions are combined left to right, one level per condition"));
        }
        Ok(())
    }

    /// The children of a `<subtree>` whose sequence sits at `depth`: the top-level rules of
    /// the file it names, built in `scope`.
    fn subtree(
        &mut self,
        rule: &Rule,
        path: &Located,
        scope: &Scope,
        depth: u32,
    ) -> PResult<Vec<NodeBuf>> {
        let including = self
            .stack
            .last()
            .map_or(Path::new(""), |f| f.path.as_path());
        let dir = including.parent().unwrap_or(Path::new(""));
        let target = self.files.resolve(dir, &path.text, path.span)?;
        if let Some(at) = self.stack.iter().position(|f| f.path == target) {
            return Err(self.cycle(at, &target, rule.span));
        }
        if self.stack.len() > self.limits.max_include_depth as usize {
            return Err(Diagnostic::new(
                ErrorKind::IncludeTooDeep,
                rule.span,
                format!(
                    "subtrees are included more than {} levels deep",
                    self.limits.max_include_depth
                ),
            ));
        }
        let site_label = |d: Diagnostic| {
            d.with_label(
                rule.span,
                format!("in subtree `{}`, included here", target.display()),
            )
        };
        let file = match self.parsed.get(&target) {
            Some(f) => Rc::clone(f),
            None => {
                let src = self
                    .files
                    .read(self.sources, &target, &path.text, path.span)
                    .map_err(|e| {
                        let d = e.diag;
                        if e.io.is_none() {
                            return match d.kind {
                                ErrorKind::OutsideRoot | ErrorKind::LoadBudget => d,
                                _ => site_label(d),
                            };
                        }
                        let d = d.with_note(
                            "a subtree path is relative to the including file's directory",
                        );
                        if path.text.trim() != path.text {
                            d.with_note(
                                "the path starts or ends with a space, which is part of the \
                                 file name: the original's whitespace cleaning keeps one \
                                 leading space when an attribute comes before the text",
                            )
                        } else {
                            d
                        }
                    })?;
                // Every error of the subtree file's elements is reported, as the main file's
                // are (each labelled with the site); then loading stops.
                let mut errors = Vec::new();
                let parsed = parse_file_all(&src.text, src.id, self.limits, &mut errors);
                self.errors.extend(
                    errors
                        .into_iter()
                        .take(self.limits.max_errors)
                        .map(site_label),
                );
                let f = Rc::new(parsed.map_err(site_label)?);
                if let Some(last) = self.errors.pop() {
                    // The rules are incomplete: stop here (`load_all` puts it back last).
                    return Err(last);
                }
                self.parsed.insert(target.clone(), Rc::clone(&f));
                f
            }
        };
        self.stack.push(Frame {
            path: target.clone(),
            site: rule.span,
        });
        let mut built = Vec::with_capacity(file.rules.len());
        let mut failed = None;
        for r in &file.rules {
            match self.rule(r, scope, depth + 1) {
                Ok(n) => built.push(n),
                Err(d) => {
                    failed = Some(d);
                    break;
                }
            }
        }
        self.stack.pop();
        match failed {
            Some(d) => Err(site_label(d)),
            None => Ok(built),
        }
    }

    /// The error for a `<subtree>` at `site` naming `target`, which is `stack[at]`.
    fn cycle(&self, at: usize, target: &Path, site: Span) -> Diagnostic {
        let chain: Vec<String> = self
            .stack
            .iter()
            .map(|f| f.path.display().to_string())
            .chain([target.display().to_string()])
            .collect();
        let mut d = Diagnostic::new(
            ErrorKind::IncludeCycle,
            site,
            format!(
                "subtree `{}` includes itself: {}",
                target.display(),
                chain[at..].join(" -> ")
            ),
        );
        for f in self.stack.iter().skip(at + 1).rev() {
            d = d.with_label(f.site, format!("`{}` is included here", f.path.display()));
        }
        d.with_note(format!("include chain: {}", chain.join(" -> ")))
            .with_note("a subtree cannot include itself, directly or through other subtrees")
    }
}

/// `guard every-tick (cond) { child }`.
fn guard(cond: Expr, child: NodeBuf) -> NodeBuf {
    let span = child.span;
    let g = Guard {
        cond,
        eval: GuardEval::EveryTick,
    };
    NodeBuf::new(NodeKind::Guard(g), span, vec![child])
}
