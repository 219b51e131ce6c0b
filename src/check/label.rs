//! What an edge of the labelled state graph did: the thread that moved,
//! whether it passed a progress point, and under `ptx` the memory effect
//! that memory fairness (`memory_fairness`) reads, in a few bits.

use crate::model::memory::{MemoryEffect, Recency};
use crate::model::StepLabels;

/// What an edge did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct Label {
    /// The thread that moved.
    pub thread: u32,
    /// The action taken (the thread and, under `ptx`, its memory choice).
    pub action: u32,
    pub progress: bool,
    /// Under `ptx`: the location the step accessed and whether it read or
    /// wrote its newest write (`memory_fairness` bits; 0 for no access).
    pub location: u32,
    pub memory: u8,
}

impl Label {
    /// The label of a step of `thread` by `action` that did `labels`.
    pub(crate) fn new(thread: u32, action: u32, labels: &StepLabels) -> Label {
        let (location, memory) = encode(labels.memory);
        Label {
            thread,
            action,
            progress: labels.progressed,
            location,
            memory,
        }
    }
}

/// Edge bits: the step read the newest / an older write of its location ...
pub(super) const READ_NEWEST: u8 = 1;
pub(super) const READ_OLDER: u8 = 2;
/// ... its write became the newest / landed before the newest.
pub(super) const WRITE_NEWEST: u8 = 4;
pub(super) const WRITE_OLDER: u8 = 8;

/// The location and bits an edge label keeps of a step's memory effect.
fn encode(effect: Option<MemoryEffect>) -> (u32, u8) {
    let Some(e) = effect else { return (0, 0) };
    let bit = |r: Option<Recency>, newest: u8, older: u8| match r {
        Some(Recency::Newest) => newest,
        Some(Recency::Older) => older,
        None => 0,
    };
    (
        e.location,
        bit(e.read, READ_NEWEST, READ_OLDER) | bit(e.write, WRITE_NEWEST, WRITE_OLDER),
    )
}
