//! The node table (introspection): the verifier refuses broken tables, version-8 files (no
//! table) still load, and `Program::active_path` never panics on any state bytes.

use super::*;
use btvm::program::{Cell, CellKind, NodeInfo, Probe};

/// A program of every model, each lowered with its node table.
fn tabled() -> Vec<(&'static str, ProgramParts)> {
    let mut out = vec![("all", base())];
    for (name, p) in programs() {
        out.push((name, p.parts().clone()));
    }
    out
}

#[test]
fn lowered_programs_carry_a_table_of_every_node() {
    for (name, p) in tabled() {
        assert!(!p.nodes.nodes.is_empty(), "{name}");
        verify(p, &limits()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn broken_tables_are_refused() {
    let p = base();
    let n = p.nodes.nodes.len() as u32;
    let last = n as usize - 1;
    let cases: Vec<(&str, Mutation<'_, ProgramParts>, K)> = vec![
        (
            "parent out of range",
            Box::new(move |p| p.nodes.nodes[1].parent = Some(n)),
            K::BadOperand,
        ),
        (
            "parent after the node",
            Box::new(|p| p.nodes.nodes[1].parent = Some(1)),
            K::BadOperand,
        ),
        (
            "file out of range",
            Box::new(|p| p.nodes.nodes[0].file = Some(0)),
            K::BadOperand,
        ),
        (
            "two nodes with one key",
            Box::new(|p| p.nodes.nodes[1].key = p.nodes.nodes[0].key.clone()),
            K::BadOperand,
        ),
        (
            "probe of no node",
            Box::new(move |p| p.nodes.probes.push((n, Probe::Root))),
            K::BadOperand,
        ),
        (
            "running-list bit out of range",
            Box::new(|p| {
                let bits = p.layout.bits;
                p.nodes.probes.push((0, Probe::Listed(bits)))
            }),
            K::BadOperand,
        ),
        (
            "action ordinal out of range",
            Box::new(|p| {
                let actions = p.layout.actions;
                p.nodes.probes.push((0, Probe::Current(actions)))
            }),
            K::BadOperand,
        ),
        (
            "rule out of range",
            Box::new(|p| p.nodes.probes.push((0, Probe::Rule(0)))),
            K::BadOperand,
        ),
        (
            "record bit out of range",
            Box::new(|p| p.nodes.probes.push((0, Probe::Live(u32::MAX)))),
            K::BadOperand,
        ),
        (
            "too many probes",
            Box::new(move |p| p.nodes.probes = vec![(0, Probe::Root); 2 * n as usize + 1]),
            K::BadOperand,
        ),
        (
            "a code map of the wrong length",
            Box::new(|p| p.nodes.code = vec![0; p.code.len() + 1]),
            K::BadOperand,
        ),
        (
            "a code map naming no node",
            Box::new(move |p| p.nodes.code = vec![n; p.code.len()]),
            K::BadOperand,
        ),
        (
            "a cell of no node",
            Box::new(move |p| p.nodes.cells.push(cell(Some(n), 0, 1))),
            K::BadOperand,
        ),
        (
            "a cell past the state",
            Box::new(|p| {
                let bits = p.layout.size * 8;
                p.nodes.cells.push(cell(None, bits - 1, 2))
            }),
            K::BadOperand,
        ),
        (
            "a cell of no bits",
            Box::new(|p| p.nodes.cells.push(cell(None, 0, 0))),
            K::BadOperand,
        ),
        (
            "a cell at the last bit of u32",
            Box::new(|p| p.nodes.cells.push(cell(None, u32::MAX, 1))),
            K::BadOperand,
        ),
        (
            "more cells than state bits",
            Box::new(|p| {
                let bits = p.layout.size as usize * 8;
                p.nodes.cells = vec![cell(None, 0, 1); bits + 1]
            }),
            K::BadOperand,
        ),
        (
            "a cell key past the text limit",
            Box::new(|p| {
                let mut c = cell(None, 0, 1);
                c.key = "k".repeat(btvm::program::MAX_NODE_TEXT + 1);
                p.nodes.cells.push(c)
            }),
            K::TooLarge,
        ),
        (
            "a name past the text limit",
            Box::new(move |p| {
                p.nodes.nodes[last].name = Some("x".repeat(btvm::program::MAX_NODE_TEXT + 1))
            }),
            K::TooLarge,
        ),
    ];
    for (what, mutate, kind) in cases {
        let mut q = p.clone();
        mutate(&mut q);
        match verify(q, &limits()) {
            Ok(_) => panic!("{what}: the table verified"),
            Err(e) => assert_eq!(e.kind(), kind, "{what}: {e}"),
        }
    }
    // A code map of the right length naming nodes, and unknown code, verifies.
    let mut q = p.clone();
    q.nodes.code = (0..q.code.len() as u32)
        .map(|i| if i % 2 == 0 { 0 } else { u32::MAX })
        .collect();
    verify(q, &limits()).expect("a good code map verifies");
}

#[test]
fn tables_are_bounded_by_max_nodes() {
    let p = base();
    let n = p.nodes.nodes.len();
    let at = |max_nodes| Limits {
        max_nodes,
        ..limits()
    };
    verify(p.clone(), &at(n)).expect("exactly at the limit");
    expect_with(p.clone(), &at(n - 1), K::TooLarge);
    let mut many = p.clone();
    many.nodes.files = vec![String::new(); n + 1];
    expect_with(many, &at(n), K::TooLarge);
}

/// A version-8 file (written before node tables) has no section after the code: it loads, with
/// an empty table and the same fingerprint.
#[test]
fn version_8_files_load_without_a_table() {
    for (name, p) in programs() {
        let mut bare = p.parts().clone();
        bare.nodes = Default::default();
        let bare = Program::new(bare, &limits()).unwrap();
        let mut bytes = bare.encode();
        // The empty table's section: magic, length, then nine zero counts (files, nodes,
        // probes, code map, cells, overlays, and the tree names: flags, stimuli, argument
        // names).
        let empty = 8 + 4 + 36;
        assert_eq!(
            &bytes[bytes.len() - empty..][..8],
            btvm::program::NODE_MAGIC,
            "{name}"
        );
        bytes.truncate(bytes.len() - empty);
        bytes[8..10].copy_from_slice(&8u16.to_le_bytes());
        let sum = btvm::program::fingerprint(&bytes[18..]);
        bytes[10..18].copy_from_slice(&sum.to_le_bytes());
        let old = Program::decode(&bytes, &limits()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(old.nodes().is_empty(), "{name}");
        assert_eq!(old.fingerprint(), p.fingerprint(), "{name}");
        assert!(old.active_path(&old.new_state()).is_empty(), "{name}");
        // A version-9 file without its section is truncated.
        bytes[8..10].copy_from_slice(&9u16.to_le_bytes());
        let sum = btvm::program::fingerprint(&bytes[18..]);
        bytes[10..18].copy_from_slice(&sum.to_le_bytes());
        let e = Program::decode(&bytes, &limits()).unwrap_err();
        assert_eq!(e.kind(), K::Truncated, "{name}: {e}");
    }
}

/// A version-10 file (written before overlays and tree names) ends its section after the
/// cells: it loads, with no names, the same table otherwise and the same fingerprint. (A
/// program whose layout overlays records cannot be written in version 10.)
#[test]
fn version_10_files_load_without_tree_names() {
    for (name, p) in programs() {
        if !p.nodes().overlays.is_empty() {
            continue;
        }
        let mut bare = p.parts().clone();
        bare.nodes.names = Default::default();
        let bare = Program::new(bare, &limits()).unwrap();
        let mut bytes = bare.encode();
        // The zero counts of the overlays and of the three name lists end the file; the
        // section's length covers them.
        bytes.truncate(bytes.len() - 16);
        let magic = bytes
            .windows(8)
            .rposition(|w| w == btvm::program::NODE_MAGIC)
            .unwrap();
        let at = magic + 8;
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) - 16;
        bytes[at..at + 4].copy_from_slice(&len.to_le_bytes());
        bytes[8..10].copy_from_slice(&10u16.to_le_bytes());
        let sum = btvm::program::fingerprint(&bytes[18..]);
        bytes[10..18].copy_from_slice(&sum.to_le_bytes());
        let old = Program::decode(&bytes, &limits()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(old.nodes(), bare.nodes(), "{name}");
        assert_eq!(old.fingerprint(), p.fingerprint(), "{name}");
    }
}

/// Whatever the state bytes, `active_path` answers (each node after its parent) and never
/// panics; a block of the wrong size gives an empty path.
#[test]
fn active_path_survives_any_state_bytes() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u8
    };
    for (name, p) in programs() {
        let size = p.state_size();
        let mut fills: Vec<Vec<u8>> = vec![vec![0; size], vec![0xff; size]];
        for _ in 0..64 {
            fills.push((0..size).map(|_| next()).collect());
        }
        for state in &fills {
            let path = p.active_path(state);
            let on: Vec<u32> = path.iter().map(|n| n.index).collect();
            for n in &path {
                if let Some(parent) = n.info.parent {
                    assert!(
                        on.contains(&parent),
                        "{name}: {:?} without its parent",
                        n.info
                    );
                }
            }
        }
        assert!(p.active_path(&vec![0xff; size + 1]).is_empty(), "{name}");
        assert!(p.active_path(&[]).is_empty() || size == 0, "{name}");
    }
}

#[test]
fn node_info_is_plain_data() {
    // The table's entries are what tools read: kinds as the canonical syntax names them.
    let p = base();
    let kinds: Vec<&str> = p
        .nodes
        .nodes
        .iter()
        .map(|n: &NodeInfo| n.kind.as_str())
        .collect();
    assert!(
        kinds.contains(&"action") && kinds.contains(&"parallel"),
        "{kinds:?}"
    );
}

/// The program `p`'s file with `section` in place of its node table's section (the header
/// checksum recomputed, so only the section's own checks can refuse it).
fn with_section(p: &Program, section: &[u8]) -> Vec<u8> {
    let mut bare = p.parts().clone();
    bare.nodes = Default::default();
    let mut bytes = Program::new(bare, &limits()).unwrap().encode();
    // An empty table: the magic, its length, nine zero counts (files, nodes, probes, code
    // map, cells, overlays, and the tree names: flags, stimuli, argument names).
    bytes.truncate(bytes.len() - (8 + 4 + 36));
    bytes.extend_from_slice(btvm::program::NODE_MAGIC);
    bytes.extend_from_slice(&(section.len() as u32).to_le_bytes());
    bytes.extend_from_slice(section);
    let sum = btvm::program::fingerprint(&bytes[18..]);
    bytes[10..18].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// A node entry: kind "k", no name, `parent + 1`, the key form and key, no file, line, column.
fn node_entry(parent1: u32, form: u8, key: &[u8]) -> Vec<u8> {
    let mut e = Vec::new();
    e.extend_from_slice(&1u32.to_le_bytes());
    e.push(b'k');
    e.push(0);
    e.extend_from_slice(&0u32.to_le_bytes());
    e.extend_from_slice(&parent1.to_le_bytes());
    e.push(form);
    e.extend_from_slice(&(key.len() as u32).to_le_bytes());
    e.extend_from_slice(key);
    e.extend_from_slice(&[0; 12]);
    e
}

fn section(nodes: &[Vec<u8>], tail: &[u8]) -> Vec<u8> {
    let mut s = 0u32.to_le_bytes().to_vec(); // no files
    s.extend_from_slice(&(nodes.len() as u32).to_le_bytes());
    for n in nodes {
        s.extend_from_slice(n);
    }
    s.extend_from_slice(tail);
    s
}

/// Hostile node-table sections: every one is refused with its kind, none allocates from a
/// count it cannot back, none panics; a well-formed hand-written one loads.
#[test]
fn hostile_node_sections_are_refused() {
    let p = program_all();
    let zeros = [0u8; 8]; // no probes, no code map
    let good = section(&[node_entry(0, 0, b"r"), node_entry(1, 1, b"c")], &zeros);
    let q = Program::decode(&with_section(&p, &good), &limits()).expect("a good section loads");
    assert_eq!(q.nodes().nodes[1].key, "r/c");
    let huge_count = {
        let mut s = 0u32.to_le_bytes().to_vec();
        s.extend_from_slice(&u32::MAX.to_le_bytes());
        s
    };
    let not_utf8 = section(&[node_entry(0, 0, &[0xff, 0xfe])], &zeros);
    let orphan_path = section(&[node_entry(0, 1, b"c")], &zeros);
    let later_parent = section(&[node_entry(2, 1, b"c"), node_entry(0, 0, b"r")], &zeros);
    let bad_form = section(&[node_entry(0, 7, b"r")], &zeros);
    let long = vec![b'x'; btvm::program::MAX_NODE_TEXT];
    let too_long = section(&[node_entry(0, 0, &long), node_entry(1, 1, b"c")], &zeros);
    let bad_probe = section(&[node_entry(0, 0, b"r")], &{
        let mut t = 1u32.to_le_bytes().to_vec();
        t.extend_from_slice(&0u32.to_le_bytes());
        t.push(99);
        t.extend_from_slice(&[0; 8]);
        t.extend_from_slice(&0u32.to_le_bytes());
        t
    });
    let short_len = {
        let mut b = with_section(&p, &good);
        let at = b.len() - good.len() - 4;
        b[at..at + 4].copy_from_slice(&(good.len() as u32 - 1).to_le_bytes());
        let sum = btvm::program::fingerprint(&b[18..]);
        b[10..18].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let cases: Vec<(&str, Vec<u8>, K)> = vec![
        (
            "a count past the bytes",
            with_section(&p, &huge_count),
            K::Truncated,
        ),
        (
            "a key not UTF-8",
            with_section(&p, &not_utf8),
            K::BadOperand,
        ),
        (
            "a path key without a parent",
            with_section(&p, &orphan_path),
            K::BadOperand,
        ),
        (
            "a path key before its parent",
            with_section(&p, &later_parent),
            K::BadOperand,
        ),
        (
            "an unknown key form",
            with_section(&p, &bad_form),
            K::BadOperand,
        ),
        (
            "a path key past the limit",
            with_section(&p, &too_long),
            K::TooLarge,
        ),
        (
            "an unknown probe",
            with_section(&p, &bad_probe),
            K::BadOperand,
        ),
        ("a length shorter than the section", short_len, K::Truncated),
    ];
    for (what, bytes, kind) in cases {
        match Program::decode(&bytes, &limits()) {
            Ok(_) => panic!("{what}: decoded"),
            Err(e) => assert_eq!(e.kind(), kind, "{what}: {e}"),
        }
    }
}

/// A data cell of `node` (or the agent's), `bits` long at bit `bit`.
fn cell(node: Option<u32>, bit: u32, bits: u32) -> Cell {
    Cell {
        node,
        key: "k".into(),
        bit,
        bits,
        kind: CellKind::Data,
    }
}

/// Lowered programs carry cells, through a program file and back; a cell section with an
/// unknown kind or a count it cannot back is refused; a version-9 section (no cells) loads
/// with none.
#[test]
fn cells_travel_in_program_files_and_bad_ones_are_refused() {
    for (name, p) in programs() {
        assert!(
            p.state_size() == 0 || !p.nodes().cells.is_empty(),
            "{name}: no cells"
        );
        let q = Program::decode(&p.encode(), &limits()).expect("decodes");
        assert_eq!(q.nodes().cells, p.nodes().cells, "{name}");
    }
    let p = program_all();
    let tail = |cells: &[u8]| {
        let mut t = 0u32.to_le_bytes().to_vec(); // no probes
        t.extend_from_slice(&0u32.to_le_bytes()); // no code map
        t.extend_from_slice(cells);
        section(&[node_entry(0, 0, b"r")], &t)
    };
    let v9 = Program::decode(&with_section(&p, &tail(&[])), &limits()).expect("no cells: v9");
    assert!(v9.nodes().cells.is_empty());
    // One cell: node+1, key "k", bit 0, 1 bit, then kind tag and two operands.
    let one = |tag: u8| {
        let mut c = 1u32.to_le_bytes().to_vec();
        c.extend_from_slice(&1u32.to_le_bytes());
        c.extend_from_slice(&1u32.to_le_bytes());
        c.push(b'k');
        c.extend_from_slice(&0u32.to_le_bytes());
        c.extend_from_slice(&1u32.to_le_bytes());
        c.extend_from_slice(&[tag, 0, 0]);
        c
    };
    let q = Program::decode(&with_section(&p, &tail(&one(0))), &limits()).expect("one data cell");
    assert_eq!(q.nodes().cells.len(), 1);
    let mut huge = u32::MAX.to_le_bytes().to_vec();
    huge.extend_from_slice(&[0; 8]);
    for (what, bytes, kind) in [
        ("an unknown cell kind", tail(&one(9)), K::BadOperand),
        ("a cell count past the bytes", tail(&huge), K::Truncated),
    ] {
        match Program::decode(&with_section(&p, &bytes), &limits()) {
            Ok(_) => panic!("{what}: decoded"),
            Err(e) => assert_eq!(e.kind(), kind, "{what}: {e}"),
        }
    }
}

/// A node section of one node whose code map has `entries`.
fn with_code_map(entries: &[u32]) -> Vec<u8> {
    let mut tail = 0u32.to_le_bytes().to_vec(); // no probes
    tail.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        tail.extend_from_slice(&e.to_le_bytes());
    }
    section(&[node_entry(0, 0, b"r")], &tail)
}

/// A program file's code map is checked like the rest of the table: one entry per instruction,
/// each the one node or none (`u32::MAX`); a map of the wrong length, a node out of range or a
/// count past the bytes is refused with an error saying so, never a panic.
#[test]
fn hostile_code_maps_are_refused() {
    let p = program_all();
    let n = p.parts().code.len();
    let ok = with_section(&p, &with_code_map(&vec![u32::MAX; n]));
    let q = Program::decode(&ok, &limits()).expect("a map of the right length loads");
    assert_eq!(q.nodes().code.len(), n);
    let mut one = vec![u32::MAX; n];
    one[0] = 0;
    let q = Program::decode(&with_section(&p, &with_code_map(&one)), &limits()).unwrap();
    assert_eq!(q.nodes().code[0], 0);
    let mut past = vec![0u32; n];
    past[n - 1] = 1;
    let huge = {
        let mut s = with_code_map(&[]);
        let at = s.len() - 4;
        s[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        s
    };
    let cases: Vec<(&str, Vec<u8>, K, &str)> = vec![
        (
            "one entry too many",
            with_section(&p, &with_code_map(&vec![0; n + 1])),
            K::BadOperand,
            "code map of",
        ),
        (
            "one entry too few",
            with_section(&p, &with_code_map(&vec![0; n - 1])),
            K::BadOperand,
            "code map of",
        ),
        (
            "a node out of range",
            with_section(&p, &with_code_map(&past)),
            K::BadOperand,
            "out of range",
        ),
        (
            "a count past the bytes",
            with_section(&p, &huge),
            K::Truncated,
            "",
        ),
    ];
    for (what, bytes, kind, says) in cases {
        match Program::decode(&bytes, &limits()) {
            Ok(_) => panic!("{what}: decoded"),
            Err(e) => {
                assert_eq!(e.kind(), kind, "{what}: {e}");
                assert!(e.to_string().contains(says), "{what}: {e}");
            }
        }
    }
}

/// Overlays (a lifecycle priority's or state machine's children share their records,
/// `spec/bytecode.md` §1) travel in program files; the verifier refuses broken ones and the
/// decoder a count it cannot back.
#[test]
fn overlays_travel_in_program_files_and_bad_ones_are_refused() {
    let p = program_lifecycle();
    let t = p.nodes();
    assert!(!t.overlays.is_empty(), "the priority's cases are overlaid");
    let q = Program::decode(&p.encode(), &limits()).expect("decodes");
    assert_eq!(q.nodes().overlays, t.overlays);
    let parts = p.parts().clone();
    let n = parts.nodes.nodes.len();
    let size = parts.layout.size;
    let first = t.overlays[0];
    let cases: Vec<(&str, Mutation<'_, ProgramParts>)> = vec![
        (
            "an overlay of no node",
            Box::new(move |p| p.nodes.overlays[0].node = n as u32),
        ),
        (
            "two overlays of one node",
            Box::new(move |p| p.nodes.overlays.push(first)),
        ),
        (
            "more overlays than nodes",
            Box::new(move |p| p.nodes.overlays = vec![first; n + 1]),
        ),
        (
            "a field of width 3",
            Box::new(|p| p.nodes.overlays[0].field.width = 3),
        ),
        (
            "a field past the state",
            Box::new(move |p| p.nodes.overlays[0].field.offset = size),
        ),
        (
            "a value the field cannot hold",
            Box::new(|p| {
                let o = &mut p.nodes.overlays[0];
                o.field.width = 1;
                o.value = 256;
            }),
        ),
    ];
    for (what, mutate) in cases {
        let mut q = parts.clone();
        mutate(&mut q);
        match verify(q, &limits()) {
            Ok(_) => panic!("{what}: the table verified"),
            Err(e) => assert_eq!(e.kind(), K::BadOperand, "{what}: {e}"),
        }
    }
    // In a file: no probes, no code map, no cells, then the overlays.
    let tail = |overlays: &[u8]| {
        let mut t = [0u32; 3].map(u32::to_le_bytes).concat();
        t.extend_from_slice(overlays);
        section(&[node_entry(0, 0, b"r")], &t)
    };
    let mut one = 1u32.to_le_bytes().to_vec();
    one.extend_from_slice(&0u32.to_le_bytes()); // node 0
    one.extend_from_slice(&0u32.to_le_bytes()); // field offset 0
    one.push(1); // width 1
    one.extend_from_slice(&0u32.to_le_bytes()); // value 0
    let q = Program::decode(&with_section(&p, &tail(&one)), &limits()).expect("one overlay");
    assert_eq!(q.nodes().overlays.len(), 1);
    let mut huge = u32::MAX.to_le_bytes().to_vec();
    huge.extend_from_slice(&[0; 13]);
    for (what, bytes, kind) in [
        ("an overlay count past the bytes", tail(&huge), K::Truncated),
        ("an overlay cut short", tail(&one[..10]), K::Truncated),
    ] {
        match Program::decode(&with_section(&p, &bytes), &limits()) {
            Ok(_) => panic!("{what}: decoded"),
            Err(e) => assert_eq!(e.kind(), kind, "{what}: {e}"),
        }
    }
}
