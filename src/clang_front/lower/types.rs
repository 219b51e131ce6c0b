//! C's integer types in the spec's: which C types have a spec type, and
//! C's arithmetic on them. The spec computes on 64-bit integers and wraps
//! on stores; C wraps every operation at the width of its type, so each
//! result that can leave its type's range is wrapped explicitly, and every
//! conversion clang made implicit is applied.

use super::syntax::{bin, int};
use super::R;
use crate::clang_front::ast::{CBinOp, CType};
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, BinOp, Span, Type};

/// The spec type of a C value type.
pub(crate) fn spec_type(t: &CType, span: Span) -> R<Type> {
    let outside = || {
        Diagnostic::new(
            span,
            format!(
                "values of type `{}` are outside the CUDA subset gsync-check reads",
                t.describe()
            ),
        )
        .label("unsupported type")
    };
    Ok(match t {
        CType::Bool => Type::Bool,
        CType::Enum => Type::I32,
        CType::Int { bits, signed } => Type::int(u32::from(*bits), *signed).ok_or_else(outside)?,
        // An f32 is its bits (see `float`).
        CType::Float { bits: 32 } => Type::U32,
        CType::Float { .. } => {
            return Err(Diagnostic::new(
                span,
                "double-precision values are outside the CUDA subset gsync-check reads",
            )
            .label("floating point")
            .hint("`float` (32-bit) values may be loaded, stored, copied and compared"))
        }
        _ => return Err(outside()),
    })
}

/// The C type of a variable's stored values.
pub(crate) fn ctype_of(t: Type) -> CType {
    match t {
        Type::Bool => CType::Bool,
        t => CType::int(t.bits() as u8, t.signed()),
    }
}

/// The type of one element of a memory variable (a `cuda::atomic<T>` holds a `T`).
pub(crate) fn element_type(t: &CType) -> &CType {
    match t {
        CType::Array(e, _) => element_type(e),
        CType::Atomic {
            value,
            by_ref: false,
            ..
        } => value,
        other => other,
    }
}

/// The width of one element of a variable of type `t` in device memory.
pub(crate) fn storage_bits(t: Type) -> u32 {
    match t {
        Type::Bool => 8,
        t => t.bits(),
    }
}

/// Wraps `e` to the range of `t`, as C does after an operation that may
/// overflow (constants are folded at once).
pub(crate) fn wrap(e: s::Expr, t: &CType) -> s::Expr {
    let span = e.span;
    if let s::ExprKind::Int(v) = e.kind {
        if let Ok(ty) = spec_type(t, span) {
            return int(crate::ir::wrap(ty, v), span);
        }
    }
    match t {
        CType::Bool => bin(BinOp::Ne, e, int(0, span), span),
        CType::Int { bits, signed } if *bits < 64 => {
            let mask = (1i64 << bits) - 1;
            if *signed {
                let half = 1i64 << (bits - 1);
                let shifted = bin(BinOp::Add, e, int(half, span), span);
                bin(
                    BinOp::Sub,
                    bin(BinOp::BitAnd, shifted, int(mask, span), span),
                    int(half, span),
                    span,
                )
            } else {
                bin(BinOp::BitAnd, e, int(mask, span), span)
            }
        }
        _ => e,
    }
}

/// Whether every value of `from` is a value of `to`.
pub(crate) fn fits(from: &CType, to: &CType) -> bool {
    match (from, to) {
        (CType::Bool, CType::Int { .. }) => true,
        (
            CType::Int {
                bits: a,
                signed: sa,
            },
            CType::Int {
                bits: b,
                signed: sb,
            },
        ) => (sa == sb && a <= b) || (!sa && *sb && a < b),
        (
            CType::Enum,
            CType::Int {
                bits: 32,
                signed: true,
            },
        ) => true,
        _ => from == to,
    }
}

/// Converts a value of type `from` to `to` as C does.
pub(crate) fn convert(v: s::Expr, from: &CType, to: &CType) -> s::Expr {
    let span = v.span;
    if from == to || !to.is_integer() || fits(from, to) {
        return v;
    }
    if *to == CType::Bool {
        return bin(BinOp::Ne, v, int(0, span), span);
    }
    wrap(v, to)
}

/// A C binary operator on two values (before wrapping).
pub(crate) fn arith(op: CBinOp, a: s::Expr, b: s::Expr, span: Span) -> s::Expr {
    let o = match op {
        CBinOp::Mul => BinOp::Mul,
        CBinOp::Div => BinOp::Div,
        CBinOp::Rem => BinOp::Rem,
        CBinOp::Add => BinOp::Add,
        CBinOp::Sub => BinOp::Sub,
        CBinOp::Shl => BinOp::Shl,
        CBinOp::Shr => BinOp::Shr,
        CBinOp::Lt => BinOp::Lt,
        CBinOp::Gt => BinOp::Gt,
        CBinOp::Le => BinOp::Le,
        CBinOp::Ge => BinOp::Ge,
        CBinOp::Eq => BinOp::Eq,
        CBinOp::Ne => BinOp::Ne,
        CBinOp::BitAnd => BinOp::BitAnd,
        CBinOp::BitXor => BinOp::BitXor,
        CBinOp::BitOr => BinOp::BitOr,
        CBinOp::LAnd => BinOp::And,
        CBinOp::LOr => BinOp::Or,
        CBinOp::Comma => unreachable!("comma is sequenced, not computed"),
    };
    bin(o, a, b, span)
}

#[cfg(test)]
mod tests {
    use super::super::syntax::name;
    use super::*;

    /// Evaluates the constant expressions `wrap` and `convert` build.
    fn eval(e: &s::Expr) -> i64 {
        match &e.kind {
            s::ExprKind::Int(v) => *v,
            s::ExprKind::Name(n) if n.name == "BIG" => 1 << 40,
            s::ExprKind::Unary(op, a) => crate::ir::eval_unary(*op, eval(a)),
            s::ExprKind::Binary(op, a, b) => crate::ir::eval_binary(*op, eval(a), eval(b)).unwrap(),
            other => panic!("not a constant: {other:?}"),
        }
    }

    #[test]
    fn wraps_like_c() {
        let u32t = CType::int(32, false);
        let i32t = CType::int(32, true);
        let sp = Span::default();
        // A value the constant folding in `wrap` cannot see: BIG = 2^40.
        let big = || name("BIG", sp);
        assert_eq!(
            eval(&wrap(bin(BinOp::Sub, big(), int(1, sp), sp), &u32t)),
            0xFFFF_FFFF
        );
        assert_eq!(
            eval(&wrap(
                bin(BinOp::Add, big(), int(0x8000_0000, sp), sp),
                &i32t
            )),
            i32::MIN as i64
        );
        assert_eq!(
            eval(&wrap(bin(BinOp::Sub, int(0, sp), big(), sp), &i32t)),
            0
        );
        assert_eq!(eval(&wrap(int(-1, sp), &u32t)), 0xFFFF_FFFF);
        assert_eq!(eval(&convert(int(-1, sp), &i32t, &u32t)), 4294967295);
        assert_eq!(eval(&convert(int(0xFFFF_FFFF, sp), &u32t, &i32t)), -1);
        assert_eq!(eval(&convert(int(7, sp), &i32t, &CType::Bool)), 1);
        assert!(fits(&CType::Bool, &i32t) && fits(&CType::int(16, false), &i32t));
        assert!(!fits(&u32t, &i32t) && !fits(&i32t, &u32t));
    }
}
