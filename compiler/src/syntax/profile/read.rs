//! Reading a profile file: TOML text to a profile's data, every problem a positioned
//! [`Diagnostic`] (`spec/profiles.md` section 3).
//!
//! The TOML parser (the `toml` crate's span-keeping `DeTable`, no serde) bounds its own
//! nesting; this reader walks only the fixed depth of the format (document, dialect section,
//! table of entries, entry), refuses every key it does not know, and counts entries against
//! `Limits::max_profile_entries`. It never reads files and never panics on input.

use std::ops::Range;
use std::path::Path;

use btvm::{Limits, SlotClaims};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::vocab::{ActionDef, FunctionDef, MbtNode, MbtNodes, Symbol, Vocabulary};
use super::{Data, Profile};
use crate::diag::{safe_text, Diagnostic, ErrorKind};
use crate::source::{FileId, SourceMap, Span};

/// Errors reported at most for one file.
const MAX_ERRORS: usize = 32;

/// Longest name (action, function, symbol, tag) a profile may declare, in bytes.
const MAX_NAME: usize = 128;

/// Registers `text` in `sources` as `path` and parses it.
pub(super) fn parse(
    text: &str,
    path: &Path,
    limits: &Limits,
    sources: &mut SourceMap,
) -> crate::diag::Result<Data> {
    let id = sources
        .add_checked(path, text.as_bytes().to_vec(), limits.max_source_bytes)
        .map_err(|d| vec![d])?;
    parse_registered(text, id, limits, path)
}

/// Parses `text`, already registered in the source map as `file` (from `path`).
pub(super) fn parse_registered(
    text: &str,
    file: FileId,
    limits: &Limits,
    path: &Path,
) -> crate::diag::Result<Data> {
    let (doc, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .take(MAX_ERRORS)
            .map(|e| {
                let span = e.span().unwrap_or(0..0);
                Diagnostic::new(
                    ErrorKind::Syntax,
                    Span::new(file, span.start, span.end),
                    format!("profile is not valid TOML: {}", safe_text(e.message())),
                )
            })
            .collect());
    }
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("profile");
    let mut r = Reader {
        file,
        errors: Vec::new(),
        entries: 0,
        max_entries: limits.max_profile_entries,
    };
    let data = r.document(doc.get_ref(), stem);
    if r.errors.is_empty() {
        Ok(data)
    } else {
        Err(r.errors)
    }
}

/// A TOML value with its byte range.
type Val<'i> = Spanned<DeValue<'i>>;

/// The walk over one file, collecting errors.
struct Reader {
    file: FileId,
    errors: Vec<Diagnostic>,
    entries: usize,
    max_entries: usize,
}

impl Reader {
    fn span(&self, r: Range<usize>) -> Span {
        Span::new(self.file, r.start, r.end)
    }

    fn error(&mut self, kind: ErrorKind, at: Range<usize>, msg: String) {
        if self.errors.len() < MAX_ERRORS {
            let d = Diagnostic::new(kind, self.span(at), msg);
            self.errors.push(d);
        }
    }

    /// Whether to stop: too many errors, or too many entries (reported once).
    fn full(&self) -> bool {
        self.errors.len() >= MAX_ERRORS || self.entries > self.max_entries
    }

    /// Counts one entry at `at`; `false` once past the limit.
    fn count(&mut self, at: Range<usize>) -> bool {
        self.entries += 1;
        if self.entries == self.max_entries + 1 {
            let max = self.max_entries;
            self.error(
                ErrorKind::LimitExceeded,
                at,
                format!(
                    "the profile declares more than {max} entries (`Limits::max_profile_entries`)"
                ),
            );
        }
        self.entries <= self.max_entries
    }

    /// Reports every key of `table` not in `known` (`what` names the table).
    fn only(&mut self, table: &DeTable<'_>, known: &[&str], what: &str) {
        for key in table.keys() {
            if !known.contains(&key.get_ref().as_ref()) {
                let msg = format!(
                    "unknown key `{}` in {what}; expected one of: {}",
                    safe_text(key.get_ref()),
                    known.join(", ")
                );
                self.error(ErrorKind::UnknownName, key.span(), msg);
            }
        }
    }

    /// `v` as a table, or an error saying what was expected.
    fn table<'a, 'i>(&mut self, v: &'a Val<'i>, what: &str) -> Option<&'a DeTable<'i>> {
        let t = v.get_ref().as_table();
        if t.is_none() {
            self.wrong_type(v, what, "a table");
        }
        t
    }

    fn wrong_type(&mut self, v: &Val<'_>, what: &str, expected: &str) {
        let msg = format!("{what} must be {expected}, not {}", v.get_ref().type_str());
        self.error(ErrorKind::InvalidValue, v.span(), msg);
    }

    /// `v` as a string.
    fn string<'a>(&mut self, v: &'a Val<'_>, what: &str) -> Option<&'a str> {
        let s = v.get_ref().as_str();
        if s.is_none() {
            self.wrong_type(v, what, "a string");
        }
        s
    }

    /// `v` as a boolean.
    fn boolean(&mut self, v: &Val<'_>, what: &str) -> Option<bool> {
        let b = v.get_ref().as_bool();
        if b.is_none() {
            self.wrong_type(v, what, "true or false");
        }
        b
    }

    /// `v` as an integer in `min..=max`.
    fn integer(&mut self, v: &Val<'_>, what: &str, min: i64, max: i64) -> Option<i64> {
        let Some(i) = v.get_ref().as_integer() else {
            self.wrong_type(v, what, "an integer");
            return None;
        };
        match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) if (min..=max).contains(&n) => Some(n),
            _ => {
                let msg = format!("{what} must be from {min} to {max}");
                self.error(ErrorKind::InvalidValue, v.span(), msg);
                None
            }
        }
    }

    /// Checks a declared name: 1 to 128 bytes, a letter or `_` first, then letters, digits,
    /// `_` (and, for MBT tags, `-` and `.`).
    fn name_ok(&mut self, name: &str, at: Range<usize>, tag: bool) -> bool {
        let first_ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        let rest_ok = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || (tag && (c == '-' || c == '.')));
        if first_ok && rest_ok && name.len() <= MAX_NAME {
            return true;
        }
        let allowed = if tag { ", `-`, `.`" } else { "" };
        let msg = format!(
            "`{}` is not a valid name: a letter or `_`, then letters, digits, `_`{allowed} \
             (at most {MAX_NAME} bytes)",
            safe_text(name)
        );
        self.error(ErrorKind::InvalidValue, at, msg);
        false
    }

    fn duplicate(&mut self, what: &str, name: &str, at: Range<usize>) {
        let msg = format!("{what} `{}` is declared twice", safe_text(name));
        self.error(ErrorKind::InvalidValue, at, msg);
    }

    /// The whole document.
    fn document(&mut self, doc: &DeTable<'_>, stem: &str) -> Data {
        self.only(
            doc,
            &["name", "extends", "unvanquished", "mbt"],
            "the profile",
        );
        let mut data = Data {
            name: stem.to_string(),
            ..Data::default()
        };
        if let Some(v) = doc.get("extends") {
            if let Some(base) = self.string(v, "`extends`") {
                match Profile::builtin(base) {
                    Some(p) => data = (*p.0).clone(),
                    None => {
                        let msg = format!(
                            "`extends` names no built-in profile: `{}` (built-in: {})",
                            safe_text(base),
                            Profile::NAMES.join(", ")
                        );
                        self.error(ErrorKind::UnknownName, v.span(), msg);
                    }
                }
            }
        }
        data.name = stem.to_string();
        if let Some(v) = doc.get("name") {
            if let Some(n) = self.string(v, "`name`") {
                if self.name_ok(n, v.span(), true) {
                    data.name = n.to_string();
                }
            }
        }
        if let Some(t) = doc
            .get("unvanquished")
            .and_then(|v| self.table(v, "`unvanquished`"))
        {
            let mut vocab = data.unvanquished.take().unwrap_or_default();
            self.unvanquished(t, &mut vocab);
            data.unvanquished = Some(vocab);
        }
        if let Some(t) = doc.get("mbt").and_then(|v| self.table(v, "`mbt`")) {
            let mut nodes = data.mbt.take().unwrap_or_default();
            self.mbt(t, &mut nodes);
            data.mbt = Some(nodes);
        }
        data
    }

    /// `[unvanquished]`: actions, functions, symbols.
    fn unvanquished(&mut self, t: &DeTable<'_>, vocab: &mut Vocabulary) {
        self.only(t, &["actions", "functions", "symbols"], "[unvanquished]");
        let section = |r: &mut Self, key: &str| {
            let what = format!("`unvanquished.{key}`");
            t.get(key).and_then(|v| r.table(v, &what))
        };
        if let Some(actions) = section(self, "actions") {
            for (k, v) in actions.iter() {
                if self.full() || !self.count(k.span()) {
                    return;
                }
                self.action(k, v, vocab);
            }
        }
        if let Some(functions) = section(self, "functions") {
            for (k, v) in functions.iter() {
                if self.full() || !self.count(k.span()) {
                    return;
                }
                self.function(k, v, vocab);
            }
        }
        if let Some(symbols) = section(self, "symbols") {
            for (k, v) in symbols.iter() {
                if self.full() || !self.count(k.span()) {
                    return;
                }
                let value = self.integer(v, "a symbol's value", i32::MIN.into(), i32::MAX.into());
                let (name, at) = (k.get_ref().as_ref(), k.span());
                if let (true, Some(value)) = (self.name_ok(name, at.clone(), false), value) {
                    let sym = Symbol {
                        name: name.to_string(),
                        value: value as i32,
                    };
                    if !vocab.add_symbol(sym) {
                        self.duplicate("symbol", name, at);
                    }
                }
            }
        }
    }

    /// One action: `name = { args, long_running, claims }`.
    fn action(
        &mut self,
        k: &Spanned<std::borrow::Cow<'_, str>>,
        v: &Val<'_>,
        vocab: &mut Vocabulary,
    ) {
        let (name, at) = (k.get_ref().as_ref(), k.span());
        let named = self.name_ok(name, at.clone(), false);
        let Some(t) = self.table(v, "an action") else {
            return;
        };
        self.only(t, &["args", "long_running", "claims"], "an action");
        let (min_args, max_args) = match t.get("args") {
            Some(a) => match self.args(a) {
                Some(r) => r,
                None => return,
            },
            None => (0, 0),
        };
        let long_running = match t.get("long_running") {
            Some(b) => self.boolean(b, "`long_running`").unwrap_or(false),
            None => false,
        };
        let claims = match t.get("claims") {
            Some(c) => self.claims(c).unwrap_or(SlotClaims::NONE),
            None => SlotClaims::NONE,
        };
        let def = ActionDef {
            name: name.to_string(),
            min_args,
            max_args,
            long_running,
            claims,
        };
        if named && !vocab.add_action(def) {
            self.duplicate("action", name, at);
        }
    }

    /// `args`: `N` or `[MIN, MAX]`, each 0 to 255, MIN ≤ MAX.
    fn args(&mut self, v: &Val<'_>) -> Option<(u8, u8)> {
        let what = "`args`";
        if let Some(arr) = v.get_ref().as_array() {
            let [lo, hi] = &arr[..] else {
                let msg = "`args` must be a count or a range `[min, max]`".to_string();
                self.error(ErrorKind::InvalidValue, v.span(), msg);
                return None;
            };
            let lo = self.integer(lo, what, 0, 255)? as u8;
            let hi = self.integer(hi, what, 0, 255)? as u8;
            if lo > hi {
                let msg = format!("`args` range [{lo}, {hi}] is empty");
                self.error(ErrorKind::InvalidValue, v.span(), msg);
                return None;
            }
            return Some((lo, hi));
        }
        let n = self.integer(v, what, 0, 255)? as u8;
        Some((n, n))
    }

    /// `claims`: an array of `"success"`, `"failure"`, `"running"`.
    fn claims(&mut self, v: &Val<'_>) -> Option<SlotClaims> {
        let Some(arr) = v.get_ref().as_array() else {
            self.wrong_type(v, "`claims`", "an array of statuses");
            return None;
        };
        let mut claims = SlotClaims::NONE;
        for s in arr.iter() {
            let one = match self.string(s, "a claim")? {
                "success" => SlotClaims::SUCCESS,
                "failure" => SlotClaims::FAILURE,
                "running" => SlotClaims::RUNNING,
                other => {
                    let msg = format!(
                        "unknown claim `{}`; expected success, failure or running",
                        safe_text(other)
                    );
                    self.error(ErrorKind::InvalidValue, s.span(), msg);
                    return None;
                }
            };
            claims = claims.union(one);
        }
        Some(claims)
    }

    /// One condition function: `name = { args = N }`.
    fn function(
        &mut self,
        k: &Spanned<std::borrow::Cow<'_, str>>,
        v: &Val<'_>,
        vocab: &mut Vocabulary,
    ) {
        let (name, at) = (k.get_ref().as_ref(), k.span());
        let named = self.name_ok(name, at.clone(), false);
        let Some(t) = self.table(v, "a condition function") else {
            return;
        };
        self.only(t, &["args"], "a condition function");
        let arity = match t.get("args") {
            Some(a) => match self.integer(a, "`args`", 0, 255) {
                Some(n) => n as u8,
                None => return,
            },
            None => 0,
        };
        let def = FunctionDef {
            name: name.to_string(),
            arity,
        };
        if named && !vocab.add_function(def) {
            self.duplicate("condition function", name, at);
        }
    }

    /// `[mbt]`: lenient, leaves, wrappers.
    fn mbt(&mut self, t: &DeTable<'_>, nodes: &mut MbtNodes) {
        self.only(t, &["lenient", "leaves", "wrappers"], "[mbt]");
        if let Some(v) = t.get("lenient") {
            nodes.lenient = self.boolean(v, "`lenient`").unwrap_or(false);
        }
        for (key, node) in [("leaves", MbtNode::Leaf), ("wrappers", MbtNode::Wrapper)] {
            let Some(v) = t.get(key) else { continue };
            let Some(arr) = v.get_ref().as_array() else {
                self.wrong_type(v, &format!("`mbt.{key}`"), "an array of tag names");
                continue;
            };
            for tag in arr.iter() {
                if self.full() || !self.count(tag.span()) {
                    return;
                }
                let Some(name) = self.string(tag, "a node tag") else {
                    continue;
                };
                if !self.name_ok(name, tag.span(), true) {
                    continue;
                }
                if crate::syntax::mbt::is_own_tag(name) {
                    let msg = format!("`{}` is one of MBT's own nodes", safe_text(name));
                    self.error(ErrorKind::InvalidValue, tag.span(), msg);
                } else if !nodes.add(name.to_string(), node) {
                    self.duplicate("node tag", name, tag.span());
                }
            }
        }
    }
}
