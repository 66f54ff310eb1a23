//! Rule ids.

use super::*;

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
