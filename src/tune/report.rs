//! What `relax` and `repair` found, as serde data: the changes, their
//! counts, whether the result is maximal (minimal), the re-checks at a
//! larger launch, and the verdict of the search.

use super::expect::Variant;
use super::level::{scope_narrowed, Class, Level};
use super::points::Point;
use super::scale::ScaleCheck;
use super::search::Descent;
use crate::api::SpecSource;
use serde::Serialize;

/// The result of a search over a spec's points.
#[derive(Clone, Debug, Serialize)]
pub struct Tuned {
    pub spec: String,
    pub origin: String,
    /// How many points were searched.
    pub points: usize,
    pub counts: Counts,
    pub changes: Vec<Change>,
    /// No single point of the result can move one more step towards its
    /// floor (each such step was checked and refused).
    pub maximal: bool,
    /// The refused single steps that show it.
    pub refusals: Vec<RefusalReport>,
    pub scale: Vec<ScaleCheck>,
    pub status: Status,
    /// `repair`: what the original's check gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<String>,
    /// What the reader should know about how the result was found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Checks run (one per expectation per variant tried).
    pub checks: usize,
    pub seconds: f64,
    /// The result's text.
    #[serde(skip)]
    pub text: String,
    /// The original's text.
    #[serde(skip)]
    pub original: String,
    /// The CUDA files the spec imports, before and after.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cuda: Vec<CudaFile>,
}

/// An imported CUDA file of the spec: its path, and its text before and
/// after the search.
#[derive(Clone, Debug, Serialize)]
pub struct CudaFile {
    pub path: String,
    pub changed: bool,
    #[serde(skip)]
    pub original: String,
    #[serde(skip)]
    pub text: String,
}

impl Tuned {
    /// The result of a search that ended in `descent` (the points start at
    /// their original levels), its status still to be decided.
    pub(super) fn new(
        spec: &SpecSource,
        points: &[Point],
        descent: &Descent,
        original: &Variant,
        result: Variant,
    ) -> Tuned {
        let start: Vec<Level> = points.iter().map(|p| p.original).collect();
        let names: Vec<String> = (original.cuda.iter())
            .map(|(p, _)| p.display().to_string())
            .collect();
        let cuda = (original.cuda.iter().zip(result.cuda))
            .map(|((path, was), (_, now))| CudaFile {
                path: path.display().to_string(),
                changed: *was != now,
                original: was.clone(),
                text: now,
            })
            .collect();
        Tuned {
            spec: spec.name.clone(),
            origin: spec.origin.clone(),
            points: points.len(),
            counts: Counts::of(points, &start, &descent.levels),
            changes: changes(points, &start, &descent.levels, &names),
            maximal: descent.maximal(),
            refusals: refusals(points, descent, &names),
            scale: Vec::new(),
            status: Status::Done,
            violation: None,
            notes: Vec::new(),
            checks: 0,
            seconds: 0.0,
            text: result.spec,
            original: original.spec.clone(),
            cuda,
        }
    }

    /// The exit code: 0 done, 1 refuted at a larger launch or no fix, 3 a limit.
    pub fn exit_code(&self) -> i32 {
        match self.status {
            Status::Done | Status::NothingToRepair => 0,
            Status::Refuted(_) | Status::NoFix(_) => 1,
            Status::Inconclusive(_) => 3,
        }
    }
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status", content = "why")]
pub enum Status {
    /// The search ended with every candidate decided.
    Done,
    /// The spec already verifies under the check `repair` was given.
    NothingToRepair,
    /// No change of orders, scopes or fences cures the violation.
    NoFix(String),
    /// The result fails at a larger launch than the expectations name.
    Refuted(String),
    /// A limit (or Ctrl-C) left the search or some candidates undecided:
    /// the result meets the targets, but is not shown maximal.
    Inconclusive(String),
}

impl Status {
    pub(super) fn of(descent: &Descent, scale: &[ScaleCheck]) -> Status {
        if descent.stopped {
            return Status::Inconclusive(
                "the time ran out (or the run was interrupted) before the search ended: the result meets the expectations, but further steps were not tried".into(),
            );
        }
        if let Some(s) = scale.iter().find(|s| s.agree == Some(false)) {
            return Status::Refuted(format!(
                "at --blocks {} (the options of line {}; 0: the check's) the result gives {}, where {} was expected",
                s.blocks, s.line, s.got, s.expected
            ));
        }
        if descent.undecided > 0 {
            return Status::Inconclusive(format!(
                "{} single steps were left undecided by a limit: the result is not shown maximal",
                descent.undecided
            ));
        }
        Status::Done
    }
}

/// One point whose level changed.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// The imported CUDA file it is in (none: the spec).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    pub class: Class,
    pub from: String,
    pub to: String,
}

impl Change {
    /// The change as an instruction to the reader, without `help: `.
    pub fn help(&self) -> String {
        let at = self.at();
        match (self.class, self.from.as_str(), self.to.as_str()) {
            (Class::Fence, "no fence", to) => format!("insert `{to};` before {at}"),
            (Class::Volatile, ..) => {
                format!("declare the variable at line {} `volatile`", self.line)
            }
            (_, from, to) => format!("replace `{from}` by `{to}` at {at}"),
        }
    }

    /// Where it is: `line L:C` in the spec, `FILE:L:C` in a CUDA file.
    pub fn at(&self) -> String {
        match &self.file {
            Some(f) => format!("{f}:{}:{}", self.line, self.column),
            None => format!("line {}:{}", self.line, self.column),
        }
    }
}

/// A refused single step of the result, for the record of maximality.
#[derive(Clone, Debug, Serialize)]
pub struct RefusalReport {
    /// The imported CUDA file it is in (none: the spec).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    /// The point as the step would write it.
    pub step: String,
    /// The expect line that fails (0: the command line's check), and how.
    pub expect_line: u32,
    pub got: String,
}

/// The changes, counted by what they do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Atomics, loads and stores whose order changed.
    pub orders: usize,
    /// Declarations that lost (relax) or gained (repair) `volatile`.
    pub volatile: usize,
    pub fences_removed: usize,
    pub fences_inserted: usize,
    /// Fences kept with another order (sc to acq_rel, or back).
    pub fences_changed: usize,
    /// Points whose scope was narrowed.
    pub scopes_narrowed: usize,
    /// Points whose scope was widened.
    pub scopes_widened: usize,
}

impl Counts {
    pub(super) fn of(points: &[Point], was: &[Level], now: &[Level]) -> Counts {
        let mut c = Counts::default();
        for ((p, &a), &b) in points.iter().zip(was).zip(now) {
            if a == b {
                continue;
            }
            match (p.class, a.order, b.order) {
                (Class::Fence, Some(_), None) => c.fences_removed += 1,
                (Class::Fence, None, Some(_)) => c.fences_inserted += 1,
                (Class::Fence, x, y) if x != y => c.fences_changed += 1,
                (Class::Volatile, ..) => c.volatile += 1,
                (_, x, y) if x != y => c.orders += 1,
                _ => {}
            }
            if scope_narrowed(a, b) {
                c.scopes_narrowed += 1;
            } else if scope_narrowed(b, a) {
                c.scopes_widened += 1;
            }
        }
        c
    }
}

/// The points whose level changed, as they read before and after.
fn changes(points: &[Point], was: &[Level], now: &[Level], names: &[String]) -> Vec<Change> {
    points
        .iter()
        .zip(was)
        .zip(now)
        .filter(|((_, a), b)| a != b)
        .map(|((p, &a), &b)| Change {
            file: file_name(p, names),
            line: p.line,
            column: p.column,
            class: p.class,
            from: p.describe(a),
            to: p.describe(b),
        })
        .collect()
}

/// The last pass's refusals, located.
fn refusals(points: &[Point], descent: &Descent, names: &[String]) -> Vec<RefusalReport> {
    descent
        .refusals
        .iter()
        .map(|r| {
            let p = &points[r.point];
            RefusalReport {
                file: file_name(p, names),
                line: p.line,
                column: p.column,
                step: p.describe(r.level),
                expect_line: r.line,
                got: r.got.clone(),
            }
        })
        .collect()
}

/// The CUDA file a point is in, by name (none for the spec's own).
fn file_name(p: &Point, names: &[String]) -> Option<String> {
    p.doc.checked_sub(1).and_then(|k| names.get(k).cloned())
}
