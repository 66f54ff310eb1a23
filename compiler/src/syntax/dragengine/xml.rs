//! One `.debt` file's XML to [`FileRules`]: the element grammar, attributes, the common
//! elements (`parameter`, `condition`, `conditionMode`) and every grammar error with its span.
//!
//! The XML structure is parsed by the shared XML layer ([`crate::syntax::xml`]: `roxmltree`,
//! no DTDs) over the text as `raw::prepare` leaves it; its errors become
//! [`ErrorKind::Syntax`] diagnostics at the reported position. Attribute values and element
//! text are read from the source as Drag\[en\]gine's own XML reader reads them (`raw`):
//! an element's text is its first character-data node after the original's whitespace
//! cleaning, so child elements of `<subtree>`, `<parameter>`, `<condition>` and
//! `<conditionMode>` are ignored, as the original loader never visits them. Tag names are compared exactly as written in the source (case-sensitive,
//! a namespace prefix is part of the name), as the original loader compares them. Rule nesting is checked against `Limits::max_depth` before
//! each recursive step, so no input can make this file recurse deeper than that limit.
//!
//! This file knows nothing about ids, imports, subtree files or the IR.

use std::cell::RefCell;

use btvm::Limits;
use roxmltree::Node;

use super::ast::{FileRules, Located, Mode, Rule, RuleKind};
use super::raw;
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::{FileId, Span};
use crate::syntax::xml::{self, elements};

/// Most distinct parameters one rule may have: they are passed as two arguments each, and a
/// call takes at most 255 arguments.
pub(super) const MAX_PARAMS: usize = 127;

type PResult<T> = Result<T, Diagnostic>;

/// The elements of the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    Action,
    Success,
    Failure,
    Running,
    Yield,
    Sequence,
    Choice,
    Subtree,
    Parameter,
    Condition,
    ConditionMode,
}

impl Tag {
    fn from_name(name: &str) -> Option<Tag> {
        Some(match name {
            "action" => Tag::Action,
            "success" => Tag::Success,
            "failure" => Tag::Failure,
            "running" => Tag::Running,
            "yield" => Tag::Yield,
            "sequence" => Tag::Sequence,
            "choice" => Tag::Choice,
            "subtree" | "subTree" => Tag::Subtree,
            "parameter" => Tag::Parameter,
            "condition" => Tag::Condition,
            "conditionMode" => Tag::ConditionMode,
            _ => return None,
        })
    }

    fn is_rule(self) -> bool {
        !matches!(self, Tag::Parameter | Tag::Condition | Tag::ConditionMode)
    }
}

const RULES: &str =
    "`<action>`, `<success>`, `<failure>`, `<running>`, `<yield>`, `<sequence>`, `<choice>`, `<subtree>`";
const COMMON: &str = "`<parameter>`, `<condition>`, `<conditionMode>`";

/// Parses the text of one file (`file` in the source map): its first error only.
#[cfg(test)]
pub(super) fn parse_file(text: &str, file: FileId, limits: &Limits) -> PResult<FileRules> {
    let mut errors = Vec::new();
    let parsed = parse_file_all(text, file, limits, &mut errors)?;
    match errors.into_iter().next() {
        Some(first) => Err(first),
        None => Ok(parsed),
    }
}

/// Parses the text of one file (`file` in the source map), reading past a rule element that
/// has an error or an unknown element (its
/// siblings are read, so their errors are reported too): those errors go to `errors`, in
/// document order, and the rules returned are then incomplete. A limit (nesting) or
/// `Limits::max_errors` errors stop it with the `Err`.
pub(super) fn parse_file_all(
    text: &str,
    file: FileId,
    limits: &Limits,
    errors: &mut Vec<Diagnostic>,
) -> PResult<FileRules> {
    let prepared = raw::prepare(text, file)?;
    let doc = xml::parse(
        &prepared,
        file,
        "the file has no root element; a `.debt` file's root is `<behaviorTree>`",
        limits,
    )?;
    let p = Parser {
        text,
        file,
        limits,
        errors: RefCell::new(std::mem::take(errors)),
    };
    let root = doc.root_element();
    let root_span = p.start_tag(root);
    let name = p.tag_name(root);
    if name != "behaviorTree" {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            root_span,
            format!("the root element is `<{name}>`; a `.debt` file's root is `<behaviorTree>`"),
        ));
    }
    let rules = top_rules(&p, root);
    *errors = p.errors.into_inner();
    Ok(FileRules {
        root_span,
        rules: rules?,
    })
}

/// The rules directly in `<behaviorTree>`.
fn top_rules(p: &Parser, root: Node) -> PResult<Vec<Rule>> {
    let mut rules = Vec::new();
    for child in elements(root) {
        match Tag::from_name(p.tag_name(child)) {
            Some(tag) if tag.is_rule() => match p.child_rule(child, tag, 0) {
                Ok(rule) => rules.push(rule),
                Err(d) => p.go_on(d)?,
            },
            Some(_) => p.go_on(Diagnostic::new(
                ErrorKind::Syntax,
                p.start_tag(child),
                format!(
                    "`<{}>` must be inside a rule, not directly in `<behaviorTree>`",
                    p.tag_name(child)
                ),
            ))?,
            None => p.go_on(p.unknown(child, "behaviorTree", RULES))?,
        }
    }
    Ok(rules)
}

struct Parser<'t> {
    text: &'t str,
    file: FileId,
    limits: &'t Limits,
    /// The errors of elements read past, in document order.
    errors: RefCell<Vec<Diagnostic>>,
}

/// The common elements of one rule, as they accumulate.
struct Common {
    params: Vec<(String, String)>,
    conditions: Vec<Located>,
    mode: Mode,
}

impl<'t> Parser<'t> {
    /// Records `d` and reads on, unless it is a nesting limit or there are already
    /// `Limits::max_errors` errors: then it is returned, to stop.
    fn go_on(&self, d: Diagnostic) -> PResult<()> {
        let mut errors = self.errors.borrow_mut();
        if d.kind == ErrorKind::NestTooDeep || errors.len() >= self.limits.max_errors {
            return Err(d);
        }
        errors.push(d);
        Ok(())
    }

    fn span(&self, r: std::ops::Range<usize>) -> Span {
        Span::new(self.file, r.start, r.end)
    }

    /// The element's name as written (with any namespace prefix).
    fn tag_name(&self, node: Node) -> &'t str {
        xml::tag(self.text, node)
    }

    /// The span of the element's start tag, `<` to `>`.
    fn start_tag(&self, node: Node) -> Span {
        let start = node.range().start;
        let (_, end, _) = raw::start_tag(self.text, start);
        Span::new(self.file, start, end)
    }

    /// Attribute `name` of `node` (the first one written), decoded as the original decodes it,
    /// with the span of its value.
    fn attr(&self, node: Node, name: &str) -> PResult<Option<Located>> {
        let Some(a) = node.attribute_node(name) else {
            return Ok(None);
        };
        let r = a.range_value();
        let span = self.span(r.clone());
        let text = raw::attribute(self.text.get(r).unwrap_or(""), span)?;
        Ok(Some(Located { text, span }))
    }

    /// `getFirstCData`: the element's first text node after the original's cleaning.
    fn first_text(&self, node: Node) -> PResult<Option<Located>> {
        Ok(raw::first_text(self.text, self.file, node)?.map(|(text, span)| Located { text, span }))
    }

    /// Parses the rule element `node`, a child of a rule at `parent_depth` (0 for the top).
    /// The depth is checked here, before recursing.
    fn child_rule(&self, node: Node, tag: Tag, parent_depth: u32) -> PResult<Rule> {
        let depth = parent_depth.saturating_add(1);
        if depth > self.limits.max_depth {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                self.start_tag(node),
                format!(
                    "rules are nested more than {} levels deep",
                    self.limits.max_depth
                ),
            ));
        }
        self.rule(node, tag, depth)
    }

    fn rule(&self, node: Node, tag: Tag, depth: u32) -> PResult<Rule> {
        let span = self.start_tag(node);
        let id = match self.attr(node, "id")? {
            Some(a) if a.text.is_empty() => {
                let at = node
                    .attribute_node("id")
                    .map_or(a.span, |a| self.span(a.range()));
                return Err(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    at,
                    "a rule id cannot be empty",
                )
                .with_note("leave the `id` attribute out for a rule without an id"));
            }
            id => id,
        };
        let flag = |name: &str| -> PResult<bool> {
            Ok(self.attr(node, name)?.is_some_and(|a| a.text == "true"))
        };
        let (looping, do_not_fail) = match tag {
            Tag::Action => (false, flag("doNotFail")?),
            Tag::Sequence | Tag::Choice | Tag::Subtree => (flag("loop")?, flag("doNotFail")?),
            _ => (false, false),
        };
        let mut common = Common {
            params: Vec::new(),
            conditions: Vec::new(),
            mode: Mode::AllTrue,
        };
        let kind = match tag {
            Tag::Subtree => RuleKind::Subtree(self.subtree_path(node, span)?),
            Tag::Sequence | Tag::Choice => {
                let mut children = Vec::new();
                for child in elements(node) {
                    match Tag::from_name(self.tag_name(child)) {
                        Some(t) if t.is_rule() => match self.child_rule(child, t, depth) {
                            Ok(rule) => children.push(rule),
                            Err(d) => self.go_on(d)?,
                        },
                        Some(t) => self.common(child, t, &mut common)?,
                        None => self.go_on(self.unknown(
                            child,
                            self.tag_name(node),
                            &format!("{RULES}, {COMMON}"),
                        ))?,
                    }
                }
                if tag == Tag::Sequence {
                    RuleKind::Sequence(children)
                } else {
                    RuleKind::Choice(children)
                }
            }
            _ => {
                for child in elements(node) {
                    match Tag::from_name(self.tag_name(child)) {
                        Some(t) if t.is_rule() => {
                            return Err(Diagnostic::new(
                                ErrorKind::Syntax,
                                self.start_tag(child),
                                format!("`<{}>` cannot contain rules", self.tag_name(node)),
                            )
                            .with_note(format!(
                                "only `<sequence>`, `<choice>` and the top level hold rules; \
                                 this element may contain {COMMON}"
                            )))
                        }
                        Some(t) => self.common(child, t, &mut common)?,
                        None => self.go_on(self.unknown(child, self.tag_name(node), COMMON))?,
                    }
                }
                match tag {
                    Tag::Action => RuleKind::Action {
                        name: self.action_name(node, span)?,
                    },
                    Tag::Success => RuleKind::Success,
                    Tag::Failure => RuleKind::Failure,
                    Tag::Running => RuleKind::Running,
                    _ => RuleKind::Yield,
                }
            }
        };
        Ok(Rule {
            kind,
            span,
            id,
            looping,
            do_not_fail,
            params: common.params,
            conditions: common.conditions,
            mode: common.mode,
        })
    }

    fn action_name(&self, node: Node, span: Span) -> PResult<String> {
        match self.attr(node, "name")? {
            None => Err(Diagnostic::new(
                ErrorKind::Syntax,
                span,
                "`<action>` needs a `name` attribute",
            )
            .with_note("for example `<action name=\"timer.wait\"/>`")),
            Some(a) if a.text.is_empty() => Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                node.attribute_node("name")
                    .map_or(a.span, |n| self.span(n.range())),
                "an action name cannot be empty",
            )),
            Some(a) => Ok(a.text),
        }
    }

    /// The path of a `<subtree>`: its first text (child elements are ignored, as the original
    /// loader never reads them).
    fn subtree_path(&self, node: Node, span: Span) -> PResult<Located> {
        match self.first_text(node)? {
            Some(t) if !t.text.is_empty() => Ok(t),
            _ => Err(Diagnostic::new(
                ErrorKind::Syntax,
                span,
                format!(
                    "`<{}>` needs the path of a file as its text",
                    self.tag_name(node)
                ),
            )
            .with_note("for example `<subtree>subtrees/patrol.debt</subtree>`")),
        }
    }

    /// Reads a common element into `common`.
    fn common(&self, node: Node, tag: Tag, common: &mut Common) -> PResult<()> {
        let span = self.start_tag(node);
        let text = self.first_text(node)?;
        match tag {
            Tag::Parameter => {
                let Some(name) = self.attr(node, "name")? else {
                    return Err(Diagnostic::new(
                        ErrorKind::Syntax,
                        span,
                        "`<parameter>` needs a `name` attribute",
                    ));
                };
                let name = name.text;
                let value = text.map_or(String::new(), |t| t.text);
                if let Some(p) = common.params.iter_mut().find(|p| p.0 == name) {
                    p.1 = value;
                } else {
                    if common.params.len() == MAX_PARAMS {
                        return Err(Diagnostic::new(
                            ErrorKind::Arity,
                            span,
                            format!("a rule can have at most {MAX_PARAMS} different parameters"),
                        )
                        .with_note("each parameter is passed as two arguments (name, value)"));
                    }
                    common.params.push((name, value));
                }
            }
            Tag::Condition => match text {
                Some(t) if !t.text.is_empty() => common.conditions.push(t),
                _ => {
                    return Err(Diagnostic::new(
                        ErrorKind::InvalidValue,
                        span,
                        "`<condition>` needs the name of a condition as its text",
                    ))
                }
            },
            _ => {
                let (value, at) = text.map_or((String::new(), span), |t| (t.text, t.span));
                match Mode::from_name(&value) {
                    Some(m) => common.mode = m,
                    None => {
                        return Err(Diagnostic::new(
                            ErrorKind::InvalidValue,
                            at,
                            format!("unknown condition mode `{value}`"),
                        )
                        .with_note("the modes are `allTrue` (the default), `anyTrue`, `anyFalse` and `allFalse`"))
                    }
                }
            }
        }
        Ok(())
    }

    fn unknown(&self, node: Node, parent: &str, expected: &str) -> Diagnostic {
        Diagnostic::new(
            ErrorKind::UnknownName,
            self.start_tag(node),
            format!(
                "unknown element `<{}>` in `<{parent}>`",
                self.tag_name(node)
            ),
        )
        .with_note(format!(
            "`<{parent}>` may contain {expected} (names are case-sensitive)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> PResult<FileRules> {
        parse_file(text, FileId(0), &Limits::default())
    }

    #[test]
    fn start_tags_and_names_come_from_the_source() {
        let f =
            parse("<behaviorTree><action id='a>b' name=\"x\" >t</action></behaviorTree>").unwrap();
        let r = &f.rules[0];
        assert_eq!((r.span.start, r.span.end), (14, 41));
        assert_eq!((f.root_span.start, f.root_span.end), (0, 14));
        let id = r.id.as_ref().unwrap();
        assert_eq!(id.text, "a>b");
        assert_eq!((id.span.start, id.span.end), (26, 29));
    }

    #[test]
    fn parameters_keep_first_position_and_last_value() {
        let f = parse(
            "<behaviorTree><action name='a'><parameter name='x'>1</parameter>\
             <parameter name='y'/><parameter name='x'>2</parameter></action></behaviorTree>",
        )
        .unwrap();
        let want = vec![
            ("x".to_string(), "2".to_string()),
            ("y".to_string(), String::new()),
        ];
        assert_eq!(f.rules[0].params, want);
    }

    #[test]
    fn xml_errors_are_positioned() {
        let e = parse("<behaviorTree>\n  <sequence></choice>\n</behaviorTree>").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.message.starts_with("malformed XML"), "{}", e.message);
        assert!(!e.message.contains(" at 2:"), "{}", e.message);
        assert_eq!(e.span.start, 27);
        let e = parse("").unwrap_err();
        assert_eq!((e.kind, e.span.start), (ErrorKind::Syntax, 0));
        let e = parse("<behaviorTree>").unwrap_err();
        assert_eq!((e.kind, e.span.start), (ErrorKind::Syntax, 14));
        let e = parse("<?xml version='1.0'?>\n<!DOCTYPE x []><behaviorTree/>").unwrap_err();
        assert_eq!(e.span.start, 22);
    }
}
