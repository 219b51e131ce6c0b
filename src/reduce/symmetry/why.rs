//! Why no symmetry is used, as data (`format::reductions` words it): the
//! state has words the reduction does not describe, or the code uses block
//! ids other than as names ([`Asymmetry`]).

use crate::ir::AtomicOp;
use serde::{Deserialize, Serialize};

/// Why the blocks of a program are not interchangeable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Asymmetry {
    /// The spec has 64-bit variables (a value's two words would have to
    /// move together).
    WideVariables,
    /// The state has words the reduction does not describe.
    UndescribedWords,
    /// Blocks form a ring and some are singled out: only the identity
    /// rotation is left.
    RingSingledOut,
    /// No two blocks are interchangeable.
    NoneInterchangeable,
    /// An invariant depends on the thread evaluating it.
    InvariantPerThread,
    /// The instruction at `line` (its label) uses a block id so.
    At { line: String, what: IdUse },
    /// An invariant uses a block id so.
    Invariant(IdUse),
    /// Blocks are grouped into SMs of several sizes (these).
    SmSizes(Vec<i64>),
    /// Blocks form a ring and are grouped into SMs.
    RingInSms,
    /// The variable or local `name` holds these values.
    Holds { name: String, what: Holds },
    /// The array `name` is indexed so.
    Indexed { name: String, how: Indexed },
}

/// A use of a block, SM or rank id other than as a name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdUse {
    /// A block id used as a number or condition.
    BlockIdAsNumber,
    /// An SM id used as a number or condition.
    SmIdAsNumber,
    /// A block's rank in its SM used as a number.
    RankAsNumber,
    /// Block ids combined with other data.
    Combined,
    /// An atomic operation other than exchange and CAS on a block id.
    AtomicOnId { op: AtomicOp },
    /// The atomic operation mixes a block id with data.
    AtomicMixes { op: AtomicOp },
    /// An instruction (its IR name) the reduction does not handle yet.
    Unhandled { op: String },
}

/// What a variable or local holds that the reduction cannot rename.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Holds {
    /// Block ids and other data.
    IdsAndData,
    /// SM ids or ranks (a variable).
    SmIdsOrRanks,
    /// A block's rank in its SM (a local).
    Rank,
    /// Block ids that do not fit its type.
    BlockIdsTooWide,
    /// SM ids that do not fit its type.
    IdsTooWide,
}

/// How an array is indexed that gives its words no one owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Indexed {
    /// Both by block ids and by other data.
    Mixed,
    /// By `q * nblocks + blockIdx`, but it is not a multiple of nblocks
    /// long.
    InterleavedUneven,
    /// By indices that may reach another block's or SM's words.
    Overlapping,
    /// By SMs of another size.
    OtherSmSize,
}
