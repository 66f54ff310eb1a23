//! Lua snippets as script imports (`spec/mbt.md` section 3).
//!
//! Every snippet (`ExecuteLua@code`, `AssertLua@code`, `LuaGate@code`, `LuaWrapper@onEnter` and
//! `@onExit`) becomes a function import `lua_K` without arguments, carrying its source in
//! `Import::script` so the host compiles it once when it binds the import. `K` counts distinct
//! snippet texts from 0 in the order the front-end meets them, which is document order; a text
//! seen before reuses its import. This file never runs or inspects Lua.

use std::collections::HashMap;

use btvm::{Import, ImportId, ImportKind};

use crate::ir::{CallExpr, Expr, TreeBuilder};

/// The snippets met so far.
#[derive(Default)]
pub(super) struct Snippets {
    by_text: HashMap<String, ImportId>,
}

impl Snippets {
    /// The import for `code`, added to `tree` on first use.
    pub fn import(&mut self, tree: &mut TreeBuilder, code: &str) -> ImportId {
        if let Some(&id) = self.by_text.get(code) {
            return id;
        }
        let id = tree.import(Import {
            name: format!("lua_{}", self.by_text.len()),
            kind: ImportKind::Function,
            min_args: 0,
            max_args: 0,
            long_running: false,
            claims: btvm::SlotClaims::default(),
            script: Some(code.to_string()),
        });
        self.by_text.insert(code.to_string(), id);
        id
    }

    /// A call of the snippet `code`.
    pub fn call(&mut self, tree: &mut TreeBuilder, code: &str) -> CallExpr {
        CallExpr {
            import: self.import(tree, code),
            args: Vec::new(),
        }
    }

    /// The snippet `code` as an expression (its value).
    pub fn expr(&mut self, tree: &mut TreeBuilder, code: &str) -> Expr {
        Expr::Call(self.call(tree, code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Dialect;

    #[test]
    fn snippets_are_numbered_by_distinct_text() {
        let mut tree = TreeBuilder::new(Dialect::Mbt);
        tree.import(Import {
            name: "Move".into(),
            kind: ImportKind::Action,
            min_args: 0,
            max_args: 255,
            long_running: true,
            claims: btvm::SlotClaims::default(),
            script: None,
        });
        let mut s = Snippets::default();
        let a = s.import(&mut tree, "return 1");
        let b = s.import(&mut tree, "return 2");
        assert_eq!(s.import(&mut tree, "return 1"), a);
        assert_eq!((a, b), (ImportId(1), ImportId(2)));
        let names: Vec<_> = tree.imports().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["Move", "lua_0", "lua_1"]);
        assert_eq!(tree.imports()[2].script.as_deref(), Some("return 2"));
        assert_eq!(tree.imports()[1].kind, ImportKind::Function);
    }
}
