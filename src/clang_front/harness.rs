//! The spec's side of a CUDA harness: its procedures' and harness's calls
//! of device functions are pointed at the instances made for the buffers
//! they pass.

use super::lower::Lowering;
use crate::diag::Diagnostic;
use crate::spec::ast::{Block, Expr, ExprKind, Item, SpecFile, Stmt, StmtKind};

type R<T> = Result<T, Diagnostic>;

/// Rewrites the calls of device functions in `file`, in source order.
pub(super) fn rewrite_calls(file: &mut SpecFile, l: &mut Lowering) -> R<()> {
    let mut rewriter = Rewriter {
        spec_fns: file.fn_names().map(str::to_string).collect(),
        l,
    };
    for item in &mut file.items {
        match item {
            Item::Fn(f) => rewriter.block(&mut f.body)?,
            Item::Harness(h) => rewriter.block(&mut h.body)?,
            _ => {}
        }
    }
    Ok(())
}

struct Rewriter<'a, 'p> {
    /// The spec's own procedures: a call of one is not a device function's.
    spec_fns: Vec<String>,
    l: &'a mut Lowering<'p>,
}

impl Rewriter<'_, '_> {
    fn block(&mut self, b: &mut Block) -> R<()> {
        b.stmts.iter_mut().try_for_each(|s| self.stmt(s))
    }

    /// A statement's nested statements first, then its expressions.
    fn stmt(&mut self, s: &mut Stmt) -> R<()> {
        let mut exprs: Vec<&mut Expr> = Vec::new();
        match &mut s.kind {
            StmtKind::Let { init, .. } => exprs.extend(init.as_mut()),
            StmtKind::Assign { place, value, .. } => {
                exprs.push(value);
                exprs.extend(place.index.as_deref_mut());
            }
            StmtKind::Expr(e) => exprs.push(e),
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                exprs.push(cond);
                self.block(then_block)?;
                if let Some(b) = else_block {
                    self.block(b)?;
                }
            }
            StmtKind::While { cond, body } => {
                exprs.push(cond);
                self.block(body)?;
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                for part in init.iter_mut().chain(step.iter_mut()) {
                    self.stmt(part)?;
                }
                exprs.extend(cond.as_mut());
                self.block(body)?;
            }
            StmtKind::Return(v) => exprs.extend(v.as_mut()),
            StmtKind::Assert { cond, .. } => exprs.push(cond),
            StmtKind::Critical { weight, body } => {
                exprs.extend(weight.as_mut());
                self.block(body)?;
            }
            StmtKind::Phase { body } | StmtKind::Block(body) => self.block(body)?,
            StmtKind::Break | StmtKind::Continue | StmtKind::Progress => {}
        }
        exprs.into_iter().try_for_each(|e| self.expr(e))
    }

    /// A call's arguments first, then the call.
    fn expr(&mut self, e: &mut Expr) -> R<()> {
        match &mut e.kind {
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => {
                for a in args.iter_mut() {
                    self.expr(a)?;
                }
                if qualifiers.is_empty() && !self.spec_fns.contains(&name.name) {
                    if let Some(inst) = self.l.harness_call(name, args)? {
                        name.name = inst;
                    }
                }
                Ok(())
            }
            ExprKind::Index(_, i) | ExprKind::Unary(_, i) => self.expr(i),
            ExprKind::Binary(_, a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c)?;
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Name(_) => Ok(()),
        }
    }
}
