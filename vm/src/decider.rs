//! The decider model's (Spore's) per-agent inputs and a read-only view of its state.
//!
//! The host gives a decider-model agent two inputs between ticks: its DecisionFlags word and its
//! stimuli (tokens with a timeout and an integer of data). Every engine keeps them in the
//! agent's state, so they travel with it (snapshots, engine switches). [`DeciderView`] is what
//! debugging tools read back: the active path and the inputs, the same for every engine.
//!
//! This module only defines the vocabulary; the compiled engines store it in the state block
//! (`Program::set_decision_flags`, `Program::add_stimulus`, `Program::decider_view`), the
//! reference interpreter in its `AgentState`. Semantics: `spec/spore.md`.

use crate::Millis;

/// The most decision flags and the most stimuli a tree may declare (one bit each of a `u32`).
pub const MAX_FLAG_BITS: u32 = 32;

/// The most children a decider-model group may have.
pub const MAX_GROUP_CHILDREN: usize = 64;

/// A present stimulus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stimulus {
    /// When it expires: it is removed at the start of the first tick with `now >= expires`.
    /// `None` never expires.
    pub expires: Option<Millis>,
    /// The data the host attached.
    pub data: i64,
}

impl Stimulus {
    /// A stimulus added at `now` that lasts `timeout` ms (`None`: until removed).
    pub fn new(now: Millis, timeout: Option<Millis>, data: i64) -> Stimulus {
        Stimulus {
            expires: timeout.map(|t| now.saturating_add(t)),
            data,
        }
    }

    /// Whether it has expired at `now`.
    pub fn expired(&self, now: Millis) -> bool {
        self.expires.is_some_and(|e| e <= now)
    }
}

/// One group of a decider tree as an agent's state holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupView {
    /// The active child's index, if the group has one.
    pub active: Option<u32>,
    /// When that child was chosen (meaningless without one).
    pub since: Millis,
}

/// A decider-model agent's state, engine-independent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeciderView {
    /// When the root decider became active, if it is.
    pub root_since: Option<Millis>,
    /// Every group of the tree, in the IR's arena order of `group` nodes.
    pub groups: Vec<GroupView>,
    /// The DecisionFlags word.
    pub decision_flags: u32,
    /// Each declared stimulus, present or not.
    pub stimuli: Vec<Option<Stimulus>>,
}

/// A flag test (`spec/spore.md` 2.3) of `word` against `mask`: `all` bits or any bit, `set` or
/// clear.
pub fn flag_test(word: u32, mask: u32, all: bool, set: bool) -> bool {
    let hit = word & mask;
    match (all, set) {
        (true, true) => hit == mask,
        (false, true) => hit != 0,
        (true, false) => hit == 0,
        (false, false) => hit != mask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_tests_follow_the_four_forms() {
        let m = 0b0110;
        assert!(flag_test(0b0110, m, true, true));
        assert!(!flag_test(0b0100, m, true, true));
        assert!(flag_test(0b0100, m, false, true));
        assert!(!flag_test(0b1001, m, false, true));
        assert!(flag_test(0b1001, m, true, false));
        assert!(!flag_test(0b0010, m, true, false));
        assert!(flag_test(0b0010, m, false, false));
        assert!(!flag_test(0b0110, m, false, false));
        // An empty mask: `all` and `none` hold, `any` and `notall` do not.
        assert!(flag_test(7, 0, true, true) && flag_test(7, 0, true, false));
        assert!(!flag_test(7, 0, false, true) && !flag_test(7, 0, false, false));
    }

    #[test]
    fn stimuli_expire_at_their_time_and_saturate() {
        let s = Stimulus::new(100, Some(50), 7);
        assert!(!s.expired(149));
        assert!(s.expired(150));
        assert!(!Stimulus::new(0, None, 0).expired(Millis::MAX));
        assert_eq!(
            Stimulus::new(Millis::MAX - 1, Some(10), 0).expires,
            Some(Millis::MAX)
        );
    }
}
