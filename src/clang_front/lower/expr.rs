//! Values: the spec expression for a C expression, with the statements
//! its evaluation needs first (assignments, calls, the side of `&&`, `||`
//! or `?:` that may not run) appended to `pre`, and C's wrap-around and
//! conversions made explicit.

use super::float::is_float;
use super::syntax::{bin, block, int, name, set, stmt, un};
use super::types::{arith, convert, spec_type, wrap};
use super::{Binding, FnLower, NULL_OFFSET, R};
use crate::clang_front::ast::*;
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, BinOp, Span, Type, UnOp};

impl<'p> FnLower<'_, 'p> {
    /// A condition: the value of `e` (C converts it to bool already).
    pub(super) fn cond(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        self.rvalue(e, pre)
    }

    /// The value of `e` converted to `ty`.
    pub(in crate::clang_front) fn rvalue_as(
        &mut self,
        e: &'p CExpr,
        ty: &CType,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let v = self.rvalue(e, pre)?;
        Ok(convert(v, &e.ty, ty))
    }

    /// The value of `e`, in the range of its type; statements its
    /// evaluation needs first go to `pre`.
    pub(in crate::clang_front) fn rvalue(
        &mut self,
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let span = e.span;
        Ok(match &e.kind {
            CExprKind::Int(v) => int(*v, span),
            CExprKind::Null => int(NULL_OFFSET, span),
            CExprKind::Enumerator(n) => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{n}` is only meaningful as the order or scope of an atomic"),
                )
                .label("used as a value"))
            }
            CExprKind::Var(id, n) => self.var_value(e, *id, n, pre)?,
            CExprKind::Dim(d, axis) => dim(*d, *axis, span),
            CExprKind::WarpSize => name("warp_size", span),
            CExprKind::Unary(op, a) => self.unary(e, *op, a, pre)?,
            CExprKind::Binary(..) if e.ty.pointee().is_some() => self.pointer(e, pre)?.offset,
            CExprKind::Binary(CBinOp::Comma, a, b) => {
                self.effect(a, pre)?;
                self.rvalue(b, pre)?
            }
            CExprKind::Binary(op @ (CBinOp::LAnd | CBinOp::LOr), a, b) => {
                self.logical(*op, a, b, span, pre)?
            }
            CExprKind::Binary(op, a, b) if is_float(&a.ty) => {
                self.float_binary(*op, a, b, span, pre)?
            }
            CExprKind::Binary(op, a, b) => {
                let x = self.rvalue(a, pre)?;
                let y = self.rvalue(b, pre)?;
                let v = arith(*op, x, y, span);
                if matches!(op, CBinOp::Add | CBinOp::Sub | CBinOp::Mul | CBinOp::Shl) {
                    wrap(v, &e.ty)
                } else {
                    v
                }
            }
            CExprKind::Assign(op, lhs, rhs) => {
                let v = self.assign(*op, lhs, rhs, pre)?;
                self.snapshot(v, &lhs.ty, pre)?
            }
            CExprKind::Cond(c, a, b) => self.conditional(e, c, a, b, pre)?,
            CExprKind::Index(..) => self.read(e, pre)?,
            CExprKind::Cast(inner) => self.cast(e, inner, pre)?,
            CExprKind::Call(..) | CExprKind::Method(..) => match self.call_expr(e, pre, true)? {
                Some(v) => v,
                None => {
                    return Err(Diagnostic::new(span, "this call returns no value")
                        .label("used as a value"))
                }
            },
            CExprKind::Construct(_) => {
                return Err(Diagnostic::new(
                    span,
                    "constructing an object here is outside the subset",
                )
                .label("constructor"))
            }
        })
    }

    /// The value of a variable: its place's, except that an array decays
    /// to a pointer to its start (offset 0).
    fn var_value(
        &mut self,
        e: &'p CExpr,
        id: DeclId,
        n: &str,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        match self.binding(id, n, e.span)? {
            Binding::Memory(t) if t.is_array => Ok(int(0, e.span)),
            Binding::AtomicRef(..) => Err(Diagnostic::new(
                e.span,
                "a `cuda::atomic_ref` used as a value is outside the subset",
            )
            .label("call a member: load(), store(), ...")),
            _ => self.read(e, pre),
        }
    }

    /// The value of the lvalue `e`.
    fn read(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let place = self.place(e, pre)?;
        self.read_value(place, e.span, pre)
    }

    fn unary(
        &mut self,
        e: &'p CExpr,
        op: CUnOp,
        a: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let span = e.span;
        if is_float(&a.ty) && op != CUnOp::Deref && op != CUnOp::AddrOf {
            return self.float_unary(op, a, span, pre);
        }
        Ok(match op {
            CUnOp::LNot => un(UnOp::Not, self.rvalue(a, pre)?, span),
            CUnOp::BitNot => wrap(un(UnOp::BitNot, self.rvalue(a, pre)?, span), &e.ty),
            CUnOp::Neg => wrap(un(UnOp::Neg, self.rvalue(a, pre)?, span), &e.ty),
            CUnOp::Plus => self.rvalue(a, pre)?,
            CUnOp::Deref => self.read(e, pre)?,
            CUnOp::AddrOf => self.pointer(e, pre)?.offset,
            CUnOp::PreInc | CUnOp::PreDec => {
                let v = self.step(a, op.delta(), pre)?;
                self.snapshot(v, &a.ty, pre)?
            }
            CUnOp::PostInc | CUnOp::PostDec => {
                let old = self.rvalue(a, pre)?;
                let old = self.snapshot(old, &a.ty, pre)?;
                self.step(a, op.delta(), pre)?;
                old
            }
        })
    }

    /// `a && b`, `a || b`: the right side's statements run only when it
    /// is evaluated.
    fn logical(
        &mut self,
        op: CBinOp,
        a: &'p CExpr,
        b: &'p CExpr,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let x = self.rvalue(a, pre)?;
        let mut inner = Vec::new();
        let y = self.rvalue(b, &mut inner)?;
        if inner.is_empty() {
            return Ok(arith(op, x, y, span));
        }
        let t = self.fresh_let(Type::Bool, x, pre);
        inner.push(set(&t, y, span));
        let test = match op {
            CBinOp::LAnd => name(&t, span),
            _ => un(UnOp::Not, name(&t, span), span),
        };
        let kind = s::StmtKind::If {
            cond: test,
            then_block: block(inner, span),
            else_block: None,
        };
        pre.push(stmt(kind, span));
        Ok(name(&t, span))
    }

    /// `c ? a : b`: each side's statements run only on its side.
    fn conditional(
        &mut self,
        e: &'p CExpr,
        c: &'p CExpr,
        a: &'p CExpr,
        b: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let span = e.span;
        let c = self.rvalue(c, pre)?;
        let (mut then_pre, mut else_pre) = (Vec::new(), Vec::new());
        let x = self.rvalue_as(a, &e.ty, &mut then_pre)?;
        let y = self.rvalue_as(b, &e.ty, &mut else_pre)?;
        if then_pre.is_empty() && else_pre.is_empty() {
            let kind = s::ExprKind::Ternary(Box::new(c), Box::new(x), Box::new(y));
            return Ok(s::Expr { kind, span });
        }
        let t = self.fresh_let(spec_type(&e.ty, span)?, int(0, span), pre);
        then_pre.push(set(&t, x, span));
        else_pre.push(set(&t, y, span));
        let kind = s::StmtKind::If {
            cond: c,
            then_block: block(then_pre, span),
            else_block: Some(block(else_pre, span)),
        };
        pre.push(stmt(kind, span));
        Ok(name(&t, span))
    }

    /// `(T)inner`, written or implicit.
    fn cast(&mut self, e: &'p CExpr, inner: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let span = e.span;
        if e.ty.pointee().is_some() {
            return Ok(self.pointer(e, pre)?.offset);
        }
        if matches!(inner.ty, CType::Atomic { by_ref: false, .. }) && e.ty.is_integer() {
            // `cuda::atomic<T>` read as a `T`: a seq_cst load.
            let a = self.atomic_object(inner, "load", span, pre)?;
            return self
                .atomic_member(a, "load", &[], e, pre)
                .map(|v| v.expect("load returns"));
        }
        if is_float(&e.ty) || is_float(&inner.ty) {
            return self.float_cast(e, inner, pre);
        }
        let v = self.rvalue(inner, pre)?;
        if e.ty == CType::Void {
            return Ok(int(0, span));
        }
        if !inner.ty.is_integer() && inner.ty.pointee().is_some() && e.ty == CType::Bool {
            return Ok(bin(BinOp::Ne, v, int(NULL_OFFSET, span), span));
        }
        Ok(convert(v, &inner.ty, &e.ty))
    }

    /// Copies a value that a later statement may change into a temporary.
    pub(super) fn snapshot(
        &mut self,
        v: s::Expr,
        ty: &CType,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        Ok(match v.kind {
            s::ExprKind::Int(_) => v,
            _ => {
                let t = spec_type(ty, v.span)?;
                self.temp(t, v, pre)
            }
        })
    }
}

/// `threadIdx.x` and friends: a launch is one-dimensional.
fn dim(d: Dim, axis: u8, span: Span) -> s::Expr {
    match (d, axis) {
        (Dim::ThreadIdx, 0) => name("threadIdx", span),
        (Dim::BlockIdx, 0) => name("blockIdx", span),
        (Dim::BlockDim, 0) => name("threads_per_block", span),
        (Dim::GridDim, 0) => name("nblocks", span),
        (Dim::ThreadIdx | Dim::BlockIdx, _) => int(0, span),
        (Dim::BlockDim | Dim::GridDim, _) => int(1, span),
    }
}
