//! The canonical form's merge repeated until nothing merges (the
//! default; off with `--no-canonical-fixpoint`): one pass of the form
//! (`canon`) is not idempotent, since two of its rules run after a
//! location's repeat merge and make new repeats there. The dead-write drop
//! removes a write from the middle of a history (`atomicCAS(lock, 0, 1)`
//! after an unlock: the released 0 goes and two locks' 1s become
//! neighbours); the view clamps zero entries of a release's view, and a
//! release they empty is dropped as no release, after which it may repeat
//! the write before it. Merging a write of a later location, or retiring
//! its oldest writes, also renumbers that location's entry in every view,
//! which can make the views of two writes of an earlier location equal.
//!
//! Soundness: every rule of the form maps a state to one with the same
//! futures, and each rule's argument reads only the state it is applied
//! to (the histories, the views, the code ahead of each thread), never how
//! that state came about; one pass already applies each rule to a state
//! the rules before it rewrote. So the rules keep the futures of a state
//! the form has put out as they do of one a step produced, and applying
//! them again, any number of times, keeps them too. A merge frees a slot
//! of the bounded history, which only brings the model closer to PTX
//! (`merge_repeats`).
//!
//! Only the repeat merge can change a state the form has put out: without
//! a merge every other rule is idempotent on it (the drops leave no write
//! they would drop, the bases are as tight as the floors allow, the views
//! are clamped to the floors), and its view refresh too (views only move
//! forward). So instead of the whole form again, a round merges only the
//! locations that hold a repeat, each with the rules of its own location
//! that the merge makes necessary (`settle`: its floor, bases and drops),
//! and clamps only those locations' entries of the views, which the merges
//! renumbered; rounds go on until no location holds a repeat. A round does
//! what a whole pass of the form would, in the same order: the result is
//! the form's fixpoint (`tests.rs` compares the two on every successor of
//! several specs).

use super::canon::Readers;
use super::PtxMemory;

impl PtxMemory {
    /// Merges the repeats one pass of the form left (or made) until none is
    /// left. `floors`: the floors the pass clamped the views to, reused as
    /// the round's (where a location is not settled again, 0: nothing of
    /// it to clamp again).
    pub(super) fn merge_to_fixpoint(
        &self,
        s: &mut [u32],
        readers: &Readers,
        floors: &mut [Option<usize>],
    ) {
        loop {
            let mut merged = false;
            for (x, floor) in floors.iter_mut().enumerate() {
                *floor = Some(0);
                if self.has_repeat(s, x) {
                    *floor = self.settle(s, readers, x);
                    merged = true;
                }
            }
            if !merged {
                return;
            }
            self.clamp_views(s, floors);
        }
    }
}
