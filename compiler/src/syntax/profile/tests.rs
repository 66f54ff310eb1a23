//! The built-in profile files against the Rust tables they replace (kept for one commit: they
//! must agree entry for entry before the tables go).

#[allow(dead_code, missing_docs, clippy::all)]
#[path = "old_gamesdk.rs"]
mod old_gamesdk;
#[allow(dead_code, missing_docs, clippy::all)]
#[path = "old_unvanquished.rs"]
mod old_unvanquished;

use super::{MbtNode, Profile};

#[test]
fn the_unvanquished_file_equals_the_old_tables() {
    let p = Profile::builtin("unvanquished").expect("the built-in file parses");
    let v = p.unvanquished().unwrap();
    let old_actions: Vec<_> = old_unvanquished::ACTIONS
        .iter()
        .map(|a| a.import())
        .collect();
    let new_actions: Vec<_> = v.actions().iter().map(|a| a.import()).collect();
    let mut sorted = old_actions.clone();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut new_sorted = new_actions.clone();
    new_sorted.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(new_sorted, sorted);
    let mut old_f: Vec<_> = old_unvanquished::FUNCTIONS
        .iter()
        .map(|f| f.import())
        .collect();
    let mut new_f: Vec<_> = v.functions().iter().map(|f| f.import()).collect();
    old_f.sort_by(|a, b| a.name.cmp(&b.name));
    new_f.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(new_f, old_f);
    let mut old_s: Vec<_> = old_unvanquished::SYMBOLS
        .iter()
        .map(|s| (s.name.to_string(), s.value))
        .collect();
    let mut new_s: Vec<_> = v
        .symbols()
        .iter()
        .map(|s| (s.name.clone(), s.value))
        .collect();
    old_s.sort();
    new_s.sort();
    assert_eq!(new_s, old_s);
    assert!(p.mbt().is_none());
}

#[test]
fn the_gamesdk_file_equals_the_old_lists() {
    let p = Profile::builtin("gamesdk").expect("the built-in file parses");
    let n = p.mbt().unwrap();
    assert!(n.lenient);
    let mut old: Vec<(String, MbtNode)> = old_gamesdk::LEAVES
        .iter()
        .map(|t| (t.to_string(), MbtNode::Leaf))
        .chain(
            old_gamesdk::WRAPPERS
                .iter()
                .map(|t| (t.to_string(), MbtNode::Wrapper)),
        )
        .collect();
    let mut new: Vec<(String, MbtNode)> = n.tags().map(|(t, k)| (t.to_string(), k)).collect();
    old.sort_by(|a, b| a.0.cmp(&b.0));
    new.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(new, old);
    assert!(p.unvanquished().is_none());
}
