//! Game profiles: which game's extra vocabulary a front-end accepts on top of its dialect's own
//! nodes.
//!
//! This is a leaf: it only names the profiles. What a profile adds is decided by the front-end
//! it applies to (MBT's GameSDK nodes live in `syntax::mbt`); this module never reads files
//! or parses.

/// A game profile: the extra vocabulary a game registers on top of a dialect's own nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// CRYENGINE's GameSDK: its AI, CryAction and game nodes become host actions in MBT trees,
    /// and the MBT loader is as lenient as CRYENGINE's (`spec/mbt.md` section 1.4).
    GameSdk,
}

impl Profile {
    /// Every profile's name, as `--profile` takes it.
    pub const NAMES: [&'static str; 1] = ["gamesdk"];

    /// The profile called `name`.
    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "gamesdk" => Some(Profile::GameSdk),
            _ => None,
        }
    }

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::GameSdk => "gamesdk",
        }
    }
}
