//! The Drag[en]gine `.debt` front-end: every rule kind and its IR shape, condition modes,
//! parameters, doNotFail and loop, rule ids (prefixes, the subtree quirk, duplicates), subtree
//! files (relative paths, per-site copies, cycles, include depth), every error kind with its
//! position, hostile nesting, and the `spec/examples/wanderer` example.

use std::path::{Path, PathBuf};

use btvm::{ImportKind, Limits, Status};
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    BinOp, Dialect, Expr, GuardEval, Lit, Model, NodeId, NodeKind, Resume, RootFinish, Tree,
};
use btvm_compiler::load::{self, LoadOptions};
use btvm_compiler::source::{MemFs, RealFs, SourceMap};
use btvm_compiler::syntax::dragengine::load;

use btvm_testkit::front;

// ---- helpers ------------------------------------------------------------------------------

use front::memfs;

fn try_load_with(
    files: &[(&str, &str)],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    front::try_load_with(load, files, limits)
}

fn try_load_bytes(
    files: &[(&str, &[u8])],
    limits: &Limits,
) -> (Result<Tree, Vec<Diagnostic>>, SourceMap) {
    front::try_load_bytes(load, files, limits)
}

fn load_files(files: &[(&str, &str)]) -> Tree {
    front::load_ok(load, files)
}

/// Loads `body` wrapped in `<behaviorTree>`.
fn load_tree(body: &str) -> Tree {
    load_files(&[("main.debt", &tree(body))])
}

fn tree(body: &str) -> String {
    format!("<behaviorTree>{body}</behaviorTree>")
}

/// The first diagnostic and its `file:line:col`.
fn err_with(files: &[(&str, &str)], limits: &Limits) -> (Diagnostic, String) {
    let (r, sources) = try_load_with(files, limits);
    match r {
        Ok(_) => panic!("{} loaded but should not have", files[0].0),
        Err(d) => {
            let at = sources.locate(d[0].span);
            (d[0].clone(), at)
        }
    }
}

/// Asserts the kind and `line:col` (in `/t/main.debt`) of the error `src` produces.
#[track_caller]
fn assert_err(src: &str, kind: ErrorKind, line_col: &str) -> Diagnostic {
    let (d, at) = err_with(&[("main.debt", src)], &Limits::default());
    assert_eq!(d.kind, kind, "{}: {}", at, d.message);
    assert_eq!(at, format!("/t/main.debt:{line_col}"), "{}", d.message);
    d
}

fn import_name(t: &Tree, id: btvm::ImportId) -> String {
    let i = &t.imports[id.0 as usize];
    let k = match i.kind {
        ImportKind::Action => "action ",
        ImportKind::Function => "",
    };
    format!("{k}{}", i.name)
}

fn show_expr(t: &Tree, e: &Expr) -> String {
    match e {
        Expr::Lit(Lit::Str(s)) => format!("{s:?}"),
        Expr::Bound(i) => format!("@bound({})", import_name(t, *i)),
        Expr::Not(a) => format!("!{}", show_expr(t, a)),
        Expr::Binary(op, a, b) => {
            format!("({} {} {})", show_expr(t, a), op.symbol(), show_expr(t, b))
        }
        Expr::Call(c) => format!(
            "{}({})",
            t.imports[c.import.0 as usize].name,
            show_args(t, &c.args)
        ),
        other => panic!("unexpected expression {other:?}"),
    }
}

fn show_args(t: &Tree, args: &[btvm_compiler::ir::Arg]) -> String {
    args.iter()
        .map(|a| {
            assert!(a.name.is_none(), "parameters are positional");
            show_expr(t, &a.value)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A compact rendering: `kind#name { children }`; asserts the knobs every rule must have.
fn show(t: &Tree, id: NodeId) -> String {
    let n = t.node(id);
    let kids: Vec<String> = n.children.iter().map(|&c| show(t, c)).collect();
    let list = |word: &str, c: &btvm_compiler::ir::Composite| {
        assert_eq!(c.resume, Resume::Cursor);
        let mut s = word.to_string();
        if c.looping {
            s.push_str(" loop");
        }
        if let Some(e) = &c.cond {
            s.push_str(&format!(" when {}", show_expr(t, e)));
        }
        s
    };
    let mut head = match &n.kind {
        NodeKind::Sequence(c) => list("sequence", c),
        NodeKind::Selector(c) => list("choice", c),
        NodeKind::Guard(g) => {
            assert_eq!(g.eval, GuardEval::EveryTick);
            format!("guard {}", show_expr(t, &g.cond))
        }
        NodeKind::MapStatus(m) => {
            assert_eq!(
                (m.failure, m.success, m.running),
                (Status::Success, Status::Success, Status::Running)
            );
            "dnf".to_string()
        }
        NodeKind::Action(c) => format!(
            "action {}({})",
            t.imports[c.import.0 as usize].name,
            show_args(t, &c.args)
        ),
        NodeKind::Const(s) => s.to_string(),
        NodeKind::Yield => "yield".to_string(),
        other => panic!("unexpected node kind {other:?}"),
    };
    if let Some(name) = &n.name {
        head.push_str(&format!("#{name}"));
    }
    if kids.is_empty() {
        head
    } else {
        format!("{head} {{ {} }}", kids.join("; "))
    }
}

fn show_main(t: &Tree) -> String {
    show(t, t.main_root().unwrap())
}

/// Every rule id in the tree, in pre-order.
fn ids(t: &Tree) -> Vec<String> {
    t.nodes.iter().filter_map(|n| n.name.clone()).collect()
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ---- the tree and its knobs ----------------------------------------------------------------

#[test]
fn an_empty_behavior_tree_is_a_failure_rule_named_root() {
    for src in [
        "<behaviorTree/>",
        "<?xml version='1.0'?>\n<!-- nothing -->\n<behaviorTree>\n  text is ignored\n</behaviorTree>\n",
    ] {
        let t = load_files(&[("main.debt", src)]);
        assert_eq!(show_main(&t), "failure#root");
        assert!(t.imports.is_empty());
    }
}

#[test]
fn the_tree_has_the_dragengine_knobs_and_one_entry() {
    let t = load_tree("<success/>");
    assert_eq!(t.dialect, Dialect::Dragengine);
    assert_eq!(t.config.model, Model::Cursor { runaway_limit: 100 });
    assert_eq!(t.config.root_finish, RootFinish::RestartOrStop);
    assert_eq!(t.roots.len(), 1);
    assert_eq!(t.roots[0].name, "main");
    assert!(t.subtrees.is_empty());
}

#[test]
fn load_routes_debt_files_to_this_front_end() {
    let fs = memfs(&[(
        "main.debt",
        tree("<sequence id='s'><action name='a'/><yield/></sequence>").as_bytes(),
    )]);
    let mut sources = SourceMap::new();
    let t = load::load(
        Path::new("/t/main.debt"),
        &fs,
        &LoadOptions::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    assert_eq!(
        show_main(&t),
        "sequence#s { guard @bound(action a) { action a() }; yield }"
    );
}

// ---- rule kinds ----------------------------------------------------------------------------

#[test]
fn an_action_is_guarded_by_its_presence() {
    let t = load_tree(
        "<action name='timer.start' id='t'>\
           <parameter name='timeout'>1.5</parameter>\
           <parameter name='timer'>rest</parameter>\
         </action>",
    );
    assert_eq!(
        show_main(&t),
        "guard @bound(action timer.start)#t { \
         action timer.start(\"timeout\", \"1.5\", \"timer\", \"rest\") }"
    );
    let i = &t.imports[0];
    assert_eq!(
        (i.kind, i.name.as_str()),
        (ImportKind::Action, "timer.start")
    );
    assert_eq!((i.min_args, i.max_args, i.long_running), (4, 4, true));
}

#[test]
fn an_action_with_conditions_tests_presence_first() {
    let t = load_tree(
        "<action name='walk'>\
           <condition>path.free</condition>\
           <parameter name='speed'>2</parameter>\
         </action>",
    );
    assert_eq!(
        show_main(&t),
        "guard (@bound(action walk) && (@bound(path.free) && path.free(\"speed\", \"2\"))) { \
         action walk(\"speed\", \"2\") }"
    );
    assert_eq!(t.imports[1].kind, ImportKind::Function);
    assert!(!t.imports[1].long_running);
}

#[test]
fn leaf_rules_are_guarded_only_when_they_have_conditions() {
    let t = load_tree(
        "<sequence>\
           <success id='a'/><running id='b'/><yield id='c'/><failure id='d'/>\
           <success id='e'><condition>x</condition></success>\
           <running id='f'><condition>x</condition></running>\
           <yield id='g'><condition>x</condition></yield>\
           <failure id='h'><condition>never.imported</condition></failure>\
         </sequence>",
    );
    let g = "guard (@bound(x) && x())";
    assert_eq!(
        show_main(&t),
        format!(
            "sequence {{ success#a; running#b; yield#c; failure#d; \
             {g}#e {{ success }}; {g}#f {{ running }}; {g}#g {{ yield }}; failure#h }}"
        )
    );
    assert_eq!(t.imports.len(), 1, "failure ignores its conditions");
}

#[test]
fn sequence_and_choice_are_cursor_lists_with_their_conditions() {
    let t = load_tree(
        "<choice id='c' loop='true'>\
           <condition>alive</condition>\
           <sequence id='.s'><success/></sequence>\
           <sequence loop='yes'/>\
         </choice>",
    );
    assert_eq!(
        show_main(&t),
        "choice loop when (@bound(alive) && alive())#c { sequence#c.s { success }; sequence }"
    );
}

#[test]
fn do_not_fail_wraps_the_whole_rule_and_carries_its_id() {
    let t = load_tree(
        "<sequence id='s' doNotFail='true'>\
           <action name='a' id='.a' doNotFail='true'><condition>c</condition></action>\
           <choice id='.c' doNotFail='true' loop='true'/>\
           <success doNotFail='true'/>\
           <action name='b' doNotFail='TRUE'/>\
         </sequence>",
    );
    assert_eq!(
        show_main(&t),
        "dnf#s { sequence { \
           dnf#s.a { guard (@bound(action a) && (@bound(c) && c())) { action a() } }; \
           dnf#s.c { choice loop }; \
           success; \
           guard @bound(action b) { action b() } } }"
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
}

#[test]
fn subtrees_are_built_in_place_as_sequences() {
    let t = load_files(&[
        (
            "main.debt",
            &tree(
                "<sequence><subtree id='p' loop='true' doNotFail='true'>sub.debt</subtree>\
                 <subTree>sub.debt</subTree></sequence>",
            ),
        ),
        ("sub.debt", &tree("<action name='walk'/><yield/>")),
    ]);
    let body = "guard @bound(action walk) { action walk() }; yield";
    assert_eq!(
        show_main(&t),
        format!("sequence {{ dnf#p {{ sequence loop {{ {body} }} }}; sequence {{ {body} }} }}")
    );
    assert!(t.subtrees.is_empty(), "subtrees are copied per site");
    assert_eq!(t.imports.len(), 1);
}

#[test]
fn unknown_attributes_and_text_are_ignored_and_booleans_need_exactly_true() {
    let t = load_tree(
        "<sequence colour='red' loop='True' doNotFail='1'>some text\
           <success doNotFail='true' loop='true'/>more text\
           <action name='a' loop='true'/>\
         </sequence>",
    );
    assert_eq!(
        show_main(&t),
        "sequence { success; guard @bound(action a) { action a() } }"
    );
}

// ---- conditions and parameters -------------------------------------------------------------

/// The guard expression of `<success>` with conditions `a`, `b`, `c` and `mode`.
fn mode_expr(mode: Option<&str>) -> String {
    let mode = mode.map_or(String::new(), |m| {
        format!("<conditionMode>{m}</conditionMode>")
    });
    let t = load_tree(&format!(
        "<success><condition>a</condition>{mode}<condition>b</condition>\
         <condition>c</condition></success>"
    ));
    let r = t.node(t.main_root().unwrap());
    match &r.kind {
        NodeKind::Guard(g) => show_expr(&t, &g.cond),
        k => panic!("{k:?}"),
    }
}

#[test]
fn every_condition_mode_has_its_expression() {
    let (a, b, c) = (
        "(@bound(a) && a())",
        "(@bound(b) && b())",
        "(@bound(c) && c())",
    );
    let all_true = format!("(({a} && {b}) && {c})");
    assert_eq!(mode_expr(None), all_true);
    assert_eq!(mode_expr(Some("allTrue")), all_true);
    assert_eq!(mode_expr(Some("anyTrue")), format!("(({a} || {b}) || {c})"));
    assert_eq!(
        mode_expr(Some("anyFalse")),
        format!("((!{a} || !{b}) || !{c})")
    );
    assert_eq!(
        mode_expr(Some("allFalse")),
        format!("((!{a} && !{b}) && !{c})")
    );
}

#[test]
fn the_last_condition_mode_wins_and_one_condition_is_not_combined() {
    let t = load_tree(
        "<running><conditionMode>anyTrue</conditionMode><condition>a</condition>\
         <conditionMode>allFalse</conditionMode></running>",
    );
    assert_eq!(show_main(&t), "guard !(@bound(a) && a()) { running }");
}

#[test]
fn condition_expressions_use_and_or_not() {
    let t = load_tree("<yield><condition>a</condition><condition>b</condition></yield>");
    let NodeKind::Guard(g) = &t.node(t.main_root().unwrap()).kind else {
        panic!()
    };
    let Expr::Binary(BinOp::And, lhs, _) = &g.cond else {
        panic!("{:?}", g.cond)
    };
    let Expr::Binary(BinOp::And, bound, call) = &**lhs else {
        panic!("{lhs:?}")
    };
    assert!(matches!(**bound, Expr::Bound(_)));
    assert!(matches!(**call, Expr::Call(_)));
}

#[test]
fn parameters_go_to_the_action_and_every_condition() {
    let t = load_tree(
        "<action name='timer.wait'>\
           <parameter name='timer'>t1</parameter>\
           <condition>timer.running</condition>\
           <parameter name='timeout.lower'>1</parameter>\
           <parameter name='timer'>t2</parameter>\
           <parameter name='empty'/>\
           <parameter name='entity'>&lt;&amp;&gt; <![CDATA[<raw>]]></parameter>\
           <parameter name='spaced'>  a b  </parameter>\
         </action>",
    );
    // The first text node, cleaned as Drag[en]gine's CleanCharData cleans it (the `name`
    // attribute is the element's first node): text before CDATA is its own node, and a
    // trailing run of spaces is kept as one unless the text is the last node.
    let args =
        r#""timer", "t2", "timeout.lower", "1", "empty", "", "entity", "<&> ", "spaced", " a b""#;
    assert_eq!(
        show_main(&t),
        format!(
            "guard (@bound(action timer.wait) && (@bound(timer.running) && timer.running({args}))) \
             {{ action timer.wait({args}) }}"
        )
    );
}

#[test]
fn argument_counts_span_every_call_site() {
    let t = load_tree(
        "<sequence>\
           <action name='a'><condition>c</condition></action>\
           <action name='a'><parameter name='x'>1</parameter><parameter name='y'>2</parameter>\
             <condition>c</condition></action>\
           <success><parameter name='z'>3</parameter><condition>c</condition></success>\
         </sequence>",
    );
    let find = |name: &str, kind| {
        t.imports
            .iter()
            .find(|i| i.name == name && i.kind == kind)
            .map(|i| (i.min_args, i.max_args))
    };
    assert_eq!(find("a", ImportKind::Action), Some((0, 4)));
    assert_eq!(find("c", ImportKind::Function), Some((0, 4)));
    assert_eq!(t.imports.len(), 2);
}

#[test]
fn one_name_can_be_an_action_and_a_condition() {
    let t = load_tree("<action name='x'><condition>x</condition></action>");
    assert_eq!(t.imports.len(), 2);
    assert_eq!(t.imports[0].kind, ImportKind::Action);
    assert_eq!(t.imports[1].kind, ImportKind::Function);
    assert_eq!(
        show_main(&t),
        "guard (@bound(action x) && (@bound(x) && x())) { action x() }"
    );
}

#[test]
fn at_most_127_parameters_per_rule() {
    let params = |n: usize| {
        (0..n)
            .map(|i| format!("<parameter name='p{i}'>v</parameter>"))
            .collect::<String>()
    };
    let t = load_tree(&format!("<action name='a'>{}</action>", params(127)));
    assert_eq!((t.imports[0].min_args, t.imports[0].max_args), (254, 254));
    let repeated = format!("{}<parameter name='p0'>w</parameter>", params(127));
    load_tree(&format!("<action name='a'>{repeated}</action>"));
    let src = format!(
        "<behaviorTree><action name='a'>\n{}\n<parameter name='last'/></action></behaviorTree>",
        params(127)
    );
    let d = assert_err(&src, ErrorKind::Arity, "3:1");
    assert!(d.message.contains("127"), "{}", d.message);
}

#[test]
fn many_conditions_are_limited_by_expression_depth() {
    let conds = |n: usize| "<condition>c</condition>".repeat(n);
    let limits = Limits {
        max_expr_depth: 12,
        ..Limits::default()
    };
    // `@bound(action a) && (((c1 && c2) && c3) ...)` with `ci = @bound(c) && c()`: n
    // conditions make it n + 2 deep.
    let ok = tree(&format!("<action name='a'>{}</action>", conds(10)));
    try_load_with(&[("main.debt", &ok)], &limits).0.unwrap();
    let src = format!(
        "<behaviorTree>\n<action name='a'>{}</action></behaviorTree>",
        conds(11)
    );
    let (d, at) = err_with(&[("main.debt", &src)], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::NestTooDeep, "/t/main.debt:2:1")
    );
}

// ---- rule ids ------------------------------------------------------------------------------

#[test]
fn dot_ids_append_to_the_nearest_list_with_an_id() {
    let t = load_tree(
        "<sequence id='main'>\
           <action name='a' id='.walk'/>\
           <choice>\
             <yield id='.wait'/>\
             <sequence id='.inner'><running id='.run'/><success id='plain'/></sequence>\
           </choice>\
         </sequence>",
    );
    assert_eq!(
        ids(&t),
        [
            "main",
            "main.walk",
            "main.wait",
            "main.inner",
            "main.inner.run",
            "plain"
        ]
    );
}

#[test]
fn subtree_ids_prefix_plain_ids_and_reset_the_parent_id() {
    let t = load_files(&[
        (
            "main.debt",
            &tree(
                "<sequence id='main'>\
                   <subtree id='.patrol'>patrol.debt</subtree>\
                   <subtree>patrol2.debt</subtree>\
                 </sequence>",
            ),
        ),
        (
            "patrol.debt",
            &tree(
                "<yield id='.top'/>\
                 <sequence id='walk'><yield id='.step'/></sequence>\
                 <sequence id='.dotted'><yield id='.step'/></sequence>\
                 <subtree id='leg'>leg.debt</subtree>",
            ),
        ),
        ("patrol2.debt", &tree("<yield id='p2'/>")),
        ("leg.debt", &tree("<yield id='.x'/><yield id='y'/>")),
    ]);
    assert_eq!(
        ids(&t),
        [
            "main",
            "main.patrol",
            ".top",
            "main.patrol.walk",
            "main.patrol.walk.step",
            ".dotted",
            ".dotted.step",
            "main.patrol.leg",
            ".x",
            "main.patrol.leg.y",
            "p2",
        ]
    );
}

#[test]
fn duplicate_ids_point_at_the_second_with_a_label_at_the_first() {
    let src = "<behaviorTree><sequence id='s'>\n  <yield id='.a'/>\n  <yield id='s.a'/>\n</sequence></behaviorTree>";
    let d = assert_err(src, ErrorKind::InvalidValue, "3:14");
    assert!(
        d.message.contains("duplicate rule id `s.a`"),
        "{}",
        d.message
    );
    assert!(
        !d.notes.iter().any(|n| n.contains("subtree")),
        "{:?}",
        d.notes
    );
    let (r, sources) = try_load_with(&[("main.debt", src)], &Limits::default());
    drop(r);
    assert_eq!(d.labels.len(), 1);
    assert_eq!(sources.locate(d.labels[0].span), "/t/main.debt:2:14");
}

#[test]
fn the_subtree_quirk_lets_two_subtrees_collide() {
    let files = [
        (
            "main.debt",
            "<behaviorTree><sequence>\n<subtree id='a'>s.debt</subtree>\n<subtree id='b'>s.debt</subtree>\n</sequence></behaviorTree>",
        ),
        ("s.debt", "<behaviorTree>\n  <yield id='.y'/>\n</behaviorTree>"),
    ];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!(d.kind, ErrorKind::InvalidValue);
    assert_eq!(at, "/t/s.debt:2:14");
    assert!(d.message.contains("`.y`"), "{}", d.message);
    assert!(
        d.notes.iter().any(|n| n.contains("subtree")),
        "{:?}",
        d.notes
    );
    // Plain ids get the subtree prefix and do not collide.
    let t = load_files(&[
        files[0],
        ("s.debt", "<behaviorTree><yield id='y'/></behaviorTree>"),
    ]);
    assert_eq!(ids(&t), ["a", "a.y", "b", "b.y"]);
}

#[test]
fn an_empty_id_is_an_error() {
    assert_err(
        "<behaviorTree>\n<sequence>\n  <success id=''/>\n</sequence></behaviorTree>",
        ErrorKind::InvalidValue,
        "3:12",
    );
}

// ---- subtree files -------------------------------------------------------------------------

#[test]
fn subtree_paths_are_relative_to_the_including_file() {
    let mut fs = MemFs::new();
    let files = [
        (
            "/t/main.debt",
            tree("<sequence><subtree>ai/patrol.debt</subtree><subtree>/abs/x.debt</subtree></sequence>"),
        ),
        (
            "/t/ai/patrol.debt",
            tree(
                "<action name='patrol'/><subtree>legs/leg.debt</subtree>\
                 <subtree>../common/rest.debt</subtree><subtree>./legs/../legs/leg.debt</subtree>",
            ),
        ),
        ("/t/ai/legs/leg.debt", tree("<action name='leg'/>")),
        ("/t/common/rest.debt", tree("<action name='rest'/>")),
        ("/abs/x.debt", tree("<action name='abs'/>")),
        // Decoys: the same names relative to the main file's directory.
        ("/t/legs/leg.debt", tree("<action name='wrong'/>")),
        ("/common/rest.debt", tree("<action name='wrong'/>")),
    ];
    for (name, text) in &files {
        fs.insert(*name, text.clone().into_bytes());
    }
    let mut sources = SourceMap::new();
    let t = load(
        Path::new("/t/main.debt"),
        &fs,
        &Limits::default(),
        &mut sources,
    )
    .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    let a = |n: &str| format!("guard @bound(action {n}) {{ action {n}() }}");
    assert_eq!(
        show_main(&t),
        format!(
            "sequence {{ sequence {{ {}; sequence {{ {} }}; sequence {{ {} }}; sequence {{ {} }} }}; \
             sequence {{ {} }} }}",
            a("patrol"),
            a("leg"),
            a("rest"),
            a("leg"),
            a("abs")
        )
    );
    // Each file is read once, however often it is included.
    assert_eq!(sources.files().len(), 5);
}

#[test]
fn a_missing_subtree_file_is_an_io_error_at_its_path() {
    let files = [(
        "main.debt",
        "<behaviorTree>\n<subtree>ai/none.debt</subtree></behaviorTree>",
    )];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!(d.kind, ErrorKind::Io);
    assert_eq!(at, "/t/main.debt:2:10");
    assert!(d.message.contains("/t/ai/none.debt"), "{}", d.message);
}

#[test]
fn subtree_paths_are_cleaned_as_the_original_cleans_them() {
    // Alone in the element, the path is trimmed.
    load_files(&[
        (
            "main.debt",
            "<behaviorTree><subtree>\n  s.debt\n</subtree></behaviorTree>",
        ),
        ("s.debt", "<behaviorTree/>"),
    ]);
    // After an attribute (the element's first node) one leading space stays.
    let files = [
        (
            "main.debt",
            "<behaviorTree><subtree id='x'>\n  s.debt\n</subtree></behaviorTree>",
        ),
        ("s.debt", "<behaviorTree/>"),
    ];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!((d.kind, at.as_str()), (ErrorKind::Io, "/t/main.debt:1:31"));
    assert!(
        d.notes.iter().any(|n| n.contains("whitespace")),
        "{:?}",
        d.notes
    );
}

#[test]
fn errors_in_subtree_files_point_into_them_with_the_include_site() {
    let files = [
        (
            "main.debt",
            "<behaviorTree>\n<subtree>a/a.debt</subtree></behaviorTree>",
        ),
        (
            "a/a.debt",
            "<behaviorTree>\n<subtree>b.debt</subtree></behaviorTree>",
        ),
        ("a/b.debt", "<behaviorTree>\n\n  <Yield/></behaviorTree>"),
    ];
    let (r, sources) = try_load_with(&files, &Limits::default());
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::UnknownName);
    assert_eq!(sources.locate(d.span), "/t/a/b.debt:3:3");
    let sites: Vec<String> = d.labels.iter().map(|l| sources.locate(l.span)).collect();
    assert_eq!(sites, ["/t/a/a.debt:2:1", "/t/main.debt:2:1"]);
}

#[test]
fn a_subtree_including_itself_is_a_cycle() {
    let (d, at) = err_with(
        &[(
            "main.debt",
            "<behaviorTree>\n<subtree>main.debt</subtree></behaviorTree>",
        )],
        &Limits::default(),
    );
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeCycle, "/t/main.debt:2:1")
    );
    let files = [
        (
            "main.debt",
            "<behaviorTree><subtree>ai/a.debt</subtree></behaviorTree>",
        ),
        (
            "ai/a.debt",
            "<behaviorTree><subtree>../b.debt</subtree></behaviorTree>",
        ),
        (
            "b.debt",
            "<behaviorTree>\n\n<subtree>./ai/a.debt</subtree></behaviorTree>",
        ),
    ];
    let (d, at) = err_with(&files, &Limits::default());
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeCycle, "/t/b.debt:3:1")
    );
    assert!(
        d.message
            .contains("/t/ai/a.debt -> /t/b.debt -> /t/ai/a.debt"),
        "{}",
        d.message
    );
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("/t/main.debt -> /t/ai/a.debt")),
        "{:?}",
        d.notes
    );
}

#[test]
fn subtree_chains_are_limited_by_the_include_depth() {
    let mut files: Vec<(String, String)> =
        vec![("main.debt".into(), tree("<subtree>f1.debt</subtree>"))];
    for i in 1..=5 {
        files.push((
            format!("f{i}.debt"),
            tree(&format!("<subtree>f{}.debt</subtree>", i + 1)),
        ));
    }
    files.push(("f6.debt".into(), tree("<success/>")));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let limits = |n| Limits {
        max_include_depth: n,
        ..Limits::default()
    };
    try_load_with(&files, &limits(6)).0.unwrap();
    let (d, at) = err_with(&files, &limits(5));
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::IncludeTooDeep, "/t/f5.debt:1:15")
    );
}

#[test]
fn depth_counts_through_subtrees_and_wrappers() {
    let files = [
        (
            "main.debt",
            tree("<sequence><subtree>s.debt</subtree></sequence>"),
        ),
        ("s.debt", tree("<action name='a' doNotFail='true'/>")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (*a, b.as_str())).collect();
    // sequence, subtree sequence, map, guard, action: 5 deep.
    let limits = |n| Limits {
        max_depth: n,
        ..Limits::default()
    };
    try_load_with(&files, &limits(5)).0.unwrap();
    let (d, at) = err_with(&files, &limits(4));
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::NestTooDeep, "/t/s.debt:1:15")
    );
}

// ---- errors --------------------------------------------------------------------------------

#[test]
fn unknown_and_misplaced_elements_are_errors() {
    assert_err(
        "<behaviorTree>\n<sequence>\n   <parallel/></sequence></behaviorTree>",
        ErrorKind::UnknownName,
        "3:4",
    );
    // Tags are case-sensitive.
    assert_err(
        "<behaviorTree>\n  <Sequence/></behaviorTree>",
        ErrorKind::UnknownName,
        "2:3",
    );
    assert_err(
        "<behaviorTree><action name='a'>\n <parameter name='p'/> <sequence/></action></behaviorTree>",
        ErrorKind::Syntax,
        "2:24",
    );
    assert_err(
        "<behaviorTree><success>\n<foo/></success></behaviorTree>",
        ErrorKind::UnknownName,
        "2:1",
    );
    assert_err(
        "<behaviorTree>\n<condition>x</condition></behaviorTree>",
        ErrorKind::Syntax,
        "2:1",
    );
    let d = assert_err(
        "<?xml version='1.0'?>\n<tree><success/></tree>",
        ErrorKind::Syntax,
        "2:1",
    );
    assert!(d.message.contains("behaviorTree"), "{}", d.message);
}

#[test]
fn a_second_top_level_rule_is_an_error() {
    let d = assert_err(
        "<behaviorTree>\n  <success/>\n  <failure/>\n</behaviorTree>",
        ErrorKind::Syntax,
        "3:3",
    );
    assert_eq!(d.labels.len(), 1);
    // Subtree files may have any number.
    load_files(&[
        ("main.debt", &tree("<subtree>s.debt</subtree>")),
        ("s.debt", &tree("<success/><failure/><yield/>")),
    ]);
}

#[test]
fn a_bad_condition_mode_is_an_error_at_its_text() {
    assert_err(
        "<behaviorTree><success>\n<conditionMode>AllTrue</conditionMode></success></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:16",
    );
    assert_err(
        "<behaviorTree><success>\n<conditionMode/></success></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:1",
    );
}

#[test]
fn missing_or_empty_names_are_errors() {
    assert_err(
        "<behaviorTree>\n  <action id='x'/></behaviorTree>",
        ErrorKind::Syntax,
        "2:3",
    );
    assert_err(
        "<behaviorTree>\n  <action name=''/></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:11",
    );
    assert_err(
        "<behaviorTree><success>\n  <condition></condition></success></behaviorTree>",
        ErrorKind::InvalidValue,
        "2:3",
    );
    assert_err(
        "<behaviorTree><success>\n  <parameter>v</parameter></success></behaviorTree>",
        ErrorKind::Syntax,
        "2:3",
    );
    // Spaces only, and the last node: cleaned to nothing.
    assert_err(
        "<behaviorTree>\n <subtree id='s'>  </subtree></behaviorTree>",
        ErrorKind::Syntax,
        "2:2",
    );
    assert_err(
        "<behaviorTree>\n <subtree id='s'/></behaviorTree>",
        ErrorKind::Syntax,
        "2:2",
    );
}

#[test]
fn child_elements_of_text_elements_are_ignored() {
    // LoadBehaviorTree.ds readRuleSubTree and readRuleCommon never visit them; they only
    // split the text.
    for inner in [
        "<condition>c</condition>",
        "<parameter name='p'>v</parameter>",
        "<conditionMode>anyTrue</conditionMode>",
        "<success/>",
        "<anything/>",
    ] {
        let main = format!("<behaviorTree><subtree>{inner}s.debt</subtree></behaviorTree>");
        let t = load_files(&[("main.debt", &main), ("s.debt", "<behaviorTree/>")]);
        assert!(!show_main(&t).contains("@bound(c)"), "{}", show_main(&t));
    }
    let t = load_tree("<success><condition>a<b/>c</condition></success>");
    assert!(show_main(&t).contains("@bound(a)"), "{}", show_main(&t));
    // Text ending before a child element keeps its trailing space (it is not the last node).
    let main =
        "<behaviorTree><subtree>s.debt\n    <condition>c</condition></subtree></behaviorTree>";
    let (d, _) = err_with(
        &[("main.debt", main), ("s.debt", "<behaviorTree/>")],
        &Limits::default(),
    );
    assert_eq!(d.kind, ErrorKind::Io);
}

#[test]
fn malformed_xml_is_a_positioned_syntax_error() {
    assert_err(
        "<behaviorTree>\n  <sequence>\n  </choice>\n</behaviorTree>",
        ErrorKind::Syntax,
        "3:3",
    );
    // What Drag[en]gine's decXmlParser refuses and roxmltree accepts.
    assert_err(
        "<behaviorTree>\n  <success id  ='b'/>\n</behaviorTree>",
        ErrorKind::Syntax,
        "2:12",
    );
    assert_err("\u{feff}<behaviorTree/>", ErrorKind::Syntax, "1:1");
    let d = assert_err("", ErrorKind::Syntax, "1:1");
    assert!(d.message.contains("root element"), "{}", d.message);
    assert_err("<behaviorTree>\n<success/>\n", ErrorKind::Syntax, "3:1");
    // An unknown entity is no error (decXmlParser makes it a node of its own).
    load_files(&[("main.debt", "<behaviorTree>&nope;</behaviorTree>")]);
    assert_err(
        "<?xml version='1.0'?>\n<!DOCTYPE x [<!ENTITY e 'x'>]>\n<behaviorTree/>",
        ErrorKind::Syntax,
        "2:1",
    );
}

#[test]
fn invalid_utf8_is_an_error_in_the_main_file_and_in_subtrees() {
    let mut main = b"<behaviorTree>\n<success id='".to_vec();
    main.extend_from_slice(&[0xff, b'\'', b'/', b'>']);
    main.extend_from_slice(b"</behaviorTree>");
    let (r, sources) = try_load_bytes(&[("main.debt", &main)], &Limits::default());
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d.span), "/t/main.debt:2:14");

    let sub = [b'<', 0xc3, b'>'];
    let (r, sources) = try_load_bytes(
        &[
            (
                "main.debt",
                b"<behaviorTree><subtree>s.debt</subtree></behaviorTree>",
            ),
            ("s.debt", &sub),
        ],
        &Limits::default(),
    );
    let d = &r.unwrap_err()[0];
    assert_eq!(d.kind, ErrorKind::InvalidUtf8);
    assert_eq!(sources.locate(d.span), "/t/s.debt:1:2");
    assert_eq!(sources.locate(d.labels[0].span), "/t/main.debt:1:15");
}

#[test]
fn size_and_node_limits_are_errors() {
    let limits = Limits {
        max_source_bytes: 20,
        ..Limits::default()
    };
    let (d, _) = err_with(&[("main.debt", &tree("<success/>"))], &limits);
    assert_eq!(d.kind, ErrorKind::SourceTooLarge);

    let limits = Limits {
        max_nodes: 4,
        ..Limits::default()
    };
    // sequence 1, success 2, action guard+action 4, the second success is the fifth node.
    let src = "<behaviorTree><sequence><success/><action name='a'/>\n<success/></sequence></behaviorTree>";
    let (d, at) = err_with(&[("main.debt", src)], &limits);
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::TooManyNodes, "/t/main.debt:2:1")
    );
}

#[test]
fn an_exponential_subtree_fan_out_stops_at_the_node_limit() {
    // Each level includes the next twice: 2^30 copies without the limit.
    let mut files: Vec<(String, String)> =
        vec![("main.debt".into(), tree("<subtree>l0.debt</subtree>"))];
    for i in 0..30 {
        let next = format!("<subtree>l{}.debt</subtree>", i + 1);
        files.push((format!("l{i}.debt"), tree(&format!("{next}{next}"))));
    }
    files.push(("l30.debt".into(), tree("<success/>")));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let limits = Limits {
        max_nodes: 10_000,
        ..Limits::default()
    };
    let (d, _) = err_with(&files, &limits);
    assert_eq!(d.kind, ErrorKind::TooManyNodes);
}

// ---- hostile nesting -----------------------------------------------------------------------

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 100_000;
    let src = format!(
        "<behaviorTree>{}{}</behaviorTree>",
        "<sequence>".repeat(n),
        "</sequence>".repeat(n)
    );
    let (d, at) = err_with(&[("main.debt", &src)], &Limits::default());
    assert_eq!(d.kind, ErrorKind::NestTooDeep);
    // The 257th `<sequence>` starts at byte 14 + 256 * 10.
    assert_eq!(at, format!("/t/main.debt:1:{}", 14 + 256 * 10 + 1));

    // Unclosed, too: the XML error comes first and is positioned at the end.
    let src = format!("<behaviorTree>{}", "<choice>".repeat(n));
    let (d, _) = err_with(&[("main.debt", &src)], &Limits::default());
    assert_eq!(d.kind, ErrorKind::Syntax);

    // Deep non-rule elements are rejected at the first unknown one.
    let src = format!(
        "<behaviorTree><sequence>{}{}</sequence></behaviorTree>",
        "<x>".repeat(n),
        "</x>".repeat(n)
    );
    let (d, at) = err_with(&[("main.debt", &src)], &Limits::default());
    assert_eq!(
        (d.kind, at.as_str()),
        (ErrorKind::UnknownName, "/t/main.debt:1:25")
    );
}

#[test]
fn nesting_up_to_the_limit_loads() {
    let limits = Limits::default();
    let n = limits.max_depth as usize;
    let src = format!(
        "<behaviorTree>{}{}</behaviorTree>",
        "<sequence>".repeat(n),
        "</sequence>".repeat(n)
    );
    let t = try_load_with(&[("main.debt", &src)], &limits).0.unwrap();
    assert_eq!(t.nodes.len(), n);
}

// ---- the example ---------------------------------------------------------------------------

#[test]
fn the_wanderer_example_loads() {
    let path = manifest_dir().join("../spec/examples/wanderer/wanderer.debt");
    let mut sources = SourceMap::new();
    let t = load::load(&path, &RealFs, &LoadOptions::default(), &mut sources)
        .unwrap_or_else(|d| panic!("{}", d[0].display(&sources)));
    assert_eq!(t.dialect, Dialect::Dragengine);
    let names: Vec<&str> = t.imports.iter().map(|i| i.name.as_str()).collect();
    for want in ["timer.start", "timer.wait", "enemy.near", "move.to"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // Every rule that can return running has an id.
    for n in &t.nodes {
        let leaf_runs = matches!(
            n.kind,
            NodeKind::Action(_) | NodeKind::Yield | NodeKind::Const(Status::Running)
        );
        if leaf_runs {
            let id = NodeId(t.nodes.iter().position(|m| std::ptr::eq(m, n)).unwrap() as u32);
            let named = n.name.is_some() || outer_named(&t, id);
            assert!(named, "a running rule without an id: {:?}", n.kind);
        }
    }
    let all = ids(&t);
    assert!(all.iter().any(|i| i == "wanderer.patrol.walk"), "{all:?}");
    assert!(all.len() >= 8, "{all:?}");
}

/// Whether a wrapper above `id` (a guard or map of the same rule) carries the rule's id.
fn outer_named(t: &Tree, id: NodeId) -> bool {
    let mut cur = id;
    loop {
        let Some(parent) = t.nodes.iter().position(|n| n.children.contains(&cur)) else {
            return false;
        };
        let p = &t.nodes[parent];
        if !matches!(p.kind, NodeKind::Guard(_) | NodeKind::MapStatus(_)) {
            return false;
        }
        if p.name.is_some() {
            return true;
        }
        cur = NodeId(parent as u32);
    }
}
