//! Several trees become entries.

use super::*;

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
