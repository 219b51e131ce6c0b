//! The initial values of the spec's top-level `local` variables as the spec
//! writes them, for a backend that computes them where each thread runs.
//!
//! Lowering evaluates every initializer for every thread
//! (`LocalInit::PerThread`), which is what the model reads. A backend that
//! emits code for any launch (the CUDA emitter) writes the expression
//! instead, with parameters and launch constants by name, so the generated
//! file reads like the spec.

use super::Builtin;
use crate::spec::ast::{self, BinOp, ExprKind, Item, SpecFile, Storage, UnOp};

/// A constant expression as written.
#[derive(Clone, Debug)]
pub enum InitExpr {
    Const(i64),
    /// A parameter or launch constant (`nblocks`, `threads_per_block`, `warp_size`).
    Named(String),
    /// The thread's coordinates (`blockIdx`, `threadIdx`, `laneId`, `warpId`).
    Builtin(Builtin),
    Unary(UnOp, Box<InitExpr>),
    Binary(BinOp, Box<InitExpr>, Box<InitExpr>),
    Ternary(Box<InitExpr>, Box<InitExpr>, Box<InitExpr>),
}

impl InitExpr {
    /// The expression of a valid constant initializer (lowering has
    /// evaluated it, so it names no memory and calls nothing).
    fn of(e: &ast::Expr) -> InitExpr {
        let boxed = |e: &ast::Expr| Box::new(InitExpr::of(e));
        match &e.kind {
            ExprKind::Int(v) => InitExpr::Const(*v),
            ExprKind::Bool(b) => InitExpr::Const(i64::from(*b)),
            ExprKind::Name(id) => match id.name.as_str() {
                "blockIdx" => InitExpr::Builtin(Builtin::BlockIdx),
                "threadIdx" => InitExpr::Builtin(Builtin::ThreadIdx),
                "laneId" => InitExpr::Builtin(Builtin::LaneId),
                "warpId" => InitExpr::Builtin(Builtin::WarpId),
                "INT_MAX" => InitExpr::Const(i64::from(i32::MAX)),
                "UINT_MAX" => InitExpr::Const(i64::from(u32::MAX)),
                name => InitExpr::Named(name.to_string()),
            },
            ExprKind::Unary(op, a) => InitExpr::Unary(*op, boxed(a)),
            ExprKind::Binary(op, a, b) => InitExpr::Binary(*op, boxed(a), boxed(b)),
            ExprKind::Ternary(c, a, b) => InitExpr::Ternary(boxed(c), boxed(a), boxed(b)),
            // Refused by lowering before a program exists.
            ExprKind::Index(..) | ExprKind::Call { .. } => InitExpr::Const(0),
        }
    }
}

/// The initializer of each top-level `local` variable, in declaration order
/// (the order of their slots, the first of the program); `None`: zero.
pub(super) fn spec_locals(file: &SpecFile) -> Vec<Option<InitExpr>> {
    file.items
        .iter()
        .filter_map(|item| match item {
            Item::Var(v) if v.storage == Storage::Local => Some(match &v.init {
                ast::Init::Expr(e) => Some(InitExpr::of(e)),
                _ => None,
            }),
            _ => None,
        })
        .collect()
}
