//! Issue 26, item 7: profile files are outside input. Each attack ends in positioned errors of
//! the right kind (or a bounded refusal), never a panic, a hang or a stack overflow.

use std::path::Path;

use btvm::Limits;
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::load::Profile;
use btvm_compiler::source::{MemFs, SourceMap};

/// Parses `text` as a profile file; the errors with their `file:line:col`.
fn errors(text: &str, limits: &Limits) -> Vec<(ErrorKind, String, String)> {
    let mut sources = SourceMap::new();
    match Profile::from_toml(text, Path::new("p.toml"), limits, &mut sources) {
        Ok(_) => Vec::new(),
        Err(diags) => diags
            .iter()
            .map(|d: &Diagnostic| (d.kind, sources.locate(d.span), d.message.clone()))
            .collect(),
    }
}

fn first(text: &str) -> (ErrorKind, String, String) {
    errors(text, &Limits::default())
        .into_iter()
        .next()
        .expect("the profile is refused")
}

#[test]
fn a_file_over_the_source_limit_is_refused_before_parsing() {
    let limits = Limits {
        max_source_bytes: 1 << 16,
        ..Limits::default()
    };
    let text = format!("name = \"{}\"\n", "x".repeat(1 << 17));
    assert_eq!(errors(&text, &limits)[0].0, ErrorKind::SourceTooLarge);
    let mut fs = MemFs::new();
    fs.insert("big.toml", text.into_bytes());
    let mut sources = SourceMap::new();
    let e = Profile::load(Path::new("big.toml"), &fs, &limits, &mut sources).unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::SourceTooLarge);
}

#[test]
fn deep_nesting_is_a_positioned_syntax_error_not_a_stack_overflow() {
    for (open, close) in [("[", "]"), ("{a=", "}")] {
        let text = format!("x = {}1{}\n", open.repeat(100_000), close.repeat(100_000));
        let (kind, at, _) = first(&text);
        assert_eq!(kind, ErrorKind::Syntax);
        assert!(at.starts_with("p.toml:1:"), "{at}");
    }
}

#[test]
fn wrong_types_and_ranges_are_invalid_values_at_the_value() {
    let cases = [
        (
            "[unvanquished.actions]\na = { args = \"1\" }\n",
            "p.toml:2:14",
        ),
        (
            "[unvanquished.actions]\na = { args = [2, 1] }\n",
            "p.toml:2:14",
        ),
        (
            "[unvanquished.actions]\na = { args = 256 }\n",
            "p.toml:2:14",
        ),
        (
            "[unvanquished.actions]\na = { long_running = 1 }\n",
            "p.toml:2:22",
        ),
        (
            "[unvanquished.actions]\na = { claims = [\"always\"] }\n",
            "p.toml:2:17",
        ),
        ("[unvanquished.actions]\na = 3\n", "p.toml:2:5"),
        ("[unvanquished.symbols]\nA = 2147483648\n", "p.toml:2:5"),
        ("[unvanquished.symbols]\nA = 1.5\n", "p.toml:2:5"),
        ("[mbt]\nleaves = \"Move\"\n", "p.toml:2:10"),
        ("[mbt]\nleaves = [1]\n", "p.toml:2:11"),
        ("[mbt]\nleaves = [\"Sequence\"]\n", "p.toml:2:11"),
        ("unvanquished = 1\n", "p.toml:1:16"),
    ];
    for (text, at) in cases {
        let (kind, where_, msg) = first(text);
        assert_eq!(
            (kind, where_.as_str()),
            (ErrorKind::InvalidValue, at),
            "{text}: {msg}"
        );
    }
}

#[test]
fn unknown_keys_are_errors_at_the_key() {
    for (text, at) in [
        ("nmae = \"x\"\n", "p.toml:1:1"),
        ("[unvanquished]\nacitons = {}\n", "p.toml:2:1"),
        ("[unvanquished.actions]\na = { arg = 1 }\n", "p.toml:2:7"),
        (
            "[unvanquished.functions]\nf = { args = 1, long_running = true }\n",
            "p.toml:2:17",
        ),
        ("[mbt]\nleafs = []\n", "p.toml:2:1"),
        ("extends = \"quake\"\n", "p.toml:1:11"),
    ] {
        let (kind, where_, msg) = first(text);
        assert_eq!(
            (kind, where_.as_str()),
            (ErrorKind::UnknownName, at),
            "{text}: {msg}"
        );
    }
}

#[test]
fn duplicate_keys_and_names_are_refused() {
    // TOML itself forbids a key twice.
    let (kind, at, _) = first("[unvanquished.actions]\na = {}\na = {}\n");
    assert_eq!(kind, ErrorKind::Syntax);
    assert!(at.starts_with("p.toml:3:"), "{at}");
    // Names the game matches case-insensitively are duplicates in any case.
    let (kind, at, msg) = first("[unvanquished.actions]\nroam = {}\nROAM = {}\n");
    assert_eq!(kind, ErrorKind::InvalidValue);
    assert!(msg.contains("declared twice"), "{msg}");
    assert!(at == "p.toml:2:1" || at == "p.toml:3:1", "{at}");
    // Extending a built-in profile, its names count too.
    let (kind, _, msg) = first("extends = \"unvanquished\"\n[unvanquished.actions]\nRoam = {}\n");
    assert_eq!(kind, ErrorKind::InvalidValue, "{msg}");
    let (kind, _, _) = first("[mbt]\nleaves = [\"A\"]\nwrappers = [\"A\"]\n");
    assert_eq!(kind, ErrorKind::InvalidValue);
}

#[test]
fn control_characters_in_names_are_refused_and_escaped_in_messages() {
    for text in [
        "[unvanquished.actions]\n\"a\\u001b[2Jb\" = {}\n",
        "[unvanquished.symbols]\n\"A\\nB\" = 1\n",
        "[mbt]\nleaves = [\"Mo\\u0007ve\"]\n",
        "[unvanquished.actions]\n\"\" = {}\n",
    ] {
        let (kind, _, msg) = first(text);
        assert_eq!(kind, ErrorKind::InvalidValue, "{text}");
        // As everywhere (`diag::escape_controls`): controls escaped, newlines and tabs kept.
        let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
        assert!(!msg.chars().any(unsafe_char), "{msg:?}");
    }
}

#[test]
fn a_hundred_thousand_entries_stop_at_the_entry_limit() {
    let mut text = String::from("[unvanquished.symbols]\n");
    for i in 0..100_000 {
        text.push_str(&format!("S{i} = {i}\n"));
    }
    let errs = errors(&text, &Limits::default());
    assert_eq!(errs.len(), 1, "{:?}", &errs[..errs.len().min(3)]);
    assert_eq!(errs[0].0, ErrorKind::LimitExceeded);
    let raised = Limits {
        max_profile_entries: 100_000,
        ..Limits::default()
    };
    assert!(errors(&text, &raised).is_empty());
}

#[test]
fn errors_are_bounded_per_file() {
    let mut text = String::from("[unvanquished.actions]\n");
    for i in 0..1000 {
        text.push_str(&format!("a{i} = {{ bad = 1 }}\n"));
    }
    let n = errors(&text, &Limits::default()).len();
    assert!((1..=32).contains(&n), "{n}");
}
