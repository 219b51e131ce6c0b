//! Expressions. IR expressions are pure and thread-local, so every memory
//! read and call inside one becomes an instruction before it, in
//! left-to-right order; `&&`, `||` and `?:` whose later operands read
//! memory become branches, so those reads happen only when C would make
//! them. Operators on constants fold.

use super::resolve::Sym;
use super::{sym_kind, Lowerer};
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, ExprKind};

impl<'a> Lowerer<'a> {
    /// An expression statement: only a call has an effect.
    pub(super) fn expr_stmt(&mut self, e: &'a ast::Expr) -> SpecResult<()> {
        match &e.kind {
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => {
                self.call(e, name, qualifiers, args, false)?;
                Ok(())
            }
            _ => Err(Diagnostic::new(e.span, "this expression has no effect")
                .label("value unused")
                .hint("assign it (`x = ...;`) or call a procedure")),
        }
    }

    /// Lowers an expression; loads and calls inside it become instructions
    /// before it, in left-to-right order.
    pub(super) fn expr(&mut self, e: &'a ast::Expr) -> SpecResult<Expr> {
        self.nested(e.span, |l| l.expr_kind(e))
    }

    fn expr_kind(&mut self, e: &'a ast::Expr) -> SpecResult<Expr> {
        Ok(match &e.kind {
            ExprKind::Int(v) => Expr::Const(*v),
            ExprKind::Bool(b) => Expr::Const(*b as i64),
            ExprKind::Name(id) => self.name_value(id, e.span)?,
            ExprKind::Index(id, index) => match self.lookup(id)? {
                Sym::Mem(var) => {
                    let loc = self.location(var, id, Some(index), e.span)?;
                    Expr::Local(self.plain_load(loc, e.span))
                }
                other => {
                    return Err(Diagnostic::new(
                        id.span,
                        format!("{} `{}` is not an array", sym_kind(other), id.name),
                    )
                    .label("indexed here"))
                }
            },
            ExprKind::Unary(op, a) => fold(Expr::Unary(*op, Box::new(self.expr(a)?))),
            ExprKind::Binary(op @ (ast::BinOp::And | ast::BinOp::Or), a, b)
                if self.has_effects(b) =>
            {
                self.short_circuit(*op, a, b)?
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                fold(Expr::Binary(*op, Box::new(a), Box::new(b)))
            }
            ExprKind::Ternary(c, a, b) if self.has_effects(a) || self.has_effects(b) => {
                self.ternary_effects(c, a, b)?
            }
            ExprKind::Ternary(c, a, b) => {
                let c = self.expr(c)?;
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                fold(Expr::Ternary(Box::new(c), Box::new(a), Box::new(b)))
            }
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => self.call(e, name, qualifiers, args, true)?.ok_or_else(|| {
                Diagnostic::new(e.span, format!("`{}` returns no value", name.name))
                    .label("used as a value")
            })?,
        })
    }

    /// The value of a name: a constant, a local, or a load of a variable.
    fn name_value(&mut self, id: &'a ast::Ident, span: Span) -> SpecResult<Expr> {
        Ok(match self.lookup(id)? {
            Sym::Param(v) | Sym::Const(v) => Expr::Const(v),
            Sym::Builtin(b) => Expr::Builtin(b),
            Sym::Local(l) => Expr::Local(l),
            Sym::Mem(var) => {
                let loc = self.location(var, id, None, span)?;
                Expr::Local(self.plain_load(loc, span))
            }
            Sym::Fn(_) => {
                return Err(
                    Diagnostic::new(id.span, format!("`{}` is a procedure", id.name))
                        .label("not a value")
                        .hint(format!("call it: `{}()`", id.name)),
                )
            }
        })
    }

    /// `a && b` / `a || b` where `b` reads memory: `b` runs only if needed.
    fn short_circuit(
        &mut self,
        op: ast::BinOp,
        a: &'a ast::Expr,
        b: &'a ast::Expr,
    ) -> SpecResult<Expr> {
        let result = self.temp(Type::Bool);
        self.assign_from(result, a)?;
        let test = match op {
            ast::BinOp::And => Expr::Local(result),
            _ => Expr::Unary(ast::UnOp::Not, Box::new(Expr::Local(result))),
        };
        let branch = self.branch_forward(test, a.span);
        let b_val = self.expr(b)?;
        self.emit(
            Op::Assign {
                dst: result,
                value: Expr::Binary(ast::BinOp::Ne, Box::new(b_val), Box::new(Expr::Const(0))),
            },
            b.span,
        );
        self.patch_here(branch);
        Ok(Expr::Local(result))
    }

    /// `c ? a : b` where `a` or `b` reads memory: only the chosen side runs.
    fn ternary_effects(
        &mut self,
        c: &'a ast::Expr,
        a: &'a ast::Expr,
        b: &'a ast::Expr,
    ) -> SpecResult<Expr> {
        let result = self.temp(Type::I32);
        let cond = self.expr(c)?;
        let branch = self.branch_forward(cond, c.span);
        self.assign_from(result, a)?;
        let skip = self.jump_forward(a.span);
        self.patch_here(branch);
        self.assign_from(result, b)?;
        self.patch_here(skip);
        Ok(Expr::Local(result))
    }

    /// `dst = e`, at `e`'s span.
    fn assign_from(&mut self, dst: LocalId, e: &'a ast::Expr) -> SpecResult<()> {
        let value = self.expr(e)?;
        self.emit(Op::Assign { dst, value }, e.span);
        Ok(())
    }

    /// Whether evaluating `e` reads memory or calls something.
    fn has_effects(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) => false,
            ExprKind::Name(id) => matches!(
                self.scopes.lookup(&id.name, &self.launch),
                Some(Sym::Mem(_))
            ),
            ExprKind::Index(..) | ExprKind::Call { .. } => true,
            ExprKind::Unary(_, a) => self.has_effects(a),
            ExprKind::Binary(_, a, b) => self.has_effects(a) || self.has_effects(b),
            ExprKind::Ternary(c, a, b) => {
                self.has_effects(c) || self.has_effects(a) || self.has_effects(b)
            }
        }
    }
}

/// Folds an operator applied to constants (parameters are constants), so
/// e.g. `iters == 0 || i < iters` with `iters = 0` no longer reads `i`, and
/// `i` becomes dead instead of counting forever. `||`/`&&` fold when the
/// left side decides.
fn fold(e: Expr) -> Expr {
    use ast::BinOp::{And, Or};
    match e {
        Expr::Unary(op, a) => match *a {
            Expr::Const(x) => Expr::Const(eval_unary(op, x)),
            a => Expr::Unary(op, Box::new(a)),
        },
        Expr::Binary(op, a, b) => match (op, &*a, &*b) {
            (Or, Expr::Const(x), _) if *x != 0 => Expr::Const(1),
            (And, Expr::Const(0), _) => Expr::Const(0),
            (_, Expr::Const(x), Expr::Const(y)) => match eval_binary(op, *x, *y) {
                Ok(v) => Expr::Const(v),
                Err(_) => Expr::Binary(op, a, b), // no value: reported when run
            },
            _ => Expr::Binary(op, a, b),
        },
        Expr::Ternary(c, a, b) => match *c {
            Expr::Const(x) => {
                if x != 0 {
                    *a
                } else {
                    *b
                }
            }
            c => Expr::Ternary(Box::new(c), a, b),
        },
        other => other,
    }
}
