//! The result re-checked at one block more than the expectations name:
//! a relaxation (or a fix) that only holds for small launches is caught.

use super::expect::{verdict_of, Budget, Target, Variant};
use crate::api::{CheckConfig, SpecSource};
use crate::spec::ast::Expectation;
use serde::Serialize;

/// One re-check at a larger launch.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleCheck {
    /// The expect line scaled up (0: the command line's check).
    pub line: u32,
    pub blocks: u32,
    /// What the result must give there: the original's verdict (relax),
    /// or `verified` (repair).
    pub expected: String,
    pub got: String,
    /// `None` where a limit left either check undecided.
    pub agree: Option<bool>,
    /// The configuration re-checked (without the re-check's time bound).
    #[serde(skip)]
    config: CheckConfig,
}

impl ScaleCheck {
    /// The re-check as a target the result must meet: the expected verdict
    /// at the larger launch (where it was refuted).
    pub(super) fn as_target(&self) -> Option<Target> {
        if self.agree != Some(false) {
            return None;
        }
        let (verdict, kind) = match self.expected.split_once(' ') {
            Some((v, k)) => (v.to_string(), Some(k.to_string())),
            None => (self.expected.clone(), None),
        };
        Some(Target {
            expect: Expectation {
                args: vec!["--blocks".into(), self.blocks.to_string()],
                verdict,
                kind,
                line: self.line,
            },
            config: self.config.clone(),
        })
    }
}

/// What the scaled-up check must give.
pub(super) enum Reference<'a> {
    /// The same verdict as this variant (the original).
    Original(&'a Variant),
    Verified,
}

/// Re-checks `result` under every target of `lines` that has the most
/// blocks, with one block more, each check bounded by `seconds`.
pub(super) fn scale_checks(
    spec: &SpecSource,
    result: &Variant,
    targets: &[Target],
    lines: &[u32],
    reference: Reference,
    seconds: f64,
    budget: &Budget,
) -> Vec<ScaleCheck> {
    let chosen: Vec<&Target> = targets
        .iter()
        .filter(|t| lines.contains(&t.expect.line))
        .collect();
    let Some(most) = chosen.iter().map(|t| t.config.launch.blocks).max() else {
        return Vec::new();
    };
    let mut done = Vec::new();
    let mut out = Vec::new();
    for t in chosen
        .into_iter()
        .filter(|t| t.config.launch.blocks == most)
    {
        let mut config = t.config.clone();
        config.launch.blocks = most + 1;
        if done.contains(&config) || budget.spent() {
            continue;
        }
        done.push(config.clone());
        let bounded = |mut c: crate::api::CheckConfig| {
            let own = crate::explore::deadline_in(Some(seconds));
            c.limits.deadline = match (own, budget.deadline) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            c
        };
        let expected = match reference {
            Reference::Original(original) => verdict_of(spec, original, &bounded(config.clone())),
            Reference::Verified => "verified".into(),
        };
        let got = verdict_of(spec, result, &bounded(config.clone()));
        let undecided = |s: &str| s.starts_with("inconclusive") || s.starts_with("error");
        let agree = (!undecided(&expected) && !undecided(&got)).then(|| expected == got);
        out.push(ScaleCheck {
            line: t.expect.line,
            blocks: most + 1,
            expected,
            got,
            agree,
            config,
        });
    }
    out
}
