//! Whole trees: the checker and the reference, the grunt example, the native syntax.

use super::*;

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
