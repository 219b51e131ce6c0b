//! Evaluation of constant expressions: parameter defaults, array sizes,
//! initial values and the capacity bound. They may name parameters, the
//! launch constants and, for per-block or per-thread initial values, the
//! thread's own indices.

use super::Launch;
use crate::spec::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::spec::diag::{Diagnostic, SpecResult};

/// The thread (or block) a per-thread initial value is evaluated for.
#[derive(Clone, Copy, Debug)]
pub struct ThreadCoords {
    pub block: Option<u32>,
    /// Thread index within the block, when per-thread names are allowed.
    pub thread: Option<u32>,
}

pub struct ConstEnv<'a> {
    pub params: &'a [(String, i64)],
    pub launch: Launch,
    pub coords: ThreadCoords,
    /// What the context is called in errors ("an array size").
    pub context: &'static str,
}

impl ConstEnv<'_> {
    pub fn eval(&self, e: &Expr) -> SpecResult<i64> {
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
                binary(*op, x, y).ok_or_else(|| {
                    Diagnostic::new(e.span, "division by zero in a constant expression")
                        .label("divides by zero")
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

/// The value of a binary operator on 64-bit integers; `None` on division by zero.
pub fn binary(op: BinOp, x: i64, y: i64) -> Option<i64> {
    Some(match op {
        BinOp::Or => (x != 0 || y != 0) as i64,
        BinOp::And => (x != 0 && y != 0) as i64,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::BitAnd => x & y,
        BinOp::Eq => (x == y) as i64,
        BinOp::Ne => (x != y) as i64,
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
        BinOp::Shl => x.wrapping_shl((y & 63) as u32),
        BinOp::Shr => x.wrapping_shr((y & 63) as u32),
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x.checked_div(y)?,
        BinOp::Rem => x.checked_rem(y)?,
    })
}

/// The value of a unary operator.
pub fn unary(op: UnOp, x: i64) -> i64 {
    match op {
        UnOp::Not => (x == 0) as i64,
        UnOp::Neg => x.wrapping_neg(),
        UnOp::BitNot => !x,
    }
}
