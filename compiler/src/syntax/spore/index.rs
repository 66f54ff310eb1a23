//! The first pass over the parsed file: the declarations. Behaviors become action imports,
//! flags and stimuli get their bits, and every decider and `children` array is indexed by name
//! (with where it was defined), so that every name is visible in the whole file. Duplicate
//! names, repeated phases, a second `root` and flag tables past 32 names are reported here.

use std::collections::HashMap;

use btvm::{Import, ImportKind};
use chumsky::span::SimpleSpan;

use super::ast::{Children, Def, Entry, File, Item, Name, Phase, Target};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{BehaviorRef, TreeBuilder};
use crate::source::{FileId, Span};

/// Where a decider is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Site {
    /// `root`.
    Root,
    /// A top-level `decider`.
    TopLevel,
    /// In a group's own block.
    Block,
    /// In a named `children` array.
    Array,
}

/// What the declarations say: the tables and the name index.
pub(super) struct Index<'a> {
    /// The file, for spans.
    pub file: FileId,
    /// Behaviors by name.
    pub behaviors: HashMap<String, BehaviorRef>,
    /// DecisionFlags bits by name.
    pub flags: HashMap<String, u32>,
    /// Stimulus bits by name.
    pub stimuli: HashMap<String, u32>,
    /// Every decider definition by name, with its site.
    pub deciders: HashMap<&'a str, (&'a Def, Site)>,
    /// Every decider definition, in source order.
    pub order: Vec<&'a Def>,
    /// Every `children` array by name.
    pub arrays: HashMap<&'a str, (&'a Name, &'a [Entry])>,
    /// Every `children` array's entries (duplicates included), in source order.
    pub all_arrays: Vec<&'a [Entry]>,
    /// The root decider.
    pub root: Option<&'a Def>,
    /// Errors found.
    pub errors: Vec<Diagnostic>,
}

impl<'a> Index<'a> {
    /// A span in the file.
    pub fn span(&self, s: SimpleSpan) -> Span {
        Span::new(self.file, s.start, s.end)
    }

    /// Records an error.
    pub fn error(&mut self, kind: ErrorKind, s: SimpleSpan, message: impl Into<String>) {
        let span = self.span(s);
        self.errors.push(Diagnostic::new(kind, span, message));
    }

    fn duplicate(&mut self, what: &str, (name, s): &Name) {
        self.error(
            ErrorKind::InvalidValue,
            *s,
            format!("{what} `{name}` is declared twice: names must be unique"),
        );
    }

    /// Indexes `def` and the deciders defined inside it (pre-order, source order).
    fn def(&mut self, def: &'a Def, site: Site) {
        let name = def.name.0.as_str();
        if self.deciders.contains_key(name) {
            self.duplicate("decider", &def.name);
        } else {
            self.deciders.insert(name, (def, site));
        }
        self.order.push(def);
        if let Target::Group {
            children: Children::Inline(entries),
            ..
        } = &def.target
        {
            self.entries(entries, Site::Block);
        }
    }

    fn entries(&mut self, entries: &'a [Entry], site: Site) {
        for e in entries {
            if let Entry::Def(d) = e {
                self.def(d, site);
            }
        }
    }

    fn flag_table(&mut self, names: &[Name], stimuli: bool, b: &mut TreeBuilder) {
        let what = if stimuli { "stimulus" } else { "decision flag" };
        for n in names {
            let table = if stimuli { &self.stimuli } else { &self.flags };
            if table.contains_key(&n.0) {
                self.duplicate(what, n);
            } else if table.len() >= 32 {
                self.error(
                    ErrorKind::InvalidValue,
                    n.1,
                    format!("more than 32 {what} names: `{}` would be bit 32", n.0),
                );
            } else {
                let bit = if stimuli {
                    b.stimulus(n.0.clone())
                } else {
                    b.flag(n.0.clone())
                };
                let table = if stimuli {
                    &mut self.stimuli
                } else {
                    &mut self.flags
                };
                table.insert(n.0.clone(), bit);
            }
        }
    }
}

/// Indexes the declarations of `ast`, adding behaviors, flags and stimuli to `b`.
pub(super) fn index<'a>(file: FileId, ast: &'a File, b: &mut TreeBuilder) -> Index<'a> {
    let mut ix = Index {
        file,
        behaviors: HashMap::new(),
        flags: HashMap::new(),
        stimuli: HashMap::new(),
        deciders: HashMap::new(),
        order: Vec::new(),
        arrays: HashMap::new(),
        all_arrays: Vec::new(),
        root: None,
        errors: Vec::new(),
    };
    let (version, vspan) = ast.version;
    if version != 1 {
        ix.error(
            ErrorKind::InvalidValue,
            vspan,
            format!("unsupported version {version}: expected `spore 1;`"),
        );
    }
    for item in &ast.items {
        match item {
            Item::Behavior(n, phases) => {
                let mut r = BehaviorRef {
                    import: btvm::ImportId(0),
                    activate: false,
                    tick: false,
                    deactivate: false,
                };
                for &(p, s) in phases {
                    let slot = match p {
                        Phase::Activate => &mut r.activate,
                        Phase::Tick => &mut r.tick,
                        Phase::Deactivate => &mut r.deactivate,
                    };
                    if *slot {
                        ix.error(
                            ErrorKind::InvalidValue,
                            s,
                            format!("behavior `{}` lists this function twice", n.0),
                        );
                    }
                    *slot = true;
                }
                if ix.behaviors.contains_key(&n.0) {
                    ix.duplicate("behavior", n);
                    continue;
                }
                r.import = b.import(Import {
                    name: n.0.clone(),
                    kind: ImportKind::Action,
                    min_args: 0,
                    max_args: 0,
                    long_running: true,
                    claims: btvm::SlotClaims::default(),
                    script: None,
                });
                ix.behaviors.insert(n.0.clone(), r);
            }
            Item::Flags(names) => ix.flag_table(names, false, b),
            Item::Stimuli(names) => ix.flag_table(names, true, b),
            Item::Root(kw, def) => {
                if ix.root.is_some() {
                    ix.error(
                        ErrorKind::InvalidValue,
                        *kw,
                        "a second `root`: a file has exactly one",
                    );
                } else {
                    ix.root = Some(def);
                }
                ix.def(def, Site::Root);
            }
            Item::Decider(def) => ix.def(def, Site::TopLevel),
            Item::Children(n, entries) => {
                if ix.arrays.contains_key(n.0.as_str()) {
                    ix.duplicate("children array", n);
                } else {
                    ix.arrays.insert(n.0.as_str(), (n, entries));
                }
                ix.all_arrays.push(entries);
                ix.entries(entries, Site::Array);
            }
        }
    }
    ix
}
