//! One instance of a device function: its parameters (a pointer
//! parameter is an offset into the buffer the instance is made for), its
//! body, the spec names of its locals and the temporaries it needs.

use super::syntax::{block, ident, int, let_, name, stmt};
use super::types::spec_type;
use super::{Binding, InstanceKey, Lowering, R};
use crate::clang_front::ast::*;
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, Span, Type};
use std::collections::HashMap;

pub(crate) struct FnLower<'l, 'p> {
    pub(super) l: &'l mut Lowering<'p>,
    pub(super) f: &'p CFunction,
    key: InstanceKey,
    pub(super) bindings: HashMap<DeclId, Binding>,
    temps: u32,
}

impl<'l, 'p> FnLower<'l, 'p> {
    pub(super) fn new(
        l: &'l mut Lowering<'p>,
        f: &'p CFunction,
        key: &InstanceKey,
    ) -> FnLower<'l, 'p> {
        FnLower {
            l,
            f,
            key: key.clone(),
            bindings: HashMap::new(),
            temps: 0,
        }
    }

    /// The spec procedure `inst` for this instance.
    pub(super) fn function(mut self, inst: &str) -> R<s::FnDecl> {
        let f = self.f;
        let mut params = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let n = self.local_name(&p.name);
            let (ty, binding) = match &p.ty {
                CType::Pointer(pointee) => {
                    let target = self.key.targets[i].clone();
                    let pointee = (**pointee).clone();
                    (Type::I32, Binding::Pointer(n.clone(), target, pointee))
                }
                other => {
                    let ty = spec_type(other, p.span)?;
                    (ty, Binding::Value(n.clone(), ty))
                }
            };
            self.bindings.insert(p.id, binding);
            params.push(s::FnParam {
                ty,
                name: ident(&n, p.span),
            });
        }
        let ret = match &f.ret {
            CType::Void => None,
            other => Some(spec_type(other, f.span)?),
        };
        let mut body = Vec::new();
        for st in &f.body {
            self.stmt(st, &mut body)?;
        }
        if ret.is_some() && !matches!(f.body.last().map(|s| &s.kind), Some(CStmtKind::Return(_))) {
            body.extend(falls_off(f));
        }
        Ok(s::FnDecl {
            name: ident(inst, f.span),
            params,
            ret,
            body: block(body, f.span),
            span: f.span,
        })
    }

    /// The spec name of a C local: its own, unless a top-level name (a
    /// harness buffer, say) would be hidden by it.
    pub(super) fn local_name(&self, c_name: &str) -> String {
        if self.l.taken.contains(c_name) || crate::spec::RESERVED.contains(&c_name) {
            format!("{c_name}%")
        } else {
            c_name.to_string()
        }
    }

    pub(super) fn temp_name(&mut self) -> String {
        self.temps += 1;
        format!("tmp%{}", self.temps)
    }

    /// `T tmp = value;` appended to `pre`; returns `tmp`.
    pub(super) fn temp(&mut self, ty: Type, value: s::Expr, pre: &mut Vec<s::Stmt>) -> s::Expr {
        let span = value.span;
        let n = self.fresh_let(ty, value, pre);
        name(&n, span)
    }

    /// `T tmp = value;` appended to `pre`; returns the temporary's name.
    pub(in crate::clang_front) fn fresh_let(
        &mut self,
        ty: Type,
        value: s::Expr,
        pre: &mut Vec<s::Stmt>,
    ) -> String {
        let n = self.temp_name();
        let span = value.span;
        pre.push(let_(&n, ty, Some(value), span));
        n
    }

    /// What the declaration `id` (named `n`) is in the generated spec.
    pub(super) fn binding(&self, id: DeclId, n: &str, span: Span) -> R<Binding> {
        if let Some(b) = self.bindings.get(&id) {
            return Ok(b.clone());
        }
        if let Some(t) = self.l.hoisted.get(&id) {
            return Ok(Binding::Memory(t.clone()));
        }
        Err(Diagnostic::new(span, format!("`{n}` is not a variable the front end can place"))
            .label("unknown variable")
            .hint("device code may use its own locals and parameters, `__shared__`, `static` and `__device__` variables"))
    }
}

/// C leaves falling off a value-returning function undefined: a failed
/// assertion at the closing brace.
fn falls_off(f: &CFunction) -> [s::Stmt; 2] {
    let end = f.end;
    let message = format!("control reaches the end of `{}` without `return`", f.name);
    [
        stmt(
            s::StmtKind::Assert {
                cond: int(0, end),
                message: Some(message),
            },
            end,
        ),
        stmt(s::StmtKind::Return(Some(int(0, end))), end),
    ]
}
