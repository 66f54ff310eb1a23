//! The declaration sections of an MBT file (`spec/mbt.md` section 1.2): `<Variables>`,
//! `<Timestamps>` and `<SignalVariables>`, into the tree's variable, timestamp and signal tables,
//! and the name lookups the nodes resolve against ([`Names`]).
//!
//! Variable names are case-insensitive (ASCII case folding, as CRYENGINE hashes them in lower
//! case); timestamp and event names are case-sensitive. Every bad declaration is a positioned
//! error (the original logs it and keeps what it read: a deliberate divergence). This file
//! never looks at `<Root>` and never recurses.

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
    Diagnostic::new(
        ErrorKind::UnknownName,
        src.start_tag(node),
        format!("unknown element `<{}>` in `<{section}>`", src.tag(node)),
    )
    .with_note(format!(
        "`<{section}>` holds only `<{expected}>` elements (names are case-sensitive)"
    ))
}

/// Reads `<Variables>`.
pub(super) fn variables(
    src: &Src,
    section: Node,
    tree: &mut TreeBuilder,
    names: &mut Names,
) -> PResult<()> {
    src.check_attrs(section, &[])?;
    for v in elements(section) {
        if !src.is_tag(v, "Variable") {
            return Err(unknown_element(src, v, "Variables", "Variable"));
        }
        src.check_attrs(v, &["name", "default"])?;
        let name = src.required(v, "name")?;
        let default = match src.find(v, "default") {
            None => false,
            Some(d) if d.value.eq_ignore_ascii_case("true") => true,
            Some(d) if d.value.eq_ignore_ascii_case("false") => false,
            Some(d) => {
                return Err(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    d.value_span,
                    format!(
                        "a variable's default is `true` or `false`, not `{}`",
                        d.value
                    ),
                ))
            }
        };
        let key = name.value.to_ascii_lowercase();
        if let Some(&(_, first)) = names.vars.get(&key) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                name.value_span,
                format!("variable `{}` is declared twice", name.value),
            )
            .with_label(first, "first declared here")
            .with_note("variable names are case-insensitive"));
        }
        let id = tree.var(Var {
            name: name.value.to_string(),
            ty: Type::Bool,
            default: Lit::Bool(default),
        });
        names.vars.insert(key, (id, name.value_span));
    }
    Ok(())
}

/// Reads `<Timestamps>`. `exclusiveTo` may name a timestamp declared later; the misspelling
/// `exlusiveTo` is accepted and ignored, as CRYENGINE ignores it. An empty `setOnEvent` or
/// `exclusiveTo` is taken as absent.
pub(super) fn timestamps(
    src: &Src,
    section: Node,
    tree: &mut TreeBuilder,
    names: &mut Names,
) -> PResult<()> {
    src.check_attrs(section, &[])?;
    let mut exclusive = Vec::new();
    for t in elements(section) {
        if !src.is_tag(t, "Timestamp") {
            return Err(unknown_element(src, t, "Timestamps", "Timestamp"));
        }
        src.check_attrs(t, &["name", "setOnEvent", "exclusiveTo", "exlusiveTo"])?;
        let name = src.required(t, "name")?;
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
        let Some(other) = names.timestamp(x.value) else {
            return Err(Diagnostic::new(
                ErrorKind::UnknownName,
                x.value_span,
                format!("`exclusiveTo` names no declared timestamp `{}`", x.value),
            )
            .with_note("timestamp names are case-sensitive"));
        };
        tree.set_exclusive(id, Some(other));
    }
    Ok(())
}

/// Reads `<SignalVariables>`; the variables must be declared already.
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
        if !src.is_tag(s, "Signal") {
            return Err(unknown_element(src, s, "SignalVariables", "Signal"));
        }
        src.check_attrs(s, &["name", "variable", "value"])?;
        let event = src.required(s, "name")?;
        let variable = src.required(s, "variable")?;
        let value = src.required(s, "value")?;
        let Some(var) = names.var(variable.value) else {
            return Err(Diagnostic::new(
                ErrorKind::UnknownName,
                variable.value_span,
                format!(
                    "the signal sets `{}`, which is not a declared variable",
                    variable.value
                ),
            )
            .with_note("declare it in `<Variables>`"));
        };
        let lookup = |n: &str| names.var(n);
        let expr = cryexpr::parse_reporting(
            value.value,
            value.value_span,
            &lookup,
            Undeclared::False,
            limits,
            warnings,
        )?;
        tree.signal(event.value.to_string(), var, expr);
    }
    Ok(())
}
