//! Which deciders are shared, and the checks on the graph they form: a decider referenced by
//! name or defined in a named `children` array is shared (one subtree, every use an include);
//! a top-level `decider` or a `children` array nothing uses is an error; a shared decider that
//! reaches itself through the groups below it is an `IncludeCycle`.

use std::collections::HashMap;

use chumsky::span::SimpleSpan;

use super::ast::{Children, Def, Entry, Target};
use super::index::{Index, Site};
use super::resolve::Resolution;
use crate::diag::ErrorKind;
use crate::ir::SubtreeId;

/// The shared deciders: each one's subtree id (in source order of the definitions) and
/// definition.
pub(super) struct Shared<'a> {
    /// Subtree ids by decider name.
    pub ids: HashMap<&'a str, SubtreeId>,
    /// The shared definitions, in subtree order.
    pub defs: Vec<&'a Def>,
}

/// Decides which deciders are shared and reports unused items and cycles.
pub(super) fn shared<'a>(ix: &mut Index<'a>, res: &Resolution) -> Shared<'a> {
    let mut out = Shared {
        ids: HashMap::new(),
        defs: Vec::new(),
    };
    for def in ix.order.clone() {
        let name = def.name.0.as_str();
        // Only the definition the index kept (not a duplicate) counts.
        let Some(&(kept, site)) = ix.deciders.get(name) else {
            continue;
        };
        if !std::ptr::eq(kept, def) {
            continue;
        }
        let refs = res.refs.get(name).copied().unwrap_or(0);
        if site == Site::TopLevel && refs == 0 {
            ix.error(
                ErrorKind::InvalidValue,
                def.name.1,
                format!("decider `{name}` is never used: refer to it as `{name};` in a group"),
            );
        }
        if site != Site::Root && (refs > 0 || site == Site::Array) {
            let id = SubtreeId(u32::try_from(out.defs.len()).unwrap_or(u32::MAX));
            out.ids.insert(name, id);
            out.defs.push(def);
        }
    }
    let mut unused: Vec<(String, SimpleSpan)> = ix
        .arrays
        .iter()
        .filter(|(name, _)| !res.array_uses.contains_key(**name))
        .map(|(name, (n, _))| (name.to_string(), n.1))
        .collect();
    unused.sort_by_key(|(_, s)| s.start);
    for (name, s) in unused {
        ix.error(
            ErrorKind::InvalidValue,
            s,
            format!("children array `{name}` is never used: name it after a policy, `=> prioritized {name}`"),
        );
    }
    cycles(ix, &out);
    out
}

/// The shared deciders `def`'s node includes directly, with the span of each use.
fn includes<'a>(ix: &Index<'a>, sh: &Shared<'a>, def: &'a Def, out: &mut Vec<(usize, SimpleSpan)>) {
    let mut stack: Vec<&'a Def> = vec![def];
    while let Some(d) = stack.pop() {
        let Target::Group { children, .. } = &d.target else {
            continue;
        };
        let entries: &[Entry] = match children {
            Children::Inline(e) => e,
            Children::Named((name, _)) => match ix.arrays.get(name.as_str()) {
                Some((_, e)) => e,
                None => continue,
            },
        };
        for e in entries {
            let (name, span) = match e {
                Entry::Ref((n, s)) => (n.as_str(), *s),
                Entry::Def(c) => (c.name.0.as_str(), c.span),
            };
            match sh.ids.get(name) {
                Some(id) => out.push((id.0 as usize, span)),
                None => {
                    if let Entry::Def(c) = e {
                        stack.push(c);
                    }
                }
            }
        }
    }
}

/// Reports the first cycle among the shared deciders (iteratively: chains may be long).
fn cycles<'a>(ix: &mut Index<'a>, sh: &Shared<'a>) {
    let edges: Vec<Vec<(usize, SimpleSpan)>> = sh
        .defs
        .iter()
        .map(|d| {
            let mut out = Vec::new();
            includes(ix, sh, d, &mut out);
            out
        })
        .collect();
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; edges.len()];
    for start in 0..edges.len() {
        if state[start] != 0 {
            continue;
        }
        state[start] = 1;
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(&mut (s, ref mut next)) = stack.last_mut() {
            let Some(&(t, span)) = edges[s].get(*next) else {
                state[s] = 2;
                stack.pop();
                continue;
            };
            *next += 1;
            match state[t] {
                0 => {
                    state[t] = 1;
                    stack.push((t, 0));
                }
                1 => {
                    let chain: Vec<&str> = stack
                        .iter()
                        .map(|&(i, _)| sh.defs[i].name.0.as_str())
                        .skip_while(|&n| n != sh.defs[t].name.0)
                        .collect();
                    let name = &sh.defs[t].name.0;
                    ix.error(
                        ErrorKind::IncludeCycle,
                        span,
                        format!(
                            "decider `{name}` contains itself: {} -> {name}",
                            chain.join(" -> ")
                        ),
                    );
                    return;
                }
                _ => {}
            }
        }
    }
}
