//! `float`: an f32 is its IEEE-754 bits, a `u32` in the spec. Copies,
//! loads and stores move the bits unchanged; a comparison is IEEE's,
//! written as integer arithmetic on the bits, which is what the GPU's
//! `setp.{eq,lt,le,gt,ge}.f32` and `setp.neu.f32` (C's `!=`) compute
//! exactly: NaN is unordered (only `!=` holds), `-0 == +0`, and otherwise
//! the order of the reals. Unary minus flips the sign bit (`neg.f32`), a
//! `float` tested as a `bool` is `!= 0`.
//!
//! Arithmetic on floats and conversions between a float and an integer
//! are refused: their results depend on rounding choices nvcc makes by its
//! flags (FMA contraction of `a * b + c` by default, `-use_fast_math`'s
//! approximate division and flush-to-zero), which the source alone does
//! not fix; a model that picked one would check a program nvcc may not
//! build. `double` is refused too (the model's values are 64 bits wide,
//! and no checked code needs it).

use super::func::FnLower;
use super::syntax::{bin, int, un};
use super::R;
use crate::clang_front::ast::{CBinOp, CExpr, CType};
use crate::diag::Diagnostic;
use crate::spec::ast::{self as s, BinOp, Span, UnOp};

/// Whether values of `t` are floating point.
pub(super) fn is_float(t: &CType) -> bool {
    matches!(t, CType::Float { .. })
}

/// The located refusal of a floating-point operation the subset lacks.
pub(super) fn refused(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("{what} is outside the CUDA subset gsync-check reads"),
    )
    .label("floating point")
    .hint("a `float` may be loaded, stored, copied, compared, negated and tested; its arithmetic and conversions depend on nvcc's rounding flags (FMA contraction, -use_fast_math) and are not modelled")
}

impl<'p> FnLower<'_, 'p> {
    /// `a op b` on two floats: a comparison, or refused.
    pub(super) fn float_binary(
        &mut self,
        op: CBinOp,
        a: &'p CExpr,
        b: &'p CExpr,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        use CBinOp::*;
        if !matches!(op, Lt | Gt | Le | Ge | Eq | Ne) {
            return Err(refused(span, "floating-point arithmetic"));
        }
        let x = self.rvalue(a, pre)?;
        let x = self.snapshot(x, &a.ty, pre)?;
        let y = self.rvalue(b, pre)?;
        let y = self.snapshot(y, &b.ty, pre)?;
        Ok(compare(op, &x, &y, span))
    }

    /// `-a`, `+a`, `!a` on a float; `++`, `--` and `~` are refused.
    pub(super) fn float_unary(
        &mut self,
        op: crate::clang_front::ast::CUnOp,
        a: &'p CExpr,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        use crate::clang_front::ast::CUnOp::*;
        let x = self.rvalue(a, pre)?;
        match op {
            Neg => Ok(bin(BinOp::BitXor, x, int(SIGN, span), span)),
            Plus => Ok(x),
            LNot => {
                let x = self.snapshot(x, &a.ty, pre)?;
                Ok(compare(CBinOp::Eq, &x, &int(0, span), span))
            }
            _ => Err(refused(span, "this operation on a floating-point value")),
        }
    }

    /// `(T)inner` where either side is a float: the same float, a `bool`
    /// (`!= 0`), or refused.
    pub(super) fn float_cast(
        &mut self,
        e: &'p CExpr,
        inner: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let span = e.span;
        if e.ty == inner.ty {
            return self.rvalue(inner, pre);
        }
        if is_float(&inner.ty) && e.ty == CType::Bool {
            let x = self.rvalue(inner, pre)?;
            let x = self.snapshot(x, &inner.ty, pre)?;
            return Ok(compare(CBinOp::Ne, &x, &int(0, span), span));
        }
        Err(refused(
            span,
            &format!(
                "converting `{}` to `{}`",
                inner.ty.describe(),
                e.ty.describe()
            ),
        ))
    }
}

const SIGN: i64 = 0x8000_0000;
const MAGNITUDE: i64 = 0x7FFF_FFFF;
const INFINITY: i64 = 0x7F80_0000;

/// IEEE's `x op y` on two f32 bit patterns (each read more than once, so
/// free of effects).
pub(super) fn compare(op: CBinOp, x: &s::Expr, y: &s::Expr, span: Span) -> s::Expr {
    let ordered = bin(
        BinOp::And,
        un(UnOp::Not, is_nan(x.clone(), span), span),
        un(UnOp::Not, is_nan(y.clone(), span), span),
        span,
    );
    let rel = |o| bin(o, key(x.clone(), span), key(y.clone(), span), span);
    let holds = |o| bin(BinOp::And, ordered.clone(), rel(o), span);
    match op {
        CBinOp::Lt => holds(BinOp::Lt),
        CBinOp::Le => holds(BinOp::Le),
        CBinOp::Gt => holds(BinOp::Gt),
        CBinOp::Ge => holds(BinOp::Ge),
        CBinOp::Eq => holds(BinOp::Eq),
        CBinOp::Ne => un(UnOp::Not, holds(BinOp::Eq), span),
        other => unreachable!("{other:?} is not a comparison"),
    }
}

fn magnitude(x: s::Expr, span: Span) -> s::Expr {
    bin(BinOp::BitAnd, x, int(MAGNITUDE, span), span)
}

/// Exponent all ones and a fraction: a NaN.
fn is_nan(x: s::Expr, span: Span) -> s::Expr {
    bin(BinOp::Gt, magnitude(x, span), int(INFINITY, span), span)
}

/// An integer ordered as the (non-NaN) floats are: the magnitude, negated
/// for a negative sign (so both zeros are 0).
fn key(x: s::Expr, span: Span) -> s::Expr {
    let negative = bin(
        BinOp::Ne,
        bin(BinOp::BitAnd, x.clone(), int(SIGN, span), span),
        int(0, span),
        span,
    );
    let m = magnitude(x, span);
    s::Expr {
        kind: s::ExprKind::Ternary(
            Box::new(negative),
            Box::new(un(UnOp::Neg, m.clone(), span)),
            Box::new(m),
        ),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates `compare` on two constant bit patterns.
    fn eval(e: &s::Expr) -> i64 {
        match &e.kind {
            s::ExprKind::Int(v) => *v,
            s::ExprKind::Bool(b) => i64::from(*b),
            s::ExprKind::Unary(op, a) => crate::ir::eval_unary(*op, eval(a)),
            s::ExprKind::Binary(op, a, b) => crate::ir::eval_binary(*op, eval(a), eval(b)).unwrap(),
            s::ExprKind::Ternary(c, a, b) => {
                if eval(c) != 0 {
                    eval(a)
                } else {
                    eval(b)
                }
            }
            other => panic!("not a constant: {other:?}"),
        }
    }

    /// Every comparison agrees with Rust's IEEE comparisons of `f32` (the
    /// GPU's `setp` on the same bits) on zeros, subnormals, infinities,
    /// NaNs and ordinary values of both signs.
    #[test]
    fn comparisons_are_ieee() {
        let values = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            0.25,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xFFC0_0001),
            f32::from_bits(0x7F80_0001),
        ];
        let sp = Span::default();
        for a in values {
            for b in values {
                let (x, y) = (int(a.to_bits().into(), sp), int(b.to_bits().into(), sp));
                let cases: [(CBinOp, bool); 6] = [
                    (CBinOp::Lt, a < b),
                    (CBinOp::Le, a <= b),
                    (CBinOp::Gt, a > b),
                    (CBinOp::Ge, a >= b),
                    (CBinOp::Eq, a == b),
                    (CBinOp::Ne, a != b),
                ];
                for (op, want) in cases {
                    assert_eq!(
                        eval(&compare(op, &x, &y, sp)) != 0,
                        want,
                        "{a:?} {op:?} {b:?}"
                    );
                }
            }
        }
    }
}
