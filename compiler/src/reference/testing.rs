//! Helpers for the reference interpreter's unit tests: run a canonical-syntax tree through a
//! scenario and compare the trace with one worked out by hand.

use btvm::{Call, Host, Status, Value};

use crate::scenario::{parse_scenario, run, EngineKind, Trace};
use crate::source::FileId;

/// The reference trace of canonical-syntax `tree` under scenario text `scenario`.
pub(crate) fn run_text(tree: &str, scenario: &str) -> Trace {
    let tree = crate::syntax::canonical::parse(FileId(0), tree, &btvm::Limits::default())
        .unwrap_or_else(|d| panic!("the test tree does not parse: {d:?}"));
    let scn = parse_scenario(FileId(1), scenario)
        .unwrap_or_else(|d| panic!("the test scenario does not parse: {d:?}"));
    run(&tree, &scn, EngineKind::Reference).unwrap_or_else(|d| panic!("{d:?}"))
}

/// Asserts that `tree` under `scenario` gives the trace `want` (layout and `#` comments
/// ignored, as in case files).
pub(crate) fn expect(tree: &str, scenario: &str, want: &str) {
    let actual = run_text(tree, scenario);
    if let Some(diff) = Trace::parse_expected(want).diff(&actual) {
        panic!("{diff}\nfull actual trace:\n{actual}");
    }
}

/// A host whose actions succeed and whose functions answer `false`, recording nothing.
pub(crate) struct NullHost;

impl Host for NullHost {
    fn action(&mut self, _: &Call<'_>) -> Status {
        Status::Success
    }

    fn function(&mut self, _: &Call<'_>) -> Value {
        Value::Bool(false)
    }
}
