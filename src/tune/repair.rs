//! `repair`: the least strengthening of a spec's orders, scopes and
//! fences that makes one check verify. The spec is saturated (every point
//! at its strongest, `volatile` on every shared variable, a system-scope
//! SC fence before every statement and at the end of every block): if
//! even that is violated, no ordering change helps. Otherwise the search
//! of `relax` walks the saturated spec back down towards the original,
//! so that what remains is a fix no single part of which can be undone.

use super::expect::{Budget, Checker, Outcome, Target};
use super::imports::load;
use super::level::Level;
use super::report::{Status, Tuned};
use super::scale::{scale_checks, Reference};
use super::search::{Descent, Search};
use crate::api::{CheckConfig, Error, SpecSource};
use crate::spec::ast::Expectation;

/// How to repair.
#[derive(Clone, Copy, Debug, Default)]
pub struct RepairOptions {
    pub budget: Budget,
    /// Re-check the fix at one block more, bounded by this many seconds.
    pub scale_seconds: Option<f64>,
    pub progress: bool,
}

/// Repairs `spec` so that it verifies under `config`.
pub fn repair(
    spec: &SpecSource,
    config: &CheckConfig,
    options: &RepairOptions,
) -> Result<Tuned, Error> {
    let started = crate::clock::Instant::now();
    let loaded = load(spec, true)?;
    let (original_texts, points) = (&loaded.original, &loaded.points);
    let spec = spec.named_by_header(&loaded.file.header);
    let budget = options.budget;
    let target = Target {
        expect: Expectation {
            args: Vec::new(),
            verdict: "verified".into(),
            kind: None,
            line: 0,
        },
        config: budget.apply(config.clone()),
    };
    let mut checker = Checker::new(&spec, vec![target]);
    let original = checker.evaluate(original_texts);
    let start: Vec<Level> = points.iter().map(|p| p.original).collect();
    let unchanged = |status: Status, violation: Option<String>, checks: usize| {
        let mut t = Tuned::new(
            &spec,
            points,
            &Descent::none(start.clone()),
            original_texts,
            original_texts.clone(),
        );
        t.maximal = false;
        t.status = status;
        t.violation = violation;
        t.checks = checks;
        t.seconds = started.elapsed().as_secs_f64();
        t
    };
    let violation = match original {
        Outcome::Holds => return Ok(unchanged(Status::NothingToRepair, None, 1)),
        Outcome::Undecided { got, .. } => {
            let why = format!("the check of the original reached a limit: {got}");
            return Ok(unchanged(Status::Inconclusive(why), None, 1));
        }
        Outcome::Fails { got, .. } => got,
    };
    if checker.ptx_lines.is_empty() {
        let why = "the check runs under --memory-model sc, where orders, scopes and fences change nothing".to_string();
        return Ok(unchanged(Status::NoFix(why), Some(violation), 1));
    }
    let saturated: Vec<Level> = points.iter().map(|p| p.top()).collect();
    let mut search = Search::new(original_texts, points, start.clone(), checker, budget);
    search.progress = options.progress;
    if options.progress {
        eprintln!(
            "repair {}: {violation}; {} points (fence insertions included)",
            spec.name,
            points.len()
        );
    }
    match search.try_levels(&saturated) {
        Outcome::Holds => {}
        Outcome::Fails { got, .. } => {
            let why = format!("with every access at its strongest order and scope, every shared variable volatile and a system-scope SC fence before every statement, the check still gives {got}: the violation is not one of ordering");
            return Ok(unchanged(Status::NoFix(why), Some(violation), 2));
        }
        Outcome::Undecided { got, .. } => {
            let why = format!("the check of the saturated spec reached a limit: {got}");
            return Ok(unchanged(Status::Inconclusive(why), Some(violation), 2));
        }
    }
    let descent = search.descend(saturated);
    let result = search.render(&descent.levels);
    let mut tuned = Tuned::new(&spec, points, &descent, original_texts, result.clone());
    tuned.violation = Some(violation);
    if let Some(s) = options.scale_seconds {
        let (targets, lines) = (search.checker.targets(), &search.checker.ptx_lines);
        tuned.scale = scale_checks(
            &spec,
            &result,
            targets,
            lines,
            Reference::Verified,
            s,
            &budget,
        );
    }
    tuned.status = Status::of(&descent, &tuned.scale);
    tuned.checks = search.checker.checks;
    tuned.seconds = started.elapsed().as_secs_f64();
    Ok(tuned)
}
