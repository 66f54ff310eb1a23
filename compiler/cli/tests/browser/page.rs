//! The checks on an open viewer page (`spec/viewer.md` 3 and 4) against what
//! [`crate::expect`] computed: every node drawn, each tick's highlighted path, statuses and
//! calls after real key presses, a subtree collapsed and expanded by a real click. Each check
//! returns what went wrong, so the harness's self-test can show that a wrong page fails.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::chrome::Chrome;
use crate::expect::{Expected, Tick};

/// A check's verdict: `Err` says what the page got wrong.
pub type Verdict = Result<(), String>;

/// The `data-node` values of the drawn, displayed `g.node` elements. Chromium's
/// `checkVisibility` says true for an SVG `g` with `display: none`: a displayed element is
/// one with a layout box (client rects), and then also not `visibility: hidden` or
/// transparent.
const VISIBLE: &str = "[...document.querySelectorAll('svg#tree g.node[data-node]')]
    .filter(g => g.getClientRects().length > 0
        && g.checkVisibility({visibilityProperty: true, opacityProperty: true}))
    .map(g => Number(g.dataset.node))";

/// Each `g.node`: its id, whether it is `active`, its `data-status` (or null); the current
/// tick from the body and from `#tick`; the lines of `#calls`.
const STATE: &str = "({
    nodes: [...document.querySelectorAll('svg#tree g.node')].map(g =>
        [Number(g.dataset.node), g.classList.contains('active'), g.getAttribute('data-status')]),
    body: document.body.dataset.tick ?? null,
    tick: document.getElementById('tick')?.textContent.trim() ?? null,
    calls: [...document.querySelectorAll('ol#calls > li')].map(li => li.textContent),
})";

/// Checks the page finished loading with nothing in the console, nothing fetched from
/// outside the file, and every node of the tree drawn and displayed.
pub fn loaded(chrome: &Chrome, expected: &Expected) -> Verdict {
    quiet(chrome, "at load")?;
    let fetched = chrome.eval(
        "performance.getEntriesByType('resource').map(e => e.name)
            .filter(n => !n.startsWith('data:'))",
    );
    if fetched != Value::Array(Vec::new()) {
        return Err(format!("the page fetched {fetched}"));
    }
    labelled(chrome, expected)?;
    let drawn = ids(&chrome.eval(VISIBLE));
    if drawn != expected.nodes() {
        let missing: Vec<_> = expected.nodes().difference(&drawn).copied().collect();
        let extra: Vec<_> = drawn.difference(&expected.nodes()).copied().collect();
        return Err(format!(
            "drawn nodes differ from the node table: missing {missing:?}, not in the tree {extra:?}"
        ));
    }
    Ok(())
}

/// Checks each drawn node shows its kind and has a `<title>` holding its `file:line`.
fn labelled(chrome: &Chrome, expected: &Expected) -> Verdict {
    let drawn = chrome.eval(
        "[...document.querySelectorAll('svg#tree g.node[data-node]')].map(g => [
            Number(g.dataset.node),
            [...g.childNodes].filter(c => c.nodeName !== 'title').map(c => c.textContent).join(' '),
            g.querySelector(':scope > title')?.textContent ?? null])",
    );
    for g in drawn.as_array().into_iter().flatten() {
        let id = g[0].as_u64().unwrap_or(u64::MAX) as usize;
        let (Some(kind), Some(place)) = (expected.kinds.get(id), expected.places.get(id)) else {
            return Err(format!("a drawn node {} is not in the tree", g[0]));
        };
        let shown = g[1].as_str().unwrap_or("");
        if !shown.split_whitespace().any(|w| w == kind) {
            return Err(format!("node {id} ({kind}) shows {shown:?}"));
        }
        let title = g[2].as_str().unwrap_or("");
        if let Some(place) = place.as_deref().filter(|p| !title.contains(p)) {
            return Err(format!("node {id}'s title {title:?} does not say {place}"));
        }
    }
    Ok(())
}

/// Fails on anything recorded in the console or the browser log.
pub fn quiet(chrome: &Chrome, when: &str) -> Verdict {
    let problems = chrome.take_problems();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{when}: {}", problems.join("; ")))
    }
}

/// Checks the page shows `tick` (after waiting for the page to say it is at that tick).
pub fn shows(chrome: &Chrome, tick: &Tick) -> Verdict {
    let k = tick.tick;
    chrome.wait_for(&format!("document.body.dataset.tick === '{k}'"));
    let state = chrome.eval(STATE);
    let want = Value::String(k.to_string());
    if state["tick"] != want {
        return Err(format!("#tick says {} at tick {k}", state["tick"]));
    }
    for g in state["nodes"].as_array().into_iter().flatten() {
        let id = g[0].as_u64().unwrap_or(u64::MAX) as u32;
        let active = g[1].as_bool() == Some(true);
        if active != tick.active.contains(&id) {
            return Err(format!(
                "tick {k}: node {id} is {}active; the active path is {:?}",
                if active { "" } else { "not " },
                tick.active
            ));
        }
        let status = g[2].as_str();
        if status != tick.status.get(&id).map(String::as_str) {
            return Err(format!(
                "tick {k}: node {id} has data-status {status:?}, the trace says {:?}",
                tick.status.get(&id)
            ));
        }
    }
    let calls: Vec<&str> = state["calls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if calls != tick.calls {
        return Err(format!(
            "tick {k}: #calls is {calls:?}, the trace says {:?}",
            tick.calls
        ));
    }
    quiet(chrome, &format!("at tick {k}"))
}

/// Steps the whole timeline with the keyboard: ArrowRight from the first tick to the last
/// (and once past it: no wrap-around), Home, End, then ArrowLeft back to the first, checking
/// every tick shown; then `j` and `k`, then the slider.
pub fn step_through(chrome: &Chrome, ticks: &[Tick]) -> Verdict {
    let (Some(first), Some(last)) = (ticks.first(), ticks.last()) else {
        return Ok(());
    };
    shows(chrome, first)?;
    for t in &ticks[1..] {
        chrome.press("ArrowRight");
        shows(chrome, t)?;
    }
    chrome.press("ArrowRight");
    shows(chrome, last)?;
    chrome.press("Home");
    shows(chrome, first)?;
    chrome.press("End");
    shows(chrome, last)?;
    for t in ticks.iter().rev().skip(1) {
        chrome.press("ArrowLeft");
        shows(chrome, t)?;
    }
    if let Some(second) = ticks.get(1) {
        chrome.press("j");
        shows(chrome, second)?;
        chrome.press("k");
        shows(chrome, first)?;
    }
    slide(chrome, ticks)
}

/// Moves the range input `#tick-slider` with the mouse: its right end selects the last tick,
/// its left end the first; then ArrowRight (the slider has the focus now) the second.
fn slide(chrome: &Chrome, ticks: &[Tick]) -> Verdict {
    let (Some(first), Some(last)) = (ticks.first(), ticks.last()) else {
        return Ok(());
    };
    chrome.click_at("#tick-slider", 1.0);
    shows(chrome, last)?;
    chrome.click_at("#tick-slider", 0.0);
    shows(chrome, first)?;
    if let Some(second) = ticks.get(1) {
        chrome.press("ArrowRight");
        shows(chrome, second)?;
    }
    Ok(())
}

/// The node to collapse: the one with the most descendants, not the root, with children of
/// its own, whose drawing and whose descendants' drawings appear exactly once (so hidden
/// means hidden everywhere), and with no `include` below it.
pub fn collapsible(chrome: &Chrome, expected: &Expected) -> Option<(u32, BTreeSet<u32>)> {
    let all = chrome.eval(
        "[...document.querySelectorAll('svg#tree g.node[data-node]')].map(g => Number(g.dataset.node))",
    );
    let mut copies: BTreeMap<u32, usize> = BTreeMap::new();
    for id in ids_in_order(&all) {
        *copies.entry(id).or_default() += 1;
    }
    (0..expected.parents.len() as u32)
        .filter(|&n| expected.parents[n as usize].is_some())
        .map(|n| (n, expected.descendants(n)))
        .filter(|(n, below)| {
            !below.is_empty()
                && std::iter::once(n)
                    .chain(below)
                    .all(|d| copies.get(d) == Some(&1))
                && below
                    .iter()
                    .all(|&d| expected.kinds[d as usize] != "include")
        })
        .max_by_key(|(n, below)| (below.len(), std::cmp::Reverse(*n)))
}

/// Clicks `node`'s toggle: its descendants must disappear and it must get `collapsed`; a
/// second click must bring them back.
pub fn collapse(chrome: &Chrome, expected: &Expected, node: u32, below: &BTreeSet<u32>) -> Verdict {
    let toggle = format!("svg#tree g.node[data-node=\"{node}\"] .toggle");
    let collapsed =
        format!("document.querySelector('svg#tree g.node[data-node=\"{node}\"]').classList.contains('collapsed')");
    chrome.click(&toggle);
    chrome.wait_for(&collapsed);
    let visible = ids(&chrome.eval(VISIBLE));
    let want: BTreeSet<u32> = expected.nodes().difference(below).copied().collect();
    if visible != want {
        let shown: Vec<_> = visible.intersection(below).collect();
        return Err(format!(
            "after collapsing node {node}: still shown below it {shown:?} ({} nodes shown, {} expected)",
            visible.len(),
            want.len()
        ));
    }
    chrome.click(&toggle);
    chrome.wait_for(&format!("!{collapsed}"));
    if ids(&chrome.eval(VISIBLE)) != expected.nodes() {
        return Err(format!(
            "after expanding node {node} again, not every node is shown"
        ));
    }
    quiet(chrome, "collapsing and expanding")
}

fn ids(v: &Value) -> BTreeSet<u32> {
    ids_in_order(v).into_iter().collect()
}

fn ids_in_order(v: &Value) -> Vec<u32> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|x| x.as_u64().map_or(u32::MAX, |n| n as u32))
        .collect()
}
