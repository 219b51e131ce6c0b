//! Comparing the reports of two checks of one spec: the violation kinds
//! found, and whether a counterexample replays on the real semantics.

use gsync_check::api::{self, SpecSource};
use gsync_check::model::ViolationKind;
use gsync_check::report::{Report, SavedCounterexample};
use gsync_check::trace::{replay, ReplayOutcome};

pub fn kinds(r: &Report) -> Vec<ViolationKind> {
    r.violations.iter().map(|v| v.kind).collect()
}

/// Whether every counterexample of `report` (found with reductions or
/// without) replays on the real semantics, ending in its kind of
/// violation; otherwise what did not.
pub fn replays(spec: &SpecSource, report: &Report) -> Result<(), String> {
    for v in &report.violations {
        let saved = SavedCounterexample::new(report, v, &spec.text);
        let prepared = api::prepare(spec, &api::config_of(&report.config))
            .map_err(|e| format!("{}: the replay's configuration is refused: {e}", spec.name))?;
        let model = api::model_of(&prepared);
        match replay(&model, &saved, &spec.text) {
            ReplayOutcome::Reproduced { kind, .. } if kind == v.kind => {}
            other => {
                return Err(format!(
                    "{}: the {} counterexample does not replay: {other:?}",
                    spec.name, v.kind
                ))
            }
        }
    }
    Ok(())
}

pub fn assert_replays(spec: &SpecSource, report: &Report) {
    if let Err(e) = replays(spec, report) {
        panic!("{e}");
    }
}
