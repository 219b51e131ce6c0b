//! The labelled graph on the partitioned states, for the liveness
//! analyses: each worker takes again every step of its states (as the
//! sequential `check::graph` does) and keeps, per state, its sequential
//! id, the threads enabled in it, its edges out in action order (label,
//! target and the target's id) and its edges in (label, source). Nothing
//! is gathered: an edge's target learns it from its source's owner, and
//! the source its target's place and id from the target's owner.

use super::partition::{owner, Partition};
use super::rounds::{Msg, Ptr, Rounds, RECORD_BYTES};
use crate::check::{Checkable, Label};

/// States labelled between two exchanges.
const BATCH: usize = 4096;

/// One worker's part of the labelled graph (indices: the partition's).
pub(super) struct Labelled {
    /// Sequential id of each state.
    pub ids: Vec<u64>,
    /// The threads enabled in each state, one bit each.
    pub enabled: Vec<u64>,
    out_start: Vec<usize>,
    /// Edges out, in action order: label, target, target's id.
    out: Vec<(Label, Ptr, u64)>,
    in_start: Vec<usize>,
    /// Edges in: label, source.
    inn: Vec<(Label, Ptr)>,
    /// All workers' states.
    pub total: u64,
}

impl Labelled {
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn out(&self, l: u32) -> &[(Label, Ptr, u64)] {
        &self.out[self.out_start[l as usize]..self.out_start[l as usize + 1]]
    }

    pub(super) fn inn(&self, l: u32) -> &[(Label, Ptr)] {
        &self.inn[self.in_start[l as usize]..self.in_start[l as usize + 1]]
    }

    pub(super) fn is_enabled(&self, l: u32, t: usize) -> bool {
        self.enabled[l as usize] >> t & 1 == 1
    }
}

/// A label in two words.
pub(super) fn encode(l: &Label) -> [u64; 2] {
    [
        u64::from(l.thread) | u64::from(l.action) << 32,
        u64::from(l.progress) | u64::from(l.memory) << 8 | u64::from(l.location) << 32,
    ]
}

pub(super) fn decode(w: &[u64]) -> Label {
    Label {
        thread: w[0] as u32,
        action: (w[0] >> 32) as u32,
        progress: w[1] & 1 == 1,
        memory: (w[1] >> 8) as u8,
        location: (w[1] >> 32) as u32,
    }
}

/// Labels the graph of a complete search of `sys` (at most 64 threads).
pub(super) fn label<S: Checkable>(sys: &S, rounds: &mut Rounds<'_>, part: &Partition) -> Labelled {
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    let n = part.len();
    let ids = sequential_ids(rounds, part);
    let total = rounds.sum(vec![n as u64])[0];
    let mut enabled = vec![0u64; n];
    let mut out_start = vec![0usize; n + 1];
    let mut out: Vec<(Label, Ptr, u64)> = Vec::new();
    let mut inn: Vec<(u32, Label, Ptr)> = Vec::new();
    let batches = rounds.gather(vec![n.div_ceil(BATCH) as u64]);
    let batches = batches.iter().map(|v| v[0]).max().unwrap_or(0) as usize;
    let (mut actions, mut next) = (Vec::new(), vec![0u32; sys.state_words()]);
    let edge_words = 5 + sys.state_words();
    for b in 0..batches {
        let mut sent = Records::new(peers, edge_words);
        for l in (b * BATCH..n.min((b + 1) * BATCH)).map(|l| l as u32) {
            let s = &part.state(l);
            actions.clear();
            sys.actions(s, &mut actions);
            for &a in &actions {
                let t = sys.thread_of(a);
                enabled[l as usize] |= 1 << t;
                // One step gives both the labels and the target (the
                // contract of `step_labels`).
                let (result, labels) = sys.step_labels(s, a, &mut next);
                result.expect("a complete search met no failing step");
                sys.canonicalize(&mut next);
                let label = Label::new(t as u32, a, &labels);
                let slot = out.len() as u64;
                out.push((label, (u32::MAX, u32::MAX), u64::MAX));
                let m = sent.record(rounds, owner(&next, peers));
                m.extend([u64::from(me), u64::from(l), slot]);
                m.extend(encode(&label));
                m.extend(next.iter().map(|&w| u64::from(w)));
            }
            out_start[l as usize + 1] = out.len();
        }
        let mut replies = Records::new(peers, 4);
        let mut words = vec![0u32; sys.state_words()];
        for m in rounds.exchange(sent.into_msgs()) {
            let Msg::Data(m) = m else { continue };
            for m in m.chunks_exact(edge_words) {
                for (w, &x) in words.iter_mut().zip(&m[5..]) {
                    *w = x as u32;
                }
                let to = part.find(&words).expect("a successor is held by its owner");
                let from = (m[0] as u32, m[1] as u32);
                inn.push((to, decode(&m[3..5]), from));
                let reply = [m[2], u64::from(me), u64::from(to), ids[to as usize]];
                replies.record(rounds, from.0).extend(reply);
            }
        }
        for m in rounds.exchange(replies.into_msgs()) {
            let Msg::Data(m) = m else { continue };
            for m in m.chunks_exact(4) {
                let edge = &mut out[m[0] as usize];
                edge.1 = (m[1] as u32, m[2] as u32);
                edge.2 = m[3];
            }
        }
    }
    inn.sort_by_key(|e| e.0);
    let mut in_start = vec![0usize; n + 1];
    for e in &inn {
        in_start[e.0 as usize + 1] += 1;
    }
    for i in 0..n {
        in_start[i + 1] += in_start[i];
    }
    Labelled {
        ids,
        enabled,
        out_start,
        out,
        in_start,
        inn: inn.into_iter().map(|e| (e.1, e.2)).collect(),
        total,
    }
}

/// Fixed-size records of words for each worker, many to a message: a
/// worker's full message is posted (at about [`RECORD_BYTES`]) before
/// the next record is begun, so records are never split.
/// Each message is allocated at its full size once (no doubling).
struct Records {
    each: Vec<Vec<u64>>,
    /// Words a message holds.
    room: usize,
}

impl Records {
    /// Records of `len` words each, for `peers` workers.
    fn new(peers: usize, len: usize) -> Self {
        let room = (RECORD_BYTES / 8).next_multiple_of(len);
        Records {
            each: vec![Vec::new(); peers],
            room,
        }
    }

    /// Where to write a new record for worker `to`.
    fn record(&mut self, rounds: &mut Rounds<'_>, to: u32) -> &mut Vec<u64> {
        let words = &mut self.each[to as usize];
        if words.len() >= self.room {
            let full = std::mem::replace(words, Vec::with_capacity(self.room));
            rounds.post(to, Msg::Data(full));
        } else if words.capacity() == 0 {
            words.reserve_exact(self.room);
        }
        words
    }

    /// The records not posted yet: one message per worker that has some.
    fn into_msgs(self) -> Vec<(u32, Msg)> {
        (self.each.into_iter().enumerate())
            .filter(|(_, v)| !v.is_empty())
            .map(|(w, v)| (w as u32, Msg::Data(v)))
            .collect()
    }
}

/// Each state's id in the sequential search: the states of the levels
/// before its own, plus its rank in it.
fn sequential_ids(rounds: &mut Rounds<'_>, part: &Partition) -> Vec<u64> {
    let mine = part.level_sizes();
    let all = rounds.gather(mine);
    let levels = all.iter().map(Vec::len).max().unwrap_or(0);
    let mut starts = vec![0u64; levels + 1];
    for v in &all {
        for (i, c) in v.iter().enumerate() {
            starts[i + 1] += c;
        }
    }
    for i in 0..levels {
        starts[i + 1] += starts[i];
    }
    (0..part.len())
        .map(|l| starts[part.level(l as u32) as usize] + part.rank[l])
        .collect()
}
