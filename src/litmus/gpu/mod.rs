//! `gsync-check litmus PATH --on-gpu`: the litmus tests run on the GPU, many
//! times, under stress, and what the hardware does compared with what the
//! model allows.
//!
//! [`emit`] turns a test into a CUDA program ([`instr`] one instruction,
//! read through `litmus::decode` as the model's translation reads it;
//! [`layout`] where its threads and memory go), [`stress`] says how each
//! launch is shuffled and stressed, [`run`] launches it and histograms the
//! final outcomes, and [`compare`] sets them against the model's outcomes:
//! allowed but not seen, seen but forbidden; [`corpus`] does it for a file
//! or a directory and [`report`] writes the result. The GPU is reached
//! through `cuda::device` and `cuda::nvrtc` only.

pub mod compare;
pub mod corpus;
pub(crate) mod emit;
pub(crate) mod instr;
pub(crate) mod layout;
pub(crate) mod report;
pub mod run;
pub mod stress;
