//! The search both tools share: walk every point down the lattice from a
//! start towards a floor, keeping each step under which every target
//! holds (adaptive linear relaxation, as VSync's: each point's floor is
//! tried first, then one step at a time), pass after pass until a whole
//! pass keeps none. That last pass has tried every single weakening of
//! the result, so it is also the proof of maximality.

use super::expect::{Budget, Checker, Outcome, Variant};
use super::level::{at_least, weaker, Level};
use super::points::{apply, Point};
use std::collections::HashMap;

/// A single weakening of the result that some target refuses.
#[derive(Clone, Debug)]
pub(super) struct Refusal {
    pub point: usize,
    pub level: Level,
    /// The expect line that fails (0: the command line's check).
    pub line: u32,
    pub got: String,
}

/// Where the search ended.
#[derive(Clone, Debug)]
pub(super) struct Descent {
    pub levels: Vec<Level>,
    /// The last pass's refused weakenings (every one it tried, when it
    /// ended the search).
    pub refusals: Vec<Refusal>,
    /// Candidates a limit left undecided in the last pass.
    pub undecided: usize,
    /// The budget ran out before a pass kept nothing.
    pub stopped: bool,
}

impl Descent {
    /// A search that did not run: the points stay at `levels`.
    pub(super) fn none(levels: Vec<Level>) -> Descent {
        Descent {
            levels,
            refusals: Vec::new(),
            undecided: 0,
            stopped: true,
        }
    }

    /// No single point can be weakened further: the last pass tried them
    /// all, and each was refused.
    pub(super) fn maximal(&self) -> bool {
        !self.stopped && self.undecided == 0
    }
}

/// The search over one spec's points.
pub(super) struct Search<'a> {
    /// The original texts.
    pub original: &'a Variant,
    pub points: &'a [Point],
    pub floor: Vec<Level>,
    pub checker: Checker,
    pub budget: Budget,
    /// Print each kept step on stderr.
    pub progress: bool,
    seen: HashMap<Vec<Level>, Outcome>,
}

impl<'a> Search<'a> {
    pub(super) fn new(
        original: &'a Variant,
        points: &'a [Point],
        floor: Vec<Level>,
        checker: Checker,
        budget: Budget,
    ) -> Search<'a> {
        Search {
            original,
            points,
            floor,
            checker,
            budget,
            progress: false,
            seen: HashMap::new(),
        }
    }

    /// More targets: what was learnt of the old ones no longer holds.
    pub(super) fn add_targets(&mut self, extra: Vec<super::expect::Target>) {
        self.checker.add_targets(extra);
        self.seen.clear();
    }

    /// The texts with every point at its level.
    pub(super) fn render(&self, levels: &[Level]) -> Variant {
        let doc = |d: usize| {
            let edits = self
                .points
                .iter()
                .zip(levels)
                .filter(|(p, _)| p.doc == d)
                .filter_map(|(p, l)| p.edit(*l))
                .collect();
            apply(self.original.doc(d), edits)
        };
        Variant {
            spec: doc(0),
            cuda: (self.original.cuda.iter().enumerate())
                .map(|(k, (path, _))| (path.clone(), doc(k + 1)))
                .collect(),
        }
    }

    /// Whether every target holds with the points at `levels`.
    pub(super) fn try_levels(&mut self, levels: &[Level]) -> Outcome {
        if let Some(o) = self.seen.get(levels) {
            return o.clone();
        }
        let variant = self.render(levels);
        let outcome = self.checker.evaluate(&variant);
        self.seen.insert(levels.to_vec(), outcome.clone());
        outcome
    }

    /// The candidates for point `i` at `level`: its floor first, then
    /// each level one step weaker, none below the floor.
    fn candidates(&self, i: usize, level: Level) -> Vec<Level> {
        let p = &self.points[i];
        let floor = self.floor[i];
        let mut out = Vec::new();
        if floor != level && p.allows(floor) && at_least(p.class, level, floor) {
            out.push(floor);
        }
        for w in weaker(p.class, level) {
            if w != floor && p.allows(w) && at_least(p.class, w, floor) {
                out.push(w);
            }
        }
        out
    }

    /// Descends from `start` until a pass keeps no step.
    pub(super) fn descend(&mut self, start: Vec<Level>) -> Descent {
        let mut levels = start;
        for pass in 1.. {
            let mut kept = false;
            let mut refusals = Vec::new();
            let mut undecided = 0;
            for i in 0..self.points.len() {
                match self.lower_point(i, &mut levels, &mut refusals, &mut undecided) {
                    Some(k) => kept |= k,
                    None => {
                        return Descent {
                            levels,
                            refusals,
                            undecided,
                            stopped: true,
                        }
                    }
                }
            }
            if self.progress {
                eprintln!(
                    "tune: pass {pass} done, {} checks so far{}",
                    self.checker.checks,
                    if kept { "" } else { ": nothing more to weaken" }
                );
            }
            if !kept {
                return Descent {
                    levels,
                    refusals,
                    undecided,
                    stopped: false,
                };
            }
        }
        unreachable!("the loop returns")
    }

    /// Lowers point `i` as far as the targets allow; whether a step was
    /// kept, or `None` when the budget ran out.
    fn lower_point(
        &mut self,
        i: usize,
        levels: &mut [Level],
        refusals: &mut Vec<Refusal>,
        undecided: &mut usize,
    ) -> Option<bool> {
        let mut kept = false;
        'lower: loop {
            for cand in self.candidates(i, levels[i]) {
                if self.budget.spent() {
                    return None;
                }
                let mut next = levels.to_vec();
                next[i] = cand;
                match self.try_levels(&next) {
                    Outcome::Holds => {
                        self.report_step(i, levels[i], cand);
                        levels[i] = cand;
                        kept = true;
                        continue 'lower;
                    }
                    Outcome::Fails { line, got } => refusals.push(Refusal {
                        point: i,
                        level: cand,
                        line,
                        got,
                    }),
                    Outcome::Undecided { .. } => *undecided += 1,
                }
            }
            return Some(kept);
        }
    }

    fn report_step(&self, i: usize, from: Level, to: Level) {
        if self.progress {
            let p = &self.points[i];
            eprintln!(
                "tune: line {}:{}: {} -> {} ({} checks)",
                p.line,
                p.column,
                p.describe(from),
                p.describe(to),
                self.checker.checks
            );
        }
    }
}
