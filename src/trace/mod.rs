//! Counterexample traces on the model: building the readable [`Trace`] of
//! a schedule by replaying it, finding where in the spec its violation
//! shows, and replaying a saved counterexample against the spec.
//!
//! [`Trace`]: crate::report::Trace

mod counterexample;
mod location;
mod replay;

pub use counterexample::build_trace;
pub use location::violation_location;
pub use replay::{replay, ReplayOutcome};
