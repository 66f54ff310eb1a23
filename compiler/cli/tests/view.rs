//! `btvm view` and `btvm dot` (`spec/viewer.md`): one self-contained page per tree of every
//! dialect whose data holds every node, whose timeline is `btvm run`'s trace (host calls,
//! node events, active paths) cut by tick, DOT that parses and is stable, hostile names kept
//! inside their strings, and a 5,000-node tree that does not blow up.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::{btvm, ok, spec, temp, text};
use serde_json::Value;

/// A tree of each dialect (with a scenario where it has one) and its loading options.
const TREES: &[(&str, Option<&str>, &[&str])] = &[
    ("examples/guard.bt", Some("examples/guard.scn"), &[]),
    // Unvanquished with included behaviors.
    ("../benches/src/demo.bt", None, &[]),
    (
        "examples/wanderer/wanderer.debt",
        Some("examples/wanderer/wanderer.scn"),
        &[],
    ),
    (
        "examples/squad_soldier.xml",
        Some("scenarios/squad_soldier.scn"),
        &["--dialect", "mbt", "--profile", "gamesdk"],
    ),
    ("examples/grunt/grunt.xml", Some("scenarios/grunt.scn"), &[]),
    ("examples/figure1.spore", Some("examples/figure1.scn"), &[]),
    // Canonical, with a subtree included from two places.
    ("../vm/tests/fixtures/vm_all.btn", None, &[]),
];

/// `btvm view TREE [--scenario S] OPTS MORE`: the page.
fn page(tree: &str, scenario: Option<&str>, opts: &[&str], more: &[&str]) -> String {
    let mut args = vec!["view", tree];
    if let Some(s) = scenario {
        args.extend(["--scenario", s]);
    }
    args.extend_from_slice(opts);
    args.extend_from_slice(more);
    ok(&args)
}

/// The page's data element, parsed.
fn data(html: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"btvm-data\">";
    assert_eq!(html.matches(open).count(), 1, "one data element");
    let start = html.find(open).unwrap() + open.len();
    let len = html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..start + len]).unwrap()
}

/// The node count `btvm check` reports for `tree`.
fn node_count(tree: &str, opts: &[&str]) -> usize {
    let mut args = vec!["check", tree];
    args.extend_from_slice(opts);
    let out = ok(&args);
    let at = out.find("ok (").unwrap() + 4;
    out[at..].split(' ').next().unwrap().parse().unwrap()
}

/// No URL leaves the file: no `http:`/`https:` anywhere, and every `src`/`href`/`url(` value
/// is a fragment or a `data:` URL.
fn assert_self_contained(html: &str) {
    assert!(!html.contains("http:") && !html.contains("https:"));
    for attr in ["src=", "href=", "url("] {
        for (at, _) in html.match_indices(attr) {
            let value = html[at + attr.len()..].trim_start_matches(['"', '\'']);
            assert!(
                value.starts_with("data:") || value.starts_with('#'),
                "{attr}{}",
                &value[..value.len().min(40)]
            );
        }
    }
    assert_eq!(html.matches("<html").count(), 1);
}

/// Node ids reachable from the roots through children: what the page draws at load.
fn drawn(data: &Value) -> BTreeSet<u64> {
    let nodes = data["nodes"].as_array().unwrap();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<u64> = data["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    while let Some(id) = stack.pop() {
        if seen.insert(id) {
            let kids = nodes[id as usize]["children"].as_array().unwrap();
            stack.extend(kids.iter().map(|v| v.as_u64().unwrap()));
        }
    }
    seen
}

#[test]
fn every_dialect_gives_one_page_with_every_node() {
    for &(tree, scenario, opts) in TREES {
        let tree = spec(tree);
        let scenario = scenario.map(spec);
        let html = page(&tree, scenario.as_deref(), opts, &[]);
        assert_self_contained(&html);
        let data = data(&html);
        let nodes = data["nodes"].as_array().unwrap();
        let n = node_count(&tree, opts);
        assert_eq!(nodes.len(), n, "{tree}");
        for (i, node) in nodes.iter().enumerate() {
            assert_eq!(node["id"].as_u64(), Some(i as u64), "{tree}");
            assert!(!node["kind"].as_str().unwrap().is_empty());
            assert!(
                node["line"].as_u64().unwrap() > 0,
                "{tree}: node {i} has no line"
            );
            assert!(!node["file"].as_str().unwrap().is_empty());
        }
        assert_eq!(
            drawn(&data),
            (0..n as u64).collect(),
            "{tree}: every node drawn"
        );
        assert_eq!(data["timeline"].is_null(), scenario.is_none(), "{tree}");
    }
}

/// `btvm run`'s trace, split into ticks: (header, lines without indentation).
fn run_ticks(out: &str) -> Vec<(String, Vec<String>)> {
    let mut ticks: Vec<(String, Vec<String>)> = Vec::new();
    for line in out.lines() {
        match line.strip_prefix("  ") {
            Some(l) => ticks.last_mut().unwrap().1.push(l.to_string()),
            None => ticks.push((line.to_string(), Vec::new())),
        }
    }
    ticks
}

/// A node event of the data as `btvm run --trace nodes` writes it.
fn event_line(data: &Value, e: &Value) -> String {
    let node = e["node"].as_u64().unwrap();
    let kind = data["nodes"][node as usize]["kind"].as_str().unwrap();
    match e["event"].as_str().unwrap() {
        "enter" => format!("node {node} {kind} enter"),
        _ => format!("node {node} {kind} -> {}", e["status"].as_str().unwrap()),
    }
}

#[test]
fn the_timeline_is_btvm_runs_trace_tick_by_tick() {
    for &(tree, scenario, opts) in TREES {
        let Some(scenario) = scenario else { continue };
        let (tree, scenario) = (spec(tree), spec(scenario));
        let data = data(&page(&tree, Some(&scenario), opts, &[]));
        let timeline = &data["timeline"];
        let ticks = timeline["ticks"].as_array().unwrap();
        let mut run = vec!["run", tree.as_str(), "--scenario", scenario.as_str()];
        run.extend_from_slice(opts);
        let calls = run_ticks(&ok(&run));
        // Only agent 0's part of each tick.
        let calls: Vec<_> = calls
            .into_iter()
            .filter(|(h, _)| !h.contains(" agent ") || h.ends_with(" agent 0"))
            .collect();
        assert_eq!(ticks.len(), calls.len(), "{tree}");
        let traced = timeline["traced"].as_bool().unwrap();
        let nodes = if traced {
            run.extend(["--trace", "nodes"]);
            let all = run_ticks(&ok(&run));
            all.into_iter()
                .filter(|(h, _)| !h.contains(" agent ") || h.ends_with(" agent 0"))
                .collect()
        } else {
            assert!(tree.ends_with(".spore"), "{tree}: only Spore is untraced");
            Vec::new()
        };
        let mut any_events = false;
        for (k, tick) in ticks.iter().enumerate() {
            let (header, lines) = &calls[k];
            let want = format!("tick {k} now {}", tick["now"]);
            assert!(header.starts_with(&want), "{tree}: {header} vs {want}");
            assert_eq!(tick["tick"].as_u64(), Some(k as u64));
            let got: Vec<&str> = tick["calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            assert_eq!(got, *lines, "{tree}: tick {k}");
            let events: Vec<String> = tick["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| event_line(&data, e))
                .collect();
            if traced {
                let want: Vec<&String> = nodes[k]
                    .1
                    .iter()
                    .filter(|l| l.starts_with("node "))
                    .collect();
                assert_eq!(events.iter().collect::<Vec<_>>(), want, "{tree}: tick {k}");
                any_events |= !events.is_empty();
            } else {
                assert!(events.is_empty());
            }
        }
        assert_eq!(any_events, traced, "{tree}");
    }
}

/// The active path `btvm run --dump-state` prints after `ticks` ticks, one line per node.
fn dumped_path(tree: &str, scenario: &str, opts: &[&str], ticks: usize) -> Vec<String> {
    let n = ticks.to_string();
    let mut args = vec![
        "run",
        tree,
        "--scenario",
        scenario,
        "--ticks",
        &n,
        "--dump-state",
    ];
    args.extend_from_slice(opts);
    let out = ok(&args);
    let from = out.find("active path").unwrap();
    out[from..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| {
            l.trim_start_matches([' ', '*', '-', '+'])
                .trim()
                .to_string()
        })
        .take_while(|l| l.contains(" @ "))
        .collect()
}

#[test]
fn each_ticks_active_path_is_the_one_dump_state_prints() {
    for &(tree, scenario, opts) in TREES {
        let Some(scenario) = scenario else { continue };
        let (tree, scenario) = (spec(tree), spec(scenario));
        let data = data(&page(&tree, Some(&scenario), opts, &[]));
        let ticks = data["timeline"]["ticks"].as_array().unwrap();
        let mut some = false;
        for k in [0, 1, ticks.len() / 2, ticks.len() - 1] {
            let active = ticks[k]["active"].as_array().unwrap();
            let dumped = dumped_path(&tree, &scenario, opts, k + 1);
            assert_eq!(active.len(), dumped.len(), "{tree} tick {k}: {dumped:?}");
            for (id, line) in active.iter().zip(&dumped) {
                let n = &data["nodes"][id.as_u64().unwrap() as usize];
                let name = n["name"].as_str().unwrap();
                let mut want = n["kind"].as_str().unwrap().to_string();
                if !name.is_empty() {
                    want += &format!(" {name:?}");
                }
                want += &format!(" @ {}:{}:", n["file"].as_str().unwrap(), n["line"]);
                assert!(line.starts_with(&want), "{tree} tick {k}: {line} vs {want}");
            }
            some |= !active.is_empty();
        }
        assert!(some, "{tree}: some tick has an active path");
    }
}

#[test]
fn the_agent_option_picks_an_agent_and_refuses_one_the_scenario_lacks() {
    let tree = spec("examples/guard.bt");
    let scn = temp(
        "agents.scn",
        "agents 3\nticks 4\nanswer distanceTo agent 2 = 100.0\nanswer distanceTo = 900.0\n",
    );
    let scn = scn.to_str().unwrap();
    let data = data(&page(&tree, Some(scn), &[], &["--agent", "2"]));
    assert_eq!(data["timeline"]["agent"], 2);
    let run = run_ticks(&ok(&["run", &tree, "--scenario", scn]));
    let mine: Vec<_> = run
        .iter()
        .filter(|(h, _)| h.ends_with(" agent 2"))
        .collect();
    for (tick, (_, lines)) in data["timeline"]["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .zip(mine)
    {
        assert_eq!(tick["calls"].as_array().unwrap().len(), lines.len());
        assert_eq!(tick["calls"][1].as_str().unwrap(), lines[1]);
        assert!(lines[1].contains("100.0"), "{lines:?}");
    }
    let bad = btvm(&["view", &tree, "--scenario", scn, "--agent", "3"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("there is no agent 3: the scenario runs 3 agents"));
    let bad = btvm(&["view", &tree, "--agent", "1"]);
    assert_eq!(bad.status.code(), Some(2), "--agent needs --scenario");
    let bad = btvm(&["view", &spec("examples/nothing.bt")]);
    assert_eq!(bad.status.code(), Some(1));
}

/// DOT statements with quoted strings kept whole: (node ids declared, edges), after checking
/// that braces balance outside strings and every string ends.
fn parse_dot(dot: &str) -> (BTreeSet<String>, Vec<(String, String)>) {
    let mut depth = 0i32;
    let mut in_str = false;
    let mut escaped = false;
    let mut bare = String::new(); // the text outside strings
    for c in dot.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                (false, '\n') => panic!("newline inside a DOT string"),
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                bare.push('S');
            }
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced braces");
            }
            _ => {}
        }
        if c != '"' {
            bare.push(c);
        }
    }
    assert!(!in_str && depth == 0, "strings and braces end");
    assert!(dot.starts_with("digraph btvm {\n") && dot.ends_with("}\n"));
    let mut nodes = BTreeSet::new();
    let mut edges = Vec::new();
    for stmt in bare.lines().map(str::trim) {
        let stmt = stmt.trim_end_matches(';');
        if let Some((a, b)) = stmt.split_once(" -> ") {
            edges.push((a.to_string(), b.to_string()));
        } else if stmt.starts_with('n') && stmt.contains(" [label=S") {
            nodes.insert(stmt.split(' ').next().unwrap().to_string());
        }
    }
    (nodes, edges)
}

#[test]
fn dot_has_every_node_and_edge_parses_and_is_stable() {
    for &(tree, _, opts) in TREES {
        let tree = spec(tree);
        let mut args = vec!["dot", tree.as_str()];
        args.extend_from_slice(opts);
        let dot = ok(&args);
        assert_eq!(dot, ok(&args), "{tree}: the same bytes twice");
        let (nodes, edges) = parse_dot(&dot);
        let data = data(&page(&tree, None, opts, &[]));
        let want_nodes: BTreeSet<String> = data["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| format!("n{}", n["id"]))
            .collect();
        assert_eq!(nodes, want_nodes, "{tree}");
        let want_edges: Vec<(String, String)> = data["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| {
                let id = n["id"].clone();
                n["children"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |c| (format!("n{id}"), format!("n{c}")))
            })
            .collect();
        assert_eq!(edges, want_edges, "{tree}");
    }
}

#[test]
fn dot_with_a_tick_colours_its_statuses_and_bolds_its_active_path() {
    let (tree, scn) = (spec("examples/guard.bt"), spec("examples/guard.scn"));
    let data = data(&page(&tree, Some(&scn), &[], &[]));
    let tick = &data["timeline"]["ticks"][2];
    let dot = ok(&["dot", &tree, "--scenario", &scn, "--tick", "2"]);
    parse_dot(&dot);
    let mut last = std::collections::BTreeMap::new();
    for e in tick["events"].as_array().unwrap() {
        if e["event"] == "finish" {
            last.insert(e["node"].as_u64().unwrap(), e["status"].as_str().unwrap());
        }
    }
    let active: BTreeSet<u64> = tick["active"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(!last.is_empty() && !active.is_empty());
    let colour = |s: &str| match s {
        "success" => "#9be29b",
        "failure" => "#f3a0a0",
        _ => "#ffd27a",
    };
    for line in dot
        .lines()
        .filter(|l| l.starts_with("  n") && l.contains("[label="))
    {
        let id: u64 = line.trim()[1..].split(' ').next().unwrap().parse().unwrap();
        match last.get(&id) {
            Some(s) => assert!(
                line.contains(&format!("fillcolor=\"{}\"", colour(s))),
                "{line}"
            ),
            None => assert!(!line.contains("fillcolor"), "{line}"),
        }
        assert_eq!(line.contains("penwidth=3"), active.contains(&id), "{line}");
    }
    let bad = btvm(&["dot", &tree, "--scenario", &scn, "--tick", "99"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("`--tick 99`"));
}

#[test]
fn hostile_names_stay_inside_their_strings() {
    let name = "a\\\"b</script><script>alert(1)</script>\\n}{ <!-- & http://x";
    let tree = temp(
        "hostile.btn",
        format!(
            "btvm 1;\ndialect unvanquished;\nimport action go 0..0;\n\
             root main = sequence @\"{name}\" running-list {{ action go() }}\n"
        ),
    );
    let tree = tree.to_str().unwrap();
    let html = page(tree, None, &[], &[]);
    assert_eq!(html.matches("</script>").count(), 2, "only the page's own");
    assert!(!html.contains("alert(1)</"));
    let data = data(&html);
    let want =
        "a\\\"b</script><script>alert(1)</script>\\n}{ <!-- & http://x".replace("\\\"", "\"");
    let want = want.replace("\\n", "\n");
    assert_eq!(data["nodes"][0]["name"].as_str().unwrap(), want);
    let dot = ok(&["dot", tree]);
    let (nodes, edges) = parse_dot(&dot);
    assert_eq!(nodes.len(), 2);
    assert_eq!(edges, [("n0".to_string(), "n1".to_string())]);
    assert!(dot.contains("a\\\"b</script>"), "{dot}");
    assert!(dot.contains("\\\\u{a}}{"), "newline as visible text: {dot}");
}

#[test]
fn a_generated_5000_node_tree_renders_in_bounded_time() {
    // 1 root + 714 sequences of (condition, 5 actions) + 1 more = 5,000 nodes.
    let mut src = String::from(
        "btvm 1;\ndialect unvanquished;\nimport function f 1..1;\nimport action a 1..1;\n\
         root main = selector restart {\n",
    );
    let mut n = 1;
    let mut i = 0;
    while n + 7 <= 5000 {
        src += &format!("  sequence running-list {{\n    condition (f({i}) > 0)\n");
        for j in 0..5 {
            src += &format!("    action a({})\n", i * 5 + j);
        }
        src += "  }\n";
        n += 7;
        i += 1;
    }
    while n < 5000 {
        src += &format!("  action a({n})\n");
        n += 1;
    }
    src += "}\n";
    let tree = temp("big.btn", src);
    let tree = tree.to_str().unwrap();
    let scn = temp("big.scn", "ticks 20\nanswer f = @0 0, @10 1\n");
    let start = Instant::now();
    let html = page(tree, Some(scn.to_str().unwrap()), &[], &[]);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(html.len() < 20 << 20, "{} bytes", html.len());
    let data = data(&html);
    assert_eq!(data["nodes"].as_array().unwrap().len(), 5000);
    assert_eq!(drawn(&data).len(), 5000);
    assert_eq!(data["timeline"]["ticks"].as_array().unwrap().len(), 20);
    let start = Instant::now();
    let dot = ok(&["dot", tree]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(parse_dot(&dot).0.len(), 5000);
}
