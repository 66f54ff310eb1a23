//! The IR mapping: node types, sections, variables, signals, conditions.

use super::*;

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
