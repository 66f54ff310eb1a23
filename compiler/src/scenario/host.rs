//! The scripted host: answers calls from a [`Scenario`] and records the trace.

use btvm::{AgentId, Call, Host, Import, ImportId, NodeEvent, Status, Value};
use std::collections::{BTreeMap, HashMap};

use super::{Answer, Outline, Scenario, ScriptValue, Trace, TraceSink};
use crate::ir::{Lit, Tree};

/// A [`Host`] that answers every import from a scenario's `answer` rules and records each call
/// in a [`Trace`], with the messages a tree logs (`log "MSG"`) and the behaviours a selection
/// tree selects (`select "NAME"`).
pub struct ScriptedHost<'s> {
    scenario: &'s Scenario,
    imports: Vec<Import>,
    /// For each import, the indices of the rules that name it.
    rules: Vec<Vec<usize>>,
    /// Calls answered so far per (rule, agent), for sequences.
    counts: HashMap<(usize, u32), usize>,
    tick: u32,
    trace: Trace,
    /// Per import: the argument names of its calls with a given number of arguments (see
    /// [`ScriptedHost::for_tree`]).
    arg_names: Vec<BTreeMap<usize, Vec<Option<String>>>>,
    /// Each node's kind keyword, by node index, for node-level trace lines (empty from
    /// [`ScriptedHost::new`]: the lines then show `?`).
    kinds: Vec<String>,
}

impl<'s> ScriptedHost<'s> {
    /// A host for `tree` that also writes named arguments as `name=value` (MBT's GameSDK
    /// actions), as [`ScriptedHost::for_outline`] does for the tree's outline.
    pub fn for_tree(scenario: &'s Scenario, tree: &Tree) -> Self {
        Self::for_outline(scenario, &Outline::of_tree(tree))
    }

    /// A host for what `outline` describes (a tree or a program) that also writes named
    /// arguments as `name=value`: a call with `n` arguments is written with the outline's
    /// argument names for its import and `n` arguments (`lower::arg_names` decides them: the
    /// first call site's), and node-level lines with the outline's node kinds.
    pub fn for_outline(scenario: &'s Scenario, outline: &Outline) -> Self {
        let mut host = ScriptedHost::new(scenario, &outline.imports);
        host.kinds.clone_from(&outline.kinds);
        for a in &outline.args {
            if let Some(by_count) = host.arg_names.get_mut(a.import as usize) {
                by_count
                    .entry(a.names.len())
                    .or_insert_with(|| a.names.clone());
            }
        }
        host
    }

    /// A host for a tree with import table `imports`.
    pub fn new(scenario: &'s Scenario, imports: &[Import]) -> Self {
        let rules = imports
            .iter()
            .map(|imp| {
                scenario
                    .answers
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.name == imp.name)
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        ScriptedHost {
            scenario,
            imports: imports.to_vec(),
            rules,
            counts: HashMap::new(),
            tick: 0,
            trace: Trace::new(),
            arg_names: vec![BTreeMap::new(); imports.len()],
            kinds: Vec::new(),
        }
    }

    /// Sets the tick that schedules (`@K`) answer for.
    pub fn set_tick(&mut self, tick: u32) {
        self.tick = tick;
    }

    /// Appends a line that is not a host call (tick headers, root statuses).
    pub fn note(&mut self, line: String) {
        self.trace.push(line);
    }

    /// The trace so far.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Takes the trace.
    pub fn into_trace(self) -> Trace {
        self.trace
    }

    /// Hands the lines recorded so far to `sink`, in order, and forgets them (a streamed run
    /// holds one agent-tick's lines at a time).
    pub fn flush_to(&mut self, sink: &mut dyn TraceSink) -> std::io::Result<()> {
        for line in self.trace.drain() {
            sink.line(&line)?;
        }
        Ok(())
    }

    /// The scripted value for a call, or `None` to use the default.
    fn lookup(&mut self, call: &Call<'_>) -> Option<ScriptValue> {
        let rules = self.rules.get(call.import.index())?;
        let mut best: Option<(u8, usize)> = None;
        for &i in rules {
            let r = &self.scenario.answers[i];
            if r.agent.is_some_and(|a| a != call.agent.0) {
                continue;
            }
            if let Some(args) = &r.args {
                if !args_match(args, call) {
                    continue;
                }
            }
            let rank = u8::from(r.agent.is_some()) * 2 + u8::from(r.args.is_some());
            if best.is_none_or(|(b, _)| rank >= b) {
                best = Some((rank, i));
            }
        }
        let (_, i) = best?;
        match &self.scenario.answers[i].answer {
            Answer::Const(v) => Some(v.clone()),
            Answer::Seq(vs) => {
                let n = self.counts.entry((i, call.agent.0)).or_insert(0);
                let v = vs.get(*n).or(vs.last()).cloned();
                *n += 1;
                v
            }
            Answer::Cycle(vs) => {
                let n = self.counts.entry((i, call.agent.0)).or_insert(0);
                let v = vs.get(*n % vs.len().max(1)).cloned();
                *n += 1;
                v
            }
            Answer::Schedule(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| *k <= self.tick)
                .map(|(_, v)| v.clone()),
        }
    }

    fn call_text(&self, call: &Call<'_>) -> String {
        let name = self
            .imports
            .get(call.import.index())
            .map_or("?", |i| i.name.as_str());
        let names = self
            .arg_names
            .get(call.import.index())
            .and_then(|m| m.get(&call.args.len()));
        let args: Vec<String> = call
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let value = a.display(call.strings);
                match names.and_then(|n| n.get(i)).and_then(Option::as_deref) {
                    Some(name) => format!("{name}={value}"),
                    None => value.to_string(),
                }
            })
            .collect();
        format!("{name}({})", args.join(", "))
    }
}

fn args_match(expected: &[Lit], call: &Call<'_>) -> bool {
    expected.len() == call.args.len()
        && expected.iter().zip(call.args).all(|(e, a)| match (e, a) {
            (Lit::Str(s), Value::Str(id)) => call.strings.get(*id) == s,
            (Lit::Str(_), _) | (_, Value::Str(_)) => false,
            (Lit::Bool(b), Value::Bool(c)) => b == c,
            (e, a) => lit_f64(e) == a.as_f64(),
        })
}

fn lit_f64(l: &Lit) -> f64 {
    match l {
        Lit::Bool(b) => f64::from(u8::from(*b)),
        Lit::Int(i) => *i as f64,
        Lit::Float(x) => *x,
        Lit::Str(_) => 0.0,
    }
}

impl Host for ScriptedHost<'_> {
    fn bind_import(&mut self, _id: ImportId, import: &Import) -> bool {
        !self.scenario.missing.contains_key(&import.name)
    }

    fn available(&mut self, id: ImportId) -> bool {
        self.imports
            .get(id.index())
            .is_some_and(|i| !self.scenario.missing.contains_key(&i.name))
    }

    fn action(&mut self, call: &Call<'_>) -> Status {
        let status = match self.lookup(call) {
            Some(ScriptValue::Status(s)) => s,
            // An action scripted with a number answers the status with that value.
            Some(ScriptValue::Lit(l)) => {
                Status::from_u8(u8::try_from(lit_f64(&l) as i64).unwrap_or(0))
                    .unwrap_or(Status::Failure)
            }
            None => self.scenario.default_action,
        };
        let line = format!("{} {} -> {status}", self.call_text(call), call.phase.name());
        self.trace.push(line);
        status
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        let lit = match self.lookup(call) {
            Some(ScriptValue::Lit(l)) => l,
            // A function scripted with a status answers the status's number.
            Some(ScriptValue::Status(s)) => Lit::Int(i64::from(s as u8)),
            None => self.scenario.default_function.clone(),
        };
        let line = format!("{} = {lit}", self.call_text(call));
        self.trace.push(line);
        match lit {
            Lit::Bool(b) => Value::Bool(b),
            Lit::Int(i) => Value::Int(i),
            Lit::Float(x) => Value::Float(x),
            Lit::Str(s) => call.strings.lookup(&s).map_or(Value::Int(0), Value::Str),
        }
    }

    fn log(&mut self, _agent: AgentId, message: &str) {
        self.trace.push(format!("log {}", Quoted(message)));
    }

    fn select(&mut self, _agent: AgentId, behavior: &str) {
        self.trace.push(format!("select {}", Quoted(behavior)));
    }

    /// `node N KIND enter` and `node N KIND -> STATUS` (`spec/cases/README.md`).
    fn node(&mut self, _agent: AgentId, node: u32, event: NodeEvent) {
        let kind = self.kinds.get(node as usize).map_or("?", String::as_str);
        self.trace.push(match event {
            NodeEvent::Enter => format!("node {node} {kind} enter"),
            NodeEvent::Finish(status) => format!("node {node} {kind} -> {status}"),
        });
    }
}

/// A string written as trace strings are (`btvm::write_quoted`).
struct Quoted<'a>(&'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        btvm::write_quoted(self.0, f)
    }
}
