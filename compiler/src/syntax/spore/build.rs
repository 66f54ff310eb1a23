//! The last pass: the IR (spec/spore.md §3). Each decider becomes a `decider` node named after
//! it over a `behavior` leaf or a `group` node (named after the decider too); a shared decider
//! becomes a shared subtree and every use of it, its definition site included, an `include`;
//! the root is the `main` entry.

use chumsky::span::SimpleSpan;

use super::super::canonical::parser::finish;
use super::ast::{Children, Def, Entry, Target};
use super::index::Index;
use super::resolve::Resolution;
use super::sharing::Shared;
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::{NodeBuf, NodeKind, Sharing, SubtreeId, Tree, TreeBuilder};
use crate::source::Span;

struct Build<'i, 'a> {
    ix: &'i Index<'a>,
    res: &'i Resolution,
    sh: &'i Shared<'a>,
    /// Nodes built so far.
    nodes: usize,
    max_nodes: usize,
}

impl<'a> Build<'_, 'a> {
    fn count(&mut self) -> bool {
        self.nodes += 1;
        self.nodes <= self.max_nodes
    }

    fn include(&mut self, id: SubtreeId, s: SimpleSpan) -> NodeBuf {
        self.count();
        NodeBuf::leaf(NodeKind::Include(id), self.ix.span(s))
    }

    /// The node of a use of `entry` in a group.
    fn entry(&mut self, entry: &'a Entry) -> Option<NodeBuf> {
        let (name, s) = match entry {
            Entry::Ref((n, s)) => (n.as_str(), *s),
            Entry::Def(d) => (d.name.0.as_str(), d.span),
        };
        match (self.sh.ids.get(name), entry) {
            (Some(&id), _) => Some(self.include(id, s)),
            (None, Entry::Def(d)) => self.def(d),
            // An unknown reference was reported by the resolver.
            (None, Entry::Ref(_)) => None,
        }
    }

    /// The `decider` node of `def`, built in place (`None` past the node limit).
    fn def(&mut self, def: &'a Def) -> Option<NodeBuf> {
        let resolved = self.res.defs.get(&def.span.start)?;
        let name = Some(def.name.0.clone());
        if !self.count() || !self.count() {
            return None;
        }
        let child = match (&def.target, &resolved.target) {
            (Target::Behavior((_, s)), Ok(b)) => {
                NodeBuf::leaf(NodeKind::Behavior(*b), self.ix.span(*s))
            }
            (Target::Group { children, span, .. }, Err(g)) => {
                let mut kids = Vec::new();
                match children {
                    Children::Inline(entries) => {
                        for e in entries {
                            kids.push(self.entry(e)?);
                        }
                    }
                    Children::Named((array, _)) => {
                        let (_, entries) = self.ix.arrays.get(array.as_str())?;
                        for e in entries.iter() {
                            kids.push(self.entry(e)?);
                        }
                    }
                }
                NodeBuf {
                    kind: NodeKind::Group(*g),
                    name: name.clone(),
                    span: self.ix.span(*span),
                    children: kids,
                }
            }
            _ => return None,
        };
        Some(NodeBuf {
            kind: NodeKind::Decider(resolved.decider.clone()),
            name,
            span: self.ix.span(def.span),
            children: vec![child],
        })
    }
}

/// Builds the tree; `b` already holds the tables. Called only when no error was found.
pub(super) fn build<'a>(
    ix: &Index<'a>,
    res: &Resolution,
    sh: &Shared<'a>,
    mut b: TreeBuilder,
    limits: &btvm::Limits,
) -> crate::diag::Result<Tree> {
    let file = ix.file;
    let whole = Span::new(file, 0, 0);
    let Some(root) = ix.root else {
        return Err(vec![Diagnostic::new(
            ErrorKind::Syntax,
            whole,
            "expected a `root` decider: the file has none",
        )]);
    };
    let mut bu = Build {
        ix,
        res,
        sh,
        nodes: 0,
        max_nodes: limits.max_nodes,
    };
    let ids: Vec<SubtreeId> = sh
        .defs
        .iter()
        .map(|d| b.declare_subtree(d.name.0.clone(), Sharing::Shared, ix.span(d.span)))
        .collect();
    let main = bu.def(root);
    let mut bodies = Vec::with_capacity(ids.len());
    for d in &sh.defs {
        if bu.nodes > bu.max_nodes {
            break;
        }
        bodies.push(bu.def(d));
    }
    if bu.nodes > bu.max_nodes {
        return Err(vec![Diagnostic::new(
            ErrorKind::TooManyNodes,
            whole,
            format!(
                "the tree has more than {} nodes, the limit",
                limits.max_nodes
            ),
        )]);
    }
    let built = main.and_then(|m| {
        let bodies: Option<Vec<NodeBuf>> = bodies.into_iter().collect();
        Some((m, bodies?))
    });
    let Some((main, bodies)) = built else {
        return Err(vec![Diagnostic::new(
            ErrorKind::InvalidValue,
            whole,
            "the tree could not be built",
        )]);
    };
    b.root("main", main);
    for (id, body) in ids.into_iter().zip(bodies) {
        b.define_subtree(id, body);
    }
    finish(b, whole)
}
