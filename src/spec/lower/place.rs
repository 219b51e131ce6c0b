//! Names and memory locations: what a name means here, what an
//! assignment writes, and the location (variable and index) and plain
//! ordering of a memory access.

use super::resolve::{Sym, RESERVED};
use super::{sym_kind, Lowerer};
use crate::diag::suggest;
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, ExprKind};

/// What an assignment writes.
pub(super) enum Target {
    Local(LocalId),
    Mem(Loc),
}

impl<'a> Lowerer<'a> {
    pub(super) fn lookup(&self, name: &ast::Ident) -> SpecResult<Sym> {
        self.scopes.lookup(&name.name, &self.launch).ok_or_else(|| {
            let mut d = Diagnostic::new(name.span, format!("unknown name `{}`", name.name)).label("not declared");
            let candidates = self.scopes.block_names().chain(self.scopes.top_names()).chain(RESERVED.iter().copied());
            if let Some(s) = suggest(&name.name, candidates) {
                d = d.hint(format!("did you mean `{s}`?"));
            } else {
                d = d.hint("declare it: `u32 x = 0;` (thread-local) or `global u32 x = 0;` at the top level");
            }
            d
        })
    }

    pub(super) fn place(&mut self, place: &'a ast::Place) -> SpecResult<Target> {
        let sym = self.lookup(&place.name)?;
        match sym {
            Sym::Local(id) => {
                if let Some(index) = &place.index {
                    return Err(not_an_array(&place.name, index.span));
                }
                Ok(Target::Local(id))
            }
            Sym::Mem(var) => Ok(Target::Mem(self.location(
                var,
                &place.name,
                place.index.as_deref(),
                place.span,
            )?)),
            other => Err(Diagnostic::new(
                place.name.span,
                format!("cannot assign to {} `{}`", sym_kind(other), place.name.name),
            )
            .label("not assignable")),
        }
    }

    /// `var` or `var[index]`, checked against the variable's shape.
    pub(super) fn location(
        &mut self,
        var: VarId,
        name: &ast::Ident,
        index: Option<&'a ast::Expr>,
        span: Span,
    ) -> SpecResult<Loc> {
        let is_array = self.vars[var as usize].is_array;
        match (is_array, index) {
            (true, Some(i)) => Ok(Loc {
                var,
                index: Some(self.expr(i)?),
            }),
            (false, None) => Ok(Loc { var, index: None }),
            (true, None) => Err(
                Diagnostic::new(span, format!("`{}` is an array", name.name))
                    .label("needs an index")
                    .hint(format!("write `{}[i]`", name.name)),
            ),
            (false, Some(i)) => Err(not_an_array(name, i.span)),
        }
    }

    /// The location argument of a memory operation.
    pub(super) fn mem_arg(&mut self, arg: &'a ast::Expr, op: &ast::Ident) -> SpecResult<Loc> {
        let (id, index) = match &arg.kind {
            ExprKind::Name(id) => (id, None),
            ExprKind::Index(id, i) => (id, Some(&**i)),
            _ => {
                return Err(Diagnostic::new(
                    arg.span,
                    format!(
                        "the first argument of `{}` must be a memory location",
                        op.name
                    ),
                )
                .label("not a variable")
                .hint("name a global or shared variable, e.g. `lock` or `flags[i]`"))
            }
        };
        match self.lookup(id)? {
            Sym::Mem(var) => self.location(var, id, index, arg.span),
            other => Err(Diagnostic::new(
                id.span,
                format!(
                    "`{}` operates on global or shared memory, but `{}` is {}",
                    op.name,
                    id.name,
                    sym_kind(other)
                ),
            )
            .label("not in memory")
            .hint("declare it `global` or `shared` at the top level")),
        }
    }

    /// A plain access to `loc`: volatile if its variable is, at the scope
    /// of its memory.
    pub(super) fn plain_access(&self, loc: Loc) -> MemAccess {
        let v = &self.vars[loc.var as usize];
        let order = if v.volatile {
            Order::Volatile
        } else {
            Order::Weak
        };
        let scope = if v.storage == Storage::Shared {
            Scope::Cta
        } else {
            Scope::Gpu
        };
        MemOrder::new(order, scope).at(loc)
    }

    /// A plain (or volatile) load of `loc` into a fresh temporary.
    pub(super) fn plain_load(&mut self, loc: Loc, span: Span) -> LocalId {
        let access = self.plain_access(loc);
        self.load_into_temp(access, span)
    }

    /// Loads `loc` into a fresh temporary of its variable's type.
    pub(super) fn load_into_temp(&mut self, access: MemAccess, span: Span) -> LocalId {
        let dst = self.temp(self.vars[access.loc.var as usize].ty);
        self.emit(Op::Load { dst, access }, span);
        dst
    }
}

fn not_an_array(name: &ast::Ident, index: Span) -> Diagnostic {
    Diagnostic::new(index, format!("`{}` is not an array", name.name)).label("indexed here")
}
