//! Blocks and `Ref` expansion (`spec/bst.md` section 1.3).
//!
//! A [`Scope`] holds the `<Block name=…>` elements of one scope (a tree's own `<Blocks>`, or
//! the global block files); names are case-sensitive and unique per scope, as the original's
//! `std::map<string, Block>` keys them (`BlockyXmlBlocks::AddBlock`/`GetBlock`,
//! `BlockyXml.cpp`, 8b63f61c). The [`Expander`] lists an element's children with every
//! `<Ref name=…/>` replaced in place by the children of the named block (tree scope first,
//! then global), recursively. A Ref to no block ends the list that holds it with a warning,
//! as `BlockyXmlNodeRef::next` logs and returns no node: the element's own children end
//! there, or, inside a block, that block's expansion ends and the enclosing list goes on.
//!
//! Expansion recurses once per Ref level, and that level counts towards the nesting limit,
//! which is checked before each step; a Ref chain that reaches a block being expanded is an
//! [`ErrorKind::IncludeCycle`] naming the chain. Every element visited during expansion is
//! counted against `Limits::max_nodes` over the whole load, so blocks referring to each other
//! many times cannot blow up exponentially. This file never builds IR.

use std::collections::HashMap;

use btvm::Limits;

use super::xml::El;
use crate::diag::{Diagnostic, ErrorKind};
use crate::source::Span;

/// One `<Block>`.
#[derive(Clone, Copy)]
struct Block<'a, 't> {
    /// The name as written.
    name: &'a str,
    /// The `<Block>` element.
    el: El<'a, 't>,
    /// The span of its name.
    span: Span,
}

/// The blocks of one scope, by name as written (case-sensitive).
pub(super) struct Scope<'a, 't> {
    blocks: HashMap<String, Block<'a, 't>>,
    /// `"tree"` or `"global"`, for messages and cycle keys.
    what: &'static str,
    /// Whether a lookup that misses here goes on to the global blocks (see
    /// [`Scope::hides_global`]).
    falls_back: bool,
}

impl<'a, 't> Scope<'a, 't> {
    /// An empty scope; `what` names it in messages (`"tree"`, `"global"`).
    pub fn new(what: &'static str) -> Self {
        Scope {
            blocks: HashMap::new(),
            what,
            falls_back: true,
        }
    }

    /// A tree scope for the tree named `tree`, once its blocks are added: a tree whose name
    /// is `global` in any case other than `Global` and that has no blocks of its own sees no
    /// block at all (`BlockyXmlBlocks::GetBlock` finds no scope of that name and, the name
    /// being "Global" to `stricmp`, does not fall back to the `"Global"` scope).
    pub fn hides_global(&mut self, tree: &str) {
        self.falls_back =
            !(self.blocks.is_empty() && tree.eq_ignore_ascii_case("global") && tree != "Global");
    }

    /// Adds the `<Block>` children of a `<Blocks>` element, in order. Anything else there is
    /// an [`ErrorKind::UnknownName`] error; a duplicate name (compared exactly) is
    /// [`ErrorKind::InvalidValue`]. The blocks before the error stay added.
    pub fn add_blocks(&mut self, blocks: El<'a, 't>) -> Result<(), Diagnostic> {
        blocks.only_attributes(&[])?;
        for el in blocks.elements() {
            if !el.is("Block") {
                return Err(Diagnostic::new(
                    ErrorKind::UnknownName,
                    el.start_tag(),
                    format!("unknown element `<{}>` in `<{}>`", el.tag(), blocks.tag()),
                )
                .with_note("`<Blocks>` holds only `<Block name=\"…\">` elements"));
            }
            el.only_attributes(&["name"])?;
            let name = el.required("name")?;
            let key = name.value.to_string();
            if let Some(first) = self.blocks.get(&key) {
                return Err(Diagnostic::new(
                    ErrorKind::InvalidValue,
                    name.span,
                    format!("{} block `{}` is defined twice", self.what, name.value),
                )
                .with_label(first.span, "first defined here"));
            }
            self.blocks.insert(
                key,
                Block {
                    name: name.value,
                    el,
                    span: name.span,
                },
            );
        }
        Ok(())
    }

    fn get(&self, key: &str) -> Option<Block<'a, 't>> {
        self.blocks.get(key).copied()
    }
}

/// A child element after Ref expansion.
#[derive(Clone, Copy)]
pub(super) struct Child<'a, 't> {
    /// The element.
    pub el: El<'a, 't>,
    /// How many Ref levels it came through (0: written in place).
    pub levels: u32,
}

/// Expands Refs against the global scope and a tree's scope.
pub(super) struct Expander<'s, 'a, 't> {
    global: &'s Scope<'a, 't>,
    limits: &'s Limits,
    /// Elements visited so far, over the whole load.
    visited: usize,
    /// Unresolved Refs, in the order they were met.
    pub warnings: Vec<Diagnostic>,
}

/// One block on the expansion stack: its scope, its name as written, and its name again.
type ChainLink<'a> = (&'static str, String, &'a str);

impl<'s, 'a, 't> Expander<'s, 'a, 't> {
    /// An expander over the global blocks.
    pub fn new(global: &'s Scope<'a, 't>, limits: &'s Limits) -> Self {
        Expander {
            global,
            limits,
            visited: 0,
            warnings: Vec::new(),
        }
    }

    /// The element children of `parent`, Refs expanded in place. `depth` is the nesting
    /// depth of `parent`; each Ref level adds one.
    pub fn children(
        &mut self,
        parent: El<'a, 't>,
        local: &Scope<'a, 't>,
        depth: u32,
    ) -> Result<Vec<Child<'a, 't>>, Diagnostic> {
        let mut out = Vec::new();
        let mut chain = Vec::new();
        self.expand(parent, local, depth, &mut chain, &mut out)?;
        Ok(out)
    }

    fn expand(
        &mut self,
        parent: El<'a, 't>,
        local: &Scope<'a, 't>,
        depth: u32,
        chain: &mut Vec<ChainLink<'a>>,
        out: &mut Vec<Child<'a, 't>>,
    ) -> Result<(), Diagnostic> {
        for el in parent.elements() {
            self.visited += 1;
            if self.visited > self.limits.max_nodes {
                return Err(Diagnostic::new(
                    ErrorKind::TooManyNodes,
                    el.start_tag(),
                    format!(
                        "the trees expand to more than {} elements (Refs counted at every use)",
                        self.limits.max_nodes
                    ),
                ));
            }
            if !el.is("Ref") {
                out.push(Child {
                    el,
                    levels: chain.len() as u32,
                });
                continue;
            }
            el.only_attributes(&["name"])?;
            el.no_elements()?;
            let name = el.required("name")?;
            let key = name.value.to_string();
            let found = match local.get(&key) {
                Some(b) => Some((local.what, b)),
                None if local.falls_back => self.global.get(&key).map(|b| (self.global.what, b)),
                None => None,
            };
            let Some((scope, block)) = found else {
                // BlockyXmlNodeRef::next logs "Unresolved block reference" and returns no
                // node, which ends this list (BlockyXml.cpp, 8b63f61c).
                self.warnings.push(
                    Diagnostic::warning(
                        ErrorKind::UnknownName,
                        name.span,
                        format!(
                            "unknown block `{}`: the rest of this list is not read",
                            name.value
                        ),
                    )
                    .with_note(
                        "a Ref names a `<Block>` of the tree's own `<Blocks>` or of a \
                         `<Blocks>` file next to the main file (block names are case-sensitive); \
                         the original logs it and ends the list there",
                    ),
                );
                return Ok(());
            };
            if let Some(at) = chain.iter().position(|l| l.0 == scope && l.1 == key) {
                let mut names: Vec<&str> = chain[at..].iter().map(|l| l.2).collect();
                names.push(block.name);
                return Err(Diagnostic::new(
                    ErrorKind::IncludeCycle,
                    name.span,
                    format!("Ref cycle: {}", names.join(" -> ")),
                )
                .with_label(block.span, "this block refers back to itself"));
            }
            let level = chain.len() as u32 + 1;
            if depth.saturating_add(level) > self.limits.max_depth {
                return Err(Diagnostic::new(
                    ErrorKind::NestTooDeep,
                    el.start_tag(),
                    format!(
                        "elements and Refs are nested more than {} levels deep",
                        self.limits.max_depth
                    ),
                ));
            }
            chain.push((scope, key, block.name));
            self.expand(block.el, local, depth, chain, out)?;
            chain.pop();
        }
        Ok(())
    }
}
