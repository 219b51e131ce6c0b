//! The initializers of the spec's top-level `local` variables as written
//! (`ir::InitExpr`), for a backend that computes them on each thread.

use crate::ir::{Builtin, InitExpr};
use crate::spec::ast::{self, ExprKind, Item, SpecFile, Storage};

/// The expression of a valid constant initializer (lowering has
/// evaluated it, so it names no memory and calls nothing).
fn init_expr(e: &ast::Expr) -> InitExpr {
    let boxed = |e: &ast::Expr| Box::new(init_expr(e));
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

/// The initializer of each top-level `local` variable, in declaration order
/// (the order of their slots, the first of the program); `None`: zero.
pub(super) fn spec_locals(file: &SpecFile) -> Vec<Option<InitExpr>> {
    file.items
        .iter()
        .filter_map(|item| match item {
            Item::Var(v) if v.storage == Storage::Local => Some(match &v.init {
                ast::Init::Expr(e) => Some(init_expr(e)),
                _ => None,
            }),
            _ => None,
        })
        .collect()
}
