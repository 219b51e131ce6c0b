//! What the GPU showed against what the model allows: the histogram of
//! final outcomes of every environment, the outcomes the model allows but
//! no launch showed, and those a launch showed that the model forbids (a
//! soundness bug of the model, or of the hardware). Pure data: the tests
//! recompute the verdicts of committed histograms.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How often one final outcome was seen in one environment, split by
/// whether the instance's CTAs shared an SM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCount {
    /// `P1:r1=0; x=2`, as the model's outcomes are written.
    pub outcome: String,
    /// Whether the test's final condition holds for it.
    pub condition: bool,
    /// Instances whose threads all ran on one SM.
    pub one_sm: u64,
    /// Instances whose CTAs ran on two or more SMs.
    pub several_sms: u64,
}

impl OutcomeCount {
    pub fn count(&self) -> u64 {
        self.one_sm + self.several_sms
    }
}

/// The launches of one environment.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnvRun {
    pub environment: String,
    pub launches: u32,
    pub instances: u64,
    /// Instances in which some thread was still spinning at its deadline.
    pub unfinished: u64,
    /// Wall seconds of the launches (with copying the results back).
    pub seconds: f64,
    pub outcomes: Vec<OutcomeCount>,
}

/// The comparison of a test's runs with the model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Outcomes seen that the model does not allow, with their counts.
    pub seen_forbidden: Vec<(String, u64)>,
    /// Outcomes the model allows that no launch showed.
    pub allowed_unseen: Vec<String>,
    /// Instances that did not finish, over all environments.
    pub unfinished: u64,
    /// Some instance did not finish although the model says every fair
    /// execution terminates.
    pub hang_forbidden: bool,
}

impl Verdict {
    /// Whether the hardware did something the model forbids.
    pub fn forbidden(&self) -> bool {
        !self.seen_forbidden.is_empty() || self.hang_forbidden
    }
}

/// Counts per outcome over every environment.
pub fn totals(runs: &[EnvRun]) -> BTreeMap<String, u64> {
    let mut t = BTreeMap::new();
    for r in runs {
        for o in &r.outcomes {
            *t.entry(o.outcome.clone()).or_insert(0) += o.count();
        }
    }
    t
}

/// Compares `runs` with the model's `allowed` outcomes and, for a
/// liveness test, its answer to "does every fair execution terminate".
pub fn judge(allowed: &[String], terminates: Option<bool>, runs: &[EnvRun]) -> Verdict {
    let allowed_set: BTreeSet<&str> = allowed.iter().map(String::as_str).collect();
    let seen = totals(runs);
    let unfinished = runs.iter().map(|r| r.unfinished).sum();
    Verdict {
        seen_forbidden: seen
            .iter()
            .filter(|(o, n)| **n > 0 && !allowed_set.contains(o.as_str()))
            .map(|(o, n)| (o.clone(), *n))
            .collect(),
        allowed_unseen: allowed
            .iter()
            .filter(|o| seen.get(*o).copied().unwrap_or(0) == 0)
            .cloned()
            .collect(),
        unfinished,
        hang_forbidden: terminates == Some(true) && unfinished > 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(env: &str, outcomes: &[(&str, bool, u64, u64)], unfinished: u64) -> EnvRun {
        EnvRun {
            environment: env.into(),
            launches: 1,
            instances: outcomes.iter().map(|o| o.2 + o.3).sum::<u64>() + unfinished,
            unfinished,
            seconds: 0.0,
            outcomes: outcomes
                .iter()
                .map(|&(o, c, a, b)| OutcomeCount {
                    outcome: o.into(),
                    condition: c,
                    one_sm: a,
                    several_sms: b,
                })
                .collect(),
        }
    }

    #[test]
    fn forbidden_and_unseen_outcomes_are_named() {
        let allowed = vec!["r=0".to_string(), "r=1".to_string(), "r=2".to_string()];
        let runs = [
            run("plain", &[("r=0", false, 10, 0), ("r=1", false, 0, 5)], 0),
            run("stress", &[("r=1", false, 3, 3), ("r=7", true, 0, 2)], 0),
        ];
        let v = judge(&allowed, None, &runs);
        assert_eq!(v.seen_forbidden, vec![("r=7".to_string(), 2)]);
        assert_eq!(v.allowed_unseen, vec!["r=2".to_string()]);
        assert!(v.forbidden());
        assert_eq!(totals(&runs)["r=1"], 11);
    }

    #[test]
    fn a_hang_is_forbidden_only_where_the_model_says_it_terminates() {
        let allowed = vec!["r=0".to_string()];
        let runs = [run("plain", &[("r=0", false, 4, 0)], 3)];
        assert!(judge(&allowed, Some(true), &runs).hang_forbidden);
        assert!(!judge(&allowed, Some(false), &runs).forbidden());
        assert!(!judge(&allowed, None, &runs).forbidden());
        let quiet = [run("plain", &[("r=0", false, 4, 0)], 0)];
        assert!(!judge(&allowed, Some(true), &quiet).forbidden());
    }
}
