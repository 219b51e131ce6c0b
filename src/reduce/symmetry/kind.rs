//! What the block-id inference (`ids`) knows a slot holds: a lattice of
//! constants, ranges, plain data and (scaled) block or SM ids, read by the
//! ownership shapes of indices (`shapes`) too.

/// What a slot (local or memory variable) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Nothing flows in (yet).
    Bottom,
    /// Always this constant.
    Const(i64),
    /// Ordinary data, never a block id.
    Plain,
    /// `id + k` for a block id `id`, or a constant sentinel.
    Id(i64),
    /// `a * (blockIdx / g) + c` (`a != 0`, and not `g = a = 1`, which is
    /// `Id(c)`): a scaled SM id (`g` blocks per SM), or a scaled block id
    /// (`g = 1`). Held in locals and used as an index or compared with
    /// constants only; never stored in memory.
    Unit { g: i64, a: i64, c: i64 },
    /// `blockIdx % g` (`g >= 2`): the block's rank within its SM, only
    /// compared with constants (which singles out that rank).
    Rank(i64),
    /// Plain data known to lie in `lo..=hi`.
    Range(i64, i64),
    /// Mixed use: symmetry cannot rename it.
    Top,
}

impl Kind {
    pub(super) fn join(self, other: Kind) -> Kind {
        use Kind::*;
        match (self, other) {
            (Bottom, x) | (x, Bottom) => x,
            (Top, _) | (_, Top) => Top,
            (Const(a), Const(b)) if a == b => Const(a),
            (Const(_) | Range(..), Const(_) | Range(..)) => {
                let (a, b) = (self.range().unwrap(), other.range().unwrap());
                Range(a.0.min(b.0), a.1.max(b.1))
            }
            (Const(_) | Plain | Range(..), Const(_) | Plain | Range(..)) => Plain,
            (Id(k), Id(j)) if k == j => Id(k),
            (Id(k), Const(_)) | (Const(_), Id(k)) => Id(k),
            (Unit { .. }, Const(_)) => self,
            (Const(_), Unit { .. }) => other,
            (Unit { .. }, Unit { .. }) | (Rank(_), Rank(_)) if self == other => self,
            _ => Top,
        }
    }
}

impl Kind {
    /// The values a constant or range may take.
    pub(super) fn range(self) -> Option<(i64, i64)> {
        match self {
            Kind::Const(c) => Some((c, c)),
            Kind::Range(lo, hi) => Some((lo, hi)),
            _ => None,
        }
    }

    /// `a * (blockIdx / g) + c`, normalized.
    pub(super) fn unit(g: i64, a: i64, c: i64) -> Kind {
        match (g, a) {
            (_, 0) => Kind::Const(c),
            (1, 1) => Kind::Id(c),
            _ => Kind::Unit { g, a, c },
        }
    }

    /// This kind as `a * (blockIdx / g) + c`: `(g, a, c)`.
    pub(super) fn as_unit(self) -> Option<(i64, i64, i64)> {
        match self {
            Kind::Id(c) => Some((1, 1, c)),
            Kind::Unit { g, a, c } => Some((g, a, c)),
            _ => None,
        }
    }

    /// Renamed by symmetry: a block or SM id, possibly scaled.
    pub(super) fn is_name(self) -> bool {
        self.as_unit().is_some()
    }
}
