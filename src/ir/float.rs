//! IEEE-754 arithmetic on floats held as their bits: what the model
//! computes for a kernel's floating-point instructions, and what lowering
//! folds when the operands are constants (one implementation for both).
//!
//! Rust's `f32` and `f64` operations round to nearest, ties to even, keep
//! subnormals and are correctly rounded (`+ - * /`, `sqrt`, `mul_add`), as
//! the GPU's `add.rn`, `mul.rn`, `div.rn`, `sqrt.rn` and `fma.rn` are
//! without `-ftz` or `-use_fast_math`. Only a NaN's bits are the model's
//! choice: every NaN an operation makes is the canonical one (`f32`:
//! `0x7fffffff`, what NVIDIA GPUs produce; `f64`: `0x7fffffffffffffff`),
//! so the result never depends on the host. The bit operations (`neg`,
//! `abs`, `copysign`) keep a NaN's bits as they are.

use super::types::{FCmp, Float, FloatBin, FloatUn, Num};
use std::ops::{Add, Div, Mul, Rem, Sub};

/// What this module needs of `f32` and `f64`.
trait Ieee:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
{
    const SIGN: u64;
    const CANONICAL_NAN: u64;
    fn from_word(x: i64) -> Self;
    fn bits(self) -> u64;
    fn is_nan(self) -> bool;
    fn sqrt(self) -> Self;
    fn ceil(self) -> Self;
    fn floor(self) -> Self;
    fn trunc(self) -> Self;
    fn round_ties_even(self) -> Self;
    fn round(self) -> Self;
    fn mul_add(self, b: Self, c: Self) -> Self;
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
    fn to_i64(self) -> i64;
    fn to_u64(self) -> u64;
    fn to_f64(self) -> f64;
}

macro_rules! ieee {
    ($t:ty, $u:ty, $nan:expr) => {
        impl Ieee for $t {
            const SIGN: u64 = 1 << (<$u>::BITS - 1);
            const CANONICAL_NAN: u64 = $nan;
            fn from_word(x: i64) -> Self {
                <$t>::from_bits(x as $u)
            }
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            fn round_ties_even(self) -> Self {
                <$t>::round_ties_even(self)
            }
            fn round(self) -> Self {
                <$t>::round(self)
            }
            fn mul_add(self, b: Self, c: Self) -> Self {
                <$t>::mul_add(self, b, c)
            }
            // `as` rounds to nearest even from an integer and saturates
            // (NaN to 0) to one.
            fn from_i64(x: i64) -> Self {
                x as $t
            }
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn to_u64(self) -> u64 {
                self as u64
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
        }
    };
}

ieee!(f32, u32, 0x7fff_ffff);
ieee!(f64, u64, 0x7fff_ffff_ffff_ffff);

/// A result as it is held: its bits, a NaN made canonical.
fn word<T: Ieee>(v: T) -> i64 {
    (if v.is_nan() {
        T::CANONICAL_NAN
    } else {
        v.bits()
    }) as i64
}

/// A result of bit operations: the bits as they are.
fn raw(bits: u64) -> i64 {
    bits as i64
}

/// `x op y` on floats of format `f`.
pub(crate) fn binary(op: FloatBin, f: Float, x: i64, y: i64) -> i64 {
    match f {
        Float::F32 => binary_in::<f32>(op, x, y),
        Float::F64 => binary_in::<f64>(op, x, y),
    }
}

fn binary_in<T: Ieee>(op: FloatBin, x: i64, y: i64) -> i64 {
    let (a, b) = (T::from_word(x), T::from_word(y));
    match op {
        FloatBin::Add => word(a + b),
        FloatBin::Sub => word(a - b),
        FloatBin::Mul => word(a * b),
        FloatBin::Div => word(a / b),
        FloatBin::Rem => word(a % b),
        FloatBin::Min | FloatBin::Max => match (a.is_nan(), b.is_nan()) {
            (true, true) => word(a),
            (true, false) => word(b),
            (false, true) => word(a),
            (false, false) => {
                // -0 is below +0: the order of the reals, then the sign.
                let a_below = a < b || (a == b && a.bits() & T::SIGN != 0);
                word(if a_below == (op == FloatBin::Min) {
                    a
                } else {
                    b
                })
            }
        },
        FloatBin::CopySign => raw(a.bits() & !T::SIGN | b.bits() & T::SIGN),
        FloatBin::Cmp(p) => i64::from(p.0 & outcome(a, b) != 0),
    }
}

/// The one outcome of comparing `a` with `b`, as an `FCmp` bit.
fn outcome<T: Ieee>(a: T, b: T) -> u8 {
    if a.is_nan() || b.is_nan() {
        FCmp::UNORDERED
    } else if a < b {
        FCmp::LT
    } else if a > b {
        FCmp::GT
    } else {
        FCmp::EQ
    }
}

/// `op x` on a float of format `f`.
pub(crate) fn unary(op: FloatUn, f: Float, x: i64) -> i64 {
    match f {
        Float::F32 => unary_in::<f32>(op, x),
        Float::F64 => unary_in::<f64>(op, x),
    }
}

fn unary_in<T: Ieee>(op: FloatUn, x: i64) -> i64 {
    let a = T::from_word(x);
    match op {
        FloatUn::Neg => raw(a.bits() ^ T::SIGN),
        FloatUn::Abs => raw(a.bits() & !T::SIGN),
        FloatUn::Sqrt => word(a.sqrt()),
        FloatUn::Ceil => word(a.ceil()),
        FloatUn::Floor => word(a.floor()),
        FloatUn::Trunc => word(a.trunc()),
        FloatUn::RoundEven => word(a.round_ties_even()),
        FloatUn::Round => word(a.round()),
    }
}

/// `a * b + c` rounded once (`fma.rn`).
pub(crate) fn fma(f: Float, a: i64, b: i64, c: i64) -> i64 {
    fn fma_in<T: Ieee>(a: i64, b: i64, c: i64) -> i64 {
        word(T::from_word(a).mul_add(T::from_word(b), T::from_word(c)))
    }
    match f {
        Float::F32 => fma_in::<f32>(a, b, c),
        Float::F64 => fma_in::<f64>(a, b, c),
    }
}

/// `x` of type `from` converted to `to`. From an integer: rounded to
/// nearest even. To an integer: toward zero, saturating at the bounds of
/// the integer type PTX's `cvt.rzi` writes (NaN gives 0). That type is
/// 16 bits for an 8-bit result, so the 8 bits are the low ones of the
/// 16-bit value (the local the result is stored in wraps it).
pub(crate) fn convert(from: Num, to: Num, x: i64) -> i64 {
    match (from, to) {
        (Num::Int { signed, .. }, Num::Float(f)) => match f {
            Float::F32 => from_int::<f32>(signed, x),
            Float::F64 => from_int::<f64>(signed, x),
        },
        (Num::Float(f), Num::Int { bits, signed }) => match f {
            Float::F32 => to_int::<f32>(x, bits, signed),
            Float::F64 => to_int::<f64>(x, bits, signed),
        },
        (Num::Float(Float::F32), Num::Float(Float::F64)) => word(f64::from(f32::from_word(x))),
        (Num::Float(Float::F64), Num::Float(Float::F32)) => word(f64::from_word(x) as f32),
        (Num::Float(_), Num::Float(_)) => x,
        // Integer to integer is the lowering's arithmetic, not a conversion.
        (Num::Int { .. }, Num::Int { .. }) => x,
    }
}

fn from_int<T: Ieee>(signed: bool, x: i64) -> i64 {
    word(if signed {
        T::from_i64(x)
    } else {
        T::from_u64(x as u64)
    })
}

fn to_int<T: Ieee>(x: i64, bits: u32, signed: bool) -> i64 {
    let v = T::from_word(x);
    let bits = bits.clamp(16, 64);
    if bits == 64 {
        return if signed {
            v.to_i64()
        } else {
            v.to_u64() as i64
        };
    }
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    // Within 64 bits every bound of a narrower type is exact.
    // (A NaN stays NaN through `clamp`, and `as` makes it 0.)
    v.to_f64().trunc().clamp(lo as f64, hi as f64) as i64
}

#[cfg(test)]
mod tests;
