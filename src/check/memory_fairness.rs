//! Memory fairness under `ptx`: a write that stays the newest of its
//! location eventually becomes visible, so a fair cycle may not keep a
//! thread reading older writes, or keep writes landing before it, while
//! nothing newer is ever written.
//!
//! Two families of strong-fairness (Streett) requirements, on edges:
//!
//! - `Reads { thread t, location x }`: if `t` reads an *older* write of `x`
//!   infinitely often, then infinitely often `t` reads the *newest* write of
//!   `x` or some write becomes the newest of `x`;
//! - `Lands { location x }`: if writes land *before* the newest write of `x`
//!   infinitely often, then infinitely often a write becomes the newest.
//!
//! **Why this removes only executions PTX does not have.** On a cycle that
//! breaks one of them, no write becomes the newest of `x`, and the newest is
//! never dropped (only writes nobody may read, or the oldest of a full
//! history, are): one write `w` stays the newest forever. Then infinitely
//! many reads of `t` read writes coherence-before `w` (each is from-read
//! before `w`), or infinitely many writes are coherence-before `w`. Memory
//! fairness in the sense of Lahav et al. ("Making weak memory models fair",
//! OOPSLA 2021: `co` and `fr` prefix-finite) rules out both, and so does the
//! hardware of seed 000 (section 2.1): a store reaches the L2 in finite time
//! and a line polled forever is refreshed from it. Cycles where new writes
//! keep becoming the newest (a reader lagging behind a counter forever) are
//! kept: PTX allows them.
//!
//! The liveness search prunes a component that asks a requirement it never
//! grants by removing the asking edges (Emerson–Lei, as for strong thread
//! fairness) and splitting the rest into components again.

use super::label::{Label, READ_NEWEST, READ_OLDER, WRITE_NEWEST, WRITE_OLDER};
use std::collections::{BTreeSet, HashSet};

/// One memory-fairness requirement.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub(crate) enum Requirement {
    Reads { thread: u32, location: u32 },
    Lands { location: u32 },
}

impl Requirement {
    /// The edge meets the requirement.
    pub(super) fn grants(self, l: &Label) -> bool {
        let newest_written = |x: u32| l.memory & WRITE_NEWEST != 0 && l.location == x;
        match self {
            Requirement::Reads { thread, location } => {
                newest_written(location)
                    || (l.memory & READ_NEWEST != 0 && l.thread == thread && l.location == location)
            }
            Requirement::Lands { location } => newest_written(location),
        }
    }

    /// The requirements an edge asks.
    fn asked_by(l: &Label) -> impl Iterator<Item = Requirement> {
        let reads = (l.memory & READ_OLDER != 0).then_some(Requirement::Reads {
            thread: l.thread,
            location: l.location,
        });
        let lands = (l.memory & WRITE_OLDER != 0).then_some(Requirement::Lands {
            location: l.location,
        });
        reads.into_iter().chain(lands)
    }
}

/// Requirements a search has given up on: their asking edges are removed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Excluded(HashSet<Requirement>);

impl Excluded {
    pub(crate) fn forbids(&self, l: &Label) -> bool {
        l.memory & (READ_OLDER | WRITE_OLDER) != 0
            && Requirement::asked_by(l).any(|r| self.0.contains(&r))
    }

    /// The requirements given up on, in order.
    #[cfg(feature = "dist")]
    pub(crate) fn requirements(&self) -> Vec<Requirement> {
        let mut rs: Vec<Requirement> = self.0.iter().copied().collect();
        rs.sort_unstable();
        rs
    }

    pub(crate) fn with(&self, rs: &[Requirement]) -> Excluded {
        let mut set = self.0.clone();
        set.extend(rs);
        Excluded(set)
    }
}

/// The memory edges of one component, tallied.
#[derive(Default)]
pub(crate) struct Tally {
    asked: BTreeSet<Requirement>,
    /// (thread, location) pairs that read the newest.
    read_newest: HashSet<(u32, u32)>,
    /// Locations that got a new newest write.
    written_newest: HashSet<u32>,
}

impl Tally {
    /// Counts an edge of the component.
    pub(crate) fn add(&mut self, l: &Label) {
        if l.memory == 0 {
            return;
        }
        self.asked.extend(Requirement::asked_by(l));
        if l.memory & READ_NEWEST != 0 {
            self.read_newest.insert((l.thread, l.location));
        }
        if l.memory & WRITE_NEWEST != 0 {
            self.written_newest.insert(l.location);
        }
    }

    /// The requirements the component asks and never grants (all of them
    /// go at once: a fair cycle of the component avoids each one's edges).
    pub(crate) fn unmet(&self) -> Vec<Requirement> {
        self.asked
            .iter()
            .copied()
            .filter(|r| match *r {
                Requirement::Reads { thread, location } => {
                    !self.written_newest.contains(&location)
                        && !self.read_newest.contains(&(thread, location))
                }
                Requirement::Lands { location } => !self.written_newest.contains(&location),
            })
            .collect()
    }

    /// Every requirement the component asks (the lasso must grant each).
    pub(super) fn asked(&self) -> impl Iterator<Item = Requirement> + '_ {
        self.asked.iter().copied()
    }
}
