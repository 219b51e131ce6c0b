//! The CUDA backend, over the IR alone: a lowered [`Program`] as a
//! self-contained CUDA C++ file ([`emit`](mod@emit); expressions in
//! [`expr`], memory operations in `access`, orders and scopes spelled by
//! [`spell`]), compiled with NVRTC ([`nvrtc`]) and run on a GPU through the
//! driver API ([`device`]) under a watchdog, with the device's counts
//! checked against the program's properties ([`harness`]); and the
//! `grid.sync()` baseline the barrier benchmark measures against
//! ([`baseline`]).
//!
//! Nothing here parses a spec, model-checks it or builds a report: that is
//! `crate::gpu`, which calls this module. Everything that touches CUDA
//! loads its libraries at run time (cudarc's dynamic loading), so the crate
//! builds and tests on machines without it.
//!
//! [`Program`]: crate::ir::Program

mod access;
pub(crate) mod baseline;
pub mod device;
pub mod emit;
pub mod expr;
pub(crate) mod harness;
mod names;
pub mod nvrtc;
pub(crate) mod spell;

pub use emit::{emit, EmitOptions, Emitted};
