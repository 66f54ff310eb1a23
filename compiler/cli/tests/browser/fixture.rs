//! The harness's self-test page (`fixture.html`): a minimal page keeping the viewer contract
//! over data written from [`Expected`], optionally spoiled, so the test shows that its checks
//! pass on a right page and fail on each kind of wrong one.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::expect::Expected;

/// How to spoil the fixture's data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spoil {
    /// Nothing: the page keeps the contract.
    None,
    /// One node is not drawn.
    Undrawn,
    /// No node's tooltip says its `file:line`.
    Unplaced,
    /// The page warns in the console at load.
    Warns,
    /// The page throws an exception at load.
    Throws,
    /// A toggle marks its node collapsed but hides nothing.
    Stuck,
    /// Tick 1's active path lacks a node.
    Inactive,
    /// Tick 1's first finished node shows another status.
    Status,
    /// Tick 1's last call line is missing.
    Call,
}

/// Writes the fixture for `expected` (spoiled by `spoil`) into `dir` and returns its path.
pub fn write(dir: &Path, expected: &Expected, spoil: Spoil) -> PathBuf {
    let n = expected.parents.len();
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, p) in expected.parents.iter().enumerate() {
        if spoil == Spoil::Undrawn && i == n - 1 {
            continue;
        }
        match p {
            Some(p) => children[*p as usize].push(i),
            None => roots.push(i),
        }
    }
    let nodes: Vec<Value> = children
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let place = (spoil != Spoil::Unplaced).then(|| &expected.places[i]);
            json!({"id": i, "kind": expected.kinds[i], "place": place, "children": c})
        })
        .collect();
    let mut ticks = expected.ticks.clone();
    if let Some(t) = ticks.get_mut(1) {
        match spoil {
            Spoil::Inactive => {
                let first = t.active.first().copied();
                first.map(|a| t.active.remove(&a));
            }
            Spoil::Status => {
                if let Some(s) = t.status.values_mut().next() {
                    *s = if s == "failure" { "success" } else { "failure" }.into();
                }
            }
            Spoil::Call => {
                t.calls.pop();
            }
            _ => {}
        }
    }
    let ticks: Vec<Value> = ticks
        .iter()
        .map(|t| json!({"tick": t.tick, "active": t.active, "status": t.status, "calls": t.calls}))
        .collect();
    let data = json!({
        "nodes": nodes,
        "roots": roots,
        "timeline": {"ticks": ticks},
        "warn": spoil == Spoil::Warns,
        "throws": spoil == Spoil::Throws,
        "stuck": spoil == Spoil::Stuck,
    });
    let text = serde_json::to_string(&data)
        .expect("JSON")
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    let page = include_str!("fixture.html").replace("/*DATA*/", &text);
    let path = dir.join(format!("fixture-{spoil:?}.html"));
    std::fs::write(&path, page).expect("the fixture is written");
    path
}
