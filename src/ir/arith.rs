//! The language's arithmetic on 64-bit two's complement integers (and, on
//! their bits, IEEE floats: `ir::float`): what the
//! model computes, what lowering folds in constant expressions, and what
//! the CUDA backend's helpers are tested against.

use super::{BinOp, UnOp};

/// An operation the language leaves without a value: a runtime error of
/// the spec (a violation when the model runs it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithFault {
    DivisionByZero,
    NegativeShift,
}

impl ArithFault {
    pub(crate) fn label(self) -> &'static str {
        match self {
            ArithFault::DivisionByZero => "divides by zero",
            ArithFault::NegativeShift => "shifts by a negative count",
        }
    }
}

impl std::fmt::Display for ArithFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ArithFault::DivisionByZero => "division by zero",
            ArithFault::NegativeShift => "negative shift count",
        })
    }
}

/// The value of a binary operator on 64-bit two's complement integers, as
/// book/src/language.md ("Arithmetic") defines it: `+ - *` wrap; `x << s`
/// is `x * 2^s` wrapped (0 once `s >= 64`); `x >> s` is `floor(x / 2^s)`
/// (0 or -1 once `s >= 64`); `/` truncates and `%` takes the dividend's
/// sign, with `i64::MIN / -1` wrapping to `i64::MIN` and `i64::MIN % -1 = 0`.
/// A zero divisor or a negative shift count has no value. The CUDA
/// backend's helpers (`src/cuda/arith.h`) compute the same.
pub fn binary(op: BinOp, x: i64, y: i64) -> Result<i64, ArithFault> {
    if matches!(op, BinOp::Shl | BinOp::Shr) && y < 0 {
        return Err(ArithFault::NegativeShift);
    }
    if matches!(op, BinOp::Div | BinOp::Rem) && y == 0 {
        return Err(ArithFault::DivisionByZero);
    }
    Ok(match op {
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
        BinOp::Shl => x.checked_shl(shift_count(y)).unwrap_or(0),
        BinOp::Shr => x >> shift_count(y).min(63),
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x.wrapping_div(y),
        BinOp::Rem => x.wrapping_rem(y),
        BinOp::Float(op, f) => super::float::binary(op, f, x, y),
    })
}

/// A non-negative shift count as `u32`, saturating (any count from 64 on
/// shifts every bit out).
fn shift_count(y: i64) -> u32 {
    u32::try_from(y).unwrap_or(u32::MAX)
}

/// The value of a unary operator.
pub fn unary(op: UnOp, x: i64) -> i64 {
    match op {
        UnOp::Not => (x == 0) as i64,
        UnOp::Neg => x.wrapping_neg(),
        UnOp::BitNot => !x,
        UnOp::Float(op, f) => super::float::unary(op, f, x),
        UnOp::Convert(from, to) => super::float::convert(from, to, x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_by_the_width_or_more_shift_every_bit_out() {
        let shl = |x, s| binary(BinOp::Shl, x, s);
        let shr = |x, s| binary(BinOp::Shr, x, s);
        assert_eq!(shl(1, 63), Ok(i64::MIN));
        assert_eq!(shl(1, 64), Ok(0), "not masked to 1 << 0");
        assert_eq!(shl(-1, 1000), Ok(0));
        assert_eq!(shl(3, i64::MAX), Ok(0));
        assert_eq!(shr(i64::MIN, 63), Ok(-1));
        assert_eq!(shr(-5, 64), Ok(-1));
        assert_eq!(shr(5, 64), Ok(0));
        assert_eq!(shr(-5, 1), Ok(-3), "floor, not truncation");
        assert_eq!(shl(1, -1), Err(ArithFault::NegativeShift));
        assert_eq!(shr(1, i64::MIN), Err(ArithFault::NegativeShift));
    }

    #[test]
    fn division_truncates_and_wraps_its_one_overflow() {
        let div = |x, y| binary(BinOp::Div, x, y);
        let rem = |x, y| binary(BinOp::Rem, x, y);
        assert_eq!(div(-7, 2), Ok(-3));
        assert_eq!(rem(-7, 2), Ok(-1));
        assert_eq!(rem(7, -2), Ok(1));
        assert_eq!(div(i64::MIN, -1), Ok(i64::MIN), "not division by zero");
        assert_eq!(rem(i64::MIN, -1), Ok(0));
        assert_eq!(div(1, 0), Err(ArithFault::DivisionByZero));
        assert_eq!(rem(i64::MIN, 0), Err(ArithFault::DivisionByZero));
        assert_eq!(binary(BinOp::Mul, i64::MIN, -1), Ok(i64::MIN));
        assert_eq!(unary(UnOp::Neg, i64::MIN), i64::MIN);
    }
}
