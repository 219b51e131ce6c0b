//! Evaluation of constant expressions: parameter defaults, array sizes,
//! initial values and the capacity bound. They may name parameters, the
//! launch constants and, for per-block or per-thread initial values, the
//! thread's own indices.

use crate::diag::{Diagnostic, SpecResult};
use crate::ir::{eval_binary as binary, eval_unary as unary, Launch};
use crate::spec::ast::{Expr, ExprKind};

/// The thread (or block) a per-thread initial value is evaluated for.
#[derive(Clone, Copy, Debug)]
pub(super) struct ThreadCoords {
    pub block: Option<u32>,
    /// Thread index within the block, when per-thread names are allowed.
    pub thread: Option<u32>,
}

pub(super) struct ConstEnv<'a> {
    pub params: &'a [(String, i64)],
    pub launch: Launch,
    pub coords: ThreadCoords,
    /// What the context is called in errors ("an array size").
    pub context: &'static str,
}

impl ConstEnv<'_> {
    pub(super) fn eval(&self, e: &Expr) -> SpecResult<i64> {
        match &e.kind {
            ExprKind::Int(v) => Ok(*v),
            ExprKind::Bool(b) => Ok(*b as i64),
            ExprKind::Name(id) => self.name(&id.name).ok_or_else(|| {
                let mut d = Diagnostic::new(
                    id.span,
                    format!("`{}` cannot be used in {}", id.name, self.context),
                )
                .label("not a constant here");
                d = d.hint(
                    "constant expressions may use parameters, literals and nblocks, \
                     threads_per_block, warp_size (initial values of shared/local \
                     variables also blockIdx, threadIdx, laneId, warpId)",
                );
                d
            }),
            ExprKind::Unary(op, a) => Ok(unary(*op, self.eval(a)?)),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                binary(*op, x, y).map_err(|fault| {
                    Diagnostic::new(e.span, format!("{fault} in a constant expression"))
                        .label(fault.label())
                })
            }
            ExprKind::Ternary(c, a, b) => {
                if self.eval(c)? != 0 {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            ExprKind::Index(id, _) | ExprKind::Call { name: id, .. } => Err(Diagnostic::new(
                e.span,
                format!("`{}` cannot be used in {}", id.name, self.context),
            )
            .label("not a constant expression")),
        }
    }

    fn name(&self, name: &str) -> Option<i64> {
        if let Some((_, v)) = self.params.iter().rev().find(|(n, _)| n == name) {
            return Some(*v);
        }
        let l = self.launch;
        let c = self.coords;
        match name {
            "nblocks" => Some(l.blocks as i64),
            "threads_per_block" => Some(l.threads_per_block as i64),
            "warp_size" => Some(l.warp_size as i64),
            "INT_MAX" => Some(i32::MAX as i64),
            "UINT_MAX" => Some(u32::MAX as i64),
            "blockIdx" => c.block.map(i64::from),
            "threadIdx" => c.thread.map(i64::from),
            "laneId" => c.thread.map(|t| (t % l.warp_size) as i64),
            "warpId" => c.thread.map(|t| (t / l.warp_size) as i64),
            _ => None,
        }
    }
}
