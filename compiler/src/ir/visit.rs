//! Whole-tree helpers: span stripping and node-size computation.

use super::tree::{NodeId, Tree};
use crate::source::Span;

impl Tree {
    /// Replaces every span with [`Span::DUMMY`], so trees parsed from different texts can be
    /// compared structurally.
    pub fn strip_spans(&mut self) {
        for n in &mut self.nodes {
            n.span = Span::DUMMY;
        }
        for s in &mut self.subtrees {
            s.span = Span::DUMMY;
        }
    }

    /// The number of nodes in the subtree rooted at `id` (itself included), using the canonical
    /// layout: the subtree is `id .. id + size`.
    pub fn subtree_size(&self, id: NodeId) -> usize {
        let mut size = 0;
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            size += 1;
            if let Some(node) = self.nodes.get(n.index()) {
                stack.extend(node.children.iter().copied());
            }
        }
        size
    }
}

impl super::Expr {
    /// Calls `f` on this expression and every sub-expression (call arguments included), in
    /// pre-order, without recursion.
    pub fn walk<'a>(&'a self, mut f: impl FnMut(&'a super::Expr)) {
        use super::Expr;
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            f(e);
            match e {
                Expr::Call(c) => stack.extend(c.args.iter().rev().map(|a| &a.value)),
                Expr::Not(a) | Expr::Neg(a) => stack.push(a),
                Expr::Binary(_, a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => {}
            }
        }
    }
}

impl super::NodeKind {
    /// The expressions a node holds directly (not its children's), in a fixed order.
    pub fn exprs(&self) -> Vec<&super::Expr> {
        use super::NodeKind::*;
        match self {
            Action(c) => c.args.iter().map(|a| &a.value).collect(),
            Case(e) | Condition(e) | WaitUntil(e) => vec![e],
            Guard(g) => vec![&g.cond],
            Hooks(h) => [&h.enter, &h.exit]
                .into_iter()
                .flatten()
                .flat_map(|c| c.args.iter().map(|a| &a.value))
                .collect(),
            Sequence(c) | Selector(c) => c.cond.iter().collect(),
            Decider(d) => d.decide.iter().collect(),
            State(s) => s
                .transitions
                .iter()
                .filter_map(|t| match &t.on {
                    super::Trigger::When(e) => Some(e),
                    super::Trigger::Event(_) => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl super::NodeKind {
    /// The host calls a node makes itself, not inside its expressions: an action's call and
    /// a `hooks` node's enter and exit calls, in that order.
    pub fn calls(&self) -> Vec<&super::CallExpr> {
        use super::NodeKind::*;
        match self {
            Action(c) => vec![c],
            Hooks(h) => [&h.enter, &h.exit].into_iter().flatten().collect(),
            _ => Vec::new(),
        }
    }
}

impl Tree {
    /// Calls `f` on every expression in the tree (node expressions, then signal values) and all
    /// their sub-expressions.
    pub fn for_each_expr<'a>(&'a self, mut f: impl FnMut(&'a super::Expr)) {
        for n in &self.nodes {
            for e in n.kind.exprs() {
                e.walk(&mut f);
            }
        }
        for s in &self.signals {
            s.value.walk(&mut f);
        }
    }
}
