//! gsync-check: a model checker for GPU synchronization algorithms.
//!
//! Layers, each depending only on the ones before it:
//! `spec` (text → AST) → `ir` (per-thread program, CFG) → `model`
//! (semantics as a transition system) → `explore` (generic state-space
//! search) → `check` (properties) → `report` (what a run found, as data)
//! → `trace` (counterexamples built and replayed on the model) → `format`
//! (reports as text, SARIF, JUnit, SVG).

pub mod api;
pub mod bench;
pub mod check;
pub mod cu;
pub mod cuda;
pub mod explore;
pub mod format;
pub mod gpu;
pub mod ir;
pub mod litmus;
pub mod model;
pub mod report;
pub mod spec;
pub mod trace;
