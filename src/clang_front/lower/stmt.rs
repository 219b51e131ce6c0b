//! Statements: blocks, declarations (a `__shared__` or `static` variable
//! becomes a top-level one), expressions evaluated for their effects,
//! `if`, the three loops (a condition that needs statements moves into
//! the body), `return` and inline PTX. A delay loop is one `backoff()`.

use super::syntax::{block, boolean, break_unless, call, int, let_, set, stmt, un};
use super::types::spec_type;
use super::{Binding, FnLower, Place, NULL_OFFSET, R};
use crate::clang_front::ast::*;
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, Span, Type, UnOp};

impl<'p> FnLower<'_, 'p> {
    pub(super) fn stmt(&mut self, st: &'p CStmt, out: &mut Vec<s::Stmt>) -> R<()> {
        let span = st.span;
        if self.l.timing.is_delay_loop(st, self.f) {
            out.push(self.delay(span));
            return Ok(());
        }
        match &st.kind {
            CStmtKind::Block(stmts) => {
                let mut inner = Vec::new();
                for x in stmts {
                    self.stmt(x, &mut inner)?;
                }
                out.push(stmt(s::StmtKind::Block(block(inner, span)), span));
            }
            CStmtKind::Decl(vars) => {
                for v in vars {
                    self.decl(v, out)?;
                }
            }
            CStmtKind::Expr(e) => self.effect(e, out)?,
            CStmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.cond(cond, out)?;
                let then_block = self.sub_block(then)?;
                let else_block = otherwise
                    .as_deref()
                    .map(|o| self.sub_block(o))
                    .transpose()?;
                let kind = s::StmtKind::If {
                    cond,
                    then_block,
                    else_block,
                };
                out.push(stmt(kind, span));
            }
            CStmtKind::While { cond, body } => {
                let mut pre = Vec::new();
                let c = self.cond(cond, &mut pre)?;
                let body = self.sub_block(body)?;
                out.push(self.loop_with(pre, c, body, span));
            }
            CStmtKind::DoWhile { body, cond } => self.do_while(body, cond, span, out)?,
            CStmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.for_loop(
                init.as_deref(),
                cond.as_ref(),
                step.as_ref(),
                body,
                span,
                out,
            )?,
            CStmtKind::Break => out.push(stmt(s::StmtKind::Break, span)),
            CStmtKind::Continue => out.push(stmt(s::StmtKind::Continue, span)),
            CStmtKind::Return(v) => {
                let value = match v {
                    Some(e) if self.f.ret != CType::Void => {
                        Some(self.rvalue_as(e, &self.f.ret.clone(), out)?)
                    }
                    Some(e) => {
                        self.effect(e, out)?;
                        None
                    }
                    None => None,
                };
                out.push(stmt(s::StmtKind::Return(value), span));
            }
            CStmtKind::Empty => {}
            CStmtKind::Asm(a) => self.asm(a, span, out)?,
        }
        Ok(())
    }

    /// A statement as a block (a block's statements, not a nested block).
    pub(super) fn sub_block(&mut self, st: &'p CStmt) -> R<s::Block> {
        let mut stmts = Vec::new();
        match &st.kind {
            CStmtKind::Block(inner) => {
                for x in inner {
                    self.stmt(x, &mut stmts)?;
                }
            }
            _ => self.stmt(st, &mut stmts)?,
        }
        Ok(block(stmts, st.span))
    }

    fn delay(&mut self, span: Span) -> s::Stmt {
        stmt(s::StmtKind::Expr(call("backoff", &[], vec![], span)), span)
    }

    /// `while (c) body`, or `while (true) { pre; if (!c) break; body }`
    /// when evaluating the condition takes statements.
    fn loop_with(
        &mut self,
        pre: Vec<s::Stmt>,
        c: s::Expr,
        mut body: s::Block,
        span: Span,
    ) -> s::Stmt {
        let cond = test_in_body(pre, c, &mut body, span).unwrap_or(boolean(true, span));
        stmt(s::StmtKind::While { cond, body }, span)
    }

    /// `for (init; cond; step) body`; an init of several declarations goes
    /// before the loop, in a block of its own.
    fn for_loop(
        &mut self,
        init: Option<&'p CStmt>,
        cond: Option<&'p CExpr>,
        step: Option<&'p CExpr>,
        body: &'p CStmt,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let mut init_stmts = Vec::new();
        if let Some(i) = init {
            self.stmt(i, &mut init_stmts)?;
        }
        let mut pre = Vec::new();
        let c = cond.map(|c| self.cond(c, &mut pre)).transpose()?;
        let mut step_stmts = Vec::new();
        if let Some(e) = step {
            self.effect(e, &mut step_stmts)?;
        }
        let step = match step_stmts.len() {
            0 | 1 => step_stmts.pop().map(Box::new),
            _ => Some(Box::new(stmt(
                s::StmtKind::Block(block(step_stmts, span)),
                span,
            ))),
        };
        let mut body = self.sub_block(body)?;
        let cond = c.and_then(|c| test_in_body(pre, c, &mut body, span));
        // `for (init; ...)`: the init's names belong to the loop.
        let init = match init_stmts.len() {
            0 | 1 => init_stmts.pop().map(Box::new),
            _ => None,
        };
        let for_loop = stmt(
            s::StmtKind::For {
                init,
                cond,
                step,
                body,
            },
            span,
        );
        if init_stmts.is_empty() {
            out.push(for_loop);
        } else {
            init_stmts.push(for_loop);
            out.push(stmt(s::StmtKind::Block(block(init_stmts, span)), span));
        }
        Ok(())
    }

    /// `do body while (c)`: `while (true) { body; pre; if (!c) break; }`; a
    /// `continue` in the body must reach the condition, so then a flag
    /// skips the test on the first round instead.
    fn do_while(
        &mut self,
        body: &'p CStmt,
        cond: &'p CExpr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let mut pre = Vec::new();
        let c = self.cond(cond, &mut pre)?;
        let mut b = self.sub_block(body)?;
        if !continues(body) {
            b.stmts.append(&mut pre);
            b.stmts.push(break_unless(c, span));
            let kind = s::StmtKind::While {
                cond: boolean(true, span),
                body: b,
            };
            out.push(stmt(kind, span));
            return Ok(());
        }
        let first = self.fresh_let(Type::Bool, boolean(true, span), out);
        pre.push(break_unless(c, span));
        let test = stmt(
            s::StmtKind::If {
                cond: un(UnOp::Not, super::syntax::name(&first, span), span),
                then_block: block(pre, span),
                else_block: None,
            },
            span,
        );
        let clear = set(&first, boolean(false, span), span);
        let mut stmts = vec![test, clear];
        stmts.append(&mut b.stmts);
        let kind = s::StmtKind::While {
            cond: boolean(true, span),
            body: block(stmts, span),
        };
        out.push(stmt(kind, span));
        Ok(())
    }

    fn decl(&mut self, v: &'p CVar, out: &mut Vec<s::Stmt>) -> R<()> {
        let span = v.span;
        if v.storage != Storage::Auto {
            if self.l.timing.drops_variable(v.id) {
                return Ok(());
            }
            let hoisted = format!("{}::{}", self.f.name, v.name);
            let t = self.l.hoist(v, &hoisted)?;
            self.bindings.insert(v.id, Binding::Memory(t));
            return Ok(());
        }
        let binding = match &v.ty {
            CType::Pointer(pointee) => {
                let (target, offset) = match &v.init {
                    Some(e) => {
                        let p = self.pointer(e, out)?;
                        (p.target, p.offset)
                    }
                    None => (None, int(NULL_OFFSET, span)),
                };
                let n = self.local_name(&v.name);
                out.push(let_(&n, Type::I32, Some(offset), span));
                Binding::Pointer(n, target, (**pointee).clone())
            }
            CType::Atomic {
                by_ref: true,
                scope,
                ..
            } => {
                let object = match v.init.as_ref().map(|e| &e.kind) {
                    Some(CExprKind::Construct(args)) if args.len() == 1 => &args[0],
                    _ => return Err(Diagnostic::new(span, "a `cuda::atomic_ref` must be made from one object")
                        .label("expected `cuda::atomic_ref<T, S> r(object);`")),
                };
                let Place::Mem { target, offset, .. } = self.place(object, out)? else {
                    return Err(Diagnostic::new(object.span, "a `cuda::atomic_ref` to a thread-local variable is outside the subset")
                        .label("not in memory"));
                };
                let holder = format!("{}%offset", v.name);
                out.push(let_(&holder, Type::I32, Some(offset), span));
                Binding::AtomicRef(target, holder, *scope)
            }
            CType::Array(..) => {
                return Err(Diagnostic::new(span, format!("the thread-local array `{}` is outside the subset", v.name))
                    .label("local array")
                    .hint("declare it `__shared__` and index it by threadIdx.x, or pass a buffer from the harness"))
            }
            // A clock reading needs no value: only a delay may use it.
            _ if v.init.as_ref().is_some_and(|e| self.l.timing.reads_clock(e)) => Binding::Clock,
            other => {
                let ty = spec_type(other, span)?;
                let init = v.init.as_ref().map(|e| self.rvalue_as(e, other, out)).transpose()?;
                let n = self.local_name(&v.name);
                out.push(let_(&n, ty, init, span));
                Binding::Value(n, ty)
            }
        };
        self.bindings.insert(v.id, binding);
        Ok(())
    }

    /// An expression evaluated for its effects (a statement).
    pub(super) fn effect(&mut self, e: &'p CExpr, out: &mut Vec<s::Stmt>) -> R<()> {
        let span = e.span;
        match &e.kind {
            CExprKind::Assign(op, lhs, rhs) => {
                self.assign(*op, lhs, rhs, out)?;
            }
            CExprKind::Unary(op, a) if op.is_step() => {
                self.step(a, op.delta(), out)?;
            }
            CExprKind::Binary(CBinOp::Comma, a, b) => {
                self.effect(a, out)?;
                self.effect(b, out)?;
            }
            CExprKind::Cast(inner) if e.ty == CType::Void => self.effect(inner, out)?,
            CExprKind::Call(..) | CExprKind::Method(..) => {
                if let Some(v) = self.call_expr(e, out, false)? {
                    out.push(stmt(s::StmtKind::Expr(v), span));
                }
            }
            // A value nobody uses: only its loads happen, which the model
            // needs not see (reading a location and dropping the value).
            _ => {
                let mut pre = Vec::new();
                self.rvalue(e, &mut pre)?;
                out.append(&mut pre);
            }
        }
        Ok(())
    }
}

/// A loop's condition `c`, evaluated after the statements `pre`: `c` when
/// there are none, else `None` with `pre; if (!c) break;` put first in the
/// body.
fn test_in_body(
    mut pre: Vec<s::Stmt>,
    c: s::Expr,
    body: &mut s::Block,
    span: Span,
) -> Option<s::Expr> {
    if pre.is_empty() {
        return Some(c);
    }
    pre.push(break_unless(c, span));
    pre.append(&mut body.stmts);
    body.stmts = pre;
    None
}

/// Whether a `continue` in `body` belongs to the loop around it.
fn continues(body: &CStmt) -> bool {
    match &body.kind {
        CStmtKind::Continue => true,
        CStmtKind::Block(v) => v.iter().any(continues),
        CStmtKind::If {
            then, otherwise, ..
        } => continues(then) || otherwise.as_deref().is_some_and(continues),
        _ => false,
    }
}
