//! Scenarios (host scripts, `spec/cases/README.md`) for generated trees.
//!
//! A scenario is drawn as a [`ScenarioSpec`], independently of the tree, and written out as
//! text against the tree by [`ScenarioSpec::render`]: imports, entries and strings are referred
//! to by index, modulo what the tree has, so any spec renders against any tree, and the text
//! always parses with [`parse_scenario`](btvm_compiler::scenario::parse_scenario).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use arbitrary::{Result, Unstructured};
use btvm::ImportKind;

use super::draw::{maybe, pick, range, repeat, weighted};
use super::text::{float, int, rl_string, status, RL_STRINGS};
use btvm_compiler::ir::{Arg, Expr, Lit, NodeKind, Tree};

/// Most ticks a generated scenario runs (schedules and entries refer to ticks below it).
pub const MAX_TICKS: u32 = 40;

/// `s` as a scenario string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A literal as scenario text, or `None` if the format cannot write it (NaN).
pub fn lit_text(l: &Lit) -> Option<String> {
    Some(match l {
        Lit::Bool(b) => b.to_string(),
        Lit::Int(i) => i.to_string(),
        Lit::Float(x) if x.is_nan() => return None,
        // The scenario lexer reads an overflowing exponent as an infinity.
        Lit::Float(x) if x.is_infinite() => (if *x > 0.0 { "1e400" } else { "-1e400" }).into(),
        // `Debug` always writes a `.` or an exponent, so the lexer reads a float back.
        Lit::Float(x) => format!("{x:?}"),
        Lit::Str(s) => quote(s),
    })
}

/// A value a function answers (or an argument list holds).
#[derive(Clone, Debug)]
pub enum FnVal {
    /// Scenario text of a value.
    Text(String),
    /// The tree's `k`-th string (modulo how many it has; one of [`RL_STRINGS`] if none).
    TreeString(usize),
}

/// One value of an answer: what it is when the import is an action, and when a function.
#[derive(Clone, Debug)]
pub struct Val {
    /// A status name or number.
    pub action: String,
    /// Any value.
    pub function: FnVal,
}

/// The four forms of an answer.
#[derive(Clone, Debug)]
pub enum AnswerSpec {
    /// The same value every call.
    Const(Val),
    /// One value per call, the last repeated.
    Seq(Vec<Val>),
    /// The values in turn, forever.
    Cycle(Vec<Val>),
    /// Values from given ticks on: (tick, with a `:` after it, value).
    Schedule(Vec<(u32, bool, Val)>),
}

/// The argument list a rule is for.
#[derive(Clone, Debug)]
pub enum ArgsSpec {
    /// The `k`-th all-literal argument list the tree calls the import with (modulo how many
    /// there are; none if there are none).
    Seen(usize),
    /// These values.
    Given(Vec<FnVal>),
}

/// One `answer` line.
#[derive(Clone, Debug)]
pub struct RuleSpec {
    /// Only for this argument list.
    pub args: Option<ArgsSpec>,
    /// Only for this agent.
    pub agent: Option<u32>,
    /// The answer.
    pub answer: AnswerSpec,
}

/// A scenario, independent of any tree (render it with [`ScenarioSpec::render`]).
#[derive(Clone, Debug)]
pub struct ScenarioSpec {
    /// Number of agents.
    pub agents: u32,
    /// Number of ticks.
    pub ticks: u32,
    /// Time of the first tick.
    pub start: i64,
    /// Time step of the `time` rule.
    pub step: i64,
    /// Time steps written as `at K now T` lines; `None`: the `time` rule alone.
    pub dts: Option<Vec<i64>>,
    /// The default answer of actions.
    pub default_action: Option<String>,
    /// The default answer of functions.
    pub default_function: Option<FnVal>,
    /// Rules per import index (rules beyond the tree's imports are dropped).
    pub rules: Vec<Vec<RuleSpec>>,
    /// `at K entry NAME` lines: (tick, entry index modulo the tree's entries).
    pub entries: Vec<(u32, usize)>,
    /// Decider-model inputs, written only for decider trees.
    pub inputs: Vec<InputSpec>,
}

/// One `at K [agent A] flags …` or `at K [agent A] stimulus …` line.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSpec {
    /// The tick.
    pub tick: u32,
    /// Only this agent.
    pub agent: Option<u32>,
    /// `Ok(word)`: decision flags; `Err((stimulus index, timeout, data))`: a stimulus (index
    /// modulo the tree's stimuli; none written if it has none).
    pub what: std::result::Result<u32, (usize, Option<u32>, i64)>,
}

/// What an event-model input gives (lifecycle and selection models).
#[derive(Clone, Debug, PartialEq)]
pub enum EventWhat {
    /// `event NAME`: the `k`-th of [`EVENTS`](super::EVENTS) (modulo their count), or, past
    /// them, a name no tree uses.
    Event(usize),
    /// `set VAR = VALUE`: the tree's `k`-th variable (modulo their count; none written if it
    /// has none), its name written in upper case when the flag is set (names are compared
    /// case-insensitively).
    Set(usize, bool, bool),
}

/// One `at K [agent A] event NAME` or `at K [agent A] set VAR = VALUE` line.
#[derive(Clone, Debug, PartialEq)]
pub struct EventSpec {
    /// The tick.
    pub tick: u32,
    /// Only this agent.
    pub agent: Option<u32>,
    /// What is given.
    pub what: EventWhat,
}

/// An event-model input: an event (3 in 5; one in nine of them a name no tree uses) or a
/// variable set (2 in 5), for one of agents 0–2 a third of the time.
pub fn event_input(u: &mut Unstructured<'_>) -> Result<EventSpec> {
    let tick = range(u, 0, MAX_TICKS - 1)?;
    let agent = maybe(u, 1, 3, |u| range(u, 0, 2))?;
    let what = match weighted(u, &[3, 2])? {
        0 => EventWhat::Event(range(u, 0, super::EVENTS.len() * 2)?),
        _ => EventWhat::Set(index(u)?, u.arbitrary()?, weighted(u, &[3, 1])? == 1),
    };
    Ok(EventSpec { tick, agent, what })
}

/// Writes event-model inputs for `tree` as scenario lines, in the order given.
pub fn render_events(specs: &[EventSpec], tree: &Tree) -> String {
    let mut s = String::new();
    for e in specs {
        let who = e.agent.map_or(String::new(), |a| format!(" agent {a}"));
        match &e.what {
            EventWhat::Event(k) => {
                let name = super::EVENTS.get(*k).copied().unwrap_or("unheard");
                let _ = writeln!(s, "at {}{who} event {}", e.tick, quote(name));
            }
            EventWhat::Set(_, _, _) if tree.vars.is_empty() => {}
            EventWhat::Set(k, value, upper) => {
                let var = &tree.vars[k % tree.vars.len()].name;
                let var = if *upper {
                    var.to_ascii_uppercase()
                } else {
                    var.clone()
                };
                let _ = writeln!(s, "at {}{who} set {} = {value}", e.tick, quote(&var));
            }
        }
    }
    s
}

/// A decider-model input: flags (1 in 2, a small word) or a stimulus (a timeout 2 in 3).
pub fn input(u: &mut Unstructured<'_>) -> Result<InputSpec> {
    let tick = range(u, 0, MAX_TICKS - 1)?;
    let agent = maybe(u, 1, 3, |u| range(u, 0, 2))?;
    let what = match weighted(u, &[1, 1])? {
        0 => Ok(u.arbitrary::<u32>()? & 0x1f),
        _ => Err((
            index(u)?,
            maybe(u, 2, 3, |u| range(u, 0, 600))?,
            range(u, -5, 5)?,
        )),
    };
    Ok(InputSpec { tick, agent, what })
}

/// An index to be taken modulo a small count.
fn index(u: &mut Unstructured<'_>) -> Result<usize> {
    u.arbitrary::<u16>().map(usize::from)
}

/// Integers as scenario text: decimal (4; extremes included, see [`int`]) or hexadecimal
/// (`0x…` and `-0X…`, 1 each).
pub fn int_text(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match weighted(u, &[4, 1, 1])? {
        0 => int(u)?.to_string(),
        1 => format!("0x{:x}", range(u, 0i64, 0xfff)?),
        _ => format!("-0X{:X}", range(u, 1i64, 0xff)?),
    })
}

/// Floats as scenario text: any [`float`] but NaN (4), or one of a few extreme or
/// float-specific spellings (1).
pub fn float_text(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match weighted(u, &[4, 1])? {
        0 => lit_text(&Lit::Float(float(u)?)).unwrap_or_else(|| "0.5".into()),
        _ => pick(
            u,
            &[
                "1e400",
                "-1e400",
                "-0.0",
                "0.5",
                "1e-7",
                "3.4028235e38",
                "1e39",
            ],
        )?
        .to_string(),
    })
}

fn status_text(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(status(u)?.to_string())
}

/// A literal of any type; strings mostly the tree's own.
pub fn literal_value(u: &mut Unstructured<'_>) -> Result<FnVal> {
    Ok(match weighted(u, &[1, 3, 3, 2, 2, 1])? {
        0 => FnVal::Text(range(u, -3i64, 3)?.to_string()),
        1 => FnVal::Text(int_text(u)?),
        2 => FnVal::Text(float_text(u)?),
        3 => FnVal::Text(u.arbitrary::<bool>()?.to_string()),
        4 => FnVal::TreeString(index(u)?),
        _ => FnVal::Text(quote(&rl_string(u)?)),
    })
}

/// A function's answer: a literal (12), or now and then a status (1, answered as its number).
fn function_value(u: &mut Unstructured<'_>) -> Result<FnVal> {
    Ok(match weighted(u, &[12, 1])? {
        0 => literal_value(u)?,
        _ => FnVal::Text(status_text(u)?),
    })
}

/// An action's answer: mostly a status (12), sometimes a number (0–2 is a status, 1; any, 1:
/// others mean failure).
fn action_value(u: &mut Unstructured<'_>) -> Result<String> {
    match weighted(u, &[12, 1, 1])? {
        0 => status_text(u),
        1 => Ok(range(u, 0, 2)?.to_string()),
        _ => int_text(u),
    }
}

fn val(u: &mut Unstructured<'_>) -> Result<Val> {
    Ok(Val {
        action: action_value(u)?,
        function: function_value(u)?,
    })
}

/// An answer in any of the four forms: constant (2), sequence of 2–5 values (2), cycle of 1–5
/// (3), schedule of 1–4 entries (2).
pub fn answer(u: &mut Unstructured<'_>) -> Result<AnswerSpec> {
    Ok(match weighted(u, &[2, 2, 3, 2])? {
        0 => AnswerSpec::Const(val(u)?),
        1 => AnswerSpec::Seq(repeat(u, 2, 5, val)?),
        2 => AnswerSpec::Cycle(repeat(u, 1, 5, val)?),
        _ => AnswerSpec::Schedule(repeat(u, 1, 4, |u| {
            Ok((range(u, 0, MAX_TICKS - 1)?, u.arbitrary()?, val(u)?))
        })?),
    })
}

/// A rule, a quarter of the time only for an argument list (one the tree uses, 3 in 4, or any)
/// and a quarter of the time only for one of agents 0–3.
pub fn rule(u: &mut Unstructured<'_>) -> Result<RuleSpec> {
    let args = maybe(u, 1, 4, |u| {
        Ok(match weighted(u, &[3, 1])? {
            0 => ArgsSpec::Seen(index(u)?),
            _ => ArgsSpec::Given(repeat(u, 0, 2, literal_value)?),
        })
    })?;
    Ok(RuleSpec {
        args,
        agent: maybe(u, 1, 4, |u| range(u, 0, 3))?,
        answer: answer(u)?,
    })
}

/// Time steps between ticks: mostly forward by a few to a few hundred ms, sometimes not at
/// all, rarely backwards or by a huge jump.
pub fn dt(u: &mut Unstructured<'_>) -> Result<i64> {
    match weighted(u, &[40, 120, 160, 60, 5, 1])? {
        0 => Ok(0),
        1 => range(u, 1, 49),
        2 => range(u, 50, 399),
        3 => range(u, 400, 2999),
        4 => range(u, -100, -1),
        _ => Ok(i64::MAX / 4),
    }
}

/// A scenario for a tree with at most `imports` imports: 1–3 agents, 20–[`MAX_TICKS`] ticks,
/// a start time and step, explicit time steps 80% of the time (see [`dt`]), default answers
/// 70% of the time each, 0–3 rules per import (see [`rule`]) and 0–5 `entry` lines.
pub fn scenario_spec(u: &mut Unstructured<'_>, imports: usize) -> Result<ScenarioSpec> {
    let agents = range(u, 1, 3)?;
    let ticks = range(u, 20, MAX_TICKS)?;
    let start = range(u, -1000, 999)?;
    let step = range(u, 0, 299)?;
    let n = MAX_TICKS as usize;
    let dts = maybe(u, 4, 5, |u| repeat(u, n, n, dt))?;
    let default_action = maybe(u, 7, 10, status_text)?;
    let default_function = maybe(u, 7, 10, literal_value)?;
    let rules = repeat(u, imports, imports, |u| repeat(u, 0, 3, rule))?;
    let entries = repeat(u, 0, 5, |u| Ok((range(u, 0, MAX_TICKS - 1)?, index(u)?)))?;
    let inputs = repeat(u, 0, 8, input)?;
    Ok(ScenarioSpec {
        agents,
        ticks,
        start,
        step,
        dts,
        default_action,
        default_function,
        rules,
        entries,
        inputs,
    })
}

/// What a scenario needs to know about the tree.
struct TreeFacts {
    /// (name, kind, literal argument lists seen at its call sites).
    imports: Vec<(String, ImportKind, Vec<String>)>,
    /// Entry names.
    entries: Vec<String>,
    /// String literals and string variable defaults.
    strings: Vec<String>,
}

fn facts(tree: &Tree) -> TreeFacts {
    let mut args: Vec<BTreeSet<String>> = vec![BTreeSet::new(); tree.imports.len()];
    let mut record = |import: btvm::ImportId, a: &[Arg]| {
        let lits: Option<Vec<String>> = a
            .iter()
            .map(|a| match &a.value {
                Expr::Lit(l) => lit_text(l),
                _ => None,
            })
            .collect();
        if let (Some(l), Some(set)) = (lits, args.get_mut(import.index())) {
            set.insert(l.join(", "));
        }
    };
    let mut strings = BTreeSet::new();
    for n in &tree.nodes {
        if let NodeKind::Action(c) = &n.kind {
            record(c.import, &c.args);
        }
        for e in n.kind.exprs() {
            e.walk(|x| match x {
                Expr::Call(c) => record(c.import, &c.args),
                Expr::Lit(Lit::Str(s)) => {
                    strings.insert(s.clone());
                }
                _ => {}
            });
        }
    }
    for v in &tree.vars {
        if let Lit::Str(s) = &v.default {
            strings.insert(s.clone());
        }
    }
    TreeFacts {
        imports: tree
            .imports
            .iter()
            .zip(args)
            .map(|(i, a)| (i.name.clone(), i.kind, a.into_iter().collect()))
            .collect(),
        entries: tree.roots.iter().map(|e| e.name.clone()).collect(),
        strings: strings.into_iter().collect(),
    }
}

impl ScenarioSpec {
    /// Writes the scenario as text for `tree`.
    pub fn render(&self, tree: &Tree) -> String {
        let f = facts(tree);
        let fn_val = |v: &FnVal| match v {
            FnVal::Text(t) => t.clone(),
            FnVal::TreeString(k) if f.strings.is_empty() => quote(RL_STRINGS[k % RL_STRINGS.len()]),
            FnVal::TreeString(k) => quote(&f.strings[k % f.strings.len()]),
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# generated\nagents {}\nticks {}",
            self.agents, self.ticks
        );
        let _ = writeln!(s, "time {} {}", self.start, self.step);
        if let Some(dts) = &self.dts {
            let mut now = self.start;
            for (k, d) in dts.iter().enumerate().take(self.ticks as usize).skip(1) {
                now = now.saturating_add(*d);
                let _ = writeln!(s, "at {k} now {now}");
            }
        }
        if let Some(a) = &self.default_action {
            let _ = writeln!(s, "default action {a}");
        }
        if let Some(v) = &self.default_function {
            let _ = writeln!(s, "default function {}", fn_val(v));
        }
        for (rules, (name, kind, seen)) in self.rules.iter().zip(&f.imports) {
            let value = |v: &Val| match kind {
                ImportKind::Action => v.action.clone(),
                ImportKind::Function => fn_val(&v.function),
            };
            for r in rules {
                let mut line = format!("answer {}", quote(name));
                match &r.args {
                    Some(ArgsSpec::Seen(k)) if !seen.is_empty() => {
                        let _ = write!(line, "({})", seen[k % seen.len()]);
                    }
                    Some(ArgsSpec::Given(vs)) => {
                        let vs: Vec<String> = vs.iter().map(fn_val).collect();
                        let _ = write!(line, "({})", vs.join(", "));
                    }
                    _ => {}
                }
                if let Some(a) = r.agent {
                    let _ = write!(line, " agent {a}");
                }
                let list = |vs: &[Val]| vs.iter().map(value).collect::<Vec<_>>().join(", ");
                let answer = match &r.answer {
                    AnswerSpec::Const(v) => value(v),
                    AnswerSpec::Seq(vs) => list(vs),
                    AnswerSpec::Cycle(vs) => format!("cycle {}", list(vs)),
                    AnswerSpec::Schedule(es) => es
                        .iter()
                        .map(|(k, colon, v)| {
                            format!("@{k}{} {}", if *colon { ":" } else { "" }, value(v))
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                let _ = writeln!(s, "{line} = {answer}");
            }
        }
        if !f.entries.is_empty() {
            for (k, e) in &self.entries {
                let _ = writeln!(s, "at {k} entry {}", quote(&f.entries[e % f.entries.len()]));
            }
        }
        if matches!(tree.config.model, btvm_compiler::ir::Model::Decider { .. }) {
            for i in &self.inputs {
                let who = i.agent.map_or(String::new(), |a| format!(" agent {a}"));
                match i.what {
                    Ok(word) => {
                        let _ = writeln!(s, "at {}{who} flags 0x{word:x}", i.tick);
                    }
                    Err(_) if tree.stimuli.is_empty() => {}
                    Err((k, timeout, data)) => {
                        let name = quote(&tree.stimuli[k % tree.stimuli.len()]);
                        let _ = write!(s, "at {}{who} stimulus {name}", i.tick);
                        if let Some(t) = timeout {
                            let _ = write!(s, " for {t}");
                        }
                        let _ = writeln!(s, " data {data}");
                    }
                }
            }
        }
        s
    }
}
