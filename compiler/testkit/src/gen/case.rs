//! [`Arbitrary`] inputs for fuzz targets and property tests: a tree, or a runnable tree and a
//! scenario for it, each drawn with the default configuration.

use std::fmt::Write as _;

use arbitrary::{Arbitrary, Result, Unstructured};

use super::any_tree::{tree, GenConfig};
use super::cursor::cursor_tree;
use super::decider::decider_tree;
use super::draw::{range, repeat};
use super::lifecycle::lifecycle_tree;
use super::running_list::{running_list_tree, RlConfig};
use super::scenario::{event_input, quote, render_events, scenario_spec, MAX_TICKS};
use super::selection::selection_tree;
use btvm_compiler::ir::Tree;

/// Any valid tree: [`tree`] with [`GenConfig::default`].
#[derive(Clone, Debug)]
pub struct AnyTree(pub Tree);

impl<'a> Arbitrary<'a> for AnyTree {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        tree(u, &GenConfig::default()).map(AnyTree)
    }
}

/// A running-list (Unvanquished) tree every engine runs, and a scenario for it.
#[derive(Clone, Debug)]
pub struct RunningListCase {
    /// The tree, from [`running_list_tree`].
    pub tree: Tree,
    /// The scenario, as text (see [`ScenarioSpec`](super::ScenarioSpec)).
    pub scenario: String,
}

/// A [`RunningListCase`] within `cfg`'s bounds: the tree, then a scenario rendered for it.
pub fn running_list_case(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<RunningListCase> {
    let tree = running_list_tree(u, cfg)?;
    let spec = scenario_spec(u, cfg.max_actions + cfg.max_functions)?;
    let scenario = spec.render(&tree);
    Ok(RunningListCase { tree, scenario })
}

impl<'a> Arbitrary<'a> for RunningListCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        running_list_case(u, &RlConfig::default())
    }
}

/// A cursor-model (Drag\[en\]gine) tree every engine runs, and a scenario for it with up to two
/// `reset` lines and up to two imports the host lacks (`missing`).
#[derive(Clone, Debug)]
pub struct CursorCase {
    /// The tree, from [`cursor_tree`].
    pub tree: Tree,
    /// The scenario, as text (see [`ScenarioSpec`](super::ScenarioSpec)).
    pub scenario: String,
}

/// A [`CursorCase`] within `cfg`'s bounds.
pub fn cursor_case(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<CursorCase> {
    let tree = cursor_tree(u, cfg)?;
    let spec = scenario_spec(u, cfg.max_actions + cfg.max_functions)?;
    let mut scenario = spec.render(&tree);
    for k in repeat(u, 0, 2, |u| range(u, 0, MAX_TICKS - 1))? {
        let _ = writeln!(scenario, "at {k} reset");
    }
    for m in repeat(u, 0, 2, |u| u.arbitrary::<u16>())? {
        if let Some(i) = tree.imports.get(usize::from(m) % tree.imports.len().max(1)) {
            let _ = writeln!(scenario, "missing {}", quote(&i.name));
        }
    }
    Ok(CursorCase { tree, scenario })
}

impl<'a> Arbitrary<'a> for CursorCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        cursor_case(u, &RlConfig::default())
    }
}

/// A decider-model (Spore) tree every engine runs, and a scenario for it with decision flags
/// and stimuli.
#[derive(Clone, Debug)]
pub struct DeciderCase {
    /// The tree, from [`decider_tree`].
    pub tree: Tree,
    /// The scenario, as text (see [`ScenarioSpec`](super::ScenarioSpec)).
    pub scenario: String,
}

/// A [`DeciderCase`] within `cfg`'s bounds.
pub fn decider_case(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<DeciderCase> {
    let tree = decider_tree(u, cfg)?;
    let spec = scenario_spec(u, tree.imports.len())?;
    let mut scenario = spec.render(&tree);
    for k in repeat(u, 0, 1, |u| range(u, 0, MAX_TICKS - 1))? {
        let _ = writeln!(scenario, "at {k} reset");
    }
    Ok(DeciderCase { tree, scenario })
}

impl<'a> Arbitrary<'a> for DeciderCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        decider_case(u, &RlConfig::default())
    }
}

/// A lifecycle-model (MBT) tree every engine runs, and a scenario for it with events,
/// variable sets and resets.
#[derive(Clone, Debug)]
pub struct LifecycleCase {
    /// The tree, from [`lifecycle_tree`].
    pub tree: Tree,
    /// The scenario, as text (see [`ScenarioSpec`](super::ScenarioSpec)).
    pub scenario: String,
}

/// The scenario of an event-model case: [`scenario_spec`] without entries (these models run
/// only their main tree), 0 to 10 events and variable sets ([`event_input`]), and 0 to 2
/// resets.
fn event_scenario(u: &mut Unstructured<'_>, tree: &Tree) -> Result<String> {
    let mut spec = scenario_spec(u, tree.imports.len())?;
    spec.entries.clear();
    let mut scenario = spec.render(tree);
    let events = repeat(u, 0, 10, event_input)?;
    scenario.push_str(&render_events(&events, tree));
    for k in repeat(u, 0, 2, |u| range(u, 0, MAX_TICKS - 1))? {
        let _ = writeln!(scenario, "at {k} reset");
    }
    Ok(scenario)
}

/// A [`LifecycleCase`] within `cfg`'s bounds.
pub fn lifecycle_case(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<LifecycleCase> {
    let tree = lifecycle_tree(u, cfg)?;
    let scenario = event_scenario(u, &tree)?;
    Ok(LifecycleCase { tree, scenario })
}

impl<'a> Arbitrary<'a> for LifecycleCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        lifecycle_case(u, &RlConfig::default())
    }
}

/// A selection-model (BST) tree every engine runs, and a scenario for it with events,
/// variable sets and resets.
#[derive(Clone, Debug)]
pub struct SelectionCase {
    /// The tree, from [`selection_tree`].
    pub tree: Tree,
    /// The scenario, as text (see [`ScenarioSpec`](super::ScenarioSpec)).
    pub scenario: String,
}

/// A [`SelectionCase`] within `cfg`'s bounds.
pub fn selection_case(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<SelectionCase> {
    let tree = selection_tree(u, cfg)?;
    let scenario = event_scenario(u, &tree)?;
    Ok(SelectionCase { tree, scenario })
}

impl<'a> Arbitrary<'a> for SelectionCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        selection_case(u, &RlConfig::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use btvm_compiler::reference::Interpreter;
    use btvm_compiler::scenario::parse_scenario;
    use btvm_compiler::source::FileId;

    /// Pseudo-random bytes (xorshift), `len` of them.
    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    }

    fn runs(tree: &Tree, scenario: &str) {
        assert_eq!(tree.validate(), Ok(()));
        if let Err(d) = Interpreter::new(tree) {
            panic!("{d:?}");
        }
        if let Err(d) = parse_scenario(FileId(0), scenario) {
            panic!("{d:?}\n{scenario}");
        }
    }

    #[test]
    fn exhausted_input_gives_small_cases() {
        let c = RunningListCase::arbitrary(&mut Unstructured::new(&[])).unwrap();
        runs(&c.tree, &c.scenario);
        assert_eq!(c.tree.nodes.len(), 1);
        let c = CursorCase::arbitrary(&mut Unstructured::new(&[])).unwrap();
        runs(&c.tree, &c.scenario);
        assert_eq!(c.tree.nodes.len(), 1);
        let t = AnyTree::arbitrary(&mut Unstructured::new(&[])).unwrap().0;
        assert_eq!(t.validate(), Ok(()));
    }

    #[test]
    fn any_bytes_give_cases_every_engine_runs() {
        for seed in 0..60 {
            for len in [1, 10, 300, 3000] {
                let b = bytes(seed, len);
                let c = RunningListCase::arbitrary(&mut Unstructured::new(&b)).unwrap();
                runs(&c.tree, &c.scenario);
                let c = CursorCase::arbitrary(&mut Unstructured::new(&b)).unwrap();
                runs(&c.tree, &c.scenario);
                let c = DeciderCase::arbitrary(&mut Unstructured::new(&b)).unwrap();
                runs(&c.tree, &c.scenario);
                let t = AnyTree::arbitrary(&mut Unstructured::new(&b)).unwrap().0;
                assert_eq!(t.validate(), Ok(()));
            }
        }
    }

    #[test]
    fn odd_configurations_never_panic() {
        let b = bytes(7, 4000);
        let rl = RlConfig {
            node_depth: 0,
            node_size: 0,
            max_children: 0,
            wide_children: 0,
            expr_depth: 0,
            max_args: 0,
            max_roots: 0,
            max_subtrees: 0,
            max_actions: 0,
            max_functions: 0,
            max_vars: 0,
        };
        let c = running_list_case(&mut Unstructured::new(&b), &rl).unwrap();
        runs(&c.tree, &c.scenario);
        let c = cursor_case(&mut Unstructured::new(&b), &rl).unwrap();
        runs(&c.tree, &c.scenario);
        let c = decider_case(&mut Unstructured::new(&b), &rl).unwrap();
        runs(&c.tree, &c.scenario);
        let any = GenConfig {
            node_depth: 0,
            node_size: 0,
            max_children: 0,
            expr_depth: 0,
            max_args: 0,
            max_imports: 0,
            max_vars: 0,
            max_timestamps: 0,
            max_signals: 0,
            max_roots: 0,
            max_subtrees: 0,
        };
        let t = tree(&mut Unstructured::new(&b), &any).unwrap();
        assert_eq!(t.validate(), Ok(()));
    }
}
