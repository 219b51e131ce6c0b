//! `relax`: the weakest orders and narrowest scopes of a spec under which
//! every one of its `//! expect` lines still holds.

use super::expect::{targets, Budget, Checker, Outcome};
use super::imports::load;
use super::level::{Class, Level};
use super::points::Point;
use super::report::{Status, Tuned};
use super::scale::{scale_checks, Reference, ScaleCheck};
use super::search::{Descent, Search};
use crate::api::{Error, SpecSource};

/// How to relax.
#[derive(Clone, Copy, Debug, Default)]
pub struct RelaxOptions {
    pub budget: Budget,
    /// Re-check the result at one block more than the expectations name,
    /// each check bounded by this many seconds (`None`: no re-check).
    pub scale_seconds: Option<f64>,
    /// Progress lines on stderr.
    pub progress: bool,
}

/// Relaxes `spec`, which must meet its expectations, at least one of them
/// under `ptx`.
pub fn relax(spec: &SpecSource, options: &RelaxOptions) -> Result<Tuned, Error> {
    let started = crate::clock::Instant::now();
    let loaded = load(spec, false)?;
    let (file, original, points) = (&loaded.file, &loaded.original, &loaded.points);
    let spec = spec.named_by_header(&file.header);
    if file.header.expects.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the header states no expectation: relax keeps every `//! expect` line true, so add them first",
            spec.origin
        )));
    }
    let budget = options.budget;
    let mut checker = Checker::new(&spec, targets(&spec, &file.header.expects, &budget)?);
    let status = match checker.evaluate(original) {
        Outcome::Holds => None,
        Outcome::Fails { line, got } => {
            return Err(Error::Usage(format!(
                "{}:{line}: the spec does not meet this expectation (the check says: {got}); relax starts from a spec that meets its expectations (`gsync-check verify` shows them; `gsync-check repair` looks for a fix)",
                spec.origin
            )))
        }
        Outcome::Undecided { line, got } => Some(Status::Inconclusive(format!(
            "the original's check of line {line} reached a limit: {got}"
        ))),
    };
    if status.is_none() && checker.ptx_lines.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no expectation is checked under --memory-model ptx, where orders and scopes mean something: add a `//! expect --memory-model ptx: ...` line",
            spec.origin
        )));
    }
    let start: Vec<Level> = points.iter().map(|p| p.original).collect();
    let floor = points.iter().map(|p| bottom(p.class)).collect();
    let mut search = Search::new(original, points, floor, checker, budget);
    search.progress = options.progress;
    if options.progress {
        eprintln!(
            "relax {}: {} points, {} expectations",
            spec.name,
            points.len(),
            search.checker.targets().len()
        );
    }
    let Some(status) = status else {
        let mut tuned = round(&spec, points, &mut search, options);
        if let Status::Refuted(why) = tuned.status.clone() {
            // The launches that refuted it become expectations (the
            // original's verdicts there), and the search starts again.
            let extra = tuned.scale.iter().filter_map(ScaleCheck::as_target);
            search.add_targets(extra.collect());
            tuned = round(&spec, points, &mut search, options);
            tuned.notes.push(format!(
                "a first result failed at a larger launch ({why}); the search was run again with that launch as an expectation"
            ));
        }
        tuned.notes.extend(only_what_is_checked(&tuned));
        tuned.seconds = started.elapsed().as_secs_f64();
        return Ok(tuned);
    };
    let mut tuned = Tuned::new(
        &spec,
        points,
        &Descent::none(start),
        original,
        original.clone(),
    );
    tuned.status = status;
    tuned.checks = search.checker.checks;
    tuned.seconds = started.elapsed().as_secs_f64();
    Ok(tuned)
}

/// One descent from the original, its result re-checked at a larger launch.
fn round(
    spec: &SpecSource,
    points: &[Point],
    search: &mut Search,
    options: &RelaxOptions,
) -> Tuned {
    let start: Vec<Level> = points.iter().map(|p| p.original).collect();
    let descent = search.descend(start);
    let result = search.render(&descent.levels);
    let mut tuned = Tuned::new(spec, points, &descent, search.original, result.clone());
    if let Some(s) = options.scale_seconds {
        let original = Reference::Original(search.original);
        let (targets, lines) = (search.checker.targets(), &search.checker.ptx_lines);
        tuned.scale = scale_checks(spec, &result, targets, lines, original, s, &options.budget);
    }
    tuned.status = Status::of(&descent, &tuned.scale);
    tuned.checks = search.checker.checks;
    tuned
}

/// Where a fence was removed or an order weakened, a reminder that the
/// result is as strong as the expectations and no stronger: a fence that
/// publishes data the harness never passes through the primitive (a
/// barrier checked for its control property only, a semaphore with an
/// empty critical section) is not needed by them, and goes.
fn only_what_is_checked(tuned: &Tuned) -> Option<String> {
    let c = &tuned.counts;
    (c.fences_removed > 0 || c.orders > 0).then(|| {
        "the result keeps exactly what the `//! expect` lines check: an order that only publishes data the harness does not pass through the primitive is not needed for them; where the primitive protects or publishes data in real use, check the relaxed version with a harness that passes that data (a write before, an assert after)".to_string()
    })
}

/// The weakest level of a class: where `relax` may go.
pub(super) fn bottom(class: Class) -> Level {
    use crate::ir::{Order, Scope};
    match class {
        Class::Atomic => Level::new(Order::Relaxed, Scope::Cta),
        Class::Load | Class::Store => Level::new(Order::Weak, Scope::Cta),
        Class::Fence | Class::Volatile => Level::ABSENT,
        Class::CppLoad | Class::CppStore | Class::CppRmw | Class::CppFence => Level {
            order: Some(Order::Relaxed),
            scope: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::level;
    use super::*;

    #[test]
    fn bottoms_are_below_tops() {
        for class in Class::ALL {
            assert!(level::at_least(class, level::top(class), bottom(class)));
            assert!(level::weaker(class, bottom(class)).is_empty());
        }
    }
}
