#![warn(unreachable_pub)]
//! gsync-check: a model checker for GPU synchronization algorithms.
//!
//! `ARCHITECTURE.md` at the repository root is the map. In short, each
//! layer depends only on those before it: `diag` (sources, spans, located
//! errors) → `ir` (one launch's per-thread program, and the vocabulary it
//! owns: value types, storage, operators, orders, scopes) ← the front ends
//! (`spec`: text → AST → IR; `clang_front` reads CUDA with libclang into the
//! spec's AST; `llvm` lowers LLVM IR into the IR) · `explore` (a generic
//! search over any `TransitionSystem`) ← `model` (the semantics) ← `reduce`
//! (the reductions, as adapters) → `check` (properties, over a narrow
//! trait) → `report` (what a run found, as data) → `trace`
//! (counterexamples on the model) → `format` (text, SARIF, JUnit, SVG).
//! `api` is the entry point; `cuda` is a backend over `ir` that `gpu`
//! drives; `litmus` runs herd tests on the model and the GPU;
//! `bench_checker` is the checker's scaling benchmark.

pub mod api;
#[cfg(feature = "native")]
pub mod bench_checker;
pub(crate) mod check;
#[cfg(feature = "cuda-frontend")]
pub(crate) mod clang_front;
#[cfg(feature = "native")]
pub mod cli;
pub mod clock;
#[cfg(feature = "gpu")]
pub mod cuda;
pub mod diag;
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
pub mod rng;
pub mod spec;
pub mod trace;
#[cfg(feature = "native")]
pub mod tune;
