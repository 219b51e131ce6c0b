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
/// violation; otherwise what did not. `Ok(n)`: `n` of them could not be
/// judged within the replay's own limits (a deadlock's search for a way
/// out of its end state stopped at the report's state limit).
pub fn replays(spec: &SpecSource, report: &Report) -> Result<usize, String> {
    let mut inconclusive = 0;
    for v in &report.violations {
        let saved = SavedCounterexample::new(report, v, &spec.text);
        let prepared = api::prepare(spec, &api::config_of(&report.config))
            .map_err(|e| format!("{}: the replay's configuration is refused: {e}", spec.name))?;
        let model = api::model_of(&prepared);
        match replay(&model, &saved, &spec.text) {
            ReplayOutcome::Reproduced { kind, .. } if kind == v.kind => {}
            ReplayOutcome::Inconclusive { .. } => inconclusive += 1,
            other => {
                return Err(format!(
                    "{}: the {} counterexample does not replay: {other:?}",
                    spec.name, v.kind
                ))
            }
        }
    }
    Ok(inconclusive)
}

/// Every counterexample of `report` replays, and within its limits.
pub fn assert_replays(spec: &SpecSource, report: &Report) {
    match replays(spec, report) {
        Ok(0) => {}
        Ok(n) => panic!(
            "{}: {n} counterexamples could not be replayed within the limits",
            spec.name
        ),
        Err(e) => panic!("{e}"),
    }
}
