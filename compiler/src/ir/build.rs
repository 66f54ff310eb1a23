//! Building trees in canonical order.
//!
//! The builder's tables are filled by untrusted input, so a lookup by name goes through an
//! index and never scans a table (a scan per entry makes loading quadratic).

use std::collections::HashMap;

use btvm::{Import, ImportId, ImportKind};

use super::expr::Expr;
use super::node::{Node, NodeKind};
use super::tree::{
    Dialect, Entry, NodeId, Sharing, SignalBinding, Subtree, SubtreeId, TimestampDecl, TimestampId,
    Tree, TreeConfig, Var, VarId,
};
use crate::source::Span;

/// A node under construction: front-ends build these recursively, in whatever order they read
/// files, and [`TreeBuilder::finish`] lays them out in canonical order.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBuf {
    /// What the node does.
    pub kind: NodeKind,
    /// Optional name.
    pub name: Option<String>,
    /// Where it came from.
    pub span: Span,
    /// Its children.
    pub children: Vec<NodeBuf>,
}

impl NodeBuf {
    /// A node without a name.
    pub fn new(kind: NodeKind, span: Span, children: Vec<NodeBuf>) -> NodeBuf {
        NodeBuf {
            kind,
            name: None,
            span,
            children,
        }
    }

    /// A leaf without a name.
    pub fn leaf(kind: NodeKind, span: Span) -> NodeBuf {
        NodeBuf::new(kind, span, Vec::new())
    }
}

struct PendingSubtree {
    name: String,
    sharing: Sharing,
    span: Span,
    body: Option<NodeBuf>,
}

/// Assembles a [`Tree`]: tables first, then entries and subtrees, then [`finish`](Self::finish).
pub struct TreeBuilder {
    dialect: Dialect,
    config: TreeConfig,
    imports: Vec<Import>,
    /// Index into `imports` by kind and name.
    import_index: HashMap<(ImportKind, String), u32>,
    vars: Vec<Var>,
    timestamps: Vec<TimestampDecl>,
    signals: Vec<SignalBinding>,
    flags: Vec<String>,
    stimuli: Vec<String>,
    roots: Vec<(String, NodeBuf)>,
    subtrees: Vec<PendingSubtree>,
}

impl TreeBuilder {
    /// A builder for a tree of `dialect`, with that dialect's knobs.
    pub fn new(dialect: Dialect) -> TreeBuilder {
        TreeBuilder {
            dialect,
            config: TreeConfig::for_dialect(dialect),
            imports: Vec::new(),
            import_index: HashMap::new(),
            vars: Vec::new(),
            timestamps: Vec::new(),
            signals: Vec::new(),
            flags: Vec::new(),
            stimuli: Vec::new(),
            roots: Vec::new(),
            subtrees: Vec::new(),
        }
    }

    /// Overrides the tree-wide knobs.
    pub fn config(&mut self, config: TreeConfig) -> &mut Self {
        self.config = config;
        self
    }

    /// Adds an import, or returns the existing one with the same name and kind.
    pub fn import(&mut self, import: Import) -> ImportId {
        let next = self.imports.len() as u32;
        let key = (import.kind, import.name.clone());
        let id = *self.import_index.entry(key).or_insert(next);
        if id == next {
            self.imports.push(import);
        }
        ImportId(id)
    }

    /// The imports so far.
    pub fn imports(&self) -> &[Import] {
        &self.imports
    }

    /// Adds a variable.
    pub fn var(&mut self, var: Var) -> VarId {
        self.vars.push(var);
        VarId(self.vars.len() as u32 - 1)
    }

    /// The variables so far.
    pub fn vars(&self) -> &[Var] {
        &self.vars
    }

    /// Adds a timestamp.
    pub fn timestamp(&mut self, ts: TimestampDecl) -> TimestampId {
        self.timestamps.push(ts);
        TimestampId(self.timestamps.len() as u32 - 1)
    }

    /// Sets what a timestamp invalidates (declared after both exist).
    pub fn set_exclusive(&mut self, ts: TimestampId, other: Option<TimestampId>) {
        if let Some(t) = self.timestamps.get_mut(ts.0 as usize) {
            t.exclusive_to = other;
        }
    }

    /// The timestamps so far.
    pub fn timestamps(&self) -> &[TimestampDecl] {
        &self.timestamps
    }

    /// Adds a signal binding.
    pub fn signal(&mut self, event: String, var: VarId, value: Expr) {
        self.signals.push(SignalBinding { event, var, value });
    }

    /// Adds a Spore DecisionFlags bit name; returns its bit number.
    pub fn flag(&mut self, name: impl Into<String>) -> u32 {
        self.flags.push(name.into());
        self.flags.len() as u32 - 1
    }

    /// Adds a Spore stimulus name; returns its bit number.
    pub fn stimulus(&mut self, name: impl Into<String>) -> u32 {
        self.stimuli.push(name.into());
        self.stimuli.len() as u32 - 1
    }

    /// Adds an entry point; the first is the main tree.
    pub fn root(&mut self, name: impl Into<String>, body: NodeBuf) -> &mut Self {
        self.roots.push((name.into(), body));
        self
    }

    /// Reserves a subtree id before its body is known (so includes can refer to it and cycles
    /// can be detected while it is being read).
    pub fn declare_subtree(
        &mut self,
        name: impl Into<String>,
        sharing: Sharing,
        span: Span,
    ) -> SubtreeId {
        self.subtrees.push(PendingSubtree {
            name: name.into(),
            sharing,
            span,
            body: None,
        });
        SubtreeId(self.subtrees.len() as u32 - 1)
    }

    /// Gives a declared subtree its body.
    pub fn define_subtree(&mut self, id: SubtreeId, body: NodeBuf) {
        if let Some(s) = self.subtrees.get_mut(id.0 as usize) {
            s.body = Some(body);
        }
    }

    /// Finds a declared subtree by name with a custom comparison (e.g. case-insensitive).
    pub fn find_subtree(&self, mut matches: impl FnMut(&str) -> bool) -> Option<(SubtreeId, bool)> {
        self.subtrees
            .iter()
            .position(|s| matches(&s.name))
            .map(|i| (SubtreeId(i as u32), self.subtrees[i].body.is_some()))
    }

    /// Lays the nodes out in canonical order and returns the tree.
    ///
    /// Fails (with the subtree's name) if a declared subtree never got a body, or if there is
    /// no root.
    pub fn finish(self) -> Result<Tree, String> {
        if self.roots.is_empty() {
            return Err("the tree has no root".to_string());
        }
        let mut nodes = Vec::new();
        let mut roots = Vec::new();
        for (name, body) in self.roots {
            let node = flatten(body, &mut nodes);
            roots.push(Entry { name, node });
        }
        let mut subtrees = Vec::new();
        for s in self.subtrees {
            let Some(body) = s.body else {
                return Err(format!(
                    "subtree `{}` was declared but never defined",
                    s.name
                ));
            };
            let node = flatten(body, &mut nodes);
            subtrees.push(Subtree {
                name: s.name,
                node,
                sharing: s.sharing,
                span: s.span,
            });
        }
        Ok(Tree {
            dialect: self.dialect,
            config: self.config,
            imports: self.imports,
            vars: self.vars,
            timestamps: self.timestamps,
            signals: self.signals,
            flags: self.flags,
            stimuli: self.stimuli,
            nodes,
            roots,
            subtrees,
        })
    }
}

/// Appends `body` to `nodes` in pre-order, iteratively; returns the id of its root.
fn flatten(body: NodeBuf, nodes: &mut Vec<Node>) -> NodeId {
    let root = NodeId(nodes.len() as u32);
    let mut stack: Vec<(NodeBuf, Option<NodeId>)> = vec![(body, None)];
    while let Some((buf, parent)) = stack.pop() {
        let id = NodeId(nodes.len() as u32);
        if let Some(p) = parent {
            nodes[p.index()].children.push(id);
        }
        let NodeBuf {
            kind,
            name,
            span,
            children,
        } = buf;
        nodes.push(Node {
            kind,
            children: Vec::with_capacity(children.len()),
            name,
            span,
        });
        for child in children.into_iter().rev() {
            stack.push((child, Some(id)));
        }
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Composite, Resume};
    use btvm::Status;

    fn seq(children: Vec<NodeBuf>) -> NodeBuf {
        let c = Composite {
            resume: Resume::Restart,
            looping: false,
            cond: None,
        };
        NodeBuf::new(NodeKind::Sequence(c), Span::DUMMY, children)
    }

    fn leaf(s: Status) -> NodeBuf {
        NodeBuf::leaf(NodeKind::Const(s), Span::DUMMY)
    }

    #[test]
    fn finish_lays_out_pre_order() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        let sub = b.declare_subtree("s", Sharing::Shared, Span::DUMMY);
        b.root(
            "main",
            seq(vec![
                seq(vec![leaf(Status::Success)]),
                leaf(Status::Failure),
            ]),
        );
        b.define_subtree(sub, seq(vec![leaf(Status::Running)]));
        let t = b.finish().unwrap();
        assert_eq!(t.nodes.len(), 6);
        assert_eq!(t.nodes[0].children, vec![NodeId(1), NodeId(3)]);
        assert_eq!(t.nodes[1].children, vec![NodeId(2)]);
        assert_eq!(t.subtrees[0].node, NodeId(4));
        t.validate().unwrap();
    }

    #[test]
    fn undefined_subtree_is_an_error() {
        let mut b = TreeBuilder::new(Dialect::Unvanquished);
        b.declare_subtree("s", Sharing::Shared, Span::DUMMY);
        b.root("main", leaf(Status::Success));
        assert!(b.finish().unwrap_err().contains("never defined"));
    }
}
