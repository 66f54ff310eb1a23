//! The BST front-end (`spec/bst.md` sections 1 and 3), through `btvm_compiler::load::load`:
//! the IR mapping, every section, Blocks and Refs in every allowed place, scoping, cycles,
//! leaf translations, limits, several trees, and every hostile input as a positioned error.

use std::path::Path;

use btvm::Limits;
use btvm_compiler::diag::{Diagnostic, ErrorKind};
use btvm_compiler::ir::{
    BinOp, Composite, Dialect, Expr, GuardEval, Lit, Model, NodeId, NodeKind, Resume, Tree,
    Trigger, Type,
};
use btvm_compiler::load::{load, Format, LoadOptions};
use btvm_compiler::source::{FileSystem, SourceMap};

use btvm_testkit::front;

// ---- helpers ------------------------------------------------------------------------------

/// `load::load` in the shape of a front-end's `load`, so the shared helpers can drive it.
fn load_any(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> btvm_compiler::diag::Result<Tree> {
    let options = LoadOptions {
        limits: *limits,
        ..LoadOptions::default()
    };
    load(path, fs, &options, sources)
}

/// `load::load` with the format forced to BST (files the sniffer cannot read: broken XML,
/// invalid UTF-8, missing files).
fn load_bst(
    path: &Path,
    fs: &dyn FileSystem,
    limits: &Limits,
    sources: &mut SourceMap,
) -> btvm_compiler::diag::Result<Tree> {
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        limits: *limits,
        ..LoadOptions::default()
    };
    load(path, fs, &options, sources)
}

fn ok_files(files: &[(&str, &str)]) -> Tree {
    let tree = front::load_ok(load_any, files);
    assert_eq!(tree.dialect, Dialect::Bst);
    assert_eq!(tree.config.model, Model::Selection);
    tree
}

fn ok(main: &str) -> Tree {
    ok_files(&[("main.xml", main)])
}

/// Loads `files` (the first is the main file), which must load; the tree and the kinds and
/// covered texts of its warnings.
#[track_caller]
fn warns_files(files: &[(&str, &str)]) -> (Tree, Vec<(ErrorKind, String)>) {
    let fs = front::memfs(
        &files
            .iter()
            .map(|(n, t)| (*n, t.as_bytes()))
            .collect::<Vec<_>>(),
    );
    let mut sources = SourceMap::new();
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        ..LoadOptions::default()
    };
    let path = format!("/t/{}", files[0].0);
    match btvm_compiler::load::load_reporting(Path::new(&path), &fs, &options, &mut sources) {
        Ok(l) => {
            let w = l
                .warnings
                .iter()
                .map(|d| {
                    assert!(d.is_warning());
                    let text = sources
                        .get(d.span.file)
                        .and_then(|f| f.text.get(d.span.start as usize..d.span.end as usize))
                        .unwrap_or("")
                        .to_string();
                    (d.kind, text)
                })
                .collect();
            (l.tree, w)
        }
        Err(d) => panic!("{:?}: {}", d[0].kind, d[0].message),
    }
}

#[track_caller]
fn warns(main: &str) -> (Tree, Vec<(ErrorKind, String)>) {
    warns_files(&[("main.xml", main)])
}

fn w(kind: ErrorKind, text: &str) -> (ErrorKind, String) {
    (kind, text.to_string())
}

/// A failed load: the first diagnostic, its `file:line:col` and the text its span covers.
struct Failure {
    diag: Diagnostic,
    at: String,
    text: String,
}

fn fail_bytes(files: &[(&str, &[u8])], limits: &Limits) -> Failure {
    let (r, sources) = front::try_load_bytes(load_bst, files, limits);
    match r {
        Ok(_) => panic!("{} loaded but should not have", files[0].0),
        Err(d) => {
            let diag = d[0].clone();
            let text = sources
                .get(diag.span.file)
                .and_then(|f| f.text.get(diag.span.start as usize..diag.span.end as usize))
                .unwrap_or("")
                .to_string();
            Failure {
                at: sources.locate(diag.span),
                diag,
                text,
            }
        }
    }
}

fn fail_files(files: &[(&str, &str)]) -> Failure {
    let bytes: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    fail_bytes(&bytes, &Limits::default())
}

/// Asserts the kind of the error `main` gives and the text its span covers.
#[track_caller]
fn assert_err(main: &str, kind: ErrorKind, covers: &str) -> Failure {
    let f = fail_files(&[("main.xml", main)]);
    assert_eq!(f.diag.kind, kind, "{}: {}", f.at, f.diag.message);
    assert_eq!(f.text, covers, "{}: {}", f.at, f.diag.message);
    f
}

/// A main file with one tree `T`, with `body` as its children.
fn tree(body: &str) -> String {
    format!("<SelectionTrees><SelectionTree name='T' type='BST'>{body}</SelectionTree></SelectionTrees>")
}

fn expr(t: &Tree, e: &Expr) -> String {
    match e {
        Expr::Lit(Lit::Bool(b)) => b.to_string(),
        Expr::Var(v) => t.vars[v.0 as usize].name.clone(),
        Expr::Not(a) => format!("!{}", expr(t, a)),
        Expr::Binary(op, a, b) => {
            let op = match op {
                BinOp::And => "and",
                BinOp::Or => "or",
                BinOp::Xor => "xor",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                other => panic!("unexpected operator {other:?}"),
            };
            format!("({} {op} {})", expr(t, a), expr(t, b))
        }
        other => panic!("unexpected expression {other:?}"),
    }
}

/// A compact rendering of the subtree at `id`, checking each node's BST knobs on the way.
fn show(t: &Tree, id: NodeId) -> String {
    let n = t.node(id);
    let name = n.name.clone().unwrap_or_default();
    let kids = |sep: &str| {
        n.children
            .iter()
            .map(|&c| show(t, c))
            .collect::<Vec<_>>()
            .join(sep)
    };
    match &n.kind {
        NodeKind::Select(b) => format!("{name}>{b}"),
        NodeKind::Priority(p) => {
            assert_eq!(p.repick, GuardEval::EveryTick);
            format!("priority {name} {{{}}}", kids(", "))
        }
        NodeKind::Sequence(c) => {
            let want = Composite {
                resume: Resume::Remember,
                looping: false,
                cond: None,
            };
            assert_eq!(c, &want);
            format!("sequence {name} {{{}}}", kids(", "))
        }
        NodeKind::Case(e) => {
            assert!(n.name.is_none());
            format!("[{}] {}", expr(t, e), kids(""))
        }
        NodeKind::StateMachine => format!("sm {name} {{{}}}", kids(", ")),
        NodeKind::State(s) => {
            let ts: Vec<String> = s
                .transitions
                .iter()
                .map(|tr| match &tr.on {
                    Trigger::When(e) => format!(" when {} -> {}", expr(t, e), tr.to),
                    other => panic!("unexpected trigger {other:?}"),
                })
                .collect();
            format!("@{name}{}: {}", ts.concat(), kids(""))
        }
        other => panic!("unexpected node kind {other:?}"),
    }
}

fn main_tree(t: &Tree) -> String {
    show(t, t.roots[0].node)
}

fn vars(t: &Tree) -> Vec<String> {
    t.vars
        .iter()
        .map(|v| {
            assert_eq!(v.ty, Type::Bool);
            format!("{}={}", v.name, v.default)
        })
        .collect()
}

fn signals(t: &Tree) -> Vec<String> {
    t.signals
        .iter()
        .map(|s| {
            format!(
                "{}: {} = {}",
                s.event,
                t.vars[s.var.0 as usize].name,
                expr(t, &s.value)
            )
        })
        .collect()
}

// ---- the IR mapping -----------------------------------------------------------------------

#[test]
fn every_node_type_maps_onto_the_ir() {
    let t = ok(&tree(
        "<Variables><Variable name='A'/><Variable name='B' default='true'/></Variables>
         <Priority name='Root'>
           <Leaf name='L1' condition='A'/>
           <Sequence name='Seq' condition='!B'>
             <Leaf name='S1' condition='A and B'/>
             <Leaf name='S2'/>
           </Sequence>
           <StateMachine name='SM'>
             <State name='One'>
               <Transition state='two' condition='A'/>
               <Transition state='One' condition='true'/>
               <Leaf name='In1'/>
             </State>
             <State name='Two'><Leaf name='In2'/><Transition state='ONE' condition='!A'/></State>
           </StateMachine>
         </Priority>",
    ));
    assert_eq!(
        main_tree(&t),
        "priority Root {[A] L1>L1, [!B] sequence Seq {[(A and B)] S1>S1, [true] S2>S2}, \
         [true] sm SM {@One when A -> 1 when true -> 0: In1>In1, @Two when !A -> 0: In2>In2}}"
    );
    assert_eq!(vars(&t), ["A=false", "B=true"]);
    assert_eq!(t.roots.len(), 1);
    assert_eq!(t.roots[0].name, "T");
    assert!(t.imports.is_empty());
    assert!(t.subtrees.is_empty());
}

#[test]
fn a_lone_leaf_and_a_single_selectiontree_root() {
    let t = ok("<SelectionTree name='Flyer' type='BehaviorSelectionTree'>
                  <Leaf name='FlyerIdle'/></SelectionTree>");
    assert_eq!(main_tree(&t), "FlyerIdle>FlyerIdle");
    assert_eq!(t.roots[0].name, "Flyer");
    // A root node may be any node type, and its span points at its start tag.
    let src =
        tree("<StateMachine name='M'><State name='S'><Leaf name='L'/></State></StateMachine>");
    let t = ok(&src);
    assert_eq!(main_tree(&t), "sm M {@S: L>L}");
    let span = t.node(t.roots[0].node).span;
    assert_eq!(
        &src[span.start as usize..span.end as usize],
        "<StateMachine name='M'>"
    );
}

#[test]
fn sections_variables_and_signals() {
    let t = ok(&tree(
        "<SignalVariables><Signal name='Early' variable='seen' value='true'/></SignalVariables>
         <Variables>
           <Variable name='Seen' default='TRUE'/>
           <Variable name='Heard' default='False'/>
           <Variable name='Hurt'/>
         </Variables>
         <LeafTranslations/>
         <Priority name='Root'><Leaf name='Idle' condition='seen or HEARD'/></Priority>
         <SignalVariables>
           <Signal name='OnHeard' variable='Heard' value='!Hurt xor Seen'/>
           <Signal name='onheard' variable='HURT' value='Heard == Seen'/>
         </SignalVariables>",
    ));
    assert_eq!(vars(&t), ["Seen=true", "Heard=false", "Hurt=false"]);
    // File order, event names as written (case-sensitive), variables case-insensitively.
    assert_eq!(
        signals(&t),
        [
            "Early: Seen = true",
            "OnHeard: Heard = (!Hurt xor Seen)",
            "onheard: Hurt = (Heard == Seen)"
        ]
    );
    assert_eq!(main_tree(&t), "priority Root {[(Seen or Heard)] Idle>Idle}");
}

#[test]
fn variable_and_signal_errors() {
    let f = assert_err(
        &tree("<Variables><Variable name='A'/><Variable name='a'/></Variables><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "a",
    );
    assert_eq!(f.diag.labels.len(), 1);
    assert_err(
        &tree("<Variables><Variable name='A' default='maybe'/></Variables><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "maybe",
    );
    assert_err(
        &tree("<Variables><Variable default='true'/></Variables><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "<Variable default='true'/>",
    );
    assert_err(
        &tree("<Variables><Variable name='A' value='1'/></Variables><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "value='1'",
    );
    assert_err(
        &tree("<Variables><Var name='A'/></Variables><Leaf name='L'/>"),
        ErrorKind::UnknownName,
        "<Var name='A'/>",
    );
    assert_err(
        &tree("<Variables><Variable name='A'><x/></Variable></Variables><Leaf name='L'/>"),
        ErrorKind::Arity,
        "<x/>",
    );
    assert_err(
        &tree("<SignalVariables><Signal name='E' variable='Nope' value='true'/></SignalVariables><Leaf name='L'/>"),
        ErrorKind::UnknownName,
        "Nope",
    );
    assert_err(
        &tree("<Variables><Variable name='A'/></Variables><SignalVariables><Signal name='E' variable='A' value='= A'/></SignalVariables><Leaf name='L'/>"),
        ErrorKind::Syntax,
        "=",
    );
    assert_err(
        &tree("<Variables><Variable name='A'/></Variables><SignalVariables><Signal name='E' variable='A' value=''/></SignalVariables><Leaf name='L'/>"),
        ErrorKind::Syntax,
        "",
    );
    assert_err(
        &tree("<Variables><Variable name='A'/></Variables><SignalVariables><Signal name='E' variable='A'/></SignalVariables><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "<Signal name='E' variable='A'/>",
    );
    assert_err(
        &tree("<SignalVariables><Sig/></SignalVariables><Leaf name='L'/>"),
        ErrorKind::UnknownName,
        "<Sig/>",
    );
}

#[test]
fn variables_after_the_root_are_read() {
    // SelectionTreeTemplate::LoadFromXML reads <Variables> wherever it comes; conditions name
    // variables by hash (8b63f61c).
    let t = ok(&tree(
        "<Priority name='R'><Leaf name='L' condition='Late'/></Priority>\
         <Variables><Variable name='Late'/></Variables>",
    ));
    assert_eq!(main_tree(&t), "priority R {[Late] L>L}");
}

#[test]
fn unknown_variables_in_conditions_read_false() {
    let t = ok(&tree(
        "<Variables><Variable name='Alive'/></Variables>
         <Priority name='R'><Leaf name='L' condition='Alive or Ghost'/></Priority>",
    ));
    assert_eq!(main_tree(&t), "priority R {[(Alive or false)] L>L}");
}

#[test]
fn bad_conditions_are_positioned_syntax_errors() {
    let wrap = |c: &str| {
        tree(&format!(
            "<Variables><Variable name='A'/><Variable name='B'/></Variables>\
             <Priority name='R'><Leaf name='L' condition=\"{c}\"/></Priority>"
        ))
    };
    // An unknown character ends the expression (SelectionCondition.cpp ParseLogical, 8b63f61c).
    assert_eq!(main_tree(&ok(&wrap("A = B"))), "priority R {[A] L>L}");
    assert_err(&wrap("!!A"), ErrorKind::Syntax, "!");
    assert_err(&wrap("A and"), ErrorKind::Syntax, "");
    assert_err(&wrap("(A or B"), ErrorKind::Syntax, "");
    assert_err(&wrap("A and #"), ErrorKind::Syntax, "#");
    // Entities: the error points at the whole value.
    assert_eq!(
        main_tree(&ok(&wrap("A &amp;&amp; B"))),
        "priority R {[A] L>L}"
    );
    // Trailing text is ignored, as in the original.
    let t = ok(&wrap("A B )"));
    assert_eq!(main_tree(&t), "priority R {[A] L>L}");
    // Keywords in any case; the operator chain is one left-associative level.
    let t = ok(&wrap("A OR B And TRUE"));
    assert_eq!(main_tree(&t), "priority R {[((A or B) and true)] L>L}");
    // At most 255 operators and operands.
    let long = vec!["A"; 129].join(" or ");
    let f = fail_files(&[("main.xml", &wrap(&long))]);
    assert_eq!(f.diag.kind, ErrorKind::LimitExceeded);
    let ok_long = vec!["A"; 128].join(" or ");
    ok(&wrap(&ok_long));
    // Deep parentheses: a positioned error, no stack overflow.
    let deep = format!("{}A{}", "(".repeat(100_000), ")".repeat(100_000));
    let f = fail_files(&[("main.xml", &wrap(&deep))]);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
    assert_eq!(f.text, "(");
}

#[test]
fn absent_conditions_are_true_blank_ones_fail() {
    let t = ok(&tree("<Priority name='R'><Leaf name='C'/></Priority>"));
    assert_eq!(main_tree(&t), "priority R {[true] C>C}");
    // A present condition is parsed as written (SelectionTreeNode::LoadFromXML, 8b63f61c).
    for c in ["''", "'   '"] {
        assert_err(
            &tree(&format!(
                "<Priority name='R'><Leaf name='A' condition={c}/></Priority>"
            )),
            ErrorKind::Syntax,
            &c[1..c.len() - 1],
        );
    }
}

// ---- Blocks and Ref -----------------------------------------------------------------------

#[test]
fn refs_in_every_allowed_place() {
    let t = ok(&tree(
        "<Blocks>
           <Block name='Vars'><Variable name='A'/><Variable name='B'/></Block>
           <Block name='Sigs'><Signal name='E' variable='A' value='B'/></Block>
           <Block name='Maps'><Map node='X' target='MappedX'/></Block>
           <Block name='Root'><Priority name='R'><Ref name='Kids'/></Priority></Block>
           <Block name='Kids'>
             <Leaf name='X' condition='A'/>
             <Sequence name='Q'><Ref name='SeqKids'/></Sequence>
             <StateMachine name='M'><Ref name='States'/></StateMachine>
           </Block>
           <Block name='SeqKids'><Leaf name='S1'/><Leaf name='S2' condition='B'/></Block>
           <Block name='States'>
             <State name='One'><Ref name='InState'/></State>
             <State name='Two'><Leaf name='T2'/></State>
           </Block>
           <Block name='InState'><Transition state='Two' condition='A'/><Leaf name='T1'/></Block>
           <Block name='Empty'/>
         </Blocks>
         <Variables><Ref name='Vars'/><Ref name='Empty'/></Variables>
         <SignalVariables><Ref name='Sigs'/></SignalVariables>
         <LeafTranslations><Ref name='Maps'/></LeafTranslations>
         <Ref name='Root'/>",
    ));
    assert_eq!(vars(&t), ["A=false", "B=false"]);
    assert_eq!(signals(&t), ["E: A = B"]);
    assert_eq!(
        main_tree(&t),
        "priority R {[A] X>MappedX, [true] sequence Q {[true] S1>S1, [B] S2>S2}, \
         [true] sm M {@One when A -> 1: T1>T1, @Two: T2>T2}}"
    );
}

#[test]
fn tree_blocks_shadow_global_blocks_and_global_blocks_come_from_block_files() {
    let main = tree(
        "<Blocks><Block name='Shared'><Leaf name='Local'/></Block></Blocks>
         <Priority name='R'><Ref name='Shared'/><Ref name='OnlyGlobal'/><Ref name='Second'/></Priority>",
    );
    let t = ok_files(&[
        ("main.xml", &main),
        (
            "a.xml",
            "<?xml version='1.0'?><Blocks><Block name='shared'><Leaf name='Global'/></Block>\
             <Block name='OnlyGlobal'><Leaf name='G1'/><Ref name='Shared'/></Block></Blocks>",
        ),
        (
            "b.xml",
            "<blocks><Block name='Second'><Leaf name='G2'/></Block></blocks>",
        ),
        // Not blocks: never read beyond the root tag, even when broken or not UTF-8.
        (
            "c.xml",
            "<SelectionTrees><SelectionTree name='Elsewhere'>broken",
        ),
        ("d.txt", "<Blocks><Block name='Second'/></Blocks>"),
        ("sub/e.xml", "<Blocks><Block name='Second'/></Blocks>"),
    ]);
    // A global block's Refs resolve in the using tree's scope first.
    assert_eq!(
        main_tree(&t),
        "priority R {[true] Local>Local, [true] G1>G1, [true] Local>Local, [true] G2>G2}"
    );
}

#[test]
fn block_file_errors() {
    // A Blocks file that does not parse is an error, positioned in that file.
    let f = fail_files(&[
        ("main.xml", &tree("<Leaf name='L'/>")),
        ("blocks.xml", "<Blocks>\n<Block name='x'></Blocks>"),
    ]);
    assert_eq!(f.diag.kind, ErrorKind::Syntax);
    assert!(f.at.starts_with("/t/blocks.xml:2:"), "{}", f.at);
    // Duplicate global blocks, across files (names compared exactly): a warning, and the
    // later file's blocks stop there (CSelectionTreeManager::LoadBlocks, 8b63f61c).
    let (t, ws) = warns_files(&[
        (
            "main.xml",
            &tree("<Priority name='R'><Ref name='x'/><Ref name='X'/><Ref name='Y'/><Leaf name='L'/></Priority>"),
        ),
        ("a.xml", "<Blocks><Block name='X'><Leaf name='A'/></Block></Blocks>"),
        (
            "b.xml",
            "<Blocks><Block name='x'><Leaf name='B'/></Block><Block name='X'/><Block name='Y'/></Blocks>",
        ),
    ]);
    assert_eq!(
        ws,
        [
            w(ErrorKind::InvalidValue, "X"),
            w(ErrorKind::UnknownName, "Y")
        ]
    );
    assert_eq!(main_tree(&t), "priority R {[true] B>B, [true] A>A}");
    // Something else in a Blocks file.
    let (_, ws) = warns_files(&[
        ("main.xml", &tree("<Leaf name='L'/>")),
        ("a.xml", "<Blocks><Leaf name='X'/></Blocks>"),
    ]);
    assert_eq!(ws, [w(ErrorKind::UnknownName, "<Leaf name='X'/>")]);
    // A Blocks file that is not UTF-8.
    let main = tree("<Leaf name='L'/>");
    let f = fail_bytes(
        &[
            ("main.xml", main.as_bytes()),
            ("a.xml", b"<Blocks>\xff</Blocks>"),
        ],
        &Limits::default(),
    );
    assert_eq!(f.diag.kind, ErrorKind::InvalidUtf8);
    assert!(f.at.starts_with("/t/a.xml:1:9"), "{}", f.at);
    // The main file cannot be a Blocks file.
    assert_err(
        "<Blocks><Block name='x'/></Blocks>",
        ErrorKind::Syntax,
        "<Blocks>",
    );
}

#[test]
fn ref_cycles_name_the_chain() {
    let f = assert_err(
        &tree(
            "<Blocks><Block name='LoopA'><Leaf name='A'/><Ref name='LoopB'/></Block>\
             <Block name='LoopB'><Ref name='LoopA'/></Block></Blocks>\
             <Priority name='R'><Ref name='LoopA'/></Priority>",
        ),
        ErrorKind::IncludeCycle,
        "LoopA",
    );
    assert!(
        f.diag.message.contains("LoopA -> LoopB -> LoopA"),
        "{}",
        f.diag.message
    );
    let f = assert_err(
        &tree("<Blocks><Block name='Me'><Ref name='Me'/></Block></Blocks><Ref name='Me'/>"),
        ErrorKind::IncludeCycle,
        "Me",
    );
    assert!(f.diag.message.contains("Me -> Me"), "{}", f.diag.message);
    // Through a global block file.
    let f = fail_files(&[
        (
            "main.xml",
            &tree(
                "<Blocks><Block name='Local'><Ref name='G'/></Block></Blocks><Ref name='Local'/>",
            ),
        ),
        (
            "g.xml",
            "<Blocks><Block name='G'><Ref name='Local'/></Block></Blocks>",
        ),
    ]);
    assert_eq!(f.diag.kind, ErrorKind::IncludeCycle);
    assert!(f.at.starts_with("/t/g.xml"), "{}", f.at);
    assert!(
        f.diag.message.contains("Local -> G -> Local"),
        "{}",
        f.diag.message
    );
    // The same block used twice side by side is not a cycle.
    let t = ok(&tree(
        "<Blocks><Block name='B'><Leaf name='X'/></Block></Blocks>\
         <Priority name='R'><Ref name='B'/><Ref name='B'/></Priority>",
    ));
    assert_eq!(main_tree(&t), "priority R {[true] X>X, [true] X>X}");
}

#[test]
fn unknown_blocks_and_bad_refs() {
    // An unknown block ends the list with a warning (BlockyXmlNodeRef::next, 8b63f61c).
    let (t, ws) = warns(&tree(
        "<Priority name='R'><Ref name='Missing'/><Leaf name='L'/></Priority>",
    ));
    assert_eq!(ws, [w(ErrorKind::UnknownName, "Missing")]);
    assert_eq!(main_tree(&t), "priority R {}");
    // Inside a block, only the block ends.
    let (t, ws) = warns(&tree(
        "<Blocks><Block name='B'><Leaf name='A'/><Ref name='Gone'/><Leaf name='Z'/></Block></Blocks>\
         <Priority name='R'><Ref name='B'/><Leaf name='L'/></Priority>",
    ));
    assert_eq!(ws, [w(ErrorKind::UnknownName, "Gone")]);
    assert_eq!(main_tree(&t), "priority R {[true] A>A, [true] L>L}");
    // A tree named `global` (not `Global`) without blocks sees no global block.
    let (t, ws) = warns_files(&[
        (
            "main.xml",
            "<SelectionTree name='GLOBAL' type='t'><Priority name='R'><Ref name='G'/><Leaf name='L'/></Priority></SelectionTree>",
        ),
        ("g.xml", "<Blocks><Block name='G'><Leaf name='X'/></Block></Blocks>"),
    ]);
    assert_eq!(ws, [w(ErrorKind::UnknownName, "G")]);
    assert_eq!(main_tree(&t), "priority R {}");
    assert_err(
        &tree("<Priority name='R'><Ref/></Priority>"),
        ErrorKind::InvalidValue,
        "<Ref/>",
    );
    // The first of two names in any case wins.
    let (_, ws) = warns(&tree(
        "<Blocks><Block name='y'><Leaf name='Y'/></Block></Blocks><Priority name='R'><Ref name='x' Name='y'/></Priority>",
    ));
    assert_eq!(ws, [w(ErrorKind::UnknownName, "x")]);
    // Another tree's blocks are not visible.
    let (t, ws) = warns(
        "<SelectionTrees>
           <SelectionTree name='Owner' type='t'><Blocks><Block name='P'><Leaf name='S'/></Block></Blocks><Ref name='P'/></SelectionTree>
           <SelectionTree name='Borrower' type='t'><Ref name='P'/></SelectionTree>
         </SelectionTrees>",
    );
    assert_eq!(
        ws,
        [
            w(ErrorKind::UnknownName, "P"),
            w(ErrorKind::Arity, "<SelectionTree name='Borrower' type='t'>")
        ]
    );
    assert_eq!(t.roots.len(), 1);
    // Duplicate blocks in one tree (names compared exactly), in any tree of the file.
    assert_err(
        &tree("<Blocks><Block name='B'/><Block name='B'/></Blocks><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "B",
    );
    ok(&tree(
        "<Blocks><Block name='B'/><Block name='b'/></Blocks><Leaf name='L'/>",
    ));
    assert_err(
        "<SelectionTrees><SelectionTree name='T' type='t'><Leaf name='L'/></SelectionTree>\
         <SelectionTree name='U' type='t'><Blocks><Block name='B'/><Block name='B'/></Blocks><Leaf name='L'/></SelectionTree></SelectionTrees>",
        ErrorKind::InvalidValue,
        "B",
    );
    assert_err(
        &tree("<Blocks><Blok name='B'/></Blocks><Leaf name='L'/>"),
        ErrorKind::UnknownName,
        "<Blok name='B'/>",
    );
    // Blocks are only written in the tree itself: one from a Ref is skipped.
    let (_, ws) = warns(&tree(
        "<Blocks><Block name='B'><Blocks/></Block></Blocks><Ref name='B'/><Leaf name='L'/>",
    ));
    assert_eq!(ws, [w(ErrorKind::InvalidValue, "<Blocks/>")]);
}

#[test]
fn ref_expansion_is_bounded() {
    // Ten Refs per level, ten levels: 10^10 elements if expanded naively.
    let mut blocks = String::from("<Block name='B0'><Leaf name='L'/></Block>");
    for i in 1..=10 {
        let refs = format!("<Ref name='B{}'/>", i - 1).repeat(10);
        blocks.push_str(&format!("<Block name='B{i}'>{refs}</Block>"));
    }
    let f = fail_files(&[(
        "main.xml",
        &tree(&format!(
            "<Blocks>{blocks}</Blocks><Priority name='R'><Ref name='B10'/></Priority>"
        )),
    )]);
    assert_eq!(f.diag.kind, ErrorKind::TooManyNodes, "{}", f.diag.message);
    // Empty blocks cost too.
    let mut blocks = String::from("<Block name='B0'/>");
    for i in 1..=10 {
        let refs = format!("<Ref name='B{}'/>", i - 1).repeat(10);
        blocks.push_str(&format!("<Block name='B{i}'>{refs}</Block>"));
    }
    let f = fail_files(&[(
        "main.xml",
        &tree(&format!(
            "<Blocks>{blocks}</Blocks><Variables><Ref name='B10'/></Variables><Leaf name='L'/>"
        )),
    )]);
    assert_eq!(f.diag.kind, ErrorKind::TooManyNodes, "{}", f.diag.message);
    // A long Ref chain counts towards the nesting limit.
    let n = 300;
    let mut blocks = String::from("<Block name='B0'><Leaf name='L'/></Block>");
    for i in 1..=n {
        blocks.push_str(&format!(
            "<Block name='B{i}'><Ref name='B{}'/></Block>",
            i - 1
        ));
    }
    let f = fail_files(&[(
        "main.xml",
        &tree(&format!("<Blocks>{blocks}</Blocks><Ref name='B{n}'/>")),
    )]);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep, "{}", f.diag.message);
    assert!(f.text.starts_with("<Ref"), "{}", f.text);
}

// ---- leaf translations --------------------------------------------------------------------

#[test]
fn leaf_translations_plain_first_then_qualified_in_file_order() {
    let t = ok(&tree(
        "<Priority name='Root'>
           <Leaf name='Idle'/>
           <Priority name='Combat'>
             <Leaf name='Idle'/>
             <Leaf name='Attack'/>
             <Priority name='Melee'><Leaf name='Attack'/><Leaf name='Hit'/></Priority>
           </Priority>
           <StateMachine name='Duty'>
             <State name='Post'><Leaf name='Stand'/></State>
             <State name='Rounds'><Priority name='Walk'><Leaf name='Stand'/></Priority></State>
           </StateMachine>
           <Leaf name='Hit'/>
         </Priority>
         <LeafTranslations>
           <Map node='Combat:Idle' target='CombatIdle'/>
           <Map node='Idle' target='PlainIdle'/>
           <Map node='Combat:Attack' target='CombatAttack'/>
           <Map node='Root:Combat:Melee:Attack' target='DeepAttack'/>
           <Map node='Melee:Attack' target='MeleeAttack'/>
           <Map node='Melee:Hit' target='MeleeHit'/>
           <Map node='Root:Combat:Melee:Hit' target='DeepHit'/>
           <Map node='combat:Melee:Hit' target='WrongCase'/>
           <Map node='Top:Root:Hit' target='TooManyQualifiers'/>
           <Map node='Post:Stand' target='StateIsNotANode'/>
           <Map node='Duty:Stand' target='StandAtPost'/>
           <Map node='Duty:Walk:Stand' target='StandOnRounds'/>
         </LeafTranslations>",
    ));
    // A plain map wins over an earlier qualified one; otherwise the first qualified map that
    // matches, in file order, even when a later one has more qualifiers.
    assert_eq!(
        main_tree(&t),
        "priority Root {[true] Idle>PlainIdle, [true] priority Combat {[true] Idle>PlainIdle, \
         [true] Attack>CombatAttack, [true] priority Melee {[true] Attack>DeepAttack, \
         [true] Hit>MeleeHit}}, [true] sm Duty {@Post: Stand>StandAtPost, \
         @Rounds: priority Walk {[true] Stand>StandOnRounds}}, [true] Hit>Hit}"
    );
    assert_err(
        &tree("<LeafTranslations><Map node='A' target='x'/><Map node='A' target='y'/></LeafTranslations><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "A",
    );
    // Empty pieces are no error (CryStringT::Tokenize skips them).
    ok(&tree(
        "<LeafTranslations><Map node='A:' target='x'/></LeafTranslations><Leaf name='L'/>",
    ));
    assert_err(
        &tree("<LeafTranslations><Map target='x'/></LeafTranslations><Leaf name='L'/>"),
        ErrorKind::InvalidValue,
        "<Map target='x'/>",
    );
    assert_err(
        &tree(
            "<LeafTranslations><Mapping node='L' target='x'/></LeafTranslations><Leaf name='L'/>",
        ),
        ErrorKind::InvalidValue,
        "<Mapping node='L' target='x'/>",
    );
}

// ---- nodes ----------------------------------------------------------------------------------

#[test]
fn tag_and_attribute_names_are_case_insensitive() {
    let t = ok("<selectiontrees><SELECTIONTREE name='Mixed' type='x'>
        <variables><VARIABLE name='Alert' default='true'/></variables>
        <signalVARIABLES><SIGNAL name='Calm' variable='alert' value='FALSE'/></signalVARIABLES>
        <leaftranslations><MAP node='Watch' target='Watching'/></leaftranslations>
        <PRIORITY name='Root'>
          <LEAF name='Watch' condition='ALERT'/>
          <statemachine name='Idle'>
            <STATE name='Sit'><TRANSITION state='stand' condition='alert AND TRUE'/><leaf name='Sitting'/></STATE>
            <state name='Stand'><Leaf name='Standing'/></state>
          </statemachine>
          <sequence name='S'><leaf name='Z'/></sequence>
        </PRIORITY>
      </SELECTIONTREE></selectiontrees>");
    assert_eq!(
        main_tree(&t),
        "priority Root {[Alert] Watch>Watching, [true] sm Idle {@Sit when (Alert and true) -> 1: \
         Sitting>Sitting, @Stand: Standing>Standing}, [true] sequence S {[true] Z>Z}}"
    );
    assert_eq!(signals(&t), ["Calm: Alert = false"]);
    // Attribute names are found case-insensitively too (CryXML, 8b63f61c).
    ok(&tree("<Leaf Name='L'/>"));
    let t = ok(&tree(
        "<Priority name='R'><Leaf name='L' Condition='false'/></Priority>",
    ));
    assert_eq!(main_tree(&t), "priority R {[false] L>L}");
}

#[test]
fn node_structure_errors() {
    // Unknown node types and misplaced elements.
    let f = assert_err(
        &tree("<Selector name='S'/>"),
        ErrorKind::UnknownName,
        "<Selector name='S'/>",
    );
    assert!(f.diag.message.contains("Selector"));
    assert_err(
        &tree("<Priority name='R'><Decorator name='D'/></Priority>"),
        ErrorKind::UnknownName,
        "<Decorator name='D'/>",
    );
    assert_err(
        &tree("<Priority name='R'><State name='S'><Leaf name='L'/></State></Priority>"),
        ErrorKind::UnknownName,
        "<State name='S'>",
    );
    assert_err(
        &tree("<StateMachine name='M'><Leaf name='L'/></StateMachine>"),
        ErrorKind::UnknownName,
        "<Leaf name='L'/>",
    );
    // Missing or unknown attributes.
    let f = assert_err(
        &tree("<Priority name='R'><Leaf condition='true'/></Priority>"),
        ErrorKind::InvalidValue,
        "<Leaf condition='true'/>",
    );
    assert!(f.diag.message.contains("name"));
    assert_err(
        &tree("<Leaf name='L' weight='2'/>"),
        ErrorKind::InvalidValue,
        "weight='2'",
    );
    // `condition` is read only on a child of a Priority or Sequence; elsewhere it is never
    // read (SelectionTreeNode::LoadFromXML, 8b63f61c): the tree loads.
    ok(&tree("<Leaf name='L' condition='false'/>"));
    ok(&tree("<StateMachine name='M'><State name='S'><Leaf name='L' condition='false'/></State></StateMachine>"));
    // Arity.
    assert_err(
        &tree("<Leaf name='L'><Leaf name='M'/></Leaf>"),
        ErrorKind::Arity,
        "<Leaf name='M'/>",
    );
    // A Priority (or Sequence) may have no child.
    assert_eq!(
        main_tree(&ok(&tree("<Priority name='R'/>"))),
        "priority R {}"
    );
    ok(&tree("<Sequence name='S'></Sequence>"));
    assert_err(
        &tree("<StateMachine name='M'/>"),
        ErrorKind::Arity,
        "<StateMachine name='M'/>",
    );
    assert_err(
        &tree("<StateMachine name='M'><State name='S'/></StateMachine>"),
        ErrorKind::Arity,
        "<State name='S'/>",
    );
    assert_err(
        &tree("<StateMachine name='M'><State name='S'><Leaf name='A'/><Leaf name='B'/></State></StateMachine>"),
        ErrorKind::Arity,
        "<Leaf name='B'/>",
    );
    // States and transitions.
    // Duplicate state names: the first wins (a warning).
    let (_, ws) = warns(&tree(
        "<StateMachine name='M'><State name='S'><Leaf name='A'/></State><State name='s'><Leaf name='B'/></State></StateMachine>",
    ));
    assert_eq!(ws, [w(ErrorKind::InvalidValue, "s")]);
    assert_err(
        &tree("<StateMachine name='M'><State name='S'><Transition state='Nowhere' condition='true'/><Leaf name='A'/></State></StateMachine>"),
        ErrorKind::UnknownName,
        "Nowhere",
    );
    assert_err(
        &tree("<StateMachine name='M'><State name='S'><Transition state='S'/><Leaf name='A'/></State></StateMachine>"),
        ErrorKind::InvalidValue,
        "<Transition state='S'/>",
    );
    assert_err(
        &tree("<StateMachine name='M'><State name='S'><Transition state='S' condition='true'><x/></Transition><Leaf name='A'/></State></StateMachine>"),
        ErrorKind::Arity,
        "<x/>",
    );
    // A state of another machine is not a target.
    assert_err(
        &tree("<Priority name='R'><StateMachine name='A'><State name='S'><Transition state='Far' condition='true'/><Leaf name='L'/></State></StateMachine>\
               <StateMachine name='B'><State name='Far'><Leaf name='L'/></State></StateMachine></Priority>"),
        ErrorKind::UnknownName,
        "Far",
    );
}

#[test]
fn selection_tree_errors() {
    assert_err(
        "<SelectionTrees><SelectionTree name='T' type='t'><Leaf name='A'/><Leaf name='B'/></SelectionTree></SelectionTrees>",
        ErrorKind::Arity,
        "<Leaf name='B'/>",
    );
    assert_err(
        "<SelectionTrees><SelectionTree name='T' type='t'><Variables/></SelectionTree></SelectionTrees>",
        ErrorKind::Arity,
        "<SelectionTree name='T' type='t'>",
    );
    assert_err(
        "<SelectionTrees><SelectionTree name='T'><Leaf name='A'/></SelectionTree></SelectionTrees>",
        ErrorKind::InvalidValue,
        "<SelectionTree name='T'>",
    );
    assert_err(
        "<SelectionTrees><SelectionTree type='t'><Leaf name='A'/></SelectionTree></SelectionTrees>",
        ErrorKind::InvalidValue,
        "<SelectionTree type='t'>",
    );
    assert_err(
        "<SelectionTrees><SelectionTree name='T' type='t' x='1'><Leaf name='A'/></SelectionTree></SelectionTrees>",
        ErrorKind::InvalidValue,
        "x='1'",
    );
    assert_err(
        "<SelectionTrees><Tree name='T'/></SelectionTrees>",
        ErrorKind::Arity,
        "<SelectionTrees>",
    );
    assert_err(
        "<SelectionTrees><Tree name='T'/><SelectionTree name='T' type='t'><Leaf name='A'/></SelectionTree></SelectionTrees>",
        ErrorKind::UnknownName,
        "<Tree name='T'/>",
    );
    // After the first tree, a stray element ends the file's trees with a warning.
    let (t, ws) = warns(
        "<SelectionTrees><SelectionTree name='T' type='t'><Leaf name='A'/></SelectionTree><Tree/>\
         <SelectionTree name='U' type='t'><Leaf name='A'/></SelectionTree></SelectionTrees>",
    );
    assert_eq!(ws, [w(ErrorKind::UnknownName, "<Tree/>")]);
    assert_eq!(t.roots.len(), 1);
    // A nameless tree anywhere fails the whole file (CSelectionTreeManager::Discover).
    assert_err(
        "<SelectionTrees><SelectionTree name='T' type='t'><Leaf name='A'/></SelectionTree>\
         <SelectionTree type='t'><Leaf name='A'/></SelectionTree></SelectionTrees>",
        ErrorKind::InvalidValue,
        "<SelectionTree type='t'>",
    );
    assert_err("<SelectionTrees/>", ErrorKind::Arity, "<SelectionTrees/>");
    assert_err(
        &tree("<Stuff/><Leaf name='A'/>"),
        ErrorKind::UnknownName,
        "<Stuff/>",
    );
    // A later tree of a name used before: a warning, the first one runs.
    let (t, ws) = warns(
        "<SelectionTrees><SelectionTree name='T' type='t'><Leaf name='A'/></SelectionTree>\
         <SelectionTree name='t' type='t'><Leaf name='A'/></SelectionTree></SelectionTrees>",
    );
    assert_eq!(ws, [w(ErrorKind::InvalidValue, "t")]);
    assert_eq!(t.roots.len(), 1);
}

#[test]
fn only_the_first_32_states_can_be_entered() {
    let machine = |n: usize| {
        let states: String = (0..n)
            .map(|i| {
                format!(
                    "<State name='S{i}'><Transition state='S{}' condition='Go'/><Leaf name='L{i}'/></State>",
                    (i + 1) % n
                )
            })
            .collect();
        tree(&format!(
            "<Variables><Variable name='Go'/></Variables><StateMachine name='M'>{states}</StateMachine>"
        ))
    };
    let t = ok(&machine(32));
    assert_eq!(t.node(t.roots[0].node).children.len(), 32);
    // A transition into the 33rd state (SelectionTreeNode::Evaluate's 32-bit mask).
    assert_err(&machine(33), ErrorKind::LimitExceeded, "S32");
    // More states load (through Refs too); those after the 32nd cannot be entered and are
    // left out.
    let blocks = format!(
        "<Blocks><Block name='Many'>{}</Block></Blocks>",
        (0..40)
            .map(|i| format!("<State name='S{i}'><Transition state='S3' condition='true'/><Leaf name='L'/></State>"))
            .collect::<String>()
    );
    let t = ok(&tree(&format!(
        "{blocks}<StateMachine name='M'><Ref name='Many'/></StateMachine>"
    )));
    assert_eq!(t.node(t.roots[0].node).children.len(), 32);
    // State indices are uint8: the 257th state is index 0 again.
    let states: String = (0..257)
        .map(|i| format!("<State name='S{i}'><Leaf name='L{i}'/></State>"))
        .collect();
    let t = ok(&tree(&format!(
        "<StateMachine name='M'><State name='First'><Transition state='S255' condition='true'/><Leaf name='F'/></State>{states}</StateMachine>"
    )));
    let first = t.node(t.roots[0].node).children[0];
    match &t.node(first).kind {
        btvm_compiler::ir::NodeKind::State(s) => assert_eq!(s.transitions[0].to, 0),
        k => panic!("{k:?}"),
    }
}

// ---- several trees --------------------------------------------------------------------------

#[test]
fn several_trees_become_entries() {
    let t = ok("<SelectionTrees>
      <SelectionTree name='Runner' type='t'>
        <Blocks><Block name='Body'><Leaf name='Run' condition='Go'/><Leaf name='Wait'/></Block></Blocks>
        <Variables><Variable name='Go'/></Variables>
        <SignalVariables><Signal name='E' variable='Go' value='true'/></SignalVariables>
        <Priority name='Root'><Ref name='Body'/></Priority>
      </SelectionTree>
      <SelectionTree name='Other' type='t'>
        <Blocks><Block name='Body'><Leaf name='OtherLeaf'/></Block></Blocks>
        <Variables><Variable name='Go' default='true'/></Variables>
        <SignalVariables><Signal name='E' variable='Go' value='false'/></SignalVariables>
        <Priority name='OtherRoot'><Leaf name='Halt' condition='go'/><Ref name='Body'/></Priority>
      </SelectionTree>
      <SelectionTree name='Third' type='t'><Leaf name='Only'/></SelectionTree>
    </SelectionTrees>");
    let names: Vec<&str> = t.roots.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Runner", "Other", "Third"]);
    assert_eq!(
        main_tree(&t),
        "priority Root {[Go] Run>Run, [true] Wait>Wait}"
    );
    assert_eq!(
        show(&t, t.roots[1].node),
        "priority OtherRoot {[Other:Go] Halt>Halt, [true] OtherLeaf>OtherLeaf}"
    );
    assert_eq!(show(&t, t.roots[2].node), "Only>Only");
    assert_eq!(vars(&t), ["Go=false", "Other:Go=true"]);
    // Only the main tree's signals are bound.
    assert_eq!(signals(&t), ["E: Go = true"]);
    // Later trees are checked all the same; an error there is a warning, the trees before
    // it stay (CSelectionTreeManager::LoadFileNode, 8b63f61c), it and the later ones go.
    let (t, ws) = warns(
        "<SelectionTrees><SelectionTree name='Main' type='t'><Leaf name='Idle'/></SelectionTree>
         <SelectionTree name='Spare' type='t'><SignalVariables><Signal name='E' variable='Nope' value='true'/></SignalVariables><Leaf name='Odd'/></SelectionTree>
         <SelectionTree name='After' type='t'><Leaf name='Odd'/></SelectionTree></SelectionTrees>",
    );
    assert_eq!(ws, [w(ErrorKind::UnknownName, "Nope")]);
    let names: Vec<&str> = t.roots.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Main"]);
    // A later tree's prefixed variable may not clash with the main tree's names.
    let (_, ws) = warns(
        "<SelectionTrees><SelectionTree name='Main' type='t'><Variables><Variable name='B:x'/></Variables><Leaf name='Idle'/></SelectionTree>
         <SelectionTree name='B' type='t'><Variables><Variable name='X'/></Variables><Leaf name='Odd'/></SelectionTree></SelectionTrees>",
    );
    assert_eq!(ws, [w(ErrorKind::InvalidValue, "X")]);
    // The first tree's errors stay errors.
    assert_err(
        "<SelectionTrees><SelectionTree name='Main' type='t'><SignalVariables><Signal name='E' variable='Nope' value='true'/></SignalVariables><Leaf name='Idle'/></SelectionTree></SelectionTrees>",
        ErrorKind::UnknownName,
        "Nope",
    );
}

// ---- hostile input --------------------------------------------------------------------------

#[test]
fn malformed_xml_is_a_positioned_syntax_error() {
    let f = assert_err(
        "<SelectionTrees>\n  <SelectionTree></Oops>\n",
        ErrorKind::Syntax,
        "<",
    );
    assert!(f.at.starts_with("/t/main.xml:2:"), "{}", f.at);
    assert_err("", ErrorKind::Syntax, "");
    assert_err("<SelectionTrees>", ErrorKind::Syntax, "");
    assert_err("<SelectionTrees a='1' a='2'/>", ErrorKind::Syntax, "a");
    assert_err(
        "<?xml version='1.0'?><!DOCTYPE x [<!ENTITY e 'lol'>]><SelectionTrees/>",
        ErrorKind::Syntax,
        "<!DOCTYPE",
    );
    // Unknown entities.
    let f = fail_files(&[("main.xml", &tree("<Leaf name='&bogus;'/>"))]);
    assert_eq!(f.diag.kind, ErrorKind::Syntax);
}

#[test]
fn an_unknown_root_element_is_an_error_with_dialect_bst() {
    let fs = front::memfs(&[("main.xml", b"<BehaviorTree/>")]);
    let mut sources = SourceMap::new();
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        ..LoadOptions::default()
    };
    let d = load(Path::new("/t/main.xml"), &fs, &options, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Syntax);
    assert_eq!(sources.locate(d[0].span), "/t/main.xml:1:1");
}

#[test]
fn invalid_utf8_and_oversized_files() {
    let mut bytes = tree("<Leaf name='X'/>").into_bytes();
    bytes.splice(40..40, [0xC3u8, 0x28]);
    let f = fail_bytes(&[("main.xml", &bytes)], &Limits::default());
    assert_eq!(f.diag.kind, ErrorKind::InvalidUtf8);
    assert_eq!(f.at, "/t/main.xml:1:41");
    let limits = Limits {
        max_source_bytes: 100,
        ..Limits::default()
    };
    let big = tree(&"<Leaf name='X'/>".repeat(10));
    let f = fail_bytes(&[("main.xml", big.as_bytes())], &limits);
    assert_eq!(f.diag.kind, ErrorKind::SourceTooLarge);
    // A missing main file (with an explicit format, so the sniffer does not decide).
    let fs = front::memfs(&[]);
    let mut sources = SourceMap::new();
    let options = LoadOptions {
        format: Some(Format::Dialect(Dialect::Bst)),
        ..LoadOptions::default()
    };
    let d = load(Path::new("/t/none.xml"), &fs, &options, &mut sources).unwrap_err();
    assert_eq!(d[0].kind, ErrorKind::Io);
}

#[test]
fn hundred_thousand_deep_nesting_is_a_positioned_error() {
    let n = 100_000;
    let open = "<Priority name='P'>".repeat(n);
    let close = "</Priority>".repeat(n);
    let src = tree(&format!("{open}<Leaf name='L'/>{close}"));
    let f = fail_files(&[("main.xml", &src)]);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
    assert_eq!(f.text, "<Priority name='P'>");
    // Each Priority is two IR levels (the node and its case): under 127 the leaf is at
    // depth 255, under 128 at 257.
    let nest = |n: usize| {
        tree(&format!(
            "{}<Leaf name='L'/>{}",
            "<Priority name='P'>".repeat(n),
            "</Priority>".repeat(n)
        ))
    };
    ok(&nest(127));
    assert_eq!(
        fail_files(&[("main.xml", &nest(128))]).diag.kind,
        ErrorKind::NestTooDeep
    );
    // State machines nest the same way.
    let sm = format!(
        "{}<Leaf name='L'/>{}",
        "<StateMachine name='M'><State name='S'>".repeat(n),
        "</State></StateMachine>".repeat(n)
    );
    let f = fail_files(&[("main.xml", &tree(&sm))]);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
    // Tight limits are honoured.
    let limits = Limits {
        max_depth: 5,
        ..Limits::default()
    };
    let f = fail_bytes(&[("main.xml", nest(3).as_bytes())], &limits);
    assert_eq!(f.diag.kind, ErrorKind::NestTooDeep);
}

#[test]
fn too_many_nodes() {
    let limits = Limits {
        max_nodes: 50,
        ..Limits::default()
    };
    let src = tree(&format!(
        "<Priority name='R'>{}</Priority>",
        "<Leaf name='L'/>".repeat(30)
    ));
    let f = fail_bytes(&[("main.xml", src.as_bytes())], &limits);
    assert_eq!(f.diag.kind, ErrorKind::TooManyNodes);
    let src = tree(&format!(
        "<Priority name='R'>{}</Priority>",
        "<Leaf name='L'/>".repeat(20)
    ));
    front::try_load_bytes(load_any, &[("main.xml", src.as_bytes())], &limits)
        .0
        .unwrap();
}

#[test]
fn every_accepted_tree_passes_the_checker_and_the_reference() {
    let t = ok(&tree(
        "<Variables><Variable name='A'/></Variables>
         <Sequence name='S'>
           <StateMachine name='M' condition='A'>
             <State name='One'><Transition state='Two' condition='A'/><Leaf name='X'/></State>
             <State name='Two'><Leaf name='Y'/></State>
           </StateMachine>
           <Leaf name='Z'/>
         </Sequence>",
    ));
    btvm_compiler::check::check(&t, &Limits::default()).unwrap();
    t.validate().unwrap();
    btvm_compiler::reference::Interpreter::new(&t).unwrap();
}

#[test]
fn the_grunt_example_loads_with_its_global_blocks() {
    use btvm_compiler::source::RealFs;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/examples/grunt/grunt.xml");
    let mut sources = SourceMap::new();
    let t = match load(&path, &RealFs, &LoadOptions::default(), &mut sources) {
        Ok(t) => t,
        Err(d) => panic!("{}", d[0].display(&sources)),
    };
    assert_eq!(t.roots[0].name, "Grunt");
    // common.xml was read as a global block file.
    assert_eq!(sources.files().len(), 2);
    assert!(t.vars.iter().any(|v| v.name == "AwareOfEnemy"));
    let behaviors: Vec<&str> = t
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Select(b) => Some(b.as_str()),
            _ => None,
        })
        .collect();
    assert!(behaviors.contains(&"Corpse"), "{behaviors:?}");
    assert!(behaviors.contains(&"GruntIdle"), "{behaviors:?}");
}

#[test]
fn bst_trees_survive_the_native_syntax() {
    use btvm_compiler::source::FileId;
    use btvm_compiler::syntax::canonical;
    let mut t = ok(&tree(
        "<Variables><Variable name='A' default='true'/><Variable name='B'/></Variables>
         <SignalVariables><Signal name='E' variable='B' value='!A'/></SignalVariables>
         <Sequence name='S'>
           <Priority name='P' condition='A xor B'><Leaf name='X' condition='B'/><Leaf name='Y'/></Priority>
           <StateMachine name='M'>
             <State name='One'><Transition state='Two' condition='A == B'/><Leaf name='Z'/></State>
             <State name='Two'><Leaf name='W'/></State>
           </StateMachine>
         </Sequence>",
    ));
    let text = canonical::print(&t);
    assert!(text.contains("sequence @\"S\" remember {"), "{text}");
    let mut back = match canonical::parse(FileId(0), &text, &Limits::default()) {
        Ok(b) => b,
        Err(d) => panic!("{}\n{text}", d[0].message),
    };
    t.strip_spans();
    back.strip_spans();
    assert_eq!(back, t, "{text}");
}
