//! The scenario text format (`spec/cases/README.md`): one directive per line.

use std::path::Path;

use btvm::{Limits, Status};

use super::{Answer, AnswerRule, FlagWord, Input, InputKind, Scenario, ScriptValue};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ir::Lit;
use crate::source::{FileId, SourceMap, Span};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Int(i64),
    Float(f64),
    Str(String),
    Punct(char),
}

struct Line<'a> {
    toks: Vec<(Tok, Span)>,
    pos: usize,
    end: Span,
    _text: &'a str,
}

/// Parses a scenario held in `file` (for spans) with text `text`, within the default
/// [`Limits`].
pub fn parse_scenario(file: FileId, text: &str) -> crate::diag::Result<Scenario> {
    parse_scenario_with(file, text, &Limits::default())
}

/// Reads a scenario file's bytes: registers them in `sources` as `path` (refusing more than
/// [`Limits::max_source_bytes`], and invalid UTF-8 at its first bad byte, as tree files are
/// refused: [`SourceMap::add_checked`]), then parses them within `limits`.
pub fn load_scenario(
    path: &Path,
    bytes: Vec<u8>,
    sources: &mut SourceMap,
    limits: &Limits,
) -> crate::diag::Result<Scenario> {
    let id = sources
        .add_checked(path, bytes, limits.max_source_bytes)
        .map_err(|d| vec![d])?;
    let text = sources.get(id).map_or("", |f| &*f.text);
    parse_scenario_with(id, text, limits)
}

/// [`parse_scenario`] within `limits`: more agents than [`Limits::max_agents`], more ticks
/// than [`Limits::max_ticks`], or more agent-ticks than [`Limits::max_agent_ticks`] is an
/// [`ErrorKind::ScenarioTooLarge`] at the number that passes the limit.
pub fn parse_scenario_with(
    file: FileId,
    text: &str,
    limits: &Limits,
) -> crate::diag::Result<Scenario> {
    let mut scn = Scenario::default();
    let mut errors = Vec::new();
    let mut offset = 0usize;
    // Where the last `agents` or `ticks` number was written.
    let mut size_at = Span::new(file, 0, 0);
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let body = raw.split('#').next().unwrap_or("");
        // A `#` inside a string is not a comment: re-scan if there is a quote before it.
        let body = if body.contains('"') {
            strip_comment(raw)
        } else {
            body
        };
        match tokenize(file, start, body) {
            Ok(toks) if toks.is_empty() => {}
            Ok(toks) => {
                let end = Span::new(
                    file,
                    start + body.trim_end().len(),
                    start + body.trim_end().len(),
                );
                if matches!(&toks[0].0, Tok::Word(w) if w == "agents" || w == "ticks") {
                    size_at = toks.get(1).map_or(end, |t| t.1);
                }
                let mut line = Line {
                    toks,
                    pos: 0,
                    end,
                    _text: body,
                };
                if let Err(d) = directive(&mut scn, &mut line, limits) {
                    errors.push(d);
                }
            }
            Err(d) => errors.push(d),
        }
    }
    let agent_ticks = u64::from(scn.agents) * u64::from(scn.ticks);
    if errors.is_empty() && agent_ticks > limits.max_agent_ticks {
        errors.push(too_large(
            size_at,
            format!(
                "{} agents x {} ticks is {agent_ticks} agent-ticks, more than the limit of {}",
                scn.agents, scn.ticks, limits.max_agent_ticks
            ),
        ));
    }
    if errors.is_empty() {
        Ok(scn)
    } else {
        Err(errors)
    }
}

/// A scenario past a limit of [`Limits`].
fn too_large(at: Span, message: String) -> Diagnostic {
    Diagnostic::new(ErrorKind::ScenarioTooLarge, at, message)
        .with_note("`btvm::Limits` bounds scenarios: max_agents, max_ticks, max_agent_ticks")
}

/// `agents N` or `ticks N` within `limit`.
fn bounded_count(line: &mut Line<'_>, what: &str, limit: u32) -> Result<u32, Diagnostic> {
    let at = line.here();
    let n = line.count(&format!("the number of {what}"))?;
    if n > limit {
        return Err(too_large(
            at,
            format!("{n} {what} is more than the limit of {limit}"),
        ));
    }
    Ok(n)
}

fn strip_comment(raw: &str) -> &str {
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in raw.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_str => escaped = true,
            '"' => in_str = !in_str,
            '#' if !in_str => return &raw[..i],
            _ => {}
        }
    }
    raw
}

fn tokenize(file: FileId, base: usize, s: &str) -> Result<Vec<(Tok, Span)>, Diagnostic> {
    let bytes = s.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let span = |a: usize, b: usize| Span::new(file, base + a, base + b);
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            toks.push((Tok::Word(s[start..i].to_string()), span(start, i)));
        } else if c.is_ascii_digit()
            || (c == b'-'
                && bytes
                    .get(i + 1)
                    .is_some_and(|b| b.is_ascii_digit() || *b == b'.'))
            || c == b'.'
        {
            i += 1;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'.'
                    || ((bytes[i] == b'-' || bytes[i] == b'+')
                        && matches!(bytes[i - 1], b'e' | b'E')
                        && !s[start..i].starts_with("0x")))
            {
                i += 1;
            }
            let text = &s[start..i];
            let tok = number(text).ok_or_else(|| {
                let digits = text.trim_start_matches('-');
                let hex = digits
                    .strip_prefix("0x")
                    .or_else(|| digits.strip_prefix("0X"));
                let integer = match hex {
                    Some(h) => !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()),
                    None => digits.bytes().all(|b| b.is_ascii_digit()),
                };
                if integer {
                    Diagnostic::new(
                        ErrorKind::LiteralOverflow,
                        span(start, i),
                        format!("`{text}` does not fit in a 64-bit integer"),
                    )
                    .with_note(format!(
                        "integers range from {} to {}",
                        i64::MIN,
                        i64::MAX
                    ))
                } else {
                    Diagnostic::new(
                        ErrorKind::InvalidValue,
                        span(start, i),
                        format!("`{text}` is not a number"),
                    )
                }
            })?;
            toks.push((tok, span(start, i)));
        } else if c == b'"' {
            i += 1;
            let mut out = String::new();
            loop {
                let Some(ch) = s[i..].chars().next() else {
                    return Err(Diagnostic::new(
                        ErrorKind::UnterminatedString,
                        span(start, i),
                        "unterminated string",
                    ));
                };
                i += ch.len_utf8();
                match ch {
                    '"' => break,
                    '\\' => {
                        let Some(e) = s[i..].chars().next() else {
                            return Err(Diagnostic::new(
                                ErrorKind::UnterminatedString,
                                span(start, i),
                                "unterminated string",
                            ));
                        };
                        i += e.len_utf8();
                        out.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            '\\' => '\\',
                            '"' => '"',
                            _ => {
                                return Err(Diagnostic::new(
                                    ErrorKind::BadEscape,
                                    span(i - 2, i),
                                    format!("unknown escape `\\{e}`"),
                                ))
                            }
                        });
                    }
                    '\n' | '\r' => {
                        return Err(Diagnostic::new(
                            ErrorKind::UnterminatedString,
                            span(start, i),
                            "unterminated string",
                        ))
                    }
                    ch => out.push(ch),
                }
            }
            toks.push((Tok::Str(out), span(start, i)));
        } else {
            let ch = s[i..].chars().next().unwrap_or('?');
            i += ch.len_utf8();
            if !matches!(ch, '=' | ',' | '(' | ')' | '@' | ':') {
                return Err(Diagnostic::new(
                    ErrorKind::BadToken,
                    span(start, i),
                    format!("unexpected `{ch}`"),
                ));
            }
            toks.push((Tok::Punct(ch), span(start, i)));
        }
    }
    Ok(toks)
}

fn number(text: &str) -> Option<Tok> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        let v = i64::from_str_radix(hex, 16).ok()?;
        return Some(Tok::Int(if neg { v.checked_neg()? } else { v }));
    }
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<i64>().ok().map(Tok::Int);
    }
    if digits
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
    {
        return text.parse::<f64>().ok().map(Tok::Float);
    }
    None
}

impl Line<'_> {
    fn next(&mut self) -> Option<(Tok, Span)> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn here(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |(_, s)| *s)
    }

    fn err(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(ErrorKind::Syntax, self.here(), msg)
    }

    fn word(&mut self, what: &str) -> Result<(String, Span), Diagnostic> {
        match self.next() {
            Some((Tok::Word(w), s)) | Some((Tok::Str(w), s)) => Ok((w, s)),
            _ => {
                self.pos -= 1;
                Err(self.err(format!("expected {what}")))
            }
        }
    }

    fn int(&mut self, what: &str) -> Result<i64, Diagnostic> {
        match self.next() {
            Some((Tok::Int(v), _)) => Ok(v),
            _ => {
                self.pos -= 1;
                Err(self.err(format!("expected {what} (an integer)")))
            }
        }
    }

    fn count(&mut self, what: &str) -> Result<u32, Diagnostic> {
        let span = self.here();
        let v = self.int(what)?;
        u32::try_from(v).map_err(|_| {
            Diagnostic::new(
                ErrorKind::InvalidValue,
                span,
                format!("{what} must be between 0 and {}", u32::MAX),
            )
        })
    }

    fn punct(&mut self, c: char) -> Result<(), Diagnostic> {
        match self.next() {
            Some((Tok::Punct(p), _)) if p == c => Ok(()),
            _ => {
                self.pos -= 1;
                Err(self.err(format!("expected `{c}`")))
            }
        }
    }

    fn done(&self) -> Result<(), Diagnostic> {
        if self.pos < self.toks.len() {
            Err(self.err("unexpected text at the end of the line"))
        } else {
            Ok(())
        }
    }

    fn lit(&mut self) -> Result<Lit, Diagnostic> {
        match self.next() {
            Some((Tok::Int(v), _)) => Ok(Lit::Int(v)),
            Some((Tok::Float(v), _)) => Ok(Lit::Float(v)),
            Some((Tok::Str(s), _)) => Ok(Lit::Str(s)),
            Some((Tok::Word(w), _)) if w == "true" => Ok(Lit::Bool(true)),
            Some((Tok::Word(w), _)) if w == "false" => Ok(Lit::Bool(false)),
            _ => {
                self.pos -= 1;
                Err(self.err("expected a value (number, string, true or false)"))
            }
        }
    }

    fn value(&mut self) -> Result<ScriptValue, Diagnostic> {
        if let Some(Tok::Word(w)) = self.peek() {
            if let Some(s) = Status::from_name(w) {
                self.pos += 1;
                return Ok(ScriptValue::Status(s));
            }
        }
        self.lit().map(ScriptValue::Lit)
    }
}

/// A Drag\[en\]gine context record written as hex bytes separated by spaces
/// (`"00 03 03 6f 6c 64"`), decoded whole.
fn context_record(hex: &str) -> Result<btvm::CursorSnapshot, String> {
    let mut bytes = Vec::new();
    for b in hex.split_ascii_whitespace() {
        let v = u8::from_str_radix(b, 16)
            .map_err(|_| format!("`{b}` is not a byte in hex (two digits, such as `0a`)"))?;
        bytes.push(v);
    }
    let (snap, rest) = btvm::CursorSnapshot::decode_context(&bytes).map_err(|e| e.to_string())?;
    if rest.is_empty() {
        Ok(snap)
    } else {
        Err(format!("{} bytes follow the record", rest.len()))
    }
}

/// `none`, an integer word, or flag names separated by commas.
fn flag_word(line: &mut Line<'_>) -> Result<FlagWord, Diagnostic> {
    match line.peek().cloned() {
        Some(Tok::Word(w)) if w == "none" => {
            line.pos += 1;
            Ok(FlagWord::Word(0))
        }
        Some(Tok::Int(_)) => {
            let span = line.here();
            let v = line.int("a flag word")?;
            u32::try_from(v).map(FlagWord::Word).map_err(|_| {
                Diagnostic::new(ErrorKind::InvalidValue, span, "a flag word has 32 bits")
            })
        }
        _ => {
            let mut names = vec![line.word("a flag name, a number or `none`")?.0];
            while line.peek() == Some(&Tok::Punct(',')) {
                line.pos += 1;
                names.push(line.word("a flag name")?.0);
            }
            Ok(FlagWord::Names(names))
        }
    }
}

/// One directive line, dispatched on its first word.
fn directive(scn: &mut Scenario, line: &mut Line<'_>, limits: &Limits) -> Result<(), Diagnostic> {
    let (word, span) = line.word("a directive")?;
    match word.as_str() {
        "agents" => scn.agents = bounded_count(line, "agents", limits.max_agents)?,
        "ticks" => scn.ticks = bounded_count(line, "ticks", limits.max_ticks)?,
        "time" => time(scn, line)?,
        "at" => at(scn, line, span)?,
        "default" => default(scn, line, span)?,
        "agent" => agent_group(scn, line)?,
        "missing" => missing(scn, line)?,
        "answer" => answer_rule(scn, line)?,
        "trace" => trace_level(scn, line)?,
        other => return Err(unknown_directive(other, span)),
    }
    line.done()
}

fn unknown_directive(word: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::Syntax,
        span,
        format!("unknown directive `{word}`"),
    )
    .with_note("directives: agents, ticks, time, at, default, missing, answer, trace")
}

/// `time START STEP`.
fn time(scn: &mut Scenario, line: &mut Line<'_>) -> Result<(), Diagnostic> {
    scn.time_start = line.int("the start time")?;
    scn.time_step = line.int("the time step")?;
    Ok(())
}

/// `at K [agent A] WHAT …`; `at` is at `span`.
fn at(scn: &mut Scenario, line: &mut Line<'_>, span: Span) -> Result<(), Diagnostic> {
    let k = line.count("a tick number")?;
    let mut agent = None;
    if line.peek() == Some(&Tok::Word("agent".into())) {
        line.pos += 1;
        agent = Some(line.count("an agent id")?);
    }
    let (what, what_span) =
        line.word("`now`, `entry`, `reset`, `flags`, `stimulus`, `event` or `set`")?;
    if agent.is_some() && !matches!(what.as_str(), "flags" | "stimulus" | "event" | "set") {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            what_span,
            "only `flags`, `stimulus`, `event` and `set` can be given to one agent",
        ));
    }
    match what.as_str() {
        "reset" => {
            scn.resets.insert(k);
        }
        "now" => {
            let t = line.int("a time")?;
            scn.now_at.insert(k, t);
        }
        "entry" => {
            let (name, _) = line.word("an entry point name")?;
            scn.entries.entry(k).or_default().push(name);
        }
        _ => {
            let (kind, span) = at_input(line, &what, what_span, span)?;
            scn.inputs
                .entry(k)
                .or_default()
                .push(Input { agent, kind, span });
        }
    }
    Ok(())
}

/// The input an `at K WHAT …` line gives the tree, with the span it is reported at; `what`
/// is at `what_span`, `at` at `at_span`.
fn at_input(
    line: &mut Line<'_>,
    what: &str,
    what_span: Span,
    at_span: Span,
) -> Result<(InputKind, Span), Diagnostic> {
    Ok(match what {
        "event" => {
            let (name, _) = line.word("an event name (an identifier or a string)")?;
            (InputKind::Event(name), what_span)
        }
        "set" => set_input(line)?,
        "flags" => (InputKind::Flags(flag_word(line)?), what_span),
        "stimulus" => (stimulus(line)?, what_span),
        "restore" => {
            let (hex, hex_span) = line.word("a quoted context record in hex")?;
            let snap = context_record(&hex)
                .map_err(|why| Diagnostic::new(ErrorKind::InvalidValue, hex_span, why))?;
            (InputKind::Restore(snap), what_span)
        }
        "reload" => (InputKind::SaveRestore, what_span),
        _ => {
            return Err(Diagnostic::new(
                ErrorKind::Syntax,
                at_span,
                "expected `at K now T`, `at K entry NAME`, `at K reset`, \
                 `at K flags …`, `at K stimulus NAME`, `at K event NAME`, \
                 `at K set VAR = true|false`, `at K restore \"HEX\"` or \
                 `at K reload`",
            ))
        }
    })
}

/// `set VAR = true|false` (after `at K`), reported at the variable.
fn set_input(line: &mut Line<'_>) -> Result<(InputKind, Span), Diagnostic> {
    let (var, var_span) = line.word("a variable name")?;
    line.punct('=')?;
    let value = match line.next() {
        Some((Tok::Word(w), _)) if w == "true" => true,
        Some((Tok::Word(w), _)) if w == "false" => false,
        _ => {
            line.pos -= 1;
            return Err(line.err("expected `true` or `false`"));
        }
    };
    Ok((InputKind::Set { var, value }, var_span))
}

/// `stimulus NAME [for MS] [data N]` (after `at K`).
fn stimulus(line: &mut Line<'_>) -> Result<InputKind, Diagnostic> {
    let (name, _) = line.word("a stimulus name")?;
    let mut timeout = None;
    let mut data = 0;
    while let Some(Tok::Word(w)) = line.peek().cloned() {
        line.pos += 1;
        match w.as_str() {
            "for" if timeout.is_none() => {
                let span = line.here();
                let ms = line.int("a timeout in ms")?;
                if ms < 0 {
                    return Err(Diagnostic::new(
                        ErrorKind::InvalidValue,
                        span,
                        "a stimulus timeout cannot be negative",
                    ));
                }
                timeout = Some(ms);
            }
            "data" => data = line.int("the stimulus data")?,
            _ => {
                line.pos -= 1;
                return Err(line.err("expected `for MS` or `data N`"));
            }
        }
    }
    Ok(InputKind::Stimulus {
        name,
        timeout,
        data,
    })
}

/// `default action STATUS` or `default function VALUE`; `default` is at `span`.
fn default(scn: &mut Scenario, line: &mut Line<'_>, span: Span) -> Result<(), Diagnostic> {
    let (what, _) = line.word("`action` or `function`")?;
    match (what.as_str(), line.value()?) {
        ("action", ScriptValue::Status(s)) => scn.default_action = s,
        ("function", ScriptValue::Lit(l)) => scn.default_function = l,
        _ => {
            return Err(Diagnostic::new(
                ErrorKind::InvalidValue,
                span,
                "expected `default action STATUS` or `default function VALUE`",
            ))
        }
    }
    Ok(())
}

/// `agent A group G`.
fn agent_group(scn: &mut Scenario, line: &mut Line<'_>) -> Result<(), Diagnostic> {
    let a = line.count("an agent id")?;
    let (w, at) = line.word("`group`")?;
    if w != "group" {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            at,
            format!("expected `group` after `agent {a}`, found `{w}`"),
        ));
    }
    let g = line.count("a group id")?;
    scn.groups.insert(a, g);
    Ok(())
}

/// `missing NAME`.
fn missing(scn: &mut Scenario, line: &mut Line<'_>) -> Result<(), Diagnostic> {
    let (name, span) = line.word("an import name")?;
    scn.missing.entry(name).or_insert(span);
    Ok(())
}

/// `trace nodes`: the trace shows node-level events too.
fn trace_level(scn: &mut Scenario, line: &mut Line<'_>) -> Result<(), Diagnostic> {
    let (level, span) = line.word("a trace level (`nodes`)")?;
    if level != "nodes" {
        return Err(Diagnostic::new(
            ErrorKind::Syntax,
            span,
            format!("unknown trace level `{}`", crate::diag::safe_text(&level)),
        )
        .with_note("the one trace level beyond host calls is `nodes`"));
    }
    scn.trace_nodes = true;
    Ok(())
}

/// `answer NAME [(ARGS)] [agent A] = ANSWER`.
fn answer_rule(scn: &mut Scenario, line: &mut Line<'_>) -> Result<(), Diagnostic> {
    let (name, name_span) = line.word("an import name")?;
    let mut args = None;
    let mut agent = None;
    if line.peek() == Some(&Tok::Punct('(')) {
        line.pos += 1;
        let mut list = Vec::new();
        if line.peek() != Some(&Tok::Punct(')')) {
            loop {
                list.push(line.lit()?);
                if line.peek() == Some(&Tok::Punct(',')) {
                    line.pos += 1;
                } else {
                    break;
                }
            }
        }
        line.punct(')')?;
        args = Some(list);
    }
    if line.peek() == Some(&Tok::Word("agent".into())) {
        line.pos += 1;
        agent = Some(line.count("an agent id")?);
    }
    line.punct('=')?;
    let answer = answer(line)?;
    scn.answers.push(AnswerRule {
        name,
        args,
        agent,
        answer,
        span: name_span,
    });
    Ok(())
}

fn answer(line: &mut Line<'_>) -> Result<Answer, Diagnostic> {
    if line.peek() == Some(&Tok::Punct('@')) {
        let mut entries: Vec<(u32, ScriptValue)> = Vec::new();
        loop {
            line.punct('@')?;
            let k = line.count("a tick number")?;
            if line.peek() == Some(&Tok::Punct(':')) {
                line.pos += 1;
            }
            entries.push((k, line.value()?));
            if line.peek() == Some(&Tok::Punct(',')) {
                line.pos += 1;
            } else {
                break;
            }
        }
        entries.sort_by_key(|(k, _)| *k);
        return Ok(Answer::Schedule(entries));
    }
    let cycle = line.peek() == Some(&Tok::Word("cycle".into()));
    if cycle {
        line.pos += 1;
    }
    let mut values = vec![line.value()?];
    while line.peek() == Some(&Tok::Punct(',')) {
        line.pos += 1;
        values.push(line.value()?);
    }
    Ok(match (cycle, values.len()) {
        (true, _) => Answer::Cycle(values),
        (false, 1) => Answer::Const(values.remove(0)),
        (false, _) => Answer::Seq(values),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_directive() {
        let text = "agents 2 # two\nticks 5\ntime 50 25\nat 3 now 1000\nat 0 entry selectClass\n\
                    default action running\ndefault function 1.5\n\
                    answer fight = running, success\nanswer cvar(\"g_#x\") agent 1 = \"on\"\n\
                    answer team = @0 1, @3: 2\nanswer roam = cycle running, success\n";
        let s = parse_scenario(FileId(0), text).unwrap();
        assert_eq!(
            (s.agents, s.ticks, s.time_start, s.time_step),
            (2, 5, 50, 25)
        );
        assert_eq!(s.now(0), 50);
        assert_eq!(s.now(2), 100);
        assert_eq!(s.now(3), 1000);
        assert_eq!(s.entries[&0], vec!["selectClass".to_string()]);
        assert_eq!(s.default_action, Status::Running);
        assert_eq!(s.default_function, Lit::Float(1.5));
        assert_eq!(s.answers.len(), 4);
        assert_eq!(
            s.answers[3].answer,
            Answer::Cycle(vec![
                ScriptValue::Status(Status::Running),
                ScriptValue::Status(Status::Success)
            ])
        );
        assert_eq!(s.answers[1].args, Some(vec![Lit::Str("g_#x".into())]));
        assert_eq!(s.answers[1].agent, Some(1));
        assert_eq!(
            s.answers[2].answer,
            Answer::Schedule(vec![
                (0, ScriptValue::Lit(Lit::Int(1))),
                (3, ScriptValue::Lit(Lit::Int(2)))
            ])
        );
    }

    #[test]
    fn parses_events_and_variable_sets_in_file_order() {
        let text = "at 2 event go\nat 2 agent 1 set Alive = true\nat 2 event \"a b\"\n\
                    at 0 set x=false\n";
        let s = parse_scenario(FileId(0), text).unwrap();
        let kinds: Vec<(Option<u32>, &InputKind)> =
            s.inputs[&2].iter().map(|i| (i.agent, &i.kind)).collect();
        assert_eq!(
            kinds,
            [
                (None, &InputKind::Event("go".into())),
                (
                    Some(1),
                    &InputKind::Set {
                        var: "Alive".into(),
                        value: true
                    }
                ),
                (None, &InputKind::Event("a b".into())),
            ]
        );
        assert_eq!(
            s.inputs[&0][0].kind,
            InputKind::Set {
                var: "x".into(),
                value: false
            }
        );
        for bad in [
            "at 1 set x = 1\n",
            "at 1 set x true\n",
            "at 1 event\n",
            "at 1 event a b\n",
        ] {
            let errs = parse_scenario(FileId(0), bad).unwrap_err();
            assert_eq!(errs[0].kind, ErrorKind::Syntax, "{bad}");
        }
    }

    #[test]
    fn errors_are_positioned() {
        let errs = parse_scenario(FileId(0), "ticks 3\nbogus 1\nticks x\nanswer a = \"open\n")
            .unwrap_err();
        assert_eq!(errs.len(), 3);
        assert_eq!(errs[0].span.start, 8);
        assert_eq!(errs[1].kind, ErrorKind::Syntax);
        assert_eq!(errs[2].kind, ErrorKind::UnterminatedString);
        let errs = parse_scenario(FileId(0), "ticks -1\n").unwrap_err();
        assert_eq!(errs[0].kind, ErrorKind::InvalidValue);
    }
}
