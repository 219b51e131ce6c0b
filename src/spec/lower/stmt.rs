//! Statements and control flow: blocks and their scopes, `let`,
//! assignments, `if`, loops with `break`/`continue`, `return` (a jump to
//! the end of the inlined body), `assert` and `progress`.

use super::place::Target;
use super::resolve::Sym;
use super::{already_defined, Lowerer};
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, AssignOp, StmtKind};

pub(super) struct LoopCtx {
    /// Jumps to patch to the loop exit.
    breaks: Vec<usize>,
    /// Jumps to patch to the continue target.
    continues: Vec<usize>,
}

impl<'a> Lowerer<'a> {
    pub(super) fn block(&mut self, b: &'a ast::Block) -> SpecResult<()> {
        self.scoped(|l| b.stmts.iter().try_for_each(|s| l.stmt(s)))
    }

    /// Runs `lower` in a block scope of its own.
    fn scoped(&mut self, lower: impl FnOnce(&mut Self) -> SpecResult<()>) -> SpecResult<()> {
        self.scopes.push();
        let result = lower(self);
        self.scopes.pop();
        result
    }

    fn stmt(&mut self, s: &'a ast::Stmt) -> SpecResult<()> {
        self.nested(s.span, |l| l.stmt_kind(s))
    }

    fn stmt_kind(&mut self, s: &'a ast::Stmt) -> SpecResult<()> {
        match &s.kind {
            StmtKind::Let { ty, name, init } => {
                self.check_not_reserved(name)?;
                let value = match init {
                    Some(e) => self.expr(e)?,
                    None => Expr::Const(0),
                };
                let hint = "use another name or assign without the type";
                self.bind_local(name, *ty, value, hint, s.span)?;
            }
            StmtKind::Assign { place, op, value } => self.assign(place, *op, value, s.span)?,
            StmtKind::Expr(e) => self.expr_stmt(e)?,
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => self.if_stmt(cond, then_block, else_block.as_ref(), s.span)?,
            StmtKind::While { cond, body } => {
                let head = self.pc();
                self.lower_loop(Some(cond), body, None, head, s.span)?;
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.scoped(|l| {
                if let Some(init) = init {
                    l.stmt(init)?;
                }
                let head = l.pc();
                l.lower_loop(cond.as_ref(), body, step.as_deref(), head, s.span)
            })?,
            StmtKind::Break | StmtKind::Continue => self.break_continue(s)?,
            StmtKind::Return(value) => self.ret(value.as_ref(), s.span)?,
            StmtKind::Assert { cond, message } => {
                let c = self.expr(cond)?;
                let message = message.clone().unwrap_or_else(|| {
                    format!("assertion `{}` failed", self.source.snippet(cond.span))
                });
                self.emit(Op::Assert { cond: c, message }, s.span);
            }
            StmtKind::Critical { weight, body } => self.critical(weight.as_ref(), body, s.span)?,
            StmtKind::Phase { body } => self.phase(body, s.span)?,
            StmtKind::Progress => {
                self.emit(Op::Progress, s.span);
            }
            StmtKind::Block(b) => self.block(b)?,
        }
        Ok(())
    }

    /// A new local `name` of the innermost scope, set to `value`.
    pub(super) fn bind_local(
        &mut self,
        name: &ast::Ident,
        ty: Type,
        value: Expr,
        hint: &str,
        span: Span,
    ) -> SpecResult<()> {
        let id = self.new_local(&name.name, ty, LocalInit::Zero);
        self.scopes
            .define(&name.name, Sym::Local(id), name.span)
            .map_err(|first| already_defined(self.source, name, first, hint))?;
        self.emit(Op::Assign { dst: id, value }, span);
        Ok(())
    }

    fn if_stmt(
        &mut self,
        cond: &'a ast::Expr,
        then_block: &'a ast::Block,
        else_block: Option<&'a ast::Block>,
        span: Span,
    ) -> SpecResult<()> {
        let c = self.expr(cond)?;
        let branch = self.branch_forward(c, cond.span);
        self.block(then_block)?;
        match else_block {
            None => self.patch_here(branch),
            Some(e) => {
                let skip = self.jump_forward(span);
                self.patch_here(branch);
                self.block(e)?;
                self.patch_here(skip);
            }
        }
        Ok(())
    }

    /// `head: cond? body step? jump head`, with break/continue patched.
    fn lower_loop(
        &mut self,
        cond: Option<&'a ast::Expr>,
        body: &'a ast::Block,
        step: Option<&'a ast::Stmt>,
        head: Pc,
        span: Span,
    ) -> SpecResult<()> {
        let exit_branch = match cond {
            Some(cond) => {
                let c = self.expr(cond)?;
                Some(self.branch_forward(c, cond.span))
            }
            None => None,
        };
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        let result = self.block(body);
        let ctx = self.loops.pop().expect("pushed above");
        result?;
        let continue_target = self.pc();
        if let Some(step) = step {
            self.stmt(step)?;
        }
        self.emit(Op::Jump { target: head }, span);
        let exit = self.pc();
        for b in exit_branch.into_iter().chain(ctx.breaks) {
            self.patch(b, exit);
        }
        for c in ctx.continues {
            self.patch(c, continue_target);
        }
        Ok(())
    }

    fn break_continue(&mut self, s: &ast::Stmt) -> SpecResult<()> {
        let word = if matches!(s.kind, StmtKind::Break) {
            "break"
        } else {
            "continue"
        };
        let floor = self.frames.last().map_or(0, |f| f.loop_depth);
        if self.loops.len() <= floor {
            return Err(
                Diagnostic::new(s.span, format!("`{word}` outside of a loop"))
                    .label("no loop to leave"),
            );
        }
        if self
            .region_at
            .is_some_and(|(loops, _)| self.loops.len() <= loops)
        {
            return Err(Diagnostic::new(
                s.span,
                format!("`{word}` may not leave a critical section or phase"),
            )
            .label("jumps out")
            .hint("restructure the loop so the critical section or phase closes normally"));
        }
        let j = self.jump_forward(s.span);
        let ctx = self.loops.last_mut().expect("checked above");
        if word == "break" {
            ctx.breaks.push(j);
        } else {
            ctx.continues.push(j);
        }
        Ok(())
    }

    fn ret(&mut self, value: Option<&'a ast::Expr>, span: Span) -> SpecResult<()> {
        if self
            .region_at
            .is_some_and(|(_, frames)| self.frames.len() <= frames)
        {
            return Err(Diagnostic::new(
                span,
                "`return` may not leave a critical section or phase",
            )
            .label("returns from inside"));
        }
        let Some(frame) = self.frames.last() else {
            if value.is_some() {
                return Err(
                    Diagnostic::new(span, "the harness returns no value").label("value given")
                );
            }
            self.emit(Op::Exit, span);
            return Ok(());
        };
        let ret = frame.ret;
        let name = frame.name.clone();
        match (value, ret) {
            (Some(v), Some((dst, _))) => {
                let e = self.expr(v)?;
                self.emit(Op::Assign { dst, value: e }, span);
            }
            (None, None) => {}
            (Some(v), None) => {
                return Err(Diagnostic::new(v.span, format!("`{name}` returns nothing"))
                    .label("unexpected value")
                    .hint(format!(
                        "declare `fn {name}(...) -> TYPE` to return a value"
                    )))
            }
            (None, Some((_, ty))) => {
                return Err(
                    Diagnostic::new(span, format!("`{name}` must return a {}", ty.name()))
                        .label("missing value"),
                )
            }
        }
        let j = self.jump_forward(span);
        self.frames
            .last_mut()
            .expect("checked above")
            .returns
            .push(j);
        Ok(())
    }

    fn assign(
        &mut self,
        place: &'a ast::Place,
        op: AssignOp,
        value: &'a ast::Expr,
        span: Span,
    ) -> SpecResult<()> {
        let target = self.place(place)?;
        let rhs = self.expr(value)?;
        let value = match compound_op(op) {
            None => rhs,
            Some(bop) => {
                let old = match &target {
                    Target::Local(dst) => *dst,
                    // A plain read-modify-write: two steps, not atomic.
                    Target::Mem(loc) => self.plain_load(loc.clone(), span),
                };
                Expr::Binary(bop, Box::new(Expr::Local(old)), Box::new(rhs))
            }
        };
        let op = match target {
            Target::Local(dst) => Op::Assign { dst, value },
            Target::Mem(loc) => Op::Store {
                access: self.plain_access(loc),
                value,
            },
        };
        self.emit(op, span);
        Ok(())
    }
}

/// The operator of a compound assignment (`+=` → `+`); `None` for `=`.
fn compound_op(op: AssignOp) -> Option<ast::BinOp> {
    match op {
        AssignOp::Set => None,
        AssignOp::Add => Some(ast::BinOp::Add),
        AssignOp::Sub => Some(ast::BinOp::Sub),
    }
}
