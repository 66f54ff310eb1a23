//! Node-level traces in tests (`spec/semantics.md` 4.7): what a traced trace must look like
//! whatever the tree, and the host-call trace inside it.
//!
//! Shared by the conformance runner (every case again with `trace nodes`: the host calls must
//! not change) and the equivalence suite (generated trees traced on every engine). It only
//! reads traces; it never runs an engine, prints or panics.

use btvm_compiler::ir::{Model, Tree};
use btvm_compiler::scenario::Trace;

/// How a model's node events nest (`spec/semantics.md` 4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nesting {
    /// Within each agent-tick: the running-list model walks from the root every tick, so
    /// every node entered is finished before the tick's root line.
    PerTick,
    /// Across ticks: the cursor model starts each step at the cursor's rule, so a list rule
    /// entered in one step finishes in a later one (or never, when a reset, a run-away or a
    /// restored cursor abandons it). Within a step, the nodes entered in it nest.
    AcrossTicks,
}

impl Nesting {
    /// How `tree`'s node events nest.
    pub fn of(tree: &Tree) -> Nesting {
        match tree.config.model {
            Model::Cursor { .. } => Nesting::AcrossTicks,
            _ => Nesting::PerTick,
        }
    }
}

/// Whether `line` is a node event (`node N KIND enter`, `node N KIND -> STATUS`).
pub fn is_node_line(line: &str) -> bool {
    line.starts_with("node ")
}

/// `trace` without its node events: what the untraced run must have written.
pub fn without_node_lines(trace: &Trace) -> Trace {
    let mut out = Trace::new();
    for l in trace.lines().iter().filter(|l| !is_node_line(l)) {
        out.push(l.clone());
    }
    out
}

/// Checks that `trace`'s node events nest like brackets within each agent-tick: every
/// `enter` is closed by a finish of the same node before its parent's finish, nothing is open
/// at a tick header, `root` or `entry` line, and the `root STATUS` (or `entry NAME STATUS`)
/// line repeats the status the outermost node last finished with. [`Nesting::AcrossTicks`]
/// checks only the brackets opened within each step: a finish with none open closes a node of
/// an earlier step, and a step that ends running (or in an error, a reset or an entry run,
/// which may run away) may leave nodes open. `Err` says where it breaks.
pub fn check_nesting(trace: &Trace, nesting: Nesting) -> Result<(), String> {
    let across = nesting == Nesting::AcrossTicks;
    let mut open: Vec<u32> = Vec::new();
    let mut last: Option<String> = None;
    for (i, line) in trace.lines().iter().enumerate() {
        let at = |m: String| format!("line {}: `{line}`: {m}", i + 1);
        if let Some(rest) = line.strip_prefix("node ") {
            let mut words = rest.split(' ');
            let id: u32 = words
                .next()
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| at("no node index".into()))?;
            let _kind = words.next();
            match (words.next(), words.next()) {
                (Some("enter"), None) => open.push(id),
                (Some("->"), Some(_)) if across && open.is_empty() => {}
                (Some("->"), Some(status)) => {
                    if open.pop() != Some(id) {
                        return Err(at(
                            "finishes a node that is not the innermost open one".into()
                        ));
                    }
                    if open.is_empty() {
                        last = Some(status.to_string());
                    }
                }
                _ => return Err(at("not a node event".into())),
            }
            continue;
        }
        if across {
            // An entry's step may end running or run away (its line shows only a status).
            let abandons = line.starts_with("tick ")
                || line == "reset"
                || line == "root running"
                || line.starts_with("error ")
                || line.starts_with("entry ");
            if abandons {
                open.clear();
            }
            if line.starts_with("root ") && !open.is_empty() {
                return Err(at(format!("nodes {open:?} are still open")));
            }
            continue;
        }
        let closing =
            line.starts_with("tick ") || line.starts_with("root ") || line.starts_with("entry ");
        if closing && !open.is_empty() {
            return Err(at(format!("nodes {open:?} are still open")));
        }
        let status = line.strip_prefix("root ").or_else(|| {
            line.strip_prefix("entry ")
                .and_then(|r| r.rsplit(' ').next())
        });
        if let Some(status) = status {
            if let Some(want) = last.take() {
                if status != want {
                    return Err(at(format!("the outermost node finished with {want}")));
                }
            }
        }
        if line.starts_with("tick ") {
            last = None;
        }
    }
    if open.is_empty() || across {
        Ok(())
    } else {
        Err(format!("the trace ends with nodes {open:?} open"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(text: &str) -> Trace {
        Trace::parse_expected(text)
    }

    #[test]
    fn nesting_is_checked() {
        let good =
            "tick 0 now 0\nnode 0 sequence enter\nnode 1 action enter\na() enter -> running\n\
                    node 1 action -> running\nnode 0 sequence -> running\nroot running\n";
        assert_eq!(check_nesting(&trace(good), Nesting::PerTick), Ok(()));
        assert_eq!(without_node_lines(&trace(good)).lines().len(), 3);
        for bad in [
            // crossed brackets
            "tick 0 now 0\nnode 0 s enter\nnode 1 a enter\nnode 0 s -> success\nnode 1 a -> success\nroot success\n",
            // open at the root line
            "tick 0 now 0\nnode 0 s enter\nroot success\n",
            // the root line disagrees with the outermost node
            "tick 0 now 0\nnode 0 s enter\nnode 0 s -> failure\nroot success\n",
            // open at the end
            "tick 0 now 0\nnode 0 s enter\n",
            // not an event
            "tick 0 now 0\nnode x s enter\n",
        ] {
            assert!(check_nesting(&trace(bad), Nesting::PerTick).is_err(), "{bad}");
        }
        // Across ticks: a list entered in tick 0 finishes in tick 1.
        let cursor = "tick 0 now 0\nnode 0 sequence enter\nnode 1 action enter\na() enter -> running\n\
                      node 1 action -> running\nroot running\ntick 1 now 100\nnode 1 action enter\n\
                      a() continue -> success\nnode 1 action -> success\nnode 0 sequence -> success\n\
                      root success\n";
        assert_eq!(check_nesting(&trace(cursor), Nesting::AcrossTicks), Ok(()));
        assert!(check_nesting(&trace(cursor), Nesting::PerTick).is_err());
        let crossed =
            "tick 0 now 0\nnode 0 s enter\nnode 1 a enter\nnode 0 s -> success\nroot success\n";
        assert!(check_nesting(&trace(crossed), Nesting::AcrossTicks).is_err());
    }
}
