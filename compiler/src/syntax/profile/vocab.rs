//! What a game profile declares, per dialect: the Unvanquished [`Vocabulary`] (actions,
//! condition functions, symbols) and the MBT [`MbtNodes`] (the node tags a game registers), with
//! their lookups and the bounded typo suggestion [`closest`].
//!
//! This file only holds data and lookups: it never reads files and never parses.

use std::collections::HashMap;

use btvm::{Import, ImportKind, SlotClaims};

/// A predefined integer symbol (an object-like macro expanding to its value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The macro name (case-sensitive).
    pub name: String,
    /// Its value.
    pub value: i32,
}

/// A host action a tree may call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionDef {
    /// The game's spelling.
    pub name: String,
    /// Fewest parameters.
    pub min_args: u8,
    /// Most parameters.
    pub max_args: u8,
    /// Whether the action can return running.
    pub long_running: bool,
    /// When the action claims the current-action slot itself (`spec/profiles.md`).
    pub claims: SlotClaims,
}

impl ActionDef {
    /// The import a tree calling this action gets.
    pub fn import(&self) -> Import {
        Import {
            name: self.name.clone(),
            kind: ImportKind::Action,
            min_args: self.min_args,
            max_args: self.max_args,
            long_running: self.long_running,
            claims: self.claims,
            script: None,
        }
    }
}

/// A condition function a tree may call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionDef {
    /// The game's spelling.
    pub name: String,
    /// The exact number of parameters.
    pub arity: u8,
}

impl FunctionDef {
    /// The import a tree calling this function gets.
    pub fn import(&self) -> Import {
        Import {
            name: self.name.clone(),
            kind: ImportKind::Function,
            min_args: self.arity,
            max_args: self.arity,
            long_running: false,
            claims: SlotClaims::default(),
            script: None,
        }
    }
}

/// An Unvanquished game's vocabulary: its actions and condition functions (matched
/// case-insensitively, as the game does) and its predefined symbols (case-sensitive).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vocabulary {
    actions: Vec<ActionDef>,
    functions: Vec<FunctionDef>,
    symbols: Vec<Symbol>,
    /// Lower-cased action name to its index.
    action_index: HashMap<String, usize>,
    /// Lower-cased function name to its index.
    function_index: HashMap<String, usize>,
    /// Symbol name to its index.
    symbol_index: HashMap<String, usize>,
}

impl Vocabulary {
    /// Adds an action; `false` (and nothing added) if one of that name (in any case) exists.
    pub(super) fn add_action(&mut self, def: ActionDef) -> bool {
        let key = def.name.to_ascii_lowercase();
        if self.action_index.contains_key(&key) {
            return false;
        }
        self.action_index.insert(key, self.actions.len());
        self.actions.push(def);
        true
    }

    /// Adds a function; `false` (and nothing added) if one of that name (in any case) exists.
    pub(super) fn add_function(&mut self, def: FunctionDef) -> bool {
        let key = def.name.to_ascii_lowercase();
        if self.function_index.contains_key(&key) {
            return false;
        }
        self.function_index.insert(key, self.functions.len());
        self.functions.push(def);
        true
    }

    /// Adds a symbol; `false` (and nothing added) if one of exactly that name exists.
    pub(super) fn add_symbol(&mut self, sym: Symbol) -> bool {
        if self.symbol_index.contains_key(&sym.name) {
            return false;
        }
        self.symbol_index
            .insert(sym.name.clone(), self.symbols.len());
        self.symbols.push(sym);
        true
    }

    /// The actions, in declaration order.
    pub fn actions(&self) -> &[ActionDef] {
        &self.actions
    }

    /// The condition functions, in declaration order.
    pub fn functions(&self) -> &[FunctionDef] {
        &self.functions
    }

    /// The predefined symbols, in declaration order.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The action called `name` (case-insensitive).
    pub fn action(&self, name: &str) -> Option<&ActionDef> {
        let i = *self.action_index.get(&name.to_ascii_lowercase())?;
        self.actions.get(i)
    }

    /// The condition function called `name` (case-insensitive).
    pub fn function(&self, name: &str) -> Option<&FunctionDef> {
        let i = *self.function_index.get(&name.to_ascii_lowercase())?;
        self.functions.get(i)
    }

    /// The value of the symbol called exactly `name`.
    pub fn symbol(&self, name: &str) -> Option<i32> {
        let i = *self.symbol_index.get(name)?;
        self.symbols.get(i).map(|s| s.value)
    }
}

/// What an MBT node tag of a profile is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbtNode {
    /// A leaf: a host action whose arguments are the element's attributes.
    Leaf,
    /// A wrapper: calls its action on enter and exit around its one child.
    Wrapper,
}

/// The node tags a game registers for MBT trees, and whether the loader is lenient.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MbtNodes {
    /// Every tag (case-sensitive) with what it is, in declaration order.
    tags: Vec<(String, MbtNode)>,
    /// Tag to its index.
    index: HashMap<String, usize>,
    /// Unknown attributes and sections are ignored instead of being errors (CRYENGINE's own
    /// leniency, `spec/mbt.md` section 1.4).
    pub lenient: bool,
}

impl MbtNodes {
    /// Adds a tag; `false` (and nothing added) if it exists.
    pub(super) fn add(&mut self, tag: String, node: MbtNode) -> bool {
        if self.index.contains_key(&tag) {
            return false;
        }
        self.index.insert(tag.clone(), self.tags.len());
        self.tags.push((tag, node));
        true
    }

    /// The tag called exactly `tag`, if declared.
    pub fn lookup(&self, tag: &str) -> Option<MbtNode> {
        let i = *self.index.get(tag)?;
        self.tags.get(i).map(|&(_, n)| n)
    }

    /// Every tag with what it is, in declaration order.
    pub fn tags(&self) -> impl Iterator<Item = (&str, MbtNode)> {
        self.tags.iter().map(|(t, n)| (t.as_str(), *n))
    }
}

/// Names longer than this many characters get no suggestion (no known name is that long, and
/// an attacker's megabyte-long name must not cost a quadratic search).
const MAX_SUGGESTED_NAME: usize = 64;

/// Candidates examined at most for one suggestion.
const MAX_CANDIDATES: usize = 4096;

/// The candidate closest to `name` (case-insensitive edit distance), if it is close enough to
/// be a likely typo: at most 1 edit for names up to 4 characters, 2 up to 8, 3 beyond. The
/// search is bounded: no suggestion for a name over 64 characters, only candidates whose
/// length is within the edit budget are compared, and at most 4,096 are looked at.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if name.len() > 4 * MAX_SUGGESTED_NAME {
        return None;
    }
    let len = name.chars().count();
    if len > MAX_SUGGESTED_NAME {
        return None;
    }
    let budget = match len {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let needle: Vec<char> = name.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates.into_iter().take(MAX_CANDIDATES) {
        if cand.len() > 4 * (len + budget) || cand.chars().count().abs_diff(len) > budget {
            continue;
        }
        let d = edit_distance(&needle, cand);
        if d <= budget && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance between `a` (already lower-cased) and `b` (lower-cased here).
fn edit_distance(a: &[char], b: &str) -> usize {
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}
