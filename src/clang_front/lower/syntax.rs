//! Builders for the spec AST the front end generates: every node gets the
//! span of the CUDA it comes from, so errors and traces point at the CUDA.

use crate::ir::MemOrder;
use crate::ir::{order_name, scope_name};
use crate::spec::ast::{self as s, BinOp, Ident, Span, Type, UnOp};

pub(crate) fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

pub(crate) fn int(v: i64, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Int(v),
        span,
    }
}

pub(crate) fn boolean(b: bool, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Bool(b),
        span,
    }
}

pub(crate) fn name(n: &str, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Name(ident(n, span)),
        span,
    }
}

pub(crate) fn bin(op: BinOp, a: s::Expr, b: s::Expr, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

pub(crate) fn un(op: UnOp, a: s::Expr, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Unary(op, Box::new(a)),
        span,
    }
}

pub(crate) fn call(n: &str, qualifiers: &[&str], args: Vec<s::Expr>, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Call {
            name: ident(n, span),
            qualifiers: qualifiers.iter().map(|q| ident(q, span)).collect(),
            args,
        },
        span,
    }
}

/// A memory operation of the spec (`load`, `store`, `atomicAdd`, `fence`,
/// ...) qualified with its order and scope: `op.order.scope(args)`.
pub(crate) fn mem_call(op: &str, mo: MemOrder, args: Vec<s::Expr>, span: Span) -> s::Expr {
    call(
        op,
        &[order_name(mo.order), scope_name(mo.scope)],
        args,
        span,
    )
}

/// `local = value;`
pub(crate) fn set(local: &str, value: s::Expr, span: Span) -> s::Stmt {
    stmt(
        s::StmtKind::Assign {
            place: s::Place {
                name: ident(local, span),
                index: None,
                span,
            },
            op: s::AssignOp::Set,
            value,
        },
        span,
    )
}

/// `ty name = init;`
pub(crate) fn let_(name: &str, ty: Type, init: Option<s::Expr>, span: Span) -> s::Stmt {
    stmt(
        s::StmtKind::Let {
            ty,
            name: ident(name, span),
            init,
        },
        span,
    )
}

pub(crate) fn stmt(kind: s::StmtKind, span: Span) -> s::Stmt {
    s::Stmt { kind, span }
}

/// `e;`
pub(crate) fn expr_stmt(e: s::Expr) -> s::Stmt {
    let span = e.span;
    stmt(s::StmtKind::Expr(e), span)
}

pub(crate) fn block(stmts: Vec<s::Stmt>, span: Span) -> s::Block {
    s::Block { stmts, span }
}

/// `if (!c) break;`
pub(crate) fn break_unless(c: s::Expr, span: Span) -> s::Stmt {
    stmt(
        s::StmtKind::If {
            cond: un(UnOp::Not, c, span),
            then_block: block(vec![stmt(s::StmtKind::Break, span)], span),
            else_block: None,
        },
        span,
    )
}
