//! Structural validation of a [`Tree`]: the invariants every consumer may rely on.

use btvm::{ImportId, ImportKind};

use super::expr::{Arg, Expr};
use super::node::{Arity, NodeKind, Trigger};
use super::tree::{Model, NodeId, Tree};

impl Tree {
    /// Checks the structural invariants: canonical layout, child counts per kind, parent/child
    /// kind rules (`case` under `priority`, `state` under `statemachine`, `decider` under
    /// `group`), every table index in range with the right import kind, and the clock
    /// ([`super::TreeConfig::clock`]) in range for the model.
    ///
    /// Front-ends produce valid trees; this guards trees built by hand, by generators and by the
    /// canonical-syntax parser.
    pub fn validate(&self) -> Result<(), String> {
        if self.roots.is_empty() {
            return Err("the tree has no root".into());
        }
        let clock = self.config.clock;
        if clock == 0 || clock > btvm::MAX_CLOCK {
            return Err(format!(
                "a clock of {clock} units per millisecond (1 to {})",
                btvm::MAX_CLOCK
            ));
        }
        if clock != 1 && self.config.model != Model::Lifecycle {
            return Err(format!(
                "a clock of {clock} units per millisecond: only the lifecycle model counts time \
                 in other units than milliseconds"
            ));
        }
        // Canonical layout: pre-order of roots then subtrees visits 0, 1, 2, ... in order.
        let mut expected = 0u32;
        let entries = self
            .roots
            .iter()
            .map(|e| e.node)
            .chain(self.subtrees.iter().map(|s| s.node));
        for entry in entries {
            let mut stack = vec![entry];
            while let Some(id) = stack.pop() {
                if id.0 != expected {
                    return Err(format!(
                        "node {} is out of canonical order (expected {expected})",
                        id.0
                    ));
                }
                let node = self
                    .nodes
                    .get(id.index())
                    .ok_or_else(|| format!("node {} does not exist", id.0))?;
                expected += 1;
                stack.extend(node.children.iter().rev().copied());
            }
        }
        if expected as usize != self.nodes.len() {
            return Err(format!(
                "{} nodes are unreachable",
                self.nodes.len() - expected as usize
            ));
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            let n = node.children.len();
            let ok = match node.kind.arity() {
                Arity::Leaf => n == 0,
                Arity::One => n == 1,
                Arity::Many => true,
            };
            if !ok {
                return Err(format!(
                    "node {i} ({}) has {n} children",
                    node.kind.keyword()
                ));
            }
            self.validate_kind(id)?;
        }
        for s in &self.signals {
            self.check_var(s.var.0)?;
            self.check_expr(&s.value)?;
        }
        for t in &self.timestamps {
            if let Some(x) = t.exclusive_to {
                if x.0 as usize >= self.timestamps.len() {
                    return Err(format!("timestamp {} does not exist", x.0));
                }
            }
        }
        for (what, names) in [("flag", &self.flags), ("stimulus", &self.stimuli)] {
            if names.len() > 32 {
                return Err(format!("more than 32 {what} names"));
            }
            unique(what, names.iter().map(String::as_str))?;
        }
        let mut seen = std::collections::HashSet::new();
        for i in &self.imports {
            if !seen.insert((i.kind, i.name.as_str())) {
                return Err(format!("{} `{}` is imported twice", i.kind.name(), i.name));
            }
        }
        unique("timestamp", self.timestamps.iter().map(|t| t.name.as_str()))?;
        unique("entry", self.roots.iter().map(|e| e.name.as_str()))?;
        unique("subtree", self.subtrees.iter().map(|s| s.name.as_str()))?;
        unique("variable", self.vars.iter().map(|v| v.name.as_str()))
    }

    fn validate_kind(&self, id: NodeId) -> Result<(), String> {
        let node = self.node(id);
        let child_kinds = || node.children.iter().map(|c| &self.node(*c).kind);
        match &node.kind {
            NodeKind::Sequence(c) | NodeKind::Selector(c) => {
                if let Some(e) = &c.cond {
                    self.check_expr(e)?;
                }
            }
            NodeKind::Priority(_) if !child_kinds().all(|k| matches!(k, NodeKind::Case(_))) => {
                return Err(format!(
                    "node {}: priority children must be `case` nodes",
                    id.0
                ));
            }
            NodeKind::StateMachine => {
                if !child_kinds().all(|k| matches!(k, NodeKind::State(_))) {
                    return Err(format!(
                        "node {}: statemachine children must be `state` nodes",
                        id.0
                    ));
                }
                for c in &node.children {
                    if let NodeKind::State(s) = &self.node(*c).kind {
                        for t in &s.transitions {
                            if t.to as usize >= node.children.len() {
                                return Err(format!(
                                    "node {}: transition to missing state {}",
                                    c.0, t.to
                                ));
                            }
                            if let Trigger::When(e) = &t.on {
                                self.check_expr(e)?;
                            }
                        }
                    }
                }
            }
            NodeKind::Group(g) => {
                if !child_kinds().all(|k| matches!(k, NodeKind::Decider(_) | NodeKind::Include(_)))
                {
                    return Err(format!(
                        "node {}: group children must be `decider` nodes or includes",
                        id.0
                    ));
                }
                if let Some(b) = g.behavior {
                    self.check_import(b.import, ImportKind::Action)?;
                }
            }
            NodeKind::Case(e) | NodeKind::Condition(e) | NodeKind::WaitUntil(e) => {
                self.check_expr(e)?
            }
            NodeKind::Guard(g) => self.check_expr(&g.cond)?,
            NodeKind::Decider(d) => {
                if let Some(e) = &d.decide {
                    self.check_expr(e)?;
                }
            }
            NodeKind::Hooks(h) => {
                for call in [&h.enter, &h.exit].into_iter().flatten() {
                    self.check_import_exists(call.import)?;
                    self.check_args(&call.args)?;
                }
            }
            NodeKind::Include(s) if s.0 as usize >= self.subtrees.len() => {
                return Err(format!("node {}: include of missing subtree {}", id.0, s.0));
            }
            NodeKind::Action(call) => {
                self.check_import(call.import, ImportKind::Action)?;
                self.check_args(&call.args)?;
            }
            NodeKind::Behavior(b) => self.check_import(b.import, ImportKind::Action)?,
            _ => {}
        }
        // Kinds that only make sense under a particular parent.
        for c in &node.children {
            let parent_ok = match &self.node(*c).kind {
                // A `sequence` over `case` arms is BST's forward-only priority.
                NodeKind::Case(_) => {
                    matches!(node.kind, NodeKind::Priority(_) | NodeKind::Sequence(_))
                }
                NodeKind::State(_) => matches!(node.kind, NodeKind::StateMachine),
                NodeKind::Decider(_) => matches!(node.kind, NodeKind::Group(_)),
                _ => true,
            };
            if !parent_ok {
                return Err(format!(
                    "node {}: `{}` cannot be a child of `{}`",
                    c.0,
                    self.node(*c).kind.keyword(),
                    node.kind.keyword()
                ));
            }
        }
        Ok(())
    }

    fn check_import(&self, id: ImportId, kind: ImportKind) -> Result<(), String> {
        match self.imports.get(id.index()) {
            Some(i) if i.kind == kind => Ok(()),
            Some(i) => Err(format!(
                "import `{}` is a {}, not a {}",
                i.name,
                i.kind.name(),
                kind.name()
            )),
            None => Err(format!("import {} does not exist", id.0)),
        }
    }

    /// An import of either kind (hooks may call actions or functions).
    fn check_import_exists(&self, id: ImportId) -> Result<(), String> {
        match self.imports.get(id.index()) {
            Some(_) => Ok(()),
            None => Err(format!("import {} does not exist", id.0)),
        }
    }

    fn check_var(&self, v: u32) -> Result<(), String> {
        if v as usize >= self.vars.len() {
            return Err(format!("variable {v} does not exist"));
        }
        Ok(())
    }

    fn check_args(&self, args: &[Arg]) -> Result<(), String> {
        args.iter().try_for_each(|a| self.check_expr(&a.value))
    }

    fn check_expr(&self, e: &Expr) -> Result<(), String> {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Lit(_) | Expr::Random => {}
                Expr::Var(v) => self.check_var(v.0)?,
                Expr::Call(c) => {
                    self.check_import(c.import, ImportKind::Function)?;
                    stack.extend(c.args.iter().map(|a| &a.value));
                }
                Expr::Bound(i) => {
                    if i.index() >= self.imports.len() {
                        return Err(format!("import {} does not exist", i.0));
                    }
                }
                Expr::Timestamp(t, _) => {
                    if t.0 as usize >= self.timestamps.len() {
                        return Err(format!("timestamp {} does not exist", t.0));
                    }
                }
                Expr::Not(a) | Expr::Neg(a) => stack.push(a),
                Expr::Binary(_, a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
        Ok(())
    }
}

/// Fails with the first name that appears twice.
fn unique<'a>(what: &str, names: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        if !seen.insert(n) {
            return Err(format!("{what} `{n}` is declared twice"));
        }
    }
    Ok(())
}
