//! Counterexamples and reports: the serde model of DESIGN.md's report,
//! building a readable trace by replaying a schedule, text rendering, and
//! replay of a saved counterexample.

pub mod counterexample;
pub mod junit;
pub mod location;
pub mod render;
pub mod replay;
pub mod report;
pub mod sarif;
pub mod svg;
pub mod verify;
pub mod xml;

pub use counterexample::{build_trace, Step, Trace};
pub use report::{Report, RunConfig, Stats, Verdict, ViolationReport};
