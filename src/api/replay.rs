//! Replaying a saved counterexample file: reading it, finding its spec,
//! and replaying it under the recorded configuration (the CLI's `replay`
//! and the fuzz harness call the same code).

use super::{config_of, model_of, prepare, Error, SpecSource};
use crate::report::{spec_hash, SavedCounterexample, SpecLocation};
use crate::trace::{replay, ReplayOutcome};
use std::path::Path;

/// A saved counterexample (`--out DIR`) read from `text`, the content of
/// the file at `path` (errors name its line and column).
pub fn parse_counterexample(path: &Path, text: &str) -> Result<SavedCounterexample, Error> {
    serde_json::from_str(text).map_err(|e| {
        Error::Usage(format!(
            "{}:{}:{}: not a gsync-check counterexample: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// The spec a saved counterexample at `path` was recorded on: a built-in
/// by name, or a file relative to the counterexample's folder.
pub fn counterexample_spec(saved: &SavedCounterexample, path: &Path) -> Result<SpecSource, Error> {
    match saved.spec_location(path) {
        SpecLocation::Builtin(name) => SpecSource::builtin(&name).ok_or_else(|| {
            Error::Usage(format!(
                "the counterexample names built-in spec `{name}`, which does not exist"
            ))
        }),
        SpecLocation::File(spec_path) => SpecSource::from_file(&spec_path).map_err(|e| {
            Error::Usage(format!(
                "{} (the counterexample's spec, `{}`, is found relative to the counterexample's folder)",
                e.render(false).trim_end().trim_start_matches("error: "),
                saved.source
            ))
        }),
    }
}

/// Replays `saved` on `spec` under the recorded configuration. A spec
/// that no longer parses is an error (located); a recorded configuration
/// the spec refuses is a corrupt recording (spec unchanged) or a changed
/// spec.
pub fn replay_counterexample(
    saved: &SavedCounterexample,
    spec: &SpecSource,
) -> Result<ReplayOutcome, Error> {
    match prepare(spec, &config_of(&saved.config)) {
        Ok(prepared) => Ok(replay(&model_of(&prepared), saved, &spec.text)),
        Err(e @ Error::Spec(..)) => Err(e),
        Err(Error::Usage(m)) => {
            let reason = format!("the recorded configuration is refused: {m}");
            Ok(if spec_hash(&spec.text) == saved.spec_hash {
                ReplayOutcome::Corrupt { step: 0, reason }
            } else {
                ReplayOutcome::SpecChanged { step: 0, reason }
            })
        }
    }
}
