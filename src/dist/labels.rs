//! The labelled graph on the partitioned states, for the liveness
//! analyses: per state, its sequential id, the threads enabled in it,
//! its edges out in action order (label, target) and its edges in
//! (label, source). The search labels the edges as it takes
//! each step once (the source's owner sends the label with the target,
//! whose owner keeps the edge in: `search::Edges::Labelled`); here each
//! edge in goes back to its source's owner with its target's place.
//! Nothing is gathered, and no step is taken twice.

use super::interned::Labels;
use super::partition::{LabelledPred, Packing, Partition};
use super::rounds::{Msg, Ptr, Rounds, RECORD_BYTES};
use crate::check::Label;
use crate::model::StepLabels;

/// Edges sent back to their sources between two exchanges.
const BATCH: usize = 1 << 15;

/// One worker's part of the labelled graph (indices: the partition's).
/// An edge keeps its label's number (`interned`) and its other end
/// packed in a word (`Packing`): 8 bytes an edge, where a `Label` and a
/// (worker, index) pair took 32 and 24, and an edge out also kept its
/// target's id, which only a report reads ([`ids_of`]) (#43).
pub(super) struct Labelled {
    /// Sequential id of each state.
    pub ids: Vec<u64>,
    /// The threads enabled in each state, one bit each.
    pub enabled: Vec<u64>,
    out_start: Vec<usize>,
    /// Edges out, in action order: label, target.
    out: Vec<(u32, u32)>,
    in_start: Vec<usize>,
    /// Edges in: label, source.
    inn: Vec<(u32, u32)>,
    labels: Labels,
    packing: Packing,
}

impl Labelled {
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The edges out of state `l`, in action order: label and target.
    pub(super) fn out(&self, l: u32) -> impl Iterator<Item = (Label, Ptr)> + '_ {
        let edges = &self.out[self.out_start[l as usize]..self.out_start[l as usize + 1]];
        (edges.iter()).map(|e| (self.labels.get(e.0), self.packing.unpack(e.1)))
    }

    /// The edges into state `l`: label and source.
    pub(super) fn inn(&self, l: u32) -> impl Iterator<Item = (Label, Ptr)> + '_ {
        let edges = &self.inn[self.in_start[l as usize]..self.in_start[l as usize + 1]];
        (edges.iter()).map(|e| (self.labels.get(e.0), self.packing.unpack(e.1)))
    }

    pub(super) fn is_enabled(&self, l: u32, t: usize) -> bool {
        self.enabled[l as usize] >> t & 1 == 1
    }

    /// Bytes held, by part (`GSYNC_DIST_MEMORY`).
    pub(super) fn held(&self) -> [(&'static str, usize); 3] {
        use super::memory::held;
        [
            ("ids, enabled", held(&self.ids) + held(&self.enabled)),
            ("edges out", held(&self.out_start) + held(&self.out)),
            ("edges in", held(&self.in_start) + held(&self.inn)),
        ]
    }
}

#[cfg(test)]
impl Labelled {
    /// This worker's part of a graph given whole: `ids[w]` the ids of
    /// worker `w`'s states, `edges` (source, label, target) between
    /// states as `(worker, index)`.
    pub(super) fn of_edges(me: u32, ids: &[Vec<u64>], edges: &[(Ptr, Label, Ptr)]) -> Labelled {
        let n = ids[me as usize].len();
        let packing = Packing::new(ids.len());
        let mut labels = Labels::default();
        let mut out: Vec<_> = edges.iter().filter(|e| e.0 .0 == me).collect();
        out.sort_by_key(|e| e.0 .1);
        let mut inn: Vec<_> = edges.iter().filter(|e| e.2 .0 == me).collect();
        inn.sort_by_key(|e| e.2 .1);
        let mut enabled = vec![0u64; n];
        for e in &out {
            enabled[e.0 .1 as usize] |= 1 << e.1.thread;
        }
        Labelled {
            ids: ids[me as usize].clone(),
            enabled,
            out_start: starts(n, out.iter().map(|e| e.0 .1)),
            out: (out.iter())
                .map(|e| (labels.intern(e.1), packing.pack(e.2)))
                .collect(),
            in_start: starts(n, inn.iter().map(|e| e.2 .1)),
            inn: (inn.iter())
                .map(|e| (labels.intern(e.1), packing.pack(e.0)))
                .collect(),
            labels,
            packing,
        }
    }
}

/// What a step's label says beyond its thread and action, in one word
/// (the search sends it with the step's target, which travels with its
/// action).
pub(super) fn effect(labels: &StepLabels) -> u64 {
    encode(&Label::new(0, 0, labels))[1]
}

/// The label of a step of `thread` by `action` whose [`effect`] is given.
pub(super) fn with_effect(thread: usize, action: u32, effect: u64) -> Label {
    decode(&[thread as u64 | u64::from(action) << 32, effect])
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

/// The labelled graph of a complete search that kept its edges with
/// their labels (`search::Edges::Labelled`; at most 64 threads): each
/// edge into a state goes back to its source's owner with the state's
/// place, and is written there at its place among its source's steps,
/// whose counts the search kept (`Partition::steps`). No step is taken
/// again, and the edges out are never held but in their final form
/// (#43: held at 20 bytes and sorted, beside the edges in, they made the
/// analyses' peak).
pub(super) fn label(rounds: &mut Rounds<'_>, part: &mut Partition) -> Labelled {
    let n = part.len();
    let ids = sequential_ids(rounds, part);
    let mut inn = std::mem::take(&mut part.labelled);
    inn.shrink_to_fit();
    let mut labels = std::mem::take(&mut part.labels);
    let packing = part.packing();
    let steps = std::mem::take(&mut part.steps);
    assert_eq!(steps.len(), n, "a complete search expanded every state");
    let out_start = starts_of_counts(steps.iter().map(|&c| c as usize));
    drop(steps);
    let out = edges_out(rounds, &inn, (&out_start, packing), &mut labels);
    let enabled = (0..n)
        .map(|l| {
            (out[out_start[l]..out_start[l + 1]].iter())
                .fold(0u64, |m, e| m | 1 << labels.get(e.0).thread)
        })
        .collect();
    inn.sort_unstable_by_key(|e| e.0);
    let in_start = starts(n, inn.iter().map(|e| e.0));
    // Built in place of the longer records it came from, then cut to
    // its length.
    let mut inn: Vec<_> = inn.into_iter().map(|e| (e.3, e.1)).collect();
    inn.shrink_to_fit();
    Labelled {
        ids,
        enabled,
        out_start,
        out,
        in_start,
        inn,
        labels,
        packing,
    }
}

/// The edges out of this worker's states, each at its place (`starts`:
/// where each state's begin): every worker sends each edge into its
/// states (`inn`) to the owner of its source, [`BATCH`] edges an
/// exchange; their labels are numbered in `labels` as they come.
fn edges_out(
    rounds: &mut Rounds<'_>,
    inn: &[LabelledPred],
    (starts, packing): (&[usize], Packing),
    labels: &mut Labels,
) -> Vec<(u32, u32)> {
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    let batches = rounds.gather(vec![inn.len().div_ceil(BATCH) as u64]);
    let batches = batches.iter().map(|v| v[0]).max().unwrap_or(0) as usize;
    let total = starts.last().copied().unwrap_or(0);
    let mut out = vec![(u32::MAX, u32::MAX); total];
    let mut placed = 0usize;
    for b in 0..batches {
        let mut sent = Records::new(peers, 4);
        for &(to, from, place, label) in inn.iter().skip(b * BATCH).take(BATCH) {
            let from = packing.unpack(from);
            let m = sent.record(rounds, from.0);
            m.extend([
                u64::from(from.1) | u64::from(place) << 32,
                u64::from(packing.pack((me, to))),
            ]);
            m.extend(encode(&labels.get(label)));
        }
        rounds.exchange_each(sent.into_msgs(), |m| {
            let Msg::Data(m) = m else { return };
            for m in m.chunks_exact(4) {
                let (from, place) = split(m[0]);
                let at = starts[from as usize] + place as usize;
                assert!(at < starts[from as usize + 1], "a step within its state's");
                debug_assert_eq!(out[at].0, u32::MAX, "one edge a place");
                out[at] = (labels.intern(decode(&m[2..4])), m[1] as u32);
                placed += 1;
            }
        });
    }
    assert_eq!(placed, total, "every step of a state came back as an edge");
    out
}

/// The sequential ids of `states` (of any worker), which the edges out
/// do not keep: each asked of its owner, many to a record (two rounds,
/// which every worker takes, asking or not).
pub(super) fn ids_of(
    rounds: &mut Rounds<'_>,
    g: &Labelled,
    states: &[Ptr],
) -> std::collections::HashMap<Ptr, u64> {
    let (me, peers) = (rounds.index() as u64, rounds.peers());
    let mut asks = Records::new(peers, 1);
    for &(w, l) in states {
        asks.record(rounds, w).push(u64::from(l) | me << 32);
    }
    let mut answers = Records::new(peers, 2);
    for m in rounds.exchange(asks.into_msgs()) {
        let Msg::Data(m) = m else { continue };
        for &ask in &m {
            let (l, from) = split(ask);
            let id = g.ids[l as usize];
            answers
                .record(rounds, from)
                .extend([u64::from(l) | me << 32, id]);
        }
    }
    let mut ids = std::collections::HashMap::new();
    rounds.exchange_each(answers.into_msgs(), |m| {
        let Msg::Data(m) = m else { return };
        for a in m.chunks_exact(2) {
            let (l, w) = split(a[0]);
            ids.insert((w, l), a[1]);
        }
    });
    ids
}

/// Where the run of each of `n` states starts in `sorted` (their
/// indices, in order), and where the last ends.
fn starts(n: usize, sorted: impl Iterator<Item = u32>) -> Vec<usize> {
    let mut starts = vec![0usize; n + 1];
    for l in sorted {
        starts[l as usize + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
    starts
}

/// Where each run starts, of runs of `counts` one after another, and
/// where the last ends.
fn starts_of_counts(counts: impl ExactSizeIterator<Item = usize>) -> Vec<usize> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    starts.push(0);
    for c in counts {
        starts.push(starts.last().copied().unwrap_or(0) + c);
    }
    starts
}

/// The two halves of a word: (low, high).
fn split(w: u64) -> (u32, u32) {
    (w as u32, (w >> 32) as u32)
}

/// Fixed-size records of words for each worker, many to a message: a
/// worker's full message is posted (at about [`RECORD_BYTES`]) before
/// the next record is begun, so records are never split.
/// Each message is allocated at its full size once (no doubling).
pub(super) struct Records {
    each: Vec<Vec<u64>>,
    /// Words a message holds.
    room: usize,
}

impl Records {
    /// Records of `len` words each, for `peers` workers.
    pub(super) fn new(peers: usize, len: usize) -> Self {
        let room = (RECORD_BYTES / 8).next_multiple_of(len);
        Records {
            each: vec![Vec::new(); peers],
            room,
        }
    }

    /// Where to write a new record for worker `to`.
    pub(super) fn record(&mut self, rounds: &mut Rounds<'_>, to: u32) -> &mut Vec<u64> {
        let words = &mut self.each[to as usize];
        if words.len() >= self.room {
            let full = std::mem::replace(words, Vec::with_capacity(self.room));
            rounds.post(to, Msg::Data(full));
        } else if words.capacity() == 0 {
            words.reserve_exact(self.room);
        }
        words
    }

    /// Appends `words` for worker `to` as one record of its own length
    /// (the length, then the words: records of `len` 1 framed), posting
    /// the message first where they would not fit.
    pub(super) fn frame(&mut self, rounds: &mut Rounds<'_>, to: u32, words: &[u64]) {
        let held = &mut self.each[to as usize];
        if !held.is_empty() && held.len() + 1 + words.len() > self.room {
            let full = std::mem::take(held);
            rounds.post(to, Msg::Data(full));
        }
        held.push(words.len() as u64);
        held.extend_from_slice(words);
    }

    /// The records not posted yet: one message per worker that has some.
    pub(super) fn into_msgs(self) -> Vec<(u32, Msg)> {
        (self.each.into_iter().enumerate())
            .filter(|(_, v)| !v.is_empty())
            .map(|(w, v)| (w as u32, Msg::Data(v)))
            .collect()
    }
}

/// The records of a message of [`Records::frame`].
pub(super) fn frames(mut words: &[u64]) -> impl Iterator<Item = &[u64]> {
    std::iter::from_fn(move || {
        let (&len, rest) = words.split_first()?;
        let (record, rest) = rest.split_at(len as usize);
        words = rest;
        Some(record)
    })
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
        .map(|l| starts[part.level(l as u32) as usize] + part.rank(l as u32))
        .collect()
}
