//! A feature census ([`features`]) that tests use to prove the generators reach every node
//! kind, knob value, expression variant and literal form.

use std::collections::BTreeSet;

use btvm::ImportKind;
use btvm_compiler::ir::{
    Expr, GuardEval, Lit, Model, NodeKind, Policy, Quorum, Resume, Sharing, Tree, Trigger,
};

/// Names every feature of `tree` that a generator is expected to reach, as short strings
/// (`"node:priority"`, `"resume:cursor"`, `"lit:int:min"`, `"expr:bound"`, …).
pub fn features(tree: &Tree) -> BTreeSet<String> {
    let mut f = BTreeSet::new();
    let mut add = |s: String| {
        f.insert(s);
    };
    tree_features(tree, &mut add);
    let mut exprs: Vec<&Expr> = tree.signals.iter().map(|s| &s.value).collect();
    for n in &tree.nodes {
        add(format!("node:{}", n.kind.keyword()));
        if n.name.is_some() {
            add("node:named".into());
        }
        node_features(&n.kind, &mut add, &mut exprs);
    }
    expr_features(tree, exprs, &mut add);
    f
}

/// The tree's configuration and tables.
fn tree_features(tree: &Tree, add: &mut impl FnMut(String)) {
    add(format!("dialect:{}", tree.dialect.name()));
    add(format!(
        "model:{}",
        match tree.config.model {
            Model::RunningList { .. } => "running-list",
            Model::Cursor { .. } => "cursor",
            Model::Lifecycle => "lifecycle",
            Model::Selection => "selection",
            Model::Decider { .. } => "decider",
        }
    ));
    add(format!("root-finish:{:?}", tree.config.root_finish));
    add(format!("abort:{:?}", tree.config.abort));
    add(format!("precision:{:?}", tree.config.precision));
    for i in &tree.imports {
        add(format!("import:{}", i.kind.name()));
        if i.long_running {
            add("import:long".into());
        }
    }
    if tree.roots.len() > 1 {
        add("roots:several".into());
    }
    for s in &tree.subtrees {
        add(format!(
            "subtree:{}",
            match s.sharing {
                Sharing::Shared => "shared",
                Sharing::PerSite => "per-site",
            }
        ));
    }
    for t in &tree.timestamps {
        if t.exclusive_to.is_some() {
            add("timestamp:exclusive".into());
        }
        if t.set_on.is_some() {
            add("timestamp:on".into());
        }
    }
    if !tree.signals.is_empty() {
        add("signal".into());
    }
    for v in &tree.vars {
        add(format!("var:{:?}", v.ty));
    }
}

/// One node's knobs; the expressions it holds go to `exprs`.
fn node_features<'t>(kind: &'t NodeKind, add: &mut impl FnMut(String), exprs: &mut Vec<&'t Expr>) {
    match kind {
        NodeKind::Sequence(c) | NodeKind::Selector(c) => {
            add(format!("resume:{}", resume(c.resume)));
            if c.looping {
                add("composite:loop".into());
            }
            if let Some(e) = &c.cond {
                add("composite:when".into());
                exprs.push(e);
            }
        }
        NodeKind::Parallel(p) => {
            add(format!("parallel:success:{}", quorum(p.success)));
            add(format!("parallel:failure:{}", quorum(p.failure)));
            add(format!("parallel:stop:{}", p.stop_on_failure));
            add(format!("parallel:remember:{}", p.remember));
        }
        NodeKind::Priority(p) => add(format!("priority:{}", eval(p.repick))),
        NodeKind::Case(e) | NodeKind::Condition(e) | NodeKind::WaitUntil(e) => exprs.push(e),
        NodeKind::State(s) => {
            for t in &s.transitions {
                match &t.on {
                    Trigger::Event(_) => add("transition:on".into()),
                    Trigger::When(e) => {
                        add("transition:when".into());
                        exprs.push(e);
                    }
                }
            }
        }
        NodeKind::Group(g) => {
            add(format!("policy:{}", policy(g.policy)));
            if g.behavior.is_some() {
                add("group:behavior".into());
            }
        }
        NodeKind::Decider(d) => {
            if d.pre.every_ms.is_some() {
                add("decider:every".into());
            }
            for t in [d.pre.decision, d.pre.stimuli].into_iter().flatten() {
                add(format!("flag:all:{}", t.all));
                add(format!("flag:set:{}", t.set));
            }
            if let Some(e) = &d.decide {
                add("decider:decide".into());
                exprs.push(e);
            }
            if d.decide_on_redecide {
                add("decider:redecide".into());
            }
        }
        NodeKind::MapStatus(m) => {
            add(format!("map:failure:{}", m.failure));
            add(format!("map:success:{}", m.success));
            add(format!("map:running:{}", m.running));
        }
        NodeKind::Guard(g) => {
            add(format!("guard:{}", eval(g.eval)));
            exprs.push(&g.cond);
        }
        NodeKind::Loop(l) => {
            add(format!("loop:count:{}", l.count.is_some()));
            add(format!("loop:until:{}", l.exit_on));
        }
        NodeKind::Hooks(h) => {
            if h.enter.is_some() {
                add("hooks:enter".into());
            }
            if h.exit.is_some() {
                add("hooks:exit".into());
            }
        }
        NodeKind::LogStatus(l) => {
            for (k, v) in [
                ("start", &l.start),
                ("success", &l.success),
                ("failure", &l.failure),
            ] {
                if v.is_some() {
                    add(format!("logstatus:{k}"));
                }
            }
        }
        NodeKind::Action(c) => {
            for a in &c.args {
                exprs.push(&a.value);
                if a.name.is_some() {
                    add("arg:named".into());
                }
            }
        }
        NodeKind::Const(s) => add(format!("const:{s}")),
        NodeKind::Wait(w) => {
            add(format!("wait:{}", w.result));
            if w.time < 0 {
                add("wait:negative".into());
            }
        }
        NodeKind::SendEvent(s) => add(format!("send:{}", s.then)),
        NodeKind::WaitForEvent(w) => add(format!("waitevent:{}", w.result)),
        _ => {}
    }
}

/// Every expression in `exprs` and below.
fn expr_features(tree: &Tree, mut exprs: Vec<&Expr>, add: &mut impl FnMut(String)) {
    while let Some(e) = exprs.pop() {
        match e {
            Expr::Lit(l) => lit(l, add),
            Expr::Var(_) => add("expr:var".into()),
            Expr::Call(c) => {
                add("expr:call".into());
                for a in &c.args {
                    if a.name.is_some() {
                        add("arg:named".into());
                    }
                    exprs.push(&a.value);
                }
            }
            Expr::Bound(i) => {
                let kind = tree.imports.get(i.index()).map(|i| i.kind);
                add(format!("expr:bound:{}", kind.map_or("?", ImportKind::name)));
            }
            Expr::Timestamp(_, q) => add(format!("expr:timestamp:{q:?}")),
            Expr::Random => add("expr:random".into()),
            Expr::Not(a) => {
                add("expr:not".into());
                exprs.push(a);
            }
            Expr::Neg(a) => {
                add("expr:neg".into());
                if matches!(**a, Expr::Lit(_)) {
                    add("expr:neg-of-literal".into());
                }
                exprs.push(a);
            }
            Expr::Binary(op, a, b) => {
                add(format!("binop:{}", op.symbol()));
                exprs.push(a);
                exprs.push(b);
            }
        }
    }
}

fn lit(l: &Lit, add: &mut impl FnMut(String)) {
    match l {
        Lit::Bool(b) => add(format!("lit:bool:{b}")),
        Lit::Int(i) => {
            add("lit:int".into());
            if *i < 0 {
                add("lit:int:negative".into());
            }
            if *i == i64::MIN {
                add("lit:int:min".into());
            }
            if *i == i64::MAX {
                add("lit:int:max".into());
            }
        }
        Lit::Float(x) => {
            add("lit:float".into());
            if x.is_nan() {
                add("lit:float:nan".into());
                if x.to_bits() != f64::NAN.to_bits() && x.to_bits() != (-f64::NAN).to_bits() {
                    add("lit:float:nan-payload".into());
                }
            } else if x.is_infinite() {
                add(format!("lit:float:{}inf", if *x < 0.0 { "-" } else { "" }));
            } else if *x == 0.0 && x.is_sign_negative() {
                add("lit:float:-0".into());
            } else if x.abs() >= 1e16 {
                add("lit:float:large".into());
            }
        }
        Lit::Str(s) => {
            add("lit:str".into());
            if s.contains('"') {
                add("lit:str:quote".into());
            }
            if s.contains('\\') {
                add("lit:str:backslash".into());
            }
            if s.contains('\n') {
                add("lit:str:newline".into());
            }
            if !s.is_ascii() {
                add("lit:str:unicode".into());
            }
        }
    }
}

fn resume(r: Resume) -> &'static str {
    match r {
        Resume::Restart => "restart",
        Resume::Remember => "remember",
        Resume::RunningList => "running-list",
        Resume::Cursor => "cursor",
    }
}

fn quorum(q: Quorum) -> &'static str {
    match q {
        Quorum::All => "all",
        Quorum::Any => "any",
    }
}

fn eval(g: GuardEval) -> &'static str {
    match g {
        GuardEval::EveryTick => "every-tick",
        GuardEval::OnEntry => "on-entry",
        GuardEval::OnChange => "on-change",
    }
}

fn policy(p: Policy) -> &'static str {
    match p {
        Policy::Prioritized => "prioritized",
        Policy::Sequential => "sequential",
        Policy::Random => "random",
        Policy::Scored => "scored",
    }
}
