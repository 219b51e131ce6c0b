//! The lowered per-thread program.
//!
//! A spec is lowered for one launch configuration: parameters and launch
//! constants are known, so array sizes and initial values are numbers.
//! Procedures are inlined, so the program every thread runs is one flat
//! instruction list (`pc` = index) whose expressions are pure and
//! thread-local: every memory access is an instruction of its own, which
//! is what makes each one a separate step of the thread. Where each
//! procedure was inlined is kept (`Program::inlined`), so a backend can
//! emit one function per procedure.

mod arith;
mod atomic;
pub(crate) mod cfg;
pub(crate) mod float;
mod init;
pub mod ptx;
mod types;

pub use arith::{binary as eval_binary, unary as eval_unary, ArithFault};
pub use atomic::atomic_result;
pub use init::InitExpr;
pub use types::{BinOp, FCmp, Float, FloatBin, FloatUn, Num, Participants, Storage, Type, UnOp};

use crate::diag::{Source, Span};
use serde::{Deserialize, Serialize};

/// Index of an instruction.
pub type Pc = u32;
/// Index of a thread-local slot.
pub type LocalId = u32;
/// Index of a memory variable.
pub type VarId = u32;

/// The shape of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub blocks: u32,
    pub threads_per_block: u32,
    pub warp_size: u32,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch {
            blocks: 2,
            threads_per_block: 1,
            warp_size: 32,
        }
    }
}

impl Launch {
    /// `blocks` blocks, the rest as [`Launch::default`].
    pub fn of_blocks(blocks: u32) -> Launch {
        Launch {
            blocks,
            ..Launch::default()
        }
    }
}

impl Launch {
    pub fn threads(&self) -> u32 {
        self.blocks * self.threads_per_block
    }
}

/// A `global` or `shared` variable.
#[derive(Clone, Debug)]
pub struct MemVar {
    pub name: String,
    pub storage: Storage,
    pub ty: Type,
    pub volatile: bool,
    /// Number of elements (1 for a scalar).
    pub len: u32,
    pub is_array: bool,
    /// Initial raw values (`to_raw`), one per element; for `shared`,
    /// `len * blocks` values, block-major.
    pub init: Vec<u64>,
    pub span: Span,
}

/// A thread-local slot: a `local` variable, a procedure local or parameter,
/// or a temporary introduced by lowering.
#[derive(Clone, Debug)]
pub struct LocalVar {
    pub name: String,
    pub ty: Type,
    /// Initial raw value per thread (top-level `local` may depend on the thread).
    pub init: LocalInit,
}

#[derive(Clone, Debug)]
pub enum LocalInit {
    Zero,
    /// One raw value per global thread index.
    PerThread(Vec<u64>),
}

/// A launch constant that differs per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Builtin {
    BlockIdx,
    ThreadIdx,
    LaneId,
    WarpId,
}

/// A pure expression over thread-local state (and, in invariants only,
/// global memory).
#[derive(Clone, Debug)]
pub enum Expr {
    Const(i64),
    Local(LocalId),
    Builtin(Builtin),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a * b + c` on floats, rounded once (`ir::float::fma`).
    Fma(Float, Box<[Expr; 3]>),
    /// A read of global memory; only in `check invariant(...)`.
    Global(VarId, Option<Box<Expr>>),
}

/// A memory location: a variable and, for arrays, an index.
#[derive(Clone, Debug)]
pub struct Loc {
    pub var: VarId,
    pub index: Option<Expr>,
}

/// Scope of a memory operation or fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Cta,
    Gpu,
    Sys,
}

/// Memory order of an access or fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// A plain access (`ld.weak`/`st.weak`).
    Weak,
    /// A `volatile` access (PTX: relaxed at system scope).
    Volatile,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Sc,
}

/// The order a `.name` qualifier spells (the inverse of `order_name`); the
/// spec language and the PTX litmus translator spell orders alike.
pub(crate) fn order_named(name: &str) -> Option<Order> {
    use Order::*;
    [Weak, Volatile, Relaxed, Acquire, Release, AcqRel, Sc]
        .into_iter()
        .find(|o| order_name(*o) == name)
}

/// The scope a PTX `.cta`, `.gpu` or `.sys` qualifier names (the inverse
/// of `scope_name`).
pub(crate) fn scope_named(name: &str) -> Option<Scope> {
    [Scope::Cta, Scope::Gpu, Scope::Sys]
        .into_iter()
        .find(|s| scope_name(*s) == name)
}

pub(crate) fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

pub(crate) fn order_name(o: Order) -> &'static str {
    match o {
        Order::Weak => "weak",
        Order::Volatile => "volatile",
        Order::Relaxed => "relaxed",
        Order::Acquire => "acquire",
        Order::Release => "release",
        Order::AcqRel => "acq_rel",
        Order::Sc => "sc",
    }
}

/// What an atomic access does to memory, for the order C++ gives it.
#[cfg(feature = "cuda-frontend")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicAccess {
    Load,
    Store,
    ReadModifyWrite,
}

/// The order of the access of a C++ `seq_cst` atomic, which `fence.sc` at
/// its scope precedes: `ld.acquire`, `st.relaxed`, `atom.acquire`. This is
/// NVIDIA's PTX ABI for C++ atomics (PTX writer's guide, "Atomics
/// Application Binary Interface"; its recommended load) and what libcu++
/// emits (`cuda/std/__atomic/functions/cuda_ptx_generated.h`); the ABI
/// allows stronger orders, so both CUDA front ends model this one, the
/// weakest a conforming compiler may emit.
#[cfg(feature = "cuda-frontend")]
pub(crate) fn seq_cst_access_order(access: AtomicAccess) -> Order {
    match access {
        AtomicAccess::Load | AtomicAccess::ReadModifyWrite => Order::Acquire,
        AtomicAccess::Store => Order::Relaxed,
    }
}

/// How a memory access or fence is ordered: its order at its scope (PTX's
/// `.sem` and `.scope` qualifiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemOrder {
    pub order: Order,
    pub scope: Scope,
}

impl MemOrder {
    pub fn new(order: Order, scope: Scope) -> MemOrder {
        MemOrder { order, scope }
    }

    /// This ordering applied to an access of `loc`.
    pub fn at(self, loc: Loc) -> MemAccess {
        MemAccess {
            loc,
            order: self.order,
            scope: self.scope,
        }
    }
}

/// One access to memory by a load, store or atomic: where, and how it is
/// ordered. The IR, the memory models, the CUDA emitter and the litmus
/// translator all read and build accesses through this one shape.
#[derive(Clone, Debug)]
pub struct MemAccess {
    pub loc: Loc,
    pub order: Order,
    pub scope: Scope,
}

impl MemAccess {
    pub fn mem_order(&self) -> MemOrder {
        MemOrder::new(self.order, self.scope)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtomicOp {
    Cas,
    Exch,
    Add,
    Sub,
    Inc,
    Dec,
    Or,
    And,
    Xor,
    Max,
    Min,
}

impl AtomicOp {
    pub fn cuda_name(self) -> &'static str {
        match self {
            AtomicOp::Cas => "atomicCAS",
            AtomicOp::Exch => "atomicExch",
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Inc => "atomicInc",
            AtomicOp::Dec => "atomicDec",
            AtomicOp::Or => "atomicOr",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Max => "atomicMax",
            AtomicOp::Min => "atomicMin",
        }
    }

    /// Number of value operands after the location.
    pub fn operands(self) -> usize {
        match self {
            AtomicOp::Cas => 2,
            _ => 1,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VoteKind {
    Any,
    All,
    Ballot,
}

/// One instruction of the per-thread program.
#[derive(Clone, Debug)]
pub enum Op {
    /// `dst = value` on thread-local state.
    Assign {
        dst: LocalId,
        value: Expr,
    },
    Load {
        dst: LocalId,
        access: MemAccess,
    },
    Store {
        access: MemAccess,
        value: Expr,
    },
    /// A read-modify-write; `dst` receives the old value.
    Atomic {
        dst: Option<LocalId>,
        op: AtomicOp,
        access: MemAccess,
        operands: Vec<Expr>,
    },
    Fence(MemOrder),
    SyncThreads,
    /// `bar.sync(id, count)` / `bar.arrive(id, count)`: a named barrier of
    /// the block (PTX's 16 per CTA). `count` threads complete an instance
    /// (`None`: every running thread of the block); `arrive` does not wait.
    NamedBarrier {
        id: u32,
        count: Option<Expr>,
        arrive: bool,
    },
    /// `__kernel_boundary()`: the end of one kernel and the start of the
    /// next, a grid-wide barrier whose waiting blocks give up their slots.
    KernelBoundary,
    SyncWarp {
        mask: Expr,
    },
    Vote {
        dst: LocalId,
        kind: VoteKind,
        mask: Expr,
        pred: Expr,
    },
    ActiveMask {
        dst: LocalId,
    },
    /// `__shfl_sync` (any kind): each lane named by `mask` reads `value`
    /// as lane `src` of its warp computed it. The front end computes `src`
    /// from the shuffle's kind, offset and width (PTX's `shfl.sync`); a
    /// lane whose source is itself, outside the warp or not among the
    /// lanes that take part keeps its own value (PTX: undefined). Orders
    /// no memory.
    Shuffle {
        dst: LocalId,
        mask: Expr,
        value: Expr,
        src: Expr,
    },
    /// Fermi `LDSLK`: try to take the lock bit of `loc`, load its value.
    LockBitTry {
        pred: LocalId,
        value: Option<LocalId>,
        loc: Loc,
    },
    /// Fermi `STSUL`: store and release the lock bit.
    LockBitRelease {
        loc: Loc,
        value: Expr,
    },
    Backoff,
    Assert {
        cond: Expr,
        message: String,
    },
    CriticalEnter {
        weight: Expr,
    },
    CriticalExit,
    PhaseEnter,
    PhaseExit,
    Progress,
    Branch {
        cond: Expr,
        then_pc: Pc,
        else_pc: Pc,
    },
    Jump {
        target: Pc,
    },
    /// The thread finishes the harness.
    Exit,
}

impl Op {
    /// A warp collective: the lanes its mask names execute it together
    /// (`__syncwarp`, votes, `__activemask()`, shuffles).
    pub fn is_warp_collective(&self) -> bool {
        matches!(
            self,
            Op::SyncWarp { .. } | Op::Vote { .. } | Op::ActiveMask { .. } | Op::Shuffle { .. }
        )
    }
}

impl Op {
    /// The access of a load, store or atomic; `None` for every other
    /// instruction (the lock-bit instructions included: they have no order).
    pub fn access(&self) -> Option<&MemAccess> {
        match self {
            Op::Load { access, .. } | Op::Store { access, .. } | Op::Atomic { access, .. } => {
                Some(access)
            }
            _ => None,
        }
    }

    /// Reads and writes only the thread's own locals: the model may run it in
    /// the same step as the instruction before it. Entering or leaving a
    /// critical section or phase is *not* thread-local: the checks read every
    /// thread's position, and fusing `enter; exit` into one step would hide
    /// the moment a thread is inside.
    pub fn is_thread_local(&self) -> bool {
        matches!(
            self,
            Op::Assign { .. }
                | Op::Backoff
                | Op::Assert { .. }
                | Op::Progress
                | Op::Branch { .. }
                | Op::Jump { .. }
        )
    }
}

#[derive(Clone, Debug)]
pub struct Instr {
    pub op: Op,
    /// The source text this instruction comes from.
    pub span: Span,
}

/// The properties the harness asks for.
#[derive(Clone, Debug, Default)]
pub struct Checks {
    /// Bound on the summed weights inside `critical` (1 for mutual exclusion).
    pub capacity: Option<i64>,
    /// `check mutual_exclusion` was written (for the report's wording).
    pub mutual_exclusion: bool,
    pub barrier: bool,
    /// `check invariant(expr)`: expressions over global memory.
    pub invariants: Vec<(Expr, Span)>,
}

/// One inlined procedure activation: the code range `call..end` is
/// `params[i] = args[i]` (pcs `call..body`), then the body, whose returns
/// jump to `end` after assigning the result to `ret`. Every activation of
/// a procedure is lowered from the same text, so all have the same shape.
#[derive(Clone, Debug)]
pub struct InlinedCall {
    pub proc: String,
    /// The call expression.
    pub span: Span,
    pub call: Pc,
    pub body: Pc,
    pub end: Pc,
    /// Parameter slots, in order, and the argument values (caller's slots).
    pub params: Vec<LocalId>,
    pub args: Vec<Expr>,
    /// The slot the caller reads the result from.
    pub ret: Option<LocalId>,
    /// The slots made for this activation (parameters, its `let`s and
    /// temporaries, and those of the calls it makes).
    pub locals: std::ops::Range<LocalId>,
    /// Enclosing activations (0: called from the harness).
    pub depth: usize,
    /// The calls this body makes directly (indices into `Program::inlined`).
    pub calls: Vec<usize>,
}

/// What a program's source says of itself (a spec's `//! source:` and
/// `//! description:` lines), for a backend's generated file.
#[derive(Clone, Debug, Default)]
pub struct About {
    pub source: Option<String>,
    pub description: Option<String>,
}

/// A spec lowered for one launch.
#[derive(Clone, Debug)]
pub struct Program {
    pub source: Source,
    pub about: About,
    pub launch: Launch,
    /// Parameter values in force, in declaration order.
    pub params: Vec<(String, i64)>,
    pub vars: Vec<MemVar>,
    pub locals: Vec<LocalVar>,
    pub code: Vec<Instr>,
    pub participants: Participants,
    pub checks: Checks,
    /// Constructs parsed whose semantics this version does not implement yet.
    pub unsupported: Vec<(String, Span)>,
    /// The GPU of each block, when blocks run on different GPUs (litmus
    /// tests); empty: one GPU. Only `.sys` scope spans GPUs.
    pub devices: Vec<u32>,
    /// Where procedures were inlined, innermost first.
    pub inlined: Vec<InlinedCall>,
    /// The spec's top-level `local` variables are the first slots, in
    /// declaration order: their initializers as written (`None`: zero),
    /// for a backend that computes them on each thread (the CUDA emitter).
    pub spec_locals: Vec<Option<InitExpr>>,
    /// Kernels launched together (`check FILE.cu --launch ... --launch
    /// ...`): which blocks each one's are, in launch order; empty for a
    /// single launch, whose blocks are simply numbered.
    pub launches: Vec<LaunchPart>,
}

/// One kernel among several launched together: its blocks are the
/// program's `first_block..first_block + blocks`, numbered from 0 in its
/// own grid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchPart {
    pub kernel: String,
    pub first_block: u32,
    pub blocks: u32,
}

/// One argument of a kernel launch as the host passes it
/// (`kernel<<<G, B>>>(data, 3)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallArg {
    /// An integer literal.
    Int(i64),
    /// A host variable: a buffer (for a pointer parameter), or an integer
    /// whose value `--arg NAME=V` gives.
    Name(String),
}

/// A block's name for messages and traces: `block 3` for a single
/// launch; `consumer block 1` (its index in its own grid) when kernels
/// are launched together.
pub fn block_label(launches: &[LaunchPart], block: u32) -> String {
    match launches
        .iter()
        .find(|p| (p.first_block..p.first_block + p.blocks).contains(&block))
    {
        Some(p) => format!("{} block {}", p.kernel, block - p.first_block),
        None => format!("block {block}"),
    }
}

impl Program {
    /// The name of a memory location for traces (`lock`, `flags[2]`, `done@b1`).
    pub fn location_name(&self, var: VarId, index: u32, block: u32) -> String {
        let v = &self.vars[var as usize];
        let mut name = v.name.clone();
        if v.is_array {
            name.push_str(&format!("[{index}]"));
        }
        if v.storage == Storage::Shared {
            name.push_str(&format!("@b{block}"));
        }
        name
    }

    /// The named barrier ids the program uses, ascending: a barrier's
    /// *slot* is its position here.
    pub fn barrier_ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .code
            .iter()
            .filter_map(|i| match i.op {
                Op::NamedBarrier { id, .. } => Some(id),
                _ => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Reinterprets a raw stored value of type `ty` as an integer. A `u64` at
/// or above 2^63 reads as negative: expressions compute on `i64`.
pub fn from_raw(ty: Type, raw: u64) -> i64 {
    match ty {
        Type::Bool => (raw != 0) as i64,
        Type::U8 => (raw as u8) as i64,
        Type::U16 => (raw as u16) as i64,
        Type::U32 => (raw as u32) as i64,
        Type::I8 => (raw as u8 as i8) as i64,
        Type::I16 => (raw as u16 as i16) as i64,
        Type::I32 => raw as u32 as i32 as i64,
        Type::U64 | Type::I64 => raw as i64,
    }
}

/// Wraps an integer to the width of `ty` (two's complement), as a store
/// does: the raw bits, which fit in 32 bits except for `u64` and `i64`.
pub fn to_raw(ty: Type, value: i64) -> u64 {
    match ty {
        Type::Bool => (value != 0) as u64,
        Type::U8 | Type::I8 => value as u8 as u64,
        Type::U16 | Type::I16 => value as u16 as u64,
        Type::U32 | Type::I32 => value as u32 as u64,
        Type::U64 | Type::I64 => value as u64,
    }
}

/// Wraps an integer to `ty` and back: the value a variable of `ty` holds after
/// being assigned `value`.
pub fn wrap(ty: Type, value: i64) -> i64 {
    from_raw(ty, to_raw(ty, value))
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    #[test]
    fn wrap_follows_twos_complement() {
        assert_eq!(wrap(Type::I32, i32::MAX as i64 + 1), i32::MIN as i64);
        assert_eq!(wrap(Type::U32, -1), u32::MAX as i64);
        assert_eq!(wrap(Type::U8, 256 + 7), 7);
        assert_eq!(wrap(Type::I8, 200), -56);
        assert_eq!(wrap(Type::Bool, 5), 1);
        assert_eq!(wrap(Type::I64, -5), -5);
        assert_eq!(to_raw(Type::U64, -1), u64::MAX);
        assert_eq!(to_raw(Type::U32, -1), u64::from(u32::MAX));
        assert_eq!(from_raw(Type::I32, 0xFFFF_FFFF), -1);
    }
}

#[cfg(test)]
mod tests;
