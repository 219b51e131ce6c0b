//! `check --suggest-fix`: after a violation, `repair`'s search for the
//! least strengthening of orders, scopes and fences under which the same
//! check verifies. Only a change that was checked is offered as a fix;
//! otherwise the report says why there is none (the saturated spec still
//! fails: not an ordering bug) or that a limit stopped the search.

use super::diff;
use super::expect::Budget;
use super::repair::{repair, RepairOptions};
use super::report::Status;
use crate::api::{CheckConfig, Error, SpecSource};
use crate::report::{FixStatus, SuggestedFix};

/// Seconds at most for the fix's re-check at one block more.
const SCALE_SECONDS: f64 = 10.0;

/// Searches a fix of `spec`'s violation under `config`, within `budget`
/// (its deadline is the whole command's `--max-seconds`).
pub fn suggest_fix(
    spec: &SpecSource,
    config: &CheckConfig,
    budget: Budget,
) -> Result<SuggestedFix, Error> {
    let options = RepairOptions {
        budget,
        scale_seconds: Some(SCALE_SECONDS),
        progress: false,
    };
    let t = repair(spec, config, &options)?;
    let mut fix = SuggestedFix {
        status: FixStatus::Found,
        why: String::new(),
        help: Vec::new(),
        diff: String::new(),
        replacements: Vec::new(),
        minimal: t.maximal,
        caveat: None,
        checks: t.checks,
        seconds: Some(t.seconds),
    };
    let found = |fix: &mut SuggestedFix| {
        fix.help = t.changes.iter().map(|c| c.help()).collect();
        fix.diff = diff::unified(&t.original, &t.text, &t.origin, "fixed");
        for f in &t.cuda {
            fix.diff += &diff::unified(&f.original, &f.text, &f.path, "fixed");
        }
        fix.replacements = diff::line_replacements(&t.original, &t.text);
        fix.why = format!(
            "checked: with it the check verifies{}",
            match t.scale.iter().find(|s| s.agree == Some(true)) {
                Some(s) => format!(", and verifies at --blocks {} too", s.blocks),
                None => String::new(),
            }
        );
    };
    match &t.status {
        Status::Done => found(&mut fix),
        Status::Refuted(why) => {
            found(&mut fix);
            fix.caveat = Some(why.clone());
        }
        Status::NoFix(why) => {
            fix.status = FixStatus::None;
            fix.why = format!("no ordering change cures it: {why}");
        }
        // The check that found the violation verifies when repeated: only
        // a limit differs (repair checks with the command's budget).
        Status::NothingToRepair => {
            fix.status = FixStatus::Inconclusive;
            fix.why = "the repeated check verified: the violation depends on a limit".into();
        }
        Status::Inconclusive(why) if t.changes.is_empty() => {
            fix.status = FixStatus::Inconclusive;
            fix.why = format!("the search for a fix was stopped: {why}");
        }
        // Stopped on the way down from the saturated spec: what it holds
        // verifies, but may be little better than fences everywhere, which
        // no one should apply as a suggested change.
        Status::Inconclusive(why) => {
            fix.status = FixStatus::Inconclusive;
            let stop = match why.starts_with("the time ran out") {
                true => {
                    "--max-seconds (or Ctrl-C) stopped the search for the least one".to_string()
                }
                false => format!("the search for the least one was stopped: {why}"),
            };
            fix.why = format!(
                "an ordering change cures it (with every order, scope and fence at its strongest the check verifies), but {stop}; raise the limit, or run `gsync-check repair`"
            );
        }
    }
    Ok(fix)
}
