//! The node table's section of a program file (`spec/bytecode.md` §5): written after the
//! code, in every file from version 9 (an absent table is an empty one; version 10 adds the
//! cells, version 11 the tree's names). The file's header checksum
//! covers it; the program's fingerprint does not (it is over the body only).
//!
//! Reading never trusts a count: each is checked against the bytes that remain before anything
//! is allocated. Reading only decodes; the verifier checks what the table says.

use super::codec::Reader;
use super::error::{ProgramError, ProgramErrorKind as K};
use super::nodes::{ArgNames, Cell, CellKind, NodeInfo, NodeTable, Overlay, Probe, TreeNames};
use super::Field;

/// The first bytes of the node-table section.
pub const NODE_MAGIC: &[u8; 8] = b"BTVMNODE";

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

fn put_opt(out: &mut Vec<u8>, v: Option<u32>) {
    put_u32(out, v.map_or(0, |v| v.saturating_add(1)));
}

/// Appends the section for `t` to `out`.
pub fn encode(t: &NodeTable, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    put_len(&mut body, t.files.len());
    for f in &t.files {
        put_str(&mut body, f);
    }
    put_len(&mut body, t.nodes.len());
    for n in &t.nodes {
        put_str(&mut body, &n.kind);
        body.push(u8::from(n.name.is_some()));
        put_str(&mut body, n.name.as_deref().unwrap_or(""));
        put_opt(&mut body, n.parent);
        // A path key repeats its parent's: only what follows `PARENT/` is written.
        let parent_key = n
            .parent
            .and_then(|p| t.nodes.get(p as usize))
            .map(|p| &p.key);
        match parent_key.and_then(|pk| n.key.strip_prefix(pk.as_str())?.strip_prefix('/')) {
            Some(rest) => {
                body.push(1);
                put_str(&mut body, rest);
            }
            None => {
                body.push(0);
                put_str(&mut body, &n.key);
            }
        }
        put_opt(&mut body, n.file);
        put_u32(&mut body, n.line);
        put_u32(&mut body, n.column);
    }
    put_len(&mut body, t.probes.len());
    for &(node, probe) in &t.probes {
        put_u32(&mut body, node);
        let (tag, a, b) = match probe {
            Probe::Listed(x) => (0, x, 0),
            Probe::Current(x) => (1, x, 0),
            Probe::Rule(x) => (2, x, 0),
            Probe::Root => (3, 0, 0),
            Probe::Child { group, child } => (4, group, child),
            Probe::Live(x) => (5, x, 0),
            Probe::Leaf(x) => (6, x, 0),
        };
        body.push(tag);
        put_u32(&mut body, a);
        put_u32(&mut body, b);
    }
    put_len(&mut body, t.code.len());
    for &n in &t.code {
        put_u32(&mut body, n);
    }
    put_cells(&mut body, &t.cells);
    put_overlays(&mut body, &t.overlays);
    put_names(&mut body, &t.names);
    out.extend_from_slice(NODE_MAGIC);
    put_len(out, body.len());
    out.extend_from_slice(&body);
}

/// The cells (version 10 on; a version-9 section ends before them).
fn put_cells(body: &mut Vec<u8>, cells: &[Cell]) {
    put_len(body, cells.len());
    for c in cells {
        put_opt(body, c.node);
        put_str(body, &c.key);
        put_u32(body, c.bit);
        put_u32(body, c.bits);
        let (tag, a, b) = match c.kind {
            CellKind::Data => (0, 0, 0),
            CellKind::Child { bias } => (1, bias, 0),
            CellKind::Children => (2, 0, 0),
            CellKind::Named { probe, bias } => (3, probe, bias),
            CellKind::ListCount => (4, 0, 0),
        };
        body.extend_from_slice(&[tag, a, b]);
    }
}

/// The overlays (version 11 on; a version-10 section ends before them).
fn put_overlays(body: &mut Vec<u8>, overlays: &[Overlay]) {
    put_len(body, overlays.len());
    for o in overlays {
        put_u32(body, o.node);
        put_u32(body, o.field.offset);
        body.push(o.field.width);
        put_u32(body, o.value);
    }
}

fn overlay_list(r: &mut Reader<'_>, version: u16) -> Result<Vec<Overlay>, ProgramError> {
    // Before version 11 the section ends with the cells (bytes after them are refused).
    if version < 11 || r.remaining() == 0 {
        return Ok(Vec::new());
    }
    let n = count(r, 13, "overlays")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let node = r.u32()?;
        let offset = r.u32()?;
        let width = r.u8()?;
        let value = r.u32()?;
        out.push(Overlay {
            node,
            field: Field { offset, width },
            value,
        });
    }
    Ok(out)
}

/// The tree's names (version 11 on; a version-10 section ends after the cells).
fn put_names(body: &mut Vec<u8>, names: &TreeNames) {
    for list in [&names.flags, &names.stimuli] {
        put_len(body, list.len());
        for s in list {
            put_str(body, s);
        }
    }
    put_len(body, names.args.len());
    for a in &names.args {
        put_u32(body, a.import);
        put_len(body, a.names.len());
        for n in &a.names {
            body.push(u8::from(n.is_some()));
            put_str(body, n.as_deref().unwrap_or(""));
        }
    }
}

fn name_list(r: &mut Reader<'_>) -> Result<TreeNames, ProgramError> {
    // A version-9 or version-10 section ends before them.
    if r.remaining() == 0 {
        return Ok(TreeNames::default());
    }
    let mut lists = [Vec::new(), Vec::new()];
    for list in &mut lists {
        let n = count(r, 4, "names")?;
        *list = (0..n).map(|_| string(r)).collect::<Result<_, _>>()?;
    }
    let [flags, stimuli] = lists;
    let n = count(r, 8, "argument-name lists")?;
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        let import = r.u32()?;
        let k = count(r, 5, "argument names")?;
        let mut names = Vec::with_capacity(k);
        for _ in 0..k {
            let named = r.u8()?;
            let name = string(r)?;
            names.push(match named {
                0 if name.is_empty() => None,
                1 => Some(name),
                _ => return Err(r.error(K::BadOperand, "a malformed argument name")),
            });
        }
        args.push(ArgNames { import, names });
    }
    Ok(TreeNames {
        flags,
        stimuli,
        args,
    })
}

fn cell_list(r: &mut Reader<'_>, version: u16) -> Result<Vec<Cell>, ProgramError> {
    // A version-9 section ends with the code map (bytes after it are refused).
    if version < 10 || r.remaining() == 0 {
        return Ok(Vec::new());
    }
    let n = count(r, 19, "cells")?;
    let mut cells = Vec::with_capacity(n);
    for _ in 0..n {
        let node = opt(r)?;
        let key = string(r)?;
        let (bit, bits) = (r.u32()?, r.u32()?);
        let (tag, a, b) = (r.u8()?, r.u8()?, r.u8()?);
        let kind = match tag {
            0 => CellKind::Data,
            1 => CellKind::Child { bias: a },
            2 => CellKind::Children,
            3 => CellKind::Named { probe: a, bias: b },
            4 => CellKind::ListCount,
            t => return Err(r.error(K::BadOperand, format!("cell kind {t}"))),
        };
        cells.push(Cell {
            node,
            key,
            bit,
            bits,
            kind,
        });
    }
    Ok(cells)
}

/// Reads the section at `r` of a file of format `version`: the cells only from version 10,
/// the tree names only from version 11 (each may be absent at the section's end), so a file
/// that claims an older version than its section has is refused.
pub fn decode(r: &mut Reader<'_>, version: u16) -> Result<NodeTable, ProgramError> {
    if r.bytes(NODE_MAGIC.len())? != &NODE_MAGIC[..] {
        return Err(r.error(
            K::TrailingBytes,
            "bytes after the code that are not a node table",
        ));
    }
    let len = r.u32()? as usize;
    let body = r.bytes(len)?;
    let mut b = Reader::new(body);
    let table = decode_table(&mut b, version)?;
    if b.remaining() != 0 {
        return Err(b.error(
            K::TrailingBytes,
            "bytes after the node table's last part in this format version",
        ));
    }
    Ok(table)
}

fn count(r: &mut Reader<'_>, min: usize, what: &str) -> Result<usize, ProgramError> {
    let n = r.u32()? as usize;
    if n.saturating_mul(min) > r.remaining() {
        return Err(r.error(K::Truncated, format!("{n} {what} cannot fit")));
    }
    Ok(n)
}

fn string(r: &mut Reader<'_>) -> Result<String, ProgramError> {
    let n = r.u32()? as usize;
    let bytes = r.bytes(n)?;
    String::from_utf8(bytes.to_vec()).map_err(|_| r.error(K::BadOperand, "a name is not UTF-8"))
}

fn opt(r: &mut Reader<'_>) -> Result<Option<u32>, ProgramError> {
    Ok(r.u32()?.checked_sub(1))
}

fn decode_table(r: &mut Reader<'_>, version: u16) -> Result<NodeTable, ProgramError> {
    let n = count(r, 4, "files")?;
    let files = (0..n).map(|_| string(r)).collect::<Result<_, _>>()?;
    let n = count(r, 30, "nodes")?;
    let mut nodes: Vec<NodeInfo> = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = string(r)?;
        let named = r.u8()?;
        let name = string(r)?;
        let parent = opt(r)?;
        let key = match r.u8()? {
            0 => string(r)?,
            1 => {
                let rest = string(r)?;
                let Some(p) = parent.and_then(|p| nodes.get(p as usize)) else {
                    return Err(r.error(K::BadOperand, "a path key without an earlier parent"));
                };
                if p.key.len().saturating_add(rest.len()) >= super::MAX_NODE_TEXT {
                    return Err(r.error(K::TooLarge, "a node key past the text limit"));
                }
                format!("{}/{rest}", p.key)
            }
            b => return Err(r.error(K::BadOperand, format!("key form {b}"))),
        };
        nodes.push(NodeInfo {
            kind,
            name: match named {
                0 => None,
                1 => Some(name),
                b => return Err(r.error(K::BadOperand, format!("{b} is not a flag"))),
            },
            key,
            parent,
            file: opt(r)?,
            line: r.u32()?,
            column: r.u32()?,
        });
    }
    let n = count(r, 13, "probes")?;
    let mut probes = Vec::with_capacity(n);
    for _ in 0..n {
        let node = r.u32()?;
        let tag = r.u8()?;
        let (a, b) = (r.u32()?, r.u32()?);
        let probe = match tag {
            0 => Probe::Listed(a),
            1 => Probe::Current(a),
            2 => Probe::Rule(a),
            3 => Probe::Root,
            4 => Probe::Child { group: a, child: b },
            5 => Probe::Live(a),
            6 => Probe::Leaf(a),
            t => return Err(r.error(K::BadOperand, format!("probe kind {t}"))),
        };
        probes.push((node, probe));
    }
    let n = count(r, 4, "code map entries")?;
    let code = (0..n).map(|_| r.u32()).collect::<Result<_, _>>()?;
    let cells = cell_list(r, version)?;
    let overlays = overlay_list(r, version)?;
    let names = match version >= 11 {
        true => name_list(r)?,
        false => TreeNames::default(),
    };
    Ok(NodeTable {
        files,
        nodes,
        probes,
        code,
        cells,
        overlays,
        names,
    })
}
