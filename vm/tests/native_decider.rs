//! The decider model (Spore) on the compiled engines: every Spore conformance case on every
//! contender (vm, native, the two taking turns, native code in tiny chunks whose drivers loop
//! back for `dec.redecide`), the state API (`set_decision_flags`, `add_stimulus`,
//! `remove_stimulus`, `decider_view`, `loop_guard`) against the reference, and the size guard
//! of the inlining lowering.
#![cfg(feature = "jit")]

use std::path::{Path, PathBuf};

use btvm::{Limits, Stimulus};
use btvm_compiler::diag::ErrorKind;
use btvm_compiler::load::{load, LoadOptions};
use btvm_compiler::scenario::parse_scenario;
use btvm_compiler::source::{FileId, MemFs, SourceMap};
use btvm_compiler::syntax::canonical;
use btvm_testkit::case::{CaseExpectation, CaseFile};
use btvm_testkit::compare::{compare, Contenders};

fn spore_cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/cases/spore");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "case"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn every_spore_case_runs_alike_on_every_contender_including_chunked_native_code() {
    let mut ran = 0;
    let mut failures = Vec::new();
    for path in spore_cases() {
        let text = std::fs::read_to_string(&path).unwrap();
        let case = CaseFile::parse(&text).unwrap();
        let CaseExpectation::Trace { scenario, .. } = &case.expect else {
            continue;
        };
        let mut fs = MemFs::new();
        fs.insert(case.main_path(), case.tree.as_bytes());
        for (name, t) in &case.files {
            fs.insert(Path::new("/case").join(name), t.as_bytes());
        }
        let mut sources = SourceMap::new();
        let options = LoadOptions {
            format: Some(case.format),
            ..LoadOptions::default()
        };
        let Ok(tree) = load(&case.main_path(), &fs, &options, &mut sources) else {
            continue;
        };
        let file = sources.add("/case/scenario", scenario.clone());
        let scn = parse_scenario(file, scenario).expect("the case's scenario parses");
        if let Err(m) = compare(&tree, &scn, Contenders::ALL) {
            failures.push(format!("{}: {m}", path.display()));
        }
        ran += 1;
    }
    assert!(ran >= 30, "only {ran} Spore cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const TREE: &str = r#"btvm 1;
dialect spore;
model decider 2;
import action a 0..0;
import action b 0..0;
import function f 0..0;
flag night;
stimulus hit;
stimulus seen;
root main = decider {
    group prioritized {
        decider stimuli any set 0x1 { behavior a activate tick deactivate }
        decider decision all set 0x1 { group sequential { decider { behavior b tick } } }
        decider { behavior b activate tick deactivate }
    }
}
"#;

fn tree(text: &str) -> btvm_compiler::ir::Tree {
    canonical::parse(FileId(0), text, &Limits::default()).expect("the tree parses")
}

#[test]
fn the_state_api_keeps_flags_stimuli_and_the_active_path() {
    let program = btvm_compiler::lower::lower(&tree(TREE), &Limits::default()).unwrap();
    let mut state = program.new_state();
    // A fresh agent: nothing active, no inputs.
    let fresh = program.decider_view(&state).unwrap();
    assert_eq!(fresh.root_since, None);
    assert_eq!(fresh.groups.len(), 2);
    assert!(fresh.groups.iter().all(|g| g.active.is_none()));
    assert_eq!(fresh.decision_flags, 0);
    assert_eq!(fresh.stimuli, vec![None, None]);
    assert!(!program.loop_guard(&state));
    // Inputs.
    program.set_decision_flags(&mut state, 0b101);
    assert!(program.add_stimulus(&mut state, 1, Stimulus::new(10, Some(5), -3)));
    assert!(program.add_stimulus(&mut state, 0, Stimulus::new(10, None, 7)));
    assert!(!program.add_stimulus(&mut state, 2, Stimulus::new(0, None, 0)));
    let v = program.decider_view(&state).unwrap();
    assert_eq!(v.decision_flags, 0b101);
    assert_eq!(
        v.stimuli,
        vec![
            Some(Stimulus {
                expires: None,
                data: 7
            }),
            Some(Stimulus {
                expires: Some(15),
                data: -3
            })
        ]
    );
    // Replacing a present stimulus, removing one.
    assert!(program.add_stimulus(&mut state, 0, Stimulus::new(0, Some(1), 1)));
    program.remove_stimulus(&mut state, 1);
    let v = program.decider_view(&state).unwrap();
    assert_eq!(
        v.stimuli,
        vec![
            Some(Stimulus {
                expires: Some(1),
                data: 1
            }),
            None
        ]
    );
    // Other models: no view, no flags, no stimuli.
    let rl = btvm_compiler::lower::lower(
        &tree("btvm 1;\ndialect unvanquished;\nroot main = const success\n"),
        &Limits::default(),
    )
    .unwrap();
    let mut s = rl.new_state();
    rl.set_decision_flags(&mut s, 1);
    assert!(!rl.add_stimulus(&mut s, 0, Stimulus::new(0, None, 0)));
    assert_eq!(rl.decider_view(&s), None);
    assert!(!rl.loop_guard(&s));
}

#[test]
fn shared_deciders_that_blow_up_when_inlined_are_too_large_not_invalid() {
    // Each level includes the one below twice: 2^depth sites.
    let depth = 40;
    let mut text = String::from(
        "btvm 1;\ndialect spore;\nimport action a 0..0;\nroot main = decider { group prioritized { include \"d0\" } }\n",
    );
    for k in 0..depth {
        text.push_str(&format!(
            "subtree \"d{k}\" shared = decider {{ group prioritized {{ include \"d{}\" include \"d{}\" }} }}\n",
            k + 1,
            k + 1
        ));
    }
    text.push_str(&format!(
        "subtree \"d{depth}\" shared = decider {{ behavior a activate tick deactivate }}\n"
    ));
    let limits = Limits {
        max_program_instructions: 200_000,
        ..Limits::default()
    };
    let t = tree(&text);
    let d = btvm_compiler::lower::lower(&t, &limits).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::ProgramTooLarge, "{}", d[0].message);
}

/// Found by the equivalence property: with tiny chunks, a chunk may start at a redecide target
/// that only unreachable code jumps to, so its one entry lies in its middle; native code entered
/// it at its start.
#[test]
fn a_chunk_entered_only_in_its_middle_starts_there() {
    let text = r#"btvm 1;
dialect spore;
model decider 5;
import action yFz 0..0 long;
import action us6V1I 0..0 long;
import action fN 0..0 long;
import function p 0..3;
import function eQ1I 0..3;
flag f0;
flag f1;
stimulus s0;
stimulus s1;
stimulus s2;
root main = decider @"ROOT" every 378 redecide {
    group prioritized {
        decider @"D6" decision all set 0x7 decide (p() || -(-58.75)) {
            behavior us6V1I tick
        }
        include "S0"
        decider @"D5" decide (!true) redecide {
            behavior us6V1I deactivate
        }
    }
}
subtree "S0" shared = decider @"D100" {
    group random {
        decider @"D66" every 119 decision any clear 0x3 decide (-p()) {
            behavior fN
        }
        decider @"D26" redecide {
            behavior us6V1I activate tick
        }
    }
}
"#;
    let t = tree(text);
    let scn = parse_scenario(
        FileId(0),
        "ticks 3\ntime -607 283\ndefault action failure\nanswer p = 0\n",
    )
    .unwrap();
    if let Err(m) = compare(&t, &scn, Contenders::ALL) {
        panic!("{m}");
    }
}

/// A Spore tree using every instruction native code emits inline (flag and stimulus tests of
/// all four forms, `every` waits and stamps, group records, choice registers of the
/// prioritized and sequential groups, the redecide count) and the ones it leaves to the vm's
/// code (`random`, `dec.begin` expiring stimuli).
const INLINE_TREE: &str = r#"spore 1;
behavior a activate tick deactivate;
behavior b activate tick;
behavior c tick;
behavior d activate tick deactivate;
decision flags night, hungry;
stimuli hit, call;

root R every 300ms redecide => prioritized {
    HIT when stimuli any(hit) when decision notall(night, hungry) decide t() => a;
    BOTH every 500ms when stimuli all(hit, call) redecide => sequential {
        S1 decide u() => b;
        S2 when decision none(night) => c;
    }
    NIGHT when decision all(night) => random {
        R1 => d;
        R2 decide t() => b;
    }
    IDLE when stimuli notall(hit, call) every 200ms => c;
}
"#;

/// Native code emits the decider's frequent instructions inline (`decider_inline`): they must
/// do what the vm's code does at the edges too — `every` stamps saturating near the largest
/// time, stimuli expiring exactly at `now`, negative times, answers that make the tree
/// redecide up to its limit. Every engine against the reference, per scenario.
#[test]
fn inline_decider_instructions_agree_with_the_reference_at_the_edges() {
    let mut fs = MemFs::new();
    fs.insert(Path::new("/case/t.spore"), INLINE_TREE.as_bytes());
    let mut sources = SourceMap::new();
    let tree = load(
        Path::new("/case/t.spore"),
        &fs,
        &LoadOptions::default(),
        &mut sources,
    )
    .expect("the tree loads");
    let inputs = "at 1 stimulus hit for 200\nat 2 stimulus call\nat 3 flags night\n\
                  at 5 flags hungry\nat 6 stimulus hit\nat 8 flags none\n";
    let scenarios = [
        (
            "ordinary times",
            "time 0 100\nanswer a = @0 success, @4 running",
        ),
        (
            "near the largest time",
            "time 9223372036854775000 90\ndefault action running",
        ),
        (
            "negative times",
            "time -5000 350\nanswer b = cycle running, failure, success",
        ),
        ("everything fails", "time 0 100\ndefault action failure"),
        (
            "answers switch",
            "time 0 250\nanswer d = @0 failure, @3 success, @7 running",
        ),
    ];
    for (what, lines) in scenarios {
        let text =
            format!("ticks 12\nanswer t = @0 1, @4 0, @9 1\nanswer u = 0.5\n{lines}\n{inputs}");
        let file = sources.add("/case/scenario", text.clone());
        let scn = parse_scenario(file, &text).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        if let Err(m) = compare(&tree, &scn, Contenders::ALL) {
            panic!("{what}: {m}");
        }
    }
}
