//! One `<SelectionTree>` to IR (`spec/bst.md` sections 1.2, 1.4 and 3): its sections
//! (Blocks, Variables, SignalVariables, LeafTranslations), its one root node, and the nodes.
//!
//! | BST | IR |
//! |---|---|
//! | `<Leaf name=L>` | `Select(behaviour)` named `L` (behaviour from the leaf translations) |
//! | `<Priority>` | `Priority { repick: EveryTick }` over one `Case(condition)` per child |
//! | `<Sequence>` | `Sequence` (`Resume::Remember`) over one `Case(condition)` per child |
//! | `<StateMachine>` | `StateMachine` over `State` nodes (named after the state) with `When` transitions |
//!
//! Node nesting is checked against `Limits::max_depth` at the top of [`Loader::node`], before
//! any recursion, counting the IR's levels (a `Case` or `State` is a level) plus every Ref
//! level; nodes are counted against `Limits::max_nodes`. This file never reads files and
//! never panics on input.
//!
//! Errors are collected as MBT's are: an element with an error (an unknown node type or
//! element, a bad attribute, a condition that does not parse, a transition to no state) is
//! recorded in [`Loader::errors`] and read past at its natural boundary (the node, the
//! `<Transition>`, the `<State>`, the `<Variable>` or `<Signal>`: what is inside it is not
//! read), so every independent error is reported, up to `Limits::max_errors`; a limit (depth,
//! node count, Ref expansion) stops the file. A broken `<Variable>` with a name still declares
//! it, so its uses are no further error.

use std::collections::HashMap;

use btvm::Limits;

use super::blocks::{Child, Expander, Scope};
use super::translate::Translations;
use super::xml::{Attr, El};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{
    Composite, Expr, GuardEval, Lit, NodeBuf, NodeKind, Priority, Resume, StateNode, Transition,
    TreeBuilder, Trigger, Type, Var, VarId,
};
use crate::source::Span;
use crate::syntax::cryexpr::{self, Undeclared};

/// How many states of one StateMachine can be entered (the original's 32-bit visited mask;
/// any number of states loads).
pub(super) const MAX_STATES: usize = 32;

const NODE_TYPES: &str = "`<Leaf>`, `<Priority>`, `<StateMachine>`, `<Sequence>`";

/// What one tree declares, as its root is built.
struct TreeScope<'a, 't> {
    /// The tree's own blocks.
    local: Scope<'a, 't>,
    /// Variables by lower-cased name.
    vars: HashMap<String, (VarId, Span)>,
    /// The leaf translations.
    translations: Translations,
}

impl TreeScope<'_, '_> {
    fn var(&self, name: &str) -> Option<VarId> {
        self.vars.get(&name.to_ascii_lowercase()).map(|v| v.0)
    }
}

/// Builds the trees of one load into a [`TreeBuilder`].
pub(super) struct Loader<'s, 'a, 't> {
    ex: Expander<'s, 'a, 't>,
    limits: &'s Limits,
    b: TreeBuilder,
    /// Nodes built so far.
    nodes: usize,
    /// Tree names seen (lower-cased), for duplicates.
    trees: HashMap<String, Span>,
    /// IR variable names (lower-cased), for clashes between trees.
    var_names: HashMap<String, Span>,
    /// What the original logs while loading the trees anyway, in document order.
    pub warnings: Vec<Diagnostic>,
    /// The errors of elements read past (see [`Loader::keep`]), in the order found.
    pub errors: Vec<Diagnostic>,
}

impl<'s, 'a, 't> Loader<'s, 'a, 't> {
    /// A loader expanding Refs with `ex`.
    pub fn new(ex: Expander<'s, 'a, 't>, limits: &'s Limits) -> Self {
        Loader {
            ex,
            limits,
            b: TreeBuilder::new(crate::ir::Dialect::Bst),
            nodes: 0,
            trees: HashMap::new(),
            var_names: HashMap::new(),
            warnings: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// `r`'s value; or, for an error reading goes on after (not a limit, and fewer than
    /// `Limits::max_errors` recorded), `None` with the error recorded in [`Loader::errors`];
    /// any other error is returned, to stop.
    fn keep<T>(&mut self, r: Result<T, Diagnostic>) -> Result<Option<T>, Diagnostic> {
        match r {
            Ok(v) => Ok(Some(v)),
            Err(d)
                if !matches!(d.kind, ErrorKind::NestTooDeep | ErrorKind::TooManyNodes)
                    && self.errors.len() < self.limits.max_errors =>
            {
                self.errors.push(d);
                Ok(None)
            }
            Err(d) => Err(d),
        }
    }

    /// The builder, once every tree is added.
    pub fn into_builder(self) -> TreeBuilder {
        self.b
    }

    /// Adds one `<SelectionTree>` as an entry named after it, with `local`, its own blocks
    /// (discovered before any tree loads, as `CSelectionTreeManager::Discover` does). The
    /// first tree added is the main tree: its variables keep their names and its signals are
    /// bound; a further tree's variables are named `TREE:VAR` and its signals are checked but
    /// not bound. A further tree without a root node is no error: the original loads it
    /// without a word and it is never valid (`SelectionTreeTemplate::LoadFromXML` returns
    /// true with an empty tree; `Valid`); btvm warns and adds no entry (`Ok(false)`).
    pub fn tree(
        &mut self,
        el: El<'a, 't>,
        is_main: bool,
        local: Scope<'a, 't>,
    ) -> Result<bool, Diagnostic> {
        let errors_before = self.errors.len();
        self.keep(el.only_attributes(&["name", "type"]))?;
        let name = el.required("name")?;
        self.keep(el.required("type"))?;
        if let Some(first) = self.trees.get(&name.value.to_lowercase()) {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                name.span,
                format!(
                    "selection tree `{}` is defined twice (tree names are case-insensitive)",
                    name.value
                ),
            )
            .with_label(*first, "first defined here"));
        }
        self.trees.insert(name.value.to_lowercase(), name.span);
        let mut scope = TreeScope {
            local,
            vars: HashMap::new(),
            translations: Translations::default(),
        };
        let children = self.children(el, &scope.local, 0)?;
        self.leaf_translations(&children, &mut scope)?;
        // SelectionTreeTemplate::LoadFromXML (SelectionTreeTemplate.cpp, 8b63f61c) reads
        // `<Variables>` wherever it comes, and a condition names a variable by the hash of its
        // lower-cased name (SelectionVariableDeclarations::GetVariableID), so a variable
        // declared after the root is the one the root's conditions read.
        for c in children.iter().filter(|c| c.el.is("Variables")) {
            self.variables(*c, &mut scope, name.value, is_main)?;
        }
        let (root, signals, unknown) = self.elements(&children, &scope)?;
        let Some((root, _)) = root else {
            let d = |d: Diagnostic| d.with_note(format!("add one of {NODE_TYPES}"));
            if unknown {
                return Ok(false);
            }
            if is_main {
                self.keep::<()>(Err(d(Diagnostic::new(
                    ErrorKind::Arity,
                    el.start_tag(),
                    format!("selection tree `{}` has no root node", name.value),
                ))))?;
                return Ok(false);
            }
            self.warnings.push(d(Diagnostic::warning(
                ErrorKind::Arity,
                el.start_tag(),
                format!(
                    "selection tree `{}` has no root node: it is never valid and is left out",
                    name.value
                ),
            )));
            return Ok(false);
        };
        for c in signals {
            self.signals(c, &scope, is_main)?;
        }
        if self.errors.len() > errors_before {
            // Read past errors: the load fails (main tree) or this tree is left out.
            return Ok(false);
        }
        self.b.root(name.value, root);
        Ok(true)
    }

    /// A tree's `<LeafTranslations>`, read only when it has a root node (as the original
    /// reads them only once a root is loaded).
    fn leaf_translations(
        &mut self,
        children: &[Child<'a, 't>],
        scope: &mut TreeScope<'a, 't>,
    ) -> Result<(), Diagnostic> {
        let sections = ["Blocks", "Variables", "SignalVariables", "LeafTranslations"];
        let has_root = children
            .iter()
            .any(|c| !sections.iter().any(|t| c.el.is(t)));
        let translations = children
            .iter()
            .filter(|c| has_root && c.el.is("LeafTranslations"));
        for c in translations {
            self.keep(c.el.only_attributes(&[]))?;
            scope.translations.begin_section();
            for m in self.children(c.el, &scope.local, 1 + c.levels)? {
                self.keep(scope.translations.add(m.el))?;
            }
        }
        Ok(())
    }

    /// A tree's elements other than its declarations: its root node, its `<SignalVariables>`
    /// (read later) and whether an unknown element was read past.
    fn elements(
        &mut self,
        children: &[Child<'a, 't>],
        scope: &TreeScope<'a, 't>,
    ) -> Result<Elements<'a, 't>, Diagnostic> {
        let mut root: Option<(NodeBuf, Span)> = None;
        let mut signals = Vec::new();
        // Whether an unknown element was read past: it may be the root node misspelt, so a
        // missing root is then no further error.
        let mut unknown = false;
        for c in children {
            let el = c.el;
            if el.is("Blocks") {
                // SelectionTreeTemplate::LoadFromXML skips every `<Blocks>`; only those written
                // in the tree itself were discovered (CSelectionTreeManager::DiscoverBlocks).
                if c.levels > 0 {
                    self.warnings.push(Diagnostic::warning(
                        ErrorKind::InvalidValue,
                        el.start_tag(),
                        "this `<Blocks>` comes from a Ref and is ignored: only a `<Blocks>` \
                         written in the `<SelectionTree>` itself defines blocks",
                    ));
                }
            } else if el.is("LeafTranslations") {
            } else if el.is("SignalVariables") {
                signals.push(*c);
            } else if el.is("Variables") {
            } else if is_node_tag(el) {
                if let Some((_, at)) = &root {
                    self.keep::<()>(Err(Diagnostic::new(
                        ErrorKind::Arity,
                        el.start_tag(),
                        "a `<SelectionTree>` has exactly one root node",
                    )
                    .with_label(*at, "the root node")))?;
                    continue;
                }
                let mut ancestors = Vec::new();
                let node = self.node(scope, el, 1 + c.levels, false, &mut ancestors);
                let node = self.keep(node)?.unwrap_or_else(|| placeholder(el));
                root = Some((node, el.start_tag()));
            } else {
                unknown = true;
                self.keep::<()>(Err(Diagnostic::new(
                    ErrorKind::UnknownName,
                    el.start_tag(),
                    format!("unknown element `<{}>` in `<SelectionTree>`", el.tag()),
                )
                .with_note(format!(
                    "a `<SelectionTree>` holds `<Blocks>`, `<Variables>`, `<SignalVariables>`, \
                     `<LeafTranslations>`, `<Ref>` and one root node ({NODE_TYPES})"
                ))))?;
            }
        }
        Ok((root, signals, unknown))
    }

    fn variables(
        &mut self,
        section: Child<'a, 't>,
        scope: &mut TreeScope<'a, 't>,
        tree: &str,
        is_main: bool,
    ) -> Result<(), Diagnostic> {
        let Some(items) = self.section_items(section, scope)? else {
            return Ok(());
        };
        for el in items {
            let item = section_item(
                el,
                ("Variables", "Variable"),
                &["name", "default"],
                "`<Variables>` holds `<Variable name=\"…\" default=\"…\"/>` and `<Ref>`",
            )
            .and_then(|()| el.required("name"));
            let name = match self.keep(item)? {
                Some(name) => name,
                // A broken `<Variable>` with a name still declares it.
                None => match el.attr("name").filter(|_| el.is("Variable")) {
                    Some(name) => name,
                    None => continue,
                },
            };
            let default = self.keep(default_of(el))?.unwrap_or(false);
            let key = name.value.to_ascii_lowercase();
            if let Some((_, first)) = scope.vars.get(&key) {
                let d = Diagnostic::new(
                    ErrorKind::InvalidValue,
                    name.span,
                    format!(
                        "variable `{}` is declared twice (variable names are case-insensitive)",
                        name.value
                    ),
                )
                .with_label(*first, "first declared here");
                self.keep::<()>(Err(d))?;
                continue;
            }
            let ir_name = if is_main {
                name.value.to_string()
            } else {
                format!("{tree}:{}", name.value)
            };
            if let Some(first) = self.var_names.get(&ir_name.to_lowercase()) {
                let d = Diagnostic::new(
                    ErrorKind::InvalidValue,
                    name.span,
                    format!("variable `{ir_name}` clashes with another tree's variable"),
                )
                .with_label(*first, "declared here")
                .with_note("the variables of trees after the first are named `TREE:VARIABLE`");
                self.keep::<()>(Err(d))?;
                continue;
            }
            self.var_names.insert(ir_name.to_lowercase(), name.span);
            let id = self.b.var(Var {
                name: ir_name,
                ty: Type::Bool,
                default: Lit::Bool(default),
            });
            scope.vars.insert(key, (id, name.span));
        }
        Ok(())
    }

    fn signals(
        &mut self,
        section: Child<'a, 't>,
        scope: &TreeScope<'a, 't>,
        is_main: bool,
    ) -> Result<(), Diagnostic> {
        let Some(items) = self.section_items(section, scope)? else {
            return Ok(());
        };
        for el in items {
            let signal = self.signal(el, scope);
            if let Some((event, id, expr)) = self.keep(signal)? {
                if is_main {
                    self.b.signal(event.to_string(), id, expr);
                }
            }
        }
        Ok(())
    }

    /// One `<Signal>`: its event, variable and value.
    fn signal(
        &mut self,
        el: El<'a, 't>,
        scope: &TreeScope<'a, 't>,
    ) -> Result<(&'a str, VarId, Expr), Diagnostic> {
        section_item(
            el,
            ("SignalVariables", "Signal"),
            &["name", "variable", "value"],
            "`<SignalVariables>` holds `<Signal name=\"…\" variable=\"…\" value=\"…\"/>` \
             and `<Ref>`",
        )?;
        let event = el.required("name")?;
        let var = el.required("variable")?;
        let value = el.required("value")?;
        let Some(id) = scope.var(var.value) else {
            return Err(Diagnostic::new(
                ErrorKind::UnknownName,
                var.span,
                format!("unknown variable `{}`", var.value),
            )
            .with_note("declare it in the tree's `<Variables>`"));
        };
        let expr = self.expr(scope, value)?;
        Ok((event.value, id, expr))
    }

    /// The elements of a declaration section (`<Variables>`, `<SignalVariables>`), which takes
    /// no attributes, after Ref expansion (a bad attribute is recorded and the items still
    /// read); `None`, the error recorded, when the expansion fails.
    fn section_items(
        &mut self,
        section: Child<'a, 't>,
        scope: &TreeScope<'a, 't>,
    ) -> Result<Option<Vec<El<'a, 't>>>, Diagnostic> {
        self.keep(section.el.only_attributes(&[]))?;
        let items = self
            .ex
            .children(section.el, &scope.local, 1 + section.levels);
        Ok(self
            .keep(items)?
            .map(|items| items.into_iter().map(|c| c.el).collect()))
    }

    /// A condition attribute: absent is `true`; present, it is parsed, so an empty or blank
    /// one fails to load (SelectionTreeNode::LoadFromXML tests `haveAttr("condition")` and
    /// only then defaults to "true"; SelectionCondition of "" is not valid; SelectionTreeNode.cpp,
    /// SelectionCondition.cpp, 8b63f61c).
    fn condition(
        &mut self,
        scope: &TreeScope<'a, 't>,
        attr: Option<Attr<'a>>,
    ) -> Result<Expr, Diagnostic> {
        match attr {
            Some(a) => self.expr(scope, a),
            None => Ok(Expr::Lit(Lit::Bool(true))),
        }
    }

    /// A condition; an undeclared name reads false (its hash names no declared variable, and
    /// `SelectionVariables::GetVariable` leaves the value false).
    fn expr(&mut self, scope: &TreeScope<'a, 't>, attr: Attr<'a>) -> Result<Expr, Diagnostic> {
        cryexpr::parse_reporting(
            attr.value,
            attr.span,
            &|n| scope.var(n),
            Undeclared::False,
            self.limits,
            &mut self.warnings,
        )
    }

    /// The children of `el` after Ref expansion; an unresolved Ref's warning joins
    /// [`Loader::warnings`].
    fn children(
        &mut self,
        el: El<'a, 't>,
        local: &Scope<'a, 't>,
        depth: u32,
    ) -> Result<Vec<Child<'a, 't>>, Diagnostic> {
        let r = self.ex.children(el, local, depth);
        self.warnings.append(&mut self.ex.warnings);
        r
    }

    fn count(&mut self, at: Span) -> Result<(), Diagnostic> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(Diagnostic::new(
                ErrorKind::TooManyNodes,
                at,
                format!("the trees have more than {} nodes", self.limits.max_nodes),
            ));
        }
        Ok(())
    }

    /// Builds the node `el` at IR depth `depth` (the root is 1). `in_case` says whether it is
    /// a child of a Priority or Sequence (and so may carry `condition`); `ancestors` are the
    /// names of the nodes above it, outermost first.
    fn node(
        &mut self,
        scope: &TreeScope<'a, 't>,
        el: El<'a, 't>,
        depth: u32,
        in_case: bool,
        ancestors: &mut Vec<&'a str>,
    ) -> Result<NodeBuf, Diagnostic> {
        let span = el.start_tag();
        if depth > self.limits.max_depth {
            return Err(Diagnostic::new(
                ErrorKind::NestTooDeep,
                span,
                format!(
                    "nodes are nested more than {} levels deep (a condition's case, a state \
                     and a Ref each count as a level)",
                    self.limits.max_depth
                ),
            ));
        }
        if !is_node_tag(el) {
            let d = Diagnostic::new(
                ErrorKind::UnknownName,
                span,
                format!("unknown node type `{}`", el.tag()),
            );
            return Err(if el.is("State") || el.is("Transition") {
                d.with_note(format!(
                    "`<{}>` belongs directly in a `<StateMachine>`{}",
                    el.tag(),
                    if el.is("Transition") {
                        "'s `<State>`"
                    } else {
                        ""
                    }
                ))
            } else {
                d.with_note(format!("the node types are {NODE_TYPES}"))
            });
        }
        if !in_case {
            // Only a Priority's or Sequence's loop reads its children's `condition`
            // (SelectionTreeNode::LoadFromXML, 8b63f61c): on the root, a State's node or a
            // StateMachine's child it is never read. btvm warns (Definition).
            if let Some(c) = el.attr("condition") {
                self.warnings.push(Diagnostic::warning(
                    ErrorKind::InvalidValue,
                    c.span,
                    "this `condition` is never read: only a child of a `<Priority>` or \
                     `<Sequence>` has one",
                ));
            }
        }
        el.only_attributes(&["name", "condition"])?;
        let name = el.required("name")?;
        self.count(span)?;
        let mut node = if el.is("Leaf") {
            el.no_elements()?;
            let behavior = scope.translations.behavior(name.value, ancestors);
            NodeBuf::leaf(NodeKind::Select(behavior.to_string()), span)
        } else if el.is("StateMachine") {
            ancestors.push(name.value);
            let states = self.state_machine(scope, el, depth, ancestors)?;
            ancestors.pop();
            NodeBuf::new(NodeKind::StateMachine, span, states)
        } else {
            let kind = if el.is("Priority") {
                NodeKind::Priority(Priority {
                    repick: GuardEval::EveryTick,
                })
            } else {
                NodeKind::Sequence(Composite {
                    resume: Resume::Remember,
                    looping: false,
                    cond: None,
                })
            };
            ancestors.push(name.value);
            let cases = self.cases(scope, el, depth, ancestors)?;
            ancestors.pop();
            NodeBuf::new(kind, span, cases)
        };
        node.name = Some(name.value.to_string());
        Ok(node)
    }

    /// The children of a Priority or Sequence, each in a `Case` with its condition.
    fn cases(
        &mut self,
        scope: &TreeScope<'a, 't>,
        el: El<'a, 't>,
        depth: u32,
        ancestors: &mut Vec<&'a str>,
    ) -> Result<Vec<NodeBuf>, Diagnostic> {
        // No child at all is fine: the Priority then selects nothing
        // (SelectionTreeNode::Evaluate, SelectionTreeNode.cpp, 8b63f61c).
        let children = self.children(el, &scope.local, depth)?;
        let mut cases = Vec::with_capacity(children.len());
        for c in children {
            let case_depth = depth.saturating_add(c.levels).saturating_add(1);
            let at = c.el.start_tag();
            // The condition first (it is on the start tag, so errors come in document
            // order); a child whose condition is read past is not read (one error per
            // element).
            let cond = self.condition(scope, c.el.attr("condition"));
            let (child, cond) = match self.keep(cond)? {
                Some(cond) => {
                    let d = case_depth.saturating_add(1);
                    let child = self.node(scope, c.el, d, true, ancestors);
                    (self.keep(child)?.unwrap_or_else(|| placeholder(c.el)), cond)
                }
                None => (placeholder(c.el), Expr::Lit(Lit::Bool(true))),
            };
            self.count(at)?;
            cases.push(NodeBuf::new(NodeKind::Case(cond), at, vec![child]));
        }
        Ok(cases)
    }

    /// The states of a StateMachine.
    fn state_machine(
        &mut self,
        scope: &TreeScope<'a, 't>,
        el: El<'a, 't>,
        depth: u32,
        ancestors: &mut Vec<&'a str>,
    ) -> Result<Vec<NodeBuf>, Diagnostic> {
        let children = self.children(el, &scope.local, depth)?;
        if children.is_empty() {
            // The original evaluates `m_states[0]` of an empty vector (undefined behaviour).
            return Err(Diagnostic::new(
                ErrorKind::Arity,
                el.start_tag(),
                "a `<StateMachine>` needs at least one `<State>`",
            ));
        }
        let (index, names) = self.state_names(&children)?;
        let mut states = Vec::with_capacity(children.len().min(MAX_STATES));
        for (i, (c, name)) in children.iter().zip(names).enumerate() {
            // A state read past (its error recorded) is left out: the tree is not built.
            let Some(name) = name else { continue };
            let machine = Machine { el, index: &index };
            let state = self.state(scope, *c, name, depth, &machine, ancestors)?;
            // A state after the 32nd is loaded and checked, but no transition can enter it
            // (below) and a machine starts at 0 or its current state, so it is left out.
            if let (Some(state), true) = (state, i < MAX_STATES) {
                states.push(state);
            }
        }
        Ok(states)
    }

    /// The index of a StateMachine's states by lower-cased name (names first: transitions
    /// may target later states) and each child's name, `None` for one read past. The first
    /// state of a name is the one a transition finds (the original searches its list of
    /// names in order, stricmp). A `<State>` with a bad attribute but a name still names a
    /// state, so transitions to it are no further error.
    fn state_names(
        &mut self,
        children: &[Child<'a, 't>],
    ) -> Result<(StateIndex, Vec<Option<&'a str>>), Diagnostic> {
        let mut index = StateIndex::new();
        let mut names = Vec::with_capacity(children.len());
        for (i, c) in children.iter().enumerate() {
            let s = c.el;
            if !s.is("State") {
                self.keep::<()>(Err(Diagnostic::new(
                    ErrorKind::UnknownName,
                    s.start_tag(),
                    format!("unknown element `<{}>` in `<StateMachine>`", s.tag()),
                )
                .with_note(
                    "a `<StateMachine>` holds `<State name=\"…\">` elements and `<Ref>`",
                )))?;
                names.push(None);
                continue;
            }
            let read = s
                .only_attributes(&["name"])
                .and_then(|()| s.required("name"));
            let (name, good) = match self.keep(read)? {
                Some(name) => (name, true),
                None => match s.attr("name") {
                    Some(name) => (name, false),
                    None => {
                        names.push(None);
                        continue;
                    }
                },
            };
            let key = name.value.to_ascii_lowercase();
            if let Some((_, first)) = index.get(&key) {
                // Definition: the original is silent.
                self.warnings.push(
                    Diagnostic::warning(
                        ErrorKind::InvalidValue,
                        name.span,
                        format!(
                            "state `{}` is defined twice (state names are case-insensitive): \
                             transitions to it go to the first",
                            name.value
                        ),
                    )
                    .with_label(*first, "first defined here"),
                );
            } else {
                // The original keeps the index in a uint8 (`targetState`).
                index.insert(key, ((i % 256) as u32, name.span));
            }
            names.push(Some(name.value).filter(|_| good));
        }
        Ok((index, names))
    }

    /// One `<State>` named `name` of `machine`; `None` when it has no node (the error
    /// recorded).
    fn state(
        &mut self,
        scope: &TreeScope<'a, 't>,
        c: Child<'a, 't>,
        name: &'a str,
        depth: u32,
        machine: &Machine<'_, 'a, 't>,
        ancestors: &mut Vec<&'a str>,
    ) -> Result<Option<NodeBuf>, Diagnostic> {
        let s = c.el;
        let state_depth = depth.saturating_add(c.levels).saturating_add(1);
        let mut transitions = Vec::new();
        let mut body: Option<(NodeBuf, Span)> = None;
        for item in self.children(s, &scope.local, state_depth)? {
            let it = item.el;
            if it.is("Transition") {
                let t = self.transition(scope, it, machine);
                if let Some(t) = self.keep(t)? {
                    transitions.push(t);
                }
            } else if let Some((_, first)) = &body {
                let d = Diagnostic::new(
                    ErrorKind::Arity,
                    it.start_tag(),
                    "a `<State>` holds exactly one node",
                )
                .with_label(*first, "its node");
                self.keep::<()>(Err(d))?;
            } else {
                let d = state_depth.saturating_add(item.levels).saturating_add(1);
                let node = self.node(scope, it, d, false, ancestors);
                let node = self.keep(node)?.unwrap_or_else(|| placeholder(it));
                body = Some((node, it.start_tag()));
            }
        }
        let Some((body, _)) = body else {
            let d = Diagnostic::new(
                ErrorKind::Arity,
                s.start_tag(),
                format!("state `{name}` has no node"),
            )
            .with_note(format!("a `<State>` holds one node ({NODE_TYPES})"));
            self.keep::<()>(Err(d))?;
            return Ok(None);
        };
        self.count(s.start_tag())?;
        let mut state = NodeBuf::new(
            NodeKind::State(StateNode { transitions }),
            s.start_tag(),
            vec![body],
        );
        state.name = Some(name.to_string());
        Ok(Some(state))
    }

    /// One `<Transition>` of a state of `machine`.
    fn transition(
        &mut self,
        scope: &TreeScope<'a, 't>,
        it: El<'a, 't>,
        machine: &Machine<'_, 'a, 't>,
    ) -> Result<Transition, Diagnostic> {
        it.only_attributes(&["state", "condition"])?;
        it.no_elements()?;
        let target = it.required("state")?;
        let cond = it.required("condition")?;
        let Some(&(to, _)) = machine.index.get(&target.value.to_ascii_lowercase()) else {
            return Err(Diagnostic::new(
                ErrorKind::UnknownName,
                target.span,
                format!("this state machine has no state `{}`", target.value),
            ));
        };
        if to as usize >= MAX_STATES {
            // Divergence: the original loads it, but taking it shifts `1` by the index in its
            // 32-bit visited mask (`assert(nextID < 32)`; undefined behaviour),
            // SelectionTreeNode::Evaluate.
            return Err(Diagnostic::new(
                ErrorKind::LimitExceeded,
                target.span,
                format!(
                    "a transition to state {} (`{}`): only the first {MAX_STATES} states of a \
                     `<StateMachine>` can be entered",
                    to + 1,
                    target.value
                ),
            )
            .with_label(machine.el.start_tag(), "in this state machine")
            .with_note(
                "the original's 32-bit visited mask has no bit for it (undefined behaviour)",
            ));
        }
        let cond = self.condition(scope, Some(cond))?;
        Ok(Transition {
            on: Trigger::When(cond),
            to,
        })
    }
}

/// A tree's root node (with its start tag), its `<SignalVariables>` sections and whether an
/// unknown element was read past.
type Elements<'a, 't> = (Option<(NodeBuf, Span)>, Vec<Child<'a, 't>>, bool);

/// A StateMachine's states by lower-cased name: index and name span.
type StateIndex = HashMap<String, (u32, Span)>;

/// The StateMachine a state belongs to: its element and its states' index.
struct Machine<'i, 'a, 't> {
    el: El<'a, 't>,
    index: &'i StateIndex,
}

/// Whether `el` is one of the node types (any case).
fn is_node_tag(el: El) -> bool {
    ["Leaf", "Priority", "StateMachine", "Sequence"]
        .iter()
        .any(|t| el.is(t))
}

/// Checks that `el`, an element of a declaration section (`(section, item)` tag names), is an
/// `<item>` with only `attrs` and no children; `holds` (what the section holds) is the note of
/// an unknown element.
fn section_item(
    el: El<'_, '_>,
    (section, item): (&str, &str),
    attrs: &[&str],
    holds: &'static str,
) -> Result<(), Diagnostic> {
    if !el.is(item) {
        return Err(Diagnostic::new(
            ErrorKind::UnknownName,
            el.start_tag(),
            format!("unknown element `<{}>` in `<{section}>`", el.tag()),
        )
        .with_note(holds));
    }
    el.only_attributes(attrs)?;
    el.no_elements()
}

/// What takes the place of an element read past: the tree is never built (the load fails),
/// so it only keeps the shape of its parent.
fn placeholder(el: El) -> NodeBuf {
    NodeBuf::leaf(NodeKind::Const(btvm::Status::Failure), el.start_tag())
}

/// A `<Variable>`'s default: absent is false.
fn default_of(el: El) -> Result<bool, Diagnostic> {
    match el.attr("default") {
        None => Ok(false),
        Some(d) if d.value.eq_ignore_ascii_case("true") => Ok(true),
        Some(d) if d.value.eq_ignore_ascii_case("false") => Ok(false),
        Some(d) => Err(Diagnostic::new(
            ErrorKind::InvalidValue,
            d.span,
            format!("`{}` is not a boolean", d.value),
        )
        .with_note("a variable's default is `true` or `false`")),
    }
}
