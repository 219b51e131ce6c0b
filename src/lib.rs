//! gsync-check: a model checker for GPU synchronization algorithms.
//!
//! Layers, each depending only on the ones before it:
//! `spec` (text → AST) → `ir` (per-thread program, CFG) → `model`
//! (semantics as a transition system) → `explore` (generic state-space
//! search) → `check` (properties) → `trace` (counterexamples and reports).

pub mod api;
pub mod bench;
pub mod check;
pub mod cu;
pub mod cuda;
pub mod explore;
pub mod gpu;
pub mod ir;
pub mod litmus;
pub mod model;
pub mod spec;
pub mod trace;
