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

use crate::check::Finding;
use crate::model::Model;
use crate::report::ViolationReport;

/// A finding of the checker as a report: its trace (stem, then cycle)
/// replayed on `model`, and where in the source it shows.
pub fn violation_report(model: &Model, f: &Finding) -> ViolationReport {
    let (trace, fault) = build_trace(model, &f.schedule, &f.cycle);
    let location = violation_location(model, &f.schedule, &f.cycle, &trace, fault.is_some());
    ViolationReport {
        kind: f.kind,
        property: f.property.to_string(),
        message: f.message.clone(),
        waiting: f.waiting.clone(),
        location,
        trace,
    }
}
