//! The harness: its `check` lines (mutual exclusion, capacity, barrier,
//! invariants over global memory) and its body, which ends in `Exit`.

use super::resolve::Sym;
use super::Lowerer;
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, ExprKind};

impl<'a> Lowerer<'a> {
    pub(super) fn lower_harness(&mut self, h: &'a ast::Harness) -> SpecResult<Checks> {
        let mut checks = Checks::default();
        for c in &h.checks {
            match c {
                ast::Check::MutualExclusion(_) => {
                    checks.mutual_exclusion = true;
                    checks.capacity = Some(checks.capacity.map_or(1, |c: i64| c.min(1)));
                }
                ast::Check::Capacity(e, _) => {
                    let cap = self.const_env(None, "a capacity").eval(e)?;
                    checks.capacity = Some(checks.capacity.map_or(cap, |c| c.min(cap)));
                }
                ast::Check::Barrier(_) => checks.barrier = true,
                ast::Check::Invariant(e, span) => {
                    let inv = self.invariant_expr(e)?;
                    checks.invariants.push((inv, *span));
                }
            }
        }
        self.scopes.push();
        self.block(&h.body)?;
        self.scopes.pop();
        self.emit(Op::Exit, h.body.span);
        Ok(checks)
    }

    /// An invariant: an expression over global memory, parameters and
    /// constants, evaluated on whole states rather than by a thread.
    fn invariant_expr(&mut self, e: &'a ast::Expr) -> SpecResult<Expr> {
        let not_here = |span: Span, what: &str| {
            Err(
                Diagnostic::new(span, format!("{what} cannot appear in an invariant"))
                    .label("not a global value")
                    .hint("invariants read global variables, parameters and constants"),
            )
        };
        Ok(match &e.kind {
            ExprKind::Int(v) => Expr::Const(*v),
            ExprKind::Bool(b) => Expr::Const(*b as i64),
            ExprKind::Name(id) | ExprKind::Index(id, _) => {
                let index = match &e.kind {
                    ExprKind::Index(_, i) => Some(&**i),
                    _ => None,
                };
                match self.lookup(id)? {
                    Sym::Param(v) | Sym::Const(v) if index.is_none() => Expr::Const(v),
                    Sym::Mem(var) if self.vars[var as usize].storage == Storage::Global => {
                        let is_array = self.vars[var as usize].is_array;
                        if is_array != index.is_some() {
                            let needs = if is_array { "an" } else { "no" };
                            return Err(Diagnostic::new(
                                e.span,
                                format!("`{}` needs {needs} index", id.name),
                            )
                            .label("here"));
                        }
                        let index = match index {
                            Some(i) => Some(Box::new(self.invariant_expr(i)?)),
                            None => None,
                        };
                        Expr::Global(var, index)
                    }
                    _ => return not_here(id.span, &format!("`{}`", id.name)),
                }
            }
            ExprKind::Unary(op, a) => Expr::Unary(*op, Box::new(self.invariant_expr(a)?)),
            ExprKind::Binary(op, a, b) => Expr::Binary(
                *op,
                Box::new(self.invariant_expr(a)?),
                Box::new(self.invariant_expr(b)?),
            ),
            ExprKind::Ternary(c, a, b) => Expr::Ternary(
                Box::new(self.invariant_expr(c)?),
                Box::new(self.invariant_expr(a)?),
                Box::new(self.invariant_expr(b)?),
            ),
            ExprKind::Call { name, .. } => return not_here(name.span, "a call"),
        })
    }
}
