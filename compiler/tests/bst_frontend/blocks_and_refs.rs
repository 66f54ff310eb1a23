//! Blocks and Ref: every allowed place, scoping, block files, cycles, bounds.

use super::*;

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
