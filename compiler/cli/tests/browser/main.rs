//! The viewer in a real browser (issue 27 item 4, `spec/viewer.md`): pages written by the
//! built `btvm view` for an example of every dialect, opened in headless Chromium. A page
//! fails on any console message or uncaught exception, on a node of the tree not drawn, on a
//! tick whose highlighted path, statuses or calls differ from what `btvm run --trace nodes`
//! and the library say (stepped with real key presses), and on a collapse that hides the
//! wrong nodes. The same run writes the README's screenshot and prints load times.
//!
//! Needs Chromium (`BTVM_CHROMIUM`, else `/usr/bin/chromium`), so the browser tests are
//! ignored by default; `.ci/run` installs the browser and runs them with `-- --ignored`.
//! Run them on one thread (`--test-threads=1`): each starts its own browser.

#[path = "../common/mod.rs"]
mod common;

mod cdp;
mod chrome;
mod expect;
mod fixture;
mod measure;
mod page;

use std::path::{Path, PathBuf};

use chrome::Chrome;
use common::{btvm, spec, text};
use expect::{Case, Expected};
use page::Verdict;

/// An example per dialect, each with its scenario, and another agent of one of them.
fn cases() -> Vec<Case> {
    let case = |name, tree: &str, scn: &str, profile| Case {
        name,
        tree: spec(tree),
        scenario: Some(spec(scn)),
        profile,
        agent: 0,
    };
    vec![
        case("guard", "examples/guard.bt", "examples/guard.scn", None),
        case(
            "wanderer",
            "examples/wanderer/wanderer.debt",
            "examples/wanderer/wanderer.scn",
            None,
        ),
        case(
            "squad_soldier",
            "examples/squad_soldier.xml",
            "scenarios/squad_soldier.scn",
            Some("gamesdk"),
        ),
        case(
            "grunt",
            "examples/grunt/grunt.xml",
            "scenarios/grunt.scn",
            None,
        ),
        case(
            "figure1",
            "examples/figure1.spore",
            "examples/figure1.scn",
            None,
        ),
        Case {
            agent: 2,
            ..case(
                "squad_soldier-agent-2",
                "examples/squad_soldier.xml",
                "scenarios/squad_soldier.scn",
                Some("gamesdk"),
            )
        },
    ]
}

/// A scratch directory for this run's pages.
fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir).expect("the scratch directory");
    dir
}

/// Writes `case`'s page with `btvm view` and returns its path.
fn view(case: &Case, dir: &Path) -> PathBuf {
    let out = dir.join(format!("{}.html", case.name));
    let out_arg = out.to_string_lossy().into_owned();
    let mut args = vec!["view", case.tree.as_str()];
    let agent = case.agent.to_string();
    if let Some(s) = &case.scenario {
        args.extend(["--scenario", s.as_str(), "--agent", agent.as_str()]);
    }
    let load = case.load_args();
    args.extend(load.iter().map(String::as_str));
    args.extend(["-o", out_arg.as_str()]);
    let run = btvm(&args);
    assert!(
        run.status.success(),
        "btvm {}: {}",
        args.join(" "),
        text(&run.stderr)
    );
    out
}

fn check(name: &str, verdict: Verdict) {
    if let Err(e) = verdict {
        panic!("{name}: {e}");
    }
}

/// Opens a page and runs every check: drawn, stepped, collapsed.
fn check_page(chrome: &Chrome, name: &str, page_path: &Path, expected: &Expected) {
    chrome.open(page_path, None);
    check(name, page::loaded(chrome, expected));
    check(name, page::step_through(chrome, &expected.ticks));
    let collapsed = match page::collapsible(chrome, expected) {
        Some((node, below)) => {
            check(name, page::collapse(chrome, expected, node, &below));
            format!("node {node}'s {} descendants hidden and shown", below.len())
        }
        None => "no node to collapse".to_string(),
    };
    println!(
        "{name}: {} nodes drawn, {} ticks stepped (ArrowRight, Home, End, ArrowLeft, j, k, slider), {collapsed}, console quiet",
        expected.parents.len(),
        expected.ticks.len(),
    );
}

#[test]
#[ignore = "needs Chromium: .ci/run installs it and runs it"]
fn every_dialect_s_page_draws_every_node_and_replays_the_trace() {
    let chrome = Chrome::start();
    let dir = scratch();
    for case in cases() {
        let expected = expect::expected(&case);
        let page_path = view(&case, &dir);
        check_page(&chrome, case.name, &page_path, &expected);
    }
}

#[test]
#[ignore = "needs Chromium: .ci/run installs it and runs it"]
fn screenshot_of_the_viewer_at_a_tick_chosen_by_url() {
    let chrome = Chrome::start();
    let case = cases()
        .into_iter()
        .find(|c| c.name == "squad_soldier")
        .expect("the squad soldier");
    let expected = expect::expected(&case);
    let tick = measure::screenshot_tick(&expected);
    let page_path = view(&case, &scratch());
    chrome.open(&page_path, Some(&format!("tick={}", tick.tick)));
    check(case.name, page::loaded(&chrome, &expected));
    check(case.name, page::shows(&chrome, tick));
    // Collapse the root's children that are off the active path, so the running part shows.
    for child in 0..expected.parents.len() as u32 {
        let idle = expected.parents[child as usize] == Some(0) && !tick.active.contains(&child);
        if idle && !expected.descendants(child).is_empty() {
            chrome.click(&format!("svg#tree g.node[data-node=\"{child}\"] .toggle"));
        }
    }
    chrome.eval("document.querySelectorAll('*').forEach(e => { e.scrollTop = 0; }) ?? true");
    check(case.name, page::shows(&chrome, tick));
    let png = chrome.screenshot();
    measure::save_screenshot(&png, case.name, tick.tick);
}

#[test]
#[ignore = "needs Chromium: .ci/run installs it and runs it"]
fn load_times_of_the_largest_trees() {
    let chrome = Chrome::start();
    measure::load_times(&chrome, &scratch());
}

#[test]
#[ignore = "needs Chromium: .ci/run installs it and runs it"]
fn the_checks_fail_on_a_page_that_breaks_the_contract() {
    use fixture::Spoil;
    let chrome = Chrome::start();
    let dir = scratch();
    let guard = &cases()[0];
    let expected = expect::expected(guard);
    let right = fixture::write(&dir, &expected, Spoil::None);
    check_page(&chrome, "fixture", &right, &expected);
    for spoil in [
        Spoil::Undrawn,
        Spoil::Unplaced,
        Spoil::Warns,
        Spoil::Throws,
        Spoil::Stuck,
        Spoil::Inactive,
        Spoil::Status,
        Spoil::Call,
    ] {
        chrome.open(&fixture::write(&dir, &expected, spoil), None);
        let verdict = page::loaded(&chrome, &expected)
            .and_then(|()| page::step_through(&chrome, &expected.ticks))
            .and_then(|()| {
                let (node, below) = page::collapsible(&chrome, &expected).expect("a subtree");
                page::collapse(&chrome, &expected, node, &below)
            });
        let err = verdict.expect_err(&format!("the checks pass a page spoiled by {spoil:?}"));
        println!("fixture spoiled by {spoil:?} fails: {err}");
        chrome.take_problems();
    }
}
