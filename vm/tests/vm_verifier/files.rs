//! Program files: round trips, truncation, bit flips and byte-level errors.

use super::*;

// ---------------------------------------------------------------------------------------------
// Round trips, truncation, bit flips

const HEADER: usize = 8 + 2 + 8;

fn fnv1a(body: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in body {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Rewrites the header's fingerprint to match the body.
fn patch_fingerprint(bytes: &mut [u8]) {
    let h = fnv1a(&bytes[HEADER..]);
    bytes[10..HEADER].copy_from_slice(&h.to_le_bytes());
}

#[test]
fn real_programs_round_trip_exactly() {
    for (name, p) in programs() {
        let bytes = p.encode();
        assert_eq!(&bytes[..8], b"BTVMPROG", "{name}");
        assert_eq!(
            u16::from_le_bytes([bytes[8], bytes[9]]),
            btvm::program::VERSION,
            "{name}"
        );
        // The header's checksum is over everything after it (body and node table); the
        // program's fingerprint leaves the node table out.
        let stored = u64::from_le_bytes(bytes[10..HEADER].try_into().unwrap());
        assert_eq!(fnv1a(&bytes[HEADER..]), stored, "{name}");
        let mut bare = p.parts().clone();
        bare.nodes = Default::default();
        let bare = Program::new(bare, &limits()).expect("the parts without a table verify");
        assert_eq!(bare.fingerprint(), p.fingerprint(), "{name}");
        let q = Program::decode(&bytes, &limits())
            .unwrap_or_else(|e| panic!("{name}: the encoded program does not decode: {e}"));
        assert_eq!(q.encode(), bytes, "{name}: re-encoding differs");
        assert_eq!(q.parts(), p.parts(), "{name}: parts differ");
        assert_eq!(q.fingerprint(), p.fingerprint(), "{name}");
        assert_eq!(
            format!("{q}"),
            format!("{p}"),
            "{name}: disassembly differs"
        );
        assert_eq!(q.tick_budget(), p.tick_budget(), "{name}");
        assert_eq!(q.max_stack(), p.max_stack(), "{name}");
        assert_eq!(q.max_calls(), p.max_calls(), "{name}");
        // Rebuilding from the parts gives the same program too.
        let r = Program::new(p.parts().clone(), &limits()).expect("the parts verify");
        assert_eq!(r.encode(), bytes, "{name}");
        // And the programs are real: they run.
        run_permissive(&q, 2, 5);
    }
}

#[test]
fn every_truncation_is_rejected() {
    for (name, p) in programs() {
        let bytes = p.encode();
        for len in 0..bytes.len() {
            match Program::decode(&bytes[..len], &limits()) {
                Ok(_) => panic!("{name}: a {len}-byte prefix of {} decoded", bytes.len()),
                Err(e) => {
                    let want = if len < 8 { K::BadMagic } else { K::Truncated };
                    assert_eq!(e.kind(), want, "{name}: prefix of {len} bytes: {e}");
                }
            }
        }
    }
}

#[test]
fn every_bit_flip_is_rejected_by_the_stored_fingerprint() {
    for (name, p) in programs() {
        let bytes = p.encode();
        let mut copy = bytes.clone();
        for at in 0..bytes.len() {
            for bit in 0..8 {
                copy[at] ^= 1 << bit;
                match Program::decode(&copy, &limits()) {
                    Ok(_) => panic!("{name}: flipping bit {bit} of byte {at} still decodes"),
                    Err(e) => {
                        let k = e.kind();
                        if at < 8 {
                            assert_eq!(k, K::BadMagic, "{name} byte {at}");
                        } else if at < 10 {
                            // A flip to another version this build reads (8: no node table)
                            // leaves the table's section as bytes after the code.
                            let v = u16::from_le_bytes([copy[8], copy[9]]);
                            let read = btvm::program::OLDEST_VERSION..=btvm::program::VERSION;
                            let want = if read.contains(&v) {
                                K::TrailingBytes
                            } else {
                                K::BadVersion
                            };
                            assert_eq!(k, want, "{name} byte {at}");
                        } else if at < HEADER {
                            assert_eq!(k, K::Fingerprint, "{name} byte {at}");
                        }
                    }
                }
                copy[at] ^= 1 << bit;
            }
        }
    }
}

/// Programs whose counter table is absurdly large are not run (see
/// `the_counter_table_is_bounded`): `Scratch::new` would allocate gigabytes.
const MAX_TEMPS_TO_RUN: u32 = 1 << 16;

#[test]
fn bit_flips_with_a_recomputed_fingerprint_are_rejected_or_run_safely() {
    let mut verified = 0usize;
    let mut rejected = std::collections::BTreeMap::<String, usize>::new();
    let mut huge_temps = 0usize;
    for (name, p) in programs() {
        let bytes = p.encode();
        let mut copy = bytes.clone();
        for at in HEADER..bytes.len() {
            for bit in 0..8 {
                copy[at] ^= 1 << bit;
                patch_fingerprint(&mut copy);
                match Program::decode(&copy, &limits()) {
                    Err(e) => {
                        assert_ne!(e.kind(), K::Fingerprint, "{name}: byte {at} bit {bit}");
                        *rejected.entry(format!("{:?}", e.kind())).or_default() += 1;
                    }
                    Ok(q) => {
                        verified += 1;
                        // A decoded program is verified: its parts verify again, it
                        // re-encodes to a file that decodes to the same program, and it
                        // disassembles.
                        let again =
                            Program::new(q.parts().clone(), &limits()).unwrap_or_else(|e| {
                                panic!("{name}: byte {at} bit {bit}: parts do not re-verify: {e}")
                            });
                        let re = Program::decode(&q.encode(), &limits()).unwrap_or_else(|e| {
                            panic!("{name}: byte {at} bit {bit}: re-encoding is rejected: {e}")
                        });
                        assert_eq!(re.parts(), q.parts(), "{name}: byte {at} bit {bit}");
                        assert_eq!(again.encode(), q.encode(), "{name}: byte {at} bit {bit}");
                        let _ = format!("{q}");
                        if q.temps() > MAX_TEMPS_TO_RUN {
                            huge_temps += 1;
                        } else {
                            run_permissive(&q, 3, 50);
                        }
                    }
                }
                copy[at] ^= 1 << bit;
            }
        }
        patch_fingerprint(&mut copy);
        assert_eq!(copy, bytes);
    }
    eprintln!(
        "recomputed-fingerprint flips: {verified} verified and ran ({huge_temps} with a huge \
         counter table not run), rejected: {rejected:?}"
    );
    // The verifier itself must have been exercised, not only the decoder.
    for kind in ["BadJump", "IndexOutOfRange", "BadLayout", "BadOpcode"] {
        assert!(
            rejected.contains_key(kind),
            "no flip was rejected with {kind}: {rejected:?}"
        );
    }
    assert!(verified > 0, "no flip produced a valid program");
}

// ---------------------------------------------------------------------------------------------
// Byte-level errors

#[test]
fn file_level_errors_have_their_kinds() {
    let p = program_all();
    let bytes = p.encode();
    let kind = |b: &[u8], l: &Limits| match Program::decode(b, l) {
        Ok(_) => panic!("decoded"),
        Err(e) => e.kind(),
    };

    let mut b = bytes.clone();
    b[0] = b'X';
    assert_eq!(kind(&b, &limits()), K::BadMagic);
    assert_eq!(kind(b"", &limits()), K::BadMagic);
    assert_eq!(kind(b"BTVMPRO", &limits()), K::BadMagic);
    assert_eq!(kind(b"btvmprog\x01\x00", &limits()), K::BadMagic);

    let mut b = bytes.clone();
    for version in (0..btvm::program::OLDEST_VERSION).chain([btvm::program::VERSION + 1]) {
        b[8..10].copy_from_slice(&version.to_le_bytes());
        assert_eq!(kind(&b, &limits()), K::BadVersion);
    }

    // An action's slot claims byte (name, kind, min, max, long, claims) with a bit beyond
    // success/failure/running is refused, and every valid set round-trips.
    let (at, import) = p
        .imports()
        .iter()
        .enumerate()
        .find(|(_, i)| i.kind == btvm::ImportKind::Action)
        .expect("TREE_ALL has an action");
    let mut name = (import.name.len() as u32).to_le_bytes().to_vec();
    name.extend_from_slice(import.name.as_bytes());
    let start = bytes
        .windows(name.len())
        .position(|w| w == name.as_slice())
        .expect("the import's name is in the file");
    let claims_at = start + name.len() + 4;
    assert_eq!(bytes[claims_at], import.claims.bits());
    let mut b = bytes.clone();
    b[claims_at] = 0x08;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);
    for bits in 0..=7u8 {
        let mut b = bytes.clone();
        b[claims_at] = bits;
        patch_fingerprint(&mut b);
        let q = Program::decode(&b, &limits()).expect("any claim set decodes");
        assert_eq!(q.imports()[at].claims.bits(), bits);
    }

    let mut b = bytes.clone();
    b.push(0);
    assert_eq!(kind(&b, &limits()), K::TrailingBytes);
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::TrailingBytes);

    let mut b = bytes.clone();
    b[12] ^= 0x10;
    assert_eq!(kind(&b, &limits()), K::Fingerprint);
    let mut b = bytes.clone();
    b[10..HEADER].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(kind(&b, &limits()), K::Fingerprint);

    let tight = Limits {
        max_program_bytes: bytes.len() - 1,
        ..limits()
    };
    assert_eq!(kind(&bytes, &tight), K::TooLarge);
    let exact = Limits {
        max_program_bytes: bytes.len(),
        ..limits()
    };
    assert!(Program::decode(&bytes, &exact).is_ok());

    // The last instruction of TREE_ALL is `return running` (opcode 0x04, status 2); the node
    // table's section follows the code.
    let n = bytes
        .windows(8)
        .position(|w| w == btvm::program::NODE_MAGIC)
        .expect("the file has a node table section");
    assert_eq!(&bytes[n - 2..n], &[0x04, 0x02]);
    // Every opcode byte in its place: unknown ones are `BadOpcode`; none panics.
    let mut unknown = 0;
    for op in 0..=255u8 {
        let mut b = bytes.clone();
        b[n - 2] = op;
        patch_fingerprint(&mut b);
        match Program::decode(&b, &limits()) {
            Ok(q) => {
                run_permissive(&q, 2, 5);
            }
            Err(e) if e.kind() == K::BadOpcode => unknown += 1,
            Err(_) => {}
        }
    }
    assert!(unknown >= 150, "only {unknown} opcodes are unknown");
    for op in [0x00, 0xff] {
        let mut b = bytes.clone();
        b[n - 2] = op;
        patch_fingerprint(&mut b);
        assert_eq!(kind(&b, &limits()), K::BadOpcode, "opcode {op:#x}");
    }
    let mut b = bytes.clone();
    b[n - 1] = 3; // not a status
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);

    // Model byte and single-precision flag.
    let mut b = bytes.clone();
    b[HEADER] = 5;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);
    let mut b = bytes.clone();
    b[HEADER + 1] = 2;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);

    // The clock (a u32 after the precision flag): 1 in this running-list program; 0, more
    // than the maximum, and any other unit outside the lifecycle model are refused.
    let clock_at = HEADER + 2;
    assert_eq!(
        u32::from_le_bytes(bytes[clock_at..clock_at + 4].try_into().unwrap()),
        1
    );
    for bad in [0, 100, btvm::MAX_CLOCK + 1] {
        let mut b = bytes.clone();
        b[clock_at..clock_at + 4].copy_from_slice(&u32::to_le_bytes(bad));
        patch_fingerprint(&mut b);
        assert_eq!(kind(&b, &limits()), K::BadOperand, "clock {bad}");
    }

    // A huge string count is refused before anything is allocated. Before the strings: model,
    // precision, clock, then the layout (size, current (5), actions, count (5), five u32s, has_rng,
    // rng, cursor (5), flags (5), then the decider fields: decider, groups, group_count,
    // stimuli and the stimulus count (five u32s), then the lifecycle and selection fields:
    // vars, var_count, stamps, stamp_count, records, records_len (six u32s), leaf (5),
    // leaves).
    let strings_at = HEADER + 2 + 4 + 4 + 5 + 4 + 5 + 20 + 1 + 4 + 5 + 5 + 20 + 24 + 5 + 4;
    assert_eq!(
        u32::from_le_bytes(bytes[strings_at..strings_at + 4].try_into().unwrap()) as usize,
        p.parts().strings.len()
    );
    let mut b = bytes.clone();
    b[strings_at..strings_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::Truncated);
    // Invalid UTF-8 in a string.
    let mut b = bytes.clone();
    b[strings_at + 8] = 0xff;
    patch_fingerprint(&mut b);
    assert_eq!(kind(&b, &limits()), K::BadOperand);
}
