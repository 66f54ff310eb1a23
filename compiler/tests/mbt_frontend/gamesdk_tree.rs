//! A GameSDK-style tree of our own, and the squad soldier example.

use super::*;

// ---- a GameSDK-style tree -----------------------------------------------------------------

/// A scout written for these tests in the style of the GameSDK trees (seed-systems §C.6 tags).
const SCOUT: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<BehaviorTree>
    <MetaExtensions>
        <EditorLayout zoom="1.0"/>
    </MetaExtensions>
    <Variables>
        <Variable name="HasTarget" default="false"/>
        <Variable name="TargetVisible" default="false"/>
        <Variable name="UnderFire" default="false"/>
        <Variable name="CanSeeSquad" default="true"/>
    </Variables>
    <SignalVariables>
        <Signal name="OnEnemySeen" variable="HasTarget" value="true"/>
        <Signal name="OnEnemySeen" variable="TargetVisible" value="true"/>
        <Signal name="OnLostSightOfTarget" variable="TargetVisible" value="false"/>
        <Signal name="OnBulletRain" variable="UnderFire" value="true"/>
        <Signal name="OnCoverReached" variable="UnderFire" value="false"/>
        <Signal name="OnTargetDead" variable="HasTarget" value="false"/>
    </SignalVariables>
    <Timestamps>
        <Timestamp name="TargetSpotted" setOnEvent="OnEnemySeen" exclusiveTo="TargetLost"/>
        <Timestamp name="TargetLost" setOnEvent="OnLostSightOfTarget"/>
        <Timestamp name="ShotAt" setOnEvent="OnBulletRain" exlusiveTo="TargetSpotted"/>
    </Timestamps>
    <Root>
        <StateMachine>
            <State name="Scouting">
                <Transitions>
                    <Transition onEvent="OnEnemySeen" to="Engaging"/>
                    <Transition onEvent="OnNoiseHeard" to="Checking"/>
                </Transitions>
                <BehaviorTree>
                    <Loop>
                        <Sequence _startLog="scouting">
                            <LuaGate code="return entity.AI.scoutRoute ~= nil">
                                <Move to="RefPoint" speed="Walk" stance="Relaxed"/>
                            </LuaGate>
                            <Wait duration="2" variation="1.5"/>
                            <SuppressFailure>
                                <Timeout duration="0.5"/>
                            </SuppressFailure>
                        </Sequence>
                    </Loop>
                </BehaviorTree>
            </State>
            <State name="Checking">
                <Transitions>
                    <Transition onEvent="OnEnemySeen" to="Engaging"/>
                    <Transition onEvent="OnNothingFound" to="Scouting"/>
                </Transitions>
                <BehaviorTree>
                    <Sequence>
                        <Communicate name="Suspicious" channel="Search" expirity="2" waitUntilFinished="0"/>
                        <Parallel successMode="any">
                            <Move to="LastOp" speed="Walk" fireMode="Off"/>
                            <Look at="LastOp"/>
                        </Parallel>
                        <WaitForEvent name="OnArrived" result="Success"/>
                        <SendTransitionSignal name="OnNothingFound"/>
                    </Sequence>
                </BehaviorTree>
            </State>
            <State name="Engaging">
                <Transitions>
                    <Transition onEvent="OnTargetDead" to="Scouting"/>
                </Transitions>
                <BehaviorTree>
                    <Priority>
                        <Case condition="UnderFire">
                            <Sequence>
                                <Stance name="Crouch"/>
                                <AnimationTagWrapper name="Alerted">
                                    <Move to="Cover" speed="Run" stance="Crouch"/>
                                </AnimationTagWrapper>
                                <Halt/>
                            </Sequence>
                        </Case>
                        <Case condition="HasTarget and TargetVisible">
                            <Loop>
                                <Selector>
                                    <GroupScope name="GrenadeThrowers" allowedConcurrentUsers="2">
                                        <IfTime since="TargetSpotted" isMoreThan="3">
                                            <Sequence>
                                                <AssertLua code="return entity.inventory:GetGrenadeCount() &gt; 0"/>
                                                <ThrowGrenade type="frag" timeout="3"/>
                                            </Sequence>
                                        </IfTime>
                                    </GroupScope>
                                    <RandomGate opensWithChance="0.4">
                                        <Shoot at="Target" duration="2" stance="Stand" fireMode="Burst"/>
                                    </RandomGate>
                                    <SuppressFailure>
                                        <ShootFromCover duration="1.5" fireMode="Burst"/>
                                    </SuppressFailure>
                                </Selector>
                            </Loop>
                        </Case>
                        <Case condition="HasTarget">
                            <Sequence>
                                <LoopUntilSuccess attemptCount="3">
                                    <QueryTPS name="SDKGrunt_SearchTarget" register="RefPoint"/>
                                </LoopUntilSuccess>
                                <Move to="RefPoint" speed="Walk"/>
                                <WaitUntilTime since="TargetLost" isMoreThan="8" succeedIfNeverBeenSet="1"/>
                                <IfCondition condition="!TargetVisible">
                                    <SendTransitionSignal name="OnTargetDead"/>
                                </IfCondition>
                                <Halt/>
                            </Sequence>
                        </Case>
                        <Case>
                            <LuaWrapper onEnter="entity:EnableSearchModule()" onExit="entity:DisableSearchModule()">
                                <Sequence>
                                    <AssertCondition condition="CanSeeSquad"/>
                                    <Signal name="OnSquadLostTarget" filter="Group"/>
                                    <Halt/>
                                </Sequence>
                            </LuaWrapper>
                        </Case>
                    </Priority>
                </BehaviorTree>
            </State>
        </StateMachine>
    </Root>
</BehaviorTree>
"#;

#[test]
fn a_gamesdk_style_tree_loads_with_the_profile_only() {
    let t = ok_sdk(SCOUT);
    assert_eq!(t.vars.len(), 4);
    assert_eq!(t.signals.len(), 6);
    assert_eq!(t.timestamps.len(), 3);
    assert_eq!(t.timestamps[2].exclusive_to, None);
    let count = |kw: &str| t.nodes.iter().filter(|n| n.kind.keyword() == kw).count();
    assert_eq!(count("statemachine"), 1);
    assert_eq!(count("state"), 3);
    assert_eq!(count("case"), 4);
    assert_eq!(count("hooks"), 2);
    assert_eq!(count("logstatus"), 1);
    assert_eq!(count("groupscope"), 1);
    let actions: Vec<&str> = t
        .imports
        .iter()
        .filter(|i| i.kind == ImportKind::Action)
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(
        actions,
        [
            "Move",
            "Communicate",
            "Look",
            "SendTransitionSignal",
            "Stance",
            "AnimationTagWrapper",
            "ThrowGrenade",
            "Shoot",
            "ShootFromCover",
            "QueryTPS",
            "Signal",
        ]
    );
    let scripts: Vec<&str> = t
        .imports
        .iter()
        .filter_map(|i| i.script.as_deref())
        .collect();
    assert_eq!(
        scripts,
        [
            "return entity.AI.scoutRoute ~= nil",
            "return entity.inventory:GetGrenadeCount() > 0",
            "entity:EnableSearchModule()",
            "entity:DisableSearchModule()",
        ]
    );
    assert!(body(&t).contains(
        "action Communicate(name = \"Suspicious\", channel = \"Search\", expirity = \"2\", waitUntilFinished = \"0\")"
    ));
    assert_round_trip(&t);

    // Without the profile the first GameSDK tag is an unknown node type.
    assert_err(
        SCOUT,
        ErrorKind::UnknownName,
        "<Move to=\"RefPoint\" speed=\"Walk\" stance",
        "`Move`",
    );
}

#[test]
fn the_squad_soldier_example_loads_with_the_profile() {
    let xml = include_str!("../../../spec/examples/squad_soldier.xml");
    let t = ok_sdk(xml);
    assert_eq!(t.dialect, Dialect::Mbt);
    assert!(t.imports.iter().any(|i| i.name == "lua_0"));
    assert_round_trip(&t);
}
