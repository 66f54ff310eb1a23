//! Analyses of a checked [`Tree`](super::Tree) that more than one engine needs: the string
//! table every engine numbers strings by, the cursor model's rules, the running-list model's
//! node identities, what a decider runs.
//!
//! Both the reference interpreter and the lowering read these, so they agree by construction
//! (a host answering a string, a rule number in a trace, a running-list key). This module only
//! reads the IR: it must never depend on an engine (`reference`, `lower`), run anything, or
//! decide validity (that is `check`'s alone).

mod cursor_rules;
mod decider;
mod running_identity;
mod strings;

pub(crate) use cursor_rules::Rules;
pub(crate) use decider::decider_target;
pub(crate) use running_identity::identity;
pub(crate) use strings::intern_strings;
