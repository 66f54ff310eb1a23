//! The loader: reads the main file and every `behavior` it includes, and assembles the tree.
//!
//! - `behavior NAME` loads `NAME.bt` from the directory of the including file (the exact name
//!   first, then a case-insensitive match among the directory's files).
//! - Behaviors are cached by case-insensitive name: every include of one behavior, from any
//!   file, is the same shared subtree, as in the game (`Sharing::Shared`). A subtree is
//!   declared before its file is parsed and defined after, so an include that finds a declared
//!   but undefined subtree (or the main file's own name) is a cycle ("recursive behavior").
//! - Each behavior file is preprocessed on its own: it starts with only the predefined
//!   symbols. Its `selectClass` block is parsed (errors count) and dropped.
//! - Include chains are bounded by `Limits::max_include_depth`, node nesting through includes
//!   by `Limits::max_depth`, the node count by `Limits::max_nodes`.
//! - An error inside an included file fails the whole load; it keeps its position in that file
//!   and gets a label at each `behavior` node that led there.
//!
//! This file never tokenizes or parses by itself; it drives the preprocessor and the parser.

use std::path::{Path, PathBuf};

use btvm::{Import, ImportId, Limits};

use super::files::{read_source, Files, SourceText};
use super::parser::{parse_file, Env, FileTree, Game, PResult};
use super::preprocess::{preprocess, PpContext};
use super::token::Token;
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Dialect, Sharing, SubtreeId, Tree, TreeBuilder};
use crate::source::{SourceMap, Span};

/// Loads trees; one loader per [`super::load`] call.
pub(super) struct Loader<'a> {
    /// The game's vocabulary.
    game: Game<'a>,
    files: Files<'a>,
    limits: &'a Limits,
    sources: &'a mut SourceMap,
    builder: TreeBuilder,
    /// Behaviors seen so far.
    behaviors: Vec<Behavior>,
    /// The main file's name, lower-cased (including it is a cycle).
    main_key: String,
    /// Files being parsed, the main file first.
    stack: Vec<Frame>,
    /// Nodes built so far.
    nodes: usize,
    /// What the game logs while loading anyway.
    warnings: &'a mut Vec<Diagnostic>,
    /// Errors the parser went on after (an unknown name), in the order found.
    errors: Vec<Diagnostic>,
}

struct Behavior {
    /// Lower-cased name.
    key: String,
    id: SubtreeId,
    /// Height once parsed; `None` while its file is being read.
    height: Option<u32>,
}

struct Frame {
    path: PathBuf,
    /// The `behavior` node that included this file (`DUMMY` for the main file).
    site: Span,
}

impl<'a> Loader<'a> {
    /// A loader reading through `files`.
    pub(super) fn new(
        files: Files<'a>,
        game: Game<'a>,
        sources: &'a mut SourceMap,
        warnings: &'a mut Vec<Diagnostic>,
    ) -> Self {
        Loader {
            game,
            limits: files.limits(),
            files,
            sources,
            builder: TreeBuilder::new(Dialect::Unvanquished),
            behaviors: Vec::new(),
            main_key: String::new(),
            stack: Vec::new(),
            nodes: 0,
            warnings,
            errors: Vec::new(),
        }
    }

    /// Loads the tree whose main file is `path`: every error the parser went on after, then
    /// the one that stopped it, if any (the game itself stops at the first).
    pub(super) fn load_all(mut self, path: &Path) -> crate::diag::Result<Tree> {
        let parsed = self.load_parsed(path);
        let mut errors = std::mem::take(&mut self.errors);
        let stopped = match parsed {
            // With errors already, the tree has placeholders: do not build it.
            Ok(_) if !errors.is_empty() => None,
            Ok((builder, root_span)) => match builder.finish() {
                Ok(tree) => return Ok(tree),
                Err(msg) => Some(Diagnostic::new(ErrorKind::Syntax, root_span, msg)),
            },
            Err(d) => Some(d),
        };
        errors.extend(stopped);
        Err(errors)
    }

    /// Parses the tree whose main file is `path` into the builder (returned with the main
    /// root's span, to be finished).
    fn load_parsed(&mut self, path: &Path) -> PResult<(TreeBuilder, Span)> {
        self.files.default_root(&game_root(path));
        let shown = path.display().to_string();
        let file = read_source(&self.files, self.sources, path, &shown, Span::DUMMY)?;
        self.main_key = behavior_key(&file.path);
        self.stack.push(Frame {
            path: file.path.clone(),
            site: Span::DUMMY,
        });
        let tree = self.parse(&file, 1)?;
        let root_span = tree.root.span;
        self.builder.root("main", tree.root);
        if let Some(sc) = tree.select_class {
            self.builder.root("selectClass", sc);
        }
        let builder = std::mem::replace(&mut self.builder, TreeBuilder::new(Dialect::Unvanquished));
        Ok((builder, root_span))
    }

    /// Preprocesses and parses one file whose root sits at `base_depth`.
    fn parse(&mut self, file: &SourceText, base_depth: u32) -> PResult<FileTree> {
        let main = self
            .stack
            .first()
            .map_or(file.path.as_path(), |f| f.path.as_path());
        let root = game_root(main);
        let ctx = PpContext {
            files: &self.files,
            limits: self.limits,
            sources: &mut *self.sources,
            symbols: self.game.vocab.symbols(),
            include_depth: self.stack.len().saturating_sub(1) as u32,
            root: &root,
        };
        let mut pre = preprocess(ctx, file)?;
        self.warnings.append(&mut pre.warnings);
        let limits = *self.limits;
        let game = self.game;
        parse_file(&pre.tokens, pre.eof, base_depth, limits, game, self)
    }

    /// `recursive behavior NAME`, with the include chain.
    fn cycle(&self, name: &str, site: Span) -> Diagnostic {
        let mut d = Diagnostic::new(
            ErrorKind::IncludeCycle,
            site,
            format!("recursive behavior `{name}`"),
        );
        for f in self.stack.iter().skip(1).rev() {
            d = d.with_label(f.site, format!("`{}` is included here", f.path.display()));
        }
        let chain: Vec<String> = self
            .stack
            .iter()
            .map(|f| f.path.display().to_string())
            .chain([format!("{name}.bt")])
            .collect();
        d.with_note(format!("include chain: {}", chain.join(" -> ")))
            .with_note("a behavior cannot include itself, directly or through other behaviors")
    }
}

impl Env for Loader<'_> {
    fn import(&mut self, import: Import) -> ImportId {
        self.builder.import(import)
    }

    fn warn(&mut self, warning: Diagnostic) {
        self.warnings.push(warning);
    }

    fn error(&mut self, error: Diagnostic) -> PResult<()> {
        let labelled = self.stack.iter().skip(1).rev().fold(error, |d, f| {
            d.with_label(f.site, format!("in `{}`, included here", f.path.display()))
        });
        if self.errors.len() >= self.limits.max_errors {
            return Err(labelled);
        }
        self.errors.push(labelled);
        Ok(())
    }

    fn count_node(&mut self, span: Span) -> PResult<()> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(Diagnostic::new(
                ErrorKind::TooManyNodes,
                span,
                format!("the tree has more than {} nodes", self.limits.max_nodes),
            ));
        }
        Ok(())
    }

    fn include(&mut self, name_tok: &Token, site: Span, depth: u32) -> PResult<(SubtreeId, u32)> {
        let name = name_tok.game_text();
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0', ':']) {
            // **Divergence**: the game would read `bots/NAME.bt` for any text, even one naming
            // another directory; btvm loads behaviors only from the tree's own directory.
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                name_tok.span,
                format!("`{name}` is not a behavior file name"),
            )
            .with_note("btvm loads `behavior NAME` only as `NAME.bt` beside the main tree"));
        }
        let key = name.to_ascii_lowercase();
        if key == self.main_key {
            return Err(self.cycle(&name, site));
        }
        if let Some(b) = self.behaviors.iter().find(|b| b.key == key) {
            let Some(height) = b.height else {
                return Err(self.cycle(&name, site));
            };
            if depth.saturating_add(height) > self.limits.max_depth {
                return Err(Diagnostic::new(
                    ErrorKind::NestTooDeep,
                    site,
                    format!(
                        "including `{name}` here nests nodes deeper than {} levels",
                        self.limits.max_depth
                    ),
                )
                .with_note(format!("`{name}` is {height} levels deep")));
            }
            return Ok((b.id, height));
        }
        if self.stack.len() > self.limits.max_include_depth as usize {
            return Err(Diagnostic::new(
                ErrorKind::IncludeTooDeep,
                site,
                format!(
                    "behaviors are included more than {} levels deep",
                    self.limits.max_include_depth
                ),
            ));
        }
        let dir = self
            .stack
            .last()
            .and_then(|f| f.path.parent())
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let written = format!("{name}.bt");
        let path = self.files.resolve(&dir, &written, name_tok.span)?;
        let file = read_source(&self.files, self.sources, &path, &written, site).map_err(|d| {
            if matches!(d.kind, ErrorKind::OutsideRoot | ErrorKind::LoadBudget) {
                d
            } else if d.kind == ErrorKind::Io {
                d.with_note(format!(
                    "`behavior {name}` loads `{name}.bt` from the including file's directory"
                ))
            } else {
                d.with_label(site, format!("in behavior `{name}`, included here"))
            }
        })?;
        let id =
            self.builder
                .declare_subtree(name.clone(), Sharing::Shared, Span::new(file.id, 0, 0));
        self.behaviors.push(Behavior {
            key: key.clone(),
            id,
            height: None,
        });
        self.stack.push(Frame {
            path: file.path.clone(),
            site,
        });
        let parsed = self.parse(&file, depth + 1);
        self.stack.pop();
        let tree = parsed
            .map_err(|d| d.with_label(site, format!("in behavior `{name}`, included here")))?;
        self.builder.define_subtree(id, tree.root);
        if let Some(b) = self.behaviors.iter_mut().find(|b| b.key == key) {
            b.height = Some(tree.height);
        }
        Ok((id, tree.height))
    }
}

/// The game's file-system root for a tree whose main file is `main`: the directory above the
/// main file's (the game reads `bots/NAME.bt` from its root). **Definition**: btvm has no game
/// installation, so the tree's own location stands for it. It is also the default root the
/// load's files are confined to (`LoadOptions::root`).
fn game_root(main: &Path) -> PathBuf {
    let dir = main.parent().unwrap_or(Path::new(""));
    dir.parent().unwrap_or(dir).to_path_buf()
}

/// The cache key of a behavior file: its stem, lower-cased.
fn behavior_key(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}
