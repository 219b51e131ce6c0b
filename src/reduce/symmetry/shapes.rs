//! Array indices that name a block or an SM: `a[blockIdx]`,
//! `a[k * nblocks + blockIdx]`, `a[blockIdx + c]`, `a[my_sm]`,
//! `a[2 * my_sm + k]` with `k` in `0..2`. The words such an index reaches
//! belong to that block (or SM): symmetry moves them with it. An array
//! indexed both ways, or by other data too, is not described.

use super::kind::Kind;
use super::why::Indexed;
use crate::ir::BinOp;
use crate::ir::{Expr, Program};

/// The shape of an index expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Plain data (no block id in it); `Some` when its range is known.
    Plain(Option<(i64, i64)>),
    /// `a * (blockIdx / g) + k`, `k` in `lo..=hi`.
    Unit { g: i64, a: i64, lo: i64, hi: i64 },
    /// `q * nblocks` for plain `q`.
    Stride,
    /// `q * nblocks + blockIdx` for plain `q`.
    Interleaved,
    /// Anything else with a block id in it.
    Bad,
}

/// How a global array is indexed, over all its accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    /// Never indexed (or a scalar).
    Unused,
    /// By plain data only.
    Plain,
    /// By `a * (blockIdx / g) + k`, `k` in `lo..=hi` over all accesses.
    Unit { g: i64, a: i64, lo: i64, hi: i64 },
    /// By `q * nblocks + blockIdx`.
    Interleaved,
    /// Several ways: the array's words cannot be given an owner.
    Mixed,
}

impl Access {
    pub(super) fn join(self, shape: Shape) -> Access {
        use Access as A;
        match (self, shape) {
            (A::Mixed, _) | (_, Shape::Bad) => A::Mixed,
            (A::Unused | A::Plain, Shape::Plain(_) | Shape::Stride) => A::Plain,
            (A::Unused, Shape::Unit { g, a, lo, hi }) => A::Unit { g, a, lo, hi },
            (
                A::Unit { g, a, lo, hi },
                Shape::Unit {
                    g: g2,
                    a: a2,
                    lo: l2,
                    hi: h2,
                },
            ) if (g, a) == (g2, a2) => A::Unit {
                g,
                a,
                lo: lo.min(l2),
                hi: hi.max(h2),
            },
            (A::Unused | A::Interleaved, Shape::Interleaved) => A::Interleaved,
            // `a[blockIdx]` is `a[0 * nblocks + blockIdx]`.
            (
                A::Interleaved,
                Shape::Unit {
                    g: 1,
                    a: 1,
                    lo: 0,
                    hi: 0,
                },
            ) => A::Interleaved,
            (
                A::Unit {
                    g: 1,
                    a: 1,
                    lo: 0,
                    hi: 0,
                },
                Shape::Interleaved,
            ) => A::Interleaved,
            _ => A::Mixed,
        }
    }
}

/// The shape of index `e`; `kind` gives the kinds of its leaves.
pub(super) fn shape(prog: &Program, blocks: i64, e: &Expr, kind: &dyn Fn(&Expr) -> Kind) -> Shape {
    let of = |e: &Expr| shape(prog, blocks, e, kind);
    if kind(e).is_name() {
        return leaf(kind(e));
    }
    match e {
        Expr::Binary(op, x, y) => {
            let (sx, sy) = (of(x), of(y));
            match (op, sx, sy) {
                (BinOp::Add, u @ Shape::Unit { .. }, Shape::Plain(Some(r)))
                | (BinOp::Add, Shape::Plain(Some(r)), u @ Shape::Unit { .. }) => offset(u, r),
                (BinOp::Sub, u @ Shape::Unit { .. }, Shape::Plain(Some((lo, hi)))) => {
                    offset(u, (-hi, -lo))
                }
                (
                    BinOp::Add,
                    Shape::Unit {
                        g: 1,
                        a: 1,
                        lo: 0,
                        hi: 0,
                    },
                    Shape::Stride,
                )
                | (
                    BinOp::Add,
                    Shape::Stride,
                    Shape::Unit {
                        g: 1,
                        a: 1,
                        lo: 0,
                        hi: 0,
                    },
                ) => Shape::Interleaved,
                (BinOp::Mul, Shape::Unit { g, a, lo, hi }, Shape::Plain(Some((m, m2))))
                | (BinOp::Mul, Shape::Plain(Some((m, m2))), Shape::Unit { g, a, lo, hi })
                    if m == m2 && m > 0 =>
                {
                    Shape::Unit {
                        g,
                        a: a * m,
                        lo: lo * m,
                        hi: hi * m,
                    }
                }
                (BinOp::Mul, Shape::Plain(_), Shape::Plain(Some((n, n2))))
                | (BinOp::Mul, Shape::Plain(Some((n, n2))), Shape::Plain(_))
                    if n == n2 && n == blocks =>
                {
                    Shape::Stride
                }
                (BinOp::Rem, Shape::Plain(_), Shape::Plain(Some((d, d2))))
                    if d == d2 && d > 0 && non_negative(prog, x) =>
                {
                    Shape::Plain(Some((0, d - 1)))
                }
                (_, Shape::Plain(_) | Shape::Stride, Shape::Plain(_) | Shape::Stride) => {
                    leaf(kind(e))
                }
                _ => Shape::Bad,
            }
        }
        _ => leaf(kind(e)),
    }
}

fn offset(u: Shape, (l, h): (i64, i64)) -> Shape {
    match u {
        Shape::Unit { g, a, lo, hi } => Shape::Unit {
            g,
            a,
            lo: lo + l,
            hi: hi + h,
        },
        other => other,
    }
}

fn leaf(k: Kind) -> Shape {
    match k {
        Kind::Bottom | Kind::Plain => Shape::Plain(None),
        Kind::Const(_) | Kind::Range(..) => Shape::Plain(k.range()),
        Kind::Id(_) | Kind::Unit { .. } => {
            let (g, a, c) = k.as_unit().expect("a name");
            Shape::Unit { g, a, lo: c, hi: c }
        }
        Kind::Rank(_) | Kind::Top => Shape::Bad,
    }
}

/// Whether `e` is never negative: an unsigned local or a constant.
fn non_negative(prog: &Program, e: &Expr) -> bool {
    match e {
        Expr::Local(l) => !prog.locals[*l as usize].ty.signed(),
        Expr::Const(c) => *c >= 0,
        _ => false,
    }
}

/// Where an array's owned words lie: `len` words per owner at
/// `base + owner * stride` (blocks or SMs), repeated every `period` words
/// `chunks` times (interleaved arrays: one word per block in each chunk of
/// `nblocks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Owned {
    /// Owned by SMs (of `g` blocks), not blocks.
    pub by_sm: bool,
    pub base: usize,
    pub len: usize,
    pub stride: usize,
    pub period: usize,
    pub chunks: usize,
}

/// The owned words of an array of `len` elements accessed as `access`,
/// with `g` blocks per SM; `Err` when some access could reach another
/// owner's words or fall outside the array for some owners only.
pub(super) fn owned(
    access: Access,
    len: i64,
    blocks: i64,
    g: i64,
) -> Result<Option<Owned>, Indexed> {
    match access {
        Access::Unused | Access::Plain => Ok(None),
        Access::Mixed => Err(Indexed::Mixed),
        Access::Interleaved => {
            if len % blocks != 0 {
                return Err(Indexed::InterleavedUneven);
            }
            Ok(Some(Owned {
                by_sm: false,
                base: 0,
                len: 1,
                stride: 1,
                period: blocks as usize,
                chunks: (len / blocks) as usize,
            }))
        }
        Access::Unit { g: ug, a, lo, hi } => {
            let base = lo.div_euclid(a) * a;
            let units = if ug == 1 {
                blocks
            } else {
                (blocks + ug - 1) / ug
            };
            if hi - base >= a || base < 0 || base + a * units > len {
                return Err(Indexed::Overlapping);
            }
            if ug != 1 && ug != g {
                return Err(Indexed::OtherSmSize);
            }
            Ok(Some(Owned {
                by_sm: ug != 1,
                base: base as usize,
                len: a as usize,
                stride: a as usize,
                period: 0,
                chunks: 1,
            }))
        }
    }
}
