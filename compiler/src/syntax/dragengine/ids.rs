//! Rule ids: prefixing and uniqueness.
//!
//! - An id starting with `.` is appended to the *parent id*: the final id of the nearest
//!   enclosing `sequence`, `choice` or `subtree` that has an id, or `""`.
//! - Any other id gets the *prefix*: `""`, or `SUB.` inside a subtree whose final id is `SUB`
//!   (so nested subtrees accumulate, outermost first).
//! - At the top level of a subtree file the parent id is reset to `""`, so a `.x` there is
//!   literally `.x` (the original's quirk, kept).
//! - Every final id is unique in the tree; a second use is an error pointing at it, with a
//!   label at the first.
//!
//! This file only computes strings; the rule builder decides where scopes begin.

use std::collections::HashMap;

use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

/// The id context of the rules in one list.
#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    /// What a `.x` id is appended to.
    parent: String,
    /// What any other id is prefixed with.
    prefix: String,
    /// Whether these are the top-level rules of a subtree file (where `.x` stays `.x`).
    subtree_top: bool,
}

impl Scope {
    /// The final id of a rule written with `id` in this scope.
    pub fn resolve(&self, id: &str) -> String {
        let base = if id.starts_with('.') {
            &self.parent
        } else {
            &self.prefix
        };
        format!("{base}{id}")
    }

    /// The scope of the children of a `sequence` or `choice` whose final id is `id`.
    pub fn list(&self, id: Option<&str>) -> Scope {
        Scope {
            parent: id.map_or_else(|| self.parent.clone(), str::to_string),
            prefix: self.prefix.clone(),
            subtree_top: false,
        }
    }

    /// The scope of the top-level rules of a subtree file included by a `subtree` whose
    /// final id is `id`: the parent id starts empty again.
    pub fn subtree(&self, id: Option<&str>) -> Scope {
        Scope {
            parent: String::new(),
            prefix: id.map_or_else(|| self.prefix.clone(), |id| format!("{id}.")),
            subtree_top: true,
        }
    }

    /// Whether a `.x` id written in this scope is left unprefixed by the subtree quirk.
    pub fn quirk(&self, written: &str) -> bool {
        self.subtree_top && written.starts_with('.')
    }
}

/// The final ids used so far, with where each was declared.
#[derive(Debug, Default)]
pub(super) struct Ids {
    seen: HashMap<String, Span>,
}

impl Ids {
    /// Records `id`, written at `span` as `written`; a second use is an error. `quirk` says
    /// the id was left unprefixed by the subtree quirk (see [`Scope::quirk`]).
    pub fn claim(
        &mut self,
        id: &str,
        written: &str,
        span: Span,
        quirk: bool,
    ) -> Result<(), Diagnostic> {
        if let Some(&first) = self.seen.get(id) {
            let mut d = Diagnostic::new(
                ErrorKind::InvalidValue,
                span,
                format!("duplicate rule id `{id}`"),
            )
            .with_label(first, format!("`{id}` is first used here"));
            if written != id {
                d = d.with_note(format!("`{written}` here becomes `{id}` after prefixing"));
            }
            if quirk {
                d = d.with_note(
                    "at the top level of a subtree file a `.` id gets no prefix, so two \
                     subtrees can collide; give the id a parent or drop the leading `.`",
                );
            }
            return Err(d.with_note("rule ids must be unique in the whole tree"));
        }
        self.seen.insert(id.to_string(), span);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_ids_append_to_the_parent_and_others_take_the_prefix() {
        let top = Scope::default();
        assert_eq!(top.resolve(".a"), ".a");
        assert_eq!(top.resolve("a"), "a");
        let seq = top.list(Some("main"));
        assert_eq!(seq.resolve(".walk"), "main.walk");
        assert_eq!(seq.resolve("walk"), "walk");
        let inner = seq.list(None);
        assert_eq!(inner.resolve(".x"), "main.x");
        let sub = inner.subtree(Some("main.patrol"));
        assert_eq!(sub.resolve(".x"), ".x");
        assert!(sub.quirk(".x") && !sub.quirk("x") && !inner.quirk(".x"));
        assert_eq!(sub.resolve("x"), "main.patrol.x");
        let nested = sub
            .list(Some("main.patrol.s"))
            .subtree(Some("main.patrol.inner"));
        assert_eq!(nested.resolve("y"), "main.patrol.inner.y");
        assert_eq!(sub.subtree(None).resolve("z"), "main.patrol.z");
    }
}
