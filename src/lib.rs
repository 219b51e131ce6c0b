#![warn(unreachable_pub)]
//! gsync-check: a model checker for GPU synchronization algorithms.
//!
//! `ARCHITECTURE.md` at the repository root is the map. In short, each
//! layer depends only on those before it: `spec` (text → AST; `cu` reads
//! CUDA into it) → `ir` (one launch's per-thread program) → `explore` (a
//! generic search over any `TransitionSystem`) ← `model` (the semantics;
//! reductions as adapters) → `check` (properties, over a narrow trait) →
//! `report` (what a run found, as data) → `trace` (counterexamples on the
//! model) → `format` (text, SARIF, JUnit, SVG). `api` is the entry point;
//! `cuda` is a backend over `ir` that `gpu` drives; `litmus` runs herd
//! tests on the model and the GPU; `bench` is the scaling benchmark.

pub mod api;
#[cfg(feature = "native")]
pub mod bench;
pub(crate) mod check;
#[cfg(feature = "native")]
pub mod cli;
pub mod clock;
#[cfg(feature = "cuda-frontend")]
pub(crate) mod cu;
#[cfg(feature = "gpu")]
pub mod cuda;
#[cfg(feature = "dist")]
pub(crate) mod dist;
pub mod explore;
pub mod format;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod ir;
pub mod litmus;
#[cfg(feature = "cuda-frontend")]
pub mod llvm;
pub mod model;
pub mod reduce;
pub mod report;
pub mod spec;
pub mod trace;
#[cfg(feature = "args")]
pub mod tune;
