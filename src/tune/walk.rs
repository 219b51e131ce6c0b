//! A walk over a spec's AST that collects what `points` needs: every
//! call with its statement (when the call is one), and every block.

use crate::spec::ast::{Block, Expr, ExprKind, Ident, Item, Span, SpecFile, Stmt, StmtKind};

/// A call as written: its callee, and the span of the statement it is
/// (`__threadfence();`), if it is one.
pub(super) struct CallSite<'a> {
    pub name: &'a Ident,
    pub qualifiers: &'a [Ident],
    pub stmt: Option<Span>,
}

/// The calls and blocks of a spec, in source order.
#[derive(Default)]
pub(super) struct Walk<'a> {
    pub calls: Vec<CallSite<'a>>,
    pub blocks: Vec<&'a Block>,
}

impl<'a> Walk<'a> {
    pub(super) fn of(file: &'a SpecFile) -> Walk<'a> {
        let mut w = Walk::default();
        for item in &file.items {
            match item {
                Item::Fn(f) => w.block(&f.body),
                Item::Harness(h) => w.block(&h.body),
                Item::Param(_) | Item::Var(_) => {}
            }
        }
        w.calls.sort_by_key(|c| c.name.span.start);
        w.blocks.sort_by_key(|b| b.span.start);
        w
    }

    fn block(&mut self, b: &'a Block) {
        self.blocks.push(b);
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Let { init, .. } => init.iter().for_each(|e| self.expr(e, None)),
            StmtKind::Assign { place, value, .. } => {
                place.index.iter().for_each(|e| self.expr(e, None));
                self.expr(value, None);
            }
            StmtKind::Expr(e) => self.expr(e, Some(s.span)),
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(cond, None);
                self.block(then_block);
                else_block.iter().for_each(|b| self.block(b));
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, None);
                self.block(body);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                init.iter().for_each(|s| self.stmt(s));
                cond.iter().for_each(|e| self.expr(e, None));
                step.iter().for_each(|s| self.stmt(s));
                self.block(body);
            }
            StmtKind::Return(e) => e.iter().for_each(|e| self.expr(e, None)),
            StmtKind::Assert { cond, .. } => self.expr(cond, None),
            StmtKind::Critical { weight, body } => {
                weight.iter().for_each(|e| self.expr(e, None));
                self.block(body);
            }
            StmtKind::Phase { body } | StmtKind::Block(body) => self.block(body),
            StmtKind::Break | StmtKind::Continue | StmtKind::Progress => {}
        }
    }

    fn expr(&mut self, e: &'a Expr, stmt: Option<Span>) {
        match &e.kind {
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => {
                self.calls.push(CallSite {
                    name,
                    qualifiers,
                    stmt,
                });
                args.iter().for_each(|a| self.expr(a, None));
            }
            ExprKind::Index(_, i) | ExprKind::Unary(_, i) => self.expr(i, None),
            ExprKind::Binary(_, a, b) => {
                self.expr(a, None);
                self.expr(b, None);
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c, None);
                self.expr(a, None);
                self.expr(b, None);
            }
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Name(_) => {}
        }
    }
}
