//! The declaration sections of an MBT file (`spec/mbt.md` section 1.2): `<Variables>`,
//! `<Timestamps>` and `<SignalVariables>`, into the tree's variable, timestamp and signal tables,
//! and the name lookups the nodes resolve against ([`Names`]).
//!
//! Variable names are case-insensitive (ASCII case folding, as CRYENGINE hashes them in lower
//! case); timestamp and event names are case-sensitive. A bad declaration in `<Variables>` or
//! `<SignalVariables>` is a warning and ends the section, which keeps what was read before it,
//! as CRYENGINE's `Declarations::LoadFromXML` and `SignalHandler::LoadFromXML` (which return
//! early; the caller ignores the result) do; a timestamp without `name` is a warning and is
//! skipped; a duplicate timestamp stays an error (`spec/mbt.md` 1.2). This file never looks at
//! `<Root>` and never recurses.

use std::collections::HashMap;

use btvm::Limits;
use roxmltree::Node;

use super::xml::{elements, PResult, Src};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{Lit, TimestampDecl, TimestampId, TreeBuilder, Type, Var, VarId};
use crate::source::Span;
use crate::syntax::cryexpr::{self, Undeclared};

/// The declared names nodes refer to.
#[derive(Default)]
pub(super) struct Names {
    /// Variables by ASCII-lower-case name, with where they were declared.
    vars: HashMap<String, (VarId, Span)>,
    /// Timestamps by exact name, with where they were declared.
    timestamps: HashMap<String, (TimestampId, Span)>,
}

impl Names {
    /// The variable called `name` in any case.
    pub fn var(&self, name: &str) -> Option<VarId> {
        self.vars.get(&name.to_ascii_lowercase()).map(|v| v.0)
    }

    /// The timestamp called exactly `name`.
    pub fn timestamp(&self, name: &str) -> Option<TimestampId> {
        self.timestamps.get(name).map(|t| t.0)
    }
}

/// An element of a section that is not the one it holds.
fn unknown_element(src: &Src, node: Node, section: &str, expected: &str) -> Diagnostic {
    Diagnostic::warning(
        ErrorKind::UnknownName,
        src.start_tag(node),
        format!("unknown element `<{}>` in `<{section}>`", src.tag(node)),
    )
    .with_note(format!(
        "`<{section}>` holds only `<{expected}>` elements (in any case)"
    ))
}

/// Reads `<Variables>`. A bad declaration (an element other than `<Variable>`, a missing
/// `name`, a `default` other than `true`/`false` in any case, a name declared before) is a
/// warning that ends the section: the variables declared before it are kept
/// (`Declarations::LoadFromXML`, `VariableCollection.h`, 8b63f61c).
pub(super) fn variables(
    src: &Src,
    section: Node,
    tree: &mut TreeBuilder,
    names: &mut Names,
    warnings: &mut Vec<Diagnostic>,
) -> PResult<()> {
    src.check_attrs(section, &[])?;
    for v in elements(section) {
        if let Some(w) = variable(src, v, tree, names)? {
            warnings.push(w.with_note(
                "CRYENGINE stops reading `<Variables>` here and keeps the variables before",
            ));
            break;
        }
    }
    Ok(())
}

/// One `<Variable>`: declared, or the warning that ends the section.
fn variable(
    src: &Src,
    v: Node,
    tree: &mut TreeBuilder,
    names: &mut Names,
) -> PResult<Option<Diagnostic>> {
    if !src.is_tag(v, "Variable") {
        return Ok(Some(unknown_element(src, v, "Variables", "Variable")));
    }
    src.check_attrs(v, &["name", "default"])?;
    let name = match src.required(v, "name") {
        Ok(n) => n,
        Err(e) => return Ok(Some(to_warning(e))),
    };
    let default = match src.find(v, "default") {
        None => false,
        Some(d) if d.value.eq_ignore_ascii_case("true") => true,
        Some(d) if d.value.eq_ignore_ascii_case("false") => false,
        Some(d) => {
            return Ok(Some(Diagnostic::warning(
                ErrorKind::InvalidValue,
                d.value_span,
                format!(
                    "a variable's default is `true` or `false`, not `{}`",
                    d.value
                ),
            )))
        }
    };
    let key = name.value.to_ascii_lowercase();
    if let Some(&(_, first)) = names.vars.get(&key) {
        return Ok(Some(
            Diagnostic::warning(
                ErrorKind::InvalidValue,
                name.value_span,
                format!("variable `{}` is declared twice", name.value),
            )
            .with_label(first, "first declared here")
            .with_note("variable names are case-insensitive"),
        ));
    }
    let id = tree.var(Var {
        name: name.value.to_string(),
        ty: Type::Bool,
        default: Lit::Bool(default),
    });
    names.vars.insert(key, (id, name.value_span));
    Ok(None)
}

/// `d` as a warning (same kind, place, message and notes).
fn to_warning(mut d: Diagnostic) -> Diagnostic {
    d.severity = crate::diag::Severity::Warning;
    d
}

/// Reads `<Timestamps>`. Every child element is a timestamp, whatever its tag
/// (`TimestampCollection::LoadFromXml`, `TimestampCollection.h`, 8b63f61c). `exclusiveTo` may
/// name a timestamp declared later; naming none is a warning and invalidates nothing (the
/// original finds no timestamp with that id); the misspelling `exlusiveTo` is accepted and
/// ignored, as CRYENGINE ignores it. An empty `setOnEvent` or `exclusiveTo` is taken as absent.
/// A timestamp without `name` is skipped with a warning.
pub(super) fn timestamps(
    src: &Src,
    section: Node,
    tree: &mut TreeBuilder,
    names: &mut Names,
    warnings: &mut Vec<Diagnostic>,
) -> PResult<()> {
    src.check_attrs(section, &[])?;
    let mut exclusive = Vec::new();
    for t in elements(section) {
        src.check_attrs(t, &["name", "setOnEvent", "exclusiveTo", "exlusiveTo"])?;
        let name = match src.required(t, "name") {
            Ok(n) => n,
            Err(e) => {
                warnings.push(to_warning(e).with_note(
                    "CRYENGINE's timestamp of this element has the empty name, which only \
                     `since=\"\"` reads; btvm skips it",
                ));
                continue;
            }
        };
        if let Some(&(_, first)) = names.timestamps.get(name.value) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                name.value_span,
                format!("timestamp `{}` is declared twice", name.value),
            )
            .with_label(first, "first declared here"));
        }
        let set_on = src
            .find(t, "setOnEvent")
            .map(|a| a.value)
            .filter(|v| !v.is_empty())
            .map(str::to_string);
        let id = tree.timestamp(TimestampDecl {
            name: name.value.to_string(),
            set_on,
            exclusive_to: None,
        });
        names
            .timestamps
            .insert(name.value.to_string(), (id, name.value_span));
        if let Some(x) = src.find(t, "exclusiveTo").filter(|a| !a.value.is_empty()) {
            exclusive.push((id, x));
        }
    }
    for (id, x) in exclusive {
        match names.timestamp(x.value) {
            Some(other) => tree.set_exclusive(id, Some(other)),
            None => warnings.push(
                Diagnostic::warning(
                    ErrorKind::UnknownName,
                    x.value_span,
                    format!(
                        "`exclusiveTo` names no declared timestamp `{}`; it invalidates nothing",
                        x.value
                    ),
                )
                .with_note("timestamp names are case-sensitive"),
            ),
        }
    }
    Ok(())
}

/// Reads `<SignalVariables>`; the variables must be declared already. A bad binding (an
/// element other than `<Signal>`, a missing attribute, an undeclared variable, a value that
/// is not an expression) is a warning that ends the section: the bindings read before it are
/// kept (`SignalHandler::LoadFromXML`, `VariableCollection.h`, 8b63f61c).
pub(super) fn signals(
    src: &Src,
    section: Node,
    tree: &mut TreeBuilder,
    names: &Names,
    limits: &Limits,
    warnings: &mut Vec<Diagnostic>,
) -> PResult<()> {
    src.check_attrs(section, &[])?;
    for s in elements(section) {
        if let Some(w) = signal(src, s, tree, names, limits, warnings)? {
            warnings.push(w.with_note(
                "CRYENGINE stops reading `<SignalVariables>` here and keeps the bindings before",
            ));
            break;
        }
    }
    Ok(())
}

/// One `<Signal>`: bound, or the warning that ends the section.
fn signal(
    src: &Src,
    s: Node,
    tree: &mut TreeBuilder,
    names: &Names,
    limits: &Limits,
    warnings: &mut Vec<Diagnostic>,
) -> PResult<Option<Diagnostic>> {
    if !src.is_tag(s, "Signal") {
        return Ok(Some(unknown_element(src, s, "SignalVariables", "Signal")));
    }
    src.check_attrs(s, &["name", "variable", "value"])?;
    let attr = |name: &str| src.required(s, name).map_err(to_warning);
    let (event, variable, value) = match (attr("name"), attr("variable"), attr("value")) {
        (Ok(e), Ok(v), Ok(x)) => (e, v, x),
        (Err(w), _, _) | (_, Err(w), _) | (_, _, Err(w)) => return Ok(Some(w)),
    };
    let Some(var) = names.var(variable.value) else {
        return Ok(Some(
            Diagnostic::warning(
                ErrorKind::UnknownName,
                variable.value_span,
                format!(
                    "the signal sets `{}`, which is not a declared variable",
                    variable.value
                ),
            )
            .with_note("declare it in `<Variables>`"),
        ));
    };
    let lookup = |n: &str| names.var(n);
    let mut own = Vec::new();
    let expr = match cryexpr::parse_reporting(
        value.value,
        value.value_span,
        &lookup,
        Undeclared::False,
        limits,
        &mut own,
    ) {
        Ok(e) => e,
        Err(e) if e.kind == ErrorKind::Syntax => return Ok(Some(to_warning(e))),
        Err(e) => return Err(e),
    };
    warnings.append(&mut own);
    tree.signal(event.value.to_string(), var, expr);
    Ok(None)
}
