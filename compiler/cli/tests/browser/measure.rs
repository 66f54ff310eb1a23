//! What the browser test measures and keeps: load times and file sizes of the largest
//! trees' pages (the Unvanquished corpus's `default.bt`, the MBT human soldier where present,
//! the squad soldier, a generated 5,000-node tree), the time a key press takes to show the next tick, and the README's
//! screenshot (`docs/viewer.png` when `BTVM_UPDATE_SCREENSHOT=1`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::chrome::{Chrome, HEIGHT, WIDTH};
use crate::common::spec;
use crate::expect::{self, Case, Expected, Tick};
use crate::{page, view};

/// The tick the screenshot shows: the one with the most nodes finishing `running` (the
/// first of those), so a running action and its path are lit.
pub fn screenshot_tick(expected: &Expected) -> &Tick {
    let running = |t: &Tick| t.status.values().filter(|s| *s == "running").count();
    expected
        .ticks
        .iter()
        .rev()
        .max_by_key(|t| running(t))
        .expect("a tick")
}

/// Writes the screenshot to the target directory and, with `BTVM_UPDATE_SCREENSHOT=1`, to
/// `docs/viewer.png`.
pub fn save_screenshot(png: &[u8], name: &str, tick: u32) {
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("viewer.png");
    std::fs::write(&target, png).expect("the screenshot is written");
    println!(
        "screenshot of {name} at tick {tick}, {WIDTH}x{HEIGHT}, {} bytes: {}",
        png.len(),
        target.display()
    );
    if std::env::var_os("BTVM_UPDATE_SCREENSHOT").is_some_and(|v| v == "1") {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        std::fs::create_dir_all(&docs).expect("docs/");
        std::fs::write(docs.join("viewer.png"), png).expect("docs/viewer.png is written");
        println!("and to docs/viewer.png");
    }
}

/// Prints, for each large tree, the page's size, the time `btvm view` took, the median load
/// time in the browser (navigation start to the load event's end, Performance API) and the
/// time a key press takes; checks every node is drawn, and the generated tree's page fully.
pub fn load_times(chrome: &Chrome, dir: &Path) {
    let mut cases = Vec::new();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/unvanquished");
    if corpus.join("default.bt").is_file() {
        cases.push(Case {
            name: "default",
            tree: corpus.join("default.bt").to_string_lossy().into_owned(),
            scenario: Some(spec("scenarios/default-bot.scn")),
            profile: None,
            agent: 0,
        });
    } else {
        println!("{} not found: default.bt not measured", corpus.display());
    }
    // Our largest MBT tree, where the branch has it.
    if Path::new(&spec("examples/human_soldier.xml")).is_file() {
        cases.push(Case {
            name: "human_soldier",
            tree: spec("examples/human_soldier.xml"),
            scenario: Some(spec("scenarios/human_soldier.scn")),
            profile: Some("gamesdk"),
            agent: 0,
        });
    }
    cases.push(Case {
        name: "squad_soldier",
        tree: spec("examples/squad_soldier.xml"),
        scenario: Some(spec("scenarios/squad_soldier.scn")),
        profile: Some("gamesdk"),
        agent: 0,
    });
    cases.push(generated(dir, 5000));
    let mut table =
        String::from("tree            nodes  ticks     bytes  view ms  load ms  step ms\n");
    for case in &cases {
        let expected = expect::tree_only(case);
        let ticks = case
            .scenario
            .as_deref()
            .map_or(0, |s| expect::scenario(s).ticks);
        let start = Instant::now();
        let page_path = view(case, dir);
        let view_ms = start.elapsed().as_millis();
        let bytes = std::fs::metadata(&page_path).expect("the page").len();
        let mut loads = Vec::new();
        for _ in 0..3 {
            chrome.open(&page_path, None);
            loads.push(load_ms(chrome));
        }
        loads.sort_by(f64::total_cmp);
        if let Err(e) = page::loaded(chrome, &expected) {
            panic!("{}: {e}", case.name);
        }
        let step = step_ms(chrome, ticks);
        let _ = writeln!(
            table,
            "{:<14} {:>6} {:>6} {:>9} {:>8} {:>8.0} {:>8.1}",
            case.name,
            expected.parents.len(),
            ticks,
            bytes,
            view_ms,
            loads[1],
            step
        );
    }
    print!("{table}");
    // The real tree's first ticks, stepped and checked like the examples'.
    if let Some(default) = cases.iter().find(|c| c.name == "default") {
        let expected = expect::expected_first(default, 50);
        chrome.open(&dir.join("default.html"), None);
        crate::check(default.name, page::loaded(chrome, &expected));
        for (k, t) in expected.ticks.iter().enumerate() {
            if k > 0 {
                chrome.press("ArrowRight");
            }
            crate::check(default.name, page::shows(chrome, t));
        }
        println!("default: the first 50 of its 1000 ticks stepped and checked");
    }
    if let Some(human) = cases.iter().find(|c| c.name == "human_soldier") {
        crate::check_page(
            chrome,
            human.name,
            &dir.join("human_soldier.html"),
            &expect::expected(human),
        );
    }
    // The 5,000-node page replays its trace like the examples' pages.
    let big = generated(dir, 5000);
    crate::check_page(chrome, big.name, &view(&big, dir), &expect::expected(&big));
}

/// Navigation start to the end of the load event, in ms.
fn load_ms(chrome: &Chrome) -> f64 {
    chrome
        .eval("performance.getEntriesByType('navigation')[0].loadEventEnd")
        .as_f64()
        .expect("a load time")
}

/// The mean time of an ArrowRight press (up to 10): `Input.dispatchKeyEvent` answers once
/// the page has handled the key, so this is the page's work plus one DevTools round trip.
/// Each press is checked to have selected the next tick.
fn step_ms(chrome: &Chrome, ticks: u32) -> f64 {
    let steps = ticks.saturating_sub(1).min(10);
    let mut total = 0.0;
    for k in 1..=steps {
        let start = Instant::now();
        chrome.press("ArrowRight");
        total += start.elapsed().as_secs_f64();
        chrome.wait_for(&format!("document.body.dataset.tick === '{k}'"));
    }
    total * 1000.0 / steps.max(1) as f64
}

/// A generated Unvanquished tree of exactly `nodes` nodes (selectors and sequences four
/// wide, leaves cycling through three actions and a condition) with a 20-tick scenario.
pub fn generated(dir: &Path, nodes: usize) -> Case {
    let mut text = String::from("// generated by the browser test: a tree of many nodes\n");
    subtree(&mut text, nodes, 0, &mut 0);
    let tree = dir.join(format!("generated-{nodes}.bt"));
    std::fs::write(&tree, text).expect("the tree is written");
    let scn: PathBuf = dir.join(format!("generated-{nodes}.scn"));
    std::fs::write(
        &scn,
        "ticks 20\ntime 1000 100\nanswer alertedToEnemy = @0 0, @5 1, @12 0\n\
         answer fight = running, success\nanswer heal = failure\nanswer roamInRadius = running\n",
    )
    .expect("the scenario is written");
    Case {
        name: "generated",
        tree: tree.to_string_lossy().into_owned(),
        scenario: Some(scn.to_string_lossy().into_owned()),
        profile: None,
        agent: 0,
    }
}

/// Writes a subtree of exactly `budget` nodes at `depth`.
fn subtree(out: &mut String, budget: usize, depth: usize, leaf: &mut usize) {
    let pad = "\t".repeat(depth);
    if budget <= 1 {
        const LEAVES: [&str; 4] = [
            "condition alertedToEnemy",
            "action fight",
            "action heal",
            "action roamInRadius( E_H_REACTOR, 500 )",
        ];
        let _ = writeln!(out, "{pad}{}", LEAVES[*leaf % LEAVES.len()]);
        *leaf += 1;
        return;
    }
    let kind = if depth.is_multiple_of(2) {
        "selector"
    } else {
        "sequence"
    };
    let _ = writeln!(out, "{pad}{kind}\n{pad}{{");
    let rest = budget - 1;
    let width = rest.min(4);
    for i in 0..width {
        let share = rest / width + usize::from(i < rest % width);
        subtree(out, share, depth + 1, leaf);
    }
    let _ = writeln!(out, "{pad}}}");
}
