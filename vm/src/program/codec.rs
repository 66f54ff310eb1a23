//! The program file format: writing and reading [`ProgramParts`] as bytes.
//!
//! Reading never trusts a length: every count is checked against the bytes that remain before
//! anything is allocated, so a hostile file cannot make the reader allocate more than a small
//! multiple of its own size. Reading only decodes; [`super::verify`] decides whether the
//! result may run.

use super::error::{ProgramError, ProgramErrorKind};
use super::isa::Instr;
use super::{Field, Function, FunctionKind, Layout, ProgramModel, ProgramParts, Rule};
use crate::{Import, ImportKind, Limits, SlotClaims, StrId, Value};

/// The first bytes of every program file.
pub const MAGIC: &[u8; 8] = b"BTVMPROG";
/// The format version this build reads and writes.
pub const VERSION: u16 = 11;
/// The oldest format version this build still reads (version 8 files have no node table).
pub const OLDEST_VERSION: u16 = 8;

/// A bounds-checked little-endian reader over a byte slice.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    /// The current byte offset.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// An error at the current offset.
    pub fn error(&self, kind: ProgramErrorKind, what: impl std::fmt::Display) -> ProgramError {
        ProgramError::new(kind, format!("{what} (at byte {})", self.pos))
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ProgramError> {
        if n > self.remaining() {
            return Err(self.error(
                ProgramErrorKind::Truncated,
                format!("expected {n} more bytes, found {}", self.remaining()),
            ));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], ProgramError> {
        let mut out = [0; N];
        out.copy_from_slice(self.bytes(N)?);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, ProgramError> {
        Ok(self.array::<1>()?[0])
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> Result<u16, ProgramError> {
        self.array().map(u16::from_le_bytes)
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, ProgramError> {
        self.array().map(u32::from_le_bytes)
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, ProgramError> {
        self.array().map(u64::from_le_bytes)
    }

    /// A count of items, each at least `min_item_bytes` long, checked against what remains.
    fn count(&mut self, min_item_bytes: usize, what: &str) -> Result<usize, ProgramError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_item_bytes) > self.remaining() {
            return Err(self.error(
                ProgramErrorKind::Truncated,
                format!(
                    "{n} {what} cannot fit in the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }

    fn flag(&mut self) -> Result<bool, ProgramError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.error(ProgramErrorKind::BadOperand, format!("{b} is not a flag"))),
        }
    }

    fn string(&mut self) -> Result<String, ProgramError> {
        let n = self.u32()? as usize;
        let bytes = self.bytes(n)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| self.error(ProgramErrorKind::BadOperand, "a string is not UTF-8"))
    }

    fn field(&mut self) -> Result<Field, ProgramError> {
        Ok(Field {
            offset: self.u32()?,
            width: self.u8()?,
        })
    }
}

/// FNV-1a, 64 bits: the program fingerprint.
pub fn fingerprint(body: &[u8]) -> u64 {
    body.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The whole file: the header's checksum is over everything after it (the body and the node
/// table's section); the program's own fingerprint is over the body only (see
/// [`crate::Program::fingerprint`]), so tables that differ (source positions) do not change
/// it.
pub fn encode(parts: &ProgramParts) -> Vec<u8> {
    let mut rest = encode_body(parts);
    super::node_codec::encode(&parts.nodes, &mut rest);
    let mut out = Vec::with_capacity(rest.len() + 18);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&fingerprint(&rest).to_le_bytes());
    out.extend_from_slice(&rest);
    out
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    put_u32(out, u32::try_from(n).unwrap_or(u32::MAX));
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_field(out: &mut Vec<u8>, f: Field) {
    put_u32(out, f.offset);
    out.push(f.width);
}

/// Everything after the header; the fingerprint is computed over these bytes.
pub fn encode_body(parts: &ProgramParts) -> Vec<u8> {
    let mut out = Vec::new();
    match parts.model {
        ProgramModel::RunningList => out.push(0),
        ProgramModel::Cursor { limit } => {
            out.push(1);
            put_u32(&mut out, limit);
        }
        ProgramModel::Decider { limit } => {
            out.push(2);
            put_u32(&mut out, limit);
        }
        ProgramModel::Lifecycle => out.push(3),
        ProgramModel::Selection { limit } => {
            out.push(4);
            put_u32(&mut out, limit);
        }
    }
    out.push(u8::from(parts.single_precision));
    put_u32(&mut out, parts.clock);
    let l = &parts.layout;
    put_u32(&mut out, l.size);
    put_field(&mut out, l.current);
    put_u32(&mut out, l.actions);
    put_field(&mut out, l.count);
    for v in [l.capacity, l.list, l.bits, l.timers, l.timer_count] {
        put_u32(&mut out, v);
    }
    out.push(u8::from(l.rng.is_some()));
    put_u32(&mut out, l.rng.unwrap_or(0));
    put_field(&mut out, l.cursor);
    put_field(&mut out, l.flags);
    for v in [l.decider, l.groups, l.group_count, l.stimuli, parts.stimuli] {
        put_u32(&mut out, v);
    }
    for v in [
        l.vars,
        l.var_count,
        l.stamps,
        l.stamp_count,
        l.records,
        l.records_len,
    ] {
        put_u32(&mut out, v);
    }
    put_field(&mut out, l.leaf);
    put_u32(&mut out, l.leaves);
    put_len(&mut out, parts.strings.len());
    for s in &parts.strings {
        put_str(&mut out, s);
    }
    put_len(&mut out, parts.imports.len());
    for i in &parts.imports {
        put_str(&mut out, &i.name);
        out.push(match i.kind {
            ImportKind::Action => 0,
            ImportKind::Function => 1,
        });
        out.extend_from_slice(&[
            i.min_args,
            i.max_args,
            u8::from(i.long_running),
            i.claims.bits(),
        ]);
        match &i.script {
            None => out.push(0),
            Some(code) => {
                out.push(1);
                put_str(&mut out, code);
            }
        }
    }
    put_len(&mut out, parts.vars.len());
    for v in &parts.vars {
        let (tag, bits) = match *v {
            Value::Bool(b) => (0u8, u64::from(b)),
            Value::Int(i) => (1, i as u64),
            Value::Float(x) => (2, x.to_bits()),
            Value::Str(s) => (3, u64::from(s.0)),
        };
        out.push(tag);
        out.extend_from_slice(&bits.to_le_bytes());
    }
    put_len(&mut out, parts.var_names.len());
    for n in &parts.var_names {
        put_str(&mut out, n);
    }
    put_u32(&mut out, parts.temps);
    put_len(&mut out, parts.functions.len());
    for f in &parts.functions {
        put_str(&mut out, &f.name);
        out.push(match f.kind {
            FunctionKind::Entry => 0,
            FunctionKind::Subtree => 1,
            FunctionKind::Event => 2,
            FunctionKind::Restart => 3,
        });
        put_u32(&mut out, f.start);
        put_u32(&mut out, f.end);
    }
    put_len(&mut out, parts.rules.len());
    for r in &parts.rules {
        put_u32(&mut out, r.label);
        out.push(u8::from(r.id.is_some()));
        put_str(&mut out, r.id.as_deref().unwrap_or(""));
    }
    put_len(&mut out, parts.code.len());
    for i in &parts.code {
        i.encode(&mut out);
    }
    out
}

/// Reads a file into parts (not verified).
pub fn decode(bytes: &[u8], limits: &Limits) -> Result<ProgramParts, ProgramError> {
    if bytes.len() > limits.max_program_bytes {
        return Err(ProgramError::new(
            ProgramErrorKind::TooLarge,
            format!(
                "the program is {} bytes; the limit is {}",
                bytes.len(),
                limits.max_program_bytes
            ),
        ));
    }
    let mut r = Reader::new(bytes);
    if r.bytes(MAGIC.len()).ok() != Some(&MAGIC[..]) {
        return Err(ProgramError::new(
            ProgramErrorKind::BadMagic,
            "not a btvm program (the file does not start with `BTVMPROG`)",
        ));
    }
    let version = r.u16()?;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(ProgramError::new(
            ProgramErrorKind::BadVersion,
            format!(
                "program format version {version}; this btvm reads versions {OLDEST_VERSION} to {VERSION}"
            ),
        ));
    }
    let stored = r.u64()?;
    let body_start = r.position();
    let mut parts = decode_body(&mut r)?;
    // Version 8 files end with the code; from version 9 the node table's section follows.
    if version >= 9 {
        parts.nodes = super::node_codec::decode(&mut r, version)?;
    }
    if r.remaining() != 0 {
        return Err(r.error(
            ProgramErrorKind::TrailingBytes,
            format!("{} bytes after the code", r.remaining()),
        ));
    }
    let actual = fingerprint(&bytes[body_start..]);
    if actual != stored {
        return Err(ProgramError::new(
            ProgramErrorKind::Fingerprint,
            format!("stored checksum {stored:016x}, contents hash to {actual:016x}"),
        ));
    }
    Ok(parts)
}

fn decode_body(r: &mut Reader<'_>) -> Result<ProgramParts, ProgramError> {
    let model = decode_model(r)?;
    let single_precision = r.flag()?;
    let clock = r.u32()?;
    let (layout, stimuli) = decode_layout(r)?;
    let strings = decode_strings(r, "strings")?;
    let imports = decode_imports(r)?;
    let vars = decode_vars(r)?;
    let var_names = decode_strings(r, "variable names")?;
    let temps = r.u32()?;
    let functions = decode_functions(r)?;
    let rules = decode_rules(r)?;
    let n = r.count(1, "instructions")?;
    let mut code = Vec::with_capacity(n);
    for _ in 0..n {
        code.push(Instr::decode(r)?);
    }
    Ok(ProgramParts {
        model,
        single_precision,
        clock,
        layout,
        strings,
        imports,
        vars,
        var_names,
        temps,
        functions,
        rules,
        stimuli,
        code,
        nodes: super::NodeTable::default(),
    })
}

/// The execution model, with its limit where it has one.
fn decode_model(r: &mut Reader<'_>) -> Result<ProgramModel, ProgramError> {
    Ok(match r.u8()? {
        0 => ProgramModel::RunningList,
        1 => ProgramModel::Cursor { limit: r.u32()? },
        2 => ProgramModel::Decider { limit: r.u32()? },
        3 => ProgramModel::Lifecycle,
        4 => ProgramModel::Selection { limit: r.u32()? },
        m => return Err(r.error(ProgramErrorKind::BadOperand, format!("unknown model {m}"))),
    })
}

/// The state-block layout, and the number of stimuli.
fn decode_layout(r: &mut Reader<'_>) -> Result<(Layout, u32), ProgramError> {
    let size = r.u32()?;
    let current = r.field()?;
    let actions = r.u32()?;
    let count = r.field()?;
    let [capacity, list, bits, timers, timer_count] =
        [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
    let has_rng = r.flag()?;
    let rng_at = r.u32()?;
    if !has_rng && rng_at != 0 {
        // One program, one encoding: an absent slot is written as offset 0.
        return Err(r.error(
            ProgramErrorKind::BadOperand,
            "an absent rng slot has an offset",
        ));
    }
    let cursor = r.field()?;
    let flags = r.field()?;
    let [decider, groups, group_count, stimuli_at, stimuli] =
        [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
    let [vars_at, var_count, stamps, stamp_count, records, records_len] =
        [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
    let leaf = r.field()?;
    let leaves = r.u32()?;
    let layout = Layout {
        size,
        current,
        actions,
        count,
        capacity,
        list,
        bits,
        timers,
        timer_count,
        rng: has_rng.then_some(rng_at),
        cursor,
        flags,
        decider,
        groups,
        group_count,
        stimuli: stimuli_at,
        vars: vars_at,
        var_count,
        stamps,
        stamp_count,
        records,
        records_len,
        leaf,
        leaves,
    };
    Ok((layout, stimuli))
}

/// A count, then that many strings; `what` names them in errors.
fn decode_strings(r: &mut Reader<'_>, what: &str) -> Result<Vec<String>, ProgramError> {
    let n = r.count(4, what)?;
    let mut strings = Vec::with_capacity(n);
    for _ in 0..n {
        strings.push(r.string()?);
    }
    Ok(strings)
}

/// The import table.
fn decode_imports(r: &mut Reader<'_>) -> Result<Vec<Import>, ProgramError> {
    let n = r.count(10, "imports")?;
    let mut imports = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string()?;
        let kind = match r.u8()? {
            0 => ImportKind::Action,
            1 => ImportKind::Function,
            k => return Err(r.error(ProgramErrorKind::BadOperand, format!("import kind {k}"))),
        };
        let (min_args, max_args) = (r.u8()?, r.u8()?);
        let long_running = r.flag()?;
        let bits = r.u8()?;
        let claims = SlotClaims::from_bits(bits).ok_or_else(|| {
            r.error(
                ProgramErrorKind::BadOperand,
                format!("slot claims {bits:#x}"),
            )
        })?;
        let script = if r.flag()? { Some(r.string()?) } else { None };
        imports.push(Import {
            name,
            kind,
            min_args,
            max_args,
            long_running,
            claims,
            script,
        });
    }
    Ok(imports)
}

/// The variables' initial values.
fn decode_vars(r: &mut Reader<'_>) -> Result<Vec<Value>, ProgramError> {
    let n = r.count(9, "variables")?;
    let mut vars = Vec::with_capacity(n);
    for _ in 0..n {
        let tag = r.u8()?;
        let bits = r.u64()?;
        vars.push(match tag {
            0 if bits <= 1 => Value::Bool(bits == 1),
            1 => Value::Int(bits as i64),
            2 => Value::Float(f64::from_bits(bits)),
            3 if bits <= u64::from(u32::MAX) => Value::Str(StrId(bits as u32)),
            _ => return Err(r.error(ProgramErrorKind::BadOperand, "malformed variable value")),
        });
    }
    Ok(vars)
}

/// The function table.
fn decode_functions(r: &mut Reader<'_>) -> Result<Vec<Function>, ProgramError> {
    let n = r.count(13, "functions")?;
    let mut functions = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string()?;
        let kind = match r.u8()? {
            0 => FunctionKind::Entry,
            1 => FunctionKind::Subtree,
            2 => FunctionKind::Event,
            3 => FunctionKind::Restart,
            k => return Err(r.error(ProgramErrorKind::BadOperand, format!("function kind {k}"))),
        };
        functions.push(Function {
            name,
            kind,
            start: r.u32()?,
            end: r.u32()?,
        });
    }
    Ok(functions)
}

/// The rule table.
fn decode_rules(r: &mut Reader<'_>) -> Result<Vec<Rule>, ProgramError> {
    let n = r.count(9, "rules")?;
    let mut rules = Vec::with_capacity(n);
    for _ in 0..n {
        let label = r.u32()?;
        let has_id = r.flag()?;
        let id = r.string()?;
        if !has_id && !id.is_empty() {
            return Err(r.error(ProgramErrorKind::BadOperand, "a rule without an id has one"));
        }
        rules.push(Rule {
            label,
            id: has_id.then_some(id),
        });
    }
    Ok(rules)
}
