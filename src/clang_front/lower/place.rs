//! Places: what an lvalue names (a local, or an element of a memory
//! variable), reading and writing it, `=`, `op=`, `++` and `--`. A
//! volatile access through a pointer to a variable that is not declared
//! volatile becomes an explicit `load.volatile`/`store.volatile`.

use super::float::{self, is_float};
use super::syntax::{bin, ident, int, mem_call, name, set, stmt};
use super::types::{arith, wrap};
use super::{Binding, FnLower, Place, Ptr, PtrRhs, Target, R};
use crate::clang_front::ast::*;
use crate::diag::Diagnostic;
use crate::ir::{MemOrder, Order};
use crate::spec::ast::{self as s, BinOp, Span, Type};

impl<'p> FnLower<'_, 'p> {
    /// `lhs op= rhs` as statements; returns the value assigned.
    pub(super) fn assign(
        &mut self,
        op: Option<CBinOp>,
        lhs: &'p CExpr,
        rhs: &'p CExpr,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let span = lhs.span.to(rhs.span);
        if let Some(id) = var_id(lhs) {
            if self.l.timing.drops_variable(id) {
                return Ok(int(0, span));
            }
            if lhs.ty.pointee().is_some() {
                return self.assign_pointer(id, op, PtrRhs::Expr(rhs), span, out);
            }
            if self.l.timing.reads_clock(rhs) {
                self.bindings.insert(id, Binding::Clock);
                return Ok(int(0, span));
            }
        }
        let place = self.place(lhs, out)?;
        let value = match op {
            None => self.rvalue_as(rhs, &lhs.ty, out)?,
            Some(_) if is_float(&lhs.ty) => {
                return Err(float::refused(span, "floating-point arithmetic"))
            }
            Some(bop) => {
                let old = self.read_place(&place, span, out)?;
                let r = self.rvalue(rhs, out)?;
                wrap(arith(bop, old, r, span), &lhs.ty)
            }
        };
        self.write_place(place, value, span, out)
    }

    /// `x++`, `--x` as a statement.
    pub(super) fn step(&mut self, a: &'p CExpr, delta: i64, out: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let span = a.span;
        if let Some(id) = var_id(a) {
            if self.l.timing.drops_variable(id) {
                return Ok(int(0, span));
            }
            if a.ty.pointee().is_some() {
                return self.assign_pointer(id, None, PtrRhs::Delta(delta), span, out);
            }
        }
        if is_float(&a.ty) {
            return Err(float::refused(span, "floating-point arithmetic"));
        }
        let place = self.place(a, out)?;
        let old = self.read_place(&place, span, out)?;
        let value = wrap(bin(BinOp::Add, old, int(delta, span), span), &a.ty);
        self.write_place(place, value, span, out)
    }

    /// The value of a place, read once: a memory word goes to a temporary.
    fn read_place(&mut self, place: &Place, span: Span, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        Ok(match place {
            Place::Local(n, _) => name(n, span),
            Place::Mem {
                target,
                offset,
                volatile,
            } => {
                let e = self.load(target, offset.clone(), *volatile, span, pre)?;
                self.temp(target.ty, e, pre)
            }
        })
    }

    /// Reads a place, converting a memory word to the C type of the access.
    pub(super) fn read_value(
        &mut self,
        place: Place,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        Ok(match place {
            Place::Local(n, _) => name(&n, span),
            Place::Mem {
                target,
                offset,
                volatile,
            } => self.load(&target, offset, volatile, span, pre)?,
        })
    }

    /// Stores `value`; returns an expression for the value stored.
    pub(super) fn write_place(
        &mut self,
        place: Place,
        value: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        match place {
            Place::Local(n, _) => {
                out.push(set(&n, value, span));
                Ok(name(&n, span))
            }
            Place::Mem {
                target,
                offset,
                volatile,
            } => self.store(&target, offset, volatile, value, span, out),
        }
    }

    /// Stores `value` in `t[offset]`; returns an expression for it.
    fn store(
        &mut self,
        t: &Target,
        offset: s::Expr,
        volatile: bool,
        value: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let kept = match value.kind {
            s::ExprKind::Int(_) => value,
            _ => self.temp(t.ty, value, out),
        };
        let store = match volatile_only_here(volatile, t) {
            Some(mo) => {
                let loc = self.location(t, offset, span, out)?;
                s::StmtKind::Expr(mem_call("store", mo, vec![loc, kept.clone()], span))
            }
            None => {
                let index = self.index_of(t, offset, span, out)?;
                let place = s::Place {
                    name: ident(&t.var, span),
                    index: index.map(Box::new),
                    span,
                };
                s::StmtKind::Assign {
                    place,
                    op: s::AssignOp::Set,
                    value: kept.clone(),
                }
            }
        };
        out.push(stmt(store, span));
        Ok(kept)
    }

    /// The spec expression naming a memory location (an operation's argument).
    pub(in crate::clang_front) fn location(
        &mut self,
        t: &Target,
        offset: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        Ok(match self.index_of(t, offset, span, out)? {
            Some(i) => s::Expr {
                kind: s::ExprKind::Index(ident(&t.var, span), Box::new(i)),
                span,
            },
            None => name(&t.var, span),
        })
    }

    /// The index into an array; a scalar takes offset 0 only.
    fn index_of(
        &mut self,
        t: &Target,
        offset: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<Option<s::Expr>> {
        if t.is_array {
            return Ok(Some(offset));
        }
        if !matches!(offset.kind, s::ExprKind::Int(0)) {
            out.push(stmt(
                s::StmtKind::Assert {
                    cond: bin(BinOp::Eq, offset, int(0, span), span),
                    message: Some(format!(
                        "a pointer to the scalar `{}` is used past it",
                        t.var
                    )),
                },
                span,
            ));
        }
        Ok(None)
    }

    /// A read of `t[offset]`.
    pub(super) fn load(
        &mut self,
        t: &Target,
        offset: s::Expr,
        volatile: bool,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let loc = self.location(t, offset, span, out)?;
        Ok(match volatile_only_here(volatile, t) {
            Some(mo) => mem_call("load", mo, vec![loc], span),
            None => loc,
        })
    }

    /// The location an lvalue names.
    pub(super) fn place(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<Place> {
        let span = e.span;
        match &e.kind {
            CExprKind::Var(id, n) => Ok(match self.binding(*id, n, span)? {
                Binding::Value(local, ty) => Place::Local(local, ty),
                Binding::Pointer(local, ..) => Place::Local(local, Type::I32),
                Binding::Memory(t) => {
                    let volatile = t.volatile;
                    Place::Mem {
                        target: t,
                        offset: int(0, span),
                        volatile,
                    }
                }
                Binding::AtomicRef(..) => {
                    return Err(Diagnostic::new(
                        span,
                        "assigning a `cuda::atomic_ref` is outside the subset",
                    )
                    .label("atomic_ref"))
                }
                Binding::Clock => return Err(clock_error(span)),
            }),
            CExprKind::Unary(CUnOp::Deref, p) => {
                let p = self.pointer(p, pre)?;
                self.mem_place(p, span)
            }
            CExprKind::Index(base, i) => {
                let p = self.pointer(base, pre)?;
                let i = self.rvalue(i, pre)?;
                let offset = add_offset(p.offset, i, span);
                self.mem_place(Ptr { offset, ..p }, span)
            }
            CExprKind::Cast(inner) => self.place(inner, pre),
            _ => Err(Diagnostic::new(
                span,
                "this expression is not a location the subset can write",
            )
            .label("not assignable")),
        }
    }

    /// Stores an instruction's result into an `asm` output operand.
    pub(in crate::clang_front) fn store_output(
        &mut self,
        e: &'p CExpr,
        value: s::Expr,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let place = self.place(e, out)?;
        self.write_place(place, value, e.span, out)?;
        Ok(())
    }

    /// A thread-local variable passed by reference (`compare_exchange`'s
    /// `expected`).
    pub(in crate::clang_front) fn local_place(&mut self, e: &'p CExpr) -> R<(String, Type)> {
        let mut scratch = Vec::new();
        match self.place(e, &mut scratch)? {
            Place::Local(n, t) if scratch.is_empty() => Ok((n, t)),
            _ => Err(
                Diagnostic::new(e.span, "`expected` must be a thread-local variable")
                    .label("not a local"),
            ),
        }
    }
}

/// The order of an access that is volatile only through its pointer (a
/// volatile variable's plain accesses are volatile already).
fn volatile_only_here(volatile: bool, t: &Target) -> Option<MemOrder> {
    (volatile && !t.volatile).then(|| MemOrder::new(Order::Volatile, t.scope()))
}

/// The id of a plain variable reference (through casts clang added).
pub(super) fn var_id(e: &CExpr) -> Option<DeclId> {
    match &e.kind {
        CExprKind::Var(id, _) => Some(*id),
        CExprKind::Cast(inner) if same_shape(&inner.ty, &e.ty) => var_id(inner),
        _ => None,
    }
}

/// A conversion that keeps the object (a qualifier or reference added).
fn same_shape(a: &CType, b: &CType) -> bool {
    match (a, b) {
        (CType::Reference(x), y) | (y, CType::Reference(x)) => **x == *y,
        _ => a == b,
    }
}

pub(super) fn add_offset(a: s::Expr, b: s::Expr, span: Span) -> s::Expr {
    match (&a.kind, &b.kind) {
        (s::ExprKind::Int(0), _) => b,
        (_, s::ExprKind::Int(0)) => a,
        _ => bin(BinOp::Add, a, b, span),
    }
}

pub(super) fn clock_error(span: Span) -> Diagnostic {
    Diagnostic::new(span, "time read by clock() is used for more than a back-off delay")
        .label("time is not modelled")
        .hint("the model explores every interleaving instead of timing; clock() may only bound a delay loop")
}
