//! The Unvanquished dialect's decorators (`invert`, `mapStatus`, `return`, `timer`) and the
//! host action of `spawnAs`: nodes of the dialect itself, each with its own meaning in the
//! parser, so they are code, not profile data (a game's actions, functions and symbols are in
//! its profile: `syntax::profile`, `compiler/profiles/unvanquished.toml`).
//!
//! Decorator names are matched case-insensitively, as the game does. This file only holds
//! data and lookups: it never parses and never builds nodes.

use btvm::{Import, ImportKind, SlotClaims};

/// Which decorator a [`DecoratorDef`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecoratorKind {
    /// `invert()`: swaps success and failure.
    Invert,
    /// `mapStatus(onFailure, onSuccess, onRunning)`.
    MapStatus,
    /// `return(status)`: runs the child, returns the constant.
    Return,
    /// `timer(ms)`: a cooldown armed when the child fails.
    Timer,
}

/// A decorator of the game's decorator table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoratorDef {
    /// The game's spelling.
    pub name: &'static str,
    /// Which decorator.
    pub kind: DecoratorKind,
    /// Fewest parameters.
    pub min_args: u8,
    /// Most parameters.
    pub max_args: u8,
}

/// The decorator table.
pub const DECORATORS: &[DecoratorDef] = &[
    DecoratorDef {
        name: "invert",
        kind: DecoratorKind::Invert,
        min_args: 0,
        max_args: 0,
    },
    DecoratorDef {
        name: "mapStatus",
        kind: DecoratorKind::MapStatus,
        min_args: 3,
        max_args: 3,
    },
    DecoratorDef {
        name: "return",
        kind: DecoratorKind::Return,
        min_args: 1,
        max_args: 1,
    },
    DecoratorDef {
        name: "timer",
        kind: DecoratorKind::Timer,
        min_args: 1,
        max_args: 1,
    },
];

/// The decorator called `name` (case-insensitive).
pub fn decorator(name: &str) -> Option<&'static DecoratorDef> {
    DECORATORS
        .iter()
        .find(|d| d.name.eq_ignore_ascii_case(name))
}

/// The host action a `spawnAs N` node calls: `spawnAs(N)`.
pub fn spawn_as() -> Import {
    Import {
        name: "spawnAs".to_string(),
        kind: ImportKind::Action,
        min_args: 1,
        max_args: 1,
        long_running: false,
        claims: SlotClaims::NONE,
        script: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_case_insensitive_and_keep_the_game_spelling() {
        let d = decorator("MAPSTATUS").unwrap();
        assert_eq!((d.name, d.kind), ("mapStatus", DecoratorKind::MapStatus));
        assert!(decorator("repeat").is_none());
        let names: Vec<&str> = DECORATORS.iter().map(|d| d.name).collect();
        assert!(names
            .windows(2)
            .all(|w| w[0].to_ascii_lowercase() < w[1].to_ascii_lowercase()));
    }
}
