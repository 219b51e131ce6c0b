//! The initial values of the spec's top-level `local` variables as the spec
//! writes them, for a backend that computes them where each thread runs
//! (`spec::lower` reads them from the spec).
//!
//! Lowering evaluates every initializer for every thread
//! (`LocalInit::PerThread`), which is what the model reads. A backend that
//! emits code for any launch (the CUDA emitter) writes the expression
//! instead, with parameters and launch constants by name, so the generated
//! file reads like the spec.

use super::{BinOp, Builtin, UnOp};

/// A constant expression as written.
#[derive(Clone, Debug)]
pub enum InitExpr {
    Const(i64),
    /// A parameter or launch constant (`nblocks`, `threads_per_block`, `warp_size`).
    Named(String),
    /// The thread's coordinates (`blockIdx`, `threadIdx`, `laneId`, `warpId`).
    Builtin(Builtin),
    Unary(UnOp, Box<InitExpr>),
    Binary(BinOp, Box<InitExpr>, Box<InitExpr>),
    Ternary(Box<InitExpr>, Box<InitExpr>, Box<InitExpr>),
}
