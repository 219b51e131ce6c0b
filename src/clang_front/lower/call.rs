//! Calls: a CUDA built-in or a libcu++ atomic member (see
//! `crate::clang_front::builtins`), else a device function, called as its instance
//! for the buffers its pointer arguments point into.

use super::place::var_id;
use super::syntax::{call, name, stmt};
use super::{AtomicObject, Binding, FnLower, Place, R};
use crate::clang_front::ast::*;
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, Span};

impl<'p> FnLower<'_, 'p> {
    /// A call; `Some(value)` when it has one (or when `want` and it must).
    pub(super) fn call_expr(
        &mut self,
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
        want: bool,
    ) -> R<Option<s::Expr>> {
        let span = e.span;
        let (fname, args) = match &e.kind {
            CExprKind::Method(object, member, args) => {
                let a = self.atomic_object(object, member, span, pre)?;
                return self.atomic_member(a, member, args, e, pre);
            }
            CExprKind::Call(fname, args) => (fname, args),
            _ => unreachable!("only calls reach call_expr"),
        };
        if let Some(v) = self.builtin(fname, args, e, pre)? {
            if v.is_none() && want {
                return Err(
                    Diagnostic::new(span, "this call returns no value").label("used as a value")
                );
            }
            return Ok(v);
        }
        let f = self.device_function(fname, span)?;
        let mut targets = Vec::new();
        let mut values = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            if p.ty.pointee().is_some() {
                let ptr = self.pointer(a, pre)?;
                targets.push(ptr.target);
                values.push(ptr.offset);
            } else {
                targets.push(None);
                values.push(self.rvalue_as(a, &p.ty, pre)?);
            }
        }
        let inst = self.l.instance(f, targets);
        let c = call(&inst, &[], values, span);
        if f.ret != CType::Void {
            return Ok(Some(c));
        }
        if !want {
            pre.push(stmt(s::StmtKind::Expr(c), span));
        }
        Ok(None)
    }

    /// The `cuda::atomic_ref` or `cuda::atomic` whose `member` is called.
    pub(super) fn atomic_object(
        &mut self,
        object: &'p CExpr,
        member: &str,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<AtomicObject> {
        let binding = var_id(object).and_then(|id| self.bindings.get(&id).cloned());
        match (&object.ty, binding) {
            (_, Some(Binding::AtomicRef(target, holder, scope))) => Ok(AtomicObject {
                target,
                offset: name(&holder, span),
                scope,
            }),
            (
                CType::Atomic {
                    scope,
                    by_ref: false,
                    ..
                },
                _,
            ) => match self.place(object, pre)? {
                Place::Mem { target, offset, .. } => Ok(AtomicObject {
                    target,
                    offset,
                    scope: *scope,
                }),
                Place::Local(..) => Err(Diagnostic::new(
                    object.span,
                    "a thread-local `cuda::atomic` is outside the subset",
                )
                .label("not in memory")),
            },
            _ => Err(Diagnostic::new(
                span,
                format!("the member call `.{member}()` is outside the subset"),
            )
            .label("not an atomic")
            .hint("members of cuda::atomic_ref and cuda::atomic are supported")),
        }
    }

    /// The device function `fname` device code calls.
    fn device_function(&self, fname: &str, span: Span) -> R<&'p CFunction> {
        let program: &'p CProgram = self.l.program;
        let Some(f) = program.function(fname) else {
            let host = program
                .declared
                .iter()
                .any(|(n, sp)| n == fname && *sp == FnSpace::Host);
            let what = if host {
                "a host function"
            } else {
                "a function without a definition in the CUDA files"
            };
            return Err(
                Diagnostic::new(span, format!("device code calls `{fname}`, {what}"))
                    .label("no device definition")
                    .hint("the harness's `cuda:` lines name the files whose device functions are checked"),
            );
        };
        f.as_ref().map_err(Clone::clone)
    }
}
