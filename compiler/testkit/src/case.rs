//! Conformance case files (`spec/cases/README.md`): a tree, a scenario and the expected trace,
//! or the error loading must give.

use std::path::{Path, PathBuf};

use btvm_compiler::scenario::{parse_scenario, Trace};

use crate::compare::Contender;
use crate::nodes::{check_nesting, without_node_lines, Nesting};
use btvm_compiler::diag::Diagnostic;
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::load::{load_reporting, Format, LoadOptions, Loaded, Profile};
use btvm_compiler::source::{MemFs, SourceMap};

/// What a case expects.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseExpectation {
    /// Run the scenario; the trace must equal this.
    Trace {
        /// The scenario text.
        scenario: String,
        /// The expected trace.
        trace: Trace,
    },
    /// Loading must fail with a diagnostic of this kind (the `ErrorKind` variant name), whose
    /// message contains the optional text.
    Error {
        /// The `ErrorKind` name, e.g. `IncludeCycle`.
        kind: String,
        /// Text the message must contain.
        contains: Option<String>,
    },
}

/// A parsed case file.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseFile {
    /// The format of the main tree.
    pub format: Format,
    /// The game profile (`--- tree mbt gamesdk`), if any.
    pub profile: Option<Profile>,
    /// The main tree's text.
    pub tree: String,
    /// Further files (name, text) in the same virtual directory.
    pub files: Vec<(String, String)>,
    /// What the case expects.
    pub expect: CaseExpectation,
    /// The warnings loading must give, in order: each a kind (the `ErrorKind` name) and
    /// optional text its message contains (`--- warning KIND`, repeatable). A case without
    /// them must load without warnings.
    pub warnings: Vec<(String, Option<String>)>,
    /// The scenario's lints (`btvm_compiler::scenario::lint`: names it gives that the tree
    /// never uses), in order, each with optional text its message contains (`---
    /// scenario-warning`, repeatable). A case without them must lint clean.
    pub scenario_warnings: Vec<Option<String>>,
}

/// A case with its path, ready to run.
#[derive(Clone, Debug)]
pub struct Case {
    /// Where the case came from.
    pub path: PathBuf,
    /// The case.
    pub file: CaseFile,
}

const DIR: &str = "/case";

impl CaseFile {
    /// Parses the text of a case file.
    pub fn parse(text: &str) -> Result<CaseFile, String> {
        let mut sections: Vec<(String, String)> = Vec::new();
        for line in text.split_inclusive('\n') {
            if let Some(head) = line.strip_prefix("--- ") {
                sections.push((head.trim().to_string(), String::new()));
            } else if let Some((_, body)) = sections.last_mut() {
                body.push_str(line);
            }
        }
        let mut tree = None;
        let mut profile = None;
        let mut files = Vec::new();
        let mut scenario = None;
        let mut trace = None;
        let mut error = None;
        let mut warnings = Vec::new();
        let mut scenario_warnings = Vec::new();
        let first_line = |body: &str| {
            body.lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string)
        };
        for (head, body) in sections {
            let mut words = head.split_whitespace();
            match (words.next(), words.next()) {
                (Some("tree"), Some(fmt)) => {
                    let format =
                        Format::from_name(fmt).ok_or_else(|| format!("unknown format `{fmt}`"))?;
                    profile = match words.next() {
                        None => None,
                        Some(p) => Some(
                            Profile::builtin(p).ok_or_else(|| format!("unknown profile `{p}`"))?,
                        ),
                    };
                    tree = Some((format, body));
                }
                (Some("file"), Some(name)) => files.push((name.to_string(), body)),
                (Some("scenario"), None) => scenario = Some(body),
                (Some("trace"), None) => trace = Some(Trace::parse_expected(&body)),
                (Some("error"), Some(kind)) => {
                    error = Some(CaseExpectation::Error {
                        kind: kind.to_string(),
                        contains: first_line(&body),
                    });
                }
                (Some("warning"), Some(kind)) => {
                    warnings.push((kind.to_string(), first_line(&body)))
                }
                (Some("scenario-warning"), None) => scenario_warnings.push(first_line(&body)),
                _ => return Err(format!("unknown section `--- {head}`")),
            }
        }
        let (format, tree) = tree.ok_or("missing `--- tree FORMAT` section")?;
        let expect =
            match (error, scenario, trace) {
                (Some(e), None, None) => e,
                (None, Some(scenario), Some(trace)) => CaseExpectation::Trace { scenario, trace },
                _ => return Err(
                    "a case needs either `--- error KIND` or both `--- scenario` and `--- trace`"
                        .into(),
                ),
            };
        Ok(CaseFile {
            format,
            profile,
            tree,
            files,
            expect,
            warnings,
            scenario_warnings,
        })
    }

    /// The virtual directory of the case's files: `/bots` for Unvanquished trees (the game
    /// reads them from `bots/` under its root, which `#include` names start from), else `/case`.
    pub fn dir(&self) -> &'static Path {
        Path::new(match self.format {
            Format::Dialect(btvm_compiler::ir::Dialect::Unvanquished) => "/bots",
            _ => DIR,
        })
    }

    /// The virtual path of the main tree.
    pub fn main_path(&self) -> PathBuf {
        let ext = match self.format {
            Format::Canonical => "btn",
            Format::Dialect(btvm_compiler::ir::Dialect::Unvanquished) => "bt",
            Format::Dialect(btvm_compiler::ir::Dialect::Dragengine) => "debt",
            Format::Dialect(btvm_compiler::ir::Dialect::Spore) => "spore",
            Format::Dialect(_) => "xml",
        };
        self.dir().join(format!("main.{ext}"))
    }

    /// Loads the case's tree (its files in a memory file system, its format and profile),
    /// with the warnings loading gave, its sources in `sources`.
    pub fn load(&self, sources: &mut SourceMap) -> btvm_compiler::diag::Result<Loaded> {
        let mut fs = MemFs::new();
        fs.insert(self.main_path(), self.tree.as_bytes());
        for (name, text) in &self.files {
            fs.insert(self.dir().join(name), text.as_bytes());
        }
        let options = LoadOptions {
            format: Some(self.format),
            profile: self.profile.clone(),
            ..LoadOptions::default()
        };
        load_reporting(&self.main_path(), &fs, &options, sources)
    }

    /// Runs the case on `engine`; `Err` describes the mismatch. A case whose scenario says
    /// `trace nodes` must also nest its node events ([`check_nesting`]).
    pub fn run(&self, engine: Contender) -> Result<(), String> {
        self.run_as(engine, false)
    }

    /// Runs a trace case on `engine` with node-level tracing on (`trace nodes`) and checks
    /// that the host calls are the expected trace (the node events removed) and that the node
    /// events nest ([`check_nesting`]): tracing must change nothing else. A model whose tracing
    /// is not implemented yet (the engine refuses with `Unsupported`) passes.
    pub fn run_with_node_trace(&self, engine: Contender) -> Result<(), String> {
        self.run_as(engine, true)
    }

    fn run_as(&self, engine: Contender, retrace: bool) -> Result<(), String> {
        let mut sources = SourceMap::new();
        let loaded = self.load(&mut sources);
        let render = |ds: &[Diagnostic], sources: &SourceMap| {
            ds.iter()
                .map(|d| format!("{:?}: {}", d.kind, d.display(sources)))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let found = match &loaded {
            Ok(l) => l.warnings.clone(),
            Err(ds) => ds.iter().filter(|d| d.is_warning()).cloned().collect(),
        };
        let matches = |(kind, contains): &(String, Option<String>), d: &Diagnostic| {
            format!("{:?}", d.kind) == *kind
                && contains
                    .as_ref()
                    .is_none_or(|c| d.message.contains(c.as_str()))
        };
        if found.len() != self.warnings.len()
            || !self.warnings.iter().zip(&found).all(|(w, d)| matches(w, d))
        {
            return Err(format!(
                "expected the warnings {:?}, got:\n{}",
                self.warnings,
                render(&found, &sources)
            ));
        }
        match (&self.expect, loaded.map(|l| l.tree)) {
            (CaseExpectation::Error { kind, contains }, Err(ds)) => {
                let hit = ds.iter().filter(|d| !d.is_warning()).any(|d| {
                    format!("{:?}", d.kind) == *kind
                        && contains
                            .as_ref()
                            .is_none_or(|c| d.message.contains(c.as_str()))
                });
                if hit {
                    Ok(())
                } else {
                    Err(format!(
                        "expected a {kind} error{}, got:\n{}",
                        contains
                            .as_ref()
                            .map(|c| format!(" containing `{c}`"))
                            .unwrap_or_default(),
                        render(&ds, &sources)
                    ))
                }
            }
            (CaseExpectation::Error { kind, .. }, Ok(_)) => {
                Err(format!("expected a {kind} error, but the tree loaded"))
            }
            (CaseExpectation::Trace { .. }, Err(ds)) => Err(format!(
                "the tree failed to load:\n{}",
                render(&ds, &sources)
            )),
            (CaseExpectation::Trace { scenario, trace }, Ok(tree)) => {
                let file = sources.add("/case/scenario", scenario.clone());
                let mut scn = parse_scenario(file, scenario)
                    .map_err(|ds| format!("bad scenario:\n{}", render(&ds, &sources)))?;
                // A scenario naming what the tree never uses is a typo, unless the case
                // says so (`--- scenario-warning`).
                let lints = btvm_compiler::scenario::lint(&scn, &tree);
                let expected = &self.scenario_warnings;
                if lints.len() != expected.len()
                    || !expected
                        .iter()
                        .zip(&lints)
                        .all(|(c, d)| c.as_ref().is_none_or(|c| d.message.contains(c.as_str())))
                {
                    return Err(format!(
                        "expected the scenario warnings {expected:?}, got:\n{}",
                        render(&lints, &sources)
                    ));
                }
                // A case that traces nodes itself expects them; others get them stripped.
                let strip = retrace && !scn.trace_nodes;
                let traced = scn.trace_nodes || retrace;
                scn.trace_nodes = traced;
                let actual = match engine.run(&tree, &scn) {
                    Err(d) if retrace && d.kind == ErrorKind::Unsupported => return Ok(()),
                    r => r.map_err(|d| format!("the engine failed: {}", d.display(&sources)))?,
                };
                if traced {
                    check_nesting(&actual, Nesting::of(&tree))
                        .map_err(|e| format!("{e}\nfull trace:\n{actual}"))?;
                }
                let actual = if strip {
                    without_node_lines(&actual)
                } else {
                    actual
                };
                match trace.diff(&actual) {
                    None => Ok(()),
                    Some(d) => Err(format!("{d}\nfull actual trace:\n{actual}")),
                }
            }
        }
    }
}

impl Case {
    /// Reads and parses a case file from disk.
    pub fn read(path: &Path) -> Result<Case, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = CaseFile::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Case {
            path: path.to_path_buf(),
            file,
        })
    }
}
