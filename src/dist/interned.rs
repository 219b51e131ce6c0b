//! Edge labels interned: a worker keeps each distinct label once and its
//! edges a number of it (4 bytes where a `Label` takes 16). A run has
//! few distinct labels (a thread's actions, their progress and memory
//! effects), and the labelled graph holds each edge at both ends (#43:
//! the distributed liveness held 56 bytes an edge, the single process's
//! graph 32).

use rustc_hash::FxHashMap as HashMap;

use crate::check::Label;

/// The distinct labels of one worker's edges, numbered as first met.
#[derive(Default)]
pub(super) struct Labels {
    all: Vec<Label>,
    numbers: HashMap<Label, u32>,
}

impl Labels {
    /// The number of `label`, new if it was not met before.
    pub(super) fn intern(&mut self, label: Label) -> u32 {
        let next = self.all.len() as u32;
        let n = *self.numbers.entry(label).or_insert(next);
        if n == next {
            self.all.push(label);
        }
        n
    }

    /// The label numbered `n`.
    #[inline]
    pub(super) fn get(&self, n: u32) -> Label {
        self.all[n as usize]
    }
}
