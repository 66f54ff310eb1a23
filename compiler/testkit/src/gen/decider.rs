//! Trees of the Spore decider model that every engine runs: a root decider over nested groups
//! of every policy, with every precondition, Decide expressions, the `redecide` flag, group
//! behaviors, behaviors lacking some of their functions, and shared deciders (subtrees
//! included from several groups).

use arbitrary::{Result, Unstructured};
use btvm::{Import, ImportId, ImportKind};

use super::any_tree::behavior_ref;
use super::draw::{maybe, pick, range, repeat, weighted, Levels};
use super::running_list::{rl_expr, RlConfig};
use super::scope::Scope;
use super::text::{import_name, make_unique};
use btvm_compiler::ir::{
    Decider, Dialect, FlagTest, Group, Model, NodeBuf, NodeKind, Policy, Precondition, Sharing,
    SubtreeId, Tree, TreeBuilder, TreeConfig,
};
use btvm_compiler::source::Span;

const POLICIES: [Policy; 4] = [
    Policy::Prioritized,
    Policy::Sequential,
    Policy::Random,
    Policy::Scored,
];

/// What the generator of one tree knows.
struct Ctx<'a> {
    scope: &'a Scope,
    cfg: &'a RlConfig,
    levels: Levels,
    /// Shared deciders a group at this point may include (subtrees `from..count`).
    shared: std::ops::Range<u32>,
}

/// A flag test over the low `bits` bits (mask 0 now and then).
fn flag_test(u: &mut Unstructured<'_>, bits: u32) -> Result<FlagTest> {
    let mask = if bits == 0 {
        0
    } else {
        u.arbitrary::<u32>()? & ((1u64 << bits) - 1) as u32
    };
    Ok(FlagTest {
        mask,
        all: u.arbitrary()?,
        set: u.arbitrary()?,
    })
}

/// A decider: preconditions (each 1 in 4), a Decide expression (3 in 5; often a comparison so
/// it both accepts and rejects), the `redecide` flag (1 in 4), over a group (when the level
/// branches) or a behavior.
fn decider(u: &mut Unstructured<'_>, cx: &Ctx<'_>, level: u32, name: usize) -> Result<NodeBuf> {
    let pre = Precondition {
        every_ms: maybe(u, 1, 4, |u| range(u, 0, 450))?,
        decision: maybe(u, 1, 4, |u| flag_test(u, 4))?,
        stimuli: maybe(u, 1, 4, |u| flag_test(u, 3))?,
    };
    let decide = maybe(u, 3, 5, |u| rl_expr(u, cx.scope, cx.cfg))?;
    let d = Decider {
        pre,
        decide,
        decide_on_redecide: weighted(u, &[3, 1])? == 1,
    };
    let target = match cx.levels.branch(u, level)? {
        Some(l) => group(u, cx, l + 1)?,
        None => {
            let import = pick(u, &cx.scope.actions)?;
            NodeBuf::new(
                NodeKind::Behavior(behavior_ref(u, import)?),
                Span::DUMMY,
                Vec::new(),
            )
        }
    };
    let mut n = NodeBuf::new(NodeKind::Decider(d), Span::DUMMY, vec![target]);
    n.name = Some(format!("D{name}"));
    Ok(n)
}

/// A group of any policy with an optional group behavior (1 in 3) and 0 to `max_children`
/// children, a fifth of them includes of shared deciders when there are any.
fn group(u: &mut Unstructured<'_>, cx: &Ctx<'_>, level: u32) -> Result<NodeBuf> {
    let policy = pick(u, &POLICIES)?;
    let behavior = match maybe(u, 1, 3, |u| pick(u, &cx.scope.actions))? {
        Some(i) => Some(behavior_ref(u, i)?),
        None => None,
    };
    let children = repeat(u, 0, cx.cfg.max_children, |u| {
        if !cx.shared.is_empty() && weighted(u, &[4, 1])? == 1 {
            let s = range(u, cx.shared.start, cx.shared.end - 1)?;
            return Ok(NodeBuf::new(
                NodeKind::Include(SubtreeId(s)),
                Span::DUMMY,
                Vec::new(),
            ));
        }
        let name = range(u, 0, 99usize)?;
        decider(u, cx, level, name)
    })?;
    Ok(NodeBuf::new(
        NodeKind::Group(Group { policy, behavior }),
        Span::DUMMY,
        children,
    ))
}

/// A decider-model tree: 1 to `max_actions` behaviors (actions), 0 to `max_functions`
/// functions of 0 to `max_args` arguments, 0 to 4 decision flags and 0 to 3 stimuli, 0 to 2
/// shared deciders (each may include only later ones, so there are no cycles), and a root
/// decider over a group. The redecide limit is 0 to 8 half the time (so the loop guard trips),
/// else 32. Every engine accepts them.
pub fn decider_tree(u: &mut Unstructured<'_>, cfg: &RlConfig) -> Result<Tree> {
    let actions = make_unique(repeat(u, 1, cfg.max_actions.max(1), import_name)?);
    let functions = make_unique(repeat(u, 0, cfg.max_functions, import_name)?);
    let flags = range(u, 0, 4u32)?;
    let stimuli = range(u, 0, 3u32)?;
    let shared = range(u, 0, 2u32)?;
    let redecide_limit = match weighted(u, &[1, 1])? {
        0 => range(u, 0, 8)?,
        _ => 32,
    };
    let imports: Vec<Import> = actions
        .into_iter()
        .map(|name| Import {
            name,
            kind: ImportKind::Action,
            min_args: 0,
            max_args: 0,
            long_running: true,
            claims: btvm::SlotClaims::default(),
            script: None,
        })
        .chain(functions.into_iter().map(|name| Import {
            name,
            kind: ImportKind::Function,
            min_args: 0,
            max_args: cfg.max_args.min(255) as u8,
            long_running: false,
            claims: btvm::SlotClaims::default(),
            script: None,
        }))
        .collect();
    // No variables and no imports for `@bound`: the decider model has neither.
    let scope = Scope {
        actions: (0..imports.len() as u32)
            .filter(|&i| imports[i as usize].kind == ImportKind::Action)
            .map(ImportId)
            .collect(),
        functions: (0..imports.len() as u32)
            .filter(|&i| imports[i as usize].kind == ImportKind::Function)
            .map(ImportId)
            .collect(),
        ..Scope::default()
    };
    let levels = || Levels::new(cfg.node_depth.min(6), cfg.node_size, 3);
    let mut b = TreeBuilder::new(Dialect::Spore);
    b.config(TreeConfig {
        model: Model::Decider { redecide_limit },
        ..TreeConfig::for_dialect(Dialect::Spore)
    });
    for i in imports {
        b.import(i);
    }
    for k in 0..flags {
        b.flag(format!("f{k}"));
    }
    for k in 0..stimuli {
        b.stimulus(format!("s{k}"));
    }
    let root_cx = Ctx {
        scope: &scope,
        cfg,
        levels: levels(),
        shared: 0..shared,
    };
    let mut root = decider(u, &root_cx, 0, 0)?;
    root.name = Some("ROOT".into());
    if !matches!(root.children[0].kind, NodeKind::Group(_)) {
        let g = group(u, &root_cx, 1)?;
        root.children[0] = g;
    }
    b.root("main", root);
    for s in 0..shared {
        let cx = Ctx {
            scope: &scope,
            cfg,
            levels: levels(),
            shared: s + 1..shared,
        };
        let body = decider(u, &cx, 1, 100 + s as usize)?;
        let id = b.declare_subtree(format!("S{s}"), Sharing::Shared, Span::DUMMY);
        b.define_subtree(id, body);
    }
    b.finish().map_err(|_| arbitrary::Error::IncorrectFormat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_a_small_valid_tree() {
        let tree = decider_tree(&mut Unstructured::new(&[]), &RlConfig::default()).unwrap();
        assert_eq!(tree.validate(), Ok(()));
        btvm_compiler::reference::Interpreter::new(&tree).unwrap();
    }

    #[test]
    fn any_bytes_give_a_tree_the_reference_runs() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in [1, 16, 200, 2000] {
            for _ in 0..30 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state as u8
                    })
                    .collect();
                let mut u = Unstructured::new(&bytes);
                let tree = decider_tree(&mut u, &RlConfig::default()).unwrap();
                assert_eq!(tree.validate(), Ok(()));
                let spec = super::super::scenario_spec(&mut u, tree.imports.len()).unwrap();
                let text = spec.render(&tree);
                let scn = btvm_compiler::scenario::parse_scenario(
                    btvm_compiler::source::FileId(0),
                    &text,
                )
                .unwrap_or_else(|d| panic!("{d:?}\n{text}"));
                let run = btvm_compiler::scenario::run(
                    &tree,
                    &scn,
                    btvm_compiler::scenario::EngineKind::Reference,
                );
                if let Err(d) = run {
                    panic!("{d:?}");
                }
            }
        }
    }
}
