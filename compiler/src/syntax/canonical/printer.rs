//! The canonical printer: a [`Tree`] to canonical-syntax text.
//!
//! Output is deterministic: header lines, then one line per table entry in table order, then
//! the entries and subtrees with one node per line and four spaces per nesting level. Node
//! nesting is walked with an explicit stack, so any tree prints without deep recursion; a tree
//! that does not [`validate`](Tree::validate) still prints (dangling references become
//! placeholders or comments) but need not parse back.

use std::fmt::Write as _;

use btvm::{ImportId, ImportKind, SlotClaims, Status};

use super::lexer::{is_ident, quote};
use super::parser::EXPR_WORDS;
use crate::ir::{
    Abort, Arg, BehaviorRef, CallExpr, Composite, Decider, Expr, FlagTest, Group, GroupScope,
    Guard, GuardEval, Hooks, Lit, LogStatus, Loop, Model, NodeId, NodeKind, Parallel, Policy,
    Precision, Quorum, Resume, RootFinish, Sharing, StateNode, StatusMap, SubtreeId, Tree, Trigger,
    TsQuery, Type, Wait,
};

const INDENT: &str = "    ";

/// Prints `tree` in canonical syntax.
pub(super) fn print(tree: &Tree) -> String {
    let mut p = Printer {
        tree,
        out: String::new(),
        printed: vec![false; tree.nodes.len()],
    };
    p.header();
    p.tables();
    for (i, e) in tree.roots.iter().enumerate() {
        if i > 0 {
            p.out.push('\n');
        }
        p.out.push_str("root ");
        p.name(&e.name);
        p.out.push_str(" = ");
        p.node_tree(e.node);
    }
    for s in &tree.subtrees {
        p.out.push_str("\nsubtree ");
        quote(&s.name, &mut p.out);
        p.out.push_str(match s.sharing {
            Sharing::Shared => " shared = ",
            Sharing::PerSite => " per-site = ",
        });
        p.node_tree(s.node);
    }
    p.out
}

/// Node `id`'s own text, as [`print`] writes its line: keyword, name and knobs (expressions,
/// the action called, ...), without its children. Empty for a node that does not exist.
pub(super) fn node_text(tree: &Tree, id: NodeId) -> String {
    let mut p = Printer {
        tree,
        out: String::new(),
        printed: Vec::new(),
    };
    if let Some(node) = tree.nodes.get(id.index()) {
        p.out.push_str(node.kind.keyword());
        if let Some(n) = &node.name {
            p.out.push_str(" @");
            quote(n, &mut p.out);
        }
        p.knobs(&node.kind);
    }
    p.out
}

/// Node `id`'s knobs as [`node_text`] writes them (the action called, the condition, ...),
/// without the keyword and the name, trimmed; empty for a node that does not exist.
pub(super) fn node_knobs(tree: &Tree, id: NodeId) -> String {
    let mut p = Printer {
        tree,
        out: String::new(),
        printed: Vec::new(),
    };
    if let Some(node) = tree.nodes.get(id.index()) {
        p.knobs(&node.kind);
    }
    p.out.trim().to_string()
}

struct Printer<'a> {
    tree: &'a Tree,
    out: String,
    /// Nodes already printed, so a malformed tree with shared or cyclic children still ends.
    printed: Vec<bool>,
}

enum Step {
    Node(NodeId, usize),
    Close(usize),
}

impl Printer<'_> {
    fn header(&mut self) {
        let c = &self.tree.config;
        let model = match c.model {
            Model::RunningList { capacity } => format!("running-list {capacity}"),
            Model::Cursor { runaway_limit } => format!("cursor {runaway_limit}"),
            Model::Lifecycle => "lifecycle".to_string(),
            Model::Selection => "selection".to_string(),
            Model::Decider { redecide_limit } => format!("decider {redecide_limit}"),
        };
        let root_finish = match c.root_finish {
            RootFinish::Rerun => "rerun",
            RootFinish::RestartOrStop => "restart-or-stop",
            RootFinish::Stop => "stop",
        };
        let abort = match c.abort {
            Abort::Abandon => "abandon",
            Abort::Terminate => "terminate",
        };
        let precision = match c.precision {
            Precision::Single => "single",
            Precision::Double => "double",
        };
        let _ = write!(
            self.out,
            "btvm 1;\ndialect {};\nmodel {model};\nroot-finish {root_finish};\nabort {abort};\nprecision {precision};\nclock {};\n\n",
            self.tree.dialect.name(),
            c.clock
        );
    }

    fn tables(&mut self) {
        let t = self.tree;
        for i in &t.imports {
            self.out.push_str("import ");
            self.out.push_str(i.kind.name());
            self.out.push(' ');
            self.name(&i.name);
            let _ = write!(self.out, " {}..{}", i.min_args, i.max_args);
            if i.long_running {
                self.out.push_str(" long");
            }
            if i.claims != SlotClaims::default() {
                let names: Vec<_> = i.claims.statuses().map(Status::name).collect();
                let _ = write!(self.out, " claims({})", names.join(", "));
            }
            if let Some(code) = &i.script {
                self.out.push_str(" script ");
                quote(code, &mut self.out);
            }
            self.out.push_str(";\n");
        }
        for v in &t.vars {
            self.out.push_str("var ");
            self.name(&v.name);
            self.out.push_str(match v.ty {
                Type::Bool => ": bool = ",
                Type::Int => ": int = ",
                Type::Float => ": float = ",
            });
            self.lit(&v.default);
            self.out.push_str(";\n");
        }
        for ts in &t.timestamps {
            self.out.push_str("timestamp ");
            self.name(&ts.name);
            if let Some(ev) = &ts.set_on {
                self.out.push_str(" on ");
                quote(ev, &mut self.out);
            }
            if let Some(x) = ts.exclusive_to {
                self.out.push_str(" exclusive ");
                match t.timestamps.get(x.0 as usize) {
                    Some(other) => self.name(&other.name),
                    None => self.missing("timestamp", x.0),
                }
            }
            self.out.push_str(";\n");
        }
        for (word, names) in [("flag", &t.flags), ("stimulus", &t.stimuli)] {
            for n in names {
                self.out.push_str(word);
                self.out.push(' ');
                self.name(n);
                self.out.push_str(";\n");
            }
        }
        for s in &t.signals {
            self.out.push_str("signal ");
            quote(&s.event, &mut self.out);
            self.out.push(' ');
            self.var_name(s.var.0);
            self.out.push_str(" = ");
            self.expr(&s.value);
            self.out.push_str(";\n");
        }
        if !(t.imports.is_empty()
            && t.vars.is_empty()
            && t.timestamps.is_empty()
            && t.flags.is_empty()
            && t.stimuli.is_empty()
            && t.signals.is_empty())
        {
            self.out.push('\n');
        }
    }

    /// Writes a name bare when it is an identifier (and not a literal word), else quoted.
    fn name(&mut self, name: &str) {
        if is_ident(name) && !EXPR_WORDS.contains(&name) {
            self.out.push_str(name);
        } else {
            quote(name, &mut self.out);
        }
    }

    /// A placeholder for a dangling table index (only in trees that do not validate).
    fn missing(&mut self, what: &str, index: u32) {
        quote(&format!("<missing {what} {index}>"), &mut self.out);
    }

    fn var_name(&mut self, index: u32) {
        match self.tree.vars.get(index as usize) {
            Some(v) => self.name(&v.name),
            None => self.missing("variable", index),
        }
    }

    fn import_name(&mut self, id: ImportId) {
        match self.tree.imports.get(id.index()) {
            Some(i) => self.name(&i.name),
            None => self.missing("import", id.0),
        }
    }

    /// Prints the node tree rooted at `root`, starting on the current line.
    fn node_tree(&mut self, root: NodeId) {
        let mut stack = vec![Step::Node(root, 0)];
        let mut first = true;
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(depth) => {
                    self.indent(depth);
                    self.out.push_str("}\n");
                }
                Step::Node(id, depth) => {
                    if !first {
                        self.indent(depth);
                    }
                    first = false;
                    let tree = self.tree;
                    let Some(node) = tree.nodes.get(id.index()) else {
                        let _ = writeln!(self.out, "/* missing node {} */", id.0);
                        continue;
                    };
                    if std::mem::replace(&mut self.printed[id.index()], true) {
                        let _ = writeln!(self.out, "/* node {} again */", id.0);
                        continue;
                    }
                    self.out.push_str(node.kind.keyword());
                    if let Some(n) = &node.name {
                        self.out.push_str(" @");
                        quote(n, &mut self.out);
                    }
                    self.knobs(&node.kind);
                    if matches!(node.kind.arity(), crate::ir::Arity::Leaf) {
                        self.out.push('\n');
                    } else if node.children.is_empty() {
                        self.out.push_str(" {}\n");
                    } else {
                        self.out.push_str(" {\n");
                        stack.push(Step::Close(depth));
                        for &c in node.children.iter().rev() {
                            stack.push(Step::Node(c, depth + 1));
                        }
                    }
                }
            }
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str(INDENT);
        }
    }

    fn status(&mut self, s: Status) {
        self.out.push(' ');
        self.out.push_str(s.name());
    }

    fn guard_eval(&mut self, g: GuardEval) {
        self.out.push_str(match g {
            GuardEval::EveryTick => " every-tick",
            GuardEval::OnEntry => " on-entry",
            GuardEval::OnChange => " on-change",
        });
    }

    fn paren_expr(&mut self, e: &Expr) {
        self.out.push_str(" (");
        self.expr(e);
        self.out.push(')');
    }

    fn flag(&mut self, word: &str, f: &FlagTest) {
        let _ = write!(
            self.out,
            " {word} {} {} {:#x}",
            if f.all { "all" } else { "any" },
            if f.set { "set" } else { "clear" },
            f.mask
        );
    }

    /// Writes the knobs of a node after its keyword and name.
    fn knobs(&mut self, kind: &NodeKind) {
        match kind {
            NodeKind::Sequence(c) | NodeKind::Selector(c) => self.composite(c),
            NodeKind::Parallel(p) => self.parallel(p),
            NodeKind::Priority(p) => self.guard_eval(p.repick),
            NodeKind::Case(e) | NodeKind::Condition(e) | NodeKind::WaitUntil(e) => {
                self.paren_expr(e)
            }
            NodeKind::StateMachine | NodeKind::Invert | NodeKind::Yield => {}
            NodeKind::State(s) => self.transitions(s),
            NodeKind::Group(g) => self.group(g),
            NodeKind::Decider(d) => self.decider(d),
            NodeKind::MapStatus(m) => self.status_map(m),
            NodeKind::Cooldown(c) => self.number(c.ms),
            NodeKind::Guard(g) => self.guard(g),
            NodeKind::Loop(l) => self.loop_(l),
            NodeKind::GroupScope(g) => self.group_scope(g),
            NodeKind::Hooks(h) => self.hooks(h),
            NodeKind::LogStatus(l) => self.log_status(l),
            NodeKind::Include(s) => self.include(*s),
            NodeKind::Action(call) => self.action(call),
            NodeKind::Const(s) => self.status(*s),
            NodeKind::Wait(w) => self.wait(w),
            NodeKind::SendEvent(s) => self.event_arrow(&s.event, s.then),
            NodeKind::WaitForEvent(w) => self.event_arrow(&w.event, w.result),
            NodeKind::Log(m) | NodeKind::Select(m) => self.quoted(m),
            NodeKind::Behavior(b) => {
                self.out.push(' ');
                self.behavior(*b);
            }
        }
    }

    fn composite(&mut self, c: &Composite) {
        self.out.push_str(match c.resume {
            Resume::Restart => " restart",
            Resume::Remember => " remember",
            Resume::RunningList => " running-list",
            Resume::Cursor => " cursor",
        });
        if c.looping {
            self.out.push_str(" loop");
        }
        if let Some(e) = &c.cond {
            self.out.push_str(" when");
            self.paren_expr(e);
        }
    }

    fn parallel(&mut self, p: &Parallel) {
        let q = |q: Quorum| match q {
            Quorum::All => "all",
            Quorum::Any => "any",
        };
        let _ = write!(
            self.out,
            " success={} failure={}",
            q(p.success),
            q(p.failure)
        );
        if p.stop_on_failure {
            self.out.push_str(" stop-on-failure");
        }
        if p.remember {
            self.out.push_str(" remember");
        }
    }

    fn transitions(&mut self, s: &StateNode) {
        for t in &s.transitions {
            match &t.on {
                Trigger::Event(ev) => {
                    self.out.push_str(" on ");
                    quote(ev, &mut self.out);
                }
                Trigger::When(e) => {
                    self.out.push_str(" when");
                    self.paren_expr(e);
                }
            }
            let _ = write!(self.out, " -> {}", t.to);
        }
    }

    fn group(&mut self, g: &Group) {
        self.out.push_str(match g.policy {
            Policy::Prioritized => " prioritized",
            Policy::Sequential => " sequential",
            Policy::Random => " random",
            Policy::Scored => " scored",
        });
        if let Some(b) = g.behavior {
            self.out.push_str(" behavior ");
            self.behavior(b);
        }
    }

    fn decider(&mut self, d: &Decider) {
        if let Some(ms) = d.pre.every_ms {
            let _ = write!(self.out, " every {ms}");
        }
        if let Some(f) = &d.pre.decision {
            self.flag("decision", f);
        }
        if let Some(f) = &d.pre.stimuli {
            self.flag("stimuli", f);
        }
        if let Some(e) = &d.decide {
            self.out.push_str(" decide");
            self.paren_expr(e);
        }
        if d.decide_on_redecide {
            self.out.push_str(" redecide");
        }
    }

    fn status_map(&mut self, m: &StatusMap) {
        self.status(m.failure);
        self.status(m.success);
        self.status(m.running);
    }

    /// ` N`.
    fn number(&mut self, n: impl std::fmt::Display) {
        let _ = write!(self.out, " {n}");
    }

    fn guard(&mut self, g: &Guard) {
        self.guard_eval(g.eval);
        self.paren_expr(&g.cond);
    }

    fn loop_(&mut self, l: &Loop) {
        match l.count {
            Some(n) => self.number(n),
            None => self.out.push_str(" forever"),
        }
        self.out.push_str(" until");
        self.status(l.exit_on);
    }

    fn group_scope(&mut self, g: &GroupScope) {
        self.quoted(&g.scope);
        self.number(g.max_users);
    }

    fn hooks(&mut self, h: &Hooks) {
        for (word, call) in [(" enter ", &h.enter), (" exit ", &h.exit)] {
            if let Some(c) = call {
                self.out.push_str(word);
                self.hook_call(c);
            }
        }
    }

    fn log_status(&mut self, l: &LogStatus) {
        for (word, msg) in [
            (" start ", &l.start),
            (" success ", &l.success),
            (" failure ", &l.failure),
        ] {
            if let Some(m) = msg {
                self.out.push_str(word);
                quote(m, &mut self.out);
            }
        }
    }

    fn include(&mut self, s: SubtreeId) {
        self.out.push(' ');
        match self.tree.subtrees.get(s.0 as usize) {
            Some(sub) => quote(&sub.name, &mut self.out),
            None => self.missing("subtree", s.0),
        }
    }

    fn action(&mut self, call: &CallExpr) {
        self.out.push(' ');
        self.import_name(call.import);
        self.args(&call.args);
    }

    fn wait(&mut self, w: &Wait) {
        let _ = write!(self.out, " {} {} ->", w.time, w.variation);
        self.status(w.result);
    }

    /// ` "EVENT" -> STATUS` (`send`, `waitevent`).
    fn event_arrow(&mut self, event: &str, status: Status) {
        self.quoted(event);
        self.out.push_str(" ->");
        self.status(status);
    }

    /// ` "TEXT"`.
    fn quoted(&mut self, text: &str) {
        self.out.push(' ');
        quote(text, &mut self.out);
    }

    /// A hook's call, always with its argument list. A bare name means the action of that
    /// name if there is one, so a function is marked `function` when an action shares its name.
    fn hook_call(&mut self, c: &CallExpr) {
        if let Some(i) = self.tree.imports.get(c.import.index()) {
            let shadowed = i.kind == ImportKind::Function
                && self
                    .tree
                    .imports
                    .iter()
                    .any(|j| j.kind == ImportKind::Action && j.name == i.name);
            if shadowed {
                self.out.push_str("function ");
            }
        }
        self.import_name(c.import);
        self.args(&c.args);
    }

    /// A behavior's import name and the phases it has.
    fn behavior(&mut self, b: BehaviorRef) {
        self.import_name(b.import);
        for (has, word) in [
            (b.activate, " activate"),
            (b.tick, " tick"),
            (b.deactivate, " deactivate"),
        ] {
            if has {
                self.out.push_str(word);
            }
        }
    }

    fn args(&mut self, args: &[Arg]) {
        self.out.push('(');
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if let Some(n) = &a.name {
                self.name(n);
                self.out.push_str(" = ");
            }
            self.expr(&a.value);
        }
        self.out.push(')');
    }

    fn lit(&mut self, l: &Lit) {
        match l {
            Lit::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Lit::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Lit::Float(f) => float(*f, &mut self.out),
            Lit::Str(s) => quote(s, &mut self.out),
        }
    }

    /// An operand of a unary or binary operator: binary operations are parenthesised.
    fn operand(&mut self, e: &Expr) {
        if matches!(e, Expr::Binary(..)) {
            self.out.push('(');
            self.expr(e);
            self.out.push(')');
        } else {
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(l) => self.lit(l),
            Expr::Var(v) => {
                self.out.push('$');
                self.var_name(v.0);
            }
            Expr::Call(c) => {
                self.import_name(c.import);
                self.args(&c.args);
            }
            Expr::Bound(i) => {
                self.out.push_str("@bound(");
                let kind = self
                    .tree
                    .imports
                    .get(i.index())
                    .map_or(ImportKind::Action, |i| i.kind);
                self.out.push_str(kind.name());
                self.out.push(' ');
                self.import_name(*i);
                self.out.push(')');
            }
            Expr::Timestamp(t, q) => {
                self.out.push_str(match q {
                    TsQuery::EverSet => "@ever(",
                    TsQuery::Valid => "@valid(",
                    TsQuery::Elapsed => "@elapsed(",
                });
                match self.tree.timestamps.get(t.0 as usize) {
                    Some(ts) => self.name(&ts.name),
                    None => self.missing("timestamp", t.0),
                }
                self.out.push(')');
            }
            Expr::Random => self.out.push_str("@random"),
            Expr::Not(a) => {
                self.out.push('!');
                self.operand(a);
            }
            Expr::Neg(a) => {
                self.out.push('-');
                if let Expr::Lit(l) = &**a {
                    self.out.push('(');
                    self.lit(l);
                    self.out.push(')');
                } else {
                    self.operand(a);
                }
            }
            Expr::Binary(op, a, b) => {
                self.operand(a);
                self.out.push(' ');
                self.out.push_str(op.symbol());
                self.out.push(' ');
                self.operand(b);
            }
        }
    }
}

/// Writes a float as the shortest text that reads back as exactly the same bits: `1.0`,
/// `0.25`, `1e20`, `-0.0`, `inf`, `-inf`, `nan`, `-nan`, or `nan(0x…)` for other NaN payloads.
pub(super) fn float(f: f64, out: &mut String) {
    if f.is_nan() {
        if f.to_bits() == f64::NAN.to_bits() {
            out.push_str("nan");
        } else if f.to_bits() == (-f64::NAN).to_bits() {
            out.push_str("-nan");
        } else {
            let _ = write!(out, "nan({:#018x})", f.to_bits());
        }
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "inf" } else { "-inf" });
    } else {
        let _ = write!(out, "{f:?}");
    }
}
