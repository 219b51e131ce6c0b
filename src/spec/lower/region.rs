//! Critical sections and phases: regions the checks watch threads enter
//! and leave. Neither nests in itself, and no `break`, `continue` or
//! `return` may jump out of one (see `Lowerer::region_at`).

use super::Lowerer;
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, StmtKind};

#[derive(Clone, Copy)]
enum Region {
    Critical,
    Phase,
}

impl<'a> Lowerer<'a> {
    /// `critical { }` or `critical(weight) { }`.
    pub(super) fn critical(
        &mut self,
        weight: Option<&'a ast::Expr>,
        body: &'a ast::Block,
        span: Span,
    ) -> SpecResult<()> {
        self.region(Region::Critical, body, span, |l| {
            let weight = match weight {
                Some(w) => l.expr(w)?,
                None => Expr::Const(1),
            };
            Ok(Op::CriticalEnter { weight })
        })
    }

    /// `phase { }`.
    pub(super) fn phase(&mut self, body: &'a ast::Block, span: Span) -> SpecResult<()> {
        self.region(Region::Phase, body, span, |_| Ok(Op::PhaseEnter))
    }

    /// Lowers `body` between the instruction `enter` makes and the region's
    /// exit.
    fn region(
        &mut self,
        kind: Region,
        body: &'a ast::Block,
        span: Span,
        enter: impl FnOnce(&mut Self) -> SpecResult<Op>,
    ) -> SpecResult<()> {
        if *self.inside(kind) {
            let (message, label) = match kind {
                Region::Critical => (
                    "critical sections cannot nest",
                    "inside another critical section",
                ),
                Region::Phase => ("phases cannot nest", "inside another phase"),
            };
            return Err(Diagnostic::new(span, message).label(label));
        }
        let enter = enter(self)?;
        self.emit(enter, span);
        *self.inside(kind) = true;
        let outer = self
            .region_at
            .replace((self.loops.len(), self.frames.len()));
        let result = self.block(body);
        self.region_at = outer;
        *self.inside(kind) = false;
        result?;
        let exit = match kind {
            Region::Critical => Op::CriticalExit,
            Region::Phase => Op::PhaseExit,
        };
        self.emit(exit, body.span);
        Ok(())
    }

    fn inside(&mut self, kind: Region) -> &mut bool {
        match kind {
            Region::Critical => &mut self.in_critical,
            Region::Phase => &mut self.in_phase,
        }
    }
}

/// Whether `b` has a critical section (where a call to it would nest one).
pub(super) fn contains_critical(b: &ast::Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Critical { .. } => true,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => contains_critical(then_block) || else_block.as_ref().is_some_and(contains_critical),
        StmtKind::While { body, .. }
        | StmtKind::For { body, .. }
        | StmtKind::Phase { body }
        | StmtKind::Block(body) => contains_critical(body),
        _ => false,
    })
}
