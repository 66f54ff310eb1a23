//! Scenario lints: names a scenario gives that the tree never uses. An `answer` or `missing`
//! line for an import the tree never calls, or an event the tree never listens for, changes
//! nothing in a run, so it is most likely a typo that would let a test scenario pass
//! unnoticed. Each is a positioned warning (`btvm run --deny-warnings` makes them errors).
//!
//! This module only reads the scenario and the tree's [`Outline`] (a program's names lint
//! alike); it never runs, and it never reports what the run itself refuses (unknown
//! variables, flags and stimuli are errors there).

use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Tree;
use crate::source::Span;
use crate::syntax::profile::closest;

use super::{InputKind, Outline, Scenario};

/// The warnings for `scenario` run on `tree`, in file order: every `answer` and `missing`
/// naming no import of the tree, every `at … event NAME` naming no event it uses.
pub fn lint(scenario: &Scenario, tree: &Tree) -> Vec<Diagnostic> {
    lint_outline(scenario, &Outline::of_tree(tree))
}

/// [`lint`] for what `outline` describes (a tree or a compiled program's names).
pub fn lint_outline(scenario: &Scenario, outline: &Outline) -> Vec<Diagnostic> {
    let imports: Vec<&str> = outline.imports.iter().map(|i| i.name.as_str()).collect();
    let events: Vec<&str> = outline.events.iter().map(String::as_str).collect();
    let mut found: Vec<Diagnostic> = Vec::new();
    for rule in &scenario.answers {
        if !imports.contains(&rule.name.as_str()) {
            let message = format!(
                "the scenario answers `{}`, which the tree never calls",
                crate::diag::safe_text(&rule.name)
            );
            found.push(unused_import(message, &rule.name, rule.span, &imports));
        }
    }
    for (name, &span) in &scenario.missing {
        if !imports.contains(&name.as_str()) {
            let message = format!(
                "the scenario says `{}` is missing, but the tree never calls it",
                crate::diag::safe_text(name)
            );
            found.push(unused_import(message, name, span, &imports));
        }
    }
    for input in scenario.inputs.values().flatten() {
        if let InputKind::Event(name) = &input.kind {
            if !events.contains(&name.as_str()) {
                found.push(unused_event(name, input.span, &events));
            }
        }
    }
    found.sort_by_key(|d| (d.span.file.0, d.span.start));
    found
}

/// An `answer`/`missing` line for a name the tree never calls.
fn unused_import(message: String, name: &str, span: Span, imports: &[&str]) -> Diagnostic {
    let d = Diagnostic::warning(ErrorKind::UnknownName, span, message);
    with_names(d, name, imports, "the tree calls")
}

/// An event the tree never listens for.
fn unused_event(name: &str, span: Span, events: &[&str]) -> Diagnostic {
    let safe = crate::diag::safe_text(name);
    let d = Diagnostic::warning(
        ErrorKind::UnknownName,
        span,
        format!("the tree never uses event `{safe}`: delivering it does nothing"),
    );
    with_names(d, name, events, "its events")
}

/// `d` with the nearest known name, or the known names when none is near (at most 12).
fn with_names(d: Diagnostic, name: &str, known: &[&str], what: &str) -> Diagnostic {
    if let Some(s) = closest(name, known.iter().copied()) {
        return d.with_note(format!("did you mean `{}`?", crate::diag::safe_text(s)));
    }
    if known.is_empty() {
        return d.with_note(format!("{what}: none"));
    }
    let shown: Vec<String> = known
        .iter()
        .take(12)
        .map(|k| format!("`{}`", crate::diag::safe_text(k)))
        .collect();
    let more = match known.len() > 12 {
        true => format!(" and {} more", known.len() - 12),
        false => String::new(),
    };
    d.with_note(format!("{what}: {}{more}", shown.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::lint;
    use crate::scenario::parse_scenario;
    use crate::source::FileId;

    /// An MBT tree calling `fight` and `roam`, waiting for the event `Go`.
    fn tree() -> crate::ir::Tree {
        let text = "btvm 1;\ndialect mbt;\nmodel lifecycle;\n\
                    import action fight 0..0 long;\nimport action roam 0..0 long;\n\
                    var go: bool = false;\nsignal \"Go\" go = true;\n\
                    root main = sequence restart { action fight() action roam() }";
        crate::syntax::canonical::parse(FileId(0), text, &btvm::Limits::default())
            .expect("the test tree parses")
    }

    #[test]
    fn names_the_tree_never_uses_are_warnings_with_the_nearest_name() {
        let t = tree();
        let scn = parse_scenario(
            FileId(1),
            "answer fight = running\nanswer figth = running\nmissing roam\nmissing nosuch\n\
             at 1 event Go\nat 2 event GO\n",
        )
        .expect("the scenario parses");
        let warnings = lint(&scn, &t);
        let messages: Vec<&str> = warnings.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "the scenario answers `figth`, which the tree never calls",
                "the scenario says `nosuch` is missing, but the tree never calls it",
                "the tree never uses event `GO`: delivering it does nothing",
            ]
        );
        assert!(warnings.iter().all(|d| d.is_warning()));
        // At the name, on the second line.
        let at = "answer fight = running\nanswer ".len();
        assert_eq!(warnings[0].span.start as usize, at);
        assert!(warnings[0].notes.iter().any(|n| n.contains("`fight`")));
    }

    #[test]
    fn a_scenario_that_names_only_what_the_tree_uses_is_clean() {
        let t = tree();
        let scn = parse_scenario(
            FileId(1),
            "answer fight = running\nmissing roam\nat 0 event Go\n",
        )
        .expect("the scenario parses");
        assert!(lint(&scn, &t).is_empty());
    }
}
