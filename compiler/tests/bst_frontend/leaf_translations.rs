//! Leaf translations.

use super::*;

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
