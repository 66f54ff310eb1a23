//! What node and expression generators may refer to, and how abstract references are mapped
//! onto the tables of the assembled tree.

use btvm::{Import, ImportId, ImportKind, Status};

use btvm_compiler::ir::{Expr, Lit, NodeBuf, NodeKind, VarId};

/// What node and expression generators may refer to: the tables of the tree being generated.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Ids of the action imports.
    pub actions: Vec<ImportId>,
    /// Ids of the function imports.
    pub functions: Vec<ImportId>,
    /// Number of imports of either kind.
    pub imports: u32,
    /// Number of variables.
    pub vars: u32,
    /// Number of timestamps.
    pub timestamps: u32,
    /// Number of subtrees.
    pub subtrees: u32,
}

impl Scope {
    /// The scope of an import table and the sizes of the other tables.
    pub fn new(imports: &[Import], vars: usize, timestamps: usize, subtrees: usize) -> Scope {
        let of_kind = |k: ImportKind| {
            imports
                .iter()
                .enumerate()
                .filter(|(_, i)| i.kind == k)
                .map(|(n, _)| ImportId(n as u32))
                .collect()
        };
        Scope {
            actions: of_kind(ImportKind::Action),
            functions: of_kind(ImportKind::Function),
            imports: imports.len() as u32,
            vars: vars as u32,
            timestamps: timestamps as u32,
            subtrees: subtrees as u32,
        }
    }

    /// The scope bodies are drawn against before the tables exist: `actions` actions and
    /// `functions` functions (abstract ids `0..actions` and `0..functions`: they only say
    /// which action or function), `vars` variables and `subtrees` subtrees, no timestamps.
    /// [`Remap`] maps the references onto the real tables.
    pub(super) fn largest(actions: usize, functions: usize, vars: usize, subtrees: usize) -> Scope {
        let (a, f) = (actions as u32, functions as u32);
        Scope {
            actions: (0..a).map(ImportId).collect(),
            functions: (0..f).map(ImportId).collect(),
            imports: a.saturating_add(f),
            vars: vars as u32,
            timestamps: 0,
            subtrees: subtrees as u32,
        }
    }
}

/// Where the abstract references of bodies drawn against [`Scope::largest`] land in the
/// assembled tree: each reference is taken modulo the size of its real table.
pub(super) struct Remap {
    actions: Vec<ImportId>,
    functions: Vec<ImportId>,
    imports: u32,
    vars: u32,
}

impl Remap {
    /// Remaps onto the tables `scope` describes.
    pub(super) fn new(scope: Scope) -> Remap {
        Remap {
            actions: scope.actions,
            functions: scope.functions,
            imports: scope.imports,
            vars: scope.vars,
        }
    }

    /// The `k`-th of `ids` (modulo their count); `None` if there are none.
    fn nth(ids: &[ImportId], k: ImportId) -> Option<ImportId> {
        (!ids.is_empty()).then(|| ids[k.index() % ids.len()])
    }

    /// Remaps an expression. A call with no function to name becomes a literal, as does a
    /// variable with no variable or a bound import with no import.
    fn expr(&self, e: &mut Expr) {
        match e {
            Expr::Call(c) => match Self::nth(&self.functions, c.import) {
                Some(f) => {
                    c.import = f;
                    for a in &mut c.args {
                        self.expr(&mut a.value);
                    }
                }
                None => *e = Expr::Lit(Lit::Int(0)),
            },
            Expr::Bound(i) if self.imports == 0 => *e = Expr::Lit(Lit::Int(i64::from(i.0))),
            Expr::Bound(i) => *i = ImportId(i.0 % self.imports),
            Expr::Var(v) if self.vars == 0 => *e = Expr::Lit(Lit::Int(i64::from(v.0))),
            Expr::Var(v) => *v = VarId(v.0 % self.vars),
            Expr::Not(a) | Expr::Neg(a) => self.expr(a),
            Expr::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Lit(_) | Expr::Random | Expr::Timestamp(..) => {}
        }
    }

    /// Remaps a body whose `include` nodes may name the subtrees in `includes` (an include
    /// with nothing to name becomes a `const`, as does an action with no action to name).
    pub(super) fn node(&self, n: &mut NodeBuf, includes: &std::ops::Range<u32>) {
        match &mut n.kind {
            NodeKind::Action(c) => match Self::nth(&self.actions, c.import) {
                Some(a) => {
                    c.import = a;
                    for a in &mut c.args {
                        self.expr(&mut a.value);
                    }
                }
                None => n.kind = NodeKind::Const(Status::Success),
            },
            NodeKind::Condition(e) => self.expr(e),
            NodeKind::Guard(g) => self.expr(&mut g.cond),
            NodeKind::Sequence(c) | NodeKind::Selector(c) => {
                if let Some(e) = &mut c.cond {
                    self.expr(e);
                }
            }
            NodeKind::Include(s) if includes.is_empty() => {
                n.kind = NodeKind::Const(Status::ALL[s.0 as usize % 3]);
            }
            NodeKind::Include(s) => s.0 = includes.start + s.0 % includes.len() as u32,
            _ => {}
        }
        for c in &mut n.children {
            self.node(c, includes);
        }
    }
}
