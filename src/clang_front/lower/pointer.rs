//! Pointer values. A pointer is followed statically into the one memory
//! variable it points into (NULL: none); its run-time value is an element
//! offset. Assigning a pointer may set its variable once, never change it.

use super::place::{add_offset, var_id};
use super::syntax::{bin, int, name, set};
use super::types::storage_bits;
use super::{Binding, FnLower, Place, Ptr, PtrRhs, Target, NULL_OFFSET, R};
use crate::clang_front::ast::*;
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, BinOp, Span};

impl Ptr {
    fn null(pointee: Pointee, span: Span) -> Ptr {
        Ptr {
            target: None,
            offset: int(NULL_OFFSET, span),
            pointee,
        }
    }
}

impl<'p> FnLower<'_, 'p> {
    /// The value of a pointer expression.
    pub(super) fn pointer(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<Ptr> {
        let span = e.span;
        let pointee = match &e.ty {
            CType::Pointer(p) => (**p).clone(),
            CType::Array(t, _) => Pointee {
                ty: (**t).clone(),
                volatile: false,
            },
            _ => Pointee {
                ty: e.ty.clone(),
                volatile: false,
            },
        };
        match &e.kind {
            CExprKind::Null | CExprKind::Int(0) => Ok(Ptr::null(pointee, span)),
            CExprKind::Var(id, n) => self.pointer_var(e, *id, n, pointee),
            CExprKind::Cast(inner) => self.pointer_cast(inner, pointee, span, pre),
            CExprKind::Unary(CUnOp::AddrOf, lv) => match self.place(lv, pre)? {
                Place::Mem { target, offset, volatile } => Ok(Ptr {
                    target: Some(target),
                    offset,
                    pointee: Pointee { volatile: volatile || pointee.volatile, ..pointee },
                }),
                Place::Local(n, _) => Err(Diagnostic::new(span, format!("taking the address of the thread-local `{n}` is outside the subset"))
                    .label("address of a local")),
            },
            CExprKind::Binary(op @ (CBinOp::Add | CBinOp::Sub), a, b) => {
                if a.ty.pointee().is_some() || matches!(a.ty, CType::Array(..)) {
                    self.pointer_plus(a, b, *op == CBinOp::Sub, span, pre)
                } else {
                    self.pointer_plus(b, a, false, span, pre)
                }
            }
            CExprKind::Assign(op, lhs, rhs) => {
                let id = var_id(lhs).ok_or_else(|| Diagnostic::new(span, "this pointer assignment is outside the subset").label("pointer"))?;
                self.assign_pointer(id, *op, PtrRhs::Expr(rhs), span, pre)?;
                self.pointer(lhs, pre)
            }
            CExprKind::Cond(c, a, b) => {
                let c = self.rvalue(c, pre)?;
                let x = self.pointer(a, pre)?;
                let y = self.pointer(b, pre)?;
                let target = match (x.target, y.target) {
                    (Some(t), Some(u)) if t != u => {
                        return Err(Diagnostic::new(span, format!("this pointer points into `{}` or `{}`", t.var, u.var))
                            .label("two buffers")
                            .hint("the front end follows each pointer into one variable"))
                    }
                    (t, u) => t.or(u),
                };
                Ok(Ptr {
                    target,
                    offset: s::Expr { kind: s::ExprKind::Ternary(Box::new(c), Box::new(x.offset), Box::new(y.offset)), span },
                    pointee,
                })
            }
            _ => Err(Diagnostic::new(span, "this pointer expression is outside the subset")
                .label("pointer")
                .hint("pointers may be parameters, locals, `&x`, `&a[i]`, `p + i`, casts of those, or NULL")),
        }
    }

    /// A pointer variable, or an array decaying to a pointer to its start.
    fn pointer_var(&mut self, e: &'p CExpr, id: DeclId, n: &str, pointee: Pointee) -> R<Ptr> {
        let span = e.span;
        match self.binding(id, n, span)? {
            Binding::Pointer(local, target, declared) => Ok(Ptr {
                target,
                offset: name(&local, span),
                pointee: if matches!(e.ty, CType::Pointer(_)) {
                    pointee
                } else {
                    declared
                },
            }),
            Binding::Memory(t) if t.is_array => {
                let volatile = t.volatile || pointee.volatile;
                Ok(Ptr {
                    target: Some(t),
                    offset: int(0, span),
                    pointee: Pointee {
                        volatile,
                        ..pointee
                    },
                })
            }
            _ => Err(
                Diagnostic::new(span, format!("`{n}` is not a pointer or array"))
                    .label("not a pointer"),
            ),
        }
    }

    /// `(T *)inner`: the same element, seen as a `pointee`; the width of
    /// the elements may not change.
    fn pointer_cast(
        &mut self,
        inner: &'p CExpr,
        pointee: Pointee,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<Ptr> {
        if matches!(inner.kind, CExprKind::Null | CExprKind::Int(0)) {
            return Ok(Ptr::null(pointee, span));
        }
        let p = self.pointer(inner, pre)?;
        if let (Some(t), CType::Int { bits, .. } | CType::Float { bits }) = (&p.target, &pointee.ty)
        {
            if u32::from(*bits) != storage_bits(t.ty) {
                return Err(Diagnostic::new(span, format!("a cast to a pointer to {}-bit values of the {}-bit variable `{}` is outside the subset", bits, t.ty.bits(), t.var))
                    .label("reinterprets the width"));
            }
        }
        Ok(Ptr { pointee, ..p })
    }

    /// `p + i`, or `p - i` when `neg`.
    fn pointer_plus(
        &mut self,
        p: &'p CExpr,
        i: &'p CExpr,
        neg: bool,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<Ptr> {
        if i.ty.pointee().is_some() {
            return Err(Diagnostic::new(
                span,
                "the difference of two pointers is outside the subset",
            )
            .label("pointer - pointer"));
        }
        let p = self.pointer(p, pre)?;
        let i = self.rvalue(i, pre)?;
        let offset = if neg {
            bin(BinOp::Sub, p.offset, i, span)
        } else {
            add_offset(p.offset, i, span)
        };
        Ok(Ptr { offset, ..p })
    }

    /// `p = q`, `p += i`, `p -= i`, `p++`: returns the new value.
    pub(super) fn assign_pointer(
        &mut self,
        id: DeclId,
        op: Option<CBinOp>,
        rhs: PtrRhs<'p>,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let Some(Binding::Pointer(local, target, pointee)) = self.bindings.get(&id).cloned() else {
            return Err(
                Diagnostic::new(span, "assigning to this pointer is outside the subset")
                    .label("not a local pointer"),
            );
        };
        let (new_target, value) = match (op, rhs) {
            (_, PtrRhs::Delta(d)) => (
                target.clone(),
                bin(BinOp::Add, name(&local, span), int(d, span), span),
            ),
            (None, PtrRhs::Expr(rhs)) => {
                let p = self.pointer(rhs, out)?;
                (p.target, p.offset)
            }
            (Some(op @ (CBinOp::Add | CBinOp::Sub)), PtrRhs::Expr(rhs)) => {
                let d = self.rvalue(rhs, out)?;
                let b = if op == CBinOp::Add {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                (target.clone(), bin(b, name(&local, span), d, span))
            }
            (Some(_), _) => {
                return Err(
                    Diagnostic::new(span, "this pointer arithmetic is outside the subset")
                        .label("pointer"),
                )
            }
        };
        let merged = match (&target, new_target) {
            (Some(a), Some(b)) if *a != b => return Err(Diagnostic::new(
                span,
                format!(
                    "`{local}` would point into both `{}` and `{}`",
                    a.var, b.var
                ),
            )
            .label("second buffer")
            .hint(
                "the front end follows each pointer into one variable; use one pointer per buffer",
            )),
            (Some(a), _) => Some(a.clone()),
            (None, b) => b,
        };
        self.bindings
            .insert(id, Binding::Pointer(local.clone(), merged, pointee));
        out.push(set(&local, value, span));
        Ok(name(&local, span))
    }

    /// The memory place a pointer points to.
    pub(super) fn mem_place(&self, p: Ptr, span: Span) -> R<Place> {
        let target = p.target.ok_or_else(|| {
            Diagnostic::new(span, "this pointer is NULL or points to no variable the front end knows")
                .label("unknown target")
                .hint("a pointer must be set from a harness buffer, a `__shared__`/`__device__` variable or another such pointer before it is used")
        })?;
        let volatile = p.pointee.volatile || target.volatile;
        Ok(Place::Mem {
            target,
            offset: p.offset,
            volatile,
        })
    }

    /// The memory location a pointer argument points to.
    pub(in crate::clang_front) fn pointer_arg(
        &mut self,
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<(Target, s::Expr)> {
        let p = self.pointer(e, pre)?;
        match self.mem_place(p, e.span)? {
            Place::Mem { target, offset, .. } => Ok((target, offset)),
            Place::Local(..) => unreachable!("mem_place makes memory places"),
        }
    }
}
