//! What a run found, as data: the serde model of a check's report (its
//! options, verdict, statistics and violations), of a counterexample in it,
//! of a counterexample saved to a file, and of a `verify` case. Building
//! traces is `trace`'s job; showing reports, `format`'s.

mod counterexample;
mod fix;
mod run;
mod saved;
mod verify;

pub use crate::check::{AmpleSets, DistributedRun, FullGraph, Off, ReductionLog, SearchNote};
pub use counterexample::{Access, SourcePos, Step, Trace};
pub use fix::{FixStatus, LineReplacement, SuggestedFix};
pub use run::{Limit, Measured, Report, RunConfig, Stats, Verdict, ViolationReport};
pub use saved::{spec_hash, SavedCounterexample, SpecLocation};
pub use verify::{CaseOutcome, CaseResult};
