//! What an atomic read-modify-write leaves in memory, following CUDA: the
//! value side of `atomicAdd`, `atomicCAS`, `atomicInc`, ... shared by both
//! memory models (and by the canonical form, which asks whether a CAS
//! would write).

use super::{wrap, AtomicOp};
use crate::ir::Type;

/// The value an atomic on a variable of type `ty` leaves in memory
/// (`None`: unchanged), following CUDA. `atomicMax` and `atomicMin` compare
/// as the type does: unsigned types (a `u64` at or above 2^63 included)
/// unsigned, signed ones on the operand wrapped to the type.
pub fn atomic_result(op: AtomicOp, ty: Type, old: i64, args: [i64; 2]) -> Option<i64> {
    let bits = ty.bits();
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let unsigned = |v: i64| (v as u64) & mask;
    let [a, b] = args;
    Some(match op {
        AtomicOp::Cas => {
            if old == a || unsigned(old) == unsigned(a) {
                b
            } else {
                return None;
            }
        }
        AtomicOp::Exch => a,
        AtomicOp::Add => old.wrapping_add(a),
        AtomicOp::Sub => old.wrapping_sub(a),
        AtomicOp::Or => old | a,
        AtomicOp::And => old & a,
        AtomicOp::Xor => old ^ a,
        AtomicOp::Max | AtomicOp::Min => {
            let ord = if ty.signed() {
                old.cmp(&wrap(ty, a))
            } else {
                unsigned(old).cmp(&unsigned(a))
            };
            let keep_old = match op {
                AtomicOp::Max => ord.is_ge(),
                _ => ord.is_le(),
            };
            if keep_old {
                old
            } else {
                a
            }
        }
        // CUDA: ((old >= limit) ? 0 : (old + 1)), unsigned comparison.
        AtomicOp::Inc => {
            if unsigned(old) >= unsigned(a) {
                0
            } else {
                old + 1
            }
        }
        // CUDA: (((old == 0) || (old > limit)) ? limit : (old - 1)).
        AtomicOp::Dec => {
            if unsigned(old) == 0 || unsigned(old) > unsigned(a) {
                a
            } else {
                old - 1
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_inc_and_dec_follow_cuda() {
        assert_eq!(atomic_result(AtomicOp::Inc, Type::U32, 3, [3, 0]), Some(0));
        assert_eq!(atomic_result(AtomicOp::Inc, Type::U32, 2, [3, 0]), Some(3));
        assert_eq!(atomic_result(AtomicOp::Dec, Type::U32, 0, [5, 0]), Some(5));
        assert_eq!(atomic_result(AtomicOp::Dec, Type::U32, 9, [5, 0]), Some(5));
        assert_eq!(atomic_result(AtomicOp::Dec, Type::U32, 4, [5, 0]), Some(3));
    }

    #[test]
    fn cas_compares_at_the_variable_width() {
        // An i32 holding -1 equals the u32 pattern 0xFFFFFFFF.
        assert_eq!(
            atomic_result(AtomicOp::Cas, Type::I32, -1, [0xFFFF_FFFF, 7]),
            Some(7)
        );
        assert_eq!(atomic_result(AtomicOp::Cas, Type::U32, 1, [0, 7]), None);
        // 64 bits: the whole word is compared.
        let packed = (1i64 << 32) | 5;
        assert_eq!(
            atomic_result(AtomicOp::Cas, Type::U64, packed, [5, 9]),
            None
        );
        assert_eq!(
            atomic_result(AtomicOp::Cas, Type::U64, packed, [packed, 9]),
            Some(9)
        );
    }

    #[test]
    fn max_and_min_compare_as_the_type_does() {
        // A u64 at or above 2^63 is held as a negative i64, but is large.
        let big = i64::MIN;
        assert_eq!(
            atomic_result(AtomicOp::Max, Type::U64, big, [7, 0]),
            Some(big)
        );
        assert_eq!(
            atomic_result(AtomicOp::Min, Type::U64, big, [7, 0]),
            Some(7)
        );
        assert_eq!(
            atomic_result(AtomicOp::Max, Type::I64, big, [7, 0]),
            Some(7)
        );
        // atomicMax(u32, -1): CUDA converts the operand to 0xFFFFFFFF.
        assert_eq!(
            atomic_result(AtomicOp::Max, Type::U32, 3, [-1, 0]),
            Some(-1)
        );
        assert_eq!(
            atomic_result(AtomicOp::Min, Type::I32, -3, [2, 0]),
            Some(-3)
        );
    }
}
