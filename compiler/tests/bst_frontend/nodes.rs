//! Nodes: names, structure errors, selection trees, states.

use super::*;

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
