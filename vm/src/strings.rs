//! An append-only table of interned strings.

use crate::StrId;
use std::collections::HashMap;

/// Interned strings: string literals and symbols a tree passes to its host.
///
/// Engines pass [`Value::Str`](crate::Value::Str) ids to the host; the host resolves them with
/// [`Strings::get`]. Interning happens once, when a tree is prepared for an engine, never during
/// a tick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strings {
    items: Vec<Box<str>>,
    index: HashMap<Box<str>, StrId>,
}

impl Strings {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the id of `s`, adding it if it is new.
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StrId(u32::try_from(self.items.len()).unwrap_or(u32::MAX));
        self.items.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    /// Looks up an already interned string.
    pub fn lookup(&self, s: &str) -> Option<StrId> {
        self.index.get(s).copied()
    }

    /// The string with id `id`, or `""` for an id this table never issued.
    pub fn get(&self, id: StrId) -> &str {
        self.items.get(id.index()).map_or("", |s| s)
    }

    /// Number of strings in the table.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable() {
        let mut t = Strings::new();
        let a = t.intern("a");
        let b = t.intern("b");
        assert_ne!(a, b);
        assert_eq!(t.intern("a"), a);
        assert_eq!(t.get(b), "b");
        assert_eq!(t.get(StrId(99)), "");
        assert_eq!(t.lookup("c"), None);
        assert_eq!(t.len(), 2);
    }
}
